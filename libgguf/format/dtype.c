/* The ggml tensor type table: name, elements per block, bytes per block. */
#include "format/format.h"

#include <strings.h>

typedef struct dtype_info {
    const char *name;
    uint32_t block_elems;
    uint32_t block_bytes;
    bool removed; /* ggml removed it from files: no name, no size, refused by readers */
} dtype_info;

/* Removed ids (4, 5, 31-33, 36-38) have no name: unknown to us, refused by ggml. */
static const dtype_info dtypes[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_F32] = {"F32", 1, 4, false},
    [GGUF_DTYPE_F16] = {"F16", 1, 2, false},
    [GGUF_DTYPE_Q4_0] = {"Q4_0", 32, 18, false},
    [GGUF_DTYPE_Q4_1] = {"Q4_1", 32, 20, false},
    [4] = {.removed = true}, /* Q4_2 */
    [5] = {.removed = true}, /* Q4_3 */
    [GGUF_DTYPE_Q5_0] = {"Q5_0", 32, 22, false},
    [GGUF_DTYPE_Q5_1] = {"Q5_1", 32, 24, false},
    [GGUF_DTYPE_Q8_0] = {"Q8_0", 32, 34, false},
    [GGUF_DTYPE_Q8_1] = {"Q8_1", 32, 36, false},
    [GGUF_DTYPE_Q2_K] = {"Q2_K", 256, 84, false},
    [GGUF_DTYPE_Q3_K] = {"Q3_K", 256, 110, false},
    [GGUF_DTYPE_Q4_K] = {"Q4_K", 256, 144, false},
    [GGUF_DTYPE_Q5_K] = {"Q5_K", 256, 176, false},
    [GGUF_DTYPE_Q6_K] = {"Q6_K", 256, 210, false},
    [GGUF_DTYPE_Q8_K] = {"Q8_K", 256, 292, false},
    [GGUF_DTYPE_IQ2_XXS] = {"IQ2_XXS", 256, 66, false},
    [GGUF_DTYPE_IQ2_XS] = {"IQ2_XS", 256, 74, false},
    [GGUF_DTYPE_IQ3_XXS] = {"IQ3_XXS", 256, 98, false},
    [GGUF_DTYPE_IQ1_S] = {"IQ1_S", 256, 50, false},
    [GGUF_DTYPE_IQ4_NL] = {"IQ4_NL", 32, 18, false},
    [GGUF_DTYPE_IQ3_S] = {"IQ3_S", 256, 110, false},
    [GGUF_DTYPE_IQ2_S] = {"IQ2_S", 256, 82, false},
    [GGUF_DTYPE_IQ4_XS] = {"IQ4_XS", 256, 136, false},
    [GGUF_DTYPE_I8] = {"I8", 1, 1, false},
    [GGUF_DTYPE_I16] = {"I16", 1, 2, false},
    [GGUF_DTYPE_I32] = {"I32", 1, 4, false},
    [GGUF_DTYPE_I64] = {"I64", 1, 8, false},
    [GGUF_DTYPE_F64] = {"F64", 1, 8, false},
    [GGUF_DTYPE_IQ1_M] = {"IQ1_M", 256, 56, false},
    [GGUF_DTYPE_BF16] = {"BF16", 1, 2, false},
    [31] = {.removed = true}, /* Q4_0_4_4 */
    [32] = {.removed = true}, /* Q4_0_4_8 */
    [33] = {.removed = true}, /* Q4_0_8_8 */
    [GGUF_DTYPE_TQ1_0] = {"TQ1_0", 256, 54, false},
    [GGUF_DTYPE_TQ2_0] = {"TQ2_0", 256, 66, false},
    [36] = {.removed = true}, /* IQ4_NL_4_4 */
    [37] = {.removed = true}, /* IQ4_NL_4_8 */
    [38] = {.removed = true}, /* IQ4_NL_8_8 */
    [GGUF_DTYPE_MXFP4] = {"MXFP4", 32, 17, false},
    [GGUF_DTYPE_NVFP4] = {"NVFP4", 64, 36, false},
    [GGUF_DTYPE_Q1_0] = {"Q1_0", 128, 18, false},
    [GGUF_DTYPE_Q2_0] = {"Q2_0", 64, 18, false},
};
_Static_assert(sizeof dtypes / sizeof dtypes[0] == GGUF_DTYPE_COUNT, "one entry per type id");

static const dtype_info *lookup(uint32_t dtype) {
    if (dtype >= GGUF_DTYPE_COUNT || dtypes[dtype].name == NULL)
        return NULL;
    return &dtypes[dtype];
}

int gguf_dtype_removed(uint32_t dtype) {
    return dtype < GGUF_DTYPE_COUNT && dtypes[dtype].removed;
}

const char *gguf_dtype_name(uint32_t dtype) {
    const dtype_info *d = lookup(dtype);
    return d ? d->name : NULL;
}

int gguf_dtype_parse(const char *name) {
    if (name == NULL)
        return -1;
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
        if (dtypes[t].name != NULL && strcasecmp(dtypes[t].name, name) == 0)
            return (int)t;
    }
    return -1;
}

uint32_t gguf_dtype_block_elems(uint32_t dtype) {
    const dtype_info *d = lookup(dtype);
    return d ? d->block_elems : 0;
}

uint32_t gguf_dtype_block_bytes(uint32_t dtype) {
    const dtype_info *d = lookup(dtype);
    return d ? d->block_bytes : 0;
}

int gguf_dtype_nbytes(uint64_t *nbytes, uint32_t dtype, const uint64_t *dims, uint32_t n_dims,
                      gguf_error *err) {
    const dtype_info *d = lookup(dtype);
    if (d == NULL)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "unknown tensor type id %u", dtype);
    if (n_dims > GGUF_MAX_DIMS)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "%u dimensions (at most %d)",
                          n_dims, GGUF_MAX_DIMS);
    uint64_t row = n_dims > 0 ? dims[0] : 1;
    if (row % d->block_elems != 0)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "row of %llu elements is not a multiple of the %s block size %u",
                          (unsigned long long)row, d->name, d->block_elems);
    uint64_t total;
    bool ok = gguf__mul_u64(&total, row / d->block_elems, d->block_bytes);
    for (uint32_t i = 1; ok && i < n_dims; i++)
        ok = gguf__mul_u64(&total, total, dims[i]);
    if (!ok)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "tensor size in bytes overflows 64 bits");
    *nbytes = total;
    return 0;
}
