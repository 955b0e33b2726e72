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
#include "quant.h"

#include <math.h>

#define QK 256
#define TQ1_BYTES 54
#define TQ1_QS 48
#define TQ1_QH 4
#define TQ2_BYTES 66
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
    for (int64_t i = 0; i < n / QK; i++, b += TQ1_BYTES) {
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
    for (int64_t i = 0; i < nblocks; i++, b += TQ1_BYTES, src += QK) {
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
    for (int64_t i = 0; i < n / QK; i++, b += TQ2_BYTES) {
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
    for (int64_t i = 0; i < nblocks; i++, b += TQ2_BYTES, src += QK) {
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

const gguf__quant_kernels gguf__kernels_tq1_0 = {
    .dequant = dequant_tq1_0,
    .quant = quant_tq1_0,
};
const gguf__quant_kernels gguf__kernels_tq2_0 = {
    .dequant = dequant_tq2_0,
    .quant = quant_tq2_0,
};
