/* The ggml tensor type table: name, elements per block, bytes per block (format/dtypes.h). */
#include "format/dtypes.h"
#include "format/format.h"

#include <strings.h>

typedef struct dtype_info {
    const char *name;
    uint32_t block_elems;
    uint32_t block_bytes;
    bool removed; /* ggml removed it from files: no name, no size, refused by readers */
} dtype_info;

/* Removed ids (4, 5, 31-33, 36-38) have no name: unknown to us, refused by ggml. */
#define DTYPE_ENTRY(type, elems, bytes) [GGUF_DTYPE_##type] = {#type, elems, bytes, false},
static const dtype_info dtypes[GGUF_DTYPE_COUNT] = {
    GGUF__DTYPE_BLOCKS(DTYPE_ENTRY)
    [4] = {.removed = true},  /* Q4_2 */
    [5] = {.removed = true},  /* Q4_3 */
    [31] = {.removed = true}, /* Q4_0_4_4 */
    [32] = {.removed = true}, /* Q4_0_4_8 */
    [33] = {.removed = true}, /* Q4_0_8_8 */
    [36] = {.removed = true}, /* IQ4_NL_4_4 */
    [37] = {.removed = true}, /* IQ4_NL_4_8 */
    [38] = {.removed = true}, /* IQ4_NL_8_8 */
};
#undef DTYPE_ENTRY
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
