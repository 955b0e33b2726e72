/* The copy engine: one output file written in order through one buffer, which the caller
 * fills with bytes, zeros, or ranges read from other files. With an observer (the commit
 * layer's proof), each range is checksummed as it is read and again once it is written from
 * the same buffer, and both checksums go to it, so that bytes that changed in memory between
 * their read and their write show as a difference. The writeback of each window of WINDOW
 * bytes written is started at once, and the one LAG windows behind waited for: the storage
 * writes while the copy goes on (the overlap that makes a copy and its fsync cost about the
 * larger of the two, not their sum), the dirty pages stay bounded, and the final fsync finds
 * little left. Starting a window's writeback allocates its blocks and builds its requests on
 * the copy's thread: windows of 32 MiB keep that work and the device's queue even (64 MiB
 * windows, with as many bytes in flight, made a 2 GiB rewrite on ext4 a quarter slower).
 *
 * A copy that replaces its source (an edit's rewrite) drops the source's pages from the cache
 * once they are in the buffer: the kernel would otherwise free them all at once when the
 * replaced file goes, after the rename, in the edit's time (a tenth of a second per 2 GiB),
 * and the output's new pages take the memory they free.
 *
 * One thread, and a buffer of BUF_BYTES that stays in the CPU's cache from the read through
 * the checksums to the write: a copy costs the two copies in the kernel (page cache to buffer,
 * buffer to page cache) and no trip through memory for the proof. A reader thread and a
 * writer thread handing buffers over cost two to three times the CPU time here (each buffer
 * crosses between the cores' caches, and each hand-over wakes a thread), and more wall time
 * on a machine whose cores are busy. */
#define _GNU_SOURCE
#include "base/base.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

#define BUF_BYTES ((size_t)256 << 10)
#define BUF_PIECES 64
#define WINDOW ((uint64_t)32 << 20)
#define LAG 8

struct gguf__copier {
    int fd;
    gguf__piece_fn piece;
    void *user;
    uint8_t *mem, *buf;   /* buf: page-aligned, BUF_BYTES */
    size_t len;           /* bytes waiting in buf */
    uint64_t at;          /* where buf[0] goes in the output */
    gguf__piece pieces[BUF_PIECES]; /* the ranges in buf */
    size_t n_pieces;
    uint64_t kicked;      /* writeback started below this offset */
    uint64_t waited;      /* writeback waited for below this offset */
    int werr;             /* the errno of the first failed write or writeback, or 0 */
    bool drop_read;       /* the source's pages dropped from the cache once read */
    uint64_t (*sum)(const uint8_t *p, size_t n);
};

/* ---- checksums: crc32c in three interleaved streams where the CPU has SSE4.2, else zlib's
 * crc32; one function per copy, so both sides of a range agree ---- */

static uint64_t sum_zlib(const uint8_t *p, size_t n) {
    return crc32_z(0, p, n);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("sse4.2"))) static uint64_t sum_crc32c(const uint8_t *p, size_t n) {
    size_t third = n / 24 * 8;
    uint64_t a = 0, b = 0, c = 0;
    for (size_t i = 0; i < third; i += 8) {
        uint64_t x, y, z;
        memcpy(&x, p + i, 8);
        memcpy(&y, p + third + i, 8);
        memcpy(&z, p + 2 * third + i, 8);
        a = __builtin_ia32_crc32di(a, x);
        b = __builtin_ia32_crc32di(b, y);
        c = __builtin_ia32_crc32di(c, z);
    }
    for (size_t i = 3 * third; i < n; i++)
        a = __builtin_ia32_crc32qi((unsigned)a, p[i]);
    return a ^ (b << 32) ^ (c << 16);
}
#endif

/* ---- writing ---- */

static int failed(gguf__copier *c, int errnum) {
    if (c->werr == 0)
        c->werr = errnum != 0 ? errnum : EIO;
    errno = c->werr;
    return -1;
}

/* Writes what buf holds, tells the observer its ranges, and moves the writeback along. */
static int drain(gguf__copier *c) {
    if (c->werr != 0) {
        errno = c->werr;
        return -1;
    }
    if (c->len == 0)
        return 0;
    if (gguf__io_write(c->fd, c->buf, c->len) != 0)
        return failed(c, errno);
    for (size_t i = 0; c->piece != NULL && i < c->n_pieces; i++) {
        gguf__piece *p = &c->pieces[i];
        p->written_sum = c->sum(c->buf + (p->dst - c->at), (size_t)p->n);
        c->piece(c->user, p);
    }
    c->at += c->len;
    c->len = 0;
    c->n_pieces = 0;
    if (c->at - c->kicked < WINDOW)
        return 0;
    if (gguf__io_writeback(c->fd, c->kicked, c->at - c->kicked, false) != 0)
        return failed(c, errno);
    c->kicked = c->at;
    if (c->kicked - c->waited > LAG * WINDOW) {
        uint64_t upto = c->kicked - LAG * WINDOW;
        if (gguf__io_writeback(c->fd, c->waited, upto - c->waited, true) != 0)
            return failed(c, errno);
        c->waited = upto;
    }
    return 0;
}

int gguf__copier_bytes(gguf__copier *c, const void *p, uint64_t n) {
    const uint8_t *b = p;
    while (n > 0) {
        if (c->len == BUF_BYTES && drain(c) != 0)
            return -1;
        size_t k = BUF_BYTES - c->len < n ? BUF_BYTES - c->len : (size_t)n;
        if (b != NULL) {
            memcpy(c->buf + c->len, b, k);
            b += k;
        } else {
            memset(c->buf + c->len, 0, k);
        }
        c->len += k;
        n -= k;
    }
    return c->werr != 0 ? failed(c, c->werr) : 0;
}

int gguf__copier_copy(gguf__copier *c, int in, uint64_t off, uint64_t n, uint64_t tag) {
    while (n > 0) {
        if ((c->len == BUF_BYTES || c->n_pieces == BUF_PIECES) && drain(c) != 0)
            return -1;
        size_t k = BUF_BYTES - c->len < n ? BUF_BYTES - c->len : (size_t)n;
        uint8_t *at = c->buf + c->len;
        if (gguf__io_pread(in, at, k, off) != 0)
            return -1;
        if (c->drop_read)
            gguf__io_drop_cached(in, off, k);
        gguf__piece *p = &c->pieces[c->n_pieces++];
        /* checksums only for an observer: a copy no proof follows (split, merge) skips them */
        *p = (gguf__piece){.src = tag, .dst = c->at + c->len, .n = k,
                           .read_sum = c->piece != NULL ? c->sum(at, k) : 0};
        gguf__io_corrupt_buffer(at, k);
        gguf__io_corrupt_offset(&p->src);
        c->len += k;
        off += k;
        tag += k;
        n -= k;
    }
    return c->werr != 0 ? failed(c, c->werr) : 0;
}

int gguf__copier_flush(gguf__copier *c) {
    return drain(c);
}

void gguf__copier_drop_read(gguf__copier *c) {
    c->drop_read = true;
}

void gguf__copier_skip(gguf__copier *c, uint64_t n) {
    c->at += n;
}

uint64_t gguf__copier_pos(const gguf__copier *c) {
    return c->at + c->len;
}

bool gguf__copier_write_failed(const gguf__copier *c) {
    return c->werr != 0;
}

int gguf__copier_run(int *write_errno, int fd, uint64_t pos, gguf__piece_fn piece, void *user,
                     gguf__copier_fn produce, void *ctx) {
    gguf__copier c = {.fd = fd, .piece = piece, .user = user, .at = pos, .kicked = pos,
                      .waited = pos, .sum = sum_zlib};
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("sse4.2"))
        c.sum = sum_crc32c;
#endif
    c.mem = gguf__malloc(BUF_BYTES + 4096);
    if (c.mem == NULL)
        return GGUF_ENOMEM;
    c.buf = c.mem + (4096 - (uintptr_t)c.mem % 4096) % 4096; /* whole pages to the page cache */
    int rc = produce(&c, ctx);
    if (rc == 0)
        (void)drain(&c); /* a failure is in c.werr */
    *write_errno = c.werr;
    gguf__free(c.mem);
    return rc;
}
