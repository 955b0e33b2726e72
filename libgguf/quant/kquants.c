/* The k-quants: super-blocks of 256 elements split into 16 or 8 sub-blocks, whose scales
 * (and offsets) are themselves quantized against one or two f16 super-block scales.
 *
 *   Q2_K, 84 bytes   | scales[16] | qs[64] | d:f16 | dmin:f16 |
 *       16 groups of 16; scales[g] = sc | m << 4 (4 bits each); 2-bit quants q
 *       x = d * sc * q - dmin * m
 *       qs: element 128*h + 32*s + l (h half, s shift 0..3, l 0..31) is bits 2s..2s+1 of
 *       qs[32*h + l]; group g covers elements 16g..16g+15.
 *
 *   Q3_K, 110 bytes  | hmask[32] | qs[64] | scales[12] | d:f16 |
 *       16 groups of 16; 6-bit signed scales sc (stored + 32); 3-bit quants q in [-4, 3]
 *       x = d * (sc - 32) * q, q = (2 low bits, packed like Q2_K) - (hmask bit clear ? 4 : 0)
 *       hmask: bit k of hmask[l] is the high bit of element 32k + l.
 *       scales: low nibbles of groups 0-7 in bytes 0-7 (bits 0-3), of groups 8-15 in bytes
 *       0-7 (bits 4-7); top 2 bits of group g in byte 8 + g%4 at bit 2*(g/4).
 *
 *   Q4_K, 144 bytes  | d:f16 | dmin:f16 | scales[12] | qs[128] |
 *       8 groups of 32; 6-bit scale sc and min m per group; 4-bit quants q
 *       x = d * sc * q - dmin * m
 *       scales (groups j < 4): sc = s[j] & 63, m = s[j+4] & 63
 *              (groups j >= 4): sc = (s[j+4] & 15) | (s[j-4] >> 6) << 4,
 *                               m  = (s[j+4] >> 4) | (s[j]   >> 6) << 4
 *       qs: elements 64k + l in the low nibbles of qs[32k + l], 64k + 32 + l in the high ones.
 *
 *   Q5_K, 176 bytes  | d:f16 | dmin:f16 | scales[12] | qh[32] | qs[128] |
 *       as Q4_K with 5-bit quants: the fifth bit of element 64k + l is bit 2k of qh[l], of
 *       64k + 32 + l bit 2k+1.
 *
 *   Q6_K, 210 bytes  | ql[128] | qh[64] | scales[16]:i8 | d:f16 |
 *       16 groups of 16; 8-bit signed scales sc; 6-bit quants q (stored + 32)
 *       x = d * sc * (q - 32)
 *       each half h (128 elements) uses ql[64h..], qh[32h..]: element 128h + 32s + l has its
 *       low 4 bits in ql[64h + l + 32*(s&1)] (low nibble for s < 2, high for s >= 2) and its
 *       top 2 bits in qh[32h + l] at bit 2s.
 *
 *   Q8_K, 292 bytes  | d:f32 | qs[256]:i8 | bsums[16]:i16 |     x = d * q
 *       (an intermediate format of ggml's dot products; bsums are sums of 16 quants)
 *
 * Quantization follows ggml's quantize_qX_K exactly: without an importance matrix the
 * reference searches (make_qkx2_quants for Q2_K/Q4_K/Q5_K, make_q3_quants for Q3_K,
 * make_qx_quants for Q6_K) with the scales rounded against their maximum; with one, the
 * weighted searches (make_qkx3_quants, make_qx_quants) and the scales themselves quantized
 * with make_qp_quants / make_qx_quants weighted by each group's total weight. The searches
 * live in search.c; the AVX2 quantizers are this file's code with the batched AVX2 searches.
 */
#include "format/dtypes.h"
#include "quant.h"

#include <math.h>

/* The super-block, the same in every k-quant. */
#define QK_K GGUF__BLOCK_ELEMS(Q2_K)
_Static_assert(GGUF__BLOCK_ELEMS(Q3_K) == QK_K && GGUF__BLOCK_ELEMS(Q4_K) == QK_K &&
                   GGUF__BLOCK_ELEMS(Q5_K) == QK_K && GGUF__BLOCK_ELEMS(Q6_K) == QK_K &&
                   GGUF__BLOCK_ELEMS(Q8_K) == QK_K,
               "one super-block size");

static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }

/* ------------------------------------------------------------------------------------------ */
/* Packing shared by several types                                                             */

/* 2-bit quants of 256 elements into qs[64] (Q2_K, Q3_K low bits). */
static void pack_2bit(uint8_t *qs, const uint8_t *L) {
    for (int h = 0; h < QK_K; h += 128)
        for (int l = 0; l < 32; l++)
            qs[h / 4 + l] = (uint8_t)(L[h + l] | L[h + l + 32] << 2 | L[h + l + 64] << 4 |
                                      L[h + l + 96] << 6);
}

/* Q4_K / Q5_K: 6-bit scale and min of group j. */
static inline void scale_min_k4(int j, const uint8_t *s, uint8_t *sc, uint8_t *m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = (uint8_t)((s[j + 4] & 0xF) | (s[j - 4] >> 6) << 4);
        *m = (uint8_t)((s[j + 4] >> 4) | (s[j] >> 6) << 4);
    }
}

static void pack_scales_k4(uint8_t *s, const uint8_t *ls, const uint8_t *lm) {
    for (int j = 0; j < 8; j++) {
        if (j < 4) {
            s[j] = ls[j];
            s[j + 4] = lm[j];
        } else {
            s[j + 4] = (uint8_t)((ls[j] & 0xF) | (lm[j] & 0xF) << 4);
            s[j - 4] |= (uint8_t)((ls[j] >> 4) << 6);
            s[j] |= (uint8_t)((lm[j] >> 4) << 6);
        }
    }
}

/* Q3_K: the 6-bit scale code of group j (0..63). */
static inline int scale_q3(const uint8_t *s, int j) {
    int lo = j < 8 ? s[j] & 0xF : s[j - 8] >> 4;
    return lo | ((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4;
}

static void pack_scales_q3(uint8_t *s, const int8_t *codes) {
    memset(s, 0, 12);
    for (int j = 0; j < 16; j++) {
        int l = codes[j];
        if (j < 8)
            s[j] = (uint8_t)(l & 0xF);
        else
            s[j - 8] |= (uint8_t)((l & 0xF) << 4);
        l >>= 4;
        s[j % 4 + 8] |= (uint8_t)(l << (2 * (j / 4)));
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q2_K                                                                                        */

static void q2_k_finish(uint8_t *b, const float *x, uint8_t *L, const gguf__search_set *S) {
    float d = gguf__half_to_float(gguf__ld16(b + 80));
    float dmin = gguf__half_to_float(gguf__ld16(b + 82));
    for (int j = 0; j < QK_K / 16; j++) {
        float dl = d * (float)(b[j] & 0xF);
        if (dl == 0)
            continue;
        float ml = dmin * (float)(b[j] >> 4);
        S->requant(16, x + 16 * j, ml, true, dl, 0, 3, 0, L + 16 * j);
    }
    pack_2bit(b + 16, L);
}

static void q2_k_block_ref(uint8_t *b, const float *x, const gguf__search_set *S) {
    uint8_t L[QK_K];
    float w[QK_K], mins[QK_K / 16], scales[QK_K / 16];
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < QK_K; j++)
        w[j] = fabsf(x[j]);
    S->qkx(QK_K / 16, 16, 3, x, w, L, scales, mins, -0.5f, 0.1f, 15, true);
    for (int j = 0; j < QK_K / 16; j++) {
        if (scales[j] > max_scale)
            max_scale = scales[j];
        if (mins[j] > max_min)
            max_min = mins[j];
    }
    if (max_scale > 0) {
        float iscale = 15.f / max_scale;
        for (int j = 0; j < QK_K / 16; j++)
            b[j] = (uint8_t)gguf__nearest_int(iscale * scales[j]);
        gguf__st16(b + 80, gguf__float_to_half(max_scale / 15.f));
    } else {
        memset(b, 0, QK_K / 16);
        gguf__st16(b + 80, gguf__float_to_half(0.f));
    }
    if (max_min > 0) {
        float iscale = 15.f / max_min;
        for (int j = 0; j < QK_K / 16; j++)
            b[j] |= (uint8_t)(gguf__nearest_int(iscale * mins[j]) << 4);
        gguf__st16(b + 82, gguf__float_to_half(max_min / 15.f));
    } else {
        gguf__st16(b + 82, gguf__float_to_half(0.f));
    }
    q2_k_finish(b, x, L, S);
}

static void q2_k_block_imatrix(uint8_t *b, const float *x, const float *qw,
                               const gguf__search_set *S) {
    uint8_t L[QK_K], Ls[QK_K / 16], Lm[QK_K / 16];
    float w[QK_K], mins[QK_K / 16], scales[QK_K / 16], sw[QK_K / 16];
    float sumx2 = 0;
    for (int j = 0; j < QK_K; j++)
        sumx2 += x[j] * x[j];
    float sigma2 = sumx2 / (float)QK_K;
    for (int j = 0; j < QK_K / 16; j++) {
        const float *xs = x + 16 * j;
        float *ws = w + 16 * j;
        sw[j] = 0;
        for (int l = 0; l < 16; l++)
            ws[l] = qw[16 * j + l] * sqrtf(sigma2 + xs[l] * xs[l]);
        for (int l = 0; l < 16; l++)
            sw[j] += ws[l];
    }
    S->qkx(QK_K / 16, 16, 3, x, w, L, scales, mins, -0.9f, 0.05f, 36, false);
    float dm = gguf__make_qp_quants(QK_K / 16, 15, scales, Ls, sw);
    float mm = gguf__make_qp_quants(QK_K / 16, 15, mins, Lm, sw);
    gguf__st16(b + 80, gguf__float_to_half(dm));
    gguf__st16(b + 82, gguf__float_to_half(mm));
    for (int j = 0; j < QK_K / 16; j++)
        b[j] = (uint8_t)(Ls[j] | Lm[j] << 4);
    q2_k_finish(b, x, L, S);
}

static void dequant_q2_k(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q2_K)) {
        float d = gguf__half_to_float(gguf__ld16(b + 80));
        float dmin = gguf__half_to_float(gguf__ld16(b + 82));
        const uint8_t *q = b + 16;
        int is = 0;
        for (int h = 0; h < 2; h++, q += 32) {
            for (int shift = 0; shift < 8; shift += 2) {
                for (int half = 0; half < 2; half++) {
                    uint8_t sc = b[is++];
                    float dl = d * (float)(sc & 0xF), ml = dmin * (float)(sc >> 4);
                    const uint8_t *qq = q + 16 * half;
                    for (int l = 0; l < 16; l++)
                        *dst++ = dl * (float)((qq[l] >> shift) & 3) - ml;
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q3_K                                                                                        */

static void q3_k_finish(uint8_t *b, const float *x, int8_t *L, const gguf__search_set *S) {
    float d_all = gguf__half_to_float(gguf__ld16(b + 108));
    const uint8_t *s = b + 96;
    for (int j = 0; j < QK_K / 16; j++) {
        int8_t sc = (int8_t)(scale_q3(s, j) - 32);
        float d = d_all * (float)sc;
        if (d == 0)
            continue;
        S->requant(16, x + 16 * j, 0, false, d, -4, 3, 4, (uint8_t *)L + 16 * j);
    }
    uint8_t hmask[QK_K / 8] = {0};
    uint8_t U[QK_K];
    /* L[j] is within 0..7: its bit 2 is "L[j] > 3", and L[j] - 4 is then L[j] & 3 (element
     * 32k + m goes to bit k of hmask[m]; loops in that order, on a local array, vectorize) */
    for (int k = 0; k < QK_K / 32; k++)
        for (int m = 0; m < 32; m++)
            hmask[m] |= (uint8_t)((L[32 * k + m] >> 2 & 1) << k);
    for (int j = 0; j < QK_K; j++)
        U[j] = (uint8_t)(L[j] & 3);
    memcpy(b, hmask, sizeof hmask);
    pack_2bit(b + 32, U);
}

/* The rest of q3_k_block_ref once the sub-block searches have given L and scales. */
static void q3_k_block_searched(uint8_t *b, const float *x, int8_t *L, const float *scales,
                                const gguf__search_set *S) {
    int8_t codes[16];
    float max_scale = 0, amax = 0;
    for (int j = 0; j < QK_K / 16; j++) {
        float a = fabsf(scales[j]);
        if (a > amax) {
            amax = a;
            max_scale = scales[j];
        }
    }
    if (max_scale != 0) {
        float iscale = -32.f / max_scale;
        for (int j = 0; j < QK_K / 16; j++) {
            int8_t l = (int8_t)gguf__nearest_int(iscale * scales[j]);
            codes[j] = (int8_t)(imax(-32, imin(31, l)) + 32);
        }
        pack_scales_q3(b + 96, codes);
        gguf__st16(b + 108, gguf__float_to_half(1 / iscale));
    } else {
        memset(b + 96, 0, 12);
        gguf__st16(b + 108, gguf__float_to_half(0.f));
    }
    q3_k_finish(b, x, L, S);
}

static void q3_k_block_ref(uint8_t *b, const float *x, const gguf__search_set *S) {
    int8_t L[QK_K];
    float scales[QK_K / 16];
    S->q3(QK_K / 16, 16, 4, x, L, scales);
    q3_k_block_searched(b, x, L, scales, S);
}

/* Two consecutive blocks of a row at once (their 32 sub-block searches in one batch, which
 * the AVX2 searches run as four interleaved chains); each block as q3_k_block_ref. */
static void q3_k_block_pair_ref(uint8_t *b, const float *x, const gguf__search_set *S) {
    int8_t L[2 * QK_K];
    float scales[2 * QK_K / 16];
    S->q3(2 * QK_K / 16, 16, 4, x, L, scales);
    q3_k_block_searched(b, x, L, scales, S);
    q3_k_block_searched(b + GGUF__BLOCK_BYTES(Q3_K), x + QK_K, L + QK_K, scales + QK_K / 16, S);
}

static void q3_k_block_imatrix(uint8_t *b, const float *x, const float *qw,
                               const gguf__search_set *S) {
    int8_t L[QK_K], Ls[QK_K / 16];
    float scales[QK_K / 16], w[QK_K], sw[QK_K / 16];
    float sumx2 = 0;
    for (int j = 0; j < QK_K; j++)
        sumx2 += x[j] * x[j];
    float sigma2 = 2.0f * sumx2 / (float)QK_K;
    for (int j = 0; j < QK_K / 16; j++) {
        const float *xs = x + 16 * j;
        float *ws = w + 16 * j;
        for (int l = 0; l < 16; l++)
            ws[l] = qw[16 * j + l] * sqrtf(sigma2 + xs[l] * xs[l]);
        float sumw = 0;
        for (int l = 0; l < 16; l++)
            sumw += ws[l];
        sw[j] = sumw;
    }
    S->qx(QK_K / 16, 16, 4, x, w, L, scales);
    float d_block = gguf__make_qx_quants(QK_K / 16, 32, scales, Ls, 1, sw);
    pack_scales_q3(b + 96, Ls);
    gguf__st16(b + 108, gguf__float_to_half(d_block));
    q3_k_finish(b, x, L, S);
}

static void dequant_q3_k(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q3_K)) {
        float d_all = gguf__half_to_float(gguf__ld16(b + 108));
        const uint8_t *hm = b, *q = b + 32, *s = b + 96;
        int is = 0;
        unsigned m = 1;
        for (int h = 0; h < 2; h++, q += 32) {
            for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
                for (int half = 0; half < 2; half++) {
                    float dl = d_all * (float)(scale_q3(s, is++) - 32);
                    const uint8_t *qq = q + 16 * half, *hh = hm + 16 * half;
                    for (int l = 0; l < 16; l++) {
                        int v = ((qq[l] >> shift) & 3) - ((hh[l] & m) ? 0 : 4);
                        *dst++ = dl * (float)v;
                    }
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q4_K and Q5_K                                                                               */

/* The reference scale search of Q4_K (nmax 15) and Q5_K (nmax 31): per group of 32, weights
 * |x| + rms(group), then the scales and mins rounded against their maxima. Fills the header
 * (d, dmin, scales) and L. */
static void k4_header_ref(uint8_t *b, const float *x, uint8_t *L, int nmax, float rmin,
                          int nstep, const gguf__search_set *S) {
    uint8_t ls[8], lm[8];
    float w[QK_K], mins[8], scales[8];
    float max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; j++) {
        const float *xs = x + 32 * j;
        float sum_x2 = 0;
        for (int l = 0; l < 32; l++)
            sum_x2 += xs[l] * xs[l];
        float av_x = sqrtf(sum_x2 / 32.0f);
        for (int l = 0; l < 32; l++)
            w[32 * j + l] = av_x + fabsf(xs[l]);
    }
    S->qkx(8, 32, nmax, x, w, L, scales, mins, rmin, 0.1f, nstep, false);
    for (int j = 0; j < 8; j++) {
        if (scales[j] > max_scale)
            max_scale = scales[j];
        if (mins[j] > max_min)
            max_min = mins[j];
    }
    float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    for (int j = 0; j < 8; j++) {
        uint8_t s = (uint8_t)gguf__nearest_int(inv_scale * scales[j]);
        uint8_t m = (uint8_t)gguf__nearest_int(inv_min * mins[j]);
        ls[j] = s < 63 ? s : 63;
        lm[j] = m < 63 ? m : 63;
    }
    pack_scales_k4(b + 4, ls, lm);
    gguf__st16(b, gguf__float_to_half(max_scale / 63.f));
    gguf__st16(b + 2, gguf__float_to_half(max_min / 63.f));
}

/* The imatrix search of Q4_K / Q5_K (ggml's quantize_row_qX_K_impl, qw never NULL here).
 * ggml caps the scale codes at 63 for Q5_K only (clamp63); it matters when make_qp_quants
 * produces a negative code, which wraps. */
static void k4_header_imatrix(uint8_t *b, const float *x, const float *qw, uint8_t *L,
                              int nmax, bool clamp63, const gguf__search_set *S) {
    uint8_t Ls[8], Lm[8];
    float w[QK_K], sw[8], mins[8], scales[8];
    float sum_x2 = 0;
    for (int l = 0; l < QK_K; l++)
        sum_x2 += x[l] * x[l];
    float sigma2 = 2.0f * sum_x2 / (float)QK_K;
    for (int j = 0; j < 8; j++) {
        const float *xs = x + 32 * j;
        float *ws = w + 32 * j;
        for (int l = 0; l < 32; l++)
            ws[l] = qw[32 * j + l] * sqrtf(sigma2 + xs[l] * xs[l]);
        float sumw = 0;
        for (int l = 0; l < 32; l++)
            sumw += ws[l];
        sw[j] = sumw;
    }
    S->qkx(8, 32, nmax, x, w, L, scales, mins, -0.9f, 0.05f, 36, false);
    float d_block = gguf__make_qp_quants(8, 63, scales, Ls, sw);
    float m_block = gguf__make_qp_quants(8, 63, mins, Lm, sw);
    for (int j = 0; clamp63 && j < 8; j++) {
        Ls[j] = Ls[j] < 63 ? Ls[j] : 63;
        Lm[j] = Lm[j] < 63 ? Lm[j] : 63;
    }
    pack_scales_k4(b + 4, Ls, Lm);
    gguf__st16(b, gguf__float_to_half(d_block));
    gguf__st16(b + 2, gguf__float_to_half(m_block));
}

/* Final quants of Q4_K / Q5_K against the stored (rounded) scales. */
static void k4_requant(const uint8_t *b, const float *x, uint8_t *L, int nmax,
                       const gguf__search_set *S) {
    float d_all = gguf__half_to_float(gguf__ld16(b));
    float dmin = gguf__half_to_float(gguf__ld16(b + 2));
    for (int j = 0; j < 8; j++) {
        uint8_t sc, m;
        scale_min_k4(j, b + 4, &sc, &m);
        float d = d_all * (float)sc;
        if (d == 0)
            continue;
        float dm = dmin * (float)m;
        S->requant(32, x + 32 * j, dm, true, d, 0, nmax, 0, L + 32 * j);
    }
}

static void q4_k_pack(uint8_t *b, const uint8_t *L) {
    uint8_t *q = b + 16;
    for (int j = 0; j < QK_K; j += 64, q += 32)
        for (int l = 0; l < 32; l++)
            q[l] = (uint8_t)(L[j + l] | L[j + l + 32] << 4);
}

static void q5_k_pack(uint8_t *b, const uint8_t *L) {
    uint8_t *qh = b + 16, *ql = b + 48;
    memset(qh, 0, 32);
    uint8_t m1 = 1, m2 = 2;
    for (int n = 0; n < QK_K; n += 64, ql += 32) {
        for (int j = 0; j < 32; j++) {
            int l1 = L[n + j], l2 = L[n + j + 32];
            if (l1 > 15) {
                l1 -= 16;
                qh[j] |= m1;
            }
            if (l2 > 15) {
                l2 -= 16;
                qh[j] |= m2;
            }
            ql[j] = (uint8_t)(l1 | l2 << 4);
        }
        m1 = (uint8_t)(m1 << 2);
        m2 = (uint8_t)(m2 << 2);
    }
}

static void q4_k_block(uint8_t *b, const float *x, const float *qw, const gguf__search_set *S) {
    uint8_t L[QK_K];
    if (qw)
        k4_header_imatrix(b, x, qw, L, 15, false, S);
    else
        k4_header_ref(b, x, L, 15, -1.f, 20, S);
    k4_requant(b, x, L, 15, S);
    q4_k_pack(b, L);
}

static void q5_k_block(uint8_t *b, const float *x, const float *qw, const gguf__search_set *S) {
    uint8_t L[QK_K];
    if (qw)
        k4_header_imatrix(b, x, qw, L, 31, true, S);
    else
        k4_header_ref(b, x, L, 31, -0.5f, 15, S);
    k4_requant(b, x, L, 31, S);
    q5_k_pack(b, L);
}

static void dequant_q4_k(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q4_K)) {
        float d = gguf__half_to_float(gguf__ld16(b));
        float dmin = gguf__half_to_float(gguf__ld16(b + 2));
        const uint8_t *q = b + 16;
        for (int j = 0; j < 8; j += 2, q += 32) {
            uint8_t sc, m;
            scale_min_k4(j, b + 4, &sc, &m);
            float d1 = d * (float)sc, m1 = dmin * (float)m;
            scale_min_k4(j + 1, b + 4, &sc, &m);
            float d2 = d * (float)sc, m2 = dmin * (float)m;
            for (int l = 0; l < 32; l++)
                *dst++ = d1 * (float)(q[l] & 0xF) - m1;
            for (int l = 0; l < 32; l++)
                *dst++ = d2 * (float)(q[l] >> 4) - m2;
        }
    }
}

static void dequant_q5_k(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q5_K)) {
        float d = gguf__half_to_float(gguf__ld16(b));
        float dmin = gguf__half_to_float(gguf__ld16(b + 2));
        const uint8_t *qh = b + 16, *ql = b + 48;
        unsigned u1 = 1, u2 = 2;
        for (int j = 0; j < 8; j += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
            uint8_t sc, m;
            scale_min_k4(j, b + 4, &sc, &m);
            float d1 = d * (float)sc, m1 = dmin * (float)m;
            scale_min_k4(j + 1, b + 4, &sc, &m);
            float d2 = d * (float)sc, m2 = dmin * (float)m;
            for (int l = 0; l < 32; l++)
                *dst++ = d1 * (float)((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
            for (int l = 0; l < 32; l++)
                *dst++ = d2 * (float)((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q6_K                                                                                        */

static void q6_k_block(uint8_t *b, const float *x, const float *qw, const gguf__search_set *S) {
    int8_t L[QK_K];
    float scales[QK_K / 16];
    float max_scale = 0, max_abs_scale = 0;
    S->qx(QK_K / 16, 16, 32, x, qw, L, scales);
    for (int g = 0; g < QK_K / 16; g++) {
        if (fabsf(scales[g]) > max_abs_scale) {
            max_abs_scale = fabsf(scales[g]);
            max_scale = scales[g];
        }
    }
    if (max_abs_scale < GGUF__GROUP_MAX_EPS) {
        memset(b, 0, GGUF__BLOCK_BYTES(Q6_K));
        gguf__st16(b + 208, gguf__float_to_half(0.f));
        return;
    }
    float iscale = -128.f / max_scale;
    gguf__st16(b + 208, gguf__float_to_half(1 / iscale));
    int8_t *sc = (int8_t *)(b + 192);
    for (int g = 0; g < QK_K / 16; g++)
        sc[g] = (int8_t)imin(127, gguf__nearest_int(iscale * scales[g]));
    float d_all = gguf__half_to_float(gguf__ld16(b + 208));
    for (int g = 0; g < QK_K / 16; g++) {
        float d = d_all * (float)sc[g];
        if (d == 0)
            continue;
        S->requant(16, x + 16 * g, 0, false, d, -32, 31, 32, (uint8_t *)L + 16 * g);
    }
    uint8_t *ql = b, *qh = b + 128;
    for (int j = 0; j < QK_K; j += 128, ql += 64, qh += 32) {
        for (int l = 0; l < 32; l++) {
            int q1 = L[j + l], q2 = L[j + l + 32], q3 = L[j + l + 64], q4 = L[j + l + 96];
            ql[l] = (uint8_t)((q1 & 0xF) | (q3 & 0xF) << 4);
            ql[l + 32] = (uint8_t)((q2 & 0xF) | (q4 & 0xF) << 4);
            qh[l] = (uint8_t)((q1 >> 4) | (q2 >> 4) << 2 | (q3 >> 4) << 4 | (q4 >> 4) << 6);
        }
    }
}

static void dequant_q6_k(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q6_K)) {
        float d = gguf__half_to_float(gguf__ld16(b + 208));
        const uint8_t *ql = b, *qh = b + 128;
        const int8_t *sc = (const int8_t *)(b + 192);
        for (int h = 0; h < 2; h++, dst += 128, ql += 64, qh += 32, sc += 8) {
            for (int l = 0; l < 32; l++) {
                int is = l / 16;
                int q1 = ((ql[l] & 0xF) | ((qh[l] >> 0) & 3) << 4) - 32;
                int q2 = ((ql[l + 32] & 0xF) | ((qh[l] >> 2) & 3) << 4) - 32;
                int q3 = ((ql[l] >> 4) | ((qh[l] >> 4) & 3) << 4) - 32;
                int q4 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) & 3) << 4) - 32;
                dst[l] = d * (float)sc[is] * (float)q1;
                dst[l + 32] = d * (float)sc[is + 2] * (float)q2;
                dst[l + 64] = d * (float)sc[is + 4] * (float)q3;
                dst[l + 96] = d * (float)sc[is + 6] * (float)q4;
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Q8_K                                                                                        */

static void q8_k_block(uint8_t *b, const float *x) {
    float max = 0, amax = 0;
    for (int j = 0; j < QK_K; j++) {
        float ax = fabsf(x[j]);
        if (ax > amax) {
            amax = ax;
            max = x[j];
        }
    }
    if (amax == 0) {
        /* ggml leaves bsums unwritten here; we write zeros */
        memset(b, 0, GGUF__BLOCK_BYTES(Q8_K));
        return;
    }
    float iscale = -127.f / max;
    int8_t q[QK_K];
    for (int j = 0; j < QK_K; j++)
        q[j] = (int8_t)imin(127, gguf__nearest_int(iscale * x[j]));
    memcpy(b + 4, q, QK_K);
    for (int j = 0; j < QK_K / 16; j++) {
        int sum = 0;
        for (int i = 0; i < 16; i++)
            sum += q[16 * j + i];
        gguf__st16(b + 260 + 2 * j, (uint16_t)(int16_t)sum);
    }
    gguf__st32(b, gguf__f32_bits(1 / iscale));
}

static void quant_q8_k(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix) {
    (void)imatrix;
    uint8_t *b = dst;
    for (int64_t i = 0; i < nrows * n_per_row / QK_K; i++)
        q8_k_block(b + i * GGUF__BLOCK_BYTES(Q8_K), src + i * QK_K);
}

static void dequant_q8_k(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q8_K), dst += QK_K) {
        float d = gguf__f32_from_bits(gguf__ld32(b));
        for (int j = 0; j < QK_K; j++)
            dst[j] = d * (float)(int8_t)b[4 + j];
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Row drivers                                                                                 */

/* ggml quantizes without an imatrix as one long row (the blocks do not depend on the row
 * length), and with one row by row, the imatrix indexed by column. */
typedef void (*k_block_fn)(uint8_t *b, const float *x, const float *qw, const gguf__search_set *S);

static void k_quant_rows(k_block_fn block, size_t bytes, void *dst, const float *src,
                         int64_t nrows, int64_t n_per_row, const float *imatrix,
                         const gguf__search_set *S) {
    uint8_t *b = dst;
    int64_t nb = n_per_row / QK_K;
    for (int64_t r = 0; r < nrows; r++)
        for (int64_t i = 0; i < nb; i++) {
            const float *x = src + r * n_per_row + i * QK_K;
            const float *qw = imatrix ? imatrix + i * QK_K : NULL;
            bool plain = S == &gguf__search_scalar ||
                         (gguf__all_finite(x, QK_K) && gguf__all_finite(qw, QK_K));
            block(b + (size_t)(r * nb + i) * bytes, x, qw, plain ? S : &gguf__search_scalar);
        }
}

static void q2_k_block(uint8_t *b, const float *x, const float *qw, const gguf__search_set *S) {
    if (qw)
        q2_k_block_imatrix(b, x, qw, S);
    else
        q2_k_block_ref(b, x, S);
}

static void q3_k_block(uint8_t *b, const float *x, const float *qw, const gguf__search_set *S) {
    if (qw)
        q3_k_block_imatrix(b, x, qw, S);
    else
        q3_k_block_ref(b, x, S);
}

/* quant_TYPE (scalar searches) and quant_TYPE_avx2 (batched AVX2 searches; everything else is
 * the same scalar code, so the bytes are the same). */
#if GGUF__X86
#define K_QUANT_AVX2(name, block, bytes)                                                        \
    static void name##_avx2(void *dst, const float *src, int64_t nrows, int64_t n_per_row,      \
                            const float *imatrix) {                                             \
        k_quant_rows(block, bytes, dst, src, nrows, n_per_row, imatrix, &gguf__search_avx2);    \
    }
#else
#define K_QUANT_AVX2(name, block, bytes)
#endif
#define K_QUANT(name, block, bytes)                                                             \
    static void name(void *dst, const float *src, int64_t nrows, int64_t n_per_row,             \
                     const float *imatrix) {                                                    \
        k_quant_rows(block, bytes, dst, src, nrows, n_per_row, imatrix, &gguf__search_scalar);  \
    }                                                                                           \
    K_QUANT_AVX2(name, block, bytes)

K_QUANT(quant_q2_k, q2_k_block, GGUF__BLOCK_BYTES(Q2_K))
K_QUANT(quant_q3_k, q3_k_block, GGUF__BLOCK_BYTES(Q3_K))

#if GGUF__X86
/* Q3_K without an imatrix (Q3_K_M's common case): blocks in pairs where both are finite. */
static void quant_q3_k_pairs_avx2(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                                  const float *imatrix) {
    if (imatrix) {
        quant_q3_k_avx2(dst, src, nrows, n_per_row, imatrix);
        return;
    }
    const gguf__search_set *S = &gguf__search_avx2;
    uint8_t *b = dst;
    int64_t nb = n_per_row / QK_K;
    for (int64_t r = 0; r < nrows; r++) {
        const float *x = src + r * n_per_row;
        for (int64_t i = 0; i < nb; i++, b += GGUF__BLOCK_BYTES(Q3_K), x += QK_K) {
            bool finite = gguf__all_finite(x, QK_K);
            if (finite && i + 1 < nb && gguf__all_finite(x + QK_K, QK_K)) {
                q3_k_block_pair_ref(b, x, S);
                i++, b += GGUF__BLOCK_BYTES(Q3_K), x += QK_K;
                continue;
            }
            q3_k_block_ref(b, x, finite ? S : &gguf__search_scalar);
        }
    }
}
#endif
K_QUANT(quant_q4_k, q4_k_block, GGUF__BLOCK_BYTES(Q4_K))
K_QUANT(quant_q5_k, q5_k_block, GGUF__BLOCK_BYTES(Q5_K))
K_QUANT(quant_q6_k, q6_k_block, GGUF__BLOCK_BYTES(Q6_K))

/* ------------------------------------------------------------------------------------------ */
/* x86 SIMD dequantization: the helpers here, the kernels in kquants_x86.h                    */

#if GGUF__X86
#include "simd_x86.h"

GGUF__NOINLINE static void q2_k_dequant_block(float *y, const uint8_t *b) { dequant_q2_k(y, b, QK_K); }
GGUF__NOINLINE static void q3_k_dequant_block(float *y, const uint8_t *b) { dequant_q3_k(y, b, QK_K); }
GGUF__NOINLINE static void q4_k_dequant_block(float *y, const uint8_t *b) { dequant_q4_k(y, b, QK_K); }
GGUF__NOINLINE static void q5_k_dequant_block(float *y, const uint8_t *b) { dequant_q5_k(y, b, QK_K); }
GGUF__NOINLINE static void q6_k_dequant_block(float *y, const uint8_t *b) { dequant_q6_k(y, b, QK_K); }

static inline bool scales_special(const uint8_t *h2) {
    return gguf__half_special(gguf__ld16(h2)) || gguf__half_special(gguf__ld16(h2 + 2));
}

/* The per-group multipliers of a Q4_K/Q5_K super-block: dl[g] = d * sc, ml[g] = dmin * m. */
static inline void k4_group_scales(float *dl, float *ml, const uint8_t *b) {
    float d = gguf__half_to_float(gguf__ld16(b));
    float dmin = gguf__half_to_float(gguf__ld16(b + 2));
    for (int g = 0; g < 8; g++) {
        uint8_t sc, m;
        scale_min_k4(g, b + 4, &sc, &m);
        dl[g] = d * (float)sc;
        ml[g] = dmin * (float)m;
    }
}

/* Q2_K: the 2-bit quants of half h, shift s as 32 bytes (elements 128h + 32s + 0..31). */
GGUF__TARGET_AVX2 static inline __m256i q2_bits_avx2(__m256i q, int s) {
    return _mm256_and_si256(_mm256_srl_epi16(q, _mm_cvtsi32_si128(2 * s)), _mm256_set1_epi8(3));
}

/* Q3_K: the 16 group scales minus 32. */
static inline void q3_k_group_scales(float *dl, const uint8_t *b) {
    float d_all = gguf__half_to_float(gguf__ld16(b + 108));
    for (int g = 0; g < 16; g++)
        dl[g] = d_all * (float)(scale_q3(b + 96, g) - 32);
}

/* Q3_K: quants of half h, shift s: 2 low bits minus 4 when the hmask bit 4h + s is clear. */
GGUF__TARGET_AVX2 static inline __m256i q3_quants_avx2(__m256i q, __m256i hm, int h, int s) {
    __m256i lo = q2_bits_avx2(q, s);
    __m256i bit = _mm256_set1_epi8((char)(1 << (4 * h + s)));
    __m256i clear = _mm256_cmpeq_epi8(_mm256_and_si256(hm, bit), _mm256_setzero_si256());
    return _mm256_sub_epi8(lo, _mm256_and_si256(clear, _mm256_set1_epi8(4)));
}

/* Q5_K: quants of group pair k (elements 64k..64k+63) as two 32-byte vectors. */
GGUF__TARGET_AVX2 static inline void q5_quants_avx2(__m256i *lo, __m256i *hi, __m256i ql,
                                                    __m256i qh, int k) {
    const __m256i nib = _mm256_set1_epi8(0x0F), sixteen = _mm256_set1_epi8(16);
    __m256i b1 = _mm256_set1_epi8((char)(1 << (2 * k))), b2 = _mm256_set1_epi8((char)(2 << (2 * k)));
    __m256i h1 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, b1), b1), sixteen);
    __m256i h2 = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, b2), b2), sixteen);
    *lo = _mm256_add_epi8(_mm256_and_si256(ql, nib), h1);
    *hi = _mm256_add_epi8(_mm256_and_si256(_mm256_srli_epi16(ql, 4), nib), h2);
}

/* Q6_K: the four 32-byte quant vectors (s = 0..3) of one half, minus 32. */
GGUF__TARGET_AVX2 static inline void q6_quants_avx2(__m256i q[4], const uint8_t *ql,
                                                    const uint8_t *qh) {
    const __m256i nib = _mm256_set1_epi8(0x0F), top = _mm256_set1_epi8(0x30);
    const __m256i off = _mm256_set1_epi8(32);
    __m256i l0 = ld256(ql), l1 = ld256(ql + 32), h = ld256(qh);
    q[0] = _mm256_or_si256(_mm256_and_si256(l0, nib), _mm256_and_si256(_mm256_slli_epi16(h, 4), top));
    q[1] = _mm256_or_si256(_mm256_and_si256(l1, nib), _mm256_and_si256(_mm256_slli_epi16(h, 2), top));
    q[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), nib), _mm256_and_si256(h, top));
    q[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), nib),
                           _mm256_and_si256(_mm256_srli_epi16(h, 2), top));
    for (int s = 0; s < 4; s++)
        q[s] = _mm256_sub_epi8(q[s], off);
}

#define LO128(v) _mm256_castsi256_si128(v)
#define HI128(v) _mm256_extracti128_si256(v, 1)

/* One body per kernel (kquants_x86.h), once per instruction set. */
#define KX_TARGET GGUF__TARGET_AVX2
#define KX(name) name##_avx2
#define KX_VEC __m256
#define KX_SET1 _mm256_set1_ps
#define KX_MUL i8x16_mul_avx2
#define KX_MULSUB i8x16_mulsub_avx2
#include "kquants_x86.h"
#undef KX_TARGET
#undef KX
#undef KX_VEC
#undef KX_SET1
#undef KX_MUL
#undef KX_MULSUB

#define KX_TARGET GGUF__TARGET_AVX512
#define KX(name) name##_avx512
#define KX_VEC __m512
#define KX_SET1 _mm512_set1_ps
#define KX_MUL i8x16_mul_avx512
#define KX_MULSUB i8x16_mulsub_avx512
#include "kquants_x86.h"

#define K_SIMD(level, fn) [level] = fn
#else
#define K_SIMD(level, fn) [level] = NULL
#endif /* GGUF__X86 */

const gguf__quant_kernels gguf__kernels_q2_k = {
    .dequant = dequant_q2_k,
    .quant = quant_q2_k,
    .quant_simd = {K_SIMD(GGUF__SIMD_AVX2, quant_q2_k_avx2)},
    .dequant_simd = {K_SIMD(GGUF__SIMD_AVX2, dequant_q2_k_avx2),
                     K_SIMD(GGUF__SIMD_AVX512, dequant_q2_k_avx512)},
};
const gguf__quant_kernels gguf__kernels_q3_k = {
    .dequant = dequant_q3_k,
    .quant = quant_q3_k,
    .quant_simd = {K_SIMD(GGUF__SIMD_AVX2, quant_q3_k_pairs_avx2)},
    .dequant_simd = {K_SIMD(GGUF__SIMD_AVX2, dequant_q3_k_avx2),
                     K_SIMD(GGUF__SIMD_AVX512, dequant_q3_k_avx512)},
};
const gguf__quant_kernels gguf__kernels_q4_k = {
    .dequant = dequant_q4_k,
    .quant = quant_q4_k,
    .quant_simd = {K_SIMD(GGUF__SIMD_AVX2, quant_q4_k_avx2)},
    .dequant_simd = {K_SIMD(GGUF__SIMD_AVX2, dequant_q4_k_avx2),
                     K_SIMD(GGUF__SIMD_AVX512, dequant_q4_k_avx512)},
};
const gguf__quant_kernels gguf__kernels_q5_k = {
    .dequant = dequant_q5_k,
    .quant = quant_q5_k,
    .quant_simd = {K_SIMD(GGUF__SIMD_AVX2, quant_q5_k_avx2)},
    .dequant_simd = {K_SIMD(GGUF__SIMD_AVX2, dequant_q5_k_avx2),
                     K_SIMD(GGUF__SIMD_AVX512, dequant_q5_k_avx512)},
};
const gguf__quant_kernels gguf__kernels_q6_k = {
    .dequant = dequant_q6_k,
    .quant = quant_q6_k,
    .quant_simd = {K_SIMD(GGUF__SIMD_AVX2, quant_q6_k_avx2)},
    .dequant_simd = {K_SIMD(GGUF__SIMD_AVX2, dequant_q6_k_avx2),
                     K_SIMD(GGUF__SIMD_AVX512, dequant_q6_k_avx512)},
};
const gguf__quant_kernels gguf__kernels_q8_k = {.dequant = dequant_q8_k, .quant = quant_q8_k};
