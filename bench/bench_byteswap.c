/* Byte-order conversion speed in memory, per tensor type, against memcpy of the same bytes:
 * gguf_dtype_byteswap (in place) and gguf_dtype_byteswap_copy (into another buffer).
 *   bench_byteswap [MIB]          (default 256 MiB per type; prints GB/s and the ratios) */
#define _POSIX_C_SOURCE 200809L
#include <libgguf/gguf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* what one run does */
typedef struct job {
    int kind; /* 0 memcpy, 1 in place, 2 copy */
    uint32_t dtype;
    uint8_t *a, *b;
    size_t n;
    int rc;
} job;

static void run(job *j) {
    if (j->kind == 0)
        memcpy(j->b, j->a, j->n);
    else if (j->kind == 1)
        j->rc |= gguf_dtype_byteswap(j->a, j->n, j->dtype, NULL);
    else
        j->rc |= gguf_dtype_byteswap_copy(j->b, j->a, j->n, j->dtype, NULL);
}

/* best of three runs, in seconds */
static double best_of_3(job *j) {
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        run(j);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    size_t size = mib << 20;
    uint8_t *a = malloc(size), *b = malloc(size);
    if (a == NULL || b == NULL) {
        fprintf(stderr, "bench_byteswap: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < size; i++)
        a[i] = (uint8_t)(i * 2654435761u >> 13);
    memset(b, 0, size);
    job j = {0, 0, a, b, size, 0};
    double t_memcpy = best_of_3(&j);
    printf("memcpy: %.2f GB/s (%zu MiB)\n", (double)size / t_memcpy / 1e9, mib);
    printf("time relative to memcpy of the same bytes (1.00: as fast as memcpy)\n");
    printf("%-8s %14s %14s %9s %9s\n", "type", "in place", "copy", "in place", "copy");
    int bad = 0;
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
        if (gguf_dtype_name(t) == NULL)
            continue;
        size_t bb = gguf_dtype_block_bytes(t), n = size / bb * bb;
        job in_place = {1, t, a, b, n, 0}, copy = {2, t, a, b, n, 0};
        double t_in = best_of_3(&in_place), t_copy = best_of_3(&copy);
        bad |= in_place.rc != 0 || copy.rc != 0;
        if (gguf_dtype_byteswap(NULL, 0, t, NULL) == 0 && t_in < t_memcpy / 1000) {
            /* a type of bytes only (I8, MXFP4, NVFP4): in place there is nothing to do */
            printf("%-8s %14s %9.2f GB/s %9s %9.2f\n", gguf_dtype_name(t), "(bytes only)",
                   (double)n / t_copy / 1e9, "-", t_copy / t_memcpy);
            continue;
        }
        printf("%-8s %9.2f GB/s %9.2f GB/s %9.2f %9.2f\n", gguf_dtype_name(t),
               (double)n / t_in / 1e9, (double)n / t_copy / 1e9, t_in / t_memcpy,
               t_copy / t_memcpy);
    }
    free(a);
    free(b);
    return bad;
}
