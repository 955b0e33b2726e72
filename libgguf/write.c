/* gguf_file -> bytes. The layout of the source is kept: the same relative tensor offsets, and
 * the bytes between the tensor infos and the data, between tensors and after the last one are
 * copied as they are, so an unchanged file is written back byte for byte. Files are written
 * atomically: temporary file in the target's directory, fsync, rename, fsync of the directory. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* v1 stores every length as u32; we write v1 only to reproduce a v1 source. */
static int check_v1(const gguf_file *f, gguf_error *err) {
    if (f->version != 1)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "writing GGUF v1 is only done to reproduce a v1 file; write v2 or v3");
    for (size_t i = 0; i < f->n_kv; i++) {
        if (f->kv[i].key_len > UINT32_MAX || f->kv[i].value.wide)
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "key %zu was changed with 64-bit lengths: write v2 or v3", i);
    }
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        bool fits = t->name_len <= UINT32_MAX;
        for (uint32_t d = 0; d < t->n_dims; d++)
            fits = fits && t->dims[d] <= UINT32_MAX;
        if (!fits)
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "tensor %zu does not fit GGUF v1's 32-bit fields", i);
    }
    return 0;
}

int gguf__header_serialize(gguf__sink *s, const gguf_file *f, uint32_t version, bool big,
                           gguf_error *err) {
    if (version == 1) {
        int rc = check_v1(f, err);
        if (rc != 0)
            return rc;
    }
    s->big = big;
    s->wide = version >= 2;
    gguf__sink_bytes(s, "GGUF", 4);
    gguf__sink_u32(s, version);
    gguf__sink_len(s, f->n_tensors);
    gguf__sink_len(s, f->n_kv);
    for (size_t i = 0; i < f->n_kv; i++) {
        const gguf__kv *kv = &f->kv[i];
        gguf__sink_len(s, kv->key_len);
        gguf__sink_bytes(s, kv->key, (size_t)kv->key_len);
        gguf__sink_u32(s, kv->value.type);
        gguf__value_emit(s, &kv->value);
    }
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        gguf__sink_len(s, t->name_len);
        gguf__sink_bytes(s, t->name, (size_t)t->name_len);
        gguf__sink_u32(s, t->n_dims);
        for (uint32_t d = 0; d < t->n_dims; d++)
            gguf__sink_len(s, t->dims[d]);
        gguf__sink_u32(s, t->type);
        gguf__sink_u64(s, t->offset);
    }
    if (s->failed)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                          "out of memory while serializing the header");
    return 0;
}

/* What to write after the header: padding up to the data offset (copied from the source when
 * the header kept its size, else zeros), then the source's data region as it is. */
typedef struct plan {
    gguf__sink header;
    uint64_t data_offset;   /* in the output */
    const uint8_t *pad_src; /* NULL: zero padding */
    uint64_t pad_len;
    uint64_t region_start;  /* the source's data region: [region_start, region_end) */
    uint64_t region_end;
} plan;

static int make_plan(plan *p, const gguf_file *f, const gguf_write_options *opt,
                     gguf_error *err) {
    uint32_t version = opt && opt->version ? opt->version : f->version;
    bool big = opt && opt->endian >= 0 ? opt->endian == GGUF_ENDIAN_BIG : f->big;
    if (version < 1 || version > 3)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "cannot write GGUF version %u",
                          version);
    if (big && version < 3)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "big-endian files exist only from GGUF v3 on; write version 3");
    if (big != f->big && f->n_tensors > 0)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "changing the byte order of tensor data is not supported by this writer");
    memset(p, 0, sizeof *p);
    int rc = gguf__header_serialize(&p->header, f, version, big, err);
    if (rc != 0) {
        gguf__sink_free(&p->header);
        return rc;
    }
    uint64_t hlen = p->header.len;
    p->data_offset = hlen;
    if (f->n_tensors > 0 && !gguf__align_up(&p->data_offset, hlen, f->alignment)) {
        gguf__sink_free(&p->header);
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "header too large");
    }
    p->pad_len = p->data_offset - hlen;
    if (hlen == f->header_end && p->data_offset == f->data_offset)
        p->pad_src = f->data + f->header_end;
    p->region_start = f->data_offset;
    p->region_end = f->size;
    return 0;
}

int gguf_file_write_memory(void **out, size_t *size, const gguf_file *f,
                           const gguf_write_options *opt, gguf_error *err) {
    plan p;
    int rc = make_plan(&p, f, opt, err);
    if (rc != 0)
        return rc;
    gguf__sink *s = &p.header;
    if (p.pad_src != NULL)
        gguf__sink_bytes(s, p.pad_src, (size_t)p.pad_len);
    else
        gguf__sink_zeros(s, (size_t)p.pad_len);
    gguf__sink_bytes(s, f->data + p.region_start, (size_t)(p.region_end - p.region_start));
    if (s->failed) {
        gguf__sink_free(s);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for the output");
    }
    *out = s->buf;
    *size = s->len;
    return 0;
}

/* ---- files ---- */

static int write_all(int fd, const void *buf, uint64_t n, const char *path, gguf_error *err) {
    const uint8_t *p = buf;
    while (n > 0) {
        size_t chunk = n > (1u << 30) ? (1u << 30) : (size_t)n;
        ssize_t w = write(fd, p, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: write failed: %s", path,
                              strerror(errno));
        p += w;
        n -= (uint64_t)w;
    }
    return 0;
}

/* Copies source bytes [start, end) to the end of out_fd: in the kernel with copy_file_range
 * (a reflink where the filesystem can) when the source is a file, else from memory. */
static int copy_region(int out_fd, const gguf_file *f, uint64_t start, uint64_t end,
                       const char *path, gguf_error *err) {
    if (f->fd >= 0) {
        off_t in_off = (off_t)start;
        while ((uint64_t)in_off < end) {
            uint64_t left = end - (uint64_t)in_off;
            size_t chunk = left > (1u << 30) ? (1u << 30) : (size_t)left;
            ssize_t n = copy_file_range(f->fd, &in_off, out_fd, NULL, chunk, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break; /* unsupported here, or the source shrank: finish from memory */
        }
        start = (uint64_t)in_off;
    }
    if (start >= end)
        return 0;
    return write_all(out_fd, f->data + start, end - start, path, err);
}

static int sync_dir_of(const char *path) {
    char *copy = strdup(path);
    if (copy == NULL)
        return -1;
    int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (dfd < 0)
        return -1;
    int rc = fsync(dfd);
    close(dfd);
    return rc;
}

/* Creates a temporary file beside path, with the mode path has (or 0666 less the umask). */
static int open_temp(char **tmp_out, const char *path, gguf_error *err) {
    char *dir = strdup(path), *base = strdup(path);
    size_t need = strlen(path) + 32;
    char *tmp = gguf__malloc(need);
    if (dir == NULL || base == NULL || tmp == NULL) {
        free(dir);
        free(base);
        gguf__free(tmp);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    snprintf(tmp, need, "%s/.%s.tmp-XXXXXX", dirname(dir), basename(base));
    free(dir);
    free(base);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        gguf__free(tmp);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                          "%s: cannot create a temporary file beside it: %s", path, strerror(e));
    }
    struct stat st;
    mode_t mode;
    if (stat(path, &st) == 0) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(022);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
    *tmp_out = tmp;
    return fd;
}

int gguf_file_save(const gguf_file *f, const char *path, const gguf_write_options *opt,
                   gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to save");
    plan p;
    int rc = make_plan(&p, f, opt, err);
    if (rc != 0)
        return rc;
    char *tmp = NULL;
    int fd = open_temp(&tmp, path, err);
    if (fd < 0) {
        gguf__sink_free(&p.header);
        return fd;
    }
    rc = write_all(fd, p.header.buf, p.header.len, path, err);
    if (rc == 0 && p.pad_len > 0) {
        static const uint8_t zeros[4096];
        if (p.pad_src != NULL) {
            rc = write_all(fd, p.pad_src, p.pad_len, path, err);
        } else {
            for (uint64_t left = p.pad_len; rc == 0 && left > 0;) {
                uint64_t n = left < sizeof zeros ? left : sizeof zeros;
                rc = write_all(fd, zeros, n, path, err);
                left -= n;
            }
        }
    }
    gguf__sink_free(&p.header);
    if (rc == 0)
        rc = copy_region(fd, f, p.region_start, p.region_end, path, err);
    if (rc == 0 && fsync(fd) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: fsync failed: %s", tmp,
                        strerror(errno));
    if (close(fd) != 0 && rc == 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: close failed: %s", tmp,
                        strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot rename %s over it: %s",
                        path, tmp, strerror(errno));
    if (rc != 0)
        unlink(tmp);
    else
        (void)sync_dir_of(path); /* the rename is done; a failed directory sync cannot undo it */
    gguf__free(tmp);
    return rc;
}
