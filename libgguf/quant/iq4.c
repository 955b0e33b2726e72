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
#include "quant.h"

#include <math.h>

#define NL_QK 32
#define NL_BYTES 18
#define XS_QK 256
#define XS_BYTES 136
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

/* Scale of one 32-element sub-block and its level indices L[32] (left untouched, and 0
 * returned, when the sub-block is all (near) zero). */
static float sub_block_scale(const float *xb, const float *qw, float sigma2, uint8_t *L) {
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
    for (int itry = -NTRY; itry <= NTRY; itry++) {
        id = (float)(itry + v[0]) / max;
        sumqx = sumq2 = 0;
        for (int j = 0; j < SUB; j++) {
            float q = v[nearest_level(v, id * xb[j])];
            float w = weight[j];
            sumqx += w * q * xb[j];
            sumq2 += w * q * q;
        }
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
            d = sumqx / sumq2;
            best = d * sumqx;
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

static void quant_iq4_nl(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                         const float *imatrix) {
    const int8_t *v = gguf__iq4nl_values;
    uint8_t *b = dst;
    uint8_t L[NL_QK];
    for (int64_t row = 0; row < nrows; row++) {
        for (int64_t ibl = 0; ibl < n_per_row / NL_QK; ibl++, b += NL_BYTES, src += NL_QK) {
            const float *qw = imatrix ? imatrix + NL_QK * ibl : NULL;
            float d = sub_block_scale(src, qw, twice_mean_square(src, NL_QK), L);
            gguf__st16(b, gguf__float_to_half(d));
            float id = d != 0.0f ? 1 / d : 0;
            for (int j = 0; j < NL_QK; j++)
                L[j] = (uint8_t)nearest_level(v, id * src[j]);
            pack_nibbles(b + 2, L, NL_QK);
        }
    }
}

static void quant_iq4_xs(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                         const float *imatrix) {
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
                                          L + SUB * ib);
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

const gguf__quant_kernels gguf__kernels_iq4_nl = {
    .dequant = dequant_iq4_nl,
    .quant = quant_iq4_nl,
};
const gguf__quant_kernels gguf__kernels_iq4_xs = {
    .dequant = dequant_iq4_xs,
    .quant = quant_iq4_xs,
};
