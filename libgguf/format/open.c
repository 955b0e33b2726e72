/* Opening and freeing files: the source bytes come from a read-only mapping, from a copy read
 * into memory (when mapping is refused or not wanted), or from the caller's buffer. */
#define _GNU_SOURCE
#include "format/format.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(int fd, uint8_t *buf, uint64_t size, const char *path, gguf_error *err) {
    if (gguf__io_pread(fd, buf, (size_t)size, 0) != 0)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: read failed: %s", path,
                          gguf__io_strerror(errno));
    return 0;
}

static gguf_file *new_file(unsigned flags) {
    gguf_file *f = gguf__calloc(1, sizeof *f);
    if (f != NULL) {
        f->fd = -1;
        f->flags = flags;
    }
    return f;
}

static int finish_open(gguf_file **out, gguf_file *f, gguf_error *err) {
    int rc = gguf__parse(f, err);
    if (rc != 0) {
        gguf_file_free(f);
        return rc;
    }
    *out = f;
    return 0;
}

int gguf_file_open(gguf_file **out, const char *path, unsigned flags, gguf_error *err) {
    if (out == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file given");
    /* an in-place edit interrupted by a crash is finished (or discarded) first */
    int rc = gguf_file_recover(path, NULL, err);
    if (rc != 0)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot open: %s", path,
                          strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: not a regular file", path);
    }
    gguf_file *f = new_file(flags);
    if (f == NULL) {
        close(fd);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    f->mtime_sec = (int64_t)st.st_mtim.tv_sec;
    f->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
    if (f->size == 0) {
        f->src_kind = GGUF__SRC_BORROWED;
        f->data = (const uint8_t *)"";
        return finish_open(out, f, err);
    }
    void *map = MAP_FAILED;
    if (!(flags & GGUF_OPEN_NO_MMAP) && f->size <= SIZE_MAX)
        map = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
        f->src_kind = GGUF__SRC_MMAP;
        f->data = map;
        return finish_open(out, f, err);
    }
    uint8_t *buf = f->size <= SIZE_MAX ? gguf__malloc((size_t)f->size) : NULL;
    if (buf == NULL) {
        gguf_file_free(f);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                          "%s: cannot map or hold %llu bytes in memory", path,
                          (unsigned long long)st.st_size);
    }
    f->src_kind = GGUF__SRC_HEAP;
    f->data = buf;
    rc = read_all(fd, buf, f->size, path, err);
    if (rc != 0) {
        gguf_file_free(f);
        return rc;
    }
    return finish_open(out, f, err);
}

int gguf_file_open_memory(gguf_file **out, const void *data, size_t size, int copy,
                          unsigned flags, gguf_error *err) {
    if (out == NULL || (data == NULL && size > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no bytes given");
    gguf_file *f = new_file(flags);
    if (f == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    f->size = size;
    f->src_kind = GGUF__SRC_BORROWED;
    f->data = size > 0 ? data : (const void *)"";
    if (copy && size > 0) {
        uint8_t *buf = gguf__malloc(size);
        if (buf == NULL) {
            gguf__free(f);
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for %zu bytes",
                              size);
        }
        memcpy(buf, data, size);
        f->data = buf;
        f->src_kind = GGUF__SRC_HEAP;
    }
    return finish_open(out, f, err);
}

int gguf_file_new(gguf_file **out, uint32_t version, enum gguf_endian endian, gguf_error *err) {
    if (out == NULL || version < 2 || version > 3 || (endian == GGUF_ENDIAN_BIG && version < 3))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "new files are GGUF v3 (either byte order) or v2 (little-endian)");
    gguf_file *f = new_file(0);
    if (f == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    f->data = (const uint8_t *)"";
    f->src_kind = GGUF__SRC_BORROWED;
    f->version = version;
    f->big = endian == GGUF_ENDIAN_BIG;
    f->alignment = 32;
    f->must_pack = true;
    *out = f;
    return 0;
}

int gguf__open_header(gguf_file **out, const uint8_t *region, size_t len, uint64_t file_size,
                      unsigned flags, gguf_error *err) {
    gguf_file *f = new_file((flags & ~(unsigned)GGUF_OPEN_NO_MMAP) | GGUF__OPEN_HEADER_ONLY);
    if (f == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    f->data = region;
    f->size = len;
    f->layout_size = file_size;
    f->src_kind = GGUF__SRC_BORROWED;
    return finish_open(out, f, err);
}

void gguf__file_clear(gguf_file *f) {
    for (size_t i = 0; i < f->n_kv; i++) {
        if (f->kv[i].key_owned)
            gguf__free((void *)f->kv[i].key);
        if (f->kv[i].value.owned)
            gguf__free((void *)f->kv[i].value.raw);
    }
    for (size_t i = 0; i < f->n_tensors; i++) {
        if (f->tensors[i].name_owned)
            gguf__free((void *)f->tensors[i].name);
    }
    gguf__free(f->kv);
    gguf__free(f->tensors);
    f->kv = NULL;
    f->tensors = NULL;
    f->n_kv = f->n_tensors = f->cap_kv = f->cap_tensors = 0;
}

void gguf_file_free(gguf_file *f) {
    if (f == NULL)
        return;
    gguf__file_clear(f);
    if (f->src_kind == GGUF__SRC_MMAP)
        munmap((void *)f->data, (size_t)f->size);
    else if (f->src_kind == GGUF__SRC_HEAP)
        gguf__free((void *)f->data);
    if (f->fd >= 0)
        close(f->fd);
    gguf__free(f);
}

uint32_t gguf_file_version(const gguf_file *f) { return f->version; }
enum gguf_endian gguf_file_endian(const gguf_file *f) { return f->big ? GGUF_ENDIAN_BIG : GGUF_ENDIAN_LITTLE; }
uint32_t gguf_file_alignment(const gguf_file *f) { return f->alignment; }
uint64_t gguf_file_data_offset(const gguf_file *f) { return f->data_offset; }
uint64_t gguf_file_size(const gguf_file *f) { return f->size; }
