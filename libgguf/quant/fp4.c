/* The 4-bit float types: E2M1 elements with a shared power-of-two (MXFP4) or E4M3 (NVFP4) scale.
 *
 *   MXFP4, 32 elements, 17 bytes   | e:u8 (E8M0) | qs[16] |
 *       x[j]    = v[qs[j] & 15] * 2^(e - 128)            j = 0..15
 *       x[j+16] = v[qs[j] >> 4] * 2^(e - 128)
 *
 *   NVFP4, 64 elements, 36 bytes   | d[4]:u8 (UE4M3) | qs[32] |     4 sub-blocks of 16
 *       x[16s + j]     = v[qs[8s + j] & 15] * ue4m3(d[s]) / 2    j = 0..7
 *       x[16s + 8 + j] = v[qs[8s + j] >> 4] * ue4m3(d[s]) / 2
 *
 * v = twice the E2M1 values, so that they are integers: nibble s.ee.m (sign, 2-bit exponent,
 * mantissa) is 2 * (-1)^s * (e == 0 ? m/2 : (1 + m/2) * 2^(e-1)), i.e.
 *     0, 1, 2, 3, 4, 6, 8, 12, and the same negated for nibbles 8..15.
 * The scales carry the matching factor 1/2: 2^(e-128) is E8M0's 2^(e-127) halved.
 * UE4M3 byte 0eeeemmm: (e == 0 ? m * 2^-9 : (1 + m/8) * 2^(e-7)), with 0x7F (NaN) read as 0;
 * the top bit is ignored.
 *
 * Quantizing (ggml's reference; the imatrix is ignored): each element takes the nibble whose
 * value times the scale is nearest (first one on ties, so +0 over -0).
 *   MXFP4: e = floor(log2(max |x|)) - 2 + 127 (0 for an all-zero block), stored as the low byte
 *          of the int32 conversion, as ggml's cast does on x86.
 *   NVFP4: d = UE4M3 of (max |x| / 6), rounding the mantissa half up, clamped to 448.
 */
#include "iq_tables.h"
#include "quant.h"

#include <math.h>

#define MXFP4_QK 32
#define MXFP4_BYTES 17
#define NVFP4_QK 64
#define NVFP4_SUB 16
#define NVFP4_BYTES 36

/* Twice the E2M1 value of magnitude nibble m = ee.f (0..7): f for e = 0, else (2 + f) 2^(e-1). */
#define E2M1_X2(m) ((m) < 2 ? (m) : ((2 + ((m)&1)) << ((m) >> 1)) / 2)

const int8_t gguf__e2m1_values[16] = {
    E2M1_X2(0),  E2M1_X2(1),  E2M1_X2(2),  E2M1_X2(3),
    E2M1_X2(4),  E2M1_X2(5),  E2M1_X2(6),  E2M1_X2(7),
    -E2M1_X2(0), -E2M1_X2(1), -E2M1_X2(2), -E2M1_X2(3),
    -E2M1_X2(4), -E2M1_X2(5), -E2M1_X2(6), -E2M1_X2(7),
};

/* 2^(e - 128), exact for every byte (subnormal for e < 2). */
static inline float e8m0_half(uint8_t e) {
    return gguf__f32_from_bits(e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23);
}

/* Half the UE4M3 value of byte u. */
static inline float ue4m3_half(uint8_t u) {
    if (u == 0 || u == 0x7F)
        return 0.0f;
    int exp = (u >> 3) & 0xF;
    int man = u & 7;
    float raw = exp == 0 ? ldexpf((float)man, -9) : ldexpf(1.0f + (float)man / 8.0f, exp - 7);
    return raw * 0.5f;
}

/* The UE4M3 byte for x: nearest with ties rounded up, 0 for x <= 0 or NaN, at most 448. */
static uint8_t ue4m3_from_float(float x) {
    if (!(x > 0.0f))
        return 0;
    if (x > 448.0f)
        x = 448.0f;
    uint32_t bits = gguf__f32_bits(x);
    int exp = (int)((bits >> 23) & 0xFF) - 127 + 7;
    int man = (int)((bits >> 20) & 7);
    if (exp <= 0) { /* subnormal: m * 2^-9 */
        int m = (int)(x * 512.0f + 0.5f);
        if (m > 7)
            m = 7;
        return m < 1 ? 0 : (uint8_t)m;
    }
    if (exp >= 15)
        return 0x7E;
    man += (bits >> 19) & 1;
    if (man > 7) {
        man = 0;
        if (++exp >= 15)
            return 0x7E;
    }
    return (uint8_t)(exp << 3 | man);
}

/* The nibble whose value times scale is nearest to x (first on ties). */
static inline uint8_t nearest_e2m1(float x, float scale) {
    int best = 0;
    float best_err = fabsf((float)gguf__e2m1_values[0] * scale - x);
    for (int i = 1; i < 16; i++) {
        float err = fabsf((float)gguf__e2m1_values[i] * scale - x);
        if (err < best_err) {
            best = i;
            best_err = err;
        }
    }
    return (uint8_t)best;
}

static float abs_max(const float *x, int n) {
    float amax = 0.0f;
    for (int j = 0; j < n; j++)
        if (amax < fabsf(x[j]))
            amax = fabsf(x[j]);
    return amax;
}

/* ------------------------------------------------------------------------------------------ */
/* MXFP4                                                                                       */

static void dequant_mxfp4(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / MXFP4_QK; i++, b += MXFP4_BYTES, dst += MXFP4_QK) {
        const float d = e8m0_half(b[0]);
        for (int j = 0; j < MXFP4_QK / 2; j++) {
            dst[j] = (float)gguf__e2m1_values[b[1 + j] & 15] * d;
            dst[j + MXFP4_QK / 2] = (float)gguf__e2m1_values[b[1 + j] >> 4] * d;
        }
    }
}

static void quant_mxfp4(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                        const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / MXFP4_QK);
    for (int64_t i = 0; i < nblocks; i++, b += MXFP4_BYTES, src += MXFP4_QK) {
        const float amax = abs_max(src, MXFP4_QK);
        const uint8_t e =
            amax > 0.0f ? (uint8_t)gguf__trunc_i32(floorf(log2f(amax)) - 2 + 127) : 0;
        const float d = e8m0_half(e);
        b[0] = e;
        for (int j = 0; j < MXFP4_QK / 2; j++) {
            uint8_t lo = nearest_e2m1(src[j], d);
            uint8_t hi = nearest_e2m1(src[j + MXFP4_QK / 2], d);
            b[1 + j] = (uint8_t)(lo | hi << 4);
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* NVFP4                                                                                       */

static void dequant_nvfp4(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / NVFP4_QK; i++, b += NVFP4_BYTES) {
        for (int s = 0; s < NVFP4_QK / NVFP4_SUB; s++, dst += NVFP4_SUB) {
            const float d = ue4m3_half(b[s]);
            const uint8_t *qs = b + 4 + s * (NVFP4_SUB / 2);
            for (int j = 0; j < NVFP4_SUB / 2; j++) {
                dst[j] = (float)gguf__e2m1_values[qs[j] & 15] * d;
                dst[j + NVFP4_SUB / 2] = (float)gguf__e2m1_values[qs[j] >> 4] * d;
            }
        }
    }
}

static void quant_nvfp4(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                        const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / NVFP4_QK);
    for (int64_t i = 0; i < nblocks; i++, b += NVFP4_BYTES) {
        for (int s = 0; s < NVFP4_QK / NVFP4_SUB; s++, src += NVFP4_SUB) {
            const uint8_t u = ue4m3_from_float(abs_max(src, NVFP4_SUB) / 6.0f);
            const float d = ue4m3_half(u);
            b[s] = u;
            uint8_t *qs = b + 4 + s * (NVFP4_SUB / 2);
            for (int j = 0; j < NVFP4_SUB / 2; j++) {
                uint8_t lo = nearest_e2m1(src[j], d);
                uint8_t hi = nearest_e2m1(src[j + NVFP4_SUB / 2], d);
                qs[j] = (uint8_t)(lo | hi << 4);
            }
        }
    }
}

const gguf__quant_kernels gguf__kernels_mxfp4 = {
    .dequant = dequant_mxfp4,
    .quant = quant_mxfp4,
};
const gguf__quant_kernels gguf__kernels_nvfp4 = {
    .dequant = dequant_nvfp4,
    .quant = quant_nvfp4,
};
