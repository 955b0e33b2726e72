/* Loading big legacy importance matrices (llama-imatrix's older format, as made for models with
 * many expert tensors): gguf_requant_imatrix_load of SMALL and LARGE entries (default 20,000 and
 * 160,000; 4 weights each), best of RUNS, with the time to read the file's bytes as the
 * baseline in the same process. Loading must grow linearly, as reading does: the load time
 * over the read time stays about the same from SMALL to LARGE (growth about 1), where a scan of
 * the entries loaded so far per entry multiplies it by about LARGE / SMALL (8 by default: a
 * 160k-entry file then took 45 s). Times are the process's CPU time (one thread does the
 * work), which a busy machine disturbs less than wall time; both grow faster than the entry
 * count once the data outgrows the caches, hence the read baseline.
 *   bench_imatrix [SMALL LARGE [RUNS]]   (files under $TMPDIR or /tmp, removed afterwards) */
#define _GNU_SOURCE
#include <libgguf/gguf.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CPU time of this process: loading runs on one thread, and the machine may be busy. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void put32(FILE *fp, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, fp);
}

/* n entries "blk.L.ffn_down_exps.E.weight", ncall 1, 4 weights each. */
static int write_imatrix(const char *path, uint32_t n) {
    FILE *fp = fopen(path, "wb");
    if (fp == NULL)
        return -1;
    put32(fp, n);
    for (uint32_t i = 0; i < n; i++) {
        char name[64];
        int len = snprintf(name, sizeof name, "blk.%u.ffn_down_exps.%u.weight", i / 256, i % 256);
        put32(fp, (uint32_t)len);
        fwrite(name, 1, (size_t)len, fp);
        put32(fp, 1);
        put32(fp, 4);
        for (int k = 0; k < 4; k++) {
            float x = (float)(i % 1000 + k);
            uint32_t u;
            memcpy(&u, &x, 4);
            put32(fp, u);
        }
    }
    return fclose(fp);
}

static double best_read(const char *path, int runs) {
    static char buf[1 << 16];
    double best = 1e9;
    for (int r = 0; r < runs; r++) {
        double t = now();
        int fd = open(path, O_RDONLY);
        while (read(fd, buf, sizeof buf) > 0)
            ;
        close(fd);
        t = now() - t;
        best = t < best ? t : best;
    }
    return best;
}

static double best_load(const char *path, uint32_t n, int runs) {
    double best = 1e9;
    for (int r = 0; r < runs; r++) {
        gguf_requant_imatrix *im;
        gguf_error err;
        gguf_error_clear(&err);
        double t = now();
        if (gguf_requant_imatrix_load(&im, path, &err) != 0) {
            fprintf(stderr, "bench_imatrix: %s: %s\n", path, err.message);
            exit(1);
        }
        t = now() - t;
        if (gguf_requant_imatrix_count(im) != n) {
            fprintf(stderr, "bench_imatrix: %s: %zu entries, not %u\n", path,
                    gguf_requant_imatrix_count(im), n);
            exit(1);
        }
        gguf_requant_imatrix_free(im);
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv) {
    uint32_t sizes[2] = {20000, 160000};
    int runs = 3;
    if (argc >= 3) {
        sizes[0] = (uint32_t)strtoul(argv[1], NULL, 10);
        sizes[1] = (uint32_t)strtoul(argv[2], NULL, 10);
    }
    if (argc >= 4)
        runs = atoi(argv[3]);
    if (sizes[0] == 0 || sizes[1] <= sizes[0] || runs < 1) {
        fprintf(stderr, "usage: bench_imatrix [SMALL LARGE [RUNS]]\n");
        return 2;
    }
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    double load[2], rd[2];
    for (int s = 0; s < 2; s++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/bench_imatrix.%ld.%u.dat", dir, (long)getpid(), sizes[s]);
        if (write_imatrix(path, sizes[s]) != 0) {
            perror(path);
            return 1;
        }
        rd[s] = best_read(path, runs);
        load[s] = best_load(path, sizes[s], runs);
        unlink(path);
        printf("imatrix load, %6u entries: %8.4f s (%6.0f ns per entry), %6.1f x reading "
               "the file\n", sizes[s], load[s], load[s] * 1e9 / sizes[s], load[s] / rd[s]);
    }
    printf("imatrix load: %u / %u entries: load time x%.1f, read time x%.1f; load over read "
           "grows x%.2f (aim: about 1; a scan per entry: about %.0f)\n", sizes[1], sizes[0],
           load[1] / load[0], rd[1] / rd[0], (load[1] / rd[1]) / (load[0] / rd[0]),
           (double)sizes[1] / sizes[0]);
    return 0;
}
