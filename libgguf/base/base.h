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

/* Puts context in front of the error already recorded ("element 1: " + its message), keeping
 * its code and offset; records a new error with the context as message when there is none.
 * Returns the recorded code. */
GGUF_HIDDEN int gguf__wrap(gguf_error *err, int code, const char *fmt, ...) GGUF_PRINTF(3, 4);
/* Names the file (or URL) a recorded error is about, unless one is named already. */
GGUF_HIDDEN void gguf__fail_path(gguf_error *err, const char *path);

/* Formats up to `max` bytes of a name for a message: printable ASCII as is, other bytes as \xNN,
 * longer names cut with "...". Returns buf. */
GGUF_HIDDEN const char *gguf__quote(char *buf, size_t bufsize, const char *s, size_t len);

/* ---- options structs (options.c) ---- */

/* Reads a caller's options struct by its leading size (see "Options structs, and how they
 * grow" in gguf_base.h) into *out, this library's struct of `size` bytes: the fields the
 * caller's size covers are the caller's, the others come from defaults (the struct's _INIT).
 * opt NULL: the defaults. type names the struct in errors. Returns 0, GGUF_EINVAL (a size
 * below sizeof(size_t) or above GGUF_OPTIONS_SIZE_MAX) or GGUF_EUNSUPPORTED (a field this
 * library does not know is set), with *out the defaults. */
GGUF_HIDDEN int gguf__options_read(void *out, size_t size, const void *defaults, const void *opt,
                                   const char *type, gguf_error *err);
/* 0 when `size`, a caller's options struct's size field, is one the library can read (see
 * gguf__options_read; ours is this library's size), else GGUF_EINVAL naming `type`. */
GGUF_HIDDEN int gguf__options_size_check(size_t size, size_t ours, const char *type,
                                         gguf_error *err);
/* gguf__options_read into `out`, a local of type `type`, with the defaults `init` (its _INIT). */
#define GGUF__OPTIONS_READ(out, type, init, opt, err)                                          \
    gguf__options_read(&(out), sizeof(type), &(const type)init, (opt), #type, (err))

/* ---- allocation (alloc.c): the one choke point ---- */

GGUF_HIDDEN void *gguf__malloc(size_t n);
GGUF_HIDDEN void *gguf__calloc(size_t count, size_t size);
GGUF_HIDDEN void *gguf__realloc(void *p, size_t n);
/* Gives the memory of a block's whole pages past its first `used` bytes (of `size`) back to
 * the system when they come to a MiB or more; they read as zeros if touched again. */
GGUF_HIDDEN void gguf__alloc_trim(void *p, size_t used, size_t size);
/* Faults in the pages of p[0..n) in one call (when at least 1 MB), before a read fills them:
 * cheaper than a fault per page, which on a virtual machine each cost an exit. Advice only. */
GGUF_HIDDEN void gguf__alloc_populate(void *p, size_t n);
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

/* The cursor walks len bytes of input, of which the first `held` are in memory at base (a
 * header read in pieces: held < len). A read past len is a truncated input; a read inside len
 * but past held records in `need` how many bytes would let it succeed, so that the reader can
 * fetch more and parse again. Either way the read fails without moving. The parser keeps in
 * `owed` the fewest bytes that what it has already read promises after the current item (the
 * length fields of the array elements still to come, the smallest possible remaining entries);
 * a failed read records in `floor` need + owed: the input cannot end its structure before
 * that, so a reader paying per byte may fetch up to there without reading past it. */
typedef struct gguf__cursor {
    const uint8_t *base;
    uint64_t len;  /* bytes of input in all */
    uint64_t held; /* bytes of it in memory, <= len */
    uint64_t pos;
    uint64_t need; /* 0, or the held bytes a failed read needed */
    uint64_t owed; /* bytes the structure promises after the current item (a lower bound) */
    uint64_t floor; /* 0, or need + owed at the failed read: where the structure ends at least */
    /* 0, or where the structure would end if the rest of an array of strings cut off by the held
     * bytes were like the strings before (plus what it owes after): a reader's next read */
    uint64_t guess;
    bool big;      /* numbers are big-endian */
    bool wide;     /* lengths and counts are u64 (v2+), else u32 (v1) */
} gguf__cursor;

/* Bytes of input after the cursor (held or not): what counts are checked against. */
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
/* One read() of at most n bytes from a pipe or socket: *got is 0 at the end of input. */
GGUF_HIDDEN int gguf__io_read_some(int fd, void *buf, size_t n, size_t *got);
/* Starts the writeback of out's bytes [off, off + n) to the storage (sync_file_range); with
 * wait, waits until they are written. No data integrity (metadata, device caches): the fsync
 * still follows. A filesystem with no use for it succeeds. */
GGUF_HIDDEN int gguf__io_writeback(int fd, uint64_t off, uint64_t n, bool wait);
/* Advice: the kernel drops fd's clean cached pages in [off, off + n) (n 0: to the end). Pages
 * another process maps stay; a filesystem whose storage is the page cache keeps them all. */
GGUF_HIDDEN void gguf__io_drop_cached(int fd, uint64_t off, uint64_t n);
/* Direct writes in flight: fd (a regular file) switched to O_DIRECT, and up to `slots` writes
 * that bypass the page cache (the device reads the caller's buffer), each from a buffer, a
 * length and an offset aligned to GGUF__IO_DIRECT_ALIGN. NULL where the file, its filesystem
 * or the kernel cannot (not an error: write through the page cache); a device whose blocks
 * are larger than that alignment refuses the first write with EINVAL. */
typedef struct gguf__aio gguf__aio;
GGUF_HIDDEN gguf__aio *gguf__io_aio_open(int fd, unsigned slots);
/* Starts writing n bytes of buf at off through slot (free: never started, or waited for);
 * buf stays the device's until gguf__io_aio_wait(slot). 0, or -1 with errno. */
GGUF_HIDDEN int gguf__io_aio_write(gguf__aio *a, unsigned slot, void *buf, size_t n,
                                   uint64_t off);
/* Waits until slot's write has ended: 0 when it wrote every byte, else -1 with errno. */
GGUF_HIDDEN int gguf__io_aio_wait(gguf__aio *a, unsigned slot);
/* Switches fd's O_DIRECT off (for writes through the page cache at offsets not aligned) or
 * on again, once every write in flight has ended (their results kept for gguf__io_aio_wait). */
GGUF_HIDDEN int gguf__io_aio_direct(gguf__aio *a, bool on);
/* Waits for every write still in flight, then puts fd back as it was. NULL: nothing. */
GGUF_HIDDEN void gguf__io_aio_close(gguf__aio *a);
/* Allocates fd's blocks for [off, off + n), the file grown to reach it (fallocate): writes
 * there then only fill blocks. Not a failure point in the testing build: a caller that cannot
 * allocate ahead writes through the page cache instead. */
GGUF_HIDDEN int gguf__io_preallocate(int fd, uint64_t off, uint64_t n);
/* Opens path for reads from the storage: O_DIRECT (*direct set; reads then need offsets,
 * lengths and buffers aligned to GGUF__IO_DIRECT_ALIGN), else (a filesystem without it, such
 * as tmpfs, whose storage is the page cache) a plain descriptor, the file's clean cached
 * pages dropped first. Returns the descriptor, or -1 with errno. */
GGUF_HIDDEN int gguf__io_open_direct(const char *path, bool *direct);
#define GGUF__IO_DIRECT_ALIGN 4096
/* Reads up to n bytes at off, fewer only at the end of the file (*got). */
GGUF_HIDDEN int gguf__io_pread_upto(int fd, void *buf, size_t n, uint64_t off, size_t *got);
/* Nothing, except in the testing build, where it corrupts the buffer when a test asks: the
 * copy engine calls it between its read of bytes and its write of them. */
GGUF_HIDDEN void gguf__io_corrupt_buffer(void *buf, size_t n);
/* The same for the source offset the copy engine reports for a range. */
GGUF_HIDDEN void gguf__io_corrupt_offset(uint64_t *off);
GGUF_HIDDEN int gguf__io_fsync(int fd);
GGUF_HIDDEN int gguf__io_rename(const char *from, const char *to);
GGUF_HIDDEN int gguf__io_unlink(const char *path);
/* fdatasync: the data and what is needed to read it back (sizes, extents), not the times. */
GGUF_HIDDEN int gguf__io_fdatasync(int fd);
/* Inserts len bytes (zeros) at `at`, shifting what follows, in place (fallocate's
 * FALLOC_FL_INSERT_RANGE; both multiples of the filesystem block). EOPNOTSUPP where the
 * filesystem cannot. */
GGUF_HIDDEN int gguf__io_insert_range(int fd, uint64_t at, uint64_t len);
/* Clones n bytes of in at in_off to out at out_off: the files share the blocks (a reflink,
 * FICLONERANGE; offsets and n multiples of the filesystem block). EOPNOTSUPP, EXDEV or EINVAL
 * where the filesystem cannot. */
GGUF_HIDDEN int gguf__io_clone(int in, uint64_t in_off, int out, uint64_t out_off, uint64_t n);
/* Cuts the file to len bytes (ftruncate). */
GGUF_HIDDEN int gguf__io_truncate(int fd, uint64_t len);
/* fsync of the directory holding path. */
GGUF_HIDDEN int gguf__io_sync_dir(const char *path);
GGUF_HIDDEN const char *gguf__io_strerror(int errnum);
/* Fails with GGUF_EIO: "WHAT failed: " and errno's reason, naming path. Returns GGUF_EIO. */
GGUF_HIDDEN int gguf__io_fail(gguf_error *err, const char *path, const char *what);

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
/* Room for cap bytes in all, taken at once: a buffer whose final size is known grows by one
 * allocation instead of a chain of copies. */
GGUF_HIDDEN void gguf__buf_reserve(gguf__buf *b, size_t cap);
GGUF_HIDDEN void gguf__buf_add(gguf__buf *b, const void *p, size_t n);
GGUF_HIDDEN void gguf__buf_zeros(gguf__buf *b, size_t n);
GGUF_HIDDEN void gguf__buf_str(gguf__buf *b, const char *s);
GGUF_HIDDEN void gguf__buf_printf(gguf__buf *b, const char *fmt, ...) GGUF_PRINTF(2, 3);
/* Puts a NUL after the text without counting it in len. Returns 0, or -1 when failed. */
GGUF_HIDDEN int gguf__buf_nul(gguf__buf *b);
/* Frees the bytes; the buffer is empty and usable again. */
GGUF_HIDDEN void gguf__buf_free(gguf__buf *b);

/* ---- UTF-8 (utf8.c) ---- */

/* Length of the valid UTF-8 sequence at s (1-4; n > 0 bytes available), or 0 when the bytes
 * there are not UTF-8. */
GGUF_HIDDEN size_t gguf__utf8_len(const uint8_t *s, size_t n);
GGUF_HIDDEN bool gguf__utf8_valid(const void *s, size_t n);
/* Appends code point cp (at most U+10FFFF, not a surrogate) as UTF-8. */
GGUF_HIDDEN void gguf__utf8_put(gguf__buf *b, uint32_t cp);

/* ---- the JSON writer (json.c) ---- */

/* The string writers json.c chooses from (the best the CPU has, unless set). */
enum { GGUF__JSON_SCALAR = 0, GGUF__JSON_SSE2 = 1, GGUF__JSON_AVX2 = 2 };
/* Uses the writer `level` from now on (-1: the best); returns the one in use, which is lower
 * when the CPU lacks that one. For tests, which compare them. */
GGUF_HIDDEN int gguf__json_set_level(int level);
/* Room past a string's worst case that the writers below may store into (then overwrite). */
#define GGUF__JSON_SLACK 32
/* Room for one number written by a _to function below. */
#define GGUF__JSON_NUM_ROOM 32

/* A JSON string literal of the bytes (always valid UTF-8 JSON: see json.c). */
GGUF_HIDDEN void gguf__json_str(gguf__buf *b, const void *s, size_t n);
/* The same, written at o, which has room for 6 * n + 2 + GGUF__JSON_SLACK bytes; the bytes
 * from s up to end (>= s + n) may be read. Returns the end. */
GGUF_HIDDEN uint8_t *gguf__json_str_at(uint8_t *o, const void *s, size_t n, const void *end);
/* The *left encoded strings at *p (each a length, u64 when wide else u32, in the byte order
 * big, then its bytes) as JSON strings written at o, each after a comma but the array's first
 * (the first one here when `first`), while they surely fit: a string is written only when its
 * worst case, 6 bytes out per byte in, fits before lim (and 3 + GGUF__JSON_SLACK bytes past lim
 * are room for its comma and quotes). *p and *left become the strings not written. The bytes
 * up to end (at least to the last string's end) may be read. Returns the end. */
GGUF_HIDDEN uint8_t *gguf__json_str_list(uint8_t *o, const uint8_t *lim, const uint8_t **p,
                                         uint64_t *left, bool first, bool wide, bool big,
                                         const uint8_t *end);
/* A float with `digits` significant digits (9 for f32, 17 for f64); non-finite as a string. */
GGUF_HIDDEN void gguf__json_double(gguf__buf *b, double d, int digits);
/* The same for a float, exactly as "%.9g" prints it, faster. */
GGUF_HIDDEN void gguf__json_f32(gguf__buf *b, float f);
GGUF_HIDDEN void gguf__json_u64(gguf__buf *b, uint64_t v);
GGUF_HIDDEN void gguf__json_i64(gguf__buf *b, int64_t v);
/* The numbers above written at o (room: GGUF__JSON_NUM_ROOM); each returns the end. */
GGUF_HIDDEN uint8_t *gguf__json_double_to(uint8_t *o, double d, int digits);
GGUF_HIDDEN uint8_t *gguf__json_f32_to(uint8_t *o, float f);
GGUF_HIDDEN uint8_t *gguf__json_u64_to(uint8_t *o, uint64_t v);
GGUF_HIDDEN uint8_t *gguf__json_i64_to(uint8_t *o, int64_t v);

/* ---- the JSON reader (json_read.c) ---- */

/* Text being read: p moves towards end; depth counts the open objects and arrays. */
typedef struct gguf__json_in {
    const char *p, *end;
    int depth;
} gguf__json_in;
/* Called at each member's value (which it must consume, e.g. with gguf__json_skip): 0, or -1
 * to stop the walk. key is the decoded name, NUL-terminated. */
typedef int (*gguf__json_member_fn)(gguf__json_in *j, const char *key, void *user);
/* Called at element i of an array, the same way. */
typedef int (*gguf__json_element_fn)(gguf__json_in *j, size_t i, void *user);
/* Every function returns 0, or -1 with j->p near the first byte that is not valid JSON. */
GGUF_HIDDEN void gguf__json_ws(gguf__json_in *j);
/* The string at j->p, decoded into out (appended; out may be NULL to skip it). */
GGUF_HIDDEN int gguf__json_string(gguf__json_in *j, gguf__buf *out);
/* The object at j->p (after white space); a NULL member skips every value. */
GGUF_HIDDEN int gguf__json_object(gguf__json_in *j, gguf__json_member_fn member, void *user);
/* The array at j->p (after white space); a NULL element skips every element. */
GGUF_HIDDEN int gguf__json_array(gguf__json_in *j, gguf__json_element_fn element, void *user);
/* Any value at j->p. */
GGUF_HIDDEN int gguf__json_skip(gguf__json_in *j);

/* ---- the hash set (hashset.c) ---- */

/* The key of index i in the caller's array: its bytes, and their count in *n. */
typedef const void *(*gguf__hashset_key_fn)(const void *ctx, size_t i, size_t *n);

typedef struct gguf__hashset {
    uint32_t *slots; /* index + 1; 0: empty. NULL: no set (finds fail) */
    size_t mask;     /* slots - 1, a power of two minus one */
    size_t n;
} gguf__hashset;

GGUF_HIDDEN uint64_t gguf__hash_bytes(const void *p, size_t n);

/* ---- dl_table.c: a library loaded on first use ---- */

/* One call of a library: its symbol, and where its pointer goes in the caller's table. */
typedef struct gguf__dl_call {
    const char *symbol;
    size_t at;
} gguf__dl_call;
enum { GGUF__DL_NO_LIBRARY = 1, GGUF__DL_NO_SYMBOL = 2 };
/* Loads the first of sonames that dlopen finds and fills table with its calls. Returns 0;
 * GGUF__DL_NO_LIBRARY, what holding dlerror's words; or GGUF__DL_NO_SYMBOL, what holding the
 * symbol the library lacks (an older version). Not thread-safe: callers run it once
 * (pthread_once). */
GGUF_HIDDEN int gguf__dl_table(void *table, const char *const *sonames, size_t n_sonames,
                               const gguf__dl_call *calls, size_t n_calls, char *what,
                               size_t what_size);
/* An empty set with room for about n entries (it grows). Returns 0 or GGUF_ENOMEM. */
GGUF_HIDDEN int gguf__hashset_init(gguf__hashset *set, size_t n);
/* The index whose key equals these bytes, or -1. */
GGUF_HIDDEN int64_t gguf__hashset_find(const gguf__hashset *set, const void *key, size_t n,
                                       gguf__hashset_key_fn get, const void *ctx);
/* Adds index (its key from get). Returns -1 when added, the index holding an equal key already
 * (nothing added), or -2 when memory ran out. */
GGUF_HIDDEN int64_t gguf__hashset_insert(gguf__hashset *set, uint32_t index,
                                         gguf__hashset_key_fn get, const void *ctx);
GGUF_HIDDEN void gguf__hashset_free(gguf__hashset *set);

/* ---- SHA-256 (sha256.c) ---- */

typedef struct gguf__sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes hashed */
    uint8_t block[64];
    size_t fill; /* bytes waiting in block */
} gguf__sha256;
GGUF_HIDDEN void gguf__sha256_init(gguf__sha256 *s);
GGUF_HIDDEN void gguf__sha256_update(gguf__sha256 *s, const void *data, size_t n);
/* The digest of everything given to update; s must be initialised again before reuse. */
GGUF_HIDDEN void gguf__sha256_final(uint8_t digest[32], gguf__sha256 *s);

/* ---- the thread pool (pool.c) ---- */

typedef struct gguf__pool gguf__pool;
/* Runs task number `task` on worker `worker` (0 is the caller's thread, 1.. the pool's). */
typedef void (*gguf__pool_fn)(void *ctx, size_t task, unsigned worker);

/* A pool of `threads` threads in all, the caller's included (0 or 1: no extra thread). Threads
 * that cannot be started are done without. Returns 0 or GGUF_ENOMEM. */
GGUF_HIDDEN int gguf__pool_new(gguf__pool **out, unsigned threads);
/* Threads in the pool, the caller's included (1 for a NULL pool). */
GGUF_HIDDEN unsigned gguf__pool_threads(const gguf__pool *p);
/* Runs tasks 0..n_tasks-1 on the pool and the caller's thread; returns when all are done. A
 * NULL pool runs them on the caller's thread. One batch at a time per pool. */
GGUF_HIDDEN void gguf__pool_run(gguf__pool *p, size_t n_tasks, gguf__pool_fn fn, void *ctx);
GGUF_HIDDEN void gguf__pool_free(gguf__pool *p);

/* ---- the copy engine (copy.c): an output written in order, its writeback overlapped ---- */

typedef struct gguf__copier gguf__copier;
/* A range read from another file and written to the output: n bytes from `src` (in the
 * caller's coordinates: the tag given to gguf__copier_copy, plus the offset in the range) to
 * `dst` in the output; the checksums of its bytes as the read got them and as they were
 * written (equal unless memory changed in between). */
typedef struct gguf__piece {
    uint64_t src, dst, n;
    uint64_t read_sum, written_sum;
    bool cloned; /* (for callers that also clone: the files share these blocks, no checksums) */
} gguf__piece;
/* Told of each range once it is written, in output order. */
typedef void (*gguf__piece_fn)(void *user, const gguf__piece *p);
/* What fills the output: calls the functions below; returns 0 or a negative GGUF_E* code. */
typedef int (*gguf__copier_fn)(gguf__copier *c, void *ctx);

/* Runs produce, which queues the output's bytes in order, and writes them to fd from its
 * current position, which is offset `pos` of the output, starting their writeback as it goes
 * (the caller still fsyncs). Returns produce's result (or GGUF_ENOMEM without running it);
 * *write_errno is the errno of the first failed write or writeback, or 0. */
GGUF_HIDDEN int gguf__copier_run(int *write_errno, int fd, uint64_t pos, gguf__piece_fn piece,
                                 void *user, gguf__copier_fn produce, void *ctx);
/* Queues n bytes of p (NULL: zeros). 0, or -1 with errno: a write failed. */
GGUF_HIDDEN int gguf__copier_bytes(gguf__copier *c, const void *p, uint64_t n);
/* Queues n bytes of the file in at off (a range told to the observer as from `tag`). 0, or -1
 * with errno: the read failed, or a write did (gguf__copier_write_failed). */
GGUF_HIDDEN int gguf__copier_copy(gguf__copier *c, int in, uint64_t off, uint64_t n,
                                  uint64_t tag);
/* Ranges read from now on are dropped from the page cache once in the buffer: for a copy
 * that replaces its source. */
GGUF_HIDDEN void gguf__copier_drop_read(gguf__copier *c);
/* The output is a new file that nobody reads while it is written, of about `size` bytes: when
 * that is large, its bytes may go to the storage directly, past the page cache (base/copy.c
 * says when). */
GGUF_HIDDEN void gguf__copier_direct(gguf__copier *c, uint64_t size);
/* Writes everything queued (fd's position is then gguf__copier_pos). */
GGUF_HIDDEN int gguf__copier_flush(gguf__copier *c);
/* After a flush: n bytes were put in the output another way (a clone), fd's position moved. */
GGUF_HIDDEN void gguf__copier_skip(gguf__copier *c, uint64_t n);
GGUF_HIDDEN uint64_t gguf__copier_pos(const gguf__copier *c);
GGUF_HIDDEN bool gguf__copier_write_failed(const gguf__copier *c);

/* ---- the test pause (test_pause.c): a named point where a test may hold the process ---- */

/* Test-only, see test_pause.c: with GGUF_TEST_PAUSE_AT=point and GGUF_TEST_PAUSE_FIFO set,
 * tells the test the point is reached and waits for its reply; otherwise returns at once. */
GGUF_HIDDEN void gguf__test_pause(const char *point);
/* Test-only: the thread enters (+1) or leaves (-1) an in-place window, where the moment that
 * GGUF_TEST_INTERRUPT picks runs on to the window's end instead of stopping. */
GGUF_HIDDEN void gguf__test_window(int delta);
/* Test-only: GGUF_TEST_INTERRUPT has sent its signal (the process is on its way out). */
GGUF_HIDDEN bool gguf__test_interrupting(void);

/* ---- strings and paths (path.c) ---- */

GGUF_HIDDEN char *gguf__strdup(const char *s);
GGUF_HIDDEN char *gguf__strndup(const char *s, size_t n);
/* Length of the folder part of path (0: it has none, the folder is "."). */
GGUF_HIDDEN size_t gguf__path_dir_len(const char *path);
/* The folder part of path ("." when it has none). */
GGUF_HIDDEN char *gguf__path_dir(const char *path);
/* "DIR/" prefix "NAME" suffix for path "DIR/NAME": a file beside path. */
GGUF_HIDDEN char *gguf__path_beside(const char *path, const char *prefix, const char *suffix);

#endif /* LIBGGUF_BASE_H */
