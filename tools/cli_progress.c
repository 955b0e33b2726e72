/* The one progress bar, on stderr when it is a terminal: for long writes (labelled with the
 * command's work) and for long reads of a URL (labelled with the URL). */
#define _GNU_SOURCE /* clock_gettime */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define BAR_WIDTH 24

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bar on the terminal while the work goes on (an interrupt's message asks
 * cli_progress_on_screen, to end the bar's line first). */
static cli_progress *volatile shown_bar;

static void progress_draw(void *user, uint64_t done, uint64_t total) {
    cli_progress *p = user;
    int permille = total ? (int)(done * 1000 / total) : 1000;
    double now = cli_now();
    /* at most ten times a second, and once at the end */
    if (permille == p->last_permille || (permille < 1000 && now - p->drawn < 0.1))
        return;
    p->last_permille = permille;
    p->drawn = now;
    if (p->ends == NULL && p->f != NULL && gguf_tensor_count(p->f) > 0) {
        p->n = gguf_tensor_count(p->f);
        p->ends = malloc(p->n * sizeof *p->ends);
        uint64_t sum = 0;
        for (size_t i = 0; p->ends != NULL && i < p->n; i++) {
            gguf_tensor_info t;
            gguf_tensor_get(&t, p->f, i);
            sum += t.nbytes == UINT64_MAX ? 0 : t.nbytes;
            p->ends[i] = sum;
        }
    }
    char bar[BAR_WIDTH + 1];
    int fill = permille * BAR_WIDTH / 1000;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    /* every byte written is not the work done: the fsync, the proof and the rename follow, and
     * an interrupt until then leaves the old file */
    if (permille == 1000)
        fprintf(stderr, "\r\033[K%s [%s] syncing", p->label, bar);
    else
        fprintf(stderr, "\r\033[K%s [%s] %3d%%", p->label, bar, permille / 10);
    if (p->ends != NULL && permille < 1000) {
        size_t t = 0;
        while (t + 1 < p->n && p->ends[t] <= done)
            t++;
        fprintf(stderr, "  tensor %zu/%zu", t + 1, p->n);
    }
    fprintf(stderr, "  %.1f/%.1f MiB  %.0fs", (double)done / 1048576.0,
            (double)total / 1048576.0, now - p->start);
    fflush(stderr);
    p->shown = 1;
    shown_bar = p;
}

gguf_progress_fn cli_progress_fn(cli_progress *p, const char *label, const gguf_file *f) {
    *p = (cli_progress){.label = label, .f = f, .last_permille = -1, .start = cli_now()};
    return isatty(STDERR_FILENO) ? progress_draw : NULL;
}

void cli_progress_attach(cli_progress *p, const char *label, const gguf_file *f,
                         gguf_write_options *opt) {
    gguf_progress_fn fn = cli_progress_fn(p, label, f);
    if (fn != NULL) {
        opt->progress = fn;
        opt->progress_user = p;
    }
}

void cli_progress_end(cli_progress *p) {
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = 0;
    if (shown_bar == p)
        shown_bar = NULL;
    free(p->ends);
    p->ends = NULL;
}

int cli_progress_on_screen(void) {
    cli_progress *p = shown_bar;
    return p != NULL && p->shown;
}

/* ---- long reads of a URL ---- */

static cli_progress fetch_bar; /* labelled with the URL */

void cli_fetch_progress_end(void) {
    cli_progress_end(&fetch_bar);
    fetch_bar.label = NULL;
}

void cli_fetch_progress(void *user, uint64_t fetched, uint64_t size) {
    if (fetched < ((uint64_t)4 << 20))
        return; /* short reads need no progress bar */
    if (fetch_bar.label != user) {
        static int registered;
        if (!registered)
            atexit(cli_fetch_progress_end);
        registered = 1;
        fetch_bar = (cli_progress){.label = user, .last_permille = -1, .start = cli_now()};
    }
    progress_draw(&fetch_bar, fetched, size);
}
