/* gguf_quant_*: argument checks, the kernel table and the choice of SIMD variants.
 *
 * Plain types are handled here: F32 (a copy both ways) and the dequantize-only I8, I16, I32,
 * I64 and F64, converted by value:
 *
 *   F32  4 bytes  x = the float          I8   1 byte   x = (float)int8
 *   F64  8 bytes  x = (float)double      I16  2 bytes  x = (float)int16
 *                                         I32  4 bytes  x = (float)int32 (nearest float)
 *                                         I64  8 bytes  x = (float)int64 (nearest float)
 *
 * (all little-endian).
 */
#include "quant.h"

#if GGUF__X86
#include <cpuid.h>
#endif
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>

/* ------------------------------------------------------------------------------------------ */
/* Plain types                                                                                 */

static void dequant_f32(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    if (!gguf__host_is_big()) {
        memcpy(dst, p, (size_t)n * 4);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        dst[i] = gguf__f32_from_bits(gguf__ld32(p + 4 * i));
}

static void quant_f32(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                      const float *imatrix) {
    (void)imatrix;
    uint8_t *q = dst;
    int64_t n = nrows * n_per_row;
    if (!gguf__host_is_big()) {
        memcpy(q, src, (size_t)n * 4);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        gguf__st32(q + 4 * i, gguf__f32_bits(src[i]));
}

static inline uint64_t ld64(const uint8_t *p) {
    return (uint64_t)gguf__ld32(p) | (uint64_t)gguf__ld32(p + 4) << 32;
}

static void dequant_i8(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int8_t)p[i];
}

static void dequant_i16(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int16_t)gguf__ld16(p + 2 * i);
}

static void dequant_i32(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int32_t)gguf__ld32(p + 4 * i);
}

static void dequant_i64(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int64_t)ld64(p + 8 * i);
}

static void dequant_f64(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = ld64(p + 8 * i);
        double d;
        memcpy(&d, &u, sizeof d);
        dst[i] = (float)d;
    }
}

const gguf__quant_kernels gguf__kernels_f32 = {.dequant = dequant_f32, .quant = quant_f32};
const gguf__quant_kernels gguf__kernels_i8 = {.dequant = dequant_i8};
const gguf__quant_kernels gguf__kernels_i16 = {.dequant = dequant_i16};
const gguf__quant_kernels gguf__kernels_i32 = {.dequant = dequant_i32};
const gguf__quant_kernels gguf__kernels_i64 = {.dequant = dequant_i64};
const gguf__quant_kernels gguf__kernels_f64 = {.dequant = dequant_f64};

/* ------------------------------------------------------------------------------------------ */
/* The table                                                                                   */

static const gguf__quant_kernels *const kernels[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_F32] = &gguf__kernels_f32,
    [GGUF_DTYPE_F16] = &gguf__kernels_f16,
    [GGUF_DTYPE_Q4_0] = &gguf__kernels_q4_0,
    [GGUF_DTYPE_Q4_1] = &gguf__kernels_q4_1,
    [GGUF_DTYPE_Q5_0] = &gguf__kernels_q5_0,
    [GGUF_DTYPE_Q5_1] = &gguf__kernels_q5_1,
    [GGUF_DTYPE_Q8_0] = &gguf__kernels_q8_0,
    [GGUF_DTYPE_Q8_1] = &gguf__kernels_q8_1,
    [GGUF_DTYPE_Q2_K] = &gguf__kernels_q2_k,
    [GGUF_DTYPE_Q3_K] = &gguf__kernels_q3_k,
    [GGUF_DTYPE_Q4_K] = &gguf__kernels_q4_k,
    [GGUF_DTYPE_Q5_K] = &gguf__kernels_q5_k,
    [GGUF_DTYPE_Q6_K] = &gguf__kernels_q6_k,
    [GGUF_DTYPE_Q8_K] = &gguf__kernels_q8_k,
    [GGUF_DTYPE_IQ2_XXS] = &gguf__kernels_iq2_xxs,
    [GGUF_DTYPE_IQ2_XS] = &gguf__kernels_iq2_xs,
    [GGUF_DTYPE_IQ3_XXS] = &gguf__kernels_iq3_xxs,
    [GGUF_DTYPE_IQ1_S] = &gguf__kernels_iq1_s,
    [GGUF_DTYPE_IQ4_NL] = &gguf__kernels_iq4_nl,
    [GGUF_DTYPE_IQ3_S] = &gguf__kernels_iq3_s,
    [GGUF_DTYPE_IQ2_S] = &gguf__kernels_iq2_s,
    [GGUF_DTYPE_IQ4_XS] = &gguf__kernels_iq4_xs,
    [GGUF_DTYPE_I8] = &gguf__kernels_i8,
    [GGUF_DTYPE_I16] = &gguf__kernels_i16,
    [GGUF_DTYPE_I32] = &gguf__kernels_i32,
    [GGUF_DTYPE_I64] = &gguf__kernels_i64,
    [GGUF_DTYPE_F64] = &gguf__kernels_f64,
    [GGUF_DTYPE_IQ1_M] = &gguf__kernels_iq1_m,
    [GGUF_DTYPE_BF16] = &gguf__kernels_bf16,
    [GGUF_DTYPE_TQ1_0] = &gguf__kernels_tq1_0,
    [GGUF_DTYPE_TQ2_0] = &gguf__kernels_tq2_0,
    [GGUF_DTYPE_MXFP4] = &gguf__kernels_mxfp4,
    [GGUF_DTYPE_NVFP4] = &gguf__kernels_nvfp4,
    [GGUF_DTYPE_Q1_0] = &gguf__kernels_q1_0,
    [GGUF_DTYPE_Q2_0] = &gguf__kernels_q2_0,
};
_Static_assert(sizeof kernels / sizeof kernels[0] == GGUF_DTYPE_COUNT,
               "one kernel slot per tensor type");

/* The kernels of a type, or NULL. A type also needs its block shape in dtype.c. */
static const gguf__quant_kernels *lookup(uint32_t dtype) {
    if (dtype >= GGUF_DTYPE_COUNT)
        return NULL;
    const gguf__quant_kernels *k = kernels[dtype];
    if (!k || !k->dequant || !gguf_dtype_block_elems(dtype) || !gguf_dtype_block_bytes(dtype))
        return NULL;
    return k;
}

/* ------------------------------------------------------------------------------------------ */
/* SIMD level                                                                                  */

static atomic_int simd_supported = -1; /* detected once */
static atomic_int simd_selected = -1;  /* -1: follow simd_supported */

static int detect_simd(void) {
#if GGUF__X86
    __builtin_cpu_init();
    /* clang's __builtin_cpu_supports does not know "f16c": ask CPUID (leaf 1, ECX bit 29);
     * "avx2" already includes the check that the OS saves the AVX state */
    unsigned eax, ebx, ecx = 0, edx;
    bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29));
    bool avx2 = __builtin_cpu_supports("avx2") && f16c;
    if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
        return GGUF__SIMD_AVX512;
    if (avx2)
        return GGUF__SIMD_AVX2;
    if (__builtin_cpu_supports("sse4.1"))
        return GGUF__SIMD_SSE41;
#endif
    return GGUF__SIMD_SCALAR;
}

int gguf_quant_simd_supported(void) {
    int s = atomic_load_explicit(&simd_supported, memory_order_relaxed);
    if (s < 0) {
        s = detect_simd();
        atomic_store_explicit(&simd_supported, s, memory_order_relaxed);
    }
    return s;
}

int gguf__simd_level(void) {
    int sel = atomic_load_explicit(&simd_selected, memory_order_relaxed);
    int sup = gguf_quant_simd_supported();
    return sel < 0 || sel > sup ? sup : sel;
}

int gguf_quant_set_simd(int level) {
    atomic_store_explicit(&simd_selected, level < 0 ? -1 : level, memory_order_relaxed);
    return gguf__simd_level();
}

int gguf_quant_simd(void) { return gguf__simd_level(); }

const char *gguf_quant_simd_name(int level) {
    static const char *const names[GGUF__SIMD_COUNT] = {"scalar", "sse4.1", "avx2", "avx512"};
    return level >= 0 && level < GGUF__SIMD_COUNT ? names[level] : NULL;
}

static gguf__dequant_fn pick_dequant(const gguf__quant_kernels *k) {
    for (int l = gguf__simd_level(); l > 0; l--)
        if (k->dequant_simd[l])
            return k->dequant_simd[l];
    return k->dequant;
}

static gguf__quant_fn pick_quant(const gguf__quant_kernels *k) {
    for (int l = gguf__simd_level(); l > 0; l--)
        if (k->quant_simd[l])
            return k->quant_simd[l];
    return k->quant;
}

/* ------------------------------------------------------------------------------------------ */
/* Public API                                                                                  */

static const char *type_name(uint32_t dtype, char buf[16]) {
    const char *name = gguf_dtype_name(dtype);
    if (name)
        return name;
    snprintf(buf, 16, "#%u", (unsigned)dtype);
    return buf;
}

size_t gguf_quant_row_size(uint32_t dtype, int64_t n_per_row) {
    uint32_t be = gguf_dtype_block_elems(dtype), bb = gguf_dtype_block_bytes(dtype);
    uint64_t size;
    if (be == 0 || bb == 0 || n_per_row < 0 || n_per_row % be != 0)
        return 0;
    if (!gguf__mul_u64(&size, (uint64_t)n_per_row / be, bb) || size > SIZE_MAX)
        return 0;
    return (size_t)size;
}

int gguf_quant_can_quantize(uint32_t dtype) {
    const gguf__quant_kernels *k = lookup(dtype);
    return k && k->quant;
}

int gguf_quant_can_dequantize(uint32_t dtype) { return lookup(dtype) != NULL; }

int gguf_quant_needs_imatrix(uint32_t dtype) {
    const gguf__quant_kernels *k = lookup(dtype);
    return k && k->quant && k->needs_imatrix;
}

int gguf_quant_quantize(void *dst, size_t dst_size, uint32_t dtype, const float *src,
                        int64_t nrows, int64_t n_per_row, const float *imatrix,
                        gguf_error *err) {
    char buf[16];
    const gguf__quant_kernels *k = lookup(dtype);
    if (!k || !k->quant)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "quantize: type %s cannot be quantized", type_name(dtype, buf));
    uint32_t be = gguf_dtype_block_elems(dtype), bb = gguf_dtype_block_bytes(dtype);
    if (nrows < 0 || n_per_row < 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "quantize: negative shape %" PRId64 " x %" PRId64, nrows, n_per_row);
    if (n_per_row % be != 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "quantize: row length %" PRId64 " is not a multiple of the %s block "
                          "size %u",
                          n_per_row, type_name(dtype, buf), (unsigned)be);
    uint64_t nelem, need;
    if (!gguf__mul_u64(&nelem, (uint64_t)nrows, (uint64_t)n_per_row) ||
        nelem > SIZE_MAX / sizeof(float) || nelem > INT64_MAX ||
        !gguf__mul_u64(&need, nelem / be, bb) || need > SIZE_MAX)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "quantize: %" PRId64 " x %" PRId64 " elements of %s overflow size_t",
                          nrows, n_per_row, type_name(dtype, buf));
    if (k->needs_imatrix && !imatrix)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "quantize: type %s needs an importance matrix",
                          type_name(dtype, buf));
    if (dst_size < need)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "quantize: %" PRId64 " x %" PRId64 " elements of %s need %" PRIu64
                          " bytes, the buffer has %zu",
                          nrows, n_per_row, type_name(dtype, buf), need, dst_size);
    if (need == 0)
        return 0;
    if (!dst || !src)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "quantize: NULL %s buffer",
                          dst ? "source" : "destination");
    pick_quant(k)(dst, src, nrows, n_per_row, imatrix);
    return 0;
}

int gguf_quant_dequantize(float *dst, uint32_t dtype, const void *src, size_t src_size,
                          int64_t n, gguf_error *err) {
    char buf[16];
    const gguf__quant_kernels *k = lookup(dtype);
    if (!k)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "dequantize: type %s is not supported", type_name(dtype, buf));
    uint32_t be = gguf_dtype_block_elems(dtype), bb = gguf_dtype_block_bytes(dtype);
    if (n < 0 || n % be != 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "dequantize: %" PRId64 " elements is not a whole number of %s "
                          "blocks of %u",
                          n, type_name(dtype, buf), (unsigned)be);
    uint64_t need;
    if (!gguf__mul_u64(&need, (uint64_t)n / be, bb))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "dequantize: %" PRId64 " elements of %s overflow the byte count", n,
                          type_name(dtype, buf));
    if (need > src_size)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "dequantize: %" PRId64 " elements of %s need %" PRIu64
                          " bytes, %zu given",
                          n, type_name(dtype, buf), need, src_size);
    if ((uint64_t)n > SIZE_MAX / sizeof(float))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "dequantize: %" PRId64 " floats do not fit in memory", n);
    if (n == 0)
        return 0;
    if (!dst || !src)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "dequantize: NULL %s buffer",
                          dst ? "source" : "destination");
    pick_dequant(k)(dst, src, n);
    return 0;
}
