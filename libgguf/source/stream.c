/* What a file descriptor reads: a regular file (standard input redirected from one) is a local
 * source; a pipe, socket or terminal is read once, in order, to its end, because the reader
 * checks every count and offset against the size of the file, which a pipe tells only at its
 * end. The magic and the version are checked as soon as they arrive, so that a stream that is
 * not GGUF is refused after its first read, not at its end. Its first `keep` bytes stay in
 * memory (all of them when keep is 0); the rest is counted, not kept, so a header-only reader
 * of a 40 GB pipe holds a header, not 40 GB; the reader copies only as much of what is kept
 * as its parse of the header asks for. */
#define _GNU_SOURCE
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STREAM_CHUNK ((size_t)1 << 20)

typedef struct stream_impl {
    uint8_t *kept;
    uint64_t kept_len;
} stream_impl;

static int stream_read(gguf__source *s, void *buf, size_t len, uint64_t off, gguf_error *err) {
    const stream_impl *st = s->impl;
    if (off > st->kept_len || len > st->kept_len - off)
        return gguf__fail(err, GGUF_EIO, off,
                          "bytes %llu..%llu were read from the pipe but not kept (only its "
                          "first %llu bytes are): read the file itself",
                          (unsigned long long)off, (unsigned long long)(off + len),
                          (unsigned long long)st->kept_len);
    memcpy(buf, st->kept + off, len);
    return 0;
}

static void stream_close(gguf__source *s) {
    stream_impl *st = s->impl;
    if (st != NULL)
        gguf__free(st->kept);
    gguf__free(st);
}

static const gguf__source_ops stream_ops = {.read = stream_read, .close = stream_close};

static bool known_version(uint32_t v) {
    return v >= 1 && v <= 3;
}

/* The first 8 bytes (fewer at the stream's end): the GGUF magic, then a version known in one
 * byte order or the other (the reader's parse says more, and tells a short stream from a bad
 * one). */
static int check_start(const uint8_t *p, uint64_t len, gguf_error *err) {
    if (len >= 4 && memcmp(p, "GGUF", 4) != 0) {
        char q[32];
        return gguf__fail(err, GGUF_ECORRUPT, 0, "bad magic '%s' (expected 'GGUF'): not read "
                          "further", gguf__quote(q, sizeof q, (const char *)p, 4));
    }
    if (len >= 8) {
        uint32_t le = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                      (uint32_t)p[7] << 24;
        uint32_t be = (uint32_t)p[7] | (uint32_t)p[6] << 8 | (uint32_t)p[5] << 16 |
                      (uint32_t)p[4] << 24;
        if (!known_version(le) && !known_version(be))
            return gguf__fail(err, GGUF_ECORRUPT, 4, "unsupported GGUF version %u at byte 4 "
                              "(this library reads versions 1 to 3, either byte order): not "
                              "read further", le);
    }
    return 0;
}

/* Reads fd to its end into st: keeps up to keep bytes (0: all), counts the rest in *total. */
static int drain(int fd, stream_impl *st, uint64_t keep, uint64_t *total, gguf_error *err) {
    size_t cap = 0;
    uint8_t *scratch = NULL; /* where bytes past keep land, to be counted */
    int rc = 0;
    for (;;) {
        bool keeping = keep == 0 || st->kept_len < keep;
        if (keeping && cap - st->kept_len < STREAM_CHUNK) {
            size_t want = cap ? cap * 2 : STREAM_CHUNK * 4;
            if (keep != 0 && want > keep)
                want = (size_t)keep + STREAM_CHUNK; /* room for the last chunk read */
            uint8_t *p = gguf__realloc(st->kept, want);
            if (p == NULL) {
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                                "out of memory holding %llu bytes of the pipe",
                                (unsigned long long)st->kept_len);
                break;
            }
            st->kept = p;
            cap = want;
        }
        if (!keeping && scratch == NULL && (scratch = gguf__malloc(STREAM_CHUNK)) == NULL) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        uint8_t *to = keeping ? st->kept + st->kept_len : scratch;
        size_t room = STREAM_CHUNK;
        if (keeping && keep != 0 && keep - st->kept_len < room)
            room = (size_t)(keep - st->kept_len);
        size_t got;
        if (gguf__io_read_some(fd, to, room, &got) != 0) {
            rc = gguf__fail(err, GGUF_EIO, *total, "reading byte %llu failed: %s",
                            (unsigned long long)*total, gguf__io_strerror(errno));
            break;
        }
        if (got == 0)
            break;
        if (keeping)
            st->kept_len += got;
        uint64_t before = *total;
        *total += got;
        if (before < 8 && (rc = check_start(st->kept, st->kept_len, err)) != 0)
            break;
    }
    gguf__free(scratch);
    return rc;
}

int gguf__source_open_fd(gguf__source **out, int fd, const char *name, unsigned flags,
                         uint64_t keep, gguf_error *err) {
    if (name == NULL)
        name = "standard input";
    struct stat st;
    if (fstat(fd, &st) != 0)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot stat: %s",
                          strerror(errno));
    if (S_ISREG(st.st_mode)) {
        int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (own < 0)
            return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot duplicate: %s",
                              strerror(errno));
        return gguf__source_adopt_fd(out, own, name, flags, err);
    }
    if (S_ISDIR(st.st_mode))
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "a folder, not a file: refused");
    gguf__source *s = gguf__calloc(1, sizeof *s);
    stream_impl *impl = gguf__calloc(1, sizeof *impl);
    char *n = gguf__strdup(name);
    if (s == NULL || impl == NULL || n == NULL) {
        gguf__free(s);
        gguf__free(impl);
        gguf__free(n);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    *s = (gguf__source){
        .ops = &stream_ops,
        .kind = GGUF__SOURCE_STREAM,
        .name = n,
        .fd = -1,
        .impl = impl,
    };
    uint64_t total = 0;
    int rc = drain(fd, impl, keep, &total, err);
    if (rc != 0) {
        gguf__source_free(s);
        return rc;
    }
    s->size = total;
    if (impl->kept_len == total)
        s->mem = impl->kept != NULL ? impl->kept : (const uint8_t *)"";
    else
        s->readable = impl->kept_len;
    *out = s;
    return 0;
}
