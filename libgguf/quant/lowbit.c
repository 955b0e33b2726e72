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
#include "quant.h"

#include <math.h>

#define Q1_0_QK 128
#define Q1_0_BYTES 18
#define Q2_0_QK 64
#define Q2_0_BYTES 18

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

const gguf__quant_kernels gguf__kernels_q1_0 = {
    .dequant = dequant_q1_0,
    .quant = quant_q1_0,
};
const gguf__quant_kernels gguf__kernels_q2_0 = {
    .dequant = dequant_q2_0,
    .quant = quant_q2_0,
};
