/* IQ4_NL and IQ4_XS: 4-bit indices into 16 non-uniform levels v[] (gguf__iq4nl_values:
 * -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113).
 *
 *   IQ4_NL, 32 elements, 18 bytes    | d:f16 | qs[16] |
 *       x[j]    = d * v[qs[j] & 15]          j = 0..15
 *       x[j+16] = d * v[qs[j] >> 4]
 *
 *   IQ4_XS, 256 elements, 136 bytes  | d:f16 | sh:u16 | sl[4] | qs[128] |    8 sub-blocks of 32
 *       ls_b = (sl[b/2] >> 4(b%2) & 15) | (sh >> 2b & 3) << 4       6-bit scale of sub-block b
 *       x[32b + j]      = d * (ls_b - 32) * v[qs[16b + j] & 15]      j = 0..15
 *       x[32b + 16 + j] = d * (ls_b - 32) * v[qs[16b + j] >> 4]
 *
 * Multi-byte fields little-endian. Quantizing follows ggml_quantize_chunk (ggml's
 * quantize_row_iq4_nl_impl with 7 extra tries): per 32 elements, weights w_j = imatrix_j *
 * sqrt(sigma2 + x_j^2) (sigma2 = twice the mean square of the (super-)block) or x_j^2 without
 * an imatrix; start from the scale that maps the largest |x| to v[0] and keep, of that and the
 * scales (t + v[0]) / max for t = -7..7, the one with the best weighted fit. IQ4_XS then
 * quantizes the 8 scales to 6 bits against d = -max_scale / 32 and re-picks the indices.
 */
#include "iq_tables.h"
#include "format/dtypes.h"
#include "quant.h"

#include <math.h>

#define NL_QK GGUF__BLOCK_ELEMS(IQ4_NL)
#define NL_BYTES GGUF__BLOCK_BYTES(IQ4_NL)
#define XS_QK GGUF__BLOCK_ELEMS(IQ4_XS)
#define XS_BYTES GGUF__BLOCK_BYTES(IQ4_XS)
#define SUB 32
#define NTRY 7

/* Index of the level nearest to x (the lower one on a tie), by bisection. */
static int nearest_level(const int8_t *v, float x) {
    if (x <= v[0])
        return 0;
    if (x >= v[15])
        return 15;
    int lo = 0, hi = 15;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (x < v[mid])
            hi = mid;
        else
            lo = mid;
    }
    return x - v[hi - 1] < v[hi] - x ? hi - 1 : hi;
}

/* ------------------------------------------------------------------------------------------ */
/* Dequantization                                                                              */

static void dequant_iq4_nl(float *dst, const void *src, int64_t n) {
    const int8_t *v = gguf__iq4nl_values;
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / NL_QK; i++, b += NL_BYTES, dst += NL_QK) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const uint8_t *qs = b + 2;
        for (int j = 0; j < 16; j++) {
            dst[j] = d * (float)v[qs[j] & 15];
            dst[j + 16] = d * (float)v[qs[j] >> 4];
        }
    }
}

static void dequant_iq4_xs(float *dst, const void *src, int64_t n) {
    const int8_t *v = gguf__iq4nl_values;
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / XS_QK; i++, b += XS_BYTES) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const unsigned sh = gguf__ld16(b + 2);
        const uint8_t *sl = b + 4;
        const uint8_t *qs = b + 8;
        for (int ib = 0; ib < XS_QK / SUB; ib++, qs += 16, dst += SUB) {
            int ls = (int)(((sl[ib / 2] >> (4 * (ib % 2))) & 15) | ((sh >> (2 * ib)) & 3) << 4);
            const float dl = d * (float)(ls - 32);
            for (int j = 0; j < 16; j++) {
                dst[j] = dl * (float)v[qs[j] & 15];
                dst[j + 16] = dl * (float)v[qs[j] >> 4];
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Quantization                                                                                */

/* The fits of the 2 NTRY + 1 trial scales of a sub-block: for try t (inverse scale id[t]),
 * sumqx[t] and sumq2[t] of the levels nearest to id[t] x[j], summed over j in order. */
typedef void (*tries_fn)(const float *id, const float *xb, const float *weight, float *sumqx,
                         float *sumq2);

static void fit_tries(const float *id, const float *xb, const float *weight, float *sumqx,
                      float *sumq2) {
    const int8_t *v = gguf__iq4nl_values;
    for (int t = 0; t < 2 * NTRY + 1; t++) {
        float qx = 0, q2 = 0;
        for (int j = 0; j < SUB; j++) {
            float q = v[nearest_level(v, id[t] * xb[j])];
            float w = weight[j];
            qx += w * q * xb[j];
            q2 += w * q * q;
        }
        sumqx[t] = qx;
        sumq2[t] = q2;
    }
}

/* Scale of one 32-element sub-block and its level indices L[32] (left untouched, and 0
 * returned, when the sub-block is all (near) zero). */
static float sub_block_scale(const float *xb, const float *qw, float sigma2, uint8_t *L,
                             tries_fn tries) {
    const int8_t *v = gguf__iq4nl_values;
    float weight[SUB];
    if (qw) {
        for (int j = 0; j < SUB; j++)
            weight[j] = qw[j] * sqrtf(sigma2 + xb[j] * xb[j]);
    } else {
        for (int j = 0; j < SUB; j++)
            weight[j] = xb[j] * xb[j];
    }
    float amax = 0, max = 0;
    for (int j = 0; j < SUB; j++) {
        float ax = fabsf(xb[j]);
        if (ax > amax) {
            amax = ax;
            max = xb[j];
        }
    }
    if (amax < GGUF__GROUP_MAX_EPS)
        return 0;

    float d = -max / (float)v[0];
    float id = 1 / d;
    float sumqx = 0, sumq2 = 0;
    for (int j = 0; j < SUB; j++) {
        int l = nearest_level(v, id * xb[j]);
        L[j] = (uint8_t)l;
        float q = v[l];
        float w = weight[j];
        sumqx += w * q * xb[j];
        sumq2 += w * q * q;
    }
    d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
    float best = d * sumqx;
    float ids[2 * NTRY + 1], tqx[2 * NTRY + 1], tq2[2 * NTRY + 1];
    for (int itry = -NTRY; itry <= NTRY; itry++)
        ids[itry + NTRY] = (float)(itry + v[0]) / max;
    tries(ids, xb, weight, tqx, tq2);
    for (int t = 0; t < 2 * NTRY + 1; t++) {
        if (tq2[t] > 0 && tqx[t] * tqx[t] > best * tq2[t]) {
            d = tqx[t] / tq2[t];
            best = d * tqx[t];
        }
    }
    return d;
}

/* Twice the mean square of n elements. */
static float twice_mean_square(const float *x, int n) {
    float sigma2 = 0;
    for (int j = 0; j < n; j++)
        sigma2 += x[j] * x[j];
    sigma2 *= 2.f / (float)n;
    return sigma2;
}

/* Packs 32 indices per 16 bytes: element j low nibble, element j + 16 high nibble. */
static void pack_nibbles(uint8_t *qs, const uint8_t *L, int n) {
    for (int i = 0; i < n / 32; i++)
        for (int j = 0; j < 16; j++)
            qs[16 * i + j] = (uint8_t)(L[32 * i + j] | L[32 * i + 16 + j] << 4);
}

static void quant_iq4_nl_with(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                              const float *imatrix, tries_fn tries) {
    const int8_t *v = gguf__iq4nl_values;
    uint8_t *b = dst;
    uint8_t L[NL_QK];
    for (int64_t row = 0; row < nrows; row++) {
        for (int64_t ibl = 0; ibl < n_per_row / NL_QK; ibl++, b += NL_BYTES, src += NL_QK) {
            const float *qw = imatrix ? imatrix + NL_QK * ibl : NULL;
            float d = sub_block_scale(src, qw, twice_mean_square(src, NL_QK), L, tries);
            gguf__st16(b, gguf__float_to_half(d));
            float id = d != 0.0f ? 1 / d : 0;
            for (int j = 0; j < NL_QK; j++)
                L[j] = (uint8_t)nearest_level(v, id * src[j]);
            pack_nibbles(b + 2, L, NL_QK);
        }
    }
}

static void quant_iq4_xs_with(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                              const float *imatrix, tries_fn tries) {
    const int8_t *v = gguf__iq4nl_values;
    uint8_t *b = dst;
    uint8_t L[XS_QK];
    float scales[XS_QK / SUB];
    for (int64_t row = 0; row < nrows; row++) {
        for (int64_t ibl = 0; ibl < n_per_row / XS_QK; ibl++, b += XS_BYTES, src += XS_QK) {
            const float *qw = imatrix ? imatrix + XS_QK * ibl : NULL;
            const float sigma2 = twice_mean_square(src, XS_QK);
            float max_scale = 0, amax_scale = 0;
            for (int ib = 0; ib < XS_QK / SUB; ib++) {
                float d = sub_block_scale(src + SUB * ib, qw ? qw + SUB * ib : NULL, sigma2,
                                          L + SUB * ib, tries);
                scales[ib] = d;
                if (fabsf(d) > amax_scale) {
                    amax_scale = fabsf(d);
                    max_scale = d;
                }
            }
            const float d = -max_scale / 32;
            gguf__st16(b, gguf__float_to_half(d));
            const float id = d != 0.0f ? 1 / d : 0.f;
            unsigned sh = 0;
            uint8_t *sl = b + 4;
            for (int ib = 0; ib < XS_QK / SUB; ib++) {
                int l = gguf__nearest_int(id * scales[ib]);
                l = l < -32 ? -32 : l > 31 ? 31 : l;
                const float dl = d * (float)l;
                const float idl = dl != 0.0f ? 1 / dl : 0.f;
                for (int j = 0; j < SUB; j++)
                    L[SUB * ib + j] = (uint8_t)nearest_level(v, idl * src[SUB * ib + j]);
                l += 32;
                if (ib % 2 == 0)
                    sl[ib / 2] = (uint8_t)(l & 15);
                else
                    sl[ib / 2] |= (uint8_t)((l & 15) << 4);
                sh |= (unsigned)(l >> 4) << (2 * ib);
            }
            gguf__st16(b + 2, (uint16_t)sh);
            pack_nibbles(b + 8, L, XS_QK);
        }
    }
}

static void quant_iq4_nl(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                         const float *imatrix) {
    quant_iq4_nl_with(dst, src, nrows, n_per_row, imatrix, fit_tries);
}

static void quant_iq4_xs(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                         const float *imatrix) {
    quant_iq4_xs_with(dst, src, nrows, n_per_row, imatrix, fit_tries);
}

/* ------------------------------------------------------------------------------------------ */
/* AVX2: the trial scales side by side, one per lane (15 tries in two registers), each lane
 * running fit_tries' loop over j in order with the same operations. nearest_level per lane:
 * below v[0] (or equal) 0, above v[15] (or equal, or NaN) 15, else lo = the count of v[1..15]
 * <= y is the bisection's hi - 1, and the same comparison of distances picks lo or lo + 1. */
#if GGUF__X86
#include "simd_x86.h"

/* v[idx] for idx in 0..15, from the levels held in two registers. */
static inline GGUF__TARGET_AVX2 __m256 level_value_avx2(__m256 v_lo, __m256 v_hi, __m256i idx) {
    __m256 a = _mm256_permutevar8x32_ps(v_lo, idx), b = _mm256_permutevar8x32_ps(v_hi, idx);
    return _mm256_blendv_ps(a, b, _mm256_castsi256_ps(_mm256_slli_epi32(idx, 28)));
}

static inline GGUF__TARGET_AVX2 __m256i nearest_level_avx2(const __m256 *vk, __m256 v_lo,
                                                         __m256 v_hi, __m256 y) {
    __m256i lo = _mm256_setzero_si256();
    for (int k = 1; k < 16; k++)
        lo = _mm256_sub_epi32(lo, _mm256_castps_si256(_mm256_cmp_ps(vk[k], y, _CMP_LE_OQ)));
    __m256i hi = _mm256_add_epi32(lo, _mm256_set1_epi32(1));
    hi = _mm256_min_epi32(hi, _mm256_set1_epi32(15));
    __m256 below = _mm256_sub_ps(y, level_value_avx2(v_lo, v_hi, lo));
    __m256 above = _mm256_sub_ps(level_value_avx2(v_lo, v_hi, hi), y);
    __m256i pick = _mm256_blendv_epi8(hi, lo, _mm256_castps_si256(_mm256_cmp_ps(below, above,
                                                                                 _CMP_LT_OQ)));
    __m256i at_low = _mm256_castps_si256(_mm256_cmp_ps(y, vk[0], _CMP_LE_OQ));
    __m256i at_top = _mm256_castps_si256(_mm256_cmp_ps(y, vk[15], _CMP_NLT_UQ)); /* or NaN */
    pick = _mm256_andnot_si256(at_low, pick);
    return _mm256_blendv_epi8(pick, _mm256_set1_epi32(15), at_top);
}

GGUF__TARGET_AVX2 static void fit_tries_avx2(const float *id, const float *xb,
                                             const float *weight, float *sumqx, float *sumq2) {
    const int8_t *v = gguf__iq4nl_values;
    __m256 vk[16];
    for (int k = 0; k < 16; k++)
        vk[k] = _mm256_set1_ps((float)v[k]);
    const __m256 v_lo = _mm256_setr_ps(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    const __m256 v_hi = _mm256_setr_ps(v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]);
    float idp[16] = {0};
    memcpy(idp, id, (2 * NTRY + 1) * sizeof(float));
    for (int h = 0; h < 2; h++) {
        const __m256 vid = _mm256_loadu_ps(idp + 8 * h);
        __m256 qx = _mm256_setzero_ps(), q2 = _mm256_setzero_ps();
        for (int j = 0; j < SUB; j++) {
            const __m256 x = _mm256_set1_ps(xb[j]);
            const __m256 q = level_value_avx2(v_lo, v_hi,
                                              nearest_level_avx2(vk, v_lo, v_hi,
                                                                 _mm256_mul_ps(vid, x)));
            __m256 wq = _mm256_mul_ps(_mm256_set1_ps(weight[j]), q);
            GGUF__ROUNDED(wq);
            __m256 a = _mm256_mul_ps(wq, x), c = _mm256_mul_ps(wq, q);
            GGUF__ROUNDED(a);
            GGUF__ROUNDED(c);
            qx = _mm256_add_ps(qx, a);
            q2 = _mm256_add_ps(q2, c);
        }
        float tqx[8], tq2[8];
        _mm256_storeu_ps(tqx, qx);
        _mm256_storeu_ps(tq2, q2);
        for (int l = 0; l < 8 && 8 * h + l < 2 * NTRY + 1; l++) {
            sumqx[8 * h + l] = tqx[l];
            sumq2[8 * h + l] = tq2[l];
        }
    }
}

GGUF__TARGET_AVX2 static void quant_iq4_nl_avx2(void *dst, const float *src, int64_t nrows,
                                                int64_t n_per_row, const float *imatrix) {
    quant_iq4_nl_with(dst, src, nrows, n_per_row, imatrix, fit_tries_avx2);
}

GGUF__TARGET_AVX2 static void quant_iq4_xs_avx2(void *dst, const float *src, int64_t nrows,
                                                int64_t n_per_row, const float *imatrix) {
    quant_iq4_xs_with(dst, src, nrows, n_per_row, imatrix, fit_tries_avx2);
}

#define IQ4_SIMD(level, fn) [level] = fn
#else
#define IQ4_SIMD(level, fn) [level] = NULL
#endif /* GGUF__X86 */

const gguf__quant_kernels gguf__kernels_iq4_nl = {
    .dequant = dequant_iq4_nl,
    .quant = quant_iq4_nl,
    .quant_simd = {IQ4_SIMD(GGUF__SIMD_AVX2, quant_iq4_nl_avx2)},
};
const gguf__quant_kernels gguf__kernels_iq4_xs = {
    .dequant = dequant_iq4_xs,
    .quant = quant_iq4_xs,
    .quant_simd = {IQ4_SIMD(GGUF__SIMD_AVX2, quant_iq4_xs_avx2)},
};
