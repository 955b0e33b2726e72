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
#include "format/dtypes.h"
#include "quant.h"

#include <math.h>

#define MXFP4_QK GGUF__BLOCK_ELEMS(MXFP4)
#define MXFP4_BYTES GGUF__BLOCK_BYTES(MXFP4)
#define NVFP4_QK GGUF__BLOCK_ELEMS(NVFP4)
#define NVFP4_SUB 16
#define NVFP4_BYTES GGUF__BLOCK_BYTES(NVFP4)

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
    uint32_t exp = (u >> 3) & 0xF, man = u & 7;
    /* m 2^-9 / 2, or (1 + m/8) 2^(exp-7) / 2 = the float with exponent exp - 8 and the top
     * mantissa bits m: both exact */
    if (exp == 0)
        return (float)man * 0x1.0p-10f;
    return gguf__f32_from_bits((exp - 8 + 127) << 23 | man << 20);
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

/* ------------------------------------------------------------------------------------------ */
/* AVX2 quantization: eight elements per register, each lane ending on the nibble of the
 * scalar search nearest_e2m1. That search keeps the first of equal errors, and the lanes
 * need only half of it:
 *  - for x >= 0 (or -0), a negative value -v (nibble 8 + k) errs by fl(v d + x) >=
 *    fl(|v d - x|), the error of +v (nibble k), which comes first: the answer is the first
 *    best of nibbles 0..7;
 *  - for x < 0, nibbles 1..7 err by fl(v d + |x|) >= fl(|x|), the error of nibble 0, which
 *    comes first; nibble 8 ties with nibble 0; nibble 8 + k errs by fl(|v d - |x||): the
 *    answer is the first best of nibbles 0..7 for |x|, plus 8 unless it is 0;
 *  - for NaN no error compares lower and the answer is 0 either way.
 * The products v d, differences and strict comparisons are the scalar code's. */
#if GGUF__X86
#include "simd_x86.h"

/* Nibbles of 8 elements, as 32-bit lanes. */
static inline GGUF__TARGET_AVX2 __m256i nearest_e2m1_avx2(__m256 x, __m256 scale) {
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN));
    const __m256 ax = _mm256_andnot_ps(sign, x);
    __m256 p = _mm256_mul_ps(_mm256_set1_ps((float)gguf__e2m1_values[0]), scale);
    GGUF__ROUNDED(p);
    __m256 best_err = _mm256_andnot_ps(sign, _mm256_sub_ps(p, ax));
    __m256i best = _mm256_setzero_si256();
    for (int i = 1; i < 8; i++) {
        p = _mm256_mul_ps(_mm256_set1_ps((float)gguf__e2m1_values[i]), scale);
        GGUF__ROUNDED(p);
        __m256 err = _mm256_andnot_ps(sign, _mm256_sub_ps(p, ax));
        __m256 lt = _mm256_cmp_ps(err, best_err, _CMP_LT_OQ);
        best_err = _mm256_blendv_ps(best_err, err, lt);
        best = _mm256_blendv_epi8(best, _mm256_set1_epi32(i), _mm256_castps_si256(lt));
    }
    /* negative x (sign bit set, not NaN since NaN left best at 0): + 8 unless 0 */
    __m256i neg = _mm256_srai_epi32(_mm256_castps_si256(x), 31);
    __m256i nonzero = _mm256_cmpgt_epi32(best, _mm256_setzero_si256());
    return _mm256_or_si256(best, _mm256_and_si256(_mm256_and_si256(neg, nonzero),
                                                  _mm256_set1_epi32(8)));
}

/* max |x| over 8n floats with abs_max's rule (a NaN never replaces the running maximum;
 * maxps(a, b) gives b when either is NaN, and maximum is exact and order-free otherwise). */
static inline GGUF__TARGET_AVX2 float abs_max_avx2(const float *x, int n8) {
    const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN));
    __m256 m = _mm256_setzero_ps();
    for (int k = 0; k < n8; k++)
        m = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x + 8 * k)), m);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    return _mm_cvtss_f32(h);
}

/* Packs 16 elements' nibbles: lo[j] | hi[j] << 4 into qs[0..7] and qs[8..15] (lo and hi two
 * registers each). */
static inline GGUF__TARGET_AVX2 void pack_nibbles_avx2(uint8_t *qs, __m256i lo0, __m256i lo1,
                                                       __m256i hi0, __m256i hi1) {
    __m256i a = _mm256_or_si256(lo0, _mm256_slli_epi32(hi0, 4));
    __m256i b = _mm256_or_si256(lo1, _mm256_slli_epi32(hi1, 4));
    /* 32-bit lanes to bytes: a then b, in element order */
    __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    __m128i v = _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
    _mm_storeu_si128((__m128i *)(void *)qs, v);
}

GGUF__TARGET_AVX2 static void quant_mxfp4_avx2(void *dst, const float *src, int64_t nrows,
                                               int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / MXFP4_QK);
    for (int64_t i = 0; i < nblocks; i++, b += MXFP4_BYTES, src += MXFP4_QK) {
        const float amax = abs_max_avx2(src, MXFP4_QK / 8);
        const uint8_t e =
            amax > 0.0f ? (uint8_t)gguf__trunc_i32(floorf(log2f(amax)) - 2 + 127) : 0;
        const __m256 d = _mm256_set1_ps(e8m0_half(e));
        b[0] = e;
        __m256i q[4];
        for (int k = 0; k < 4; k++)
            q[k] = nearest_e2m1_avx2(_mm256_loadu_ps(src + 8 * k), d);
        pack_nibbles_avx2(b + 1, q[0], q[1], q[2], q[3]);
    }
}

GGUF__TARGET_AVX2 static void quant_nvfp4_avx2(void *dst, const float *src, int64_t nrows,
                                               int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    const int64_t nblocks = nrows * (n_per_row / NVFP4_QK);
    for (int64_t i = 0; i < nblocks; i++, b += NVFP4_BYTES) {
        __m256i q[8];
        for (int s = 0; s < NVFP4_QK / NVFP4_SUB; s++, src += NVFP4_SUB) {
            const uint8_t u = ue4m3_from_float(abs_max_avx2(src, NVFP4_SUB / 8) / 6.0f);
            const __m256 d = _mm256_set1_ps(ue4m3_half(u));
            b[s] = u;
            q[2 * s] = nearest_e2m1_avx2(_mm256_loadu_ps(src), d);
            q[2 * s + 1] = nearest_e2m1_avx2(_mm256_loadu_ps(src + 8), d);
        }
        /* sub-block s: byte j (0..7) = element j | element 8 + j << 4 */
        pack_nibbles_avx2(b + 4, q[0], q[2], q[1], q[3]);
        pack_nibbles_avx2(b + 20, q[4], q[6], q[5], q[7]);
    }
}

#define FP4_SIMD(level, fn) [level] = fn
#else
#define FP4_SIMD(level, fn) [level] = NULL
#endif /* GGUF__X86 */

const gguf__quant_kernels gguf__kernels_mxfp4 = {
    .dequant = dequant_mxfp4,
    .quant = quant_mxfp4,
    .quant_simd = {FP4_SIMD(GGUF__SIMD_AVX2, quant_mxfp4_avx2)},
};
const gguf__quant_kernels gguf__kernels_nvfp4 = {
    .dequant = dequant_nvfp4,
    .quant = quant_nvfp4,
    .quant_simd = {FP4_SIMD(GGUF__SIMD_AVX2, quant_nvfp4_avx2)},
};
