/* zlib crc32 and SHA-256 of tensor bytes, of the header or of the whole file, read from the
 * source in large sequential chunks (never through a mapping, so that a file truncated under
 * us gives an error, not SIGBUS). */
#include "format/format.h"

#include <zlib.h>

#define READ_CHUNK ((size_t)8 << 20)

/* Feeds source bytes [start, start+len) to fn in order: from the header copy or a mapping at
 * once, else read in chunks. */
typedef void (*range_fn)(void *user, const uint8_t *p, size_t n);

static int read_range(const gguf_file *f, uint64_t start, uint64_t len, range_fn fn, void *user,
                      gguf_error *err) {
    if (start <= f->head_len && len <= f->head_len - start) {
        fn(user, f->head + start, (size_t)len);
        return 0;
    }
    const gguf__source *leaf; /* the file (or shard) holding the range */
    uint64_t at;
    if (f->src != NULL && gguf__source_locate(f->src, start, len, &leaf, &at) &&
        leaf->mem != NULL) {
        fn(user, leaf->mem + at, (size_t)len);
        return 0;
    }
    uint8_t *buf = gguf__malloc(len < READ_CHUNK ? (size_t)len : READ_CHUNK);
    if (buf == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    uint64_t done = 0;
    int rc = 0;
    if (f->src != NULL && len > READ_CHUNK)
        gguf__source_will_read(f->src, start, len, true); /* one request for a remote file */
    while (rc == 0 && done < len) {
        size_t want = len - done < READ_CHUNK ? (size_t)(len - done) : READ_CHUNK;
        rc = gguf__file_read(f, buf, want, start + done, err);
        if (rc == 0)
            fn(user, buf, want);
        done += want;
    }
    gguf__free(buf);
    return rc;
}

static void crc_add(void *user, const uint8_t *p, size_t n) {
    uLong *c = user;
    *c = crc32_z(*c, p, n);
}

int gguf__crc_range(uint32_t *crc, const gguf_file *f, uint64_t start, uint64_t len,
                    gguf_error *err) {
    uLong c = crc32_z(0L, Z_NULL, 0);
    int rc = read_range(f, start, len, crc_add, &c, err);
    if (rc == 0)
        *crc = (uint32_t)c;
    return rc;
}

static void sha256_add(void *user, const uint8_t *p, size_t n) {
    gguf__sha256_update(user, p, n);
}

static int sha256_range(uint8_t digest[32], const gguf_file *f, uint64_t start, uint64_t len,
                        gguf_error *err) {
    gguf__sha256 s;
    gguf__sha256_init(&s);
    int rc = read_range(f, start, len, sha256_add, &s, err);
    if (rc == 0)
        gguf__sha256_final(digest, &s);
    return rc;
}

/* Tensor i's bytes, or why they cannot be read. */
static int tensor_range(const gguf_file *f, size_t i, gguf_error *err) {
    if (f == NULL || i >= f->n_tensors)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no tensor %zu", i);
    const gguf__tensor *t = &f->tensors[i];
    if (t->nbytes == GGUF_NBYTES_UNKNOWN || t->src_offset == GGUF__NO_SOURCE)
        return gguf__fail(err, GGUF_EUNSUPPORTED, t->info_offset, "tensor %zu has %s", i,
                          t->nbytes == GGUF_NBYTES_UNKNOWN ? "an unknown type and size" : "no bytes yet");
    return gguf__tensor_present(f, i, 0, t->nbytes, err);
}

int gguf_crc_tensor(uint32_t *crc, const gguf_file *f, size_t i, gguf_error *err) {
    int rc = tensor_range(f, i, err);
    return rc != 0 ? rc
                   : gguf__crc_range(crc, f, f->tensors[i].src_offset, f->tensors[i].nbytes, err);
}

int gguf_crc_header(uint32_t *crc, const gguf_file *f, gguf_error *err) {
    if (f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file");
    return gguf__crc_range(crc, f, 0, f->header_end, err);
}

int gguf_sha256_tensor(uint8_t digest[32], const gguf_file *f, size_t i, gguf_error *err) {
    int rc = tensor_range(f, i, err);
    return rc != 0 ? rc
                   : sha256_range(digest, f, f->tensors[i].src_offset, f->tensors[i].nbytes, err);
}

int gguf_sha256_file(uint8_t digest[32], const gguf_file *f, gguf_error *err) {
    if (f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file");
    if (f->n_shards > 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "a split set has no single file: hash each shard");
    return sha256_range(digest, f, 0, f->size, err);
}
