/* The tests' own description of the multi-byte fields inside each tensor type's block, written
 * from ggml's block structs (ggml-common.h) and the way its scalar dequantizers and s390x
 * kernels load them, independently of libgguf/format/byteswap.c: every field listed is a number
 * that a big-endian file stores big-endian; every byte not listed must come through a byte-order
 * conversion unchanged. tests/lib/format/check_byteswap.c holds the library's recipes against
 * this list, and make_golden_types.c builds golden/types/all_types.be.gguf from it.
 *
 * Header-only (static data), for the test programs. */
#ifndef GGUF_TEST_BYTESWAP_LAYOUTS_H
#define GGUF_TEST_BYTESWAP_LAYOUTS_H

#include <libgguf/gguf.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tl_field {
    const char *name;
    uint16_t offset; /* bytes into the block */
    uint8_t width;   /* bytes: 2, 4 or 8 */
    uint8_t count;   /* an array of `count` such numbers, `step` bytes apart */
    uint8_t step;
} tl_field;

#define TL_MAX_FIELDS 3

typedef struct tl_layout {
    uint32_t dtype;
    uint32_t block_bytes;
    tl_field fields[TL_MAX_FIELDS]; /* ended by a NULL name */
} tl_layout;

#define TL_ONE(n, o, w) {n, o, w, 1, w}
#define TL_ARR(n, o, w, c) {n, o, w, c, w}

static const tl_layout TL_LAYOUTS[] = {
    {GGUF_DTYPE_F32, 4, {TL_ONE("value", 0, 4)}},
    {GGUF_DTYPE_F16, 2, {TL_ONE("value", 0, 2)}},
    {GGUF_DTYPE_BF16, 2, {TL_ONE("value", 0, 2)}},
    {GGUF_DTYPE_F64, 8, {TL_ONE("value", 0, 8)}},
    {GGUF_DTYPE_I8, 1, {{NULL, 0, 0, 0, 0}}},
    {GGUF_DTYPE_I16, 2, {TL_ONE("value", 0, 2)}},
    {GGUF_DTYPE_I32, 4, {TL_ONE("value", 0, 4)}},
    {GGUF_DTYPE_I64, 8, {TL_ONE("value", 0, 8)}},
    /* block_q4_0 { half d; u8 qs[16]; } */
    {GGUF_DTYPE_Q4_0, 18, {TL_ONE("d", 0, 2)}},
    /* block_q4_1 { half d, m; u8 qs[16]; } */
    {GGUF_DTYPE_Q4_1, 20, {TL_ONE("d", 0, 2), TL_ONE("m", 2, 2)}},
    /* block_q5_0 { half d; u8 qh[4] (one uint32 to ggml); u8 qs[16]; } */
    {GGUF_DTYPE_Q5_0, 22, {TL_ONE("d", 0, 2), TL_ONE("qh", 2, 4)}},
    /* block_q5_1 { half d, m; u8 qh[4] (one uint32); u8 qs[16]; } */
    {GGUF_DTYPE_Q5_1, 24, {TL_ONE("d", 0, 2), TL_ONE("m", 2, 2), TL_ONE("qh", 4, 4)}},
    /* block_q8_0 { half d; i8 qs[32]; } */
    {GGUF_DTYPE_Q8_0, 34, {TL_ONE("d", 0, 2)}},
    /* block_q8_1 { half d, s; i8 qs[32]; } */
    {GGUF_DTYPE_Q8_1, 36, {TL_ONE("d", 0, 2), TL_ONE("s", 2, 2)}},
    /* block_q2_K { u8 scales[16]; u8 qs[64]; half d, dmin; } */
    {GGUF_DTYPE_Q2_K, 84, {TL_ONE("d", 80, 2), TL_ONE("dmin", 82, 2)}},
    /* block_q3_K { u8 hmask[32]; u8 qs[64]; u8 scales[12]; half d; } */
    {GGUF_DTYPE_Q3_K, 110, {TL_ONE("d", 108, 2)}},
    /* block_q4_K { half d, dmin; u8 scales[12]; u8 qs[128]; } */
    {GGUF_DTYPE_Q4_K, 144, {TL_ONE("d", 0, 2), TL_ONE("dmin", 2, 2)}},
    /* block_q5_K { half d, dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]; } */
    {GGUF_DTYPE_Q5_K, 176, {TL_ONE("d", 0, 2), TL_ONE("dmin", 2, 2)}},
    /* block_q6_K { u8 ql[128]; u8 qh[64]; i8 scales[16]; half d; } */
    {GGUF_DTYPE_Q6_K, 210, {TL_ONE("d", 208, 2)}},
    /* block_q8_K { float d; i8 qs[256]; i16 bsums[16]; } */
    {GGUF_DTYPE_Q8_K, 292, {TL_ONE("d", 0, 4), TL_ARR("bsums", 260, 2, 16)}},
    /* block_iq2_xxs { half d; u16 qs[32]; } read as 8 x { u8 grid[4]; u32 signs_scale; } */
    {GGUF_DTYPE_IQ2_XXS, 66, {TL_ONE("d", 0, 2), {"signs_scale", 6, 4, 8, 8}}},
    /* block_iq2_xs { half d; u16 qs[32]; u8 scales[8]; } */
    {GGUF_DTYPE_IQ2_XS, 74, {TL_ONE("d", 0, 2), TL_ARR("qs", 2, 2, 32)}},
    /* block_iq3_xxs { half d; u8 qs[64]; u32 scales_and_signs[8] (declared as bytes); } */
    {GGUF_DTYPE_IQ3_XXS, 98, {TL_ONE("d", 0, 2), TL_ARR("scales_and_signs", 66, 4, 8)}},
    /* block_iq1_s { half d; u8 qs[32]; u16 qh[8]; } */
    {GGUF_DTYPE_IQ1_S, 50, {TL_ONE("d", 0, 2), TL_ARR("qh", 34, 2, 8)}},
    /* block_iq4_nl { half d; u8 qs[16]; } */
    {GGUF_DTYPE_IQ4_NL, 18, {TL_ONE("d", 0, 2)}},
    /* block_iq3_s { half d; u8 qs[64]; u8 qh[8]; u8 signs[32]; u8 scales[4]; } */
    {GGUF_DTYPE_IQ3_S, 110, {TL_ONE("d", 0, 2)}},
    /* block_iq2_s { half d; u8 qs[64]; u8 qh[8]; u8 scales[8]; } */
    {GGUF_DTYPE_IQ2_S, 82, {TL_ONE("d", 0, 2)}},
    /* block_iq4_xs { half d; u16 scales_h; u8 scales_l[4]; u8 qs[128]; } */
    {GGUF_DTYPE_IQ4_XS, 136, {TL_ONE("d", 0, 2), TL_ONE("scales_h", 2, 2)}},
    /* block_iq1_m { u8 qs[32]; u8 qh[16]; u8 scales[8] (read as u16[4]); } */
    {GGUF_DTYPE_IQ1_M, 56, {TL_ARR("scales", 48, 2, 4)}},
    /* block_tq1_0 { u8 qs[48]; u8 qh[4]; half d; } */
    {GGUF_DTYPE_TQ1_0, 54, {TL_ONE("d", 52, 2)}},
    /* block_tq2_0 { u8 qs[64]; half d; } */
    {GGUF_DTYPE_TQ2_0, 66, {TL_ONE("d", 64, 2)}},
    /* block_mxfp4 { u8 e; u8 qs[16]; } */
    {GGUF_DTYPE_MXFP4, 17, {{NULL, 0, 0, 0, 0}}},
    /* block_nvfp4 { u8 d[4]; u8 qs[32]; } */
    {GGUF_DTYPE_NVFP4, 36, {{NULL, 0, 0, 0, 0}}},
    /* block_q1_0 { half d; u8 qs[16]; } */
    {GGUF_DTYPE_Q1_0, 18, {TL_ONE("d", 0, 2)}},
    /* block_q2_0 { half d; u8 qs[16]; } */
    {GGUF_DTYPE_Q2_0, 18, {TL_ONE("d", 0, 2)}},
};
#define TL_N_LAYOUTS (sizeof TL_LAYOUTS / sizeof TL_LAYOUTS[0])

static inline const tl_layout *tl_find(uint32_t dtype) {
    for (size_t i = 0; i < TL_N_LAYOUTS; i++)
        if (TL_LAYOUTS[i].dtype == dtype)
            return &TL_LAYOUTS[i];
    return NULL;
}

/* Reverses the bytes of every listed field of n blocks at p (an independent converter). */
static inline void tl_swap(const tl_layout *l, uint8_t *p, size_t nblocks) {
    for (size_t b = 0; b < nblocks; b++, p += l->block_bytes) {
        for (const tl_field *f = l->fields; f < l->fields + TL_MAX_FIELDS && f->name; f++) {
            for (unsigned i = 0; i < f->count; i++) {
                uint8_t *q = p + f->offset + (size_t)i * f->step;
                for (unsigned a = 0, z = f->width - 1u; a < z; a++, z--) {
                    uint8_t t = q[a];
                    q[a] = q[z];
                    q[z] = t;
                }
            }
        }
    }
}

/* A number of `width` bytes at p, little- or big-endian. */
static inline uint64_t tl_load(const uint8_t *p, unsigned width, int big) {
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++)
        v |= (uint64_t)p[big ? width - 1 - i : i] << (8 * i);
    return v;
}

#endif
