/* Check suite of libgguf/quant: gguf_quant_quantize / gguf_quant_dequantize.
 *
 *  - golden: for every type of golden/vectors/INDEX.tsv (made by ggml_quantize_chunk and
 *    ggml's to_float from golden/vectors/input.f32), our bytes equal TYPE.q and our floats
 *    equal TYPE.dq.f32 bit for bit, on the scalar path and on every SIMD level of this CPU.
 *    A type without a kernel fails. GGUF_QUANT_TYPES=q4_0,q8_0 restricts the golden and
 *    round-trip tests to those types (for work in progress; never set it in CI).
 *  - simd: on seeded random data (normal, outliers, zeros, huge, tiny, Inf, NaN, random bit
 *    patterns, unaligned buffers) every SIMD level gives the scalar path's bytes and floats.
 *    A failure prints its seed; GGUF_QUANT_SEED=N reruns with that seed.
 *  - roundtrip: dequantize(quantize(x)) of Gaussian data stays below a relative RMS error
 *    bound per type (the bounds are about 1.2x what ggml's own quantizers reach).
 *  - f16/bf16 conversions against independent definitions; plain types by value; argument
 *    errors.
 *  - compare: gguf_quant_compare on golden/types (one tensor of every type, in both byte
 *    orders) gives the figures `gguf-edit diff --values` printed for the same bytes; on a
 *    tensor of several pieces, the same result on any number of threads, and the sums of a
 *    plain loop over the whole tensor; tensors that do not line up and a file cut short are
 *    refused.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>

#include <libgguf/gguf.h>

#include "tests/support/gguf_builder.h"
#include "tests/support/testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef GGUF_TEST_SRCDIR
#error "GGUF_TEST_SRCDIR must name the top source directory"
#endif

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                     */

/* Reads a file of the source tree; the bytes are followed by a NUL (not counted in *len). */
static void *read_file(const char *rel, size_t *len) {
    return tu_read_file(tu_src(rel), len);
}

static float bits_to_float(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ck_assert_msg for hot loops: asserts only on failure. */
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)

/* Index of the first differing byte / float (bitwise), or -1. Check's assertions record
 * every passing call, so hot loops compare with these and assert once. */
static int64_t diff_bytes(const uint8_t *a, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return (int64_t)i;
    return -1;
}
static int64_t diff_floats(const float *a, const float *b, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (tu_float_bits(a[i]) != tu_float_bits(b[i]))
            return i;
    return -1;
}

enum { KIND_COUNT = 10 };

/* Fills x with data of a kind that exercises one corner of the quantizers. */
static void fill(float *x, int64_t n, int kind) {
    for (int64_t i = 0; i < n; i++) {
        float g = tu_rng_gauss();
        switch (kind) {
        case 0: x[i] = g; break;
        case 1: x[i] = tu_rng_u32() % 50 == 0 ? 100.f * g : g; break;      /* outliers */
        case 2: /* zero groups (either sign of zero), constant blocks */
            x[i] = (i / 16) % 3 == 0   ? (tu_rng_u32() & 1 ? -0.f : 0.f)
                   : (i / 32) % 5 == 0 ? 1.5f
                                       : g;
            break;
        case 3: x[i] = g * 1e-30f; break;                                /* subnormal f16 scales */
        case 4: x[i] = g * 1e30f; break;                                 /* f16 overflow */
        case 5: x[i] = tu_rng_u32() % 8 == 0 ? (tu_rng_u32() & 1 ? -0.f : 0.f) : fabsf(g); break;
        case 6: x[i] = (float)(int)(4 * g); break;                       /* rounding ties */
        case 7: x[i] = tu_rng_u32() % 64 == 0 ? (tu_rng_u32() & 1 ? INFINITY : NAN) : g; break;
        case 8: /* any bits, NaNs too */
            x[i] = bits_to_float(tu_rng_u32() << 1 ^ tu_rng_u32());
            break;
        default: x[i] = 65504.f * 2 * g; break;
        }
    }
}

static const char *name_of(uint32_t dtype) {
    const char *n = gguf_dtype_name(dtype);
    return n ? n : "?";
}

/* GGUF_QUANT_TYPES filter (case-insensitive names, comma-separated). */
static bool type_selected(const char *name) {
    const char *only = getenv("GGUF_QUANT_TYPES");
    if (!only || !*only)
        return true;
    size_t len = strlen(name);
    for (const char *p = only; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && strncasecmp(p, name, l) == 0)
            return true;
        p += l + (e != NULL);
    }
    return false;
}

/* Relative RMS error bounds of the round trip on Gaussian data, per type (0: no bound, the
 * type is not quantizable). */
static const double rms_bound[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_F32] = 1e-30,   [GGUF_DTYPE_F16] = 0.0003,    [GGUF_DTYPE_BF16] = 0.0025,
    [GGUF_DTYPE_Q4_0] = 0.10,   [GGUF_DTYPE_Q4_1] = 0.095,    [GGUF_DTYPE_Q5_0] = 0.05,
    [GGUF_DTYPE_Q5_1] = 0.046,  [GGUF_DTYPE_Q8_0] = 0.0065,   [GGUF_DTYPE_Q8_1] = 0.0065,
    [GGUF_DTYPE_Q2_K] = 0.36,   [GGUF_DTYPE_Q3_K] = 0.18,     [GGUF_DTYPE_Q4_K] = 0.085,
    [GGUF_DTYPE_Q5_K] = 0.044,  [GGUF_DTYPE_Q6_K] = 0.022,    [GGUF_DTYPE_Q8_K] = 0.0085,
    [GGUF_DTYPE_IQ2_XXS] = 0.41, [GGUF_DTYPE_IQ2_XS] = 0.36,  [GGUF_DTYPE_IQ3_XXS] = 0.26,
    [GGUF_DTYPE_IQ1_S] = 0.58,  [GGUF_DTYPE_IQ4_NL] = 0.092,  [GGUF_DTYPE_IQ3_S] = 0.20,
    [GGUF_DTYPE_IQ2_S] = 0.32,  [GGUF_DTYPE_IQ4_XS] = 0.092,  [GGUF_DTYPE_IQ1_M] = 0.69,
    [GGUF_DTYPE_TQ1_0] = 0.97,  [GGUF_DTYPE_TQ2_0] = 0.97,    [GGUF_DTYPE_MXFP4] = 0.14,
    [GGUF_DTYPE_NVFP4] = 0.115, [GGUF_DTYPE_Q1_0] = 0.73,     [GGUF_DTYPE_Q2_0] = 0.86,
};

/* ------------------------------------------------------------------------------------------ */
/* Golden vectors                                                                              */

typedef struct vec_entry {
    char name[32];
    uint32_t id;
    uint32_t block_elems;
    size_t qbytes;
    bool imatrix;
} vec_entry;

static vec_entry entries[64];
static int n_entries;
static float *vec_input, *vec_imatrix;
static size_t vec_input_len, vec_imatrix_len;
static int64_t vec_rows = 32, vec_cols = 512;
static const char *load_error;

static void load_vectors(void) {
    size_t len;
    char *index = read_file("golden/vectors/INDEX.tsv", &len);
    vec_input = read_file("golden/vectors/input.f32", &vec_input_len);
    vec_imatrix = read_file("golden/vectors/imatrix.f32", &vec_imatrix_len);
    if (!index || !vec_input || !vec_imatrix) {
        load_error = "golden/vectors/{INDEX.tsv,input.f32,imatrix.f32} are missing";
        free(index);
        return;
    }
    char *save = NULL;
    for (char *line = strtok_r(index, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        long long r, c;
        if (sscanf(line, "# input.f32: %lld rows x %lld columns", &r, &c) == 2) {
            vec_rows = r;
            vec_cols = c;
            continue;
        }
        if (line[0] == '#' || strncmp(line, "type\t", 5) == 0)
            continue;
        vec_entry e;
        unsigned id, be;
        unsigned long long qb;
        char im[8];
        if (sscanf(line, "%31s %u %u %llu %7s", e.name, &id, &be, &qb, im) != 5 ||
            n_entries == (int)(sizeof entries / sizeof entries[0])) {
            load_error = "golden/vectors/INDEX.tsv: malformed line";
            break;
        }
        e.id = id;
        e.block_elems = be;
        e.qbytes = (size_t)qb;
        e.imatrix = strcmp(im, "yes") == 0;
        entries[n_entries++] = e;
    }
    free(index);
    if ((size_t)(vec_rows * vec_cols) * 4 != vec_input_len ||
        (size_t)vec_cols * 4 != vec_imatrix_len)
        load_error = "golden/vectors: input.f32 or imatrix.f32 does not match INDEX.tsv's shape";
}

START_TEST(test_golden) {
    ck_assert_msg(load_error == NULL, "%s", load_error);
    ck_assert_int_gt(n_entries, 0);
    const vec_entry *e = &entries[_i];
    if (!type_selected(e->name))
        return;
    ck_assert_msg(gguf_quant_can_dequantize(e->id), "%s: no dequantize kernel", e->name);
    ck_assert_msg(gguf_quant_can_quantize(e->id), "%s: no quantize kernel", e->name);
    ck_assert_uint_eq(gguf_dtype_block_elems(e->id), e->block_elems);
    ck_assert_uint_eq(gguf_quant_row_size(e->id, vec_cols) * (size_t)vec_rows, e->qbytes);

    char rel[128];
    size_t qlen, dqlen;
    snprintf(rel, sizeof rel, "golden/vectors/%s.q", e->name);
    uint8_t *want_q = read_file(rel, &qlen);
    snprintf(rel, sizeof rel, "golden/vectors/%s.dq.f32", e->name);
    float *want_dq = read_file(rel, &dqlen);
    ck_assert_msg(want_q && want_dq, "%s: golden files missing", e->name);
    ck_assert_uint_eq(qlen, e->qbytes);
    ck_assert_uint_eq(dqlen, vec_input_len);

    int64_t n = vec_rows * vec_cols;
    uint8_t *q = malloc(qlen);
    float *dq = malloc(dqlen);
    int top = gguf_quant_simd_supported();
    for (int level = 0; level <= top; level++) {
        gguf_quant_set_simd(level);
        gguf_error err = {0};
        memset(q, 0xA5, qlen);
        int rc = gguf_quant_quantize(q, qlen, e->id, vec_input, vec_rows, vec_cols,
                                     e->imatrix ? vec_imatrix : NULL, &err);
        ck_assert_msg(rc == 0, "%s: quantize failed: %s", e->name, err.message);
        int64_t i = diff_bytes(q, want_q, qlen);
        ck_assert_msg(i < 0,
                      "%s (%s): quantized byte %lld (block %lld) is %02x, ggml wrote %02x",
                      e->name, gguf_quant_simd_name(level), (long long)i,
                      (long long)(i / gguf_dtype_block_bytes(e->id)), q[i < 0 ? 0 : i],
                      want_q[i < 0 ? 0 : i]);
        rc = gguf_quant_dequantize(dq, e->id, want_q, qlen, n, &err);
        ck_assert_msg(rc == 0, "%s: dequantize failed: %s", e->name, err.message);
        i = diff_floats(dq, want_dq, n);
        ck_assert_msg(i < 0, "%s (%s): dequantized element %lld is %a, ggml gave %a", e->name,
                      gguf_quant_simd_name(level), (long long)i, dq[i < 0 ? 0 : i],
                      want_dq[i < 0 ? 0 : i]);
    }
    gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO);
    free(q);
    free(dq);
    free(want_q);
    free(want_dq);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* SIMD against scalar                                                                         */

static uint64_t base_seed(void) {
    const char *s = getenv("GGUF_QUANT_SEED");
    return s ? strtoull(s, NULL, 0) : 20240601;
}

START_TEST(test_simd_matches_scalar) {
    uint32_t dtype = (uint32_t)_i;
    if (!gguf_quant_can_dequantize(dtype))
        return;
    int top = gguf_quant_simd_supported();
    if (top == 0)
        return;
    uint32_t be = gguf_dtype_block_elems(dtype), bb = gguf_dtype_block_bytes(dtype);
    bool can_q = gguf_quant_can_quantize(dtype);
    bool need_im = gguf_quant_needs_imatrix(dtype);
    /* super-block types are few blocks per trial: the i-quant searches are slow */
    int trials = be >= 256 ? 2 * KIND_COUNT : 3 * KIND_COUNT;
    for (int trial = 0; trial < trials; trial++) {
        uint64_t seed = base_seed() * 1000003u + dtype * 1009u + (uint64_t)trial;
        tu_rng_seed(seed);
        int kind = trial % KIND_COUNT;
        int64_t per = be == 1 ? 1 + tu_rng_u32() % 300
                              : (int64_t)be * (1 + tu_rng_u32() % (be >= 256 ? 2 : 9));
        int64_t rows = 1 + tu_rng_u32() % (be >= 256 ? 2 : 3), n = rows * per;
        size_t qsize = gguf_quant_row_size(dtype, per) * (size_t)rows;
        ck_assert_uint_eq(qsize, (size_t)(n / be) * bb);
        /* one extra unit everywhere so that the data can sit at odd addresses */
        float *xbuf = malloc((size_t)(n + 1) * 4), *im = malloc((size_t)per * 4);
        uint8_t *q0 = malloc(qsize + 3), *q1 = malloc(qsize + 3);
        float *d0 = malloc((size_t)(n + 1) * 4), *d1 = malloc((size_t)(n + 1) * 4);
        int off = trial % 4;
        float *x = (float *)(void *)((char *)xbuf + (trial & 1 ? 0 : 4));
        fill(x, n, kind);
        for (int64_t i = 0; i < per; i++)
            im[i] = tu_rng_u32() % 16 == 0 ? 0.f : 10 * tu_rng_unit();
        bool use_im = need_im || trial % 3 == 1;
        gguf_error err = {0};
        /* the scalar path's results: quantized bytes, their floats, random bytes' floats */
        gguf_quant_set_simd(0);
        if (can_q) {
            memset(q0, 0x5A, qsize + 3);
            ck_assert_int_eq(gguf_quant_quantize(q0 + off, qsize, dtype, x, rows, per,
                                                 use_im ? im : NULL, &err), 0);
        } else {
            for (size_t i = 0; i < qsize; i++)
                q0[off + i] = (uint8_t)tu_rng_u32();
        }
        uint8_t *r0 = malloc(qsize + 3);
        for (size_t i = 0; i < qsize; i++)
            r0[off + i] = (uint8_t)tu_rng_u32();
        float *y0 = d0 + (trial & 1), *y1 = d1 + (trial & 1);
        float *z0 = malloc((size_t)n * 4);
        ck_assert_int_eq(gguf_quant_dequantize(y0, dtype, q0 + off, qsize, n, &err), 0);
        ck_assert_int_eq(gguf_quant_dequantize(z0, dtype, r0 + off, qsize, n, &err), 0);
        for (int level = 1; level <= top; level++) {
            gguf_quant_set_simd(level);
            if (can_q) {
                memset(q1, 0xA5, qsize + 3);
                ck_assert_int_eq(gguf_quant_quantize(q1 + off, qsize, dtype, x, rows, per,
                                                     use_im ? im : NULL, &err), 0);
                int64_t i = diff_bytes(q0 + off, q1 + off, qsize);
                ck_assert_msg(i < 0,
                              "%s %s, seed %llu (kind %d, %lld x %lld, imatrix %d): "
                              "byte %lld is %02x, scalar wrote %02x",
                              name_of(dtype), gguf_quant_simd_name(level),
                              (unsigned long long)seed, kind, (long long)rows, (long long)per,
                              use_im, (long long)i, q1[off + (i < 0 ? 0 : i)],
                              q0[off + (i < 0 ? 0 : i)]);
            }
            /* dequantize the scalar bytes, then random bytes (any scale, NaN and Inf) */
            for (int pass = 0; pass < 2; pass++) {
                const float *want = pass ? z0 : y0;
                ck_assert_int_eq(gguf_quant_dequantize(y1, dtype, (pass ? r0 : q0) + off, qsize,
                                                       n, &err), 0);
                int64_t i = diff_floats(want, y1, n);
                ck_assert_msg(i < 0,
                              "%s %s, seed %llu (pass %d): element %lld is %a, scalar gave %a",
                              name_of(dtype), gguf_quant_simd_name(level),
                              (unsigned long long)seed, pass, (long long)i, y1[i < 0 ? 0 : i],
                              want[i < 0 ? 0 : i]);
            }
        }
        free(r0);
        free(z0);
        free(xbuf);
        free(im);
        free(q0);
        free(q1);
        free(d0);
        free(d1);
    }
    gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Round trip                                                                                  */

START_TEST(test_roundtrip_rms) {
    uint32_t dtype = (uint32_t)_i;
    if (!gguf_quant_can_quantize(dtype) || !type_selected(name_of(dtype)))
        return;
    ck_assert_msg(rms_bound[dtype] > 0, "%s: no error bound stated in the test",
                  name_of(dtype));
    const int64_t rows = 16, per = 1024, n = rows * per;
    float *x = malloc(n * 4), *y = malloc(n * 4), *im = malloc(per * 4);
    size_t qsize = gguf_quant_row_size(dtype, per) * rows;
    uint8_t *q = malloc(qsize);
    tu_rng_seed(42);
    for (int64_t i = 0; i < n; i++)
        x[i] = tu_rng_gauss();
    for (int64_t i = 0; i < per; i++)
        im[i] = 1.0f;
    for (int use_im = 0; use_im < 2; use_im++) {
        if (!use_im && gguf_quant_needs_imatrix(dtype))
            continue;
        gguf_error err = {0};
        ck_assert_int_eq(gguf_quant_quantize(q, qsize, dtype, x, rows, per, use_im ? im : NULL,
                                             &err), 0);
        ck_assert_int_eq(gguf_quant_dequantize(y, dtype, q, qsize, n, &err), 0);
        double e2 = 0, s2 = 0;
        for (int64_t i = 0; i < n; i++) {
            e2 += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
            s2 += (double)x[i] * x[i];
        }
        double rel = sqrt(e2 / s2);
        ck_assert_msg(rel <= rms_bound[dtype] || (dtype == GGUF_DTYPE_F32 && rel == 0),
                      "%s (imatrix %d): relative RMS error %.5f above the bound %.5f",
                      name_of(dtype), use_im, rel, rms_bound[dtype]);
    }
    free(x);
    free(y);
    free(im);
    free(q);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* F16 and BF16                                                                                */

/* IEEE half -> double by the definition. */
static double half_value(uint16_t h) {
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return sign ? -v : v;
}

START_TEST(test_f16_all_halves) {
    static uint16_t h[65536];
    static float y[65536], ys[65536];
    for (int i = 0; i < 65536; i++)
        h[i] = (uint16_t)i;
    gguf_quant_set_simd(0);
    ck_assert_int_eq(gguf_quant_dequantize(ys, GGUF_DTYPE_F16, h, sizeof h, 65536, NULL), 0);
    for (int i = 0; i < 65536; i++) {
        int e = (i >> 10) & 31, m = i & 1023;
        uint32_t u = tu_float_bits(ys[i]);
        if (e == 31 && m) /* NaN: sign and payload kept, made quiet */
            CHECK(u == (((uint32_t)(i & 0x8000) << 16) | 0x7fc00000u | (uint32_t)m << 13),
                          "half %04x -> %08x", i, u);
        else if (e == 31)
            CHECK(isinf(ys[i]) && (signbit(ys[i]) != 0) == (i >> 15), "half %04x -> %a", i, ys[i]);
        else
            CHECK((double)ys[i] == half_value((uint16_t)i) &&
                              (signbit(ys[i]) != 0) == (i >> 15),
                          "half %04x -> %a", i, ys[i]);
    }
    /* and back: every half survives the round trip (NaNs become the canonical 0x7E00) */
    static uint16_t back[65536];
    for (int level = 0; level <= gguf_quant_simd_supported(); level++) {
        gguf_quant_set_simd(level);
        ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_F16, h, sizeof h, 65536, NULL), 0);
        ck_assert_msg(memcmp(y, ys, sizeof y) == 0, "%s differs", gguf_quant_simd_name(level));
        ck_assert_int_eq(gguf_quant_quantize(back, sizeof back, GGUF_DTYPE_F16, y, 1, 65536,
                                             NULL, NULL), 0);
        for (int i = 0; i < 65536; i++) {
            bool nan = ((i >> 10) & 31) == 31 && (i & 1023);
            uint16_t want = nan ? (uint16_t)((i & 0x8000) | 0x7E00) : (uint16_t)i;
            CHECK(back[i] == want, "%s: half %04x came back as %04x",
                          gguf_quant_simd_name(level), i, back[i]);
        }
    }
    gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO);
}
END_TEST

/* float -> half by the definition: round to nearest even, overflow to Inf. */
static uint16_t half_of(float f) {
    uint32_t u = tu_float_bits(f);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000);
    if (isnan(f))
        return sign | 0x7E00;
    double a = fabs((double)f);
    if (a >= 65520.0)
        return sign | 0x7C00;
    /* the representable neighbours in units of 2^-24 */
    int e;
    frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1 */
    int shift = e - 11 < -24 ? -24 : e - 11;
    double unit = ldexp(1, shift);
    double q = a / unit, fl = floor(q);
    double r = q - fl > 0.5 || (q - fl == 0.5 && fmod(fl, 2) == 1) ? fl + 1 : fl;
    double v = r * unit;
    /* encode v */
    uint16_t bits;
    if (v < ldexp(1, -14))
        bits = (uint16_t)(v / ldexp(1, -24));
    else {
        int ve;
        double vm = frexp(v, &ve);
        bits = (uint16_t)((ve - 1 + 15) << 10 | (int)((vm * 2 - 1) * 1024));
    }
    return sign | bits;
}

START_TEST(test_f16_from_float) {
    enum { N = 1 << 20 };
    float *x = malloc(N * 4);
    uint16_t *h = malloc(N * 2);
    tu_rng_seed(base_seed() + 7);
    for (int i = 0; i < N; i++) {
        /* all exponents near the half range, both signs, every rounding case */
        uint32_t u = tu_rng_u32() & 0x807fffffu;
        u |= (uint32_t)(96 + tu_rng_u32() % 64) << 23;
        if (i % 64 == 0)
            u = tu_rng_u32() << 1 ^ tu_rng_u32(); /* anything, NaNs included */
        x[i] = bits_to_float(u);
    }
    float special[] = {0.f, -0.f, 65504.f, 65519.99f, 65520.f, -65520.f, 1e-8f, 2.98e-8f,
                       5.96e-8f, 6.1035e-5f, INFINITY, -INFINITY, NAN, -NAN};
    memcpy(x, special, sizeof special);
    for (int level = 0; level <= gguf_quant_simd_supported(); level++) {
        gguf_quant_set_simd(level);
        ck_assert_int_eq(gguf_quant_quantize(h, N * 2, GGUF_DTYPE_F16, x, 1, N, NULL, NULL), 0);
        for (int i = 0; i < N; i++)
            CHECK(h[i] == half_of(x[i]), "%s: %a (%08x) -> %04x, want %04x",
                          gguf_quant_simd_name(level), x[i], tu_float_bits(x[i]), h[i],
                          half_of(x[i]));
    }
    gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO);
    free(x);
    free(h);
}
END_TEST

START_TEST(test_bf16) {
    enum { N = 1 << 20 };
    float *x = malloc(N * 4), *y = malloc(N * 4);
    uint16_t *b = malloc(N * 2);
    tu_rng_seed(base_seed() + 11);
    for (int i = 0; i < N; i++)
        x[i] = bits_to_float(tu_rng_u32() << 1 ^ tu_rng_u32());
    x[0] = bits_to_float(0x3f808000u); /* tie, even: stays */
    x[1] = bits_to_float(0x3f818000u); /* tie, odd: rounds up */
    x[2] = bits_to_float(0x7f7fffffu); /* FLT_MAX rounds to Inf */
    x[3] = bits_to_float(0x7f800001u); /* signalling NaN becomes quiet */
    for (int level = 0; level <= gguf_quant_simd_supported(); level++) {
        gguf_quant_set_simd(level);
        ck_assert_int_eq(gguf_quant_quantize(b, N * 2, GGUF_DTYPE_BF16, x, 1, N, NULL, NULL), 0);
        for (int i = 0; i < N; i++) {
            uint32_t u = tu_float_bits(x[i]);
            uint16_t want = (u & 0x7fffffff) > 0x7f800000
                                ? (uint16_t)(u >> 16 | 0x40)
                                : (uint16_t)((u + 0x7fff + (u >> 16 & 1)) >> 16);
            CHECK(b[i] == want, "%s: %08x -> %04x, want %04x",
                          gguf_quant_simd_name(level), u, b[i], want);
        }
        ck_assert_uint_eq(b[0], 0x3f80);
        ck_assert_uint_eq(b[1], 0x3f82);
        ck_assert_uint_eq(b[2], 0x7f80);
        ck_assert_uint_eq(b[3], 0x7fc0);
        ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_BF16, b, N * 2, N, NULL), 0);
        for (int i = 0; i < N; i++)
            CHECK(tu_float_bits(y[i]) == (uint32_t)b[i] << 16, "bf16 %04x -> %a", b[i], y[i]);
    }
    gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO);
    free(x);
    free(y);
    free(b);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Plain types                                                                                 */

START_TEST(test_plain_types) {
    float y[8];
    int8_t i8[4] = {-128, -1, 0, 127};
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_I8, i8, sizeof i8, 4, NULL), 0);
    ck_assert(y[0] == -128.f && y[1] == -1.f && y[2] == 0.f && y[3] == 127.f);

    uint8_t i16[6] = {0x00, 0x80, 0xff, 0xff, 0x39, 0x30}; /* -32768, -1, 12345 */
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_I16, i16, sizeof i16, 3, NULL), 0);
    ck_assert(y[0] == -32768.f && y[1] == -1.f && y[2] == 12345.f);

    uint8_t i32[8] = {0xff, 0xff, 0xff, 0x7f, 0x01, 0x00, 0x00, 0x01}; /* 2^31-1, 2^24+1 */
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_I32, i32, sizeof i32, 2, NULL), 0);
    ck_assert(y[0] == 2147483648.f && y[1] == 16777216.f); /* nearest, ties to even */

    uint8_t i64[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* -1 */
                       0, 0, 0, 0, 0, 0, 0, 0x80};                   /* INT64_MIN */
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_I64, i64, sizeof i64, 2, NULL), 0);
    ck_assert(y[0] == -1.f && y[1] == -9223372036854775808.f);

    double f64[4] = {1.0 / 3, 1e300, -1e-300, -2.5};
    uint8_t f64le[32];
    for (int i = 0; i < 4; i++) {
        uint64_t u;
        memcpy(&u, &f64[i], 8);
        for (int k = 0; k < 8; k++)
            f64le[8 * i + k] = (uint8_t)(u >> (8 * k));
    }
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_F64, f64le, sizeof f64le, 4, NULL), 0);
    ck_assert(y[0] == (float)(1.0 / 3) && isinf(y[1]) && y[2] == 0.f && signbit(y[2]) &&
              y[3] == -2.5f);

    float x[3] = {1.5f, -0.f, NAN}, z[3];
    uint8_t raw[12];
    ck_assert_int_eq(gguf_quant_quantize(raw, sizeof raw, GGUF_DTYPE_F32, x, 1, 3, NULL, NULL),
                     0);
    ck_assert_int_eq(gguf_quant_dequantize(z, GGUF_DTYPE_F32, raw, sizeof raw, 3, NULL), 0);
    ck_assert(memcmp(x, z, sizeof x) == 0);

    /* integer types and F64 cannot be quantized, like in ggml */
    ck_assert(!gguf_quant_can_quantize(GGUF_DTYPE_I8));
    ck_assert(!gguf_quant_can_quantize(GGUF_DTYPE_I64));
    ck_assert(!gguf_quant_can_quantize(GGUF_DTYPE_F64));
    ck_assert(gguf_quant_can_dequantize(GGUF_DTYPE_F64));
}
END_TEST

/* Every type ggml defines can be dequantized; the ones ggml_quantize_chunk supports can be
 * quantized; exactly IQ2_XXS, IQ2_XS and IQ1_S need an imatrix. */
START_TEST(test_coverage) {
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
        if (!gguf_dtype_name(t)) {
            ck_assert(!gguf_quant_can_dequantize(t) && !gguf_quant_can_quantize(t));
            continue;
        }
        if (!type_selected(name_of(t)))
            continue;
        ck_assert_msg(gguf_quant_can_dequantize(t), "%s cannot be dequantized", name_of(t));
        bool plain = t == GGUF_DTYPE_I8 || t == GGUF_DTYPE_I16 || t == GGUF_DTYPE_I32 ||
                     t == GGUF_DTYPE_I64 || t == GGUF_DTYPE_F64;
        ck_assert_msg(gguf_quant_can_quantize(t) == !plain, "%s: can_quantize %d", name_of(t),
                      gguf_quant_can_quantize(t));
        bool need = t == GGUF_DTYPE_IQ2_XXS || t == GGUF_DTYPE_IQ2_XS || t == GGUF_DTYPE_IQ1_S;
        ck_assert_msg(gguf_quant_needs_imatrix(t) == need, "%s: needs_imatrix", name_of(t));
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Argument errors                                                                             */

START_TEST(test_errors) {
    float x[512] = {0}, y[512];
    uint8_t q[1024];
    gguf_error err;

    ck_assert_uint_eq(gguf_quant_row_size(GGUF_DTYPE_Q4_K, 512), 288);
    ck_assert_uint_eq(gguf_quant_row_size(GGUF_DTYPE_Q4_K, 100), 0);
    ck_assert_uint_eq(gguf_quant_row_size(GGUF_DTYPE_Q4_0, -32), 0);
    ck_assert_uint_eq(gguf_quant_row_size(4, 32), 0);
    ck_assert_uint_eq(gguf_quant_row_size(GGUF_DTYPE_COUNT, 32), 0);
    ck_assert_uint_eq(gguf_quant_row_size(GGUF_DTYPE_F32, 3), 12);

    /* unknown and removed ids */
    uint32_t bad_types[] = {4, 5, 31, 33, 36, 38, GGUF_DTYPE_COUNT, 1000};
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++) {
        memset(&err, 0, sizeof err);
        ck_assert_int_eq(gguf_quant_quantize(q, sizeof q, bad_types[i], x, 1, 32, NULL, &err),
                         GGUF_EUNSUPPORTED);
        ck_assert_int_eq(err.code, GGUF_EUNSUPPORTED);
        ck_assert(strstr(err.message, "cannot be quantized") != NULL);
        ck_assert_int_eq(gguf_quant_dequantize(y, bad_types[i], q, sizeof q, 32, NULL),
                         GGUF_EUNSUPPORTED);
        ck_assert(!gguf_quant_can_quantize(bad_types[i]));
        ck_assert(!gguf_quant_can_dequantize(bad_types[i]));
        ck_assert(!gguf_quant_needs_imatrix(bad_types[i]));
    }
    ck_assert_int_eq(gguf_quant_quantize(q, sizeof q, GGUF_DTYPE_I32, x, 1, 32, NULL, NULL),
                     GGUF_EUNSUPPORTED);

    /* shapes */
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(gguf_quant_quantize(q, sizeof q, GGUF_DTYPE_Q4_K, x, 1, 100, NULL, &err),
                     GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "not a multiple") != NULL, "%s", err.message);
    ck_assert_int_eq(gguf_quant_quantize(q, sizeof q, GGUF_DTYPE_Q4_0, x, -1, 32, NULL, NULL),
                     GGUF_EINVAL);
    ck_assert_int_eq(gguf_quant_quantize(q, sizeof q, GGUF_DTYPE_Q4_0, x, 1, -32, NULL, NULL),
                     GGUF_EINVAL);
    ck_assert_int_eq(gguf_quant_quantize(q, sizeof q, GGUF_DTYPE_Q4_0, x, INT64_MAX / 16,
                                         1024, NULL, NULL),
                     GGUF_ELIMIT);
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_Q4_0, q, sizeof q, 33, NULL),
                     GGUF_EINVAL);
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_Q4_0, q, sizeof q, -32, NULL),
                     GGUF_EINVAL);

    /* buffer sizes: a failed call leaves the output untouched */
    memset(q, 0xEE, sizeof q);
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(gguf_quant_quantize(q, 287, GGUF_DTYPE_Q4_K, x, 1, 512, NULL, &err),
                     GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "need 288 bytes") != NULL, "%s", err.message);
    for (size_t i = 0; i < sizeof q; i++)
        CHECK(q[i] == 0xEE, "byte %zu written", i);
    ck_assert_int_eq(gguf_quant_quantize(q, 288, GGUF_DTYPE_Q4_K, x, 1, 512, NULL, NULL), 0);
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_Q4_K, q, 287, 512, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_Q4_K, q, 288, 512, NULL), 0);

    /* nothing to do is fine, even without buffers */
    ck_assert_int_eq(gguf_quant_quantize(NULL, 0, GGUF_DTYPE_Q4_K, NULL, 0, 512, NULL, NULL), 0);
    ck_assert_int_eq(gguf_quant_quantize(NULL, 0, GGUF_DTYPE_Q4_K, NULL, 5, 0, NULL, NULL), 0);
    ck_assert_int_eq(gguf_quant_dequantize(NULL, GGUF_DTYPE_Q4_K, NULL, 0, 0, NULL), 0);
    ck_assert_int_eq(gguf_quant_quantize(NULL, 288, GGUF_DTYPE_Q4_K, x, 1, 512, NULL, NULL),
                     GGUF_EINVAL);
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_Q4_K, NULL, 288, 512, NULL),
                     GGUF_EINVAL);

    /* the first error wins */
    memset(&err, 0, sizeof err);
    gguf_quant_quantize(q, 1, GGUF_DTYPE_Q8_0, x, 1, 32, NULL, &err);
    gguf_quant_quantize(q, sizeof q, 4, x, 1, 32, NULL, &err);
    ck_assert_int_eq(err.code, GGUF_EINVAL);

    /* a required importance matrix */
    if (gguf_quant_can_quantize(GGUF_DTYPE_IQ2_XXS)) {
        memset(&err, 0, sizeof err);
        ck_assert_int_eq(gguf_quant_quantize(q, sizeof q, GGUF_DTYPE_IQ2_XXS, x, 1, 256, NULL,
                                             &err),
                         GGUF_EINVAL);
        ck_assert(strstr(err.message, "importance matrix") != NULL);
    }

    /* SIMD selection */
    int top = gguf_quant_simd_supported();
    ck_assert_int_eq(gguf_quant_set_simd(0), 0);
    ck_assert_int_eq(gguf_quant_simd(), 0);
    ck_assert_int_eq(gguf_quant_set_simd(99), top);
    ck_assert_int_eq(gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO), top);
    ck_assert_str_eq(gguf_quant_simd_name(0), "scalar");
    ck_assert_ptr_null(gguf_quant_simd_name(4));
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Two tensors' values compared                                                                */

static gguf_file *open_src(const char *rel) {
    gguf_file *f;
    gguf_error err;
    int rc = gguf_file_open(&f, tu_src(rel), 0, &err);
    ck_assert_msg(rc == 0, "%s: %s", rel, err.message);
    return f;
}

static size_t tensor_index(const gguf_file *f, const char *name) {
    int64_t i = gguf_tensor_find(f, name);
    ck_assert_msg(i >= 0, "no tensor %s", name);
    return (size_t)i;
}

static gguf_quant_comparison compare_ok(const gguf_file *a, size_t ia, const gguf_file *b,
                                        size_t ib, unsigned threads) {
    gguf_quant_comparison c;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_quant_compare(&c, a, ia, b, ib, threads, &err);
    ck_assert_msg(rc == 0, "compare %zu with %zu: %s", ia, ib, err.message);
    return c;
}

/* The figures as diff --values --json prints them (%.9g, cos %.12g). */
static void figures_are(const gguf_quant_comparison *c, uint64_t n, const char *rmse,
                        const char *max_abs, const char *rel, const char *cos) {
    char buf[4][32];
    snprintf(buf[0], sizeof buf[0], "%.9g", c->rmse);
    snprintf(buf[1], sizeof buf[1], "%.9g", c->max_abs);
    snprintf(buf[2], sizeof buf[2], "%.9g", c->rel);
    snprintf(buf[3], sizeof buf[3], "%.12g", c->cos);
    ck_assert_uint_eq(c->n, n);
    ck_assert_str_eq(buf[0], rmse);
    ck_assert_str_eq(buf[1], max_abs);
    ck_assert_str_eq(buf[2], rel);
    ck_assert_str_eq(buf[3], cos);
}

START_TEST(test_compare_golden) {
    gguf_file *le = open_src("golden/types/all_types.gguf");
    gguf_file *be = open_src("golden/types/all_types.be.gguf");
    /* diff --values of all_types.gguf against a copy whose t.f32 holds t.q4_K's bytes and
     * whose t.q4_0 holds t.q8_0's */
    gguf_quant_comparison k4 = compare_ok(le, tensor_index(le, "t.f32"), le,
                                          tensor_index(le, "t.q4_K"), 2);
    figures_are(&k4, 512, "0.0310423103", "0.0959878303", "0.0175596314", "0.999845835094");
    gguf_quant_comparison q8 = compare_ok(le, tensor_index(le, "t.q4_0"), le,
                                          tensor_index(le, "t.q8_0"), 1);
    figures_are(&q8, 512, "0.00114245875", "0.00333595276", "0.00064625428", "0.999999793041");
    /* the same bytes big-endian: the same sums, bit for bit */
    gguf_quant_comparison k4_be = compare_ok(le, tensor_index(le, "t.f32"), be,
                                             tensor_index(be, "t.q4_K"), 2);
    ck_assert(memcmp(&k4, &k4_be, sizeof k4) == 0);
    /* every tensor against its big-endian twin: the same values; a type that cannot be
     * dequantized is refused as such */
    ck_assert_uint_eq(gguf_tensor_count(le), gguf_tensor_count(be));
    uint64_t same = 0;
    for (size_t i = 0; i < gguf_tensor_count(le); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, le, i);
        gguf_quant_comparison c;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_quant_compare(&c, le, i, be, i, 2, &err);
        if (!gguf_quant_can_dequantize(t.type)) {
            ck_assert_int_eq(rc, GGUF_EUNSUPPORTED);
            continue;
        }
        ck_assert_msg(rc == 0, "%.*s: %s", (int)t.name_len, t.name, err.message);
        ck_assert_uint_eq(c.n, 512);
        ck_assert(c.sum_d2 == 0 && c.max_abs == 0 && c.rmse == 0 && c.rel == 0);
        ck_assert_msg(fabs(c.cos - 1) < 1e-12, "%.*s: cos %.17g", (int)t.name_len, t.name, c.cos);
        same++;
    }
    ck_assert_uint_ge(same, 30);
    /* diff's summary over that file: the two tensors that differ and 30 equal ones, counted */
    gguf_quant_comparison all = {.cos = 1}, equal = {.n = 30 * 512};
    gguf_quant_comparison_add(&all, &k4);
    gguf_quant_comparison_add(&all, &q8);
    gguf_quant_comparison_add(&all, &equal);
    figures_are(&all, 16384, "0.00549127217", "0.0959878303", "0.0124249626", "0.999922809126");
    gguf_file_free(le);
    gguf_file_free(be);
}
END_TEST

/* A file of tensors "a" F32 [1000, 2500] and "b" F16 [2000, 1250] (the same 2.5 million
 * values rounded: three pieces of rows of 1000), "c" F32 [1000, 2501], "d" Q4_0 [32, 2] and
 * "e" F32 [16, 4]. */
static void build_pieces(gb *b) {
    enum { N = 2500000 };
    float *x = malloc(N * sizeof *x);
    uint16_t *h = malloc(N * sizeof *h);
    ck_assert(x != NULL && h != NULL);
    uint32_t state = 12345;
    for (size_t i = 0; i < N; i++) {
        state = state * 1664525u + 1013904223u;
        x[i] = ((float)(state >> 8) / 16777216.0f - 0.5f) * (i % 1000 == 7 ? 300.0f : 2.0f);
    }
    ck_assert_int_eq(gguf_quant_quantize(h, N * sizeof *h, GGUF_DTYPE_F16, x, 1, N, NULL, NULL), 0);
    uint64_t off_b = (uint64_t)N * 4, off_c = off_b + (uint64_t)N * 2;
    uint64_t off_d = off_c + 2501000ull * 4, off_e = off_d + 64;
    gb_begin(b, 3, 0, 5, 0);
    gb_tensor(b, "a", 2, (uint64_t[]){1000, 2500}, GGUF_DTYPE_F32, 0);
    gb_tensor(b, "b", 2, (uint64_t[]){2000, 1250}, GGUF_DTYPE_F16, off_b);
    gb_tensor(b, "c", 2, (uint64_t[]){1000, 2501}, GGUF_DTYPE_F32, off_c);
    gb_tensor(b, "d", 2, (uint64_t[]){32, 2}, GGUF_DTYPE_Q4_0, off_d);
    gb_tensor(b, "e", 2, (uint64_t[]){16, 4}, GGUF_DTYPE_F32, off_e);
    gb_align(b, 32);
    gb_raw(b, x, N * sizeof *x);
    gb_raw(b, h, N * sizeof *h);
    gb_fill(b, 0, 2501000 * 4 + 64 + 256);
    free(x);
    free(h);
}

START_TEST(test_compare_pieces) {
    gb b;
    build_pieces(&b);
    gguf_file *f;
    ck_assert_int_eq(gguf_file_open_memory(&f, b.p, b.len, 0, 0, NULL), 0);
    gguf_quant_comparison one = compare_ok(f, 0, f, 1, 1);
    for (unsigned threads = 2; threads <= 8; threads += 3) {
        gguf_quant_comparison c = compare_ok(f, 0, f, 1, threads);
        ck_assert_msg(memcmp(&c, &one, sizeof c) == 0, "%u threads: other sums", threads);
    }
    /* against one loop over the whole tensors (another order of additions: close, not equal) */
    enum { N = 2500000 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    ck_assert(x != NULL && y != NULL);
    ck_assert_int_eq(gguf_tensor_read(x, f, 0, 0, N * sizeof *x, NULL), 0);
    uint16_t *h = malloc(N * sizeof *h);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(gguf_tensor_read(h, f, 1, 0, N * sizeof *h, NULL), 0);
    ck_assert_int_eq(gguf_quant_dequantize(y, GGUF_DTYPE_F16, h, N * sizeof *h, N, NULL), 0);
    double d2 = 0, a2 = 0, b2 = 0, ab = 0, max = 0;
    for (size_t i = 0; i < N; i++) {
        double d = (double)x[i] - y[i];
        d2 += d * d;
        a2 += (double)x[i] * x[i];
        b2 += (double)y[i] * y[i];
        ab += (double)x[i] * y[i];
        max = fabs(d) > max ? fabs(d) : max;
    }
    ck_assert_uint_eq(one.n, N);
    ck_assert(max > 0 && one.max_abs == max);
    ck_assert(fabs(one.sum_d2 - d2) <= 1e-9 * d2 && fabs(one.sum_a2 - a2) <= 1e-9 * a2);
    ck_assert(fabs(one.sum_b2 - b2) <= 1e-9 * b2 && fabs(one.sum_ab - ab) <= 1e-9 * ab);
    ck_assert(fabs(one.rmse - sqrt(d2 / N)) <= 1e-9 * one.rmse);
    ck_assert(fabs(one.cos - ab / sqrt(a2 * b2)) <= 1e-12);
    free(x);
    free(y);
    free(h);
    /* refusals, and *out untouched */
    gguf_quant_comparison c = {.n = 77};
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_quant_compare(&c, f, 0, f, 2, 2, &err), GGUF_EINVAL); /* counts */
    ck_assert_msg(strstr(err.message, "'a' and 'c' do not line up") != NULL, "%s", err.message);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_quant_compare(&c, f, 3, f, 4, 2, &err), GGUF_EINVAL); /* rows of 16 */
    ck_assert_msg(strstr(err.message, "'d' and 'e' do not line up") != NULL, "%s", err.message);
    ck_assert_int_eq(gguf_quant_compare(&c, f, 0, f, 5, 2, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_quant_compare(&c, NULL, 0, f, 0, 2, NULL), GGUF_EINVAL);
    ck_assert_uint_eq(c.n, 77);
    gguf_file_free(f);
    gb_free(&b);
}
END_TEST

/* A file cut short while it is open: an error naming the file, as a read would give. */
START_TEST(test_compare_truncated) {
    gb b;
    build_pieces(&b);
    char path[] = "/tmp/check_quant.XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert(write(fd, b.p, b.len) == (ssize_t)b.len);
    gguf_file *f;
    ck_assert_int_eq(gguf_file_open(&f, path, 0, NULL), 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)gguf_file_data_offset(f) + 5000000), 0);
    gguf_quant_comparison c;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_quant_compare(&c, f, 0, f, 1, 2, &err);
    ck_assert_msg(rc == GGUF_ETRUNC || rc == GGUF_EIO, "rc %d: %s", rc, err.message);
    ck_assert_str_eq(err.path, path);
    gguf_file_free(f);
    close(fd);
    unlink(path);
    gb_free(&b);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */

static Suite *quant_suite(void) {
    Suite *s = suite_create("quant");
    TCase *tc = tcase_create("golden");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_golden, 0, n_entries > 0 ? n_entries : 1);
    suite_add_tcase(s, tc);

    tc = tcase_create("simd");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_simd_matches_scalar, 0, GGUF_DTYPE_COUNT);
    tcase_add_test(tc, test_f16_all_halves);
    tcase_add_test(tc, test_f16_from_float);
    tcase_add_test(tc, test_bf16);
    suite_add_tcase(s, tc);

    tc = tcase_create("roundtrip");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_roundtrip_rms, 0, GGUF_DTYPE_COUNT);
    suite_add_tcase(s, tc);

    tc = tcase_create("api");
    tcase_add_test(tc, test_plain_types);
    tcase_add_test(tc, test_coverage);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);

    tc = tcase_create("compare");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_compare_golden);
    tcase_add_test(tc, test_compare_pieces);
    tcase_add_test(tc, test_compare_truncated);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    load_vectors();
    fprintf(stderr, "quant: SIMD levels tested: scalar..%s\n",
            gguf_quant_simd_name(gguf_quant_simd_supported()));
    int status = tu_run_suite(quant_suite());
    free(vec_input);
    free(vec_imatrix);
    return status;
}
