/* llama.cpp's older binary imatrix format, little-endian:
 *
 *   i32 n_entries
 *   n_entries x { i32 name_len | name | i32 ncall | i32 nval | f32[nval] (weights x ncall) }
 *   optional:   i32 chunk_count | i32 dataset_len | dataset name
 *
 * A weight is value / ncall (the value itself when ncall is 0), as llama-quantize computes it. */
#define _GNU_SOURCE /* strnlen */
#include "requant/requant.h"

#include <string.h>

static float ld_f32_le(const uint8_t *p) {
    uint32_t u = gguf__load32(p, false);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

int gguf__imatrix_load_legacy(gguf_requant_imatrix *im, const uint8_t *p, size_t size,
                              const char *path, gguf_error *err) {
    gguf__cursor c = {.base = p, .len = size, .held = size};
    uint32_t n_entries;
    if (!gguf__cursor_u32(&c, &n_entries) || (int32_t)n_entries < 1)
        return gguf__fail(err, GGUF_ECORRUPT, 0, "%s: not an imatrix file (no entries)", path);
    /* each entry takes at least 16 bytes: a count the file cannot hold reserves no more */
    size_t room = gguf__cursor_remain(&c) / 16;
    int rc = gguf__imatrix_reserve(im, n_entries < room ? n_entries : room, err);
    if (rc != 0)
        return rc;
    for (uint32_t i = 0; i < n_entries; i++) {
        uint32_t len, ncall, nval;
        const uint8_t *name, *vals;
        if (!gguf__cursor_u32(&c, &len) || (int32_t)len < 0 ||
            !gguf__cursor_bytes(&c, len, &name) || !gguf__cursor_u32(&c, &ncall) ||
            !gguf__cursor_u32(&c, &nval) || (int32_t)nval < 1 ||
            gguf__cursor_remain(&c) / 4 < nval || !gguf__cursor_bytes(&c, (uint64_t)nval * 4, &vals))
            return gguf__fail(err, GGUF_ETRUNC, c.pos, "%s: imatrix entry %u is cut short", path,
                              i);
        float *w = gguf__malloc((size_t)nval * sizeof *w);
        if (w == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        int32_t calls = (int32_t)ncall;
        for (uint32_t k = 0; k < nval; k++) {
            float v = ld_f32_le(vals + 4 * k);
            w[k] = calls > 0 ? v / (float)(int64_t)calls : v;
        }
        /* the name ends at its first NUL, as a C string would */
        size_t nl = strnlen((const char *)name, len);
        rc = gguf__imatrix_put(im, (const char *)name, nl, w, nval, err);
        if (rc != 0)
            return rc;
    }
    uint32_t chunks, dlen;
    const uint8_t *ds;
    if (gguf__cursor_u32(&c, &chunks)) {
        im->chunk_count = chunks;
        if (gguf__cursor_u32(&c, &dlen) && (int32_t)dlen > 0 && gguf__cursor_bytes(&c, dlen, &ds))
            return gguf__imatrix_set_dataset(im, (const char *)ds,
                                             strnlen((const char *)ds, dlen), err);
    }
    return 0;
}
