/* What the tools say on stderr when something fails: an error naming its file and offset,
 * a usage error with the command's usage lines, and "did you mean" the closest name. */
#define _GNU_SOURCE /* strndup */
#include "cli.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cli_prog = "gguf-edit";

const char *cli_error_path(const char *path, const gguf_error *err) {
    /* when the library kept only the end of a long name, the caller's whole name is that
     * file's */
    size_t n = strlen(err->path), have = path != NULL ? strlen(path) : 0;
    int cut = n > 3 && memcmp(err->path, "...", 3) == 0 && have >= n - 3 &&
              strcmp(path + have - (n - 3), err->path + 3) == 0;
    return err->path[0] != '\0' && !cut ? err->path : path;
}

void cli_report(const char *path, const gguf_error *err) {
    const char *msg = err->message[0] ? err->message : gguf_strerror(err->code);
    path = cli_error_path(path, err);
    /* the offset, unless the message names it already ("... at byte 92") */
    char at[32];
    snprintf(at, sizeof at, "byte %" PRIu64, err->offset);
    const char *said = strstr(msg, at);
    if (said != NULL && (said[strlen(at)] >= '0' && said[strlen(at)] <= '9'))
        said = NULL; /* "byte 920" names another byte */
    if (err->offset != GGUF_ERROR_NO_OFFSET && said == NULL)
        fprintf(stderr, "%s: %s: offset 0x%" PRIx64 ": %s\n", cli_prog, path, err->offset, msg);
    else
        fprintf(stderr, "%s: %s: %s\n", cli_prog, path, msg);
}

void cli_errorf(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", cli_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- usage errors ---- */

const char *cli_verb;

/* The usage line(s) of a --help text for the verb: its leading lines that start with "usage:"
 * or continue them ("       gguf-edit rm ..."), those naming the verb when some do. */
static void print_usage_lines(FILE *out, const char *usage) {
    const char *p = usage;
    const char *lines[16];
    size_t lens[16], n = 0, named = 0;
    while (*p != '\0' && n < 16) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, "usage:", 6) != 0 && !(n > 0 && strncmp(p, "       ", 7) == 0))
            break;
        lines[n] = p;
        lens[n++] = len;
        p += len + (nl != NULL);
    }
    /* the lines that name the verb: " VERB" followed by a blank or the end of the line */
    size_t vlen = cli_verb ? strlen(cli_verb) : 0;
    int pick[16] = {0};
    for (size_t i = 0; vlen > 0 && i < n; i++) {
        for (size_t k = 1; !pick[i] && k + vlen <= lens[i]; k++) {
            const char *w = lines[i] + k;
            pick[i] = w[-1] == ' ' && strncmp(w, cli_verb, vlen) == 0 &&
                      (k + vlen == lens[i] || w[vlen] == ' ');
        }
        named += (size_t)pick[i];
    }
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (named > 0 && !pick[i])
            continue;
        const char *line = lines[i];
        size_t len = lens[i];
        if (!first && strncmp(line, "usage:", 6) == 0) { /* "usage:" once, the others aligned */
            line += 6;
            len -= 6;
            fputs("      ", out);
        } else if (first && strncmp(line, "usage:", 6) != 0) {
            fputs("usage:", out);
            line += 6;
            len -= 6;
        }
        fwrite(line, 1, len, out);
        putc('\n', out);
        first = 0;
    }
}

void cli_verb_verror(const char *fmt, va_list ap) {
    fprintf(stderr, "%s: ", cli_prog);
    if (cli_verb != NULL)
        fprintf(stderr, "%s: ", cli_verb);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *usage, const char *fmt, ...) {
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        cli_verb_verror(fmt, ap);
        va_end(ap);
    }
    if (usage != NULL)
        print_usage_lines(stderr, usage);
    if (cli_verb != NULL)
        fprintf(stderr, "Try '%s %s --help' for more information.\n", cli_prog, cli_verb);
    else
        fprintf(stderr, "Try '%s --help' for more information.\n", cli_prog);
    return CLI_USAGE;
}

/* ---- did you mean ---- */

/* Edit distance with adjacent transpositions counting one (optimal string alignment). */
static size_t distance(const char *a, const char *b) {
    size_t m = strlen(a), n = strlen(b);
    if (m > 64 || n > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= m; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= n; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 1; j <= n; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[m][n];
}

const char *cli_suggest(const char *word, const char *const *names, size_t n) {
    size_t len = strlen(word);
    /* one edit in short words, two from five letters on */
    size_t best = len >= 5 ? 3 : 2;
    const char *pick = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, names[i]);
        if (d < best) {
            best = d;
            pick = names[i];
        }
    }
    if (pick != NULL || len < 2)
        return pick;
    for (size_t i = 0; i < n; i++) { /* "ver": the one name it begins */
        if (strncmp(names[i], word, len) == 0) {
            if (pick != NULL)
                return NULL;
            pick = names[i];
        }
    }
    return pick;
}

const char *cli_suggest_name(const gguf_file *f, int tensors, const char *word) {
    static char pick[256];
    size_t n = tensors ? gguf_tensor_count(f) : gguf_kv_count(f);
    char **names = calloc(n ? n : 1, sizeof *names);
    size_t got = 0;
    for (size_t i = 0; names != NULL && i < n; i++) {
        gguf_tensor_info t;
        size_t len = 0;
        const char *name;
        if (tensors) {
            gguf_tensor_get(&t, f, i);
            name = t.name;
            len = t.name_len;
        } else {
            name = gguf_kv_key(f, i, &len);
        }
        if (len < sizeof pick && memchr(name, '\0', len) == NULL &&
            (names[got] = strndup(name, len)) != NULL)
            got++;
    }
    const char *s = names != NULL ? cli_suggest(word, (const char *const *)names, got) : NULL;
    if (s != NULL)
        snprintf(pick, sizeof pick, "%s", s);
    for (size_t i = 0; i < got; i++)
        free(names[i]);
    free(names);
    return s != NULL ? pick : NULL;
}

static void no_name(const gguf_file *f, int tensors, const char *path, const char *name) {
    const char *s = cli_suggest_name(f, tensors, name);
    cli_errorf("%s: no %s '%s'%s%s%s", path, tensors ? "tensor" : "key", name,
               s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
}

void cli_no_key(const gguf_file *f, const char *path, const char *key) {
    no_name(f, 0, path, key);
}

void cli_no_tensor(const gguf_file *f, const char *path, const char *name) {
    no_name(f, 1, path, name);
}
