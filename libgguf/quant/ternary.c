/* The ternary types (BitNet b1.58, TriLM): elements -d, 0 or +d, 256 per block.
 *
 *   TQ1_0, 54 bytes   | qs[48] | qh[4] | d:f16 |        5 trits per qs byte, 4 per qh byte
 *   TQ2_0, 66 bytes   | qs[64] | d:f16 |                4 two-bit fields per byte
 *
 *   x = (t - 1) * d      t in {0, 1, 2}, d little-endian
 *
 * TQ1_0 packs trits t0..t4 (t0 most significant) as the fraction
 *     byte = ceil((t0 t1 t2 t3 t4)_3 * 256 / 243)
 * so that trit n is recovered as ((uint8_t)(byte * 3^n) * 3) >> 8. qh bytes hold 4 trits
 * (t0..t3, then a 0 trit). Element order within the block:
 *     qs[0..31]:  trit n of byte m is element 32n + m        (n = 0..4: elements 0..159)
 *     qs[32..47]: trit n of byte 32+m is element 160 + 16n + m   (elements 160..239)
 *     qh[0..3]:   trit n of byte j is element 240 + 4n + j   (elements 240..255)
 * TQ2_0: field l (bits 2l, 2l+1) of byte 32h + m is element 128h + 32l + m.
 *
 * Quantizing (ggml's reference; the imatrix is ignored): d = max |x| over the block,
 * t = lroundf(x / d) + 1.
 */
#include "format/dtypes.h"
#include "quant.h"

#include <math.h>

#define QK GGUF__BLOCK_ELEMS(TQ1_0)
_Static_assert(GGUF__BLOCK_ELEMS(TQ2_0) == QK, "one super-block size");
#define TQ1_QS 48
#define TQ1_QH 4
#define TQ2_QS 64

/* Trit n (0 = most significant) of a TQ1_0 byte, minus one. */
static inline int tq1_trit(uint8_t byte, int n) {
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    uint8_t q = (uint8_t)(byte * pow3[n]);
    return ((q * 3) >> 8) - 1;
}

/* Block maximum of |x| the way ggml's MAX macro takes it (a NaN replaces the running value). */
static float block_amax(const float *x) {
    float amax = 0.0f;
    for (int j = 0; j < QK; j++) {
        float a = fabsf(x[j]);
        amax = amax > a ? amax : a;
    }
    return amax;
}

/* x / d rounded to -1, 0, 1, plus one (ggml writes lroundf(x * id) + 1 into an int). */
static inline int ternary(float x, float id) {
    return (int)(lroundf(x * id) + 1);
}

/* ------------------------------------------------------------------------------------------ */
/* TQ1_0                                                                                       */

static void dequant_tq1_0(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(TQ1_0)) {
        const float d = gguf__half_to_float(gguf__ld16(b + TQ1_QS + TQ1_QH));
        for (int t = 0; t < 5; t++)
            for (int m = 0; m < 32; m++)
                *dst++ = (float)tq1_trit(b[m], t) * d;
        for (int t = 0; t < 5; t++)
            for (int m = 0; m < 16; m++)
                *dst++ = (float)tq1_trit(b[32 + m], t) * d;
        for (int t = 0; t < 4; t++)
            for (int j = 0; j < TQ1_QH; j++)
                *dst++ = (float)tq1_trit(b[TQ1_QS + j], t) * d;
    }
}

/* Packs trits (most significant first) into a byte as ceil(value * 256 / 243); ggml forms the
 * value in a uint8_t, so it wraps the same way for out-of-range "trits". */
static inline uint8_t tq1_pack(uint8_t value) {
    return (uint8_t)((value * 256 + 242) / 243);
}

static void quant_tq1_0(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                        const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / QK);
    for (int64_t i = 0; i < nblocks; i++, b += GGUF__BLOCK_BYTES(TQ1_0), src += QK) {
        const float d = block_amax(src);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b + TQ1_QS + TQ1_QH, gguf__float_to_half(d));
        const float *x = src;
        for (int m = 0; m < 32; m++) {
            uint8_t q = 0;
            for (int t = 0; t < 5; t++)
                q = (uint8_t)(q * 3 + ternary(x[m + 32 * t], id));
            b[m] = tq1_pack(q);
        }
        x += 160;
        for (int m = 0; m < 16; m++) {
            uint8_t q = 0;
            for (int t = 0; t < 5; t++)
                q = (uint8_t)(q * 3 + ternary(x[m + 16 * t], id));
            b[32 + m] = tq1_pack(q);
        }
        x += 80;
        for (int j = 0; j < TQ1_QH; j++) {
            uint8_t q = 0;
            for (int t = 0; t < 4; t++)
                q = (uint8_t)(q * 3 + ternary(x[j + TQ1_QH * t], id));
            q = (uint8_t)(q * 3); /* the fifth trit is 0 */
            b[TQ1_QS + j] = tq1_pack(q);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* TQ2_0                                                                                       */

static void dequant_tq2_0(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(TQ2_0)) {
        const float d = gguf__half_to_float(gguf__ld16(b + TQ2_QS));
        for (int h = 0; h < TQ2_QS; h += 32)
            for (int l = 0; l < 4; l++)
                for (int m = 0; m < 32; m++)
                    *dst++ = (float)(((b[h + m] >> (2 * l)) & 3) - 1) * d;
    }
}

static void quant_tq2_0(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                        const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / QK);
    for (int64_t i = 0; i < nblocks; i++, b += GGUF__BLOCK_BYTES(TQ2_0), src += QK) {
        const float d = block_amax(src);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b + TQ2_QS, gguf__float_to_half(d));
        for (int h = 0; h < TQ2_QS; h += 32) {
            const float *x = src + 4 * h;
            for (int m = 0; m < 32; m++) {
                uint8_t q = 0;
                for (int l = 0; l < 4; l++)
                    q = (uint8_t)(q + ((ternary(x[m + 32 * l], id) & 3) << (2 * l)));
                b[h + m] = q;
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* AVX2 dequantization: the trits of 16 bytes at a time as signed bytes t - 1, then
 * (float)(t - 1) * d as the scalar code computes it. */
#if GGUF__X86
#include "simd_x86.h"

/* Trit n of each of 16 bytes, minus one, as signed bytes: ((uint8_t)(byte 3^n) * 3) >> 8. */
static inline GGUF__TARGET_AVX2 __m128i tq1_trits_avx2(__m128i bytes, int pow3) {
    __m256i v = _mm256_cvtepu8_epi16(bytes);
    v = _mm256_and_si256(_mm256_mullo_epi16(v, _mm256_set1_epi16((short)pow3)),
                         _mm256_set1_epi16(0xFF));
    v = _mm256_srli_epi16(_mm256_mullo_epi16(v, _mm256_set1_epi16(3)), 8);
    v = _mm256_sub_epi16(v, _mm256_set1_epi16(1));
    return _mm_packs_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

GGUF__TARGET_AVX2 static void dequant_tq1_0_avx2(float *dst, const void *src, int64_t n) {
    static const int pow3[5] = {1, 3, 9, 27, 81};
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(TQ1_0)) {
        const __m256 d = _mm256_set1_ps(gguf__half_to_float(gguf__ld16(b + TQ1_QS + TQ1_QH)));
        const __m128i q0 = _mm_loadu_si128((const __m128i *)(const void *)b);
        const __m128i q1 = _mm_loadu_si128((const __m128i *)(const void *)(b + 16));
        const __m128i q2 = _mm_loadu_si128((const __m128i *)(const void *)(b + 32));
        for (int t = 0; t < 5; t++, dst += 32) {
            i8x16_mul_avx2(dst, tq1_trits_avx2(q0, pow3[t]), d);
            i8x16_mul_avx2(dst + 16, tq1_trits_avx2(q1, pow3[t]), d);
        }
        for (int t = 0; t < 5; t++, dst += 16)
            i8x16_mul_avx2(dst, tq1_trits_avx2(q2, pow3[t]), d);
        /* qh: 4 bytes, 4 trits each: element 240 + 4t + j */
        int8_t tr[16];
        for (int t = 0; t < 4; t++)
            for (int j = 0; j < TQ1_QH; j++)
                tr[4 * t + j] = (int8_t)tq1_trit(b[TQ1_QS + j], t);
        i8x16_mul_avx2(dst, _mm_loadu_si128((const __m128i *)(const void *)tr), d);
        dst += 16;
    }
}

GGUF__TARGET_AVX2 static void dequant_tq2_0_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m128i three = _mm_set1_epi8(3), one = _mm_set1_epi8(1);
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(TQ2_0)) {
        const __m256 d = _mm256_set1_ps(gguf__half_to_float(gguf__ld16(b + TQ2_QS)));
        for (int h = 0; h < TQ2_QS; h += 32) {
            const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)(b + h));
            const __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(b + h + 16));
            for (int l = 0; l < 4; l++, dst += 32) {
                __m128i a = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(lo, 2 * l), three), one);
                __m128i c = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(hi, 2 * l), three), one);
                i8x16_mul_avx2(dst, a, d);
                i8x16_mul_avx2(dst + 16, c, d);
            }
        }
    }
}

/* ---- AVX2 quantization ----
 * lroundf is a library call per element in the scalar code; here x * id is rounded half away
 * from zero as trunc(v) + sign(v) when |v - trunc(v)| >= 0.5 (v - trunc(v) is exact), which is
 * lroundf for every finite |v| < 2^31. Blocks holding Inf or NaN, or whose 1/d overflows,
 * go to the scalar code. */
GGUF__NOINLINE static void quant_tq1_0_scalar_block(uint8_t *b, const float *x) {
    quant_tq1_0(b, x, 1, QK, NULL);
}
GGUF__NOINLINE static void quant_tq2_0_scalar_block(uint8_t *b, const float *x) {
    quant_tq2_0(b, x, 1, QK, NULL);
}

/* The block's d (block_amax) when the block and its 1/d are finite, else -1. */
static inline GGUF__TARGET_AVX2 float tq_amax_avx2(const float *x) {
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 inf = _mm256_set1_ps(INFINITY);
    __m256 m = _mm256_setzero_ps(), special = _mm256_setzero_ps();
    for (int j = 0; j < QK; j += 8) {
        __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + j), abs_mask);
        special = _mm256_or_ps(special, _mm256_cmp_ps(a, inf, _CMP_NLT_UQ)); /* Inf, NaN */
        m = _mm256_max_ps(m, a);
    }
    if (_mm256_movemask_ps(special))
        return -1;
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    const float amax = _mm_cvtss_f32(h);
    return amax != 0.0f && !isfinite(1.0f / amax) ? -1 : amax;
}

/* t[j] = lroundf(x[j] * id) + 1 for the 256 elements of a finite block. */
static inline GGUF__TARGET_AVX2 void tq_trits_avx2(int8_t *t, const float *x, float id) {
    const __m256 vid = _mm256_set1_ps(id), half = _mm256_set1_ps(0.5f);
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    for (int j = 0; j < QK; j += 32) {
        __m256i r[4];
        for (int k = 0; k < 4; k++) {
            __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + j + 8 * k), vid);
            __m256 tr = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            __m256 away = _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(v, tr), abs_mask), half,
                                        _CMP_GE_OQ);
            __m256i ti = _mm256_cvttps_epi32(tr);
            /* +1 or -1 by the sign of v where rounding goes away from zero */
            __m256i step = _mm256_or_si256(_mm256_srai_epi32(_mm256_castps_si256(v), 31),
                                           _mm256_set1_epi32(1));
            ti = _mm256_add_epi32(ti, _mm256_and_si256(step, _mm256_castps_si256(away)));
            r[k] = _mm256_add_epi32(ti, _mm256_set1_epi32(1));
        }
        __m256i w0 = _mm256_packs_epi32(r[0], r[1]), w1 = _mm256_packs_epi32(r[2], r[3]);
        __m256i bytes = _mm256_packs_epi16(w0, w1);
        /* undo the lane interleaving of the packs: dwords 0,4,1,5,2,6,3,7 */
        bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *)(void *)(t + j), bytes);
    }
}

GGUF__TARGET_AVX2 static void quant_tq1_0_avx2(void *dst, const float *src, int64_t nrows,
                                               int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / QK);
    int8_t t[QK];
    for (int64_t i = 0; i < nblocks; i++, b += GGUF__BLOCK_BYTES(TQ1_0), src += QK) {
        const float d = tq_amax_avx2(src);
        if (d < 0) {
            quant_tq1_0_scalar_block(b, src);
            continue;
        }
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b + TQ1_QS + TQ1_QH, gguf__float_to_half(d));
        tq_trits_avx2(t, src, id);
        for (int m = 0; m < 32; m++) {
            uint8_t q = 0;
            for (int k = 0; k < 5; k++)
                q = (uint8_t)(q * 3 + t[m + 32 * k]);
            b[m] = tq1_pack(q);
        }
        for (int m = 0; m < 16; m++) {
            uint8_t q = 0;
            for (int k = 0; k < 5; k++)
                q = (uint8_t)(q * 3 + t[160 + m + 16 * k]);
            b[32 + m] = tq1_pack(q);
        }
        for (int j = 0; j < TQ1_QH; j++) {
            uint8_t q = 0;
            for (int k = 0; k < 4; k++)
                q = (uint8_t)(q * 3 + t[240 + j + TQ1_QH * k]);
            b[TQ1_QS + j] = tq1_pack((uint8_t)(q * 3));
        }
    }
}

GGUF__TARGET_AVX2 static void quant_tq2_0_avx2(void *dst, const float *src, int64_t nrows,
                                               int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / QK);
    int8_t t[QK];
    for (int64_t i = 0; i < nblocks; i++, b += GGUF__BLOCK_BYTES(TQ2_0), src += QK) {
        const float d = tq_amax_avx2(src);
        if (d < 0) {
            quant_tq2_0_scalar_block(b, src);
            continue;
        }
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b + TQ2_QS, gguf__float_to_half(d));
        tq_trits_avx2(t, src, id);
        const __m256i three = _mm256_set1_epi8(3);
        for (int h = 0; h < TQ2_QS; h += 32) {
            __m256i q = _mm256_setzero_si256();
            for (int l = 0; l < 4; l++) {
                __m256i v = _mm256_and_si256(
                    _mm256_loadu_si256((const __m256i *)(const void *)(t + 4 * h + 32 * l)), three);
                q = _mm256_or_si256(q, _mm256_and_si256(_mm256_slli_epi16(v, 2 * l),
                                                        _mm256_set1_epi8((char)(3 << (2 * l)))));
            }
            _mm256_storeu_si256((__m256i *)(void *)(b + h), q);
        }
    }
}

#define TQ_SIMD(level, fn) [level] = fn
#else
#define TQ_SIMD(level, fn) [level] = NULL
#endif /* GGUF__X86 */

const gguf__quant_kernels gguf__kernels_tq1_0 = {
    .dequant = dequant_tq1_0,
    .quant = quant_tq1_0,
    .dequant_simd = {TQ_SIMD(GGUF__SIMD_AVX2, dequant_tq1_0_avx2)},
    .quant_simd = {TQ_SIMD(GGUF__SIMD_AVX2, quant_tq1_0_avx2)},
};
const gguf__quant_kernels gguf__kernels_tq2_0 = {
    .dequant = dequant_tq2_0,
    .quant = quant_tq2_0,
    .dequant_simd = {TQ_SIMD(GGUF__SIMD_AVX2, dequant_tq2_0_avx2)},
    .quant_simd = {TQ_SIMD(GGUF__SIMD_AVX2, quant_tq2_0_avx2)},
};
