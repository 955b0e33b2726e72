/* The base layer: what every other layer stands on. Errors, the allocation and I/O choke
 * points, overflow-checked arithmetic, byte order, the bounded cursor. Knows nothing of GGUF
 * beyond the public header's types. Not installed. */
#ifndef LIBGGUF_BASE_H
#define LIBGGUF_BASE_H

#include "gguf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define GGUF_HIDDEN __attribute__((visibility("hidden")))
#define GGUF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GGUF_HIDDEN
#define GGUF_PRINTF(a, b)
#endif

/* ---- errors (error.c) ---- */

/* Records an error unless one is already recorded (the first error wins). Returns code, so
 * that callers can write `return gguf__fail(err, GGUF_ECORRUPT, off, "...")`. */
GGUF_HIDDEN int gguf__fail(gguf_error *err, int code, uint64_t offset, const char *fmt, ...)
    GGUF_PRINTF(4, 5);

/* Formats up to `max` bytes of a name for a message: printable ASCII as is, other bytes as \xNN,
 * longer names cut with "...". Returns buf. */
GGUF_HIDDEN const char *gguf__quote(char *buf, size_t bufsize, const char *s, size_t len);

/* ---- allocation (alloc.c): the one choke point ---- */

GGUF_HIDDEN void *gguf__malloc(size_t n);
GGUF_HIDDEN void *gguf__calloc(size_t count, size_t size);
GGUF_HIDDEN void *gguf__realloc(void *p, size_t n);
GGUF_HIDDEN void gguf__free(void *p);

/* ---- overflow-checked arithmetic ---- */

static inline bool gguf__add_u64(uint64_t *r, uint64_t a, uint64_t b) {
    return !__builtin_add_overflow(a, b, r);
}
static inline bool gguf__mul_u64(uint64_t *r, uint64_t a, uint64_t b) {
    return !__builtin_mul_overflow(a, b, r);
}
/* Rounds x up to a multiple of align (align > 0), failing on overflow. */
static inline bool gguf__align_up(uint64_t *r, uint64_t x, uint64_t align) {
    uint64_t rem = x % align;
    if (rem == 0) {
        *r = x;
        return true;
    }
    return gguf__add_u64(r, x, align - rem);
}

/* ---- byte order ---- */

static inline uint16_t gguf__bswap16(uint16_t x) { return __builtin_bswap16(x); }
static inline uint32_t gguf__bswap32(uint32_t x) { return __builtin_bswap32(x); }
static inline uint64_t gguf__bswap64(uint64_t x) { return __builtin_bswap64(x); }

static inline bool gguf__host_is_big(void) {
    return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}


/* ---- decoding numbers from bytes (never by casting pointers into the input) ---- */

static inline uint16_t gguf__load16(const uint8_t *p, bool big) {
    uint16_t v;
    __builtin_memcpy(&v, p, 2);
    return big != gguf__host_is_big() ? gguf__bswap16(v) : v;
}
static inline uint32_t gguf__load32(const uint8_t *p, bool big) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
    return big != gguf__host_is_big() ? gguf__bswap32(v) : v;
}
static inline uint64_t gguf__load64(const uint8_t *p, bool big) {
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    return big != gguf__host_is_big() ? gguf__bswap64(v) : v;
}
static inline void gguf__store16(uint8_t *p, uint16_t v, bool big) {
    if (big != gguf__host_is_big())
        v = gguf__bswap16(v);
    __builtin_memcpy(p, &v, 2);
}
static inline void gguf__store32(uint8_t *p, uint32_t v, bool big) {
    if (big != gguf__host_is_big())
        v = gguf__bswap32(v);
    __builtin_memcpy(p, &v, 4);
}
static inline void gguf__store64(uint8_t *p, uint64_t v, bool big) {
    if (big != gguf__host_is_big())
        v = gguf__bswap64(v);
    __builtin_memcpy(p, &v, 8);
}

/* ---- the bounded cursor (cursor.c): the only code that reads input bytes ---- */

typedef struct gguf__cursor {
    const uint8_t *base;
    uint64_t len;
    uint64_t pos;
    bool big;  /* numbers are big-endian */
    bool wide; /* lengths and counts are u64 (v2+), else u32 (v1) */
} gguf__cursor;

/* Each returns false, without moving, when fewer bytes remain than the read needs. */
static inline uint64_t gguf__cursor_remain(const gguf__cursor *c) { return c->len - c->pos; }
GGUF_HIDDEN bool gguf__cursor_u32(gguf__cursor *c, uint32_t *v);
GGUF_HIDDEN bool gguf__cursor_u64(gguf__cursor *c, uint64_t *v);
/* A length or count: u64 in v2+, u32 in v1. */
GGUF_HIDDEN bool gguf__cursor_len(gguf__cursor *c, uint64_t *v);
/* Skips n bytes, returning where they start. */
GGUF_HIDDEN bool gguf__cursor_bytes(gguf__cursor *c, uint64_t n, const uint8_t **p);

/* io.c: the I/O choke point. Each returns 0, or -1 with errno set (ENODATA: the file ended
 * before the bytes asked for). Full transfers; EINTR is retried. */
GGUF_HIDDEN int gguf__io_write(int fd, const void *buf, uint64_t n);
GGUF_HIDDEN int gguf__io_pwrite(int fd, const void *buf, size_t n, uint64_t off);
GGUF_HIDDEN int gguf__io_pread(int fd, void *buf, size_t n, uint64_t off);
/* Copies n bytes from in at off to the current position of out: copy_file_range, else a buffer. */
GGUF_HIDDEN int gguf__io_copy(int in, uint64_t off, int out, uint64_t n);
GGUF_HIDDEN int gguf__io_fsync(int fd);
GGUF_HIDDEN int gguf__io_rename(const char *from, const char *to);
/* fsync of the directory holding path. */
GGUF_HIDDEN int gguf__io_sync_dir(const char *path);
GGUF_HIDDEN const char *gguf__io_strerror(int errnum);

/* ---- the one growable byte buffer (buf.c) ---- */

typedef struct gguf__buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool failed; /* an allocation failed: later appends do nothing */
} gguf__buf;

/* Appends n bytes and returns where they start (for the caller to fill), or NULL once the buffer
 * has failed. */
GGUF_HIDDEN uint8_t *gguf__buf_grow(gguf__buf *b, size_t n);
GGUF_HIDDEN void gguf__buf_add(gguf__buf *b, const void *p, size_t n);
GGUF_HIDDEN void gguf__buf_zeros(gguf__buf *b, size_t n);
GGUF_HIDDEN void gguf__buf_str(gguf__buf *b, const char *s);
GGUF_HIDDEN void gguf__buf_printf(gguf__buf *b, const char *fmt, ...) GGUF_PRINTF(2, 3);
/* Puts a NUL after the text without counting it in len. Returns 0, or -1 when failed. */
GGUF_HIDDEN int gguf__buf_nul(gguf__buf *b);
/* Frees the bytes; the buffer is empty and usable again. */
GGUF_HIDDEN void gguf__buf_free(gguf__buf *b);

#endif /* LIBGGUF_BASE_H */
