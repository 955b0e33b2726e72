/* Byte order of tensor data (byteswap.c): gguf_dtype_byteswap, gguf_dtype_byteswap_copy and
 * the writer's hook gguf__byteswap_blocks.
 *
 * The library's recipes are held against the tests' own list of each block's multi-byte
 * fields (byteswap_layouts.h): after a conversion every listed field read big-endian equals
 * the original read little-endian, and every other byte is unchanged. Then the semantics:
 * ggml's own dequantized floats of real quantized blocks (../shared/vectors, TYPE.dq.f32, made
 * by ggml's to_float) must come out of big-endian readers written here, which read the
 * converted blocks' scales and packed bit fields as big-endian numbers, the way a big-endian
 * ggml build loads them. A wrong recipe (a field left out, swapped at the wrong width, a byte
 * array swapped) fails one of the two. */
#include <check.h>
#include <math.h> /* isnan */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libgguf/gguf.h>
#include "format/format.h"
#include "tests/support/testutil.h"
#include "tests/support/byteswap_layouts.h"

/* ---- helpers ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint8_t rnd8(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint8_t)(rng_state >> 24);
}
static void fill_random(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        p[i] = rnd8();
}

/* Checks converted n blocks (`out`) against the original (`in`) with the tests' layout. */
static void check_layout(const tl_layout *l, const uint8_t *in, const uint8_t *out,
                         size_t nblocks, int out_big) {
    uint8_t *covered = calloc(l->block_bytes, 1);
    ck_assert_ptr_nonnull(covered);
    for (const tl_field *f = l->fields; f < l->fields + TL_MAX_FIELDS && f->name; f++)
        for (unsigned i = 0; i < f->count; i++)
            for (unsigned k = 0; k < f->width; k++) {
                size_t at = f->offset + (size_t)i * f->step + k;
                ck_assert_uint_lt(at, l->block_bytes);
                ck_assert_msg(!covered[at], "%s: field %s overlaps another",
                              gguf_dtype_name(l->dtype), f->name);
                covered[at] = 1;
            }
    for (size_t b = 0; b < nblocks; b++) {
        const uint8_t *pi = in + b * l->block_bytes, *po = out + b * l->block_bytes;
        for (const tl_field *f = l->fields; f < l->fields + TL_MAX_FIELDS && f->name; f++)
            for (unsigned i = 0; i < f->count; i++) {
                size_t at = f->offset + (size_t)i * f->step;
                uint64_t want = tl_load(pi + at, f->width, !out_big);
                uint64_t got = tl_load(po + at, f->width, out_big);
                ck_assert_msg(want == got, "%s block %zu: field %s[%u] is %#llx, want %#llx",
                              gguf_dtype_name(l->dtype), b, f->name, i,
                              (unsigned long long)got, (unsigned long long)want);
            }
        for (size_t k = 0; k < l->block_bytes; k++)
            if (!covered[k])
                ck_assert_msg(pi[k] == po[k], "%s block %zu: byte %zu (not a number) changed",
                              gguf_dtype_name(l->dtype), b, k);
    }
    free(covered);
}

/* ---- every type has a recipe that agrees with the layout ---- */

START_TEST(test_every_type_listed) {
    size_t known = 0;
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
        if (gguf_dtype_name(t) == NULL)
            continue;
        known++;
        const tl_layout *l = tl_find(t);
        ck_assert_msg(l != NULL, "type %s has no layout in the tests", gguf_dtype_name(t));
        ck_assert_uint_eq(l->block_bytes, gguf_dtype_block_bytes(t));
        ck_assert_int_eq(gguf_dtype_byteswap(NULL, 0, t, NULL), 0);
    }
    ck_assert_uint_eq(known, TL_N_LAYOUTS);
    ck_assert_uint_eq(known, 35);
}
END_TEST

START_TEST(test_recipe_matches_layout) {
    const tl_layout *l = &TL_LAYOUTS[_i];
    size_t nblocks = 5, n = nblocks * l->block_bytes;
    uint8_t *in = malloc(n), *out = malloc(n), *ref = malloc(n);
    ck_assert(in && out && ref);
    fill_random(in, n);
    memcpy(out, in, n);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_dtype_byteswap(out, n, l->dtype, &err), 0);
    ck_assert_int_eq(err.code, 0);
    check_layout(l, in, out, nblocks, 1);
    /* the tests' own converter gives the same bytes */
    memcpy(ref, in, n);
    tl_swap(l, ref, nblocks);
    ck_assert_mem_eq(ref, out, n);
    /* and back */
    ck_assert_int_eq(gguf_dtype_byteswap(out, n, l->dtype, NULL), 0);
    ck_assert_mem_eq(in, out, n);
    /* the writer's hook does the same */
    memcpy(out, in, n);
    ck_assert_int_eq(gguf__byteswap_blocks(l->dtype, out, n), 0);
    ck_assert_mem_eq(ref, out, n);
    free(in);
    free(out);
    free(ref);
}
END_TEST

/* Any number of blocks, at any alignment; twice gives the input back; copy == in place. */
START_TEST(test_sizes_alignment_copy) {
    const tl_layout *l = &TL_LAYOUTS[_i];
    /* up to a few blocks, then sizes around the copy's 64 KiB piece */
    size_t counts[] = {0, 1, 2, 3, 7, 64 * 1024 / l->block_bytes,
                       64 * 1024 / l->block_bytes + 1, 3 * 64 * 1024 / l->block_bytes + 5};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t n = counts[c] * l->block_bytes;
        for (size_t shift = 0; shift < 8; shift += (counts[c] > 8 ? 3 : 1)) {
            uint8_t *in = malloc(n + 8), *a = malloc(n + 8), *b = malloc(n + 8);
            ck_assert(in && a && b);
            fill_random(in + shift, n);
            memcpy(a + shift, in + shift, n);
            memset(b, 0xEE, n + 8);
            ck_assert_int_eq(gguf_dtype_byteswap(a + shift, n, l->dtype, NULL), 0);
            ck_assert_int_eq(gguf_dtype_byteswap_copy(b + (7 - shift), in + shift, n, l->dtype,
                                                      NULL), 0);
            ck_assert_mem_eq(a + shift, b + (7 - shift), n);
            tl_swap(l, a + shift, counts[c]);
            ck_assert_mem_eq(a + shift, in + shift, n);
            ck_assert_int_eq(gguf_dtype_byteswap_copy(b + (7 - shift), b + (7 - shift), n,
                                                      l->dtype, NULL), 0);
            ck_assert_mem_eq(b + (7 - shift), in + shift, n);
            free(in);
            free(a);
            free(b);
        }
    }
}
END_TEST

/* ---- refusals leave the data untouched ---- */

START_TEST(test_unknown_types) {
    const uint32_t ids[] = {4, 5, 31, 32, 33, 36, 37, 38, GGUF_DTYPE_COUNT, 1000, UINT32_MAX};
    uint8_t buf[64], copy[64], dst[64];
    fill_random(buf, sizeof buf);
    memcpy(copy, buf, sizeof buf);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_dtype_byteswap(buf, 8, ids[i], &err), GGUF_EUNSUPPORTED);
        ck_assert_int_eq(err.code, GGUF_EUNSUPPORTED);
        char want[32];
        snprintf(want, sizeof want, "id %u", ids[i]);
        ck_assert_msg(strstr(err.message, want) != NULL, "message '%s' lacks '%s'",
                      err.message, want);
        ck_assert_mem_eq(buf, copy, sizeof buf);
        memset(dst, 0x5A, sizeof dst);
        ck_assert_int_eq(gguf_dtype_byteswap_copy(dst, buf, 8, ids[i], NULL), GGUF_EUNSUPPORTED);
        for (size_t k = 0; k < sizeof dst; k++)
            ck_assert_uint_eq(dst[k], 0x5A);
        ck_assert_int_eq(gguf_dtype_byteswap(NULL, 0, ids[i], NULL), GGUF_EUNSUPPORTED);
        ck_assert_int_eq(gguf__byteswap_blocks(ids[i], buf, 8), GGUF_EUNSUPPORTED);
        ck_assert_mem_eq(buf, copy, sizeof buf);
    }
}
END_TEST

START_TEST(test_bad_arguments) {
    uint8_t buf[72], copy[72];
    fill_random(buf, sizeof buf);
    memcpy(copy, buf, sizeof buf);
    gguf_error err;
    /* not a whole number of blocks */
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_dtype_byteswap(buf, 35, GGUF_DTYPE_Q8_0, &err), GGUF_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "Q8_0"));
    ck_assert_int_eq(gguf_dtype_byteswap(buf, 3, GGUF_DTYPE_F32, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_dtype_byteswap(buf, 1, GGUF_DTYPE_F16, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_dtype_byteswap_copy(buf + 36, buf, 35, GGUF_DTYPE_Q8_0, NULL),
                     GGUF_EINVAL);
    ck_assert_mem_eq(buf, copy, sizeof buf);
    /* NULL data */
    ck_assert_int_eq(gguf_dtype_byteswap(NULL, 34, GGUF_DTYPE_Q8_0, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_dtype_byteswap_copy(NULL, buf, 34, GGUF_DTYPE_Q8_0, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_dtype_byteswap_copy(buf, NULL, 34, GGUF_DTYPE_Q8_0, NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_dtype_byteswap(NULL, 0, GGUF_DTYPE_Q8_0, NULL), 0);
    ck_assert_int_eq(gguf_dtype_byteswap_copy(NULL, NULL, 0, GGUF_DTYPE_Q8_0, NULL), 0);
    /* overlapping copies other than exactly in place */
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_dtype_byteswap_copy(buf + 2, buf, 68, GGUF_DTYPE_F16, &err),
                     GGUF_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "overlap"));
    ck_assert_int_eq(gguf_dtype_byteswap_copy(buf, buf + 2, 68, GGUF_DTYPE_F16, NULL),
                     GGUF_EINVAL);
    ck_assert_mem_eq(buf, copy, sizeof buf);
    /* adjacent is fine */
    ck_assert_int_eq(gguf_dtype_byteswap_copy(buf + 36, buf, 36, GGUF_DTYPE_F16, NULL), 0);
    /* the first error wins */
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_dtype_byteswap(buf, 1, 1000, &err), GGUF_EUNSUPPORTED);
    ck_assert_int_eq(gguf_dtype_byteswap(buf, 1, GGUF_DTYPE_F32, &err), GGUF_EINVAL);
    ck_assert_int_eq(err.code, GGUF_EUNSUPPORTED);
}
END_TEST

/* Hand-checked bytes: one block each of the types whose packed fields needed a decision. */
START_TEST(test_known_bytes) {
    /* Q5_0: d 0x3C00 (1.0), qh = 0x80000001 (elements 0 and 31 have their fifth bit) */
    uint8_t q5[22] = {0x00, 0x3C, 0x01, 0x00, 0x00, 0x80};
    ck_assert_int_eq(gguf_dtype_byteswap(q5, sizeof q5, GGUF_DTYPE_Q5_0, NULL), 0);
    const uint8_t q5_be[6] = {0x3C, 0x00, 0x80, 0x00, 0x00, 0x01};
    ck_assert_mem_eq(q5, q5_be, 6);
    /* IQ2_XXS: grid bytes stay, the sign/scale word turns */
    uint8_t iq[66] = {0xAA, 0xBB, 1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44, 5, 6, 7, 8, 0x55, 0x66,
                      0x77, 0x88};
    ck_assert_int_eq(gguf_dtype_byteswap(iq, sizeof iq, GGUF_DTYPE_IQ2_XXS, NULL), 0);
    const uint8_t iq_be[18] = {0xBB, 0xAA, 1, 2, 3, 4, 0x44, 0x33, 0x22, 0x11, 5, 6, 7, 8,
                               0x88, 0x77, 0x66, 0x55};
    ck_assert_mem_eq(iq, iq_be, 18);
    /* IQ1_M: the four uint16 scale words, at the end of the block */
    uint8_t m[56] = {0};
    for (int i = 0; i < 8; i++)
        m[48 + i] = (uint8_t)(0x10 + i);
    ck_assert_int_eq(gguf_dtype_byteswap(m, sizeof m, GGUF_DTYPE_IQ1_M, NULL), 0);
    const uint8_t m_be[8] = {0x11, 0x10, 0x13, 0x12, 0x15, 0x14, 0x17, 0x16};
    ck_assert_mem_eq(m + 48, m_be, 8);
    /* Q3_K: scales stay bytes, only d (the last two bytes) turns */
    uint8_t q3[110];
    for (int i = 0; i < 110; i++)
        q3[i] = (uint8_t)i;
    ck_assert_int_eq(gguf_dtype_byteswap(q3, sizeof q3, GGUF_DTYPE_Q3_K, NULL), 0);
    for (int i = 0; i < 108; i++)
        ck_assert_uint_eq(q3[i], i);
    ck_assert_uint_eq(q3[108], 109);
    ck_assert_uint_eq(q3[109], 108);
    /* F64, I64 */
    uint8_t w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ck_assert_int_eq(gguf_dtype_byteswap(w, 8, GGUF_DTYPE_I64, NULL), 0);
    const uint8_t w_be[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    ck_assert_mem_eq(w, w_be, 8);
}
END_TEST

/* ---- semantics: big-endian readers against ggml's own dequantized floats ---- */

static const char *vectors_path(const char *name) {
    static char path[4096];
    char rel[256];
    snprintf(rel, sizeof rel, "golden/vectors/%s", name);
    snprintf(path, sizeof path, "%s", tu_src(rel));
    FILE *fp = fopen(path, "rb");
    if (fp != NULL) {
        fclose(fp);
        return path;
    }
    snprintf(rel, sizeof rel, "../shared/vectors/%s", name);
    snprintf(path, sizeof path, "%s", tu_src(rel));
    return path;
}

/* IEEE half -> float, exactly (every half is a float) */
static float f16_value(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, mant = h & 1023, bits;
    if (exp == 31) {
        bits = sign | 0x7F800000u | (mant << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else {
        float v = (float)mant * (1.0f / 16777216.0f); /* mant * 2^-24, exact */
        memcpy(&bits, &v, 4);
        bits |= sign;
    }
    float v;
    memcpy(&v, &bits, 4);
    return v;
}
static float bf16_value(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float v;
    memcpy(&v, &bits, 4);
    return v;
}
/* big-endian numbers of a converted block */
static uint16_t be16(const uint8_t *p) { return (uint16_t)tl_load(p, 2, 1); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)tl_load(p, 4, 1); }
static float beh(const uint8_t *p) { return f16_value(be16(p)); }

static const int8_t NL_VALUES[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                     1,    13,   25,  38,  53,  69,  89,  113};
static const int8_t FP4_VALUES[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* Each reader turns one big-endian block into floats, loading every multi-byte field as a
 * big-endian number (a big-endian ggml's view of the block). */
typedef void (*be_reader)(float *y, const uint8_t *x);

static void be_f16(float *y, const uint8_t *x) { y[0] = beh(x); }
static void be_bf16(float *y, const uint8_t *x) { y[0] = bf16_value(be16(x)); }
static void be_q4_0(float *y, const uint8_t *x) {
    float d = beh(x);
    for (int j = 0; j < 16; j++) {
        y[j] = (float)((x[2 + j] & 15) - 8) * d;
        y[j + 16] = (float)((x[2 + j] >> 4) - 8) * d;
    }
}
static void be_q4_1(float *y, const uint8_t *x) {
    float d = beh(x), m = beh(x + 2);
    for (int j = 0; j < 16; j++) {
        y[j] = (float)(x[4 + j] & 15) * d + m;
        y[j + 16] = (float)(x[4 + j] >> 4) * d + m;
    }
}
static void be_q5_0(float *y, const uint8_t *x) {
    float d = beh(x);
    uint32_t qh = be32(x + 2); /* bit j: element j's fifth bit */
    for (int j = 0; j < 16; j++) {
        int lo = (x[6 + j] & 15) | (int)(((qh >> j) & 1) << 4);
        int hi = (x[6 + j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
        y[j] = (float)(lo - 16) * d;
        y[j + 16] = (float)(hi - 16) * d;
    }
}
static void be_q5_1(float *y, const uint8_t *x) {
    float d = beh(x), m = beh(x + 2);
    uint32_t qh = be32(x + 4);
    for (int j = 0; j < 16; j++) {
        int lo = (x[8 + j] & 15) | (int)(((qh >> j) & 1) << 4);
        int hi = (x[8 + j] >> 4) | (int)(((qh >> (j + 16)) & 1) << 4);
        y[j] = (float)lo * d + m;
        y[j + 16] = (float)hi * d + m;
    }
}
static void be_q8_0(float *y, const uint8_t *x) {
    float d = beh(x);
    for (int j = 0; j < 32; j++)
        y[j] = (float)(int8_t)x[2 + j] * d;
}
static void be_q1_0(float *y, const uint8_t *x) {
    float d = beh(x);
    for (int j = 0; j < 128; j++)
        y[j] = (x[2 + j / 8] >> (j % 8)) & 1 ? d : -d;
}
static void be_q2_0(float *y, const uint8_t *x) {
    float d = beh(x);
    for (int j = 0; j < 64; j++)
        y[j] = (float)(((x[2 + j / 4] >> (2 * (j % 4))) & 3) - 1) * d;
}
static void be_iq4_nl(float *y, const uint8_t *x) {
    float d = beh(x);
    for (int j = 0; j < 16; j++) {
        y[j] = d * (float)NL_VALUES[x[2 + j] & 15];
        y[j + 16] = d * (float)NL_VALUES[x[2 + j] >> 4];
    }
}
static void be_iq4_xs(float *y, const uint8_t *x) {
    float d = beh(x);
    uint16_t scales_h = be16(x + 2); /* two high scale bits per 32 elements */
    const uint8_t *scales_l = x + 4, *qs = x + 8;
    for (int ib = 0; ib < 8; ib++, y += 32, qs += 16) {
        int ls = ((scales_l[ib / 2] >> (4 * (ib % 2))) & 15) | (((scales_h >> (2 * ib)) & 3) << 4);
        float dl = d * (float)(ls - 32);
        for (int j = 0; j < 16; j++) {
            y[j] = dl * (float)NL_VALUES[qs[j] & 15];
            y[j + 16] = dl * (float)NL_VALUES[qs[j] >> 4];
        }
    }
}
static void be_mxfp4(float *y, const uint8_t *x) {
    /* E8M0 scale, halved: 2^(e - 128) */
    uint32_t bits = x[0] < 2 ? 0x00200000u << x[0] : (uint32_t)(x[0] - 1) << 23;
    float d;
    memcpy(&d, &bits, 4);
    for (int j = 0; j < 16; j++) {
        y[j] = (float)FP4_VALUES[x[1 + j] & 15] * d;
        y[j + 16] = (float)FP4_VALUES[x[1 + j] >> 4] * d;
    }
}
static void be_tq2_0(float *y, const uint8_t *x) {
    float d = beh(x + 64);
    for (int j = 0; j < 64; j += 32)
        for (int l = 0; l < 4; l++)
            for (int m = 0; m < 32; m++)
                *y++ = (float)(((x[j + m] >> (2 * l)) & 3) - 1) * d;
}
static void k_scale_min(int j, const uint8_t *s, uint8_t *sc, uint8_t *m) {
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = (uint8_t)((s[j + 4] & 15) | ((s[j - 4] >> 6) << 4));
        *m = (uint8_t)((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
    }
}
static void be_q4_k(float *y, const uint8_t *x) {
    float d = beh(x), dmin = beh(x + 2);
    const uint8_t *scales = x + 4, *q = x + 16;
    for (int j = 0, is = 0; j < 256; j += 64, q += 32, is += 2) {
        uint8_t sc, m;
        k_scale_min(is, scales, &sc, &m);
        float d1 = d * sc, m1 = dmin * m;
        k_scale_min(is + 1, scales, &sc, &m);
        float d2 = d * sc, m2 = dmin * m;
        for (int l = 0; l < 32; l++)
            *y++ = d1 * (float)(q[l] & 15) - m1;
        for (int l = 0; l < 32; l++)
            *y++ = d2 * (float)(q[l] >> 4) - m2;
    }
}
static void be_q6_k(float *y, const uint8_t *x) {
    float d = beh(x + 208);
    const uint8_t *ql = x, *qh = x + 128;
    const int8_t *sc = (const int8_t *)(x + 192);
    for (int n = 0; n < 256; n += 128, y += 128, ql += 64, qh += 32, sc += 8)
        for (int l = 0; l < 32; l++) {
            int is = l / 16;
            int q1 = ((ql[l] & 15) | (((qh[l] >> 0) & 3) << 4)) - 32;
            int q2 = ((ql[l + 32] & 15) | (((qh[l] >> 2) & 3) << 4)) - 32;
            int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = d * (float)sc[is] * (float)q1;
            y[l + 32] = d * (float)sc[is + 2] * (float)q2;
            y[l + 64] = d * (float)sc[is + 4] * (float)q3;
            y[l + 96] = d * (float)sc[is + 6] * (float)q4;
        }
}

typedef struct be_case {
    const char *file; /* vectors/NAME.q and NAME.dq.f32 */
    uint32_t dtype;
    be_reader read;
} be_case;

static const be_case BE_CASES[] = {
    {"f16", GGUF_DTYPE_F16, be_f16},          {"bf16", GGUF_DTYPE_BF16, be_bf16},
    {"q4_0", GGUF_DTYPE_Q4_0, be_q4_0},       {"q4_1", GGUF_DTYPE_Q4_1, be_q4_1},
    {"q5_0", GGUF_DTYPE_Q5_0, be_q5_0},       {"q5_1", GGUF_DTYPE_Q5_1, be_q5_1},
    {"q8_0", GGUF_DTYPE_Q8_0, be_q8_0},       {"q1_0", GGUF_DTYPE_Q1_0, be_q1_0},
    {"q2_0", GGUF_DTYPE_Q2_0, be_q2_0},       {"iq4_nl", GGUF_DTYPE_IQ4_NL, be_iq4_nl},
    {"iq4_xs", GGUF_DTYPE_IQ4_XS, be_iq4_xs}, {"mxfp4", GGUF_DTYPE_MXFP4, be_mxfp4},
    {"tq2_0", GGUF_DTYPE_TQ2_0, be_tq2_0},    {"q4_K", GGUF_DTYPE_Q4_K, be_q4_k},
    {"q6_K", GGUF_DTYPE_Q6_K, be_q6_k},
};
#define N_BE_CASES (sizeof BE_CASES / sizeof BE_CASES[0])

/* The vectors' quantized bytes and ggml's floats for them, or 0 when absent. */
static int load_vector(const char *name, uint8_t **q, size_t *qlen, float **dq, size_t *n) {
    char file[128];
    snprintf(file, sizeof file, "%s.q", name);
    *q = tu_read_file(vectors_path(file), qlen);
    snprintf(file, sizeof file, "%s.dq.f32", name);
    size_t dlen;
    uint8_t *d = tu_read_file(vectors_path(file), &dlen);
    if (*q == NULL || d == NULL) {
        free(*q);
        free(d);
        return 0;
    }
    *dq = (float *)(void *)d;
    *n = dlen / sizeof(float);
    return 1;
}

START_TEST(test_big_endian_readers_match_ggml) {
    const be_case *c = &BE_CASES[_i];
    uint8_t *q;
    float *dq;
    size_t qlen, n;
    if (!load_vector(c->file, &q, &qlen, &dq, &n))
        tu_skip_iter(_i, "no vectors of this type (golden/vectors, ../shared/vectors)");
    uint32_t bb = gguf_dtype_block_bytes(c->dtype), be = gguf_dtype_block_elems(c->dtype);
    ck_assert_uint_eq(qlen % bb, 0);
    size_t nblocks = qlen / bb;
    ck_assert_uint_eq(nblocks * be, n);
    ck_assert_int_eq(gguf_dtype_byteswap(q, qlen, c->dtype, NULL), 0);
    float *y = malloc(be * sizeof(float));
    ck_assert_ptr_nonnull(y);
    size_t mismatches = 0;
    for (size_t b = 0; b < nblocks; b++) {
        c->read(y, q + b * bb);
        for (size_t j = 0; j < be; j++) {
            float want = dq[b * be + j];
            if (memcmp(&y[j], &want, sizeof want) != 0 && !(isnan(y[j]) && isnan(want))) {
                if (mismatches++ < 3)
                    fprintf(stderr, "%s block %zu element %zu: %.9g, ggml %.9g\n", c->file, b,
                            j, (double)y[j], (double)want);
            }
        }
    }
    ck_assert_msg(mismatches == 0, "%s: %zu floats differ from ggml's", c->file, mismatches);
    free(y);
    free(q);
    free(dq);
}
END_TEST

/* Every vector type: the converted real blocks keep their fields (read big-endian), and
 * converting back then dequantizing with the library gives ggml's floats. */
START_TEST(test_vectors_fields) {
    size_t tested = 0;
    for (size_t i = 0; i < TL_N_LAYOUTS; i++) {
        const tl_layout *l = &TL_LAYOUTS[i];
        char name[32];
        snprintf(name, sizeof name, "%s", gguf_dtype_name(l->dtype));
        /* the vectors' names are ggml's: lower case, but "q4_K" */
        size_t len = strlen(name);
        for (size_t k = 0; k < len; k++)
            if (name[k] >= 'A' && name[k] <= 'Z' && !(k == len - 1 && name[k] == 'K'))
                name[k] = (char)(name[k] - 'A' + 'a');
        uint8_t *q;
        float *dq;
        size_t qlen, n;
        if (!load_vector(name, &q, &qlen, &dq, &n))
            continue;
        uint8_t *be = malloc(qlen);
        ck_assert_ptr_nonnull(be);
        ck_assert_int_eq(gguf_dtype_byteswap_copy(be, q, qlen, l->dtype, NULL), 0);
        check_layout(l, q, be, qlen / l->block_bytes, 1);
        /* a big-endian dequantizer (convert back, then dequantize) gives ggml's floats */
        ck_assert_msg(gguf_quant_can_dequantize(l->dtype), "%s: no dequantizer", name);
        {
            float *y = malloc(n * sizeof(float));
            ck_assert_ptr_nonnull(y);
            ck_assert_int_eq(gguf_dtype_byteswap(be, qlen, l->dtype, NULL), 0);
            ck_assert_int_eq(gguf_quant_dequantize(y, l->dtype, be, qlen, (int64_t)n, NULL), 0);
            ck_assert_msg(memcmp(y, dq, n * sizeof(float)) == 0, "%s: dequantized differ", name);
            free(y);
        }
        free(be);
        free(q);
        free(dq);
        tested++;
    }
    if (tested == 0)
        tu_skip("no vectors (golden/vectors, ../shared/vectors)");
    ck_assert_uint_ge(tested, 27);
}
END_TEST

/* ---- files: golden/types/all_types.gguf and its big-endian twin ---- */

static gguf_file *open_src(const char *rel) {
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&f, tu_src(rel), 0, &err) == 0, "%s: %s", rel, err.message);
    return f;
}

/* The big-endian golden file, assembled by make_golden_types.c without the library, holds
 * every tensor's bytes converted by the tests' own layout; the library's writer makes it from
 * the little-endian one (with 1 and 3 threads), and the little-endian one back from it. */
START_TEST(test_golden_all_types) {
    gguf_file *le = open_src("golden/types/all_types.gguf");
    gguf_file *be = open_src("golden/types/all_types.be.gguf");
    ck_assert_int_eq(gguf_file_endian(le), GGUF_ENDIAN_LITTLE);
    ck_assert_int_eq(gguf_file_endian(be), GGUF_ENDIAN_BIG);
    ck_assert_uint_eq(gguf_tensor_count(le), TL_N_LAYOUTS);
    ck_assert_uint_eq(gguf_tensor_count(be), TL_N_LAYOUTS);
    int seen[GGUF_DTYPE_COUNT] = {0};
    for (size_t i = 0; i < gguf_tensor_count(le); i++) {
        gguf_tensor_info a, b;
        gguf_tensor_get(&a, le, i);
        gguf_tensor_get(&b, be, i);
        ck_assert_uint_eq(a.type, b.type);
        ck_assert_uint_eq(a.nbytes, b.nbytes);
        ck_assert_uint_lt(a.type, GGUF_DTYPE_COUNT);
        seen[a.type]++;
        const tl_layout *l = tl_find(a.type);
        ck_assert_ptr_nonnull(l);
        check_layout(l, gguf_tensor_data(le, i), gguf_tensor_data(be, i),
                     (size_t)a.nbytes / l->block_bytes, 1);
    }
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++)
        ck_assert_int_eq(seen[t], gguf_dtype_name(t) != NULL);

    size_t be_len, le_len;
    uint8_t *be_bytes = tu_read_file(tu_src("golden/types/all_types.be.gguf"), &be_len);
    uint8_t *le_bytes = tu_read_file(tu_src("golden/types/all_types.gguf"), &le_len);
    ck_assert(be_bytes && le_bytes);
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
        opt.endian = GGUF_ENDIAN_BIG;
        opt.threads = threads;
        void *out;
        size_t n;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_write_memory(&out, &n, le, &opt, &err) == 0, "%s", err.message);
        ck_assert_uint_eq(n, be_len);
        ck_assert_mem_eq(out, be_bytes, n);
        free(out);
        opt.endian = GGUF_ENDIAN_LITTLE;
        ck_assert_msg(gguf_file_write_memory(&out, &n, be, &opt, &err) == 0, "%s", err.message);
        ck_assert_uint_eq(n, le_len);
        ck_assert_mem_eq(out, le_bytes, n);
        free(out);
    }
    free(be_bytes);
    free(le_bytes);
    gguf_file_free(le);
    gguf_file_free(be);
}
END_TEST

static Suite *byteswap_suite(void) {
    Suite *s = suite_create("byteswap");
    TCase *tc = tcase_create("recipes");
    tcase_add_test(tc, test_every_type_listed);
    tcase_add_loop_test(tc, test_recipe_matches_layout, 0, (int)TL_N_LAYOUTS);
    tcase_add_loop_test(tc, test_sizes_alignment_copy, 0, (int)TL_N_LAYOUTS);
    tcase_add_test(tc, test_known_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("refusals");
    tcase_add_test(tc, test_unknown_types);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    tc = tcase_create("semantics");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_big_endian_readers_match_ggml, 0, (int)N_BE_CASES);
    tcase_add_test(tc, test_vectors_fields);
    suite_add_tcase(s, tc);
    tc = tcase_create("files");
    tcase_add_test(tc, test_golden_all_types);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return tu_run_suite(byteswap_suite());
}
