/* Q1_0 and Q2_0: one f16 scale per block and 1 or 2 bits per element.
 *
 *   Q1_0, 128 elements, 18 bytes   | d:f16 | qs[16] |
 *       bit j = qs[j/8] >> (j%8) & 1          (element j, j = 0..127)
 *       x[j] = bit j ? d : -d
 *
 *   Q2_0, 64 elements, 18 bytes    | d:f16 | qs[16] |
 *       q_j = qs[j/4] >> 2(j%4) & 3           (element j, j = 0..63)
 *       x[j] = (q_j - 1) * d                  q: 0 -> -d, 1 -> 0, 2 -> d, 3 -> 2d
 *
 * d is little-endian. Quantizing (ggml's reference functions; the imatrix is ignored):
 *   Q1_0: d = mean of |x| over the block; bit j = (x[j] >= 0).
 *   Q2_0: d = max |x|; q_j = round(x[j] / d) + 1 clamped to 0..3 (round half away from 0).
 */
#include "format/dtypes.h"
#include "quant.h"

#include <math.h>

#define Q1_0_QK GGUF__BLOCK_ELEMS(Q1_0)
#define Q1_0_BYTES GGUF__BLOCK_BYTES(Q1_0)
#define Q2_0_QK GGUF__BLOCK_ELEMS(Q2_0)
#define Q2_0_BYTES GGUF__BLOCK_BYTES(Q2_0)

/* ------------------------------------------------------------------------------------------ */
/* Q1_0                                                                                        */

static void dequant_q1_0(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / Q1_0_QK; i++, b += Q1_0_BYTES) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const float neg_d = -d;
        for (int j = 0; j < Q1_0_QK; j++)
            *dst++ = (b[2 + j / 8] >> (j % 8)) & 1 ? d : neg_d;
    }
}

static void quant_q1_0(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / Q1_0_QK);
    for (int64_t i = 0; i < nblocks; i++, b += Q1_0_BYTES, src += Q1_0_QK) {
        float sum_abs = 0.0f;
        for (int j = 0; j < Q1_0_QK; j++)
            sum_abs += fabsf(src[j]);
        gguf__st16(b, gguf__float_to_half(sum_abs / Q1_0_QK));
        uint8_t *qs = b + 2;
        memset(qs, 0, Q1_0_QK / 8);
        for (int j = 0; j < Q1_0_QK; j++)
            if (src[j] >= 0.0f)
                qs[j / 8] |= (uint8_t)(1u << (j % 8));
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q2_0                                                                                        */

static void dequant_q2_0(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / Q2_0_QK; i++, b += Q2_0_BYTES) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        for (int j = 0; j < Q2_0_QK; j++) {
            int q = (b[2 + j / 4] >> (2 * (j % 4))) & 3;
            *dst++ = (float)(q - 1) * d;
        }
    }
}

static void quant_q2_0(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / Q2_0_QK);
    for (int64_t i = 0; i < nblocks; i++, b += Q2_0_BYTES, src += Q2_0_QK) {
        float amax = 0.0f;
        for (int j = 0; j < Q2_0_QK; j++) {
            const float a = fabsf(src[j]);
            if (a > amax)
                amax = a;
        }
        const float d = amax;
        const float id = d > 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b, gguf__float_to_half(d));
        uint8_t *qs = b + 2;
        memset(qs, 0, Q2_0_QK / 4);
        for (int j = 0; j < Q2_0_QK; j++) {
            /* (int)roundf(...) as x86 converts it: NaN gives INT32_MIN, clamped to 0 */
            int32_t r = gguf__trunc_i32(roundf(src[j] * id));
            int q = r < -1 ? 0 : r > 2 ? 3 : (int)r + 1;
            qs[j / 4] |= (uint8_t)(q << (2 * (j % 4)));
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* AVX2                                                                                        */
/*                                                                                             */
/* Dequantizing selects d or -d (Q1_0) or multiplies (float)(q - 1) by d (Q2_0), eight        */
/* elements per register. Quantizing: Q1_0's mean of |x| is one chain of additions per block  */
/* in element order, so eight blocks run side by side (lane = block, the same additions in    */
/* the same order); its sign bits are compare masks. Q2_0's roundf is trunc(v) plus an exact  */
/* half test, and the conversion's INT32_MIN for NaN and overflow is cvttps's own.            */
#if GGUF__X86
#include "simd_x86.h"

GGUF__TARGET_AVX2 static void dequant_q1_0_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    for (int64_t i = 0; i < n / Q1_0_QK; i++, b += Q1_0_BYTES) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const float neg_d = -d;
        const __m256 vd = _mm256_set1_ps(d), vn = _mm256_set1_ps(neg_d);
        for (int k = 0; k < Q1_0_QK / 8; k++, dst += 8) {
            __m256i bits = _mm256_and_si256(_mm256_set1_epi32(b[2 + k]), sel);
            __m256 set = _mm256_castsi256_ps(_mm256_cmpeq_epi32(bits, sel));
            st8_avx2(dst, _mm256_blendv_ps(vn, vd, set));
        }
    }
}

GGUF__TARGET_AVX2 static void quant_q1_0_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / Q1_0_QK);
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256i stride = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int64_t i = 0;
    for (; i + 8 <= nblocks; i += 8) {
        const float *x = src + i * Q1_0_QK;
        const __m256i idx = _mm256_mullo_epi32(stride, _mm256_set1_epi32(Q1_0_QK));
        __m256 sum = _mm256_setzero_ps();
        for (int j = 0; j < Q1_0_QK; j++)
            sum = _mm256_add_ps(sum, _mm256_and_ps(_mm256_i32gather_ps(x + j, idx, 4), abs_mask));
        float sums[8];
        _mm256_storeu_ps(sums, sum);
        for (int k = 0; k < 8; k++) {
            uint8_t *bk = b + (i + k) * Q1_0_BYTES;
            const float *xk = x + k * Q1_0_QK;
            gguf__st16(bk, gguf__float_to_half(sums[k] / Q1_0_QK));
            for (int m = 0; m < Q1_0_QK / 8; m++) {
                __m256 ge = _mm256_cmp_ps(_mm256_loadu_ps(xk + 8 * m), _mm256_setzero_ps(),
                                          _CMP_GE_OQ);
                bk[2 + m] = (uint8_t)_mm256_movemask_ps(ge);
            }
        }
    }
    if (i < nblocks)
        quant_q1_0(b + i * Q1_0_BYTES, src + i * Q1_0_QK, nblocks - i, Q1_0_QK, imatrix);
}

GGUF__TARGET_AVX2 static void dequant_q2_0_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i three = _mm256_set1_epi32(3), one = _mm256_set1_epi32(1);
    for (int64_t i = 0; i < n / Q2_0_QK; i++, b += Q2_0_BYTES) {
        const __m256 d = _mm256_set1_ps(gguf__half_to_float(gguf__ld16(b)));
        for (int k = 0; k < Q2_0_QK / 8; k++, dst += 8) {
            __m256i q = _mm256_srlv_epi32(_mm256_set1_epi32(gguf__ld16(b + 2 + 2 * k)), shifts);
            q = _mm256_sub_epi32(_mm256_and_si256(q, three), one);
            st8_avx2(dst, _mm256_mul_ps(_mm256_cvtepi32_ps(q), d));
        }
    }
}

GGUF__TARGET_AVX2 static void quant_q2_0_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / Q2_0_QK);
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 half = _mm256_set1_ps(0.5f);
    for (int64_t i = 0; i < nblocks; i++, b += Q2_0_BYTES, src += Q2_0_QK) {
        /* a > amax never takes a NaN; maxps(a, m) keeps m when a is NaN */
        __m256 m = _mm256_setzero_ps();
        for (int j = 0; j < Q2_0_QK; j += 8)
            m = _mm256_max_ps(_mm256_and_ps(_mm256_loadu_ps(src + j), abs_mask), m);
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
        const float d = _mm_cvtss_f32(h);
        const float id = d > 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b, gguf__float_to_half(d));
        const __m256 vid = _mm256_set1_ps(id);
        uint32_t words[Q2_0_QK / 8];
        for (int k = 0; k < Q2_0_QK / 8; k++) {
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(src + 8 * k), vid);
            __m256 tr = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            __m256 away = _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(v, tr), abs_mask), half,
                                        _CMP_GE_OQ);
            __m256i r = _mm256_cvttps_epi32(tr);
            __m256i step = _mm256_or_si256(_mm256_srai_epi32(_mm256_castps_si256(v), 31),
                                           _mm256_set1_epi32(1));
            r = _mm256_add_epi32(r, _mm256_and_si256(step, _mm256_castps_si256(away)));
            __m256i q = _mm256_add_epi32(
                _mm256_max_epi32(_mm256_min_epi32(r, _mm256_set1_epi32(2)), _mm256_set1_epi32(-1)),
                _mm256_set1_epi32(1));
            q = _mm256_sllv_epi32(q, _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
            __m128i o = _mm_or_si128(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
            o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0x4E));
            o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0xB1));
            words[k] = (uint32_t)_mm_cvtsi128_si32(o);
        }
        for (int k = 0; k < Q2_0_QK / 8; k++)
            gguf__st16(b + 2 + 2 * k, (uint16_t)words[k]);
    }
}

#define LOWBIT_SIMD(level, fn) [level] = fn
#else
#define LOWBIT_SIMD(level, fn) [level] = NULL
#endif /* GGUF__X86 */

const gguf__quant_kernels gguf__kernels_q1_0 = {
    .dequant = dequant_q1_0,
    .quant = quant_q1_0,
    .dequant_simd = {LOWBIT_SIMD(GGUF__SIMD_AVX2, dequant_q1_0_avx2)},
    .quant_simd = {LOWBIT_SIMD(GGUF__SIMD_AVX2, quant_q1_0_avx2)},
};
const gguf__quant_kernels gguf__kernels_q2_0 = {
    .dequant = dequant_q2_0,
    .quant = quant_q2_0,
    .dequant_simd = {LOWBIT_SIMD(GGUF__SIMD_AVX2, dequant_q2_0_avx2)},
    .quant_simd = {LOWBIT_SIMD(GGUF__SIMD_AVX2, quant_q2_0_avx2)},
};
