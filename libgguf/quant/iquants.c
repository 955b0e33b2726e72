/* The lattice i-quants: IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ1_S and IQ1_M. 256 elements
 * per block; groups of 8 (or 4) magnitudes are one point of a fixed grid (iq_tables.h; G[p][k]
 * below is the value of coordinate k of grid point p), and signs are stored apart.
 * Multi-byte fields are little-endian; sgn(s, k) is -1 when bit k of s is set, else +1;
 * signs7(s) completes 7 sign bits with an 8th that makes the count of minus signs even.
 *
 *   IQ2_XXS, 66 bytes   | d:f16 | q[8]:(u32 a, u32 b) |            one (a, b) per 32 elements
 *       db = d * (0.5 + (b >> 28)) / 4
 *       x[32i + 8l + k] = db * G[a >> 8l & 255][k] * sgn(signs7(b >> 7l & 127), k)   G = iq2xxs
 *
 *   IQ2_XS, 74 bytes    | d:f16 | q[32]:u16 | sc[8] |               one q per 8 elements
 *       db = d * (0.5 + (sc[i] >> 4h & 15)) / 4                     h = 0, 1 for each 16
 *       x[8m + k] = db * G[q[m] & 511][k] * sgn(signs7(q[m] >> 9), k)               G = iq2xs
 *
 *   IQ2_S, 82 bytes     | d:f16 | qs[32] | sg[32] | qh[8] | sc[8] |
 *       db as IQ2_XS; index of group m = qs[m] | (qh[m/4] >> 2(m%4) & 3) << 8
 *       x[8m + k] = db * G[index][k] * sgn(sg[m], k)                                G = iq2s
 *
 *   IQ3_XXS, 98 bytes   | d:f16 | qs[64] | w[8]:u32 |                one w per 32 elements
 *       db = d * (0.5 + (w >> 28)) / 2
 *       x[32i + 8l + k] = db * G[qs[8i + 2l + k/4]][k%4] * sgn(signs7(w >> 7l & 127), k)
 *                                                                                    G = iq3xxs
 *   IQ3_S, 110 bytes    | d:f16 | qs[64] | qh[8] | sg[32] | sc[4] |
 *       index of group m (4 elements) = qs[m] | (qh[m/8] >> (m%8) & 1) << 8
 *       db = d * (1 + 2 (sc[i/2] >> 4(i%2) & 15))                   per 32 elements
 *       x[4m + k] = db * G[index][k] * sgn(sg[m/2], 4(m%2) + k)                     G = iq3s
 *
 *   IQ1_S, 50 bytes     | d:f16 | qs[32] | qh[8]:u16 |               one qh per 32 elements
 *       index of group m = qs[m] | (qh[m/4] >> 3(m%4) & 7) << 8
 *       dl = d * (2 (qh >> 12 & 7) + 1),  delta = qh & 0x8000 ? -1/8 : 1/8
 *       x[8m + k] = dl * (G[index][k] + delta)                     G = iq1s (values -1, 0, 1)
 *
 *   IQ1_M, 56 bytes     | qs[32] | qh[16] | sc[4]:u16 |              no separate d:
 *       d = f16 made of the top nibbles of sc[0], sc[1], sc[2], sc[3] (low to high)
 *       index of group m = qs[m] | (qh[m/2] >> 4(m%2) & 7) << 8
 *       delta of group m = qh[m/2] >> 4(m%2) & 8 ? -1/8 : 1/8
 *       dl of 16 elements t = d * (2 (sc[t/4] >> 3(t%4) & 7) + 1)
 *       x[8m + k] = dl * (G[index][k] + delta)                     G = iq1s
 *
 * Quantizing follows ggml's quantize_iq* step for step (so the bytes match): per sub-block,
 * the signs are split off (IQ2_XXS, IQ2_XS and IQ3_XXS flip the least important element when
 * the count of negatives is odd), a range of trial scales rounds the magnitudes to levels,
 * off-grid groups take the best of their precomputed candidates, and the best-fitting scale is
 * refined and coded relative to the block maximum. IQ1_S/IQ1_M split each sub-block into the
 * three levels exhaustively over sorted values. IQ2_XXS, IQ2_XS and IQ1_S need an imatrix; the
 * others weight by x^2 (IQ2_S: sigma2/4 + x^2) without one. ggml's IQ3_S quantizer writes the
 * qs and signs of the sub-blocks after an all-zero one a slot early (see quant_block_iq3_s);
 * we do too, so that files match.
 *
 * Where ggml would abort (no candidate compares better, which only NaN or Inf input causes) we
 * take the first candidate and go on. Inf input can also make ggml's IQ2_XXS reuse levels of
 * an earlier sub-block, or of an earlier call at the start of a row; we keep them within a
 * block and start each block from zeros.
 */
#include "iq_tables.h"
#include "format/dtypes.h"
#include "quant.h"

#include <float.h>
#include <math.h>

/* The super-block, the same in every type of this file. */
#define QK GGUF__BLOCK_ELEMS(IQ2_XXS)
_Static_assert(GGUF__BLOCK_ELEMS(IQ2_XS) == QK && GGUF__BLOCK_ELEMS(IQ2_S) == QK &&
                   GGUF__BLOCK_ELEMS(IQ3_XXS) == QK && GGUF__BLOCK_ELEMS(IQ3_S) == QK &&
                   GGUF__BLOCK_ELEMS(IQ1_S) == QK && GGUF__BLOCK_ELEMS(IQ1_M) == QK,
               "one super-block size");

#define IQ1_DELTA 0.125f

/* ------------------------------------------------------------------------------------------ */
/* Dequantization                                                                              */

static inline float sgn(unsigned signs, int k) {
    return signs >> k & 1 ? -1.f : 1.f;
}

static void dequant_iq2_xxs(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ2_XXS)) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        for (int ib = 0; ib < QK / 32; ib++) {
            const uint8_t *q = b + 2 + 8 * ib;
            const uint32_t aux = gguf__ld32(q + 4);
            const float db = d * (0.5f + (float)(aux >> 28)) * 0.25f;
            for (int l = 0; l < 4; l++, y += 8) {
                const unsigned code = gguf__iq2xxs_codes[q[l]];
                const unsigned signs = gguf__iq_signs7(aux >> (7 * l) & 127);
                for (int k = 0; k < 8; k++)
                    y[k] = db * (float)gguf__iq2_value(gguf__iq_level2(code, k)) * sgn(signs, k);
            }
        }
    }
}

static void dequant_iq2_xs(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ2_XS)) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const uint8_t *sc = b + 66;
        for (int ib = 0; ib < QK / 32; ib++) {
            const float db[2] = {d * (0.5f + (float)(sc[ib] & 15)) * 0.25f,
                                 d * (0.5f + (float)(sc[ib] >> 4)) * 0.25f};
            for (int l = 0; l < 4; l++, y += 8) {
                const unsigned q = gguf__ld16(b + 2 + 2 * (4 * ib + l));
                const unsigned code = gguf__iq2xs_codes[q & 511];
                const unsigned signs = gguf__iq_signs7(q >> 9);
                for (int k = 0; k < 8; k++)
                    y[k] = db[l / 2] * (float)gguf__iq2_value(gguf__iq_level2(code, k)) *
                           sgn(signs, k);
            }
        }
    }
}

static void dequant_iq2_s(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ2_S)) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const uint8_t *qs = b + 2, *signs = b + 34, *qh = b + 66, *sc = b + 74;
        for (int ib = 0; ib < QK / 32; ib++) {
            const float db[2] = {d * (0.5f + (float)(sc[ib] & 15)) * 0.25f,
                                 d * (0.5f + (float)(sc[ib] >> 4)) * 0.25f};
            for (int l = 0; l < 4; l++, y += 8) {
                const unsigned idx = qs[4 * ib + l] | ((unsigned)qh[ib] << (8 - 2 * l) & 0x300);
                const unsigned code = gguf__iq2s_codes[idx];
                for (int k = 0; k < 8; k++)
                    y[k] = db[l / 2] * (float)gguf__iq2_value(gguf__iq_level2(code, k)) *
                           sgn(signs[4 * ib + l], k);
            }
        }
    }
}

static void dequant_iq3_xxs(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ3_XXS)) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < QK / 32; ib++, qs += 8) {
            const uint32_t aux = gguf__ld32(b + 66 + 4 * ib);
            const float db = d * (0.5f + (float)(aux >> 28)) * 0.5f;
            for (int l = 0; l < 4; l++, y += 8) {
                const unsigned signs = gguf__iq_signs7(aux >> (7 * l) & 127);
                const unsigned c1 = gguf__iq3xxs_codes[qs[2 * l]];
                const unsigned c2 = gguf__iq3xxs_codes[qs[2 * l + 1]];
                for (int k = 0; k < 4; k++) {
                    y[k] = db * (float)gguf__iq3xxs_value(gguf__iq_level3(c1, k)) * sgn(signs, k);
                    y[k + 4] =
                        db * (float)gguf__iq3xxs_value(gguf__iq_level3(c2, k)) * sgn(signs, k + 4);
                }
            }
        }
    }
}

static void dequant_iq3_s(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ3_S)) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74, *sc = b + 106;
        for (int ib = 0; ib < QK / 32; ib++, qs += 8, signs += 4) {
            const int s = sc[ib / 2] >> (4 * (ib % 2)) & 15;
            const float db = d * (float)(1 + 2 * s);
            for (int l = 0; l < 4; l++, y += 8) {
                const unsigned i1 = qs[2 * l] | ((unsigned)qh[ib] << (8 - 2 * l) & 256);
                const unsigned i2 = qs[2 * l + 1] | ((unsigned)qh[ib] << (7 - 2 * l) & 256);
                const unsigned c1 = gguf__iq3s_codes[i1], c2 = gguf__iq3s_codes[i2];
                for (int k = 0; k < 4; k++) {
                    y[k] = db * (float)gguf__iq3s_value(gguf__iq_level3(c1, k)) * sgn(signs[l], k);
                    y[k + 4] = db * (float)gguf__iq3s_value(gguf__iq_level3(c2, k)) *
                               sgn(signs[l], k + 4);
                }
            }
        }
    }
}

static void dequant_iq1_s(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ1_S)) {
        const float d = gguf__half_to_float(gguf__ld16(b));
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < QK / 32; ib++, qs += 4) {
            const unsigned qh = gguf__ld16(b + 34 + 2 * ib);
            const float dl = d * (float)(2 * (qh >> 12 & 7) + 1);
            const float delta = qh & 0x8000 ? -IQ1_DELTA : IQ1_DELTA;
            for (int l = 0; l < 4; l++, y += 8) {
                const unsigned code = gguf__iq1s_codes[qs[l] | (qh >> (3 * l) & 7) << 8];
                for (int k = 0; k < 8; k++)
                    y[k] = dl * ((float)gguf__iq1_value(gguf__iq_level2(code, k)) + delta);
            }
        }
    }
}

/* The f16 scale of an IQ1_M block, spread over the top nibbles of its four scale words. */
static inline uint16_t iq1m_scale_bits(const uint8_t *sc) {
    return (uint16_t)(gguf__ld16(sc) >> 12 | (gguf__ld16(sc + 2) >> 8 & 0x00F0) |
                      (gguf__ld16(sc + 4) >> 4 & 0x0F00) | (gguf__ld16(sc + 6) & 0xF000));
}

static void dequant_iq1_m(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ1_M)) {
        const uint8_t *qs = b, *qh = b + 32, *sc = b + 48;
        const float d = gguf__half_to_float(iq1m_scale_bits(sc));
        for (int ib = 0; ib < QK / 32; ib++, qs += 4, qh += 2) {
            const unsigned s = gguf__ld16(sc + 2 * (ib / 2));
            const float dl[2] = {d * (float)(2 * (s >> (6 * (ib % 2)) & 7) + 1),
                                 d * (float)(2 * (s >> (6 * (ib % 2) + 3) & 7) + 1)};
            for (int l = 0; l < 4; l++, y += 8) {
                const unsigned h = qh[l / 2] >> (4 * (l % 2));
                const unsigned code = gguf__iq1s_codes[qs[l] | (h & 7) << 8];
                const float delta = h & 8 ? -IQ1_DELTA : IQ1_DELTA;
                for (int k = 0; k < 8; k++)
                    y[k] = dl[l / 2] * ((float)gguf__iq1_value(gguf__iq_level2(code, k)) + delta);
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Quantization: shared steps                                                                  */

#define EPS_IQ3_XXS 1e-8f
#define EPS_IQ2_S 1e-8f
#define EPS_IQ1_M 1e-7f
#define EPS_IQ1_S 1e-12f

static inline float maxf(float a, float b) {
    return a > b ? a : b; /* ggml's MAX: b when either is NaN */
}

/* Sum of squares of the super-block. */
static float sum_squares(const float *x) {
    float s = 0;
    for (int i = 0; i < QK; i++)
        s += x[i] * x[i];
    return s;
}

/* Weights of n elements: imatrix * sqrt(sigma2 + x^2), or x^2 without an imatrix. */
static void element_weights(float *w, const float *x, const float *qw, float sigma2, int n) {
    if (qw) {
        for (int i = 0; i < n; i++)
            w[i] = qw[i] * sqrtf(sigma2 + x[i] * x[i]);
    } else {
        for (int i = 0; i < n; i++)
            w[i] = x[i] * x[i];
    }
}

/* Magnitudes and sign bits of 8 elements (bit i set: x[i] is negative). With even_parity,
 * an odd count of negatives is made even by leaving the element of least w x^2 negative in
 * xval and its sign bit flipped. */
static unsigned split_signs(float *xval, const float *x, const float *w, bool even_parity) {
    unsigned s = 0;
    int nflip = 0;
    for (int i = 0; i < 8; i++) {
        if (x[i] >= 0) {
            xval[i] = x[i];
        } else {
            xval[i] = -x[i];
            nflip++;
            s |= 1u << i;
        }
    }
    if (even_parity && nflip % 2) {
        int imin = 0;
        float min = w[0] * x[0] * x[0];
        for (int i = 1; i < 8; i++) {
            float ax = w[i] * x[i] * x[i];
            if (ax < min) {
                min = ax;
                imin = i;
            }
        }
        xval[imin] = -xval[imin];
        s ^= 1u << imin;
    }
    return s;
}

/* The group shapes: 8 coordinates of 2 bits (IQ2 and IQ1 grids) or 4 of 3 bits (IQ3 grids).
 * The helpers below take the width as a literal argument and are forced inline, so that each
 * caller gets loops of constant length. */
#if defined(__GNUC__)
#define FORCE_INLINE inline __attribute__((always_inline))
#else
#define FORCE_INLINE inline
#endif

/* What the quantizers search with: the grid's tables and, in the SIMD entries, a faster
 * candidate search. pick(s, bits, list, x, w, scale, values) returns the grid index of the
 * candidate of `list` (see gguf__iq_candidates) that the scalar searches below choose for the
 * same arguments -- the first of least sum of w[i] (scale values[level i] - x[i])^2 -- or -1
 * when none compares below FLT_MAX. values holds the level values: 3 for 2-bit grids, 8 for
 * 3-bit ones. */
typedef struct iq_ctx iq_ctx;
/* IQ1_S's best split: returns besti1 (-1: none) and fills *besti2, *shift, *scale. */
typedef int (*split32_fn)(const float *sumx, const float *sumw, float *scale, int *besti2,
                          int *shift);
typedef void (*split16_fn)(const int *idx, const float *x, const float *w, float (*sumqx)[4],
                           float (*sumq2)[4]);
typedef int (*pick_fn)(const iq_ctx *s, int bits, const uint16_t *list, const float *x,
                       const float *w, float scale, const float *values);
struct iq_ctx {
    const uint16_t *codes;        /* the grid */
    const int32_t *map;           /* gguf__iq_search's map */
    const gguf__iq_search *tables;
    pick_fn pick;                 /* NULL: the scalar searches */
    /* IQ1_M's split sums (see iq1m_split_sums); NULL: the scalar loop */
    split16_fn split16;
    /* IQ1_S's split search (see iq1s_split_search); NULL: the scalar loop */
    split32_fn split32;
};

/* Values 2l + 1 of the levels, as the scalar searches compute them. */
static const float odd_values[8] = {1, 3, 5, 7, 9, 11, 13, 15};

static FORCE_INLINE int ncoords(int bits) {
    return bits == 2 ? 8 : 4;
}

static FORCE_INLINE unsigned level_at(int bits, unsigned code, int i) {
    return (code >> (bits * i)) & ((1u << bits) - 1);
}

/* Packs the levels of one group into a code. */
static FORCE_INLINE unsigned pack_code(int bits, const int8_t *L) {
    unsigned u = 0;
    for (int i = 0; i < ncoords(bits); i++)
        u |= (unsigned)L[i] << (bits * i);
    return u;
}

static FORCE_INLINE int32_t lookup(const iq_ctx *s, int bits, unsigned code) {
    return s->map[gguf__iq_map_index(bits, code)];
}

/* lookup(s, bits, pack_code(bits, L)) without packing: the map index of 2-bit levels is their
 * base-3 value, that of 3-bit levels their packed code. */
static FORCE_INLINE int32_t lookup_levels(const iq_ctx *s, int bits, const int8_t *L) {
    if (bits == 3)
        return s->map[L[0] | L[1] << 3 | L[2] << 6 | L[3] << 9];
    return s->map[L[0] + 3 * L[1] + 9 * L[2] + 27 * L[3] + 81 * L[4] + 243 * L[5] +
                  729 * L[6] + 2187 * L[7]];
}

/* Level of x at inverse scale id: round((id x - 1) / 2), clamped to 0..maxl. */
static FORCE_INLINE int8_t round_level(float id, float x, int maxl) {
    int l = gguf__nearest_int(0.5f * (id * x - 1));
    return (int8_t)(l < 0 ? 0 : l > maxl ? maxl : l);
}

static FORCE_INLINE void set_levels(const iq_ctx *s, int bits, int8_t *L,
                                    int grid_index) {
    unsigned code = s->codes[grid_index];
    for (int i = 0; i < ncoords(bits); i++)
        L[i] = (int8_t)level_at(bits, code, i);
}

/* The candidate of off-grid entry m closest to xval in weighted distance at this scale (the
 * first of equals); writes its levels to L. */
static FORCE_INLINE int best_candidate(const iq_ctx *s, int bits, int32_t m,
                                       const float *xval, const float *w, float scale,
                                       int8_t *L) {
    const uint16_t *list = gguf__iq_candidates(s->tables, m);
    float best_d2 = FLT_MAX;
    int best = -1;
    if (s->pick) { /* the SIMD search, same answer */
        best = s->pick(s, bits, list, xval, w, scale, odd_values);
    } else {
        for (int j = 1; j <= list[0]; j++) {
            unsigned code = s->codes[list[j]];
            float d2 = 0;
            for (int i = 0; i < ncoords(bits); i++) {
                float q = (float)(2 * (int)level_at(bits, code, i) + 1);
                float diff = scale * q - xval[i];
                d2 += w[i] * diff * diff;
            }
            if (d2 < best_d2) {
                best_d2 = d2;
                best = list[j];
            }
        }
    }
    if (best < 0) /* ggml aborts here (NaN input) */
        best = list[1];
    set_levels(s, bits, L, best);
    return best;
}

/* The grid point of code u, whose levels must already be on the grid (ggml aborts otherwise,
 * which only degenerate input reaches; we take its first candidate). */
static int grid_point(const iq_ctx *s, int bits, unsigned u) {
    int32_t m = lookup(s, bits, u);
    return m >= 0 ? m : gguf__iq_candidates(s->tables, m)[1];
}

/* Rounds a group to levels at inverse scale id and snaps it to the grid: on-grid codes as they
 * are, others to their best candidate at scale `scale`. Returns whether it was on the grid. */
static FORCE_INLINE bool snap_group(const iq_ctx *s, int bits, int8_t *L,
                                    const float *xval, const float *waux, float id,
                                    float scale) {
    const int maxl = bits == 2 ? 2 : 7;
    for (int i = 0; i < ncoords(bits); i++)
        L[i] = round_level(id, xval[i], maxl);
    int32_t m = lookup_levels(s, bits, L);
    if (m >= 0)
        return true;
    best_candidate(s, bits, m, xval, waux, scale, L);
    return false;
}

/* Weighted fit of levels L (value 2l+1) to xval: sum w x q and sum w q^2. */
static void fit_sums(const int8_t *L, const float *xval, const float *w, int n, float *sumqx,
                     float *sumq2) {
    float sx = 0, s2 = 0;
    for (int i = 0; i < n; i++) {
        float q = (float)(2 * L[i] + 1);
        sx += w[i] * xval[i] * q;
        s2 += w[i] * q * q;
    }
    *sumqx = sx;
    *sumq2 = s2;
}

/* 4-bit code of a sub-block scale relative to the block's d = 1/id: round((id s - 1) / 2). */
static inline unsigned scale_code(float id, float scale, int maxl) {
    int l = gguf__nearest_int(0.5f * (id * scale - 1));
    return (unsigned)(l < 0 ? 0 : l > maxl ? maxl : l);
}

/* ------------------------------------------------------------------------------------------ */
/* IQ2_XXS                                                                                     */

static void quant_block_iq2_xxs(uint8_t *b, const float *x, const float *qw,
                                const iq_ctx *s) {
    float scales[QK / 32], weight[32], xval[32], waux[32];
    int8_t L[32] = {0}, Laux[32]; /* L carries over between sub-blocks, as in ggml */
    uint8_t Lqp[32];
    uint32_t q2[2 * (QK / 32)] = {0};
    unsigned block_signs[4];

    gguf__st16(b, gguf__float_to_half(0.f));
    float max_scale = 0;
    const float sigma2 = sum_squares(x) / QK;
    for (int ib = 0; ib < QK / 32; ib++) {
        const float *xb = x + 32 * ib;
        element_weights(weight, xb, qw + 32 * ib, sigma2, 32);
        for (int i = 0; i < 32; i++)
            waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 4; k++)
            block_signs[k] = split_signs(xval + 8 * k, xb + 8 * k, weight + 8 * k, true) & 127;
        float max = xval[0];
        for (int i = 1; i < 32; i++)
            max = maxf(max, xval[i]);
        if (max < GGUF__GROUP_MAX_EPS) {
            scales[ib] = 0;
            memset(L, 0, 32);
            continue;
        }
        float scale = gguf__make_qp_quants(32, 4, xval, Lqp, weight);
        const float eff_max = scale * 3;
        if (eff_max <= 0) {
            scales[ib] = 0;
            memset(L, 0, 32);
            continue;
        }
        float best = 0;
        for (int is = -6; is <= 6; is++) {
            const float id = (5 + (float)is * 0.1f) / eff_max;
            const float this_scale = 1 / id;
            for (int k = 0; k < 4; k++)
                snap_group(s, 2, Laux + 8 * k, xval + 8 * k, waux + 8 * k, id, this_scale);
            float sumqx, sumq2;
            fit_sums(Laux, xval, weight, 32, &sumqx, &sumq2);
            if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
                scale = sumqx / sumq2;
                best = scale * sumqx;
                memcpy(L, Laux, 32);
            }
        }
        if (scale > 0) {
            const float id = 1 / scale;
            for (int k = 0; k < 4; k++)
                snap_group(s, 2, L + 8 * k, xval + 8 * k, waux + 8 * k, id, scale);
            float sumqx, sumq2;
            fit_sums(L, xval, weight, 32, &sumqx, &sumq2);
            if (sumq2 > 0)
                scale = sumqx / sumq2;
        }
        if (scale < 0) {
            scale = -scale;
            for (int k = 0; k < 4; k++)
                block_signs[k] = ~block_signs[k] & 127;
        }
        for (int k = 0; k < 4; k++) {
            q2[2 * ib] |= (uint32_t)grid_point(s, 2, pack_code(2, L + 8 * k)) << (8 * k);
            q2[2 * ib + 1] |= (uint32_t)block_signs[k] << (7 * k);
        }
        scales[ib] = scale;
        max_scale = maxf(max_scale, scale);
    }
    if (!max_scale) {
        memset(b + 2, 0, QK / 4);
        return;
    }
    const float d = max_scale / 31;
    gguf__st16(b, gguf__float_to_half(d));
    const float id = 1 / d;
    for (int ib = 0; ib < QK / 32; ib++)
        q2[2 * ib + 1] |= (uint32_t)scale_code(id, scales[ib], 15) << 28;
    for (int i = 0; i < 2 * (QK / 32); i++)
        gguf__st32(b + 2 + 4 * i, q2[i]);
}

/* ------------------------------------------------------------------------------------------ */
/* IQ2_XS and IQ2_S: 16-element sub-blocks                                                     */

/* The scale search of IQ2_XS and IQ2_S over one 16-element sub-block: levels in L, returns
 * the scale (maybe negative). */
static float search16(const iq_ctx *s, int8_t *L, const float *xval, const float *weight,
                      const float *waux, float max) {
    int8_t Laux[16];
    bool on_grid[2] = {true, true}, on_grid_aux[2];
    float best = 0;
    float scale = max / 5;
    for (int is = -9; is <= 9; is++) {
        const float id = (5 + (float)is * 0.1f) / max;
        const float this_scale = 1 / id;
        for (int k = 0; k < 2; k++)
            on_grid_aux[k] =
                snap_group(s, 2, Laux + 8 * k, xval + 8 * k, waux + 8 * k, id, this_scale);
        float sumqx, sumq2;
        fit_sums(Laux, xval, weight, 16, &sumqx, &sumq2);
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
            scale = sumqx / sumq2;
            best = scale * sumqx;
            memcpy(L, Laux, 16);
            on_grid[0] = on_grid_aux[0];
            on_grid[1] = on_grid_aux[1];
        }
    }
    if ((!on_grid[0] || !on_grid[1]) && scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < 2; k++)
            if (!on_grid[k])
                snap_group(s, 2, L + 8 * k, xval + 8 * k, waux + 8 * k, id, scale);
        float sumqx, sumq2;
        fit_sums(L, xval, weight, 16, &sumqx, &sumq2);
        if (sumq2 > 0)
            scale = sumqx / sumq2;
    }
    return scale;
}

static void quant_block_iq2_xs(uint8_t *b, const float *x, const float *qw,
                               const iq_ctx *s) {
    float scales[QK / 16], weight[16], xval[16], waux[16];
    int8_t L[16];
    uint16_t q2[QK / 8] = {0};
    unsigned block_signs[2];
    uint8_t *sc = b + 66;

    gguf__st16(b, gguf__float_to_half(0.f));
    memset(sc, 0, QK / 32);
    float max_scale = 0;
    const float sigma2 = sum_squares(x) / QK;
    for (int ib = 0; ib < QK / 16; ib++) {
        const float *xb = x + 16 * ib;
        element_weights(weight, xb, qw + 16 * ib, sigma2, 16);
        for (int i = 0; i < 16; i++)
            waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 2; k++)
            block_signs[k] = split_signs(xval + 8 * k, xb + 8 * k, weight + 8 * k, true) & 127;
        float max = xval[0];
        for (int i = 1; i < 16; i++)
            max = maxf(max, xval[i]);
        memset(L, 0, 16);
        if (max < GGUF__GROUP_MAX_EPS) {
            scales[ib] = 0;
            continue;
        }
        float scale = search16(s, L, xval, weight, waux, max);
        if (scale < 0) {
            scale = -scale;
            for (int k = 0; k < 2; k++)
                block_signs[k] = ~block_signs[k] & 127;
        }
        for (int k = 0; k < 2; k++)
            q2[2 * ib + k] =
                (uint16_t)(grid_point(s, 2, pack_code(2, L + 8 * k)) | block_signs[k] << 9);
        scales[ib] = scale;
        max_scale = maxf(max_scale, scale);
    }
    if (!max_scale) {
        memset(b + 2, 0, QK / 4);
        return;
    }
    const float d = max_scale / 31;
    gguf__st16(b, gguf__float_to_half(d));
    const float id = 1 / d;
    for (int ib = 0; ib < QK / 16; ib++) {
        unsigned l = scale_code(id, scales[ib], 15);
        if (ib % 2 == 0)
            sc[ib / 2] = (uint8_t)l;
        else
            sc[ib / 2] |= (uint8_t)(l << 4);
    }
    for (int i = 0; i < QK / 8; i++)
        gguf__st16(b + 2 + 2 * i, q2[i]);
}

static void quant_block_iq2_s(uint8_t *b, const float *x, const float *qw,
                              const iq_ctx *s) {
    float scales[QK / 16], weight[16], xval[16], waux[16];
    int8_t L[16];
    unsigned block_signs[2];
    uint8_t *qs = b + 2, *signs = b + 34, *qh = b + 66, *sc = b + 74;

    memset(b, 0, GGUF__BLOCK_BYTES(IQ2_S));
    gguf__st16(b, gguf__float_to_half(0.f));
    float max_scale = 0;
    const float sigma2 = 2 * sum_squares(x) / QK;
    for (int ib = 0; ib < QK / 16; ib++) {
        const float *xb = x + 16 * ib;
        if (qw) {
            element_weights(weight, xb, qw + 16 * ib, sigma2, 16);
        } else {
            for (int i = 0; i < 16; i++)
                weight[i] = 0.25f * sigma2 + xb[i] * xb[i];
        }
        for (int i = 0; i < 16; i++)
            waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 2; k++)
            block_signs[k] = split_signs(xval + 8 * k, xb + 8 * k, weight + 8 * k, false);
        float max = xval[0];
        for (int i = 1; i < 16; i++)
            max = maxf(max, xval[i]);
        memset(L, 0, 16);
        if (max < EPS_IQ2_S) {
            scales[ib] = 0;
            continue;
        }
        float scale = search16(s, L, xval, weight, waux, max);
        if (scale < 0) {
            scale = -scale;
            for (int k = 0; k < 2; k++)
                block_signs[k] = ~block_signs[k] & 255;
        }
        for (int k = 0; k < 2; k++) {
            const int g = grid_point(s, 2, pack_code(2, L + 8 * k));
            const int i8 = 2 * ib + k;
            qs[i8] = (uint8_t)(g & 255);
            qh[i8 / 4] |= (uint8_t)((g >> 8) << (2 * (i8 % 4)));
            signs[i8] = (uint8_t)block_signs[k];
        }
        scales[ib] = scale;
        max_scale = maxf(max_scale, scale);
    }
    if (!max_scale)
        return;
    const float d = max_scale / 31;
    gguf__st16(b, gguf__float_to_half(d * 0.9875f));
    const float id = 1 / d;
    for (int ib = 0; ib < QK / 16; ib++) {
        unsigned l = scale_code(id, scales[ib], 15);
        if (ib % 2 == 0)
            sc[ib / 2] = (uint8_t)l;
        else
            sc[ib / 2] |= (uint8_t)(l << 4);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* IQ3_XXS and IQ3_S: 32-element sub-blocks of 8 grid groups of 4                              */

/* The scale search of the IQ3 types over 32 elements: levels in L, returns the scale (maybe
 * negative). IQ3_XXS tries 31 scales and redoes only the off-grid groups; IQ3_S tries 19,
 * starts with every group marked off-grid and redoes them all. */
static float search32(const iq_ctx *s, int8_t *L, const float *xval, const float *weight,
                      const float *waux, float max, bool xxs) {
    int8_t Laux[32];
    bool on_grid[8], on_grid_aux[8];
    const int ntry = xxs ? 15 : 9;
    float best = 0;
    float scale = max / 15;
    for (int k = 0; k < 8; k++)
        on_grid[k] = xxs;
    for (int is = -ntry; is <= ntry; is++) {
        const float id = (15 + (float)is * 0.2f) / max;
        const float this_scale = 1 / id;
        for (int k = 0; k < 8; k++)
            on_grid_aux[k] =
                snap_group(s, 3, Laux + 4 * k, xval + 4 * k, waux + 4 * k, id, this_scale);
        float sumqx, sumq2;
        fit_sums(Laux, xval, weight, 32, &sumqx, &sumq2);
        if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
            scale = sumqx / sumq2;
            best = scale * sumqx;
            memcpy(L, Laux, 32);
            memcpy(on_grid, on_grid_aux, sizeof on_grid);
        }
    }
    int n_off = 0;
    for (int k = 0; k < 8; k++)
        n_off += !on_grid[k];
    if (n_off > 0 && scale > 0) {
        const float id = 1 / scale;
        for (int k = 0; k < 8; k++)
            if (!xxs || !on_grid[k])
                snap_group(s, 3, L + 4 * k, xval + 4 * k, waux + 4 * k, id, scale);
        float sumqx, sumq2;
        fit_sums(L, xval, weight, 32, &sumqx, &sumq2);
        if (sumq2 > 0)
            scale = sumqx / sumq2;
    }
    return scale;
}

static void quant_block_iq3_xxs(uint8_t *b, const float *x, const float *qw,
                                const iq_ctx *s) {
    float scales[QK / 32], weight[32], xval[32], waux[32];
    int8_t L[32];
    uint8_t qs[QK / 4] = {0};
    uint32_t scales_and_signs[QK / 32] = {0};
    unsigned block_signs[4];

    gguf__st16(b, gguf__float_to_half(0.f));
    float max_scale = 0;
    const float sigma2 = 2 * sum_squares(x) / QK;
    for (int ib = 0; ib < QK / 32; ib++) {
        const float *xb = x + 32 * ib;
        element_weights(weight, xb, qw ? qw + 32 * ib : NULL, sigma2, 32);
        for (int i = 0; i < 32; i++)
            waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 4; k++)
            block_signs[k] = split_signs(xval + 8 * k, xb + 8 * k, weight + 8 * k, true) & 127;
        float max = xval[0];
        for (int i = 1; i < 32; i++)
            max = maxf(max, xval[i]);
        memset(L, 0, 32);
        if (max < EPS_IQ3_XXS) {
            scales[ib] = 0;
            continue;
        }
        float scale = search32(s, L, xval, weight, waux, max, true);
        if (scale < 0) {
            scale = -scale;
            for (int k = 0; k < 4; k++)
                block_signs[k] = ~block_signs[k] & 127;
        }
        for (int k = 0; k < 8; k++)
            qs[8 * ib + k] = (uint8_t)grid_point(s, 3, pack_code(3, L + 4 * k));
        scales_and_signs[ib] = block_signs[0] | block_signs[1] << 7 | block_signs[2] << 14 |
                               block_signs[3] << 21;
        scales[ib] = scale;
        max_scale = maxf(max_scale, scale);
    }
    if (!max_scale) {
        memset(b + 2, 0, GGUF__BLOCK_BYTES(IQ3_XXS) - 2);
        return;
    }
    const float d = max_scale / 31;
    gguf__st16(b, gguf__float_to_half(d * 1.0125f));
    const float id = 1 / d;
    for (int ib = 0; ib < QK / 32; ib++)
        scales_and_signs[ib] |= (uint32_t)scale_code(id, scales[ib], 15) << 28;
    memcpy(b + 2, qs, sizeof qs);
    for (int ib = 0; ib < QK / 32; ib++)
        gguf__st32(b + 66 + 4 * ib, scales_and_signs[ib]);
}

static void quant_block_iq3_s(uint8_t *b, const float *x, const float *qw,
                              const iq_ctx *s) {
    float scales[QK / 32], weight[32], xval[32], waux[32];
    int8_t L[32];
    unsigned block_signs[4];

    memset(b, 0, GGUF__BLOCK_BYTES(IQ3_S));
    gguf__st16(b, gguf__float_to_half(0.f));
    /* ggml advances qs and signs only past non-zero sub-blocks (qh is indexed directly), so
     * an all-zero sub-block shifts the ones after it; we must write the same bytes. */
    uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74, *sc = b + 106;
    float max_scale = 0;
    const float sigma2 = 2 * sum_squares(x) / QK;
    for (int ib = 0; ib < QK / 32; ib++) {
        const float *xb = x + 32 * ib;
        element_weights(weight, xb, qw ? qw + 32 * ib : NULL, sigma2, 32);
        for (int i = 0; i < 32; i++)
            waux[i] = sqrtf(weight[i]);
        for (int k = 0; k < 4; k++)
            block_signs[k] = split_signs(xval + 8 * k, xb + 8 * k, weight + 8 * k, false);
        float max = xval[0];
        for (int i = 1; i < 32; i++)
            max = maxf(max, xval[i]);
        memset(L, 0, 32);
        if (!max) {
            scales[ib] = 0;
            continue;
        }
        float scale = search32(s, L, xval, weight, waux, max, false);
        if (scale < 0) {
            scale = -scale;
            for (int k = 0; k < 4; k++)
                block_signs[k] = ~block_signs[k] & 255;
        }
        for (int k = 0; k < 8; k++) {
            const int g = grid_point(s, 3, pack_code(3, L + 4 * k));
            qs[k] = (uint8_t)(g & 255);
            qh[(8 * ib + k) / 8] |= (uint8_t)((g >> 8) << ((8 * ib + k) % 8));
        }
        qs += 8;
        for (int k = 0; k < 4; k++)
            signs[k] = (uint8_t)block_signs[k];
        signs += 4;
        scales[ib] = scale;
        max_scale = maxf(max_scale, scale);
    }
    if (!max_scale)
        return;
    const float d = max_scale / 31;
    gguf__st16(b, gguf__float_to_half(d * 1.033f));
    const float id = 1 / d;
    for (int ib = 0; ib < QK / 32; ib += 2)
        sc[ib / 2] =
            (uint8_t)(scale_code(id, scales[ib], 15) | scale_code(id, scales[ib + 1], 15) << 4);
}

/* ------------------------------------------------------------------------------------------ */
/* IQ1_S and IQ1_M                                                                             */

/* The three level values with the block's shift: -1 + delta, delta, 1 + delta (shift +) or
 * -1 - delta, -delta, 1 - delta (shift -). */
static const float iq1_plus[3] = {-1 + IQ1_DELTA, IQ1_DELTA, 1 + IQ1_DELTA};
static const float iq1_minus[3] = {-1 - IQ1_DELTA, -IQ1_DELTA, 1 - IQ1_DELTA};

/* Element indices of x[n] in increasing order of value, equal values in index order (what
 * glibc's merge-sorting qsort gives ggml). */
static void sort_indices(int *idx, const float *x, int n) {
    for (int j = 0; j < n; j++) {
        int i = j;
        while (i > 0 && x[idx[i - 1]] > x[j]) {
            idx[i] = idx[i - 1];
            i--;
        }
        idx[i] = j;
    }
}

/* The candidate of off-grid entry m closest to x (signed) with levels valued xx[] times
 * scale; writes its levels to L. */
static int iq1_best_candidate(const iq_ctx *s, int32_t m, const float *x, const float *w,
                              float scale, const float *xx, int8_t *L) {
    const uint16_t *list = gguf__iq_candidates(s->tables, m);
    float best_d2 = FLT_MAX;
    int best = -1;
    if (s->pick) { /* the SIMD search, same answer */
        best = s->pick(s, 2, list, x, w, scale, xx);
    } else {
        for (int j = 1; j <= list[0]; j++) {
            unsigned code = s->codes[list[j]];
            float d2 = 0;
            for (int i = 0; i < 8; i++) {
                float q = xx[gguf__iq_level2(code, i)];
                float diff = scale * q - x[i];
                d2 += w[i] * diff * diff;
            }
            if (d2 < best_d2) {
                best_d2 = d2;
                best = list[j];
            }
        }
    }
    /* ggml falls back to scanning the whole grid here, reading past the group (a bug), and
     * aborts if that fails too; only Inf/NaN or overflowing input gets here. */
    if (best < 0)
        best = list[1];
    set_levels(s, 2, L, best);
    return best;
}

/* Grid index of group L (8 levels): on the grid as it is, else the best candidate. */
static int iq1_group(const iq_ctx *s, int8_t *L, const float *x, const float *w,
                     float scale, const float *xx, bool *all_on_grid) {
    int32_t m = lookup_levels(s, 2, L);
    if (m >= 0)
        return m;
    *all_on_grid = false;
    return iq1_best_candidate(s, m, x, w, scale, xx, L);
}

/* The scores of splitting the sorted sub-block at (i1, i2) with shift sh, from the prefix
 * sums: the level sums times the level values, as ggml writes them. */
static inline float iq1s_sumqx(const float *sumx, int i1, int i2, const float *xx) {
    return (sumx[i1] - sumx[0]) * xx[0] + (sumx[i2] - sumx[i1]) * xx[1] +
           (sumx[32] - sumx[i2]) * xx[2];
}
static inline float iq1s_sumq2(const float *sumw, int i1, int i2, const float *xx) {
    return (sumw[i1] - sumw[0]) * xx[0] * xx[0] + (sumw[i2] - sumw[i1]) * xx[1] * xx[1] +
           (sumw[32] - sumw[i2]) * xx[2] * xx[2];
}

/* The best split of IQ1_S's sorted 32 elements into levels 0 | 1 | 2 over every
 * 0 <= i1 <= i2 <= 32 and both shifts (split32_fn). */
static int iq1s_split_search(const float *sumx, const float *sumw, float *scale, int *besti2,
                             int *shift) {
    float best_score = -FLT_MAX;
    int besti1 = -1;
    for (int i1 = 0; i1 <= 32; i1++) {
        for (int i2 = i1; i2 <= 32; i2++) {
            for (int sh = 1; sh >= -1; sh -= 2) {
                const float *xx = sh == 1 ? iq1_plus : iq1_minus;
                float sumqx = iq1s_sumqx(sumx, i1, i2, xx);
                float sumq2 = iq1s_sumq2(sumw, i1, i2, xx);
                if (sumq2 > 0 && sumqx * sumqx > best_score * sumq2) {
                    *scale = sumqx / sumq2;
                    best_score = *scale * sumqx;
                    besti1 = i1;
                    *besti2 = i2;
                    *shift = sh;
                }
            }
        }
    }
    return besti1;
}

static void quant_block_iq1_s(uint8_t *b, const float *x, const float *qw,
                              const iq_ctx *s) {
    float scales[QK / 32], weight[32], sumx[33 + 7], sumw[33 + 7]; /* 7: SIMD reads */
    int8_t L[32];
    int idx[32];
    int shifts[QK / 32];
    uint8_t *qs = b + 2;
    uint16_t qh[QK / 32] = {0};

    gguf__st16(b, gguf__float_to_half(0.f));
    memset(qs, 0, QK / 8);
    float max_scale = 0;
    const float sigma2 = 2 * sum_squares(x) / QK;
    for (int ib = 0; ib < QK / 32; ib++) {
        const float *xb = x + 32 * ib;
        element_weights(weight, xb, qw + 32 * ib, sigma2, 32);
        float max = fabsf(xb[0]);
        for (int i = 1; i < 32; i++)
            max = maxf(max, fabsf(xb[i]));
        if (max < EPS_IQ1_S) {
            scales[ib] = 0;
            shifts[ib] = 1;
            continue;
        }
        /* With the values sorted, the best split into levels 0 | 1 | 2 is found exactly
         * from prefix sums of w x and w. */
        sort_indices(idx, xb, 32);
        sumx[0] = sumw[0] = 0;
        for (int j = 0; j < 32; j++) {
            int i = idx[j];
            sumx[j + 1] = sumx[j] + weight[i] * xb[i];
            sumw[j + 1] = sumw[j] + weight[i];
        }
        for (int j = 33; j < 40; j++)
            sumx[j] = sumw[j] = 0;
        float scale = max;
        int besti2 = -1, best_shift = 0;
        const int besti1 =
            (s->split32 ? s->split32 : iq1s_split_search)(sumx, sumw, &scale, &besti2, &best_shift);
        if (besti1 < 0 || besti2 < 0 || best_shift == 0) {
            scales[ib] = 0;
            shifts[ib] = 1;
            continue;
        }
        for (int j = 0; j < 32; j++)
            L[idx[j]] = (int8_t)(j < besti1 ? 0 : j < besti2 ? 1 : 2);
        if (scale < 0) {
            for (int j = 0; j < 32; j++)
                L[j] = (int8_t)(2 - L[j]);
            scale = -scale;
            best_shift = -best_shift;
        }
        const float *xx = best_shift == 1 ? iq1_plus : iq1_minus;
        bool all_on_grid = true;
        int index[4];
        for (int k = 0; k < 4; k++)
            index[k] = iq1_group(s, L + 8 * k, xb + 8 * k, weight + 8 * k, scale, xx, &all_on_grid);
        if (!all_on_grid) {
            float sumqx = 0, sumq2 = 0;
            for (int k = 0; k < 4; k++) {
                unsigned code = s->codes[index[k]];
                for (int j = 0; j < 8; j++) {
                    float w = weight[8 * k + j];
                    float q = xx[gguf__iq_level2(code, j)];
                    sumqx += w * q * xb[8 * k + j];
                    sumq2 += w * q * q;
                }
            }
            if (sumqx > 0 && sumq2 > 0)
                scale = sumqx / sumq2;
        }
        unsigned h = 0;
        for (int k = 0; k < 4; k++) {
            qs[4 * ib + k] = (uint8_t)(index[k] & 255);
            h |= (unsigned)(index[k] >> 8) << (3 * k);
        }
        qh[ib] = (uint16_t)h;
        scales[ib] = scale;
        shifts[ib] = best_shift;
        max_scale = maxf(max_scale, scale);
    }
    if (max_scale) {
        const float d = max_scale / 15;
        gguf__st16(b, gguf__float_to_half(d * 1.125f));
        const float id = 1 / d;
        for (int ib = 0; ib < QK / 32; ib++) {
            unsigned l = scale_code(id, scales[ib], 7);
            if (shifts[ib] == -1)
                l |= 8;
            qh[ib] |= (uint16_t)(l << 12);
        }
    }
    for (int ib = 0; ib < QK / 32; ib++)
        gguf__st16(b + 34 + 2 * ib, qh[ib]);
}

/* Level values of the two 8-element groups of an IQ1_M sub-block for shift pattern k
 * (0: +,+  1: +,-  2: -,+  3: -,-). */
static inline const float *iq1m_values(int k, int group) {
    bool plus = group == 0 ? k < 2 : k % 2 == 0;
    return plus ? iq1_plus : iq1_minus;
}

/* The splits (i1, i2), 0 <= i1 <= i2 <= 16, in order of i1 then i2. */
#define IQ1M_SPLITS 153

/* For each split p = (i1, i2) and shift pattern k, the weighted sums of the sub-block with
 * sorted elements idx[0..i1) at level 0, [i1, i2) at 1 and the rest at 2, accumulated element
 * by element in sorted order as ggml does. */
static void iq1m_split_sums(const int *idx, const float *x, const float *w, float (*sumqx)[4],
                            float (*sumq2)[4]) {
    for (int i1 = 0, p = 0; i1 <= 16; i1++) {
        for (int i2 = i1; i2 <= 16; i2++, p++) {
            float qx[4] = {0}, q2[4] = {0};
            for (int j = 0; j < 16; j++) {
                const int i = idx[j];
                const int t = j < i1 ? 0 : j < i2 ? 1 : 2;
                for (int k = 0; k < 4; k++) {
                    const float v = iq1m_values(k, i >= 8)[t];
                    qx[k] += w[i] * v * x[i];
                    q2[k] += w[i] * v * v;
                }
            }
            memcpy(sumqx[p], qx, sizeof qx);
            memcpy(sumq2[p], q2, sizeof q2);
        }
    }
}

static void quant_block_iq1_m(uint8_t *b, const float *x, const float *qw,
                              const iq_ctx *s) {
    static const uint8_t shift_bits[4] = {0x00, 0x80, 0x08, 0x88};
    float scales[QK / 16], weight[16];
    int8_t L[16];
    int idx[16];
    int shifts[QK / 16];
    uint8_t *qs = b, *qh = b + 32;
    uint16_t sc[4] = {0};

    memset(b, 0, GGUF__BLOCK_BYTES(IQ1_M));
    float max_scale = 0;
    const float sigma2 = 2 * sum_squares(x) / QK;
    for (int ib = 0; ib < QK / 16; ib++) {
        const float *xb = x + 16 * ib;
        element_weights(weight, xb, qw ? qw + 16 * ib : NULL, sigma2, 16);
        float max = fabsf(xb[0]);
        for (int i = 1; i < 16; i++)
            max = maxf(max, fabsf(xb[i]));
        if (max < EPS_IQ1_M) {
            scales[ib] = 0;
            shifts[ib] = 0;
            continue;
        }
        /* Exhaustive split of the sorted values into levels 0 | 1 | 2, for each of the four
         * shift patterns; the sums are accumulated element by element as ggml does. */
        sort_indices(idx, xb, 16);
        float split_qx[IQ1M_SPLITS][4], split_q2[IQ1M_SPLITS][4];
        (s->split16 ? s->split16 : iq1m_split_sums)(idx, xb, weight, split_qx, split_q2);
        float best_score = -FLT_MAX, scale = max;
        int besti1 = -1, besti2 = -1, best_k = -1;
        for (int i1 = 0, p = 0; i1 <= 16; i1++) {
            for (int i2 = i1; i2 <= 16; i2++, p++) {
                for (int k = 0; k < 4; k++) {
                    const float qx = split_qx[p][k], q2 = split_q2[p][k];
                    if (q2 > 0 && qx * qx > best_score * q2) {
                        scale = qx / q2;
                        best_score = scale * qx;
                        besti1 = i1;
                        besti2 = i2;
                        best_k = k;
                    }
                }
            }
        }
        if (besti1 < 0 || besti2 < 0 || best_k < 0) {
            scales[ib] = 0;
            shifts[ib] = 0;
            continue;
        }
        for (int j = 0; j < 16; j++)
            L[idx[j]] = (int8_t)(j < besti1 ? 0 : j < besti2 ? 1 : 2);
        if (scale < 0) {
            for (int j = 0; j < 16; j++)
                L[j] = (int8_t)(2 - L[j]);
            scale = -scale;
            best_k = 3 - best_k;
        }
        bool all_on_grid = true;
        int index[2];
        for (int k = 0; k < 2; k++)
            index[k] = iq1_group(s, L + 8 * k, xb + 8 * k, weight + 8 * k, scale,
                                 iq1m_values(best_k, k), &all_on_grid);
        if (!all_on_grid) {
            float sumqx = 0, sumq2 = 0;
            for (int k = 0; k < 2; k++) {
                const float *xx = iq1m_values(best_k, k);
                unsigned code = s->codes[index[k]];
                for (int j = 0; j < 8; j++) {
                    float w = weight[8 * k + j];
                    float q = xx[gguf__iq_level2(code, j)];
                    sumqx += w * q * xb[8 * k + j];
                    sumq2 += w * q * q;
                }
            }
            if (sumqx > 0 && sumq2 > 0)
                scale = sumqx / sumq2;
        }
        qs[2 * ib] = (uint8_t)(index[0] & 255);
        qs[2 * ib + 1] = (uint8_t)(index[1] & 255);
        qh[ib] = (uint8_t)(index[0] >> 8 | (index[1] >> 8) << 4);
        scales[ib] = scale;
        shifts[ib] = best_k;
        max_scale = maxf(max_scale, scale);
    }
    if (!max_scale)
        return;

    /* Code the sub-block scales against d = max/15, then refit d to the coded block. */
    float d = max_scale / 15;
    const float id = 1 / d;
    float sumqx = 0, sumq2 = 0;
    for (int ib = 0; ib < QK / 16; ib++) {
        const unsigned l = scale_code(id, scales[ib], 7);
        sc[ib / 4] |= (uint16_t)(l << (3 * (ib % 4)));
        qh[ib] |= shift_bits[shifts[ib]];
        const float *xb = x + 16 * ib;
        element_weights(weight, xb, qw ? qw + 16 * ib : NULL, sigma2, 16);
        for (int k = 0; k < 2; k++) {
            const float *xx = iq1m_values(shifts[ib], k);
            const unsigned g = qs[2 * ib + k] + ((unsigned)qh[ib] << (8 - 4 * k) & 0x700);
            const unsigned code = s->codes[g];
            for (int j = 0; j < 8; j++) {
                float w = weight[8 * k + j];
                float q = xx[gguf__iq_level2(code, j)] * (float)(2 * l + 1);
                sumqx += w * q * xb[8 * k + j];
                sumq2 += w * q * q;
            }
        }
    }
    if (sumq2 > 0)
        d = sumqx / sumq2;
    const uint16_t h = gguf__float_to_half(d * 1.1125f);
    sc[0] |= (uint16_t)((h & 0x000F) << 12);
    sc[1] |= (uint16_t)((h & 0x00F0) << 8);
    sc[2] |= (uint16_t)((h & 0x0F00) << 4);
    sc[3] |= (uint16_t)(h & 0xF000);
    for (int i = 0; i < 4; i++)
        gguf__st16(b + 48 + 2 * i, sc[i]);
}

/* ------------------------------------------------------------------------------------------ */
/* Row drivers                                                                                 */

typedef void (*block_fn)(uint8_t *b, const float *x, const float *qw, const iq_ctx *s);

static void quant_rows(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                       const float *imatrix, enum gguf__iq_grid grid, int bytes, block_fn fn,
                       pick_fn pick, split16_fn split16, split32_fn split32) {
    const gguf__iq_search *t = gguf__iq_search_get(grid);
    const iq_ctx ctx = {.codes = t->codes, .map = t->map, .tables = t, .pick = pick,
                         .split16 = split16, .split32 = split32};
    uint8_t *b = dst;
    for (int64_t row = 0; row < nrows; row++)
        for (int64_t ibl = 0; ibl < n_per_row / QK; ibl++, b += bytes, src += QK)
            fn(b, src, imatrix ? imatrix + QK * ibl : NULL, &ctx);
}

#define QUANT_ENTRY(name, grid, bytes)                                                             \
    static void quant_##name(void *dst, const float *src, int64_t nrows, int64_t n_per_row,       \
                             const float *imatrix) {                                               \
        quant_rows(dst, src, nrows, n_per_row, imatrix, grid, bytes, quant_block_##name, NULL,    \
                   NULL, NULL);                                                            \
    }
QUANT_ENTRY(iq2_xxs, GGUF__IQ_GRID_IQ2XXS, GGUF__BLOCK_BYTES(IQ2_XXS))
QUANT_ENTRY(iq2_xs, GGUF__IQ_GRID_IQ2XS, GGUF__BLOCK_BYTES(IQ2_XS))
QUANT_ENTRY(iq2_s, GGUF__IQ_GRID_IQ2S, GGUF__BLOCK_BYTES(IQ2_S))
QUANT_ENTRY(iq3_xxs, GGUF__IQ_GRID_IQ3XXS, GGUF__BLOCK_BYTES(IQ3_XXS))
QUANT_ENTRY(iq3_s, GGUF__IQ_GRID_IQ3S, GGUF__BLOCK_BYTES(IQ3_S))
QUANT_ENTRY(iq1_s, GGUF__IQ_GRID_IQ1S, GGUF__BLOCK_BYTES(IQ1_S))
QUANT_ENTRY(iq1_m, GGUF__IQ_GRID_IQ1S, GGUF__BLOCK_BYTES(IQ1_M))
#undef QUANT_ENTRY

/* ------------------------------------------------------------------------------------------ */
/* AVX2 dequantization                                                                         */

/* Eight outputs at a time: the grid levels of a group become lane indices (a variable shift
 * of the code), the level values come from a register (permutevar), one multiply by the
 * sub-block scale, and the signs are the float sign bits set by a variable shift of the sign
 * byte. (db * v) * -1 and flipping the sign bit of db * v agree for every non-NaN product;
 * blocks whose f16 scale is Inf or NaN go to the scalar code. */
#if GGUF__X86
#include "simd_x86.h"

#define IQ_BLOCK_FALLBACK(name)                                                                    \
    GGUF__NOINLINE static void name##_block_scalar(float *y, const uint8_t *b) {                   \
        dequant_##name(y, b, QK);                                                                  \
    }
IQ_BLOCK_FALLBACK(iq2_xxs)
IQ_BLOCK_FALLBACK(iq2_xs)
IQ_BLOCK_FALLBACK(iq2_s)
IQ_BLOCK_FALLBACK(iq3_xxs)
IQ_BLOCK_FALLBACK(iq3_s)
IQ_BLOCK_FALLBACK(iq1_s)
IQ_BLOCK_FALLBACK(iq1_m)
#undef IQ_BLOCK_FALLBACK

/* Lane k: level k of a 2-bit code (8 coordinates) as an index 0..3. */
static inline GGUF__TARGET_AVX2 __m256i levels2_avx2(unsigned code) {
    const __m256i shifts = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)code), shifts),
                            _mm256_set1_epi32(3));
}

/* Lanes 0-3: levels of 3-bit code c1; lanes 4-7: of c2 (permutevar reads the low 3 bits). */
static inline GGUF__TARGET_AVX2 __m256i levels3_avx2(unsigned c1, unsigned c2) {
    const __m256i shifts = _mm256_setr_epi32(0, 3, 6, 9, 0, 3, 6, 9);
    __m256i c = _mm256_setr_m128i(_mm_set1_epi32((int)c1), _mm_set1_epi32((int)c2));
    return _mm256_srlv_epi32(c, shifts);
}

/* The float sign bit in lane k when bit k of signs is set. */
static inline GGUF__TARGET_AVX2 __m256 sign_bits_avx2(unsigned signs) {
    const __m256i shifts = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);
    __m256i v = _mm256_sllv_epi32(_mm256_set1_epi32((int)signs), shifts);
    return _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32(INT32_MIN)));
}

/* y[0..7] = (db * values[levels]) with the signs applied. */
static inline GGUF__TARGET_AVX2 void store8_avx2(float *y, __m256 values, __m256i levels,
                                                 __m256 db, unsigned signs) {
    __m256 v = _mm256_mul_ps(db, _mm256_permutevar8x32_ps(values, levels));
    st8_avx2(y, _mm256_xor_ps(v, sign_bits_avx2(signs)));
}

static inline GGUF__TARGET_AVX2 __m256 iq2_values_avx2(void) {
    return _mm256_setr_ps(8, 25, 43, 0, 0, 0, 0, 0);
}

static inline float half_avx2(const uint8_t *p) {
    return gguf__half_to_float(gguf__ld16(p));
}

GGUF__TARGET_AVX2 static void dequant_iq2_xxs_avx2(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256 values = iq2_values_avx2();
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ2_XXS), y += QK) {
        if (gguf__half_special(gguf__ld16(b))) {
            iq2_xxs_block_scalar(y, b);
            continue;
        }
        const float d = half_avx2(b);
        for (int ib = 0; ib < QK / 32; ib++) {
            const uint8_t *q = b + 2 + 8 * ib;
            const uint32_t aux = gguf__ld32(q + 4);
            const __m256 db = _mm256_set1_ps(d * (0.5f + (float)(aux >> 28)) * 0.25f);
            for (int l = 0; l < 4; l++)
                store8_avx2(y + 32 * ib + 8 * l, values,
                            levels2_avx2(gguf__iq2xxs_codes[q[l]]), db,
                            gguf__iq_signs7(aux >> (7 * l) & 127));
        }
    }
}

GGUF__TARGET_AVX2 static void dequant_iq2_xs_avx2(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256 values = iq2_values_avx2();
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ2_XS), y += QK) {
        if (gguf__half_special(gguf__ld16(b))) {
            iq2_xs_block_scalar(y, b);
            continue;
        }
        const float d = half_avx2(b);
        const uint8_t *sc = b + 66;
        for (int ib = 0; ib < QK / 32; ib++) {
            const __m256 db[2] = {_mm256_set1_ps(d * (0.5f + (float)(sc[ib] & 15)) * 0.25f),
                                  _mm256_set1_ps(d * (0.5f + (float)(sc[ib] >> 4)) * 0.25f)};
            for (int l = 0; l < 4; l++) {
                const unsigned q = gguf__ld16(b + 2 + 2 * (4 * ib + l));
                store8_avx2(y + 32 * ib + 8 * l, values, levels2_avx2(gguf__iq2xs_codes[q & 511]),
                            db[l / 2], gguf__iq_signs7(q >> 9));
            }
        }
    }
}

GGUF__TARGET_AVX2 static void dequant_iq2_s_avx2(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256 values = iq2_values_avx2();
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ2_S), y += QK) {
        if (gguf__half_special(gguf__ld16(b))) {
            iq2_s_block_scalar(y, b);
            continue;
        }
        const float d = half_avx2(b);
        const uint8_t *qs = b + 2, *signs = b + 34, *qh = b + 66, *sc = b + 74;
        for (int ib = 0; ib < QK / 32; ib++) {
            const __m256 db[2] = {_mm256_set1_ps(d * (0.5f + (float)(sc[ib] & 15)) * 0.25f),
                                  _mm256_set1_ps(d * (0.5f + (float)(sc[ib] >> 4)) * 0.25f)};
            for (int l = 0; l < 4; l++) {
                const unsigned idx = qs[4 * ib + l] | ((unsigned)qh[ib] << (8 - 2 * l) & 0x300);
                store8_avx2(y + 32 * ib + 8 * l, values, levels2_avx2(gguf__iq2s_codes[idx]),
                            db[l / 2], signs[4 * ib + l]);
            }
        }
    }
}

GGUF__TARGET_AVX2 static void dequant_iq3_xxs_avx2(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256 values = _mm256_setr_ps(4, 12, 20, 28, 36, 44, 52, 62);
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ3_XXS), y += QK) {
        if (gguf__half_special(gguf__ld16(b))) {
            iq3_xxs_block_scalar(y, b);
            continue;
        }
        const float d = half_avx2(b);
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < QK / 32; ib++, qs += 8) {
            const uint32_t aux = gguf__ld32(b + 66 + 4 * ib);
            const __m256 db = _mm256_set1_ps(d * (0.5f + (float)(aux >> 28)) * 0.5f);
            for (int l = 0; l < 4; l++)
                store8_avx2(y + 32 * ib + 8 * l, values,
                            levels3_avx2(gguf__iq3xxs_codes[qs[2 * l]],
                                         gguf__iq3xxs_codes[qs[2 * l + 1]]),
                            db, gguf__iq_signs7(aux >> (7 * l) & 127));
        }
    }
}

GGUF__TARGET_AVX2 static void dequant_iq3_s_avx2(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256 values = _mm256_setr_ps(1, 3, 5, 7, 9, 11, 13, 15);
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ3_S), y += QK) {
        if (gguf__half_special(gguf__ld16(b))) {
            iq3_s_block_scalar(y, b);
            continue;
        }
        const float d = half_avx2(b);
        const uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74, *sc = b + 106;
        for (int ib = 0; ib < QK / 32; ib++, qs += 8, signs += 4) {
            const int s = sc[ib / 2] >> (4 * (ib % 2)) & 15;
            const __m256 db = _mm256_set1_ps(d * (float)(1 + 2 * s));
            for (int l = 0; l < 4; l++) {
                const unsigned i1 = qs[2 * l] | ((unsigned)qh[ib] << (8 - 2 * l) & 256);
                const unsigned i2 = qs[2 * l + 1] | ((unsigned)qh[ib] << (7 - 2 * l) & 256);
                store8_avx2(y + 32 * ib + 8 * l, values,
                            levels3_avx2(gguf__iq3s_codes[i1], gguf__iq3s_codes[i2]), db,
                            signs[l]);
            }
        }
    }
}

/* The IQ1 level values plus the shift, for delta +1/8 and -1/8: (float)v + delta is exact,
 * so a table of the sums gives the scalar code's operands. */
static inline GGUF__TARGET_AVX2 __m256 iq1_values_avx2(bool minus) {
    return minus ? _mm256_setr_ps(-1 - IQ1_DELTA, -IQ1_DELTA, 1 - IQ1_DELTA, 0, 0, 0, 0, 0)
                 : _mm256_setr_ps(-1 + IQ1_DELTA, IQ1_DELTA, 1 + IQ1_DELTA, 0, 0, 0, 0, 0);
}

/* Both in one register: index level for +1/8, 4 + level for -1/8 (no branch on the sign). */
static inline GGUF__TARGET_AVX2 __m256 iq1_values_both_avx2(void) {
    return _mm256_setr_ps(-1 + IQ1_DELTA, IQ1_DELTA, 1 + IQ1_DELTA, 0, -1 - IQ1_DELTA,
                          -IQ1_DELTA, 1 - IQ1_DELTA, 0);
}

GGUF__TARGET_AVX2 static void dequant_iq1_s_avx2(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256 plus = iq1_values_avx2(false), minus = iq1_values_avx2(true);
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ1_S), y += QK) {
        if (gguf__half_special(gguf__ld16(b))) {
            iq1_s_block_scalar(y, b);
            continue;
        }
        const float d = half_avx2(b);
        const uint8_t *qs = b + 2;
        for (int ib = 0; ib < QK / 32; ib++, qs += 4) {
            const unsigned qh = gguf__ld16(b + 34 + 2 * ib);
            const __m256 dl = _mm256_set1_ps(d * (float)(2 * (qh >> 12 & 7) + 1));
            const __m256 values = qh & 0x8000 ? minus : plus;
            for (int l = 0; l < 4; l++) {
                const unsigned code = gguf__iq1s_codes[qs[l] | (qh >> (3 * l) & 7) << 8];
                st8_avx2(y + 32 * ib + 8 * l,
                                 _mm256_mul_ps(dl, _mm256_permutevar8x32_ps(values,
                                                                            levels2_avx2(code))));
            }
        }
    }
}

GGUF__TARGET_AVX2 static void dequant_iq1_m_avx2(float *y, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256 both = iq1_values_both_avx2();
    for (int64_t i = 0; i < n / QK; i++, b += GGUF__BLOCK_BYTES(IQ1_M), y += QK) {
        const uint16_t dbits = iq1m_scale_bits(b + 48);
        if (gguf__half_special(dbits)) {
            iq1_m_block_scalar(y, b);
            continue;
        }
        const uint8_t *qs = b, *qh = b + 32, *sc = b + 48;
        const float d = gguf__half_to_float(dbits);
        for (int ib = 0; ib < QK / 32; ib++, qs += 4, qh += 2) {
            const unsigned s = gguf__ld16(sc + 2 * (ib / 2));
            const int s0 = s >> (6 * (ib % 2)) & 7, s1 = s >> (6 * (ib % 2) + 3) & 7;
            const __m256 dl[2] = {_mm256_set1_ps(d * (float)(2 * s0 + 1)),
                                  _mm256_set1_ps(d * (float)(2 * s1 + 1))};
            for (int l = 0; l < 4; l++) {
                const unsigned h = qh[l / 2] >> (4 * (l % 2));
                const unsigned code = gguf__iq1s_codes[qs[l] | (h & 7) << 8];
                const __m256i idx =
                    _mm256_or_si256(levels2_avx2(code), _mm256_set1_epi32((int)(h & 8) >> 1));
                st8_avx2(y + 32 * ib + 8 * l,
                         _mm256_mul_ps(dl[l / 2], _mm256_permutevar8x32_ps(both, idx)));
            }
        }
    }
}

/* ---- AVX2 candidate search (pick_fn) ----
 * The scalar searches add, for each coordinate i of a candidate, w[i] (scale v - x[i])^2
 * with v the value of the candidate's level there. That term depends only on (i, level):
 * e[i][l] = (w[i] * diff) * diff with diff = scale * values[l] - x[i] -- the scalar code's
 * operations -- so it is computed once per call into a register per coordinate, and eight
 * candidates at a time sum their terms in coordinate order through permutevar (lane = one
 * candidate, index = its level). Starting from e[0][l] instead of 0 + e[0][l] changes at
 * most the sign of a zero, which no comparison sees. Each lane keeps its first strictly
 * smaller sum; the answer is the lowest list position among the lanes holding the least sum,
 * i.e. the scalar loop's first strict minimum (lists shorter than a multiple of 8 get
 * FLT_MAX in the lanes past the end, which never replace anything). */
GGUF__TARGET_AVX2 static int pick_avx2(const iq_ctx *s, int bits, const uint16_t *list,
                                       const float *x, const float *w, float scale,
                                       const float *values) {
    const int nc = bits == 2 ? 8 : 4;
    const __m256 vals = bits == 2 ? _mm256_setr_ps(values[0], values[1], values[2], 0, 0, 0, 0, 0)
                                  : _mm256_loadu_ps(values);
    __m256 sv = _mm256_mul_ps(_mm256_set1_ps(scale), vals);
    GGUF__ROUNDED(sv);
    __m256 e[8];
    for (int i = 0; i < nc; i++) {
        __m256 diff = _mm256_sub_ps(sv, _mm256_set1_ps(x[i]));
        __m256 t = _mm256_mul_ps(_mm256_set1_ps(w[i]), diff);
        GGUF__ROUNDED(t);
        e[i] = _mm256_mul_ps(t, diff);
        GGUF__ROUNDED(e[i]);
    }
    const int n = list[0];
    const uint16_t *codes = s->tables->neighbour_codes + (list - s->tables->neighbours) + 1;
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i three = _mm256_set1_epi32(3);
    const __m256 big = _mm256_set1_ps(FLT_MAX);
    __m256 best = big;
    __m256i best_j = _mm256_set1_epi32(INT32_MAX);
    for (int j = 0; j < n; j += 8) {
        __m256i c =
            _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(codes + j)));
        __m256 acc;
        if (bits == 2) {
            acc = _mm256_permutevar8x32_ps(e[0], _mm256_and_si256(c, three));
            for (int i = 1; i < 8; i++)
                acc = _mm256_add_ps(acc, _mm256_permutevar8x32_ps(
                                             e[i], _mm256_and_si256(_mm256_srli_epi32(c, 2 * i),
                                                                    three)));
        } else {
            acc = _mm256_permutevar8x32_ps(e[0], c);
            acc = _mm256_add_ps(acc, _mm256_permutevar8x32_ps(e[1], _mm256_srli_epi32(c, 3)));
            acc = _mm256_add_ps(acc, _mm256_permutevar8x32_ps(e[2], _mm256_srli_epi32(c, 6)));
            acc = _mm256_add_ps(acc, _mm256_permutevar8x32_ps(e[3], _mm256_srli_epi32(c, 9)));
        }
        __m256i pos = _mm256_add_epi32(_mm256_set1_epi32(j), iota);
        if (j + 8 > n)
            acc = _mm256_blendv_ps(
                acc, big, _mm256_castsi256_ps(_mm256_cmpgt_epi32(pos, _mm256_set1_epi32(n - 1))));
        __m256 lt = _mm256_cmp_ps(acc, best, _CMP_LT_OQ);
        best = _mm256_blendv_ps(best, acc, lt);
        best_j = _mm256_blendv_epi8(best_j, pos, _mm256_castps_si256(lt));
    }
    /* best holds no NaN: the least value, then the first position holding it */
    __m128 m4 = _mm_min_ps(_mm256_castps256_ps128(best), _mm256_extractf128_ps(best, 1));
    m4 = _mm_min_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_min_ss(m4, _mm_shuffle_ps(m4, m4, 1));
    const float least = _mm_cvtss_f32(m4);
    if (!(least < FLT_MAX))
        return -1;
    __m256i at = _mm256_blendv_epi8(
        _mm256_set1_epi32(INT32_MAX), best_j,
        _mm256_castps_si256(_mm256_cmp_ps(best, _mm256_set1_ps(least), _CMP_EQ_OQ)));
    __m128i j4 = _mm_min_epi32(_mm256_castsi256_si128(at), _mm256_extracti128_si256(at, 1));
    j4 = _mm_min_epi32(j4, _mm_shuffle_epi32(j4, 0x4E));
    j4 = _mm_min_epi32(j4, _mm_shuffle_epi32(j4, 0xB1));
    return list[1 + _mm_cvtsi128_si32(j4)];
}

/* iq1m_split_sums with eight splits per register (lane = split): each lane makes the scalar
 * loop's products and sums in the same order; its levels come from compares with i1 and i2. */
GGUF__TARGET_AVX2 static void iq1m_split_sums_avx2(const int *idx, const float *x, const float *w,
                                                   float (*sumqx)[4], float (*sumq2)[4]) {
    enum { npad = (IQ1M_SPLITS + 7) / 8 * 8 };
    int32_t s1[npad], s2[npad];
    for (int i1 = 0, p = 0; i1 <= 16; i1++)
        for (int i2 = i1; i2 <= 16; i2++, p++)
            s1[p] = i1, s2[p] = i2;
    for (int p = IQ1M_SPLITS; p < npad; p++)
        s1[p] = s2[p] = 16;
    const __m256 plus = iq1_values_avx2(false), minus = iq1_values_avx2(true);
    for (int p = 0; p < npad; p += 8) {
        const __m256i i1 = _mm256_loadu_si256((const __m256i *)(const void *)(s1 + p));
        const __m256i i2 = _mm256_loadu_si256((const __m256i *)(const void *)(s2 + p));
        __m256 qx[4], q2[4];
        for (int k = 0; k < 4; k++)
            qx[k] = q2[k] = _mm256_setzero_ps();
        for (int j = 0; j < 16; j++) {
            const int i = idx[j];
            const __m256i jj = _mm256_set1_epi32(j);
            /* t = (j >= i1) + (j >= i2), from the masks j + 1 > i */
            const __m256i j1 = _mm256_add_epi32(jj, _mm256_set1_epi32(1));
            const __m256i t = _mm256_sub_epi32(
                _mm256_setzero_si256(),
                _mm256_add_epi32(_mm256_cmpgt_epi32(j1, i1), _mm256_cmpgt_epi32(j1, i2)));
            const __m256 vp = _mm256_permutevar8x32_ps(plus, t);
            const __m256 vm = _mm256_permutevar8x32_ps(minus, t);
            const __m256 wi = _mm256_set1_ps(w[i]), xi = _mm256_set1_ps(x[i]);
            for (int k = 0; k < 4; k++) {
                const __m256 v = (i >= 8 ? k % 2 == 0 : k < 2) ? vp : vm;
                __m256 wv = _mm256_mul_ps(wi, v);
                GGUF__ROUNDED(wv);
                __m256 a = _mm256_mul_ps(wv, xi), c = _mm256_mul_ps(wv, v);
                GGUF__ROUNDED(a);
                GGUF__ROUNDED(c);
                qx[k] = _mm256_add_ps(qx[k], a);
                q2[k] = _mm256_add_ps(q2[k], c);
            }
        }
        float tx[4][8], t2[4][8];
        for (int k = 0; k < 4; k++) {
            _mm256_storeu_ps(tx[k], qx[k]);
            _mm256_storeu_ps(t2[k], q2[k]);
        }
        for (int l = 0; l < 8 && p + l < IQ1M_SPLITS; l++)
            for (int k = 0; k < 4; k++) {
                sumqx[p + l][k] = tx[k][l];
                sumq2[p + l][k] = t2[k][l];
            }
    }
}

/* iq1s_split_search on AVX2: for fixed i1, eight consecutive i2 per register, both shifts;
 * each lane's sums are the scalar expressions. A chunk of 8 splits x 2 shifts is skipped when
 * none of its 16 candidates passes the test against the current best (then the scalar loop
 * would change nothing there either); otherwise its candidates are tested one by one in the
 * scalar order. */
GGUF__TARGET_AVX2 static int iq1s_split_search_avx2(const float *sumx, const float *sumw,
                                                    float *scale, int *besti2, int *shift) {
    float best_score = -FLT_MAX;
    int besti1 = -1;
    const __m256 x0 = _mm256_set1_ps(sumx[0]), x32 = _mm256_set1_ps(sumx[32]);
    const __m256 w0 = _mm256_set1_ps(sumw[0]), w32 = _mm256_set1_ps(sumw[32]);
    const float *const xxs[2] = {iq1_plus, iq1_minus};
    for (int i1 = 0; i1 <= 32; i1++) {
        const __m256 xi1 = _mm256_set1_ps(sumx[i1]), wi1 = _mm256_set1_ps(sumw[i1]);
        const __m256 a = _mm256_sub_ps(xi1, x0), aw = _mm256_sub_ps(wi1, w0);
        for (int i2 = i1; i2 <= 32; i2 += 8) {
            const __m256 xi2 = _mm256_loadu_ps(sumx + i2), wi2 = _mm256_loadu_ps(sumw + i2);
            const __m256 bx = _mm256_sub_ps(xi2, xi1), cx = _mm256_sub_ps(x32, xi2);
            const __m256 bw = _mm256_sub_ps(wi2, wi1), cw = _mm256_sub_ps(w32, wi2);
            const int nl = 33 - i2 < 8 ? 33 - i2 : 8;
            float qx[2][8], q2[2][8];
            unsigned pass = 0;
            for (int h = 0; h < 2; h++) {
                const float *xx = xxs[h];
                const __m256 v0 = _mm256_set1_ps(xx[0]), v1 = _mm256_set1_ps(xx[1]),
                             v2 = _mm256_set1_ps(xx[2]);
                __m256 t0 = _mm256_mul_ps(a, v0), t1 = _mm256_mul_ps(bx, v1),
                       t2 = _mm256_mul_ps(cx, v2);
                GGUF__ROUNDED(t0);
                GGUF__ROUNDED(t1);
                GGUF__ROUNDED(t2);
                const __m256 sqx = _mm256_add_ps(_mm256_add_ps(t0, t1), t2);
                __m256 u0 = _mm256_mul_ps(_mm256_mul_ps(aw, v0), v0);
                __m256 u1 = _mm256_mul_ps(_mm256_mul_ps(bw, v1), v1);
                __m256 u2 = _mm256_mul_ps(_mm256_mul_ps(cw, v2), v2);
                GGUF__ROUNDED(u0);
                GGUF__ROUNDED(u1);
                GGUF__ROUNDED(u2);
                const __m256 sq2 = _mm256_add_ps(_mm256_add_ps(u0, u1), u2);
                __m256 l = _mm256_mul_ps(sqx, sqx);
                __m256 r = _mm256_mul_ps(_mm256_set1_ps(best_score), sq2);
                const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(sq2, _mm256_setzero_ps(), _CMP_GT_OQ),
                                                _mm256_cmp_ps(l, r, _CMP_GT_OQ));
                pass |= (unsigned)_mm256_movemask_ps(ok);
                _mm256_storeu_ps(qx[h], sqx);
                _mm256_storeu_ps(q2[h], sq2);
            }
            if (!(pass & ((1u << nl) - 1)))
                continue;
            for (int l = 0; l < nl; l++) {
                for (int h = 0; h < 2; h++) {
                    const float sumqx = qx[h][l], sumq2 = q2[h][l];
                    if (sumq2 > 0 && sumqx * sumqx > best_score * sumq2) {
                        *scale = sumqx / sumq2;
                        best_score = *scale * sumqx;
                        besti1 = i1;
                        *besti2 = i2 + l;
                        *shift = h == 0 ? 1 : -1;
                    }
                }
            }
        }
    }
    return besti1;
}

#define QUANT_ENTRY_AVX2(name, grid, bytes)                                                        \
    GGUF__TARGET_AVX2 static void quant_##name##_avx2(void *dst, const float *src, int64_t nrows, \
                                                      int64_t n_per_row, const float *imatrix) {  \
        quant_rows(dst, src, nrows, n_per_row, imatrix, grid, bytes, quant_block_##name,          \
                   pick_avx2, iq1m_split_sums_avx2, iq1s_split_search_avx2);                       \
    }
QUANT_ENTRY_AVX2(iq2_xxs, GGUF__IQ_GRID_IQ2XXS, GGUF__BLOCK_BYTES(IQ2_XXS))
QUANT_ENTRY_AVX2(iq2_xs, GGUF__IQ_GRID_IQ2XS, GGUF__BLOCK_BYTES(IQ2_XS))
QUANT_ENTRY_AVX2(iq2_s, GGUF__IQ_GRID_IQ2S, GGUF__BLOCK_BYTES(IQ2_S))
QUANT_ENTRY_AVX2(iq3_xxs, GGUF__IQ_GRID_IQ3XXS, GGUF__BLOCK_BYTES(IQ3_XXS))
QUANT_ENTRY_AVX2(iq3_s, GGUF__IQ_GRID_IQ3S, GGUF__BLOCK_BYTES(IQ3_S))
QUANT_ENTRY_AVX2(iq1_s, GGUF__IQ_GRID_IQ1S, GGUF__BLOCK_BYTES(IQ1_S))
QUANT_ENTRY_AVX2(iq1_m, GGUF__IQ_GRID_IQ1S, GGUF__BLOCK_BYTES(IQ1_M))
#undef QUANT_ENTRY_AVX2

#define IQ_SIMD(level, fn) [level] = fn
#else
#define IQ_SIMD(level, fn) [level] = NULL
#endif /* GGUF__X86 */

/* ------------------------------------------------------------------------------------------ */
/* Kernel entries                                                                              */

const gguf__quant_kernels gguf__kernels_iq2_xxs = {
    .dequant = dequant_iq2_xxs,
    .dequant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, dequant_iq2_xxs_avx2)},
    .quant = quant_iq2_xxs,
    .quant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, quant_iq2_xxs_avx2)},
    .needs_imatrix = true,
};
const gguf__quant_kernels gguf__kernels_iq2_xs = {
    .dequant = dequant_iq2_xs,
    .dequant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, dequant_iq2_xs_avx2)},
    .quant = quant_iq2_xs,
    .quant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, quant_iq2_xs_avx2)},
    .needs_imatrix = true,
};
const gguf__quant_kernels gguf__kernels_iq2_s = {
    .dequant = dequant_iq2_s,
    .dequant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, dequant_iq2_s_avx2)},
    .quant = quant_iq2_s,
    .quant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, quant_iq2_s_avx2)},
};
const gguf__quant_kernels gguf__kernels_iq3_xxs = {
    .dequant = dequant_iq3_xxs,
    .dequant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, dequant_iq3_xxs_avx2)},
    .quant = quant_iq3_xxs,
    .quant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, quant_iq3_xxs_avx2)},
};
const gguf__quant_kernels gguf__kernels_iq3_s = {
    .dequant = dequant_iq3_s,
    .dequant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, dequant_iq3_s_avx2)},
    .quant = quant_iq3_s,
    .quant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, quant_iq3_s_avx2)},
};
const gguf__quant_kernels gguf__kernels_iq1_s = {
    .dequant = dequant_iq1_s,
    .dequant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, dequant_iq1_s_avx2)},
    .quant = quant_iq1_s,
    .quant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, quant_iq1_s_avx2)},
    .needs_imatrix = true,
};
const gguf__quant_kernels gguf__kernels_iq1_m = {
    .dequant = dequant_iq1_m,
    .dequant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, dequant_iq1_m_avx2)},
    .quant = quant_iq1_m,
    .quant_simd = {IQ_SIMD(GGUF__SIMD_AVX2, quant_iq1_m_avx2)},
};
