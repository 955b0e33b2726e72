/* Small x86 SIMD helpers shared by the kernel files (private to libgguf/quant/).
 *
 * Everything here is static inline with a target attribute, so that files compile without
 * -m flags; callers carry the same (or a wider) target attribute. Include only under
 * #if GGUF__X86.
 */
#ifndef LIBGGUF_QUANT_SIMD_X86_H
#define LIBGGUF_QUANT_SIMD_X86_H

#include "quant.h"

#include <immintrin.h>

/* ---- SSE4.1 ---- */

static inline GGUF__TARGET_SSE41 __m128i ld128(const void *p) {
    return _mm_loadu_si128((const __m128i *)p);
}

/* The 16 signed bytes of q as floats, times d, stored at y[0..15]. */
static inline GGUF__TARGET_SSE41 void i8x16_mul_sse41(float *y, __m128i q, __m128 d) {
    for (int k = 0; k < 4; k++) {
        __m128 f = _mm_cvtepi32_ps(_mm_cvtepi8_epi32(q));
        _mm_storeu_ps(y + 4 * k, _mm_mul_ps(f, d));
        q = _mm_srli_si128(q, 4);
    }
}

/* ---- AVX2 ---- */

static inline GGUF__TARGET_AVX2 __m256i ld256(const void *p) {
    return _mm256_loadu_si256((const __m256i *)p);
}

/* Stores 8 floats 16 bytes at a time. Output buffers from malloc are usually 16- but not
 * 32- or 64-byte aligned, and then every wider store straddles two cache lines (costing
 * about two stores); two 16-byte stores never do, and cost no more when the buffer is
 * aligned. The dequantizers' output is written through these. */
static inline GGUF__TARGET_AVX2 void st8_avx2(float *y, __m256 v) {
    _mm_storeu_ps(y, _mm256_castps256_ps128(v));
    _mm_storeu_ps(y + 4, _mm256_extractf128_ps(v, 1));
}

/* 16 signed bytes as floats times d into y[0..15]. */
static inline GGUF__TARGET_AVX2 void i8x16_mul_avx2(float *y, __m128i q, __m256 d) {
    __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q));
    __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8)));
    st8_avx2(y, _mm256_mul_ps(lo, d));
    st8_avx2(y + 8, _mm256_mul_ps(hi, d));
}

/* 16 signed bytes q: y = q * d + m (the product rounded first), into y[0..15]. */
static inline GGUF__TARGET_AVX2 void i8x16_muladd_avx2(float *y, __m128i q, __m256 d, __m256 m) {
    __m256 lo = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)), d);
    __m256 hi = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8))), d);
    GGUF__ROUNDED(lo);
    GGUF__ROUNDED(hi);
    st8_avx2(y, _mm256_add_ps(lo, m));
    st8_avx2(y + 8, _mm256_add_ps(hi, m));
}

/* 16 signed bytes q: y = d * q - m (the product rounded first), into y[0..15]. */
static inline GGUF__TARGET_AVX2 void i8x16_mulsub_avx2(float *y, __m128i q, __m256 d, __m256 m) {
    __m256 lo = _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)));
    __m256 hi = _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8))));
    GGUF__ROUNDED(lo);
    GGUF__ROUNDED(hi);
    st8_avx2(y, _mm256_sub_ps(lo, m));
    st8_avx2(y + 8, _mm256_sub_ps(hi, m));
}

/* Byte j of the result is 0xFF when bit j of the 32-bit mask is set. */
static inline GGUF__TARGET_AVX2 __m256i bits_to_bytes_avx2(uint32_t bits) {
    const __m256i shuf = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
                                          2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i sel = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)bits), shuf);
    return _mm256_cmpeq_epi8(_mm256_and_si256(v, sel), sel);
}

/* ---- AVX-512 ---- */

/* Stores 16 floats (one 64-byte store: measured faster here than 16-byte pieces, unlike
 * the AVX2 case). */
static inline GGUF__TARGET_AVX512 void st16_avx512(float *y, __m512 v) {
    _mm512_storeu_ps(y, v);
}

/* 16 signed bytes as floats times d into y[0..15]. */
static inline GGUF__TARGET_AVX512 void i8x16_mul_avx512(float *y, __m128i q, __m512 d) {
    st16_avx512(y, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)), d));
}

static inline GGUF__TARGET_AVX512 void i8x16_muladd_avx512(float *y, __m128i q, __m512 d,
                                                           __m512 m) {
    __m512 p = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)), d);
    GGUF__ROUNDED512(p);
    st16_avx512(y, _mm512_add_ps(p, m));
}

static inline GGUF__TARGET_AVX512 void i8x16_mulsub_avx512(float *y, __m128i q, __m512 d,
                                                           __m512 m) {
    __m512 p = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)));
    GGUF__ROUNDED512(p);
    st16_avx512(y, _mm512_sub_ps(p, m));
}

#endif /* LIBGGUF_QUANT_SIMD_X86_H */
