/* Tensor data between byte orders, per type, from a recipe.
 *
 * A big-endian GGUF file stores every multi-byte number of a tensor's blocks big-endian: the
 * f16/f32 scales, and the bit fields that ggml reads through 16-, 32- or 64-bit loads. Byte
 * arrays (quants, packed scales read byte by byte) stay as they are. Each type's recipe lists
 * its multi-byte fields as runs: `count` fields of `width` bytes, the first at byte `offset` of
 * the block, each `stride` bytes after the previous one (stride 0: packed, stride = width).
 *
 * Converting is swapping the bytes of each listed field, so the same operation converts either
 * way (little -> big and big -> little), and doing it twice gives the input back.
 *
 * "What a big-endian ggml expects" is taken to be what ggml's C code does when compiled for a
 * big-endian machine (s390x, POWER in big-endian mode): a field it loads as a uintN_t (by a
 * struct member of that type, a uintN_t pointer, or a memcpy into a uintN_t) holds a number,
 * and a big-endian build reads that number from big-endian bytes; a field it reads as bytes is
 * a byte array on every machine. Where the declared struct type and the loads disagree, the
 * loads win (see IQ2_XXS). The decisions for packed bit fields, per type:
 *
 *   Q5_0, Q5_1   qh (4 bytes, declared uint8_t[4]): loaded as one uint32 (memcpy) and bit j
 *                is element j's fifth bit (ggml's reference and s390x dot products, and its
 *                quantizer stores the uint32 the same way): one 32-bit field.
 *   IQ2_XXS      qs (64 bytes, declared uint16_t[32]): read as 8 groups of 8 bytes, memcpy'd
 *                into uint32_t[2]; the first 4 bytes are read as bytes (four grid indices),
 *                the second uint32 as a number (4 x 7 sign bits, 4-bit scale). So bytes 0-3 of
 *                each group stay and bytes 4-7 swap as one 32-bit field; swapping the uint16
 *                pairs, as the declaration suggests, would break both halves. (ggml's own
 *                quantizer builds the index word with shifts, so a big-endian ggml would write
 *                the indices reversed and disagree with its own dequantizer: that is a bug of
 *                big-endian ggml, not a property of the file; we follow the reader.)
 *   IQ2_XS       qs: uint16_t[32], each a 9-bit grid index and 7 sign bits: 16-bit fields.
 *   IQ3_XXS      the last 32 bytes (scales and signs): 8 uint32 loaded by memcpy: 32-bit
 *                fields; the first 64 bytes of qs are grid indices read as bytes.
 *   IQ1_S        qh: uint16_t[8] (3-bit index highs, 3-bit scale, delta sign): 16-bit fields.
 *   IQ1_M        scales (8 bytes, declared uint8_t[8]): read through a uint16_t pointer, the
 *                block's f16 scale assembled from the top nibbles of the four uint16 values:
 *                four 16-bit fields. qh stays (read as bytes).
 *   IQ4_XS       scales_h: one uint16: a 16-bit field.
 *   Q8_K         bsums: int16_t[16]: 16-bit fields; d is an f32.
 *   Q3_K, Q4_K, Q5_K   scales (12 bytes): ggml memcpy's them into uint32_t[3] but only masks
 *                and shifts within byte lanes and reads the result back as bytes, so a
 *                big-endian build gets the same values from unswapped bytes: byte arrays.
 *   MXFP4, NVFP4 E8M0 / UE4M3 scales are single bytes: nothing to swap.
 * Everything else is bytes.
 *
 * DESIGN.md places the recipe in dtype.c's type table; it lives here for now (written while the
 * table was being edited elsewhere) and may move there. The table is indexed by gguf_dtype.
 */
#include "format/format.h"

#include <assert.h>
#include <string.h>

typedef struct swap_run {
    uint16_t offset; /* of the first field, in the block */
    uint8_t width;   /* 2, 4 or 8 */
    uint8_t count;   /* fields in the run */
    uint16_t stride; /* bytes from one field to the next; 0: packed (= width) */
} swap_run;

#define MAX_RUNS 2

typedef struct swap_recipe {
    uint16_t block_bytes; /* as in dtype.c; 0: no recipe */
    uint8_t n_runs;
    swap_run runs[MAX_RUNS];
} swap_recipe;

#define BYTES_ONLY(b) {b, 0, {{0, 0, 0, 0}}}
#define RUN1(b, o, w, c) {b, 1, {{o, w, c, 0}}}
#define RUN2(b, o1, w1, c1, o2, w2, c2, s2) {b, 2, {{o1, w1, c1, 0}, {o2, w2, c2, s2}}}

/* Offsets are bytes within one block; "h" is an f16 (ggml_half), "f" an f32. */
static const swap_recipe recipes[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_F32] = RUN1(4, 0, 4, 1),
    [GGUF_DTYPE_F16] = RUN1(2, 0, 2, 1),
    [GGUF_DTYPE_BF16] = RUN1(2, 0, 2, 1),
    [GGUF_DTYPE_F64] = RUN1(8, 0, 8, 1),
    [GGUF_DTYPE_I8] = BYTES_ONLY(1),
    [GGUF_DTYPE_I16] = RUN1(2, 0, 2, 1),
    [GGUF_DTYPE_I32] = RUN1(4, 0, 4, 1),
    [GGUF_DTYPE_I64] = RUN1(8, 0, 8, 1),
    /* 18: d h @0 | qs[16] */
    [GGUF_DTYPE_Q4_0] = RUN1(18, 0, 2, 1),
    /* 20: d h @0, m h @2 | qs[16] */
    [GGUF_DTYPE_Q4_1] = RUN1(20, 0, 2, 2),
    /* 22: d h @0 | qh u32 @2 | qs[16] */
    [GGUF_DTYPE_Q5_0] = RUN2(22, 0, 2, 1, 2, 4, 1, 0),
    /* 24: d h @0, m h @2 | qh u32 @4 | qs[16] */
    [GGUF_DTYPE_Q5_1] = RUN2(24, 0, 2, 2, 4, 4, 1, 0),
    /* 34: d h @0 | qs[32] */
    [GGUF_DTYPE_Q8_0] = RUN1(34, 0, 2, 1),
    /* 36: d h @0, s h @2 | qs[32] */
    [GGUF_DTYPE_Q8_1] = RUN1(36, 0, 2, 2),
    /* 84: scales[16] qs[64] | d h @80, dmin h @82 */
    [GGUF_DTYPE_Q2_K] = RUN1(84, 80, 2, 2),
    /* 110: hmask[32] qs[64] scales[12] | d h @108 */
    [GGUF_DTYPE_Q3_K] = RUN1(110, 108, 2, 1),
    /* 144: d h @0, dmin h @2 | scales[12] qs[128] */
    [GGUF_DTYPE_Q4_K] = RUN1(144, 0, 2, 2),
    /* 176: d h @0, dmin h @2 | scales[12] qh[32] qs[128] */
    [GGUF_DTYPE_Q5_K] = RUN1(176, 0, 2, 2),
    /* 210: ql[128] qh[64] scales[16] | d h @208 */
    [GGUF_DTYPE_Q6_K] = RUN1(210, 208, 2, 1),
    /* 292: d f @0 | qs[256] | bsums i16[16] @260 */
    [GGUF_DTYPE_Q8_K] = RUN2(292, 0, 4, 1, 260, 2, 16, 0),
    /* 66: d h @0 | 8 x (grid[4] bytes, signs+scale u32 @6+8i) */
    [GGUF_DTYPE_IQ2_XXS] = RUN2(66, 0, 2, 1, 6, 4, 8, 8),
    /* 74: d h @0, qs u16[32] @2 | scales[8] */
    [GGUF_DTYPE_IQ2_XS] = RUN1(74, 0, 2, 33),
    /* 98: d h @0 | qs[64] | scales_and_signs u32[8] @66 */
    [GGUF_DTYPE_IQ3_XXS] = RUN2(98, 0, 2, 1, 66, 4, 8, 0),
    /* 50: d h @0 | qs[32] | qh u16[8] @34 */
    [GGUF_DTYPE_IQ1_S] = RUN2(50, 0, 2, 1, 34, 2, 8, 0),
    /* 18: d h @0 | qs[16] */
    [GGUF_DTYPE_IQ4_NL] = RUN1(18, 0, 2, 1),
    /* 110: d h @0 | qs[64] qh[8] signs[32] scales[4] */
    [GGUF_DTYPE_IQ3_S] = RUN1(110, 0, 2, 1),
    /* 82: d h @0 | qs[64] qh[8] scales[8] */
    [GGUF_DTYPE_IQ2_S] = RUN1(82, 0, 2, 1),
    /* 136: d h @0, scales_h u16 @2 | scales_l[4] qs[128] */
    [GGUF_DTYPE_IQ4_XS] = RUN1(136, 0, 2, 2),
    /* 56: qs[32] qh[16] | scales u16[4] @48 */
    [GGUF_DTYPE_IQ1_M] = RUN1(56, 48, 2, 4),
    /* 54: qs[48] qh[4] | d h @52 */
    [GGUF_DTYPE_TQ1_0] = RUN1(54, 52, 2, 1),
    /* 66: qs[64] | d h @64 */
    [GGUF_DTYPE_TQ2_0] = RUN1(66, 64, 2, 1),
    /* 17: e (E8M0) qs[16] */
    [GGUF_DTYPE_MXFP4] = BYTES_ONLY(17),
    /* 36: d[4] (UE4M3) qs[32] */
    [GGUF_DTYPE_NVFP4] = BYTES_ONLY(36),
    /* 18: d h @0 | qs[16] */
    [GGUF_DTYPE_Q1_0] = RUN1(18, 0, 2, 1),
    /* 18: d h @0 | qs[16] */
    [GGUF_DTYPE_Q2_0] = RUN1(18, 0, 2, 1),
};
_Static_assert(sizeof recipes / sizeof recipes[0] == GGUF_DTYPE_COUNT, "one entry per type id");

static const swap_recipe *recipe_of(uint32_t dtype) {
    if (dtype >= GGUF_DTYPE_COUNT || recipes[dtype].block_bytes == 0)
        return NULL;
    /* the recipe's block size is dtype.c's (checked here rather than kept in one table) */
    assert(recipes[dtype].block_bytes == gguf_dtype_block_bytes(dtype));
    return &recipes[dtype];
}

/* ---- kernels ---- */

static inline void swap2_at(uint8_t *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    v = gguf__bswap16(v);
    memcpy(p, &v, 2);
}
static inline void swap4_at(uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    v = gguf__bswap32(v);
    memcpy(p, &v, 4);
}
static inline void swap8_at(uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    v = gguf__bswap64(v);
    memcpy(p, &v, 8);
}

/* Arrays of one plain type: 64 bytes at a time in 16-byte vectors (GCC/Clang vector
 * extensions: SSE2 on x86-64, NEON or VSX elsewhere; only shifts within lanes, no shuffles,
 * so every target has them; the same on a big-endian host, as each lane's bytes are reversed
 * whatever order they were loaded in), then 8 bytes at a time, then the tail. */
typedef uint16_t v16x8 __attribute__((vector_size(16)));
typedef uint32_t v32x4 __attribute__((vector_size(16)));
typedef uint64_t v64x2 __attribute__((vector_size(16)));

/* a swap is rotations: of 64-bit lanes by 32, of 32-bit lanes by 16, of 16-bit lanes by 8 */
static inline v16x8 vswap16(v16x8 v) { return (v16x8)((v << 8) | (v >> 8)); }
static inline v32x4 vswap32(v32x4 v) { return (v32x4)vswap16((v16x8)((v << 16) | (v >> 16))); }
static inline v64x2 vswap64(v64x2 v) { return (v64x2)vswap32((v32x4)((v << 32) | (v >> 32))); }

#define SWAP_ARRAY(NAME, VT, VSWAP, SWAP8)                                                     \
    static void NAME(uint8_t *p, size_t n) {                                                   \
        size_t i = 0;                                                                          \
        for (; n - i >= 64; i += 64) {                                                         \
            VT v0, v1, v2, v3; /* four variables, not an array: kept in registers */           \
            memcpy(&v0, p + i, 16);                                                            \
            memcpy(&v1, p + i + 16, 16);                                                       \
            memcpy(&v2, p + i + 32, 16);                                                       \
            memcpy(&v3, p + i + 48, 16);                                                       \
            v0 = VSWAP(v0);                                                                    \
            v1 = VSWAP(v1);                                                                    \
            v2 = VSWAP(v2);                                                                    \
            v3 = VSWAP(v3);                                                                    \
            memcpy(p + i, &v0, 16);                                                            \
            memcpy(p + i + 16, &v1, 16);                                                       \
            memcpy(p + i + 32, &v2, 16);                                                       \
            memcpy(p + i + 48, &v3, 16);                                                       \
        }                                                                                      \
        for (; n - i >= 8; i += 8) {                                                           \
            uint64_t w;                                                                        \
            memcpy(&w, p + i, 8);                                                              \
            w = SWAP8(w);                                                                      \
            memcpy(p + i, &w, 8);                                                              \
        }                                                                                      \
        if (i < n)                                                                             \
            swap_tail(p + i, n - i, sizeof(((VT){0})[0]));                                     \
    }

/* the last elements, fewer than 8 bytes */
static void swap_tail(uint8_t *p, size_t n, size_t width) {
    for (size_t i = 0; i < n; i += width) {
        if (width == 2)
            swap2_at(p + i);
        else if (width == 4)
            swap4_at(p + i);
        else
            swap8_at(p + i);
    }
}

/* one uint64 holding four 16-bit, two 32-bit or one 64-bit number */
static inline uint64_t swap8_as16(uint64_t v) {
    return ((v & 0x00ff00ff00ff00ffull) << 8) | ((v >> 8) & 0x00ff00ff00ff00ffull);
}
static inline uint64_t swap8_as32(uint64_t v) {
    v = gguf__bswap64(v);
    return (v << 32) | (v >> 32);
}

SWAP_ARRAY(swap_array2, v16x8, vswap16, swap8_as16)
SWAP_ARRAY(swap_array4, v32x4, vswap32, swap8_as32)
SWAP_ARRAY(swap_array8, v64x2, vswap64, gguf__bswap64)

/* Block types: every block, every run. Always inlined, so that each specialisation below sees
 * its recipe as a constant and the compiler unrolls the runs. */
static inline __attribute__((always_inline)) void swap_blocks(uint8_t *p, size_t nblocks,
                                                                const swap_recipe *r) {
    for (size_t b = 0; b < nblocks; b++, p += r->block_bytes) {
        for (unsigned k = 0; k < r->n_runs; k++) {
            const swap_run *run = &r->runs[k];
            size_t stride = run->stride ? run->stride : run->width;
            uint8_t *q = p + run->offset;
            for (unsigned i = 0; i < run->count; i++, q += stride) {
                if (run->width == 2)
                    swap2_at(q);
                else if (run->width == 4)
                    swap4_at(q);
                else
                    swap8_at(q);
            }
        }
    }
}

#define SPECIALISE(T)                                                                          \
    static void swap_##T(uint8_t *p, size_t nblocks) {                                         \
        swap_blocks(p, nblocks, &recipes[GGUF_DTYPE_##T]);                                     \
    }
SPECIALISE(Q4_0)
SPECIALISE(Q4_1)
SPECIALISE(Q5_0)
SPECIALISE(Q5_1)
SPECIALISE(Q8_0)
SPECIALISE(Q8_1)
SPECIALISE(Q2_K)
SPECIALISE(Q3_K)
SPECIALISE(Q4_K)
SPECIALISE(Q5_K)
SPECIALISE(Q6_K)
SPECIALISE(Q8_K)
SPECIALISE(IQ2_XXS)
SPECIALISE(IQ2_XS)
SPECIALISE(IQ3_XXS)
SPECIALISE(IQ1_S)
SPECIALISE(IQ4_NL)
SPECIALISE(IQ3_S)
SPECIALISE(IQ2_S)
SPECIALISE(IQ4_XS)
SPECIALISE(IQ1_M)
SPECIALISE(TQ1_0)
SPECIALISE(TQ2_0)
SPECIALISE(Q1_0)
SPECIALISE(Q2_0)

typedef void (*blocks_fn)(uint8_t *p, size_t nblocks);
static const blocks_fn specialised[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_Q4_0] = swap_Q4_0,       [GGUF_DTYPE_Q4_1] = swap_Q4_1,
    [GGUF_DTYPE_Q5_0] = swap_Q5_0,       [GGUF_DTYPE_Q5_1] = swap_Q5_1,
    [GGUF_DTYPE_Q8_0] = swap_Q8_0,       [GGUF_DTYPE_Q8_1] = swap_Q8_1,
    [GGUF_DTYPE_Q2_K] = swap_Q2_K,       [GGUF_DTYPE_Q3_K] = swap_Q3_K,
    [GGUF_DTYPE_Q4_K] = swap_Q4_K,       [GGUF_DTYPE_Q5_K] = swap_Q5_K,
    [GGUF_DTYPE_Q6_K] = swap_Q6_K,       [GGUF_DTYPE_Q8_K] = swap_Q8_K,
    [GGUF_DTYPE_IQ2_XXS] = swap_IQ2_XXS, [GGUF_DTYPE_IQ2_XS] = swap_IQ2_XS,
    [GGUF_DTYPE_IQ3_XXS] = swap_IQ3_XXS, [GGUF_DTYPE_IQ1_S] = swap_IQ1_S,
    [GGUF_DTYPE_IQ4_NL] = swap_IQ4_NL,   [GGUF_DTYPE_IQ3_S] = swap_IQ3_S,
    [GGUF_DTYPE_IQ2_S] = swap_IQ2_S,     [GGUF_DTYPE_IQ4_XS] = swap_IQ4_XS,
    [GGUF_DTYPE_IQ1_M] = swap_IQ1_M,     [GGUF_DTYPE_TQ1_0] = swap_TQ1_0,
    [GGUF_DTYPE_TQ2_0] = swap_TQ2_0,     [GGUF_DTYPE_Q1_0] = swap_Q1_0,
    [GGUF_DTYPE_Q2_0] = swap_Q2_0,
};

/* Converts nbytes (a whole number of blocks: the callers check) in place. */
static void swap_whole_blocks(uint32_t dtype, const swap_recipe *r, uint8_t *p, size_t nbytes) {
    if (r->n_runs == 0 || nbytes == 0)
        return;
    const swap_run *run0 = &r->runs[0];
    if (r->n_runs == 1 && run0->offset == 0 && run0->count == 1 &&
        run0->width == r->block_bytes) {
        /* a plain type: one array of numbers */
        if (run0->width == 2)
            swap_array2(p, nbytes);
        else if (run0->width == 4)
            swap_array4(p, nbytes);
        else
            swap_array8(p, nbytes);
    } else if (specialised[dtype] != NULL) {
        specialised[dtype](p, nbytes / r->block_bytes);
    } else {
        swap_blocks(p, nbytes / r->block_bytes, r);
    }
}

int gguf__byteswap_blocks(uint32_t dtype, void *buf, size_t nbytes) {
    const swap_recipe *r = recipe_of(dtype);
    if (r == NULL)
        return GGUF_EUNSUPPORTED;
    assert(nbytes % r->block_bytes == 0);
    swap_whole_blocks(dtype, r, buf, nbytes);
    return 0;
}

/* ---- the public API ---- */

static int check_args(const swap_recipe **r, uint32_t dtype, size_t nbytes, bool null_data,
                      gguf_error *err) {
    *r = recipe_of(dtype);
    if (*r == NULL) {
        const char *name = gguf_dtype_name(dtype);
        if (name != NULL) /* a type we know but have no recipe for (none today) */
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "tensor type %s (id %u) has no byte-order recipe", name, dtype);
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "unknown tensor type id %u: its byte order cannot be converted", dtype);
    }
    uint32_t block_bytes = (*r)->block_bytes;
    if (nbytes % block_bytes != 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "%zu bytes is not a whole number of %s blocks of %u bytes", nbytes,
                          gguf_dtype_name(dtype), block_bytes);
    if (null_data && nbytes > 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no data to convert");
    return 0;
}

int gguf_dtype_byteswap(void *data, size_t nbytes, uint32_t dtype, gguf_error *err) {
    const swap_recipe *r;
    int rc = check_args(&r, dtype, nbytes, data == NULL, err);
    if (rc != 0)
        return rc;
    swap_whole_blocks(dtype, r, data, nbytes);
    return 0;
}

int gguf_dtype_byteswap_copy(void *dst, const void *src, size_t nbytes, uint32_t dtype,
                             gguf_error *err) {
    const swap_recipe *r;
    int rc = check_args(&r, dtype, nbytes, dst == NULL || src == NULL, err);
    if (rc != 0)
        return rc;
    if (nbytes == 0)
        return 0;
    const uint8_t *s = src;
    uint8_t *d = dst;
    if (d != s && d < s + nbytes && s < d + nbytes)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "the output overlaps the input (use gguf_dtype_byteswap in place)");
    if (d == s) {
        swap_whole_blocks(dtype, r, d, nbytes);
        return 0;
    }
    /* copy and convert a cache-sized piece at a time, so each byte is fetched once */
    size_t piece = (64 * 1024 / r->block_bytes) * r->block_bytes;
    for (size_t done = 0; done < nbytes;) {
        size_t n = nbytes - done < piece ? nbytes - done : piece;
        memcpy(d + done, s + done, n);
        swap_whole_blocks(dtype, r, d + done, n);
        done += n;
    }
    return 0;
}
