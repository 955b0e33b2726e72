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
 * on a machine whose cores are busy.
 *
 * Direct writes. In a copy into a new file of DIRECT_MIN bytes or more (gguf__copier_direct),
 * full buffers go to the storage directly, past the page cache: up to SLOTS of them in flight
 * at once (Linux AIO on O_DIRECT), each refilled once its write has ended. The device
 * reads the buffer itself, so the second copy (buffer to page cache) and the page cache's own
 * work for the new file (allocating pages, delayed allocation of blocks, building the
 * writeback) are gone: on ext4 that was more than half of a rewrite's CPU time, and a 2 GiB
 * copy with its checksums took 0.7 times a cp and fsync. The file's blocks are allocated
 * ahead of the writes (ext4 runs a write that grows the file one at a time), in steps that
 * double up to AHEAD_MAX, and the file is cut back to its end afterwards. A range's checksum
 * as written is taken once its write has ended, from the buffer the device read. What cannot
 * go direct (a file or filesystem without it, a failed allocation) goes through the page
 * cache as before, from that point on; so does a flush's last part block (before a clone, or
 * at the end), and the next full buffer goes direct again, its head up to a block boundary
 * through the page cache. The AIO context lives as long as the copy: setting one up and
 * tearing it down costs about 30 ms (the kernel waits out RCU grace periods), which a copy
 * under DIRECT_MIN does not win back: on ext4, a rewrite of 128 MiB took 30 ms longer direct,
 * one of 256 MiB as long either way, one of 512 MiB a quarter less. */
#define _GNU_SOURCE
#include "base/base.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BUF_BYTES ((size_t)256 << 10)
#define BUF_PIECES 64
#define WINDOW ((uint64_t)32 << 20)
#define LAG 8
#define SLOTS 32
#define DIRECT_MIN ((uint64_t)512 << 20)
#define AHEAD_FIRST ((uint64_t)64 << 20)
#define AHEAD_MAX ((uint64_t)1 << 30)
#define ALIGN GGUF__IO_DIRECT_ALIGN

#ifdef GGUF_ALLOC_FAULTS
/* The testing build: direct writes for outputs of n bytes or more, so that small files sweep
 * them. */
static uint64_t direct_min = DIRECT_MIN;
GGUF_API void gguf_testing_direct_writes_from(uint64_t n);
void gguf_testing_direct_writes_from(uint64_t n) {
    direct_min = n;
}
#else
#define direct_min DIRECT_MIN
#endif

/* A buffer of the ring, written directly: its bytes, where they go, the ranges in it. */
typedef struct slot {
    uint8_t *buf;
    size_t len;
    uint64_t at;
    gguf__piece pieces[BUF_PIECES];
    size_t n_pieces;
} slot;

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
    /* direct writes */
    bool may_direct;      /* asked for (gguf__copier_direct) and not found impossible */
    gguf__aio *aio;       /* the AIO context, once direct writes began */
    bool on;              /* direct writes on: buf is ring[next].buf */
    slot *ring;           /* SLOTS, allocated on first use */
    uint8_t *ring_mem;
    unsigned next, oldest, in_flight;
    uint64_t size0;       /* the file's size when direct writes began */
    uint64_t alloc_end;   /* blocks allocated up to here */
    uint64_t ahead;       /* the next allocation's step */
    uint8_t *own_buf;     /* the buffer of writes through the page cache */
    bool direct_wrote;    /* a direct write was accepted */
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

/* The queued ranges split at buf[cut]: those before it to head (*n_head), those after to rest
 * (*n_rest). A range across the cut becomes two, whose checksums as read are taken again:
 * the whole range's first, which must still equal the one taken at its read (else the first
 * part's is made to differ, so that the observer sees the change). */
static void split_pieces(const gguf__copier *c, size_t cut, gguf__piece *head, size_t *n_head,
                         gguf__piece *rest, size_t *n_rest) {
    uint64_t end = c->at + cut;
    *n_head = *n_rest = 0;
    for (size_t i = 0; i < c->n_pieces; i++) {
        gguf__piece p = c->pieces[i];
        if (p.dst + p.n <= end) {
            head[(*n_head)++] = p;
        } else if (p.dst >= end) {
            rest[(*n_rest)++] = p;
        } else {
            const uint8_t *at = c->buf + (p.dst - c->at);
            uint64_t k = end - p.dst;
            gguf__piece a = p, b = p;
            a.n = k;
            b.src += k;
            b.dst += k;
            b.n -= k;
            if (c->piece != NULL) {
                bool same = c->sum(at, (size_t)p.n) == p.read_sum;
                a.read_sum = c->sum(at, (size_t)k) + (same ? 0 : 1);
                b.read_sum = c->sum(at + k, (size_t)b.n);
            }
            head[(*n_head)++] = a;
            rest[(*n_rest)++] = b;
        }
    }
}

/* Tells the observer of ranges written from buf (placed at output offset at). */
static void tell(gguf__copier *c, const uint8_t *buf, uint64_t at, gguf__piece *p, size_t n) {
    for (size_t i = 0; c->piece != NULL && i < n; i++) {
        p[i].written_sum = c->sum(buf + (p[i].dst - at), (size_t)p[i].n);
        c->piece(c->user, &p[i]);
    }
}

/* Writes what buf holds through the page cache, tells the observer its ranges, and moves the
 * writeback along. */
static int drain_cached(gguf__copier *c) {
    if (gguf__io_write(c->fd, c->buf, c->len) != 0)
        return failed(c, errno);
    tell(c, c->buf, c->at, c->pieces, c->n_pieces);
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

/* ---- direct writes ---- */

/* The oldest write in flight has ended: its ranges go to the observer, its slot is free. */
static void retire(gguf__copier *c) {
    slot *s = &c->ring[c->oldest];
    if (gguf__io_aio_wait(c->aio, c->oldest) != 0)
        (void)failed(c, errno);
    if (c->werr == 0)
        tell(c, s->buf, s->at, s->pieces, s->n_pieces);
    c->oldest = (c->oldest + 1) % SLOTS;
    c->in_flight--;
}

/* Blocks allocated up to at least `end`: false where they cannot be. */
static bool allocate_to(gguf__copier *c, uint64_t end) {
    if (end <= c->alloc_end)
        return true;
    uint64_t to = c->alloc_end + c->ahead;
    to = to < end ? end : to;
    if (gguf__io_preallocate(c->fd, c->alloc_end, to - c->alloc_end) != 0)
        return false;
    c->alloc_end = to;
    c->ahead = c->ahead < AHEAD_MAX ? 2 * c->ahead : AHEAD_MAX;
    return true;
}

/* Turns direct writes on, where the file allows: the queued bytes up to the next block
 * boundary go through the page cache first, the rest to the ring's first buffer. */
static void direct_start(gguf__copier *c) {
    if (c->ring == NULL) {
        c->ring_mem = gguf__malloc(SLOTS * BUF_BYTES + ALIGN);
        c->ring = gguf__calloc(SLOTS, sizeof *c->ring);
        if (c->ring_mem == NULL || c->ring == NULL) {
            c->may_direct = false;
            return;
        }
        uint8_t *b = c->ring_mem + (ALIGN - (uintptr_t)c->ring_mem % ALIGN) % ALIGN;
        for (unsigned i = 0; i < SLOTS; i++)
            c->ring[i].buf = b + (size_t)i * BUF_BYTES;
    }
    size_t k = (size_t)((ALIGN - c->at % ALIGN) % ALIGN);
    if (k > 0) {
        gguf__piece head[BUF_PIECES], rest[BUF_PIECES];
        size_t n_head, n_rest;
        split_pieces(c, k, head, &n_head, rest, &n_rest);
        if (gguf__io_write(c->fd, c->buf, k) != 0) {
            (void)failed(c, errno);
            return;
        }
        tell(c, c->buf, c->at, head, n_head);
        memcpy(c->pieces, rest, n_rest * sizeof *rest);
        c->n_pieces = n_rest;
        memmove(c->buf, c->buf + k, c->len - k);
        c->at += k;
        c->len -= k;
    }
    if (c->aio == NULL) {
        struct stat st;
        if (fstat(c->fd, &st) != 0 || (c->aio = gguf__io_aio_open(c->fd, SLOTS)) == NULL) {
            c->may_direct = false;
            return;
        }
        c->size0 = (uint64_t)st.st_size;
        c->ahead = AHEAD_FIRST;
    } else if (gguf__io_aio_direct(c->aio, true) != 0) {
        c->may_direct = false;
        return;
    }
    c->alloc_end = c->alloc_end > c->at ? c->alloc_end : c->at;
    c->on = true;
    c->next = c->oldest = c->in_flight = 0;
    c->direct_wrote = false;
    memcpy(c->ring[0].buf, c->buf, c->len);
    c->buf = c->ring[0].buf;
}

/* Every direct write waited for, and writes through the page cache from here on (the bytes
 * queued move to their buffer). */
static void direct_stop(gguf__copier *c) {
    while (c->in_flight > 0)
        retire(c);
    c->on = false;
    if (gguf__io_aio_direct(c->aio, false) != 0 || lseek(c->fd, (off_t)c->at, SEEK_SET) < 0)
        (void)failed(c, errno);
    memcpy(c->own_buf, c->buf, c->len);
    c->buf = c->own_buf;
    c->kicked = c->waited = c->at;
}

/* Writes buf's whole blocks directly; the rest (under a block) moves to the next buffer. */
static int drain_direct(gguf__copier *c) {
    size_t cut = c->len / ALIGN * ALIGN;
    if (cut == 0)
        return 0;
    if (!allocate_to(c, c->at + cut)) {
        c->may_direct = false;
        return 0;
    }
    slot *s = &c->ring[c->next];
    gguf__piece rest[BUF_PIECES];
    size_t n_rest;
    split_pieces(c, cut, s->pieces, &s->n_pieces, rest, &n_rest);
    s->len = cut;
    s->at = c->at;
    if (gguf__io_aio_write(c->aio, c->next, s->buf, cut, c->at) != 0) {
        if (errno == EINVAL && !c->direct_wrote) { /* not at this alignment: not here */
            c->may_direct = false;
            return 0;
        }
        return failed(c, errno);
    }
    c->direct_wrote = true;
    c->in_flight++;
    c->next = (c->next + 1) % SLOTS;
    if (c->in_flight == SLOTS)
        retire(c);
    uint8_t *b = c->ring[c->next].buf;
    memcpy(b, s->buf + cut, c->len - cut);
    memcpy(c->pieces, rest, n_rest * sizeof *rest);
    c->n_pieces = n_rest;
    c->buf = b;
    c->at += cut;
    c->len -= cut;
    return c->werr != 0 ? failed(c, c->werr) : 0;
}

/* Writes what buf holds: directly where it can (all: down to the last byte, else the whole
 * blocks of a full buffer), else through the page cache. */
static int drain(gguf__copier *c, bool all) {
    if (c->werr != 0) {
        errno = c->werr;
        return -1;
    }
    if (c->len == 0)
        return 0;
    if (!c->on && c->may_direct && !all && c->len == BUF_BYTES)
        direct_start(c);
    if (c->on && c->may_direct && drain_direct(c) != 0)
        return -1;
    if (c->on && (all || !c->may_direct || c->n_pieces == BUF_PIECES))
        direct_stop(c);
    if (c->werr != 0)
        return failed(c, c->werr);
    if (c->on || c->len == 0)
        return 0;
    return drain_cached(c);
}

int gguf__copier_bytes(gguf__copier *c, const void *p, uint64_t n) {
    const uint8_t *b = p;
    while (n > 0) {
        if (c->len == BUF_BYTES && drain(c, false) != 0)
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
        if ((c->len == BUF_BYTES || c->n_pieces == BUF_PIECES) && drain(c, false) != 0)
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
    return drain(c, true);
}

void gguf__copier_drop_read(gguf__copier *c) {
    c->drop_read = true;
}

void gguf__copier_direct(gguf__copier *c, uint64_t size) {
    c->may_direct = size >= direct_min;
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
    c.own_buf = c.buf;
    int rc = produce(&c, ctx);
    if (rc == 0)
        (void)drain(&c, true); /* a failure is in c.werr */
    if (c.on) /* after a failure: the device may still be reading the buffers */
        direct_stop(&c);
    gguf__io_aio_close(c.aio);
    /* blocks allocated ahead of the end given back */
    uint64_t end = c.at > c.size0 ? c.at : c.size0;
    if (rc == 0 && c.werr == 0 && c.alloc_end > end && gguf__io_truncate(fd, end) != 0)
        (void)failed(&c, errno);
    *write_errno = c.werr;
    gguf__free(c.ring_mem);
    gguf__free(c.ring);
    gguf__free(c.mem);
    return rc;
}
