/* F16 and BF16: 16-bit floats, one element per "block".
 *
 *   F16  (IEEE binary16)   bit 15 sign | 14..10 exponent (bias 15) | 9..0 mantissa
 *   BF16 (bfloat16)        bit 15 sign | 14..7  exponent (bias 127) | 6..0 mantissa
 *                          = the top half of an IEEE binary32
 *
 *   x = half_to_float(h)            exact (subnormals, Inf and NaN payloads kept)
 *   h = float_to_half(x)            round to nearest even; overflow -> Inf; NaN -> 0x7E00|sign
 *   x = bits(b) << 16               exact
 *   b = (u + 0x7FFF + (u>>16 & 1)) >> 16   round to nearest even; NaN -> quiet (| 0x40)
 *
 * Both stored little-endian. The conversions are ggml's portable ones (quant.h); the SIMD
 * variants below give the same bits for all 2^16 halves and all 2^32 floats (checked
 * exhaustively once; tests/lib/quant/check_quant.c samples). F16 needs F16C, so it has no SSE4.1
 * path.
 */
#include "quant.h"

static void dequant_f16(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    for (int64_t i = 0; i < n; i++)
        dst[i] = gguf__half_to_float(gguf__ld16(p + 2 * i));
}

static void quant_f16(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                      const float *imatrix) {
    (void)imatrix;
    uint8_t *q = dst;
    int64_t n = nrows * n_per_row;
    for (int64_t i = 0; i < n; i++)
        gguf__st16(q + 2 * i, gguf__float_to_half(src[i]));
}

static void dequant_bf16(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    for (int64_t i = 0; i < n; i++)
        dst[i] = gguf__bf16_to_float(gguf__ld16(p + 2 * i));
}

static void quant_bf16(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    (void)imatrix;
    uint8_t *q = dst;
    int64_t n = nrows * n_per_row;
    for (int64_t i = 0; i < n; i++)
        gguf__st16(q + 2 * i, gguf__float_to_bf16(src[i]));
}

/* ------------------------------------------------------------------------------------------ */
/* x86 SIMD                                                                                    */

#if GGUF__X86
#include <immintrin.h>
#define F16_SIMD(level, fn) [level] = fn
#else
#define F16_SIMD(level, fn) [level] = NULL
#endif

#if GGUF__X86
/* Output alignment: a store that straddles two cache lines costs about two stores, and
 * malloc'd buffers are often only 16-byte aligned; the widening loops (fp16_x86.h) first
 * convert single elements up to a 64-byte boundary of dst. */
static inline int64_t head_to_align64(const float *dst, int64_t n) {
    int64_t head = (int64_t)((64 - ((uintptr_t)dst & 63)) & 63) / 4;
    return head < n ? head : n;
}

static inline float widen_one(const uint8_t *p, bool bf16) {
    return bf16 ? gguf__bf16_to_float(gguf__ld16(p)) : gguf__half_to_float(gguf__ld16(p));
}

/* ---- F16 -> F32: F16C's vcvtph2ps is exact, and quiets signalling NaNs exactly as the
 * scalar path's multiplication does. ---- */

/* 16 halves at p as floats at y. */
GGUF__TARGET_AVX2 static inline void f16_to_f32_avx2(float *y, const uint8_t *p) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    _mm256_storeu_ps(y, _mm256_cvtph_ps(a));
    _mm256_storeu_ps(y + 8, _mm256_cvtph_ps(b));
}

/* 32 halves at p as floats at y. */
GGUF__TARGET_AVX512 static inline void f16_to_f32_avx512(float *y, const uint8_t *p) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    _mm512_storeu_ps(y, _mm512_cvtph_ps(a));
    _mm512_storeu_ps(y + 16, _mm512_cvtph_ps(b));
}

/* ---- F32 -> F16: vcvtps2ph with round-to-nearest-even matches the scalar rounding for every
 * non-NaN input (subnormal results and overflow to Inf included). NaNs differ (the hardware
 * keeps payload bits), so NaN lanes are replaced by 0x7E00 | sign afterwards. ---- */

/* 8 floats at src as halves at q. */
GGUF__TARGET_AVX2 static inline void f32_to_f16_avx2(uint8_t *q, const float *src) {
    __m256 x = _mm256_loadu_ps(src);
    __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 isnan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    if (_mm256_movemask_ps(isnan)) {
        __m256i bits = _mm256_castps_si256(x);
        __m256i sign = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(0x8000));
        __m256i qnan = _mm256_or_si256(sign, _mm256_set1_epi32(0x7E00));
        __m128i qnan16 = _mm_packus_epi32(_mm256_castsi256_si128(qnan),
                                          _mm256_extracti128_si256(qnan, 1));
        __m256i m = _mm256_castps_si256(isnan);
        __m128i m16 = _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
        h = _mm_blendv_epi8(h, qnan16, m16);
    }
    _mm_storeu_si128((__m128i *)(void *)q, h);
}

/* 16 floats at src as halves at q. */
GGUF__TARGET_AVX512 static inline void f32_to_f16_avx512(uint8_t *q, const float *src) {
    __m512 x = _mm512_loadu_ps(src);
    __m256i h = _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __mmask16 isnan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    if (isnan) {
        __m512i bits = _mm512_castps_si512(x);
        __m512i sign = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(0x8000));
        __m256i fix = _mm512_cvtepi32_epi16(_mm512_or_si512(sign, _mm512_set1_epi32(0x7E00)));
        h = _mm256_mask_blend_epi16(isnan, h, fix);
    }
    _mm256_storeu_si256((__m256i *)(void *)q, h);
}

/* ---- BF16: integer shifts and adds, exact by construction. ---- */

GGUF__TARGET_SSE41 static void dequant_bf16_sse41(float *dst, const void *src, int64_t n) {
    const uint8_t *p = src;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(p + 2 * i));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_unpacklo_epi16(_mm_setzero_si128(), h));
        _mm_storeu_si128((__m128i *)(void *)(dst + i + 4), _mm_unpackhi_epi16(_mm_setzero_si128(), h));
    }
    for (; i < n; i++)
        dst[i] = gguf__bf16_to_float(gguf__ld16(p + 2 * i));
}

/* Four rounded bf16 values in the low 16 bits of each 32-bit lane. */
GGUF__TARGET_SSE41 static inline __m128i f32x4_to_bf16_sse41(__m128i u) {
    __m128i hi = _mm_srli_epi32(u, 16);
    __m128i lsb = _mm_and_si128(hi, _mm_set1_epi32(1));
    __m128i rounded = _mm_srli_epi32(_mm_add_epi32(u, _mm_add_epi32(_mm_set1_epi32(0x7fff), lsb)), 16);
    __m128i quiet = _mm_or_si128(hi, _mm_set1_epi32(64));
    __m128i abs = _mm_and_si128(u, _mm_set1_epi32(0x7fffffff));
    __m128i isnan = _mm_cmpgt_epi32(abs, _mm_set1_epi32(0x7f800000));
    return _mm_blendv_epi8(rounded, quiet, isnan);
}

GGUF__TARGET_SSE41 static void quant_bf16_sse41(void *dst, const float *src, int64_t nrows,
                                                int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *q = dst;
    int64_t n = nrows * n_per_row;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i a = f32x4_to_bf16_sse41(_mm_loadu_si128((const __m128i *)(const void *)(src + i)));
        __m128i b = f32x4_to_bf16_sse41(_mm_loadu_si128((const __m128i *)(const void *)(src + i + 4)));
        _mm_storeu_si128((__m128i *)(void *)(q + 2 * i), _mm_packus_epi32(a, b));
    }
    for (; i < n; i++)
        gguf__st16(q + 2 * i, gguf__float_to_bf16(src[i]));
}

/* 16 bfloat16 values at p as floats at y. */
GGUF__TARGET_AVX2 static inline void bf16_to_f32_avx2(float *y, const uint8_t *p) {
    __m256i a = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    __m256i b = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
    _mm256_storeu_si256((__m256i *)(void *)y, _mm256_slli_epi32(a, 16));
    _mm256_storeu_si256((__m256i *)(void *)(y + 8), _mm256_slli_epi32(b, 16));
}

/* 32 bfloat16 values at p as floats at y. */
GGUF__TARGET_AVX512 static inline void bf16_to_f32_avx512(float *y, const uint8_t *p) {
    __m512i a = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)p));
    __m512i b = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p + 32)));
    _mm512_storeu_si512((void *)y, _mm512_slli_epi32(a, 16));
    _mm512_storeu_si512((void *)(y + 16), _mm512_slli_epi32(b, 16));
}

/* Eight rounded bf16 values in the low 16 bits of each 32-bit lane. */
GGUF__TARGET_AVX2 static inline __m256i f32x8_to_bf16_avx2(__m256i u) {
    const __m256i one = _mm256_set1_epi32(1);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
    __m256i rounded =
        _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), lsb)), 16);
    __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(64));
    __m256i abs = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
    __m256i isnan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
    return _mm256_blendv_epi8(rounded, quiet, isnan);
}

/* 16 floats at src as bfloat16 values at q. */
GGUF__TARGET_AVX2 static inline void f32_to_bf16_avx2(uint8_t *q, const float *src) {
    __m256i a = f32x8_to_bf16_avx2(_mm256_loadu_si256((const __m256i *)(const void *)src));
    __m256i b = f32x8_to_bf16_avx2(_mm256_loadu_si256((const __m256i *)(const void *)(src + 8)));
    /* the lanes hold values < 0x10000, so the unsigned pack is exact; it interleaves the
     * 128-bit halves, which the permute undoes */
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    _mm256_storeu_si256((__m256i *)(void *)q, packed);
}

/* 16 floats at src as bfloat16 values at q. */
GGUF__TARGET_AVX512 static inline void f32_to_bf16_avx512(uint8_t *q, const float *src) {
    const __m512i bias = _mm512_set1_epi32(0x7fff);
    __m512i u = _mm512_loadu_si512((const void *)src);
    __m512i hi = _mm512_srli_epi32(u, 16);
    __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(bias, lsb)), 16);
    __mmask16 isnan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                              _mm512_set1_epi32(0x7f800000));
    __m512i r = _mm512_mask_blend_epi32(isnan, rounded, _mm512_or_si512(hi, _mm512_set1_epi32(64)));
    _mm256_storeu_si256((__m256i *)(void *)q, _mm512_cvtepi32_epi16(r));
}

/* One body per loop (fp16_x86.h), once per instruction set. */
#define FX_TARGET GGUF__TARGET_AVX2
#define FX(name) name##_avx2
#define FX_WIDEN 16
#define FX_NARROW_F16 8
#define FX_NARROW_BF16 16
#include "fp16_x86.h"
#undef FX_TARGET
#undef FX
#undef FX_WIDEN
#undef FX_NARROW_F16
#undef FX_NARROW_BF16

#define FX_TARGET GGUF__TARGET_AVX512
#define FX(name) name##_avx512
#define FX_WIDEN 32
#define FX_NARROW_F16 16
#define FX_NARROW_BF16 16
#include "fp16_x86.h"
#endif /* GGUF__X86 */

const gguf__quant_kernels gguf__kernels_f16 = {
    .dequant = dequant_f16,
    .quant = quant_f16,
    .dequant_simd = {F16_SIMD(GGUF__SIMD_AVX2, dequant_f16_avx2),
                     F16_SIMD(GGUF__SIMD_AVX512, dequant_f16_avx512)},
    .quant_simd = {F16_SIMD(GGUF__SIMD_AVX2, quant_f16_avx2),
                   F16_SIMD(GGUF__SIMD_AVX512, quant_f16_avx512)},
};

const gguf__quant_kernels gguf__kernels_bf16 = {
    .dequant = dequant_bf16,
    .quant = quant_bf16,
    .dequant_simd = {F16_SIMD(GGUF__SIMD_SSE41, dequant_bf16_sse41),
                     F16_SIMD(GGUF__SIMD_AVX2, dequant_bf16_avx2),
                     F16_SIMD(GGUF__SIMD_AVX512, dequant_bf16_avx512)},
    .quant_simd = {F16_SIMD(GGUF__SIMD_SSE41, quant_bf16_sse41),
                   F16_SIMD(GGUF__SIMD_AVX2, quant_bf16_avx2),
                   F16_SIMD(GGUF__SIMD_AVX512, quant_bf16_avx512)},
};
