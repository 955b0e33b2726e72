/* Private declarations shared by the library's files. Not installed. */
#ifndef LIBGGUF_INTERNAL_H
#define LIBGGUF_INTERNAL_H

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

/* Maximum nesting of arrays inside arrays. ggml allows none, the spec any; this bounds the
 * recursion of every walker. */
#define GGUF__MAX_DEPTH 64

/* ---- the parsed file ---- */

typedef struct gguf__kv {
    const char *key;
    uint64_t key_len;
    gguf_value value;
    uint64_t src_offset; /* where the entry starts in the source, or GGUF_ERROR_NO_OFFSET */
    bool key_owned;
} gguf__kv;

typedef struct gguf__tensor {
    const char *name;
    uint64_t name_len;
    uint32_t n_dims;
    uint32_t type;
    uint64_t dims[GGUF_MAX_DIMS];
    uint64_t offset;      /* relative to the data offset */
    uint64_t nbytes;      /* UINT64_MAX: unknown type */
    uint64_t src_offset;  /* absolute offset of the bytes in the source, or GGUF__NO_SOURCE for
                             a tensor added or retyped by an edit (its bytes come from the
                             write's fill callback) */
    uint64_t info_offset; /* where the tensor info starts in the source */
    bool name_owned;
} gguf__tensor;

#define GGUF__NO_SOURCE UINT64_MAX

enum gguf__source_kind { GGUF__SRC_BORROWED, GGUF__SRC_HEAP, GGUF__SRC_MMAP };

struct gguf_file {
    /* the source bytes */
    const uint8_t *data;
    uint64_t size;
    enum gguf__source_kind src_kind;
    int fd; /* the open source file, or -1 */

    uint32_t version;
    bool big;
    uint32_t alignment;
    uint64_t header_end;  /* end of the tensor infos in the source */
    uint64_t data_offset; /* start of tensor data in the source */

    gguf__kv *kv;
    size_t n_kv;
    size_t cap_kv;
    gguf__tensor *tensors;
    size_t n_tensors;
    size_t cap_tensors;
    unsigned flags;
    bool must_pack; /* an edit moved tensor data (removal, realignment): write packed */
    int64_t mtime_sec; /* of the source file when opened, to notice changes under an edit */
    int64_t mtime_nsec;
    uint64_t layout_size; /* header-only parses: the size of the file the header belongs to */
};

/* Internal open flag: parse a header region only; tensor bounds are checked against
 * layout_size instead of the bytes given. */
#define GGUF__OPEN_HEADER_ONLY (1u << 30)

/* file.c: parses a header region (the first len bytes of a file of file_size bytes). */
GGUF_HIDDEN int gguf__open_header(gguf_file **out, const uint8_t *region, size_t len,
                                  uint64_t file_size, unsigned flags, gguf_error *err);
/* update.c: checks that out holds src's tensors with the same names, types, sizes and crc32s. */
GGUF_HIDDEN int gguf__verify_output(const gguf_file *src, const gguf_file *out, gguf_error *err);

/* parse.c: parses f->data/f->size into the header fields, kv and tensors of f. */
GGUF_HIDDEN int gguf__parse(gguf_file *f, gguf_error *err);
/* Releases what parse and edits allocated inside f (not the source). */
GGUF_HIDDEN void gguf__file_clear(gguf_file *f);

/* kv.c: walks one encoded value of `type` at the cursor, checking it and its nested values
 * (depth counts array levels). On success the cursor is past the value. `path` names the
 * value for messages. */
typedef struct gguf__path {
    const struct gguf__path *parent;
    const char *key; /* set on the root only */
    size_t key_len;
    uint64_t index;  /* element index below the parent */
} gguf__path;
GGUF_HIDDEN int gguf__value_skip(gguf__cursor *c, uint32_t type, int depth, const gguf__path *path,
                                 gguf_error *err);
/* Formats a path as key[i][j] into buf. */
GGUF_HIDDEN const char *gguf__path_format(char *buf, size_t bufsize, const gguf__path *path);

/* byteswap.c: converts whole blocks of a tensor type between byte orders, in place (nbytes a
 * multiple of the block size). Returns 0, or GGUF_EUNSUPPORTED for a type without a recipe. */
GGUF_HIDDEN int gguf__byteswap_blocks(uint32_t dtype, void *buf, size_t nbytes);

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

/* crc.c: crc32 (zlib) of source bytes [start, start+len). */
GGUF_HIDDEN int gguf__crc_range(uint32_t *crc, const gguf_file *f, uint64_t start, uint64_t len,
                                gguf_error *err);

/* ---- output (sink.c) ---- */

typedef struct gguf__sink {
    uint8_t *buf; /* memory sinks: the growing buffer */
    size_t len;
    size_t cap;
    bool big;
    bool wide;
    bool failed;
} gguf__sink;

GGUF_HIDDEN void gguf__sink_bytes(gguf__sink *s, const void *p, size_t n);
GGUF_HIDDEN void gguf__sink_zeros(gguf__sink *s, size_t n);
GGUF_HIDDEN void gguf__sink_u32(gguf__sink *s, uint32_t v);
GGUF_HIDDEN void gguf__sink_u64(gguf__sink *s, uint64_t v);
GGUF_HIDDEN void gguf__sink_len(gguf__sink *s, uint64_t v);
GGUF_HIDDEN void gguf__sink_free(gguf__sink *s);

/* Writes an encoded value, transcoding it from its own encoding to the sink's. */
GGUF_HIDDEN void gguf__value_emit(gguf__sink *s, const gguf_value *v);

/* write.c: serializes the header (magic .. end of tensor infos) for the given output format,
 * with the tensor offsets given (NULL: the tensors' own). */
GGUF_HIDDEN int gguf__header_serialize(gguf__sink *s, const gguf_file *f, uint32_t version,
                                       bool big, const uint64_t *offsets, gguf_error *err);

#endif /* LIBGGUF_INTERNAL_H */
