/* zlib crc32 of tensor bytes and of the header, read from the source in large sequential
 * chunks (never through a mapping, so that a file truncated under us gives an error, not
 * SIGBUS). */
#include "format/format.h"

#include <zlib.h>

#define CRC_CHUNK ((size_t)8 << 20)

int gguf__crc_range(uint32_t *crc, const gguf_file *f, uint64_t start, uint64_t len,
                    gguf_error *err) {
    uLong c = crc32_z(0L, Z_NULL, 0);
    if (start <= f->head_len && len <= f->head_len - start) {
        *crc = (uint32_t)crc32_z(c, f->head + start, (size_t)len);
        return 0;
    }
    const gguf__source *leaf; /* the file (or shard) holding the range */
    uint64_t at;
    if (f->src != NULL && gguf__source_locate(f->src, start, len, &leaf, &at) &&
        leaf->mem != NULL) {
        *crc = (uint32_t)crc32_z(c, leaf->mem + at, (size_t)len);
        return 0;
    }
    uint8_t *buf = gguf__malloc(len < CRC_CHUNK ? (size_t)len : CRC_CHUNK);
    if (buf == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    uint64_t done = 0;
    int rc = 0;
    if (f->src != NULL && len > CRC_CHUNK)
        gguf__source_will_read(f->src, start, len, true); /* one request for a remote file */
    while (rc == 0 && done < len) {
        size_t want = len - done < CRC_CHUNK ? (size_t)(len - done) : CRC_CHUNK;
        rc = gguf__file_read(f, buf, want, start + done, err);
        if (rc == 0)
            c = crc32_z(c, buf, want);
        done += want;
    }
    gguf__free(buf);
    if (rc == 0)
        *crc = (uint32_t)c;
    return rc;
}

int gguf_crc_tensor(uint32_t *crc, const gguf_file *f, size_t i, gguf_error *err) {
    if (f == NULL || i >= f->n_tensors)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no tensor %zu", i);
    const gguf__tensor *t = &f->tensors[i];
    if (t->nbytes == GGUF_NBYTES_UNKNOWN || t->src_offset == GGUF__NO_SOURCE)
        return gguf__fail(err, GGUF_EUNSUPPORTED, t->info_offset, "tensor %zu has %s", i,
                          t->nbytes == GGUF_NBYTES_UNKNOWN ? "an unknown type and size" : "no bytes yet");
    int rc = gguf__tensor_present(f, i, 0, t->nbytes, err);
    return rc != 0 ? rc : gguf__crc_range(crc, f, t->src_offset, t->nbytes, err);
}

int gguf_crc_header(uint32_t *crc, const gguf_file *f, gguf_error *err) {
    if (f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file");
    return gguf__crc_range(crc, f, 0, f->header_end, err);
}
