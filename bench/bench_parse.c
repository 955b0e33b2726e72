/* Parse speed of large headers: gguf_file_open_memory (parse only) and gguf_file_open (map +
 * parse) of FILE, next to two baselines in the same process: reading the whole file with
 * read(), and memcpy of its bytes. Best of N runs each; figures as ratios to the baselines.
 *   bench_parse FILE [RUNS] */
#define _GNU_SOURCE
#include <libgguf/gguf.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double best_read(const char *path, uint8_t *buf, size_t size, int runs) {
    double best = 1e9;
    for (int r = 0; r < runs; r++) {
        double t = now();
        int fd = open(path, O_RDONLY);
        size_t done = 0;
        while (done < size) {
            ssize_t n = read(fd, buf + done, size - done);
            if (n <= 0)
                break;
            done += (size_t)n;
        }
        close(fd);
        t = now() - t;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_parse FILE [RUNS]\n");
        return 2;
    }
    const char *path = argv[1];
    int runs = argc > 2 ? atoi(argv[2]) : 30;
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size), *copy = malloc(size);
    double t_read = best_read(path, buf, size, runs);
    double t_memcpy = 1e9, t_parse = 1e9, t_open = 1e9, t_walk = 1e9;
    for (int r = 0; r < runs; r++) {
        double t = now();
        memcpy(copy, buf, size);
        t = now() - t;
        if (t < t_memcpy)
            t_memcpy = t;
    }
    uint64_t strings = 0;
    for (int r = 0; r < runs; r++) {
        gguf_file *f;
        gguf_error err;
        gguf_error_clear(&err);
        double t = now();
        if (gguf_file_open_memory(&f, buf, size, 0, 0, &err) != 0) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            return 1;
        }
        t = now() - t;
        if (t < t_parse)
            t_parse = t;
        /* and walking every array element, as `show --json` does */
        t = now();
        strings = 0;
        for (size_t i = 0; i < gguf_kv_count(f); i++) {
            gguf_value_iter it;
            gguf_value e;
            gguf_value_iter_init(&it, gguf_kv_value(f, i));
            while (gguf_value_iter_next(&it, &e))
                strings++;
        }
        t = now() - t;
        if (t < t_walk)
            t_walk = t;
        gguf_file_free(f);
        t = now();
        if (gguf_file_open(&f, path, 0, &err) != 0)
            return 1;
        t = now() - t;
        if (t < t_open)
            t_open = t;
        gguf_file_free(f);
    }
    double mb = size / 1e6;
    printf("parse %s (%.1f MB, %llu array elements), best of %d:\n", path, mb,
           (unsigned long long)strings, runs);
    printf("  read() whole file  %8.3f ms  %7.0f MB/s   (baseline)\n", t_read * 1e3, mb / t_read);
    printf("  memcpy             %8.3f ms  %7.0f MB/s   (baseline)\n", t_memcpy * 1e3, mb / t_memcpy);
    printf("  parse (in memory)  %8.3f ms  %7.0f MB/s   %.2fx read(), %.2fx memcpy\n",
           t_parse * 1e3, mb / t_parse, t_parse / t_read, t_parse / t_memcpy);
    printf("  open (mmap+parse)  %8.3f ms  %7.0f MB/s   %.2fx read()\n", t_open * 1e3,
           mb / t_open, t_open / t_read);
    printf("  walk every element %8.3f ms  %7.0f MB/s\n", t_walk * 1e3, mb / t_walk);
    free(buf);
    free(copy);
    return 0;
}
