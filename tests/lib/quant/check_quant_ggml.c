/* Our quantize/dequantize kernels against ggml's own, in process: libggml-base.so (ggml's
 * reference kernels: ggml_quantize_chunk and type_traits->to_float) is loaded with dlopen
 * from GGML_BASE_LIB, else from the copy that ggml-oracle's build put beside it (GGML_ORACLE,
 * or its usual place when that is unset: see ggml_abi_path). With GGML_ORACLE set but empty (no
 * oracle) or no library there, the program reports SKIP with the reason (tu_skip_all).
 *
 * For every type, on seeded random data of several kinds (Gaussian, outliers, zero groups,
 * tiny and huge magnitudes, rounding ties, non-negative, constant blocks, a handful of
 * values so that searches meet equal scores), without and with
 * an importance matrix (zeros included) where ggml takes one, and at every SIMD level this CPU
 * has (scalar included):
 *  - our quantized bytes equal ggml_quantize_chunk's, byte for byte;
 *  - our dequantization of ggml's bytes, and of random bytes (any scale, Inf and NaN
 *    included), equals ggml's to_float bit for bit.
 * Under valgrind the program skips (see under_valgrind). The inputs hold no NaN or Inf: ggml aborts on some of them, and which NaN payload a result
 * carries differs between ggml's own builds (see libgguf/quant/quant.h). A failure prints
 * its seed; GGUF_QUANT_SEED=N reruns with that seed.
 */
#define _GNU_SOURCE
#include "tests/support/ggml_abi.h"
#include "tests/support/testutil.h"

#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


enum { KIND_COUNT = 10 };
static const char *const kind_name[KIND_COUNT] = {
    "gaussian", "outliers", "zero groups", "tiny", "huge", "non-negative", "ties", "f16 range",
    "mixed magnitudes", "few values",
};

/* The lattice i-quants, whose weights go as x^4: ggml aborts on them when those overflow. */
static bool lattice(uint32_t t) {
    switch (t) {
    case GGUF_DTYPE_IQ2_XXS: case GGUF_DTYPE_IQ2_XS: case GGUF_DTYPE_IQ2_S:
    case GGUF_DTYPE_IQ3_XXS: case GGUF_DTYPE_IQ3_S: case GGUF_DTYPE_IQ1_S: case GGUF_DTYPE_IQ1_M:
        return true;
    default:
        return false;
    }
}

/* Finite data of one kind; huge is the largest magnitude wanted. */
static void fill(float *x, int64_t n, int kind, float huge) {
    for (int64_t i = 0; i < n; i++) {
        float g = tu_rng_gauss();
        switch (kind) {
        case 0: x[i] = g; break;
        case 1: x[i] = tu_rng_u32() % 50 == 0 ? 100.f * g : g; break;
        case 2: /* zero groups (either sign), constant stretches */
            x[i] = (i / 16) % 3 == 0   ? (tu_rng_u32() & 1 ? -0.f : 0.f)
                   : (i / 32) % 5 == 0 ? 1.5f
                                       : g;
            break;
        case 3: x[i] = g * 1e-30f; break;
        case 4: x[i] = g * huge; break;
        case 5: x[i] = tu_rng_u32() % 8 == 0 ? 0.f : fabsf(g); break;
        case 6: x[i] = (float)(int)(4 * g); break;
        case 7: x[i] = 65504.f * 2 * g; break;
        case 8: x[i] = g * powf(10.f, (float)((int)(tu_rng_u32() % 13) - 6)); break;
        default: /* a handful of values: equal distances and scores, so ties between
                  * candidates, where the first one must win */
            x[i] = (float)((int)(tu_rng_u32() % 5) - 2) * 0.75f;
            break;
        }
    }
}

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

static uint64_t base_seed(void) {
    const char *s = getenv("GGUF_QUANT_SEED");
    return s ? strtoull(s, NULL, 0) : 20250101;
}

static const char *name_of(uint32_t t) {
    const char *n = gguf_dtype_name(t);
    return n ? n : "?";
}

/* Quantize: our bytes against ggml_quantize_chunk's, every kind, with and without imatrix,
 * every SIMD level; then our dequantization of those bytes against ggml's to_float. */
START_TEST(test_quantize_like_ggml) {
    uint32_t t = (uint32_t)_i;
    if (!gguf_quant_can_quantize(t) || !ggml_abi_quantizes(t))
        return;
    const struct ggml_type_traits_abi *tr = ggml.get_type_traits((int)t);
    ck_assert_msg(tr && tr->blck_size == gguf_dtype_block_elems(t) &&
                      tr->type_size == gguf_dtype_block_bytes(t),
                  "%s: ggml's block shape differs", name_of(t));
    ck_assert_int_eq(ggml.requires_imatrix((int)t), gguf_quant_needs_imatrix(t));
    const int64_t be = gguf_dtype_block_elems(t);
    const int top = gguf_quant_simd_supported();
    for (int trial = 0; trial < 2 * KIND_COUNT; trial++) {
        uint64_t seed = base_seed() * 1000003u + t * 1009u + (uint64_t)trial;
        tu_rng_seed(seed);
        int kind = trial % KIND_COUNT;
        bool use_im = gguf_quant_needs_imatrix(t) || trial >= KIND_COUNT;
        /* rows of 1 to 3 super-blocks (512 elements at least for small blocks) */
        int64_t per = be >= 256 ? be * (1 + tu_rng_u32() % 3) : be * ((512 + be - 1) / be);
        int64_t rows = 2, n = rows * per;
        size_t qsize = gguf_quant_row_size(t, per) * (size_t)rows;
        float *x = malloc((size_t)n * 4), *im = malloc((size_t)per * 4);
        float *want_y = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
        uint8_t *want = malloc(qsize), *q = malloc(qsize);
        fill(x, n, kind, lattice(t) ? 1e7f : 1e15f);
        for (int64_t i = 0; i < per; i++)
            im[i] = tu_rng_u32() % 16 == 0 ? 0.f : 10 * tu_rng_unit();
        memset(want, 0x5A, qsize);
        size_t wrote = ggml.quantize_chunk((int)t, x, want, 0, rows, per, use_im ? im : NULL);
        ck_assert_uint_eq(wrote, qsize);
        if (tr->to_float)
            tr->to_float(want, want_y, n);
        for (int level = 0; level <= top; level++) {
            gguf_quant_set_simd(level);
            gguf_error err = {0};
            memset(q, 0xA5, qsize);
            ck_assert_int_eq(gguf_quant_quantize(q, qsize, t, x, rows, per,
                                                 use_im ? im : NULL, &err), 0);
            int64_t i = diff_bytes(q, want, qsize);
            ck_assert_msg(i < 0,
                          "%s %s, seed %llu (%s, %lld x %lld, imatrix %d): byte %lld "
                          "(block %lld) is %02x, ggml wrote %02x",
                          name_of(t), gguf_quant_simd_name(level), (unsigned long long)seed,
                          kind_name[kind], (long long)rows, (long long)per, use_im,
                          (long long)i, (long long)(i / (int64_t)gguf_dtype_block_bytes(t)),
                          q[i < 0 ? 0 : i], want[i < 0 ? 0 : i]);
            if (!tr->to_float)
                continue;
            ck_assert_int_eq(gguf_quant_dequantize(y, t, want, qsize, n, &err), 0);
            i = diff_floats(y, want_y, n);
            ck_assert_msg(i < 0,
                          "%s %s, seed %llu (%s): dequantized element %lld is %a, ggml gave %a",
                          name_of(t), gguf_quant_simd_name(level), (unsigned long long)seed,
                          kind_name[kind], (long long)i, y[i < 0 ? 0 : i],
                          want_y[i < 0 ? 0 : i]);
        }
        gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO);
        free(x);
        free(im);
        free(want_y);
        free(y);
        free(want);
        free(q);
    }
}
END_TEST

/* Dequantize random bytes (every scale pattern: subnormal, huge, Inf, NaN) with both. */
START_TEST(test_dequantize_like_ggml) {
    uint32_t t = (uint32_t)_i;
    if (!gguf_quant_can_dequantize(t) || t == GGUF_DTYPE_F32)
        return;
    const struct ggml_type_traits_abi *tr = ggml.get_type_traits((int)t);
    if (!tr || !tr->to_float)
        return;
    ck_assert_msg(tr->blck_size == gguf_dtype_block_elems(t) &&
                      tr->type_size == gguf_dtype_block_bytes(t),
                  "%s: ggml's block shape differs", name_of(t));
    const int64_t be = gguf_dtype_block_elems(t);
    const int top = gguf_quant_simd_supported();
    for (int trial = 0; trial < 8; trial++) {
        uint64_t seed = base_seed() * 1000003u + t * 1009u + 77 + (uint64_t)trial;
        tu_rng_seed(seed);
        int64_t n = be * (be >= 256 ? 16 : 256 / be * 8);
        size_t qsize = gguf_quant_row_size(t, n);
        uint8_t *q = malloc(qsize);
        float *want = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
        for (size_t i = 0; i < qsize; i++)
            q[i] = (uint8_t)tu_rng_u32();
        tr->to_float(q, want, n);
        for (int level = 0; level <= top; level++) {
            gguf_quant_set_simd(level);
            gguf_error err = {0};
            ck_assert_int_eq(gguf_quant_dequantize(y, t, q, qsize, n, &err), 0);
            int64_t i = diff_floats(y, want, n);
            ck_assert_msg(i < 0, "%s %s, seed %llu: element %lld is %a, ggml gave %a",
                          name_of(t), gguf_quant_simd_name(level), (unsigned long long)seed,
                          (long long)i, y[i < 0 ? 0 : i], want[i < 0 ? 0 : i]);
        }
        gguf_quant_set_simd(GGUF_QUANT_SIMD_AUTO);
        free(q);
        free(want);
        free(y);
    }
}
END_TEST

/* 1 under valgrind (its preload libraries are in LD_PRELOAD): there ggml's own table builds
 * alone take many minutes; the plain and ASan runs make the comparison, and check_quant runs
 * the same kernels under valgrind. */
static bool under_valgrind(void) {
    const char *p = getenv("LD_PRELOAD");
    return p && strstr(p, "vgpreload");
}

int main(void) {
    if (under_valgrind())
        return tu_skip_all("under valgrind, ggml's tables take too long to build");
    const char *ggml_path = ggml_abi_path();
    if (ggml_path == NULL || !ggml_abi_load(ggml_path)) {
        char why[4200];
        if (ggml_path == NULL)
            snprintf(why, sizeof why, "no ggml: GGML_ORACLE is %s (set it, or GGML_BASE_LIB)",
                     getenv("GGML_ORACLE") != NULL && *getenv("GGML_ORACLE") == '\0'
                         ? "empty" : "not ROOT/bin/ggml-oracle");
        else {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s not loadable (set GGML_BASE_LIB): %s", ggml_path,
                     e != NULL ? e : "no reason given");
        }
        return tu_skip_all(why);
    }
    printf("check_quant_ggml: ggml %s; SIMD levels scalar..%s\n", ggml_path,
           gguf_quant_simd_name(gguf_quant_simd_supported()));
    /* ggml's i-quant tables take seconds to build: once here, not in every forked test */
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++)
        if (gguf_quant_can_quantize(t) && ggml_abi_quantizes(t))
            ggml.quantize_init((int)t);
    Suite *s = suite_create("quant_ggml");
    TCase *tc = tcase_create("quantize");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_quantize_like_ggml, 0, GGUF_DTYPE_COUNT);
    suite_add_tcase(s, tc);
    tc = tcase_create("dequantize");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_dequantize_like_ggml, 0, GGUF_DTYPE_COUNT);
    suite_add_tcase(s, tc);
    int rc = tu_run_suite(s);
    ggml_abi_unload();
    return rc;
}
