/* Quantize and dequantize throughput per tensor type, single thread: ours (gguf_quant_*) next
 * to ggml's (ggml_quantize_chunk and type_traits->to_float of libggml-base.so, loaded with
 * dlopen when available). Figures are MB/s of f32 (10^6 bytes of floats in for quantize, out
 * for dequantize) on Gaussian data; ratio = ours / ggml's.
 *
 *   bench_quant [--scalar | --simd LEVEL] [--seconds S] [--type NAME]...
 *
 * --simd caps our kernels at a SIMD level (0 scalar, 1 SSE4.1, 2 AVX2, 3 AVX-512).
 *
 * ggml: GGML_BASE_LIB, else the oracle's copy (tests/support/ggml_abi.h). libggml-base holds
 * ggml's reference kernels: ggml_quantize_chunk (what llama-quantize runs) and to_float. The
 * CPU backend's SIMD code (libggml-cpu-*.so) converts activations and computes dot products
 * on quantized data without dequantizing rows, so it has no counterpart measured here.
 */
#define _GNU_SOURCE
#include <libgguf/gguf.h>
#include "tests/support/ggml_abi.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Passes of at most 64 Ki elements: 256 KB of floats, so that the figures measure the
 * kernels rather than the memory bus. */
enum { ROW = 4096, MAX_ROWS = 16 };

typedef struct job {
    uint32_t dtype;
    bool ggml;      /* run ggml's kernel instead of ours */
    bool quantize;
    int64_t rows;
    const float *x, *imatrix;
    void *q;
    float *y;
} job;

static void run(const job *j) {
    int64_t n = j->rows * ROW;
    if (j->quantize && j->ggml)
        ggml.quantize_chunk((int)j->dtype, j->x, j->q, 0, j->rows, ROW, j->imatrix);
    else if (j->quantize)
        gguf_quant_quantize(j->q, (size_t)-1, j->dtype, j->x, j->rows, ROW, j->imatrix, NULL);
    else if (j->ggml)
        ggml.get_type_traits((int)j->dtype)->to_float(j->q, j->y, n);
    else
        gguf_quant_dequantize(j->y, j->dtype, j->q, (size_t)-1, n, NULL);
}

/* MB/s of floats of the fastest pass among those run in `seconds` (at least three): the best
 * pass is the least disturbed by other work on the machine. */
static double throughput(const job *j, double seconds) {
    run(j); /* warm caches and lazy tables */
    double start = now(), best = 1e30;
    long reps = 0;
    do {
        double t0 = now();
        run(j);
        double t = now() - t0;
        if (t < best)
            best = t;
        reps++;
    } while (now() - start < seconds || reps < 3);
    return (double)j->rows * ROW * 4 / best / 1e6;
}

/* Rows per pass so that one pass of our quantizer takes about seconds / 10. */
static int64_t pick_rows(uint32_t dtype, const float *x, const float *imatrix, void *q,
                         double seconds) {
    job j = {dtype, false, true, 1, x, imatrix, q, NULL};
    run(&j);
    double t0 = now();
    run(&j);
    double one = now() - t0;
    int64_t rows = one > 0 ? (int64_t)(seconds / 10 / one) : MAX_ROWS;
    return rows < 1 ? 1 : rows > MAX_ROWS ? MAX_ROWS : rows;
}

static void usage(void) {
    fprintf(stderr,
            "usage: bench_quant [--scalar | --simd LEVEL] [--seconds S] [--type NAME]...\n");
    exit(2);
}

int main(int argc, char **argv) {
    double seconds = 0.25;
    const char *only[GGUF_DTYPE_COUNT];
    int n_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--scalar") == 0)
            gguf_quant_set_simd(GGUF_QUANT_SIMD_SCALAR);
        else if (strcmp(argv[i], "--simd") == 0 && i + 1 < argc)
            gguf_quant_set_simd(atoi(argv[++i]));
        else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--type") == 0 && i + 1 < argc && n_only < GGUF_DTYPE_COUNT)
            only[n_only++] = argv[++i];
        else
            usage();
    }
    const char *lib = ggml_abi_path();
    bool have_ggml = lib != NULL && ggml_abi_load(lib);

    const int64_t n = (int64_t)MAX_ROWS * ROW;
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4), *im = malloc(ROW * 4);
    void *q = malloc((size_t)n * 8 + 4096); /* the widest type is 8 bytes per element */
    if (!x || !y || !im || !q) {
        fprintf(stderr, "bench_quant: out of memory\n");
        return 1;
    }
    uint64_t s = 0x243F6A8885A308D3u;
    for (int64_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        float u = (float)((s >> 40) + 1) / 16777217.0f, v = (float)(s & 0xffffff) / 16777216.0f;
        x[i] = sqrtf(-2 * logf(u)) * cosf(6.2831853f * v);
    }
    for (int i = 0; i < ROW; i++)
        im[i] = 1.0f;

    printf("bench_quant: single thread, MB/s of f32, rows of %d, SIMD level %s\n", ROW,
           gguf_quant_simd_name(gguf_quant_simd()));
    if (have_ggml)
        printf("ggml: %s (reference kernels: ggml_quantize_chunk, type_traits->to_float)\n", lib);
    else if (lib != NULL)
        printf("ggml: %s not loadable (set GGML_BASE_LIB); ours only\n", lib);
    else
        printf("ggml: no oracle (GGML_ORACLE is empty; set GGML_BASE_LIB); ours only\n");
    printf("%-8s %10s %10s %7s   %10s %10s %7s\n", "type", "quant", "ggml", "ratio", "dequant",
           "ggml", "ratio");

    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
        if (!gguf_quant_can_dequantize(t))
            continue;
        bool selected = n_only == 0;
        for (int k = 0; k < n_only; k++)
            selected |= strcasecmp(only[k], gguf_dtype_name(t)) == 0;
        if (!selected)
            continue;
        const float *imatrix = gguf_quant_needs_imatrix(t) ? im : NULL;
        bool ggml_q = have_ggml && ggml_abi_quantizes(t) && gguf_quant_can_quantize(t);
        bool ggml_dq = have_ggml && (t == GGUF_DTYPE_F32 || ggml.get_type_traits((int)t)->to_float);
        if (ggml_q || ggml_dq)
            ggml.quantize_init((int)t);

        double oq = 0, gq = 0, od, gd;
        int64_t rows = MAX_ROWS;
        if (gguf_quant_can_quantize(t)) {
            rows = pick_rows(t, x, imatrix, q, seconds);
            job j = {t, false, true, rows, x, imatrix, q, y};
            oq = throughput(&j, seconds);
            if (ggml_q) {
                j.ggml = true;
                gq = throughput(&j, seconds);
            }
            /* dequantize what we quantized (all rows, for a realistic working set) */
            if (rows < MAX_ROWS)
                gguf_quant_quantize(q, (size_t)n * 8, t, x, MAX_ROWS, ROW, imatrix, NULL);
        } else {
            /* dequantize-only types: any bytes will do */
            memset(q, 0x11, (size_t)n * 8);
        }
        job j = {t, false, false, MAX_ROWS, x, imatrix, q, y};
        od = throughput(&j, seconds);
        gd = 0;
        if (ggml_dq && t != GGUF_DTYPE_F32) {
            j.ggml = true;
            gd = throughput(&j, seconds);
        }

        printf("%-8s", gguf_dtype_name(t));
        if (oq > 0)
            printf(" %10.1f", oq);
        else
            printf(" %10s", "-");
        if (gq > 0)
            printf(" %10.1f %7.2f", gq, oq / gq);
        else
            printf(" %10s %7s", "-", "-");
        printf("   %10.1f", od);
        if (gd > 0)
            printf(" %10.1f %7.2f\n", gd, od / gd);
        else
            printf(" %10s %7s\n", "-", "-");
        fflush(stdout);
    }
    free(x);
    free(y);
    free(im);
    free(q);
    ggml_abi_unload();
    return 0;
}
