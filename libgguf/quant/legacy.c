/* The legacy block quantizations: 32 elements per block, one f16 scale (and offset).
 *
 *   Q4_0, 18 bytes   | d:f16 | qs[16] |
 *                    x[j]    = d * ((qs[j] & 15) - 8)        j = 0..15
 *                    x[j+16] = d * ((qs[j] >> 4) - 8)
 *
 *   Q4_1, 20 bytes   | d:f16 | m:f16 | qs[16] |
 *                    x[j]    = d * (qs[j] & 15) + m
 *                    x[j+16] = d * (qs[j] >> 4) + m
 *
 *   Q5_0, 22 bytes   | d:f16 | qh:u32 | qs[16] |             qh bit j = 5th bit of element j
 *                    x[j]    = d * (((qs[j] & 15) | (qh>>j & 1) << 4) - 16)
 *                    x[j+16] = d * (((qs[j] >> 4) | (qh>>(j+16) & 1) << 4) - 16)
 *
 *   Q5_1, 24 bytes   | d:f16 | m:f16 | qh:u32 | qs[16] |
 *                    x[j]    = d * ((qs[j] & 15) | (qh>>j & 1) << 4) + m      (and j+16 alike)
 *
 *   Q8_0, 34 bytes   | d:f16 | qs[32]:i8 |                  x[j] = d * qs[j]
 *
 *   Q8_1, 36 bytes   | d:f16 | s:f16 | qs[32]:i8 |          x[j] = d * qs[j],  s = d * sum(qs)
 *
 * All multi-byte fields little-endian. Without an importance matrix the quantizers are ggml's
 * reference ones (round to the block's absolute maximum, or to its [min, max] range); with one,
 * Q4_0/Q5_0 search the scale with make_qx_quants and Q4_1/Q5_1 scale and offset with
 * make_qkx3_quants, weighting element j by imatrix[j] * sqrt(sigma2 + x[j]^2), where sigma2 is
 * the row's mean square. Q8_0 and Q8_1 ignore the imatrix.
 */
#include "format/dtypes.h"
#include "quant.h"

#include <float.h>
#include <math.h>

/* The block (the same in every legacy type) and the types' sizes, from the type table. */
#define QK GGUF__BLOCK_ELEMS(Q4_0)
_Static_assert(GGUF__BLOCK_ELEMS(Q4_1) == QK && GGUF__BLOCK_ELEMS(Q5_0) == QK &&
                   GGUF__BLOCK_ELEMS(Q5_1) == QK && GGUF__BLOCK_ELEMS(Q8_0) == QK &&
                   GGUF__BLOCK_ELEMS(Q8_1) == QK,
               "one block size");
enum {
    Q4_0_BYTES = GGUF__BLOCK_BYTES(Q4_0),
    Q4_1_BYTES = GGUF__BLOCK_BYTES(Q4_1),
    Q5_0_BYTES = GGUF__BLOCK_BYTES(Q5_0),
    Q5_1_BYTES = GGUF__BLOCK_BYTES(Q5_1),
    Q8_0_BYTES = GGUF__BLOCK_BYTES(Q8_0),
    Q8_1_BYTES = GGUF__BLOCK_BYTES(Q8_1)
};

/* ggml's (uint8_t)MIN(top, (int8_t)(v)) on x86. */
static inline uint8_t clamp_top_i8(float v, int top) {
    int q = (int8_t)gguf__trunc_i32(v);
    return (uint8_t)(q < top ? q : top);
}

/* Mean square of a row, the base of the imatrix weights. */
static float row_sigma2(const float *x, int64_t n) {
    float sum = 0;
    for (int64_t j = 0; j < n; j++)
        sum += x[j] * x[j];
    return sum / (float)n;
}

static void imatrix_weights(float w[QK], const float *x, const float *qw, float sigma2) {
    for (int j = 0; j < QK; j++)
        w[j] = qw[j] * sqrtf(sigma2 + x[j] * x[j]);
}

/* ------------------------------------------------------------------------------------------ */
/* With an importance matrix                                                                   */

typedef enum legacy_kind { LEG_Q4_0, LEG_Q4_1, LEG_Q5_0, LEG_Q5_1 } legacy_kind;

static void pack_q5(uint8_t *qh_out, uint8_t *qs, const uint8_t *L);

/* ggml's quantize_row_qX_Y_impl for each row, the block searches run CHUNK blocks at a time
 * through the search set (they are independent of each other). */
enum { CHUNK = 8 };

static void legacy_rows_imatrix(legacy_kind kind, uint8_t *b, const float *src, int64_t nrows,
                                int64_t n_per_row, const float *imatrix,
                                const gguf__search_set *S) {
    static const int bytes[] = {Q4_0_BYTES, Q4_1_BYTES, Q5_0_BYTES, Q5_1_BYTES};
    static const int nmax[] = {8, 15, 16, 31};
    float w[CHUNK * QK], scales[CHUNK], mins[CHUNK];
    int8_t Ls[CHUNK * QK];
    uint8_t Lu[CHUNK * QK];
    int64_t nb = n_per_row / QK;
    for (int64_t r = 0; r < nrows; r++) {
        const float *x = src + r * n_per_row;
        float sigma2 = row_sigma2(x, n_per_row);
        for (int64_t ib = 0; ib < nb; ib += CHUNK) {
            int count = nb - ib < CHUNK ? (int)(nb - ib) : CHUNK;
            const float *xb = x + ib * QK;
            for (int k = 0; k < count; k++)
                imatrix_weights(w + k * QK, xb + k * QK, imatrix + (ib + k) * QK, sigma2);
            const gguf__search_set *s = S;
            if (!gguf__all_finite(xb, count * QK) || !gguf__all_finite(w, count * QK))
                s = &gguf__search_scalar; /* see gguf__all_finite */
            if (kind == LEG_Q4_0 || kind == LEG_Q5_0)
                s->qx(count, QK, nmax[kind], xb, w, Ls, scales);
            else
                s->qkx(count, QK, nmax[kind], xb, w, Lu, scales, mins, -0.9f, 0.05f, 36, false);
            for (int k = 0; k < count; k++) {
                uint8_t *y = b + (r * nb + ib + k) * bytes[kind];
                const int8_t *L = Ls + k * QK;
                const uint8_t *U = Lu + k * QK;
                uint8_t tmp[QK];
                gguf__st16(y, gguf__float_to_half(scales[k]));
                switch (kind) {
                case LEG_Q4_0:
                    for (int j = 0; j < 16; j++)
                        y[2 + j] = (uint8_t)(L[j] | L[j + 16] << 4);
                    break;
                case LEG_Q5_0:
                    for (int j = 0; j < QK; j++)
                        tmp[j] = (uint8_t)L[j];
                    pack_q5(y + 2, y + 6, tmp);
                    break;
                case LEG_Q4_1:
                    gguf__st16(y + 2, gguf__float_to_half(-mins[k]));
                    for (int j = 0; j < 16; j++)
                        y[4 + j] = (uint8_t)(U[j] | U[j + 16] << 4);
                    break;
                case LEG_Q5_1:
                    gguf__st16(y + 2, gguf__float_to_half(-mins[k]));
                    pack_q5(y + 4, y + 8, U);
                    break;
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q4_0                                                                                        */

static void q4_0_block_ref(uint8_t *b, const float *x) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < QK; j++) {
        if (amax < fabsf(x[j])) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    }
    float d = max / -8.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    gguf__st16(b, gguf__float_to_half(d));
    for (int j = 0; j < QK / 2; j++) {
        uint8_t lo = clamp_top_i8(x[j] * id + 8.5f, 15);
        uint8_t hi = clamp_top_i8(x[j + QK / 2] * id + 8.5f, 15);
        b[2 + j] = (uint8_t)(lo | hi << 4);
    }
}

static void quant_q4_0(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q4_0, b, src, nrows, n_per_row, imatrix, &gguf__search_scalar);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++)
        q4_0_block_ref(b + i * Q4_0_BYTES, src + i * QK);
}

static void dequant_q4_0(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q4_0_BYTES, dst += QK) {
        float d = gguf__half_to_float(gguf__ld16(b));
        for (int j = 0; j < QK / 2; j++) {
            dst[j] = (float)((b[2 + j] & 0x0F) - 8) * d;
            dst[j + QK / 2] = (float)((b[2 + j] >> 4) - 8) * d;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q4_1                                                                                        */

static void q4_1_block_ref(uint8_t *b, const float *x) {
    float min = FLT_MAX, max = -FLT_MAX;
    for (int j = 0; j < QK; j++) {
        if (x[j] < min)
            min = x[j];
        if (x[j] > max)
            max = x[j];
    }
    float d = (max - min) / 15.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    gguf__st16(b, gguf__float_to_half(d));
    gguf__st16(b + 2, gguf__float_to_half(min));
    for (int j = 0; j < QK / 2; j++) {
        uint8_t lo = clamp_top_i8((x[j] - min) * id + 0.5f, 15);
        uint8_t hi = clamp_top_i8((x[j + QK / 2] - min) * id + 0.5f, 15);
        b[4 + j] = (uint8_t)(lo | hi << 4);
    }
}

static void quant_q4_1(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q4_1, b, src, nrows, n_per_row, imatrix, &gguf__search_scalar);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++)
        q4_1_block_ref(b + i * Q4_1_BYTES, src + i * QK);
}

static void dequant_q4_1(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q4_1_BYTES, dst += QK) {
        float d = gguf__half_to_float(gguf__ld16(b));
        float m = gguf__half_to_float(gguf__ld16(b + 2));
        for (int j = 0; j < QK / 2; j++) {
            dst[j] = (float)(b[4 + j] & 0x0F) * d + m;
            dst[j + QK / 2] = (float)(b[4 + j] >> 4) * d + m;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q5_0                                                                                        */

/* Packs 32 five-bit values: low nibbles into qs[16], fifth bits into the u32 qh. */
static void pack_q5(uint8_t *qh_out, uint8_t *qs, const uint8_t *L) {
    uint32_t qh = 0;
    for (int j = 0; j < 16; j++) {
        qs[j] = (uint8_t)((L[j] & 0x0F) | (L[j + 16] & 0x0F) << 4);
        qh |= (uint32_t)(L[j] >> 4 & 1) << j;
        qh |= (uint32_t)(L[j + 16] >> 4 & 1) << (j + 16);
    }
    gguf__st32(qh_out, qh);
}

static void q5_0_block_ref(uint8_t *b, const float *x) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < QK; j++) {
        if (amax < fabsf(x[j])) {
            amax = fabsf(x[j]);
            max = x[j];
        }
    }
    float d = max / -16.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    uint8_t L[QK];
    gguf__st16(b, gguf__float_to_half(d));
    for (int j = 0; j < QK; j++)
        L[j] = clamp_top_i8(x[j] * id + 16.5f, 31);
    pack_q5(b + 2, b + 6, L);
}

static void quant_q5_0(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q5_0, b, src, nrows, n_per_row, imatrix, &gguf__search_scalar);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++)
        q5_0_block_ref(b + i * Q5_0_BYTES, src + i * QK);
}

static void dequant_q5_0(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q5_0_BYTES, dst += QK) {
        float d = gguf__half_to_float(gguf__ld16(b));
        uint32_t qh = gguf__ld32(b + 2);
        const uint8_t *qs = b + 6;
        for (int j = 0; j < QK / 2; j++) {
            int lo = (qs[j] & 0x0F) | (int)(qh >> j & 1) << 4;
            int hi = (qs[j] >> 4) | (int)(qh >> (j + 16) & 1) << 4;
            dst[j] = (float)(lo - 16) * d;
            dst[j + QK / 2] = (float)(hi - 16) * d;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q5_1                                                                                        */

static void q5_1_block_ref(uint8_t *b, const float *x) {
    float min = FLT_MAX, max = -FLT_MAX;
    for (int j = 0; j < QK; j++) {
        if (x[j] < min)
            min = x[j];
        if (x[j] > max)
            max = x[j];
    }
    float d = (max - min) / 31.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    uint8_t L[QK];
    gguf__st16(b, gguf__float_to_half(d));
    gguf__st16(b + 2, gguf__float_to_half(min));
    for (int j = 0; j < QK; j++)
        L[j] = (uint8_t)gguf__trunc_i32((x[j] - min) * id + 0.5f);
    pack_q5(b + 4, b + 8, L);
}

static void quant_q5_1(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q5_1, b, src, nrows, n_per_row, imatrix, &gguf__search_scalar);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++)
        q5_1_block_ref(b + i * Q5_1_BYTES, src + i * QK);
}

static void dequant_q5_1(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q5_1_BYTES, dst += QK) {
        float d = gguf__half_to_float(gguf__ld16(b));
        float m = gguf__half_to_float(gguf__ld16(b + 2));
        uint32_t qh = gguf__ld32(b + 4);
        const uint8_t *qs = b + 8;
        for (int j = 0; j < QK / 2; j++) {
            int lo = (qs[j] & 0x0F) | (int)(qh >> j & 1) << 4;
            int hi = (qs[j] >> 4) | (int)(qh >> (j + 16) & 1) << 4;
            dst[j] = (float)lo * d + m;
            dst[j + QK / 2] = (float)hi * d + m;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q8_0 and Q8_1                                                                               */

/* ggml's MAX(amax, |v|) fold, NaN behaviour included. */
static float block_absmax(const float *x) {
    float amax = 0.0f;
    for (int j = 0; j < QK; j++) {
        float a = fabsf(x[j]);
        amax = amax > a ? amax : a;
    }
    return amax;
}

static void q8_0_block_ref(uint8_t *b, const float *x) {
    float d = block_absmax(x) / 127.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    gguf__st16(b, gguf__float_to_half(d));
    for (int j = 0; j < QK; j++)
        b[2 + j] = (uint8_t)gguf__trunc_i32(roundf(x[j] * id));
}

static void quant_q8_0(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++)
        q8_0_block_ref(b + i * Q8_0_BYTES, src + i * QK);
}

static void dequant_q8_0(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q8_0_BYTES, dst += QK) {
        float d = gguf__half_to_float(gguf__ld16(b));
        for (int j = 0; j < QK; j++)
            dst[j] = (float)(int8_t)b[2 + j] * d;
    }
}

static void q8_1_block_ref(uint8_t *b, const float *x) {
    float d = block_absmax(x) / 127.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    int sum = 0;
    gguf__st16(b, gguf__float_to_half(d));
    for (int j = 0; j < QK / 2; j++) {
        int8_t lo = (int8_t)gguf__trunc_i32(roundf(x[j] * id));
        int8_t hi = (int8_t)gguf__trunc_i32(roundf(x[j + QK / 2] * id));
        b[4 + j] = (uint8_t)lo;
        b[4 + j + QK / 2] = (uint8_t)hi;
        sum += lo;
        sum += hi;
    }
    gguf__st16(b + 2, gguf__float_to_half((float)sum * d));
}

static void quant_q8_1(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++)
        q8_1_block_ref(b + i * Q8_1_BYTES, src + i * QK);
}

static void dequant_q8_1(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q8_1_BYTES, dst += QK) {
        float d = gguf__half_to_float(gguf__ld16(b));
        for (int j = 0; j < QK; j++)
            dst[j] = (float)(int8_t)b[4 + j] * d;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* x86 SIMD                                                                                    */
/*                                                                                             */
/* Dequantization is elementwise (q * d, or q * d + m with the product rounded first), so the */
/* vector code gives the scalar floats exactly. The quantizers vectorize the ref paths of     */
/* Q8_0 and Q4_0 block by block; a block holding NaN or Inf goes to the scalar code.          */

#if GGUF__X86
#include "simd_x86.h"

GGUF__NOINLINE static void q4_1_dequant_block(float *y, const uint8_t *b) {
    dequant_q4_1(y, b, QK);
}
GGUF__NOINLINE static void q5_1_dequant_block(float *y, const uint8_t *b) {
    dequant_q5_1(y, b, QK);
}
GGUF__NOINLINE static void q8_0_block_scalar(uint8_t *b, const float *x) { q8_0_block_ref(b, x); }
GGUF__NOINLINE static void q8_1_block_scalar(uint8_t *b, const float *x) { q8_1_block_ref(b, x); }
GGUF__NOINLINE static void q4_0_block_scalar(uint8_t *b, const float *x) { q4_0_block_ref(b, x); }

/* ---- Q8_0 / Q8_1 / Q4_0 dequantization ---- */

GGUF__TARGET_SSE41 static void dequant_q8_0_sse41(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q8_0_BYTES, dst += QK) {
        __m128 d = _mm_set1_ps(gguf__half_to_float(gguf__ld16(b)));
        i8x16_mul_sse41(dst, ld128(b + 2), d);
        i8x16_mul_sse41(dst + 16, ld128(b + 18), d);
    }
}

GGUF__TARGET_AVX2 static void dequant_q8_0_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q8_0_BYTES, dst += QK) {
        __m256 d = _mm256_set1_ps(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(gguf__ld16(b)))));
        i8x16_mul_avx2(dst, ld128(b + 2), d);
        i8x16_mul_avx2(dst + 16, ld128(b + 18), d);
    }
}

GGUF__TARGET_AVX2 static void dequant_q8_1_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q8_1_BYTES, dst += QK) {
        __m256 d = _mm256_set1_ps(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(gguf__ld16(b)))));
        i8x16_mul_avx2(dst, ld128(b + 4), d);
        i8x16_mul_avx2(dst + 16, ld128(b + 20), d);
    }
}

/* The 32 quants of a Q4_0/Q4_1 block: elements 0-15 from the low nibbles, 16-31 high. */
GGUF__TARGET_SSE41 static inline void nibbles_sse41(__m128i *lo, __m128i *hi, const uint8_t *qs) {
    const __m128i mask = _mm_set1_epi8(0x0F);
    __m128i q = ld128(qs);
    *lo = _mm_and_si128(q, mask);
    *hi = _mm_and_si128(_mm_srli_epi16(q, 4), mask);
}

GGUF__TARGET_SSE41 static void dequant_q4_0_sse41(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m128i eight = _mm_set1_epi8(8);
    for (int64_t i = 0; i < n / QK; i++, b += Q4_0_BYTES, dst += QK) {
        __m128 d = _mm_set1_ps(gguf__half_to_float(gguf__ld16(b)));
        __m128i lo, hi;
        nibbles_sse41(&lo, &hi, b + 2);
        i8x16_mul_sse41(dst, _mm_sub_epi8(lo, eight), d);
        i8x16_mul_sse41(dst + 16, _mm_sub_epi8(hi, eight), d);
    }
}

GGUF__TARGET_AVX2 static void dequant_q4_0_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m128i eight = _mm_set1_epi8(8);
    for (int64_t i = 0; i < n / QK; i++, b += Q4_0_BYTES, dst += QK) {
        __m256 d = _mm256_set1_ps(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(gguf__ld16(b)))));
        __m128i lo, hi;
        nibbles_sse41(&lo, &hi, b + 2);
        i8x16_mul_avx2(dst, _mm_sub_epi8(lo, eight), d);
        i8x16_mul_avx2(dst + 16, _mm_sub_epi8(hi, eight), d);
    }
}

GGUF__TARGET_AVX2 static void dequant_q4_1_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q4_1_BYTES, dst += QK) {
        if (gguf__half_special(gguf__ld16(b)) || gguf__half_special(gguf__ld16(b + 2))) {
            q4_1_dequant_block(dst, b);
            continue;
        }
        __m128 dm = _mm_cvtph_ps(_mm_cvtsi32_si128((int)gguf__ld32(b)));
        __m256 d = _mm256_set1_ps(_mm_cvtss_f32(dm));
        __m256 m = _mm256_set1_ps(_mm_cvtss_f32(_mm_shuffle_ps(dm, dm, 1)));
        __m128i lo, hi;
        nibbles_sse41(&lo, &hi, b + 4);
        i8x16_muladd_avx2(dst, lo, d, m);
        i8x16_muladd_avx2(dst + 16, hi, d, m);
    }
}

/* Q5: the fifth bits, 0x10 in byte j when bit j of qh is set (j = 0..31). */
GGUF__TARGET_AVX2 static inline __m256i q5_high_avx2(uint32_t qh) {
    return _mm256_and_si256(bits_to_bytes_avx2(qh), _mm256_set1_epi8(0x10));
}

GGUF__TARGET_AVX2 static void dequant_q5_0_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m128i sixteen = _mm_set1_epi8(16);
    for (int64_t i = 0; i < n / QK; i++, b += Q5_0_BYTES, dst += QK) {
        __m256 d = _mm256_set1_ps(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(gguf__ld16(b)))));
        __m256i h = q5_high_avx2(gguf__ld32(b + 2));
        __m128i lo, hi;
        nibbles_sse41(&lo, &hi, b + 6);
        lo = _mm_sub_epi8(_mm_or_si128(lo, _mm256_castsi256_si128(h)), sixteen);
        hi = _mm_sub_epi8(_mm_or_si128(hi, _mm256_extracti128_si256(h, 1)), sixteen);
        i8x16_mul_avx2(dst, lo, d);
        i8x16_mul_avx2(dst + 16, hi, d);
    }
}

GGUF__TARGET_AVX2 static void dequant_q5_1_avx2(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += Q5_1_BYTES, dst += QK) {
        if (gguf__half_special(gguf__ld16(b)) || gguf__half_special(gguf__ld16(b + 2))) {
            q5_1_dequant_block(dst, b);
            continue;
        }
        __m128 dm = _mm_cvtph_ps(_mm_cvtsi32_si128((int)gguf__ld32(b)));
        __m256 d = _mm256_set1_ps(_mm_cvtss_f32(dm));
        __m256 m = _mm256_set1_ps(_mm_cvtss_f32(_mm_shuffle_ps(dm, dm, 1)));
        __m256i h = q5_high_avx2(gguf__ld32(b + 4));
        __m128i lo, hi;
        nibbles_sse41(&lo, &hi, b + 8);
        i8x16_muladd_avx2(dst, _mm_or_si128(lo, _mm256_castsi256_si128(h)), d, m);
        i8x16_muladd_avx2(dst + 16, _mm_or_si128(hi, _mm256_extracti128_si256(h, 1)), d, m);
    }
}

/* ---- Q8_0 quantization ---- */

/* 1 when the eight floats are all finite. */
GGUF__TARGET_AVX2 static inline int finite8(__m256 x) {
    __m256i e = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7f800000));
    return _mm256_movemask_epi8(_mm256_cmpeq_epi32(e, _mm256_set1_epi32(0x7f800000))) == 0;
}

GGUF__TARGET_AVX2 static inline float hmax8(__m256 v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    m = _mm_max_ss(m, _mm_movehdup_ps(m));
    return _mm_cvtss_f32(m);
}

/* roundf (half away from zero) then the low byte of cvttps2dq, as the scalar
 * (int8_t)gguf__trunc_i32(roundf(v)); the four results' low bytes in the 32-bit lanes. */
GGUF__TARGET_AVX2 static inline __m256i round_away_i32(__m256 v) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    __m256 frac = _mm256_andnot_ps(sign, _mm256_sub_ps(v, t));
    __m256 up = _mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ);
    __m256 one = _mm256_or_ps(_mm256_and_ps(v, sign), _mm256_set1_ps(1.0f));
    t = _mm256_add_ps(t, _mm256_and_ps(up, one));
    return _mm256_cvttps_epi32(t);
}

/* Low bytes of the 32-bit lanes of a, b, c, d (8 each), in order, as 32 bytes. */
GGUF__TARGET_AVX2 static inline __m256i low_bytes_avx2(__m256i a, __m256i b, __m256i c,
                                                       __m256i d) {
    const __m256i m = _mm256_set1_epi32(0xFF);
    __m256i ab = _mm256_packus_epi32(_mm256_and_si256(a, m), _mm256_and_si256(b, m));
    __m256i cd = _mm256_packus_epi32(_mm256_and_si256(c, m), _mm256_and_si256(d, m));
    __m256i abcd = _mm256_packus_epi16(ab, cd);
    /* the packs interleave 128-bit lanes: dwords hold a0 b0 c0 d0 a1 b1 c1 d1 */
    return _mm256_permutevar8x32_epi32(abcd, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* The Q8_0/Q8_1 scale and codes of a finite block (0 when the block holds NaN or Inf). */
GGUF__TARGET_AVX2 static inline int q8_codes_avx2(float *d_out, __m256i *codes, const float *src) {
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 x0 = _mm256_loadu_ps(src), x1 = _mm256_loadu_ps(src + 8);
    __m256 x2 = _mm256_loadu_ps(src + 16), x3 = _mm256_loadu_ps(src + 24);
    if (!(finite8(x0) & finite8(x1) & finite8(x2) & finite8(x3)))
        return 0;
    __m256 a = _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(x0, absmask), _mm256_and_ps(x1, absmask)),
                             _mm256_max_ps(_mm256_and_ps(x2, absmask), _mm256_and_ps(x3, absmask)));
    float d = hmax8(a) / 127.0f;
    float id = d != 0.0f ? 1.0f / d : 0.0f;
    __m256 vid = _mm256_set1_ps(id);
    *codes = low_bytes_avx2(round_away_i32(_mm256_mul_ps(x0, vid)),
                            round_away_i32(_mm256_mul_ps(x1, vid)),
                            round_away_i32(_mm256_mul_ps(x2, vid)),
                            round_away_i32(_mm256_mul_ps(x3, vid)));
    *d_out = d;
    return 1;
}

GGUF__TARGET_AVX2 static void quant_q8_0_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++, b += Q8_0_BYTES, src += QK) {
        float d;
        __m256i q;
        if (!q8_codes_avx2(&d, &q, src)) {
            q8_0_block_scalar(b, src);
            continue;
        }
        gguf__st16(b, gguf__float_to_half(d));
        _mm256_storeu_si256((__m256i *)(void *)(b + 2), q);
    }
}

GGUF__TARGET_AVX2 static void quant_q8_1_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++, b += Q8_1_BYTES, src += QK) {
        float d;
        __m256i q;
        if (!q8_codes_avx2(&d, &q, src)) {
            q8_1_block_scalar(b, src);
            continue;
        }
        /* the sum of the signed codes: bias them to unsigned, add with SAD, unbias */
        __m256i sad = _mm256_sad_epu8(_mm256_xor_si256(q, _mm256_set1_epi8((char)0x80)),
                                      _mm256_setzero_si256());
        __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(sad), _mm256_extracti128_si256(sad, 1));
        int sum = (int)(_mm_cvtsi128_si64(s2) + _mm_extract_epi64(s2, 1)) - 32 * 128;
        gguf__st16(b, gguf__float_to_half(d));
        gguf__st16(b + 2, gguf__float_to_half((float)sum * d));
        _mm256_storeu_si256((__m256i *)(void *)(b + 4), q);
    }
}

/* ---- Q4_0, Q4_1, Q5_0, Q5_1 quantization ---- */

GGUF__NOINLINE static void q4_1_block_scalar(uint8_t *b, const float *x) { q4_1_block_ref(b, x); }
GGUF__NOINLINE static void q5_0_block_scalar(uint8_t *b, const float *x) { q5_0_block_ref(b, x); }
GGUF__NOINLINE static void q5_1_block_scalar(uint8_t *b, const float *x) { q5_1_block_ref(b, x); }

/* Loads a block; 0 when it holds NaN or Inf (then the scalar code takes it). */
GGUF__TARGET_AVX2 static inline int load_block(__m256 x[4], const float *src) {
    for (int k = 0; k < 4; k++)
        x[k] = _mm256_loadu_ps(src + 8 * k);
    return finite8(x[0]) & finite8(x[1]) & finite8(x[2]) & finite8(x[3]);
}

/* The block's first element equal to v: the one the scalar scans keep (they replace only on
 * a strict comparison). Equal floats have equal bits except +0 and -0, so callers need it
 * only for a zero. */
static inline float first_equal(const float *x, float v) {
    for (int j = 0; j < QK; j++)
        if (x[j] == v)
            return x[j];
    return v;
}

/* The scalar (int8_t)gguf__trunc_i32((x - off) * id + bias) of the 32 elements, in order, as
 * bytes (off is subtracted only when sub). */
GGUF__TARGET_AVX2 static inline __m256i block_codes(const __m256 x[4], bool sub, float off,
                                                    float id, float bias) {
    __m256i l[4];
    for (int k = 0; k < 4; k++) {
        __m256 v = sub ? _mm256_sub_ps(x[k], _mm256_set1_ps(off)) : x[k];
        __m256 p = _mm256_mul_ps(v, _mm256_set1_ps(id));
        GGUF__ROUNDED(p);
        l[k] = _mm256_cvttps_epi32(_mm256_add_ps(p, _mm256_set1_ps(bias)));
    }
    return low_bytes_avx2(l[0], l[1], l[2], l[3]);
}

/* qs[j] = q[j] | (q[j+16] & 15) << 4, as the scalar packing of 4-bit blocks. */
GGUF__TARGET_AVX2 static inline void store_nibbles(uint8_t *qs, __m256i q) {
    __m128i lo = _mm256_castsi256_si128(q), hi = _mm256_extracti128_si256(q, 1);
    __m128i packed = _mm_or_si128(lo, _mm_slli_epi16(_mm_and_si128(hi, _mm_set1_epi8(0x0F)), 4));
    _mm_storeu_si128((__m128i *)(void *)qs, packed);
}

/* Q5 packing: low nibbles into qs, bit 4 of each code into qh (pack_q5). */
GGUF__TARGET_AVX2 static inline void store_q5(uint8_t *qh, uint8_t *qs, __m256i q) {
    __m128i lo = _mm256_castsi256_si128(q), hi = _mm256_extracti128_si256(q, 1);
    const __m128i nib = _mm_set1_epi8(0x0F);
    __m128i packed = _mm_or_si128(_mm_and_si128(lo, nib), _mm_slli_epi16(_mm_and_si128(hi, nib), 4));
    _mm_storeu_si128((__m128i *)(void *)qs, packed);
    gguf__st32(qh, (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(q, 3)));
}

GGUF__TARGET_AVX2 static inline void block_minmax(float *min, float *max, const __m256 x[4]) {
    __m256 lo = _mm256_min_ps(_mm256_min_ps(x[0], x[1]), _mm256_min_ps(x[2], x[3]));
    __m256 hi = _mm256_max_ps(_mm256_max_ps(x[0], x[1]), _mm256_max_ps(x[2], x[3]));
    __m128 l = _mm_min_ps(_mm256_castps256_ps128(lo), _mm256_extractf128_ps(lo, 1));
    l = _mm_min_ps(l, _mm_movehl_ps(l, l));
    l = _mm_min_ss(l, _mm_movehdup_ps(l));
    *min = _mm_cvtss_f32(l);
    *max = hmax8(hi);
}

/* The block's absolute maximum and the first element reaching it (+0 when all are zero). */
GGUF__TARGET_AVX2 static inline float block_signed_absmax(const __m256 x[4], const float *src) {
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 a = _mm256_max_ps(_mm256_max_ps(_mm256_and_ps(x[0], absmask), _mm256_and_ps(x[1], absmask)),
                             _mm256_max_ps(_mm256_and_ps(x[2], absmask), _mm256_and_ps(x[3], absmask)));
    float amax = hmax8(a);
    if (!(amax > 0))
        return 0.0f;
    /* the first element whose |x| equals amax: the lowest set bit of the equality masks */
    const __m256 va = _mm256_set1_ps(amax);
    uint32_t eq = 0;
    for (int k = 0; k < 4; k++)
        eq |= (uint32_t)_mm256_movemask_ps(
                  _mm256_cmp_ps(_mm256_and_ps(x[k], absmask), va, _CMP_EQ_OQ))
              << (8 * k);
    return src[__builtin_ctz(eq)];
}

GGUF__TARGET_AVX2 static void quant_q4_0_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q4_0, b, src, nrows, n_per_row, imatrix, &gguf__search_avx2);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++, b += Q4_0_BYTES, src += QK) {
        __m256 x[4];
        if (!load_block(x, src)) {
            q4_0_block_scalar(b, src);
            continue;
        }
        float d = block_signed_absmax(x, src) / -8.0f;
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b, gguf__float_to_half(d));
        __m256i q = _mm256_min_epi8(block_codes(x, false, 0, id, 8.5f), _mm256_set1_epi8(15));
        store_nibbles(b + 2, q);
    }
}

GGUF__TARGET_AVX2 static void quant_q5_0_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q5_0, b, src, nrows, n_per_row, imatrix, &gguf__search_avx2);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++, b += Q5_0_BYTES, src += QK) {
        __m256 x[4];
        if (!load_block(x, src)) {
            q5_0_block_scalar(b, src);
            continue;
        }
        float d = block_signed_absmax(x, src) / -16.0f;
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b, gguf__float_to_half(d));
        __m256i q = _mm256_min_epi8(block_codes(x, false, 0, id, 16.5f), _mm256_set1_epi8(31));
        store_q5(b + 2, b + 6, q);
    }
}

GGUF__TARGET_AVX2 static void quant_q4_1_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q4_1, b, src, nrows, n_per_row, imatrix, &gguf__search_avx2);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++, b += Q4_1_BYTES, src += QK) {
        __m256 x[4];
        float min, max;
        if (!load_block(x, src)) {
            q4_1_block_scalar(b, src);
            continue;
        }
        block_minmax(&min, &max, x);
        if (min == 0)
            min = first_equal(src, min);
        if (max == 0)
            max = first_equal(src, max);
        float d = (max - min) / 15.0f;
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b, gguf__float_to_half(d));
        gguf__st16(b + 2, gguf__float_to_half(min));
        __m256i q = _mm256_min_epi8(block_codes(x, true, min, id, 0.5f), _mm256_set1_epi8(15));
        store_nibbles(b + 4, q);
    }
}

GGUF__TARGET_AVX2 static void quant_q5_1_avx2(void *dst, const float *src, int64_t nrows,
                                              int64_t n_per_row, const float *imatrix) {
    uint8_t *b = dst;
    if (imatrix) {
        legacy_rows_imatrix(LEG_Q5_1, b, src, nrows, n_per_row, imatrix, &gguf__search_avx2);
        return;
    }
    for (int64_t i = 0; i < nrows * n_per_row / QK; i++, b += Q5_1_BYTES, src += QK) {
        __m256 x[4];
        float min, max;
        if (!load_block(x, src)) {
            q5_1_block_scalar(b, src);
            continue;
        }
        block_minmax(&min, &max, x);
        if (min == 0)
            min = first_equal(src, min);
        if (max == 0)
            max = first_equal(src, max);
        float d = (max - min) / 31.0f;
        float id = d != 0.0f ? 1.0f / d : 0.0f;
        gguf__st16(b, gguf__float_to_half(d));
        gguf__st16(b + 2, gguf__float_to_half(min));
        store_q5(b + 4, b + 8, block_codes(x, true, min, id, 0.5f));
    }
}

#define LEGACY_SIMD(level, fn) [level] = fn
#else
#define LEGACY_SIMD(level, fn) [level] = NULL
#endif /* GGUF__X86 */

const gguf__quant_kernels gguf__kernels_q4_0 = {
    .dequant = dequant_q4_0,
    .quant = quant_q4_0,
    /* at AVX-512 the AVX2 code runs: its 16-byte stores beat 64-byte ones here */
    .dequant_simd = {LEGACY_SIMD(GGUF__SIMD_SSE41, dequant_q4_0_sse41),
                     LEGACY_SIMD(GGUF__SIMD_AVX2, dequant_q4_0_avx2)},
    .quant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, quant_q4_0_avx2)},
};
const gguf__quant_kernels gguf__kernels_q4_1 = {
    .dequant = dequant_q4_1,
    .quant = quant_q4_1,
    .quant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, quant_q4_1_avx2)},
    .dequant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, dequant_q4_1_avx2)},
};
const gguf__quant_kernels gguf__kernels_q5_0 = {
    .dequant = dequant_q5_0,
    .quant = quant_q5_0,
    .quant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, quant_q5_0_avx2)},
    .dequant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, dequant_q5_0_avx2)},
};
const gguf__quant_kernels gguf__kernels_q5_1 = {
    .dequant = dequant_q5_1,
    .quant = quant_q5_1,
    .quant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, quant_q5_1_avx2)},
    .dequant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, dequant_q5_1_avx2)},
};
const gguf__quant_kernels gguf__kernels_q8_0 = {
    .dequant = dequant_q8_0,
    .quant = quant_q8_0,
    /* at AVX-512 the AVX2 code runs: its 16-byte stores beat 64-byte ones here */
    .dequant_simd = {LEGACY_SIMD(GGUF__SIMD_SSE41, dequant_q8_0_sse41),
                     LEGACY_SIMD(GGUF__SIMD_AVX2, dequant_q8_0_avx2)},
    .quant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, quant_q8_0_avx2)},
};
const gguf__quant_kernels gguf__kernels_q8_1 = {
    .dequant = dequant_q8_1,
    .quant = quant_q8_1,
    .quant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, quant_q8_1_avx2)},
    .dequant_simd = {LEGACY_SIMD(GGUF__SIMD_AVX2, dequant_q8_1_avx2)},
};
