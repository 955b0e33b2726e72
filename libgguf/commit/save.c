/* Saving a file atomically: the bytes go to a temporary file beside the target, which is
 * fsync'd, proven, checked to be still the file that was read (for an edit), renamed over the
 * target, and the folder fsync'd. An interruption at any point leaves the old file.
 *
 * The proof, without a second read of the whole output:
 *  - every range of source bytes copied (base/copy.c) was checksummed as it was read from the
 *    source and again once written from the same buffer: the two must be equal (memory that
 *    changed in between shows here);
 *  - the header region is read back from the storage (O_DIRECT: past the page cache) and must
 *    have the crc32 of the region written; parsed on its own, it must list the source's
 *    tensors with their names, types and sizes, each placed where the copy put the source
 *    tensor's bytes: every byte of a tensor in the output came from the same byte of that
 *    tensor in the source (by the log of copied ranges, not by the writer's word);
 *  - a sample of the copied output, read back from the storage after the fsync, equals a fresh
 *    read of the source: every range when the copy is small (SAMPLE_ALL), else about one block
 *    in SAMPLE_ONE_IN chosen at random per save, and the first and last block. Where the
 *    filesystem has no O_DIRECT (tmpfs: the page cache is its storage) the reads go through the
 *    page cache, the file's clean pages dropped first.
 * Blocks the kernel cloned (a reflink: the files share them) are the same bytes by
 * construction. Tensor bytes that came another way (a byte-order conversion, a fill callback)
 * are compared by their crc32s, the output opened and read whole. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define SAMPLE_BLOCK ((uint64_t)1 << 20)
#define SAMPLE_ALL ((uint64_t)64 << 20)
#define SAMPLE_ONE_IN 64
#define ALIGN GGUF__IO_DIRECT_ALIGN

/* ---- the log of copied ranges, in output order ---- */

typedef struct copy_log {
    gguf__piece *p;     /* adjacent ranges merged */
    size_t n, cap;
    bool nomem;
    bool changed;       /* a range whose checksums differ: the first in `bad` */
    gguf__piece bad;
    uint64_t copied, cloned;
} copy_log;

static void log_piece(void *user, const gguf__piece *p) {
    copy_log *l = user;
    if (p->cloned) {
        l->cloned += p->n;
    } else {
        l->copied += p->n;
        if (p->read_sum != p->written_sum && !l->changed) {
            l->changed = true;
            l->bad = *p;
        }
    }
    gguf__piece *last = l->n > 0 ? &l->p[l->n - 1] : NULL;
    if (last != NULL && last->cloned == p->cloned && last->src + last->n == p->src &&
        last->dst + last->n == p->dst) {
        last->n += p->n;
        return;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        gguf__piece *q = gguf__realloc(l->p, cap * sizeof *q);
        if (q == NULL) {
            l->nomem = true;
            return;
        }
        l->p = q;
        l->cap = cap;
    }
    l->p[l->n++] = *p;
}

/* The logged range holding output byte `dst`, or NULL. */
static const gguf__piece *log_find(const copy_log *l, uint64_t dst) {
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->p[mid].dst + l->p[mid].n <= dst)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->p[lo].dst <= dst ? &l->p[lo] : NULL;
}

/* ---- reading the output back from the storage ---- */

typedef struct readback {
    int fd;
    uint8_t *mem, *buf; /* buf: ALIGN-aligned, SAMPLE_BLOCK + 2 * ALIGN bytes */
    uint8_t *src;       /* SAMPLE_BLOCK bytes of the source */
} readback;

/* Output bytes [at, at + n) (n <= SAMPLE_BLOCK) into *out, read in whole aligned blocks. */
static int read_back(const readback *r, const uint8_t **out, uint64_t at, size_t n) {
    uint64_t start = at / ALIGN * ALIGN, end = (at + n + ALIGN - 1) / ALIGN * ALIGN;
    size_t got = 0;
    if (gguf__io_pread_upto(r->fd, r->buf, (size_t)(end - start), start, &got) != 0)
        return -1;
    if (got < at + n - start) {
        errno = ENODATA;
        return -1;
    }
    *out = r->buf + (at - start);
    return 0;
}

/* The header region [0, data_offset) read back (a buffer of its own: *mem to free). */
static int read_header(uint8_t **mem, const uint8_t **region, int fd, uint64_t len,
                       gguf_error *err) {
    uint64_t whole = (len + ALIGN - 1) / ALIGN * ALIGN;
    *mem = whole + ALIGN <= SIZE_MAX ? gguf__malloc((size_t)whole + ALIGN) : NULL;
    if (*mem == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    uint8_t *b = *mem + (ALIGN - (uintptr_t)*mem % ALIGN) % ALIGN;
    size_t got = 0;
    if (gguf__io_pread_upto(fd, b, (size_t)whole, 0, &got) != 0 || got < len) {
        if (errno == 0 || got < len)
            errno = ENODATA;
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                          "check failed: reading the header back: %s",
                          gguf__io_strerror(errno));
    }
    *region = b;
    return 0;
}

/* Every byte of each tensor in the output (back: its header read back) came from the same
 * byte of the tensor in the source, by the log. */
static int check_placement(const gguf_file *f, const gguf_file *back, const copy_log *l,
                           gguf_error *err) {
    char q[96];
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *a = &f->tensors[i], *b = &back->tensors[i];
        if (a->nbytes == GGUF_NBYTES_UNKNOWN || a->src_offset == GGUF__NO_SOURCE)
            continue;
        for (uint64_t k = 0; k < a->nbytes;) {
            const gguf__piece *p = log_find(l, b->src_offset + k);
            if (p == NULL || p->src + (b->src_offset + k - p->dst) != a->src_offset + k)
                return gguf__fail(err, GGUF_ECORRUPT, b->src_offset + k,
                                  "check failed: byte %llu of tensor '%s' in the output was "
                                  "not copied from its byte in the source",
                                  (unsigned long long)k,
                                  gguf__quote(q, sizeof q, a->name, (size_t)a->name_len));
            k += p->dst + p->n - (b->src_offset + k);
        }
    }
    return 0;
}

/* A sample of the copied ranges (all of them for a small copy) read back from the storage
 * and compared with the source read again. */
static int check_sample(const gguf_file *f, const readback *r, const copy_log *l,
                        gguf_error *err) {
    bool all = l->copied <= SAMPLE_ALL;
    uint64_t seed = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!l->p[i].cloned && l->p[i].n > 0) {
            first = first < l->p[i].dst ? first : l->p[i].dst;
            last = l->p[i].dst + l->p[i].n - 1;
        }
    }
    for (size_t i = 0; i < l->n; i++) {
        const gguf__piece *p = &l->p[i];
        for (uint64_t at = p->dst; !p->cloned && at < p->dst + p->n;) {
            /* one block of the output at a time */
            uint64_t block = at / SAMPLE_BLOCK;
            uint64_t end = (block + 1) * SAMPLE_BLOCK;
            end = end < p->dst + p->n ? end : p->dst + p->n;
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            bool take = all || block == first / SAMPLE_BLOCK || block == last / SAMPLE_BLOCK ||
                        seed % SAMPLE_ONE_IN == 0;
            size_t n = (size_t)(end - at);
            const uint8_t *out;
            if (take && read_back(r, &out, at, n) != 0)
                return gguf__fail(err, GGUF_EIO, at, "check failed: reading back: %s",
                                  gguf__io_strerror(errno));
            if (take) {
                int rc = gguf__file_read(f, r->src, n, p->src + (at - p->dst), err);
                if (rc != 0)
                    return rc;
                if (memcmp(out, r->src, n) != 0) {
                    size_t k = 0;
                    while (out[k] == r->src[k])
                        k++;
                    return gguf__fail(err, GGUF_ECORRUPT, at + k,
                                      "check failed: byte %llu of the output, read back from "
                                      "the disk, differs from the source's",
                                      (unsigned long long)(at + k));
                }
            }
            at = end;
        }
    }
    return 0;
}

/* The proof of an output whose every source byte was copied or cloned (see the top). */
static int prove_copied(const gguf_file *f, const char *tmp, const gguf__write_ctl *ctl,
                        const copy_log *l, gguf_error *err) {
    if (l->changed)
        return gguf__fail(err, GGUF_ECORRUPT, l->bad.dst,
                          "check failed: bytes %llu..%llu of the output changed in memory "
                          "between their read from the source and their write",
                          (unsigned long long)l->bad.dst,
                          (unsigned long long)(l->bad.dst + l->bad.n));
    if (l->nomem)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    bool direct;
    readback r = {.fd = gguf__io_open_direct(tmp, &direct)};
    struct stat st;
    if (r.fd < 0 || fstat(r.fd, &st) != 0) {
        int rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "check failed: cannot open the output to read it back: %s",
                            gguf__io_strerror(errno));
        if (r.fd >= 0)
            close(r.fd);
        return rc;
    }
    uint8_t *hmem = NULL;
    const uint8_t *region = NULL;
    gguf_file *back = NULL;
    int rc = read_header(&hmem, &region, r.fd, ctl->data_offset, err);
    uLong crc = rc == 0 ? crc32_z(0, region, (size_t)ctl->data_offset) : 0;
    if (rc == 0 && (uint32_t)crc != ctl->header_crc)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "check failed: the header read back from the disk has crc32 %08x, not "
                        "the %08x written", (uint32_t)crc, ctl->header_crc);
    if (rc == 0)
        rc = gguf__open_header(&back, region, (size_t)ctl->data_offset, (uint64_t)st.st_size,
                               f->flags & (GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES |
                                           GGUF_OPEN_FORCE_BIG | GGUF_OPEN_FORCE_LITTLE),
                               err);
    if (rc == 0)
        rc = gguf__verify_output(f, back, false, err);
    if (rc == 0)
        rc = check_placement(f, back, l, err);
    r.mem = rc == 0 ? gguf__malloc(SAMPLE_BLOCK + 3 * ALIGN) : NULL;
    r.src = rc == 0 ? gguf__malloc(SAMPLE_BLOCK) : NULL;
    if (rc == 0 && (r.mem == NULL || r.src == NULL))
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0) {
        r.buf = r.mem + (ALIGN - (uintptr_t)r.mem % ALIGN) % ALIGN;
        rc = check_sample(f, &r, l, err);
    }
    gguf_file_free(back);
    gguf__free(hmem);
    gguf__free(r.mem);
    gguf__free(r.src);
    close(r.fd);
    return rc;
}

/* The proof of an output with tensor bytes that were not copied: read whole, crc32s. */
static int prove_read(const gguf_file *f, const char *tmp, const gguf__write_ctl *ctl,
                      gguf_error *err) {
    gguf_file *back = NULL;
    int rc = gguf_file_open(&back, tmp, f->flags & (GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES),
                            err);
    uint32_t crc = 0;
    if (rc == 0)
        rc = gguf__crc_range(&crc, back, 0, back->data_offset, err);
    if (rc == 0 && crc != ctl->header_crc)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "check failed: the header read back has crc32 %08x, not the %08x written",
                        crc, ctl->header_crc);
    if (rc == 0)
        rc = gguf__verify_output(f, back, true, err);
    gguf_file_free(back);
    return rc;
}

int gguf__save(const gguf_file *f, const char *path, const gguf_write_options *opt,
               int64_t padding, const gguf__identity *expect, uint64_t *cloned,
               gguf_error *err) {
    /* an edit writes back over its own file (update.c); any other save never does */
    int rc = gguf_output_check(path, expect != NULL ? NULL : f, err);
    if (rc != 0)
        return rc;
    gguf__temp_sweep(path);
    char *tmp = NULL;
    int fd = gguf__temp_create(&tmp, path, ".tmp", err);
    if (fd < 0)
        return fd;
    gguf__test_pause("temp-created");
    bool swapped = opt != NULL && opt->endian >= 0 && (opt->endian == GGUF_ENDIAN_BIG) != f->big;
    bool verify = opt != NULL && opt->verify && !swapped;
    gguf__write_ctl ctl = {.padding = padding, .replaces_source = expect != NULL};
    copy_log log = {0};
    if (verify) {
        ctl.piece = log_piece;
        ctl.piece_user = &log;
    }
    rc = gguf__write_fd(fd, tmp, f, opt, &ctl, err);
    if (rc == 0)
        gguf__test_pause("written");
    if (rc == 0 && gguf__io_fsync(fd) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "fsync of %s failed: %s", tmp,
                        gguf__io_strerror(errno));
    if (rc == 0)
        gguf__test_pause("synced");
    if (rc == 0 && verify)
        rc = ctl.all_copied ? prove_copied(f, tmp, &ctl, &log, err) : prove_read(f, tmp, &ctl, err);
    gguf__free(log.p);
    /* the output is written and proven, the target not yet checked nor replaced */
    if (rc == 0)
        gguf__test_pause("save-proven");
    if (rc == 0 && expect != NULL && expect->set)
        rc = gguf__identity_check(path, expect, err);
    if (rc == 0)
        gguf__test_pause("renaming");
    if (rc == 0 && gguf__temp_rename(tmp, path) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot rename %s over it: %s", tmp,
                        gguf__io_strerror(errno));
    if (rc != 0) {
        gguf__temp_discard(tmp);
    } else {
        gguf__test_pause("renamed");
        (void)gguf__io_sync_dir(path); /* the rename is done; a failed folder sync cannot undo it */
        gguf__test_pause("folder-synced");
    }
    if (rc == 0 && cloned != NULL)
        *cloned = log.cloned;
    /* closed last: the lock on the temporary file keeps sweeps away until it has its name
     * (its bytes were fsync'd, so a failing close loses nothing) */
    close(fd);
    gguf__free(tmp);
    gguf__fail_path(err, path);
    return rc;
}

int gguf_file_save(const gguf_file *f, const char *path, const gguf_write_options *opt,
                   gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to save");
    gguf_write_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_write_options, GGUF_WRITE_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    return gguf__save(f, path, &o, GGUF__PAD_KEEP, NULL, NULL, err);
}
