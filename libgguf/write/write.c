/* gguf_file -> bytes. The layout of the source is kept: the same relative tensor offsets, and
 * the bytes between the tensor infos and the data, between tensors and after the last one are
 * copied as they are, so an unchanged file is written back byte for byte. Files are written
 * atomically: temporary file in the target's directory, fsync, rename, fsync of the directory. */
#define _GNU_SOURCE
#include "write/write.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---- the output plan ---- */

/* What to write: the header, padding up to the data offset (the source's padding bytes when the
 * header kept its size, else zeros), then the tensor data: with the kept layout, the source's
 * data region as it is (tensors byte-swapped when the byte order changes, everything else
 * verbatim); with the packed layout, each tensor at its new offset with zero padding. */
typedef struct plan {
    gguf__sink header;
    uint64_t data_offset;   /* in the output */
    const uint8_t *pad_src; /* NULL: zero padding */
    uint64_t pad_len;
    bool swap;              /* tensor data changes byte order */
    bool packed;
    uint64_t *offsets;      /* packed: the new offsets (relative to data_offset) */
    uint64_t data_len;      /* packed: bytes after data_offset */
} plan;

static void plan_free(plan *p) {
    gguf__buf_free(&p->header.b);
    gguf__free(p->offsets);
    p->offsets = NULL;
}

int gguf__packed_offsets(uint64_t **out, uint64_t *end, const gguf_file *f, gguf_error *err) {
    uint64_t *o = gguf__malloc((f->n_tensors ? f->n_tensors : 1) * sizeof *o);
    if (o == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    uint64_t at = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        char q[96];
        o[i] = at;
        if (t->nbytes == GGUF_NBYTES_UNKNOWN)
            rc = gguf__fail(err, GGUF_EUNSUPPORTED, t->info_offset,
                            "tensor '%s': unknown type id %u, its size is unknown: cannot lay it out again",
                            gguf__quote(q, sizeof q, t->name, (size_t)t->name_len), t->type);
        else if (!gguf__add_u64(&at, at, t->nbytes) || !gguf__align_up(&at, at, f->alignment))
            rc = gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "tensor data exceeds 2^64 bytes");
    }
    if (rc != 0) {
        gguf__free(o);
        return rc;
    }
    *out = o;
    *end = at;
    return 0;
}

uint64_t gguf__grow_step(uint32_t alignment, uint64_t block) {
    uint64_t a = block, b = alignment; /* lcm(block, alignment) */
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return block / a * alignment;
}

/* The padding that keeps `reserve` bytes of room: the header then ends exactly at the data
 * offset. In the kept layout of the same format, the data moves by whole steps (filesystem
 * blocks), so that the kernel can clone the data instead of copying it; else the data starts
 * at the next multiple of the alignment. */
static int reserve_padding(int64_t *padding, const gguf_file *f, uint32_t version, bool big,
                           const uint64_t *offsets, bool same_layout, uint64_t reserve,
                           gguf_error *err) {
    gguf__sink h = {0};
    int rc = gguf__header_serialize(&h, f, version, big, offsets, GGUF__PAD_DROP, err);
    uint64_t need = h.b.len + gguf__padding_overhead(version >= 2), end = 0;
    gguf__buf_free(&h.b);
    if (rc != 0)
        return rc;
    bool ok = gguf__add_u64(&need, need, reserve);
    if (ok && same_layout) {
        uint64_t step = gguf__grow_step(f->alignment, 4096);
        end = f->data_offset;
        if (need > end) {
            uint64_t k = (need - end + step - 1) / step;
            ok = gguf__mul_u64(&k, k, step) && gguf__add_u64(&end, end, k);
        }
    } else if (ok) {
        ok = gguf__align_up(&end, need, f->alignment);
    }
    if (!ok || end - need + reserve > (uint64_t)INT64_MAX)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "a reserve of %llu bytes makes the header too large",
                          (unsigned long long)reserve);
    *padding = (int64_t)(end - need + reserve);
    return 0;
}

static int plan_of(plan *p, const gguf_file *f, const gguf_write_options *opt,
                   int64_t padding, gguf_error *err);

/* A plan, or an error about f (a tensor it cannot convert, ...), which names f's file. */
static int make_plan(plan *p, const gguf_file *f, const gguf_write_options *opt,
                     int64_t padding, gguf_error *err) {
    int rc = plan_of(p, f, opt, padding, err);
    if (rc != 0 && f->src != NULL)
        gguf__fail_path(err, f->src->name);
    return rc;
}

static int plan_of(plan *p, const gguf_file *f, const gguf_write_options *opt,
                   int64_t padding, gguf_error *err) {
    uint32_t version = opt && opt->version ? opt->version : f->version;
    bool big = opt && opt->endian >= 0 ? opt->endian == GGUF_ENDIAN_BIG : f->big;
    memset(p, 0, sizeof *p);
    int complete = gguf__file_complete(f, err);
    if (complete != 0)
        return complete;
    if (version < 1 || version > 3)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "cannot write GGUF version %u",
                          version);
    /* big-endian files exist from v3 on; an older big-endian file (which the reader accepts) is
     * only written to reproduce itself */
    if (big && version < 3 && !(f->big && version == f->version))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "big-endian files exist only from GGUF v3 on; write version 3");
    p->swap = big != f->big;
    p->packed = f->must_pack || (opt && opt->layout == GGUF_LAYOUT_PACKED);
    for (size_t i = 0; p->swap && i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        if (t->src_offset == GGUF__NO_SOURCE)
            continue; /* filled in the output's byte order */
        if (t->nbytes == GGUF_NBYTES_UNKNOWN || gguf__byteswap_blocks(t->type, NULL, 0) != 0) {
            char q[96];
            const char *qn = gguf__quote(q, sizeof q, t->name, (size_t)t->name_len);
            const char *name = gguf_dtype_name(t->type);
            if (name == NULL)
                return gguf__fail(err, GGUF_EUNSUPPORTED, t->info_offset,
                                  "tensor '%s': unknown type id %u: cannot convert its byte order",
                                  qn, t->type);
            return gguf__fail(err, GGUF_EUNSUPPORTED, t->info_offset,
                              "tensor '%s': cannot convert the byte order of type %s (id %u)", qn,
                              name, t->type);
        }
    }
    int rc = p->packed ? gguf__packed_offsets(&p->offsets, &p->data_len, f, err) : 0;
    if (rc == 0 && padding == GGUF__PAD_KEEP && opt != NULL && opt->reserve > 0)
        rc = reserve_padding(&padding, f, version, big, p->offsets,
                             !p->packed && version == f->version && !p->swap, opt->reserve, err);
    if (rc == 0)
        rc = gguf__header_serialize(&p->header, f, version, big, p->offsets, padding, err);
    if (rc != 0) {
        plan_free(p);
        return rc;
    }
    uint64_t hlen = p->header.b.len;
    p->data_offset = hlen;
    /* ggml pads even a tensor-less file to the alignment; the kept layout keeps what was there */
    bool align = f->n_tensors > 0 || p->packed;
    if (align && !gguf__align_up(&p->data_offset, hlen, f->alignment)) {
        plan_free(p);
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "header too large");
    }
    p->pad_len = p->data_offset - hlen;
    if (!p->packed && hlen == f->header_end && p->data_offset == f->data_offset)
        p->pad_src = f->head + f->header_end;
    return 0;
}

/* ---- output: a file descriptor (through the copy engine, base/copy.c) or a memory sink ---- */

#define CHUNK ((size_t)16 << 20)
#define COPY_CHUNK ((uint64_t)64 << 20)
#define SWAP_CHUNK ((size_t)1 << 20)

typedef struct output {
    gguf__copier *cp;  /* NULL: memory */
    int fd;
    gguf__buf *mem;
    const char *path;  /* for messages */
    const gguf_write_options *opt;
    uint64_t done;     /* tensor bytes written, for progress */
    uint64_t total;
    uint8_t *buf;      /* CHUNK bytes, for byte-order conversion */
    gguf__pool *pool;  /* threads for byte-order conversion, or NULL */
    gguf__write_ctl *ctl; /* may be NULL */
    bool clone;        /* try to clone whole blocks (until the filesystem says it cannot) */
} output;

/* Source bytes that reach the output another way than a copy: no observer saw them. */
static void not_copied(output *o) {
    if (o->ctl != NULL)
        o->ctl->all_copied = false;
}

static int out_bytes(output *o, const void *p, uint64_t n, gguf_error *err) {
    if (o->cp != NULL)
        return gguf__copier_bytes(o->cp, p, n) == 0 ? 0 : gguf__io_fail(err, o->path, "write");
    if (p == NULL)
        gguf__buf_zeros(o->mem, (size_t)n);
    else
        gguf__buf_add(o->mem, p, (size_t)n);
    return o->mem->failed ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                                       "out of memory for the output")
                          : 0;
}

static int out_zeros(output *o, uint64_t n, gguf_error *err) {
    return out_bytes(o, NULL, n, err);
}

static void progress(output *o, uint64_t n) {
    gguf__test_pause("data-written");
    o->done += n;
    if (o->opt != NULL && o->opt->progress != NULL)
        o->opt->progress(o->opt->progress_user, o->done, o->total);
}

/* The whole blocks of source bytes [*at, end) (source offset `tag` at *at) cloned where the
 * filesystem can: the output then shares them, nothing is copied. Moves *at past them. */
static void out_clone(output *o, int in, uint64_t *at, uint64_t end, uint64_t tag) {
    const uint64_t block = 4096;
    uint64_t first = (*at + block - 1) / block * block, last = end / block * block;
    uint64_t pos = gguf__copier_pos(o->cp) + (first - *at);
    if (!o->clone || *at % block != gguf__copier_pos(o->cp) % block || first >= last)
        return;
    /* the head, up to the first whole block, then everything written: the clone goes after */
    if (gguf__copier_copy(o->cp, in, *at, first - *at, tag) != 0 || gguf__copier_flush(o->cp) != 0)
        return; /* the copy below meets the failure again and reports it */
    progress(o, first - *at);
    tag += first - *at;
    *at = first;
    if (gguf__io_clone(in, first, o->fd, pos, last - first) != 0 ||
        lseek(o->fd, (off_t)(pos + (last - first)), SEEK_SET) < 0) {
        o->clone = false; /* not here: copy from now on */
        return;
    }
    gguf__copier_skip(o->cp, last - first);
    if (o->ctl != NULL && o->ctl->piece != NULL) {
        gguf__piece p = {.src = tag, .dst = pos, .n = last - first, .cloned = true};
        o->ctl->piece(o->ctl->piece_user, &p);
    }
    progress(o, last - first);
    *at = last;
}

/* Source bytes [start, end) of the file in (source offset `tag` at start) to the output: the
 * whole blocks cloned where the filesystem can, the rest copied by the engine, in pieces of
 * COPY_CHUNK, each a moment for progress (and for tests to interrupt at). */
static int out_copy(output *o, int in, uint64_t start, uint64_t end, uint64_t tag,
                    gguf_error *err) {
    uint64_t at = start;
    out_clone(o, in, &at, end, tag);
    while (at < end) {
        uint64_t k = end - at < COPY_CHUNK ? end - at : COPY_CHUNK;
        if (gguf__copier_copy(o->cp, in, at, k, tag + (at - start)) != 0) {
            if (gguf__copier_write_failed(o->cp))
                return gguf__io_fail(err, o->path, "write");
            return gguf__fail(err, GGUF_EIO, at, "%s: copying bytes %llu..%llu failed: %s",
                              o->path, (unsigned long long)at, (unsigned long long)(at + k),
                              gguf__io_strerror(errno));
        }
        progress(o, k);
        at += k;
    }
    return 0;
}

/* Copies source bytes [start, end) as they are: by the copy engine (or a reflink where the
 * filesystem can) when both ends are files, else through memory. A source is read, never
 * used through its mapping, so that a file truncated under us gives an error, not SIGBUS. */
static int out_source(output *o, const gguf_file *f, uint64_t start, uint64_t end,
                      gguf_error *err) {
    if (start >= end)
        return 0;
    uint64_t n = end - start;
    int rc = 0;
    /* the file that holds the bytes: the source, or one shard of a split set */
    const gguf__source *src = NULL;
    uint64_t leaf_at = start;
    if (f->src != NULL && !gguf__source_locate(f->src, start, n, &src, &leaf_at))
        src = NULL; /* outside the source: the read below says so */
    if (o->cp != NULL && src != NULL && src->fd >= 0 && src->mem == NULL)
        return out_copy(o, src->fd, leaf_at, leaf_at + n, start, err);
    not_copied(o);
    if (src != NULL && src->mem != NULL) {
        rc = out_bytes(o, src->mem + leaf_at, n, err);
    } else if (o->cp == NULL) {
        size_t at = o->mem->len;
        gguf__buf_zeros(o->mem, (size_t)n);
        if (o->mem->failed)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for the output");
        else
            rc = gguf__file_read(f, o->mem->data + at, (size_t)n, start, err);
    } else {
        uint8_t *buf = gguf__malloc(n < CHUNK ? (size_t)n : CHUNK);
        if (buf == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        if (src != NULL && n > CHUNK) /* a remote source fetches the range in one request */
            gguf__source_will_read(f->src, start, n, true);
        for (uint64_t at = start; rc == 0 && at < end;) {
            size_t k = end - at < CHUNK ? (size_t)(end - at) : CHUNK;
            rc = gguf__file_read(f, buf, k, at, err);
            if (rc == 0)
                rc = out_bytes(o, buf, k, err);
            at += k;
        }
        gguf__free(buf);
    }
    if (rc == 0)
        progress(o, n);
    return rc;
}

/* Byte-order conversion of one chunk, split over the pool's threads at block boundaries. */
typedef struct swap_job {
    uint32_t dtype;
    uint8_t *buf;
    size_t blocks, block;
    unsigned parts;
} swap_job;

static void swap_part(void *ctx, size_t part, unsigned worker) {
    (void)worker;
    const swap_job *j = ctx;
    size_t first = j->blocks * part / j->parts, last = j->blocks * (part + 1) / j->parts;
    gguf__byteswap_blocks(j->dtype, j->buf + first * j->block, (last - first) * j->block);
}

static void swap_chunk(const output *o, uint32_t dtype, uint8_t *buf, size_t n) {
    size_t block = gguf_dtype_block_bytes(dtype);
    swap_job job = {dtype, buf, n / block, block, gguf__pool_threads(o->pool)};
    if (job.parts <= 1 || job.blocks < (size_t)job.parts * 1024) {
        gguf__byteswap_blocks(dtype, buf, n);
        return;
    }
    gguf__pool_run(o->pool, job.parts, swap_part, &job);
}

/* Bytes of one row (dims[0] elements) of a tensor. */
static size_t row_bytes(const gguf__tensor *t) {
    return (size_t)(t->dims[0] / gguf_dtype_block_elems(t->type) * gguf_dtype_block_bytes(t->type));
}

/* Bytes of an added or retyped tensor, from the fill callback, already in the output's order. */
static int out_filled(output *o, const gguf_file *f, const gguf__tensor *t, gguf_error *err) {
    size_t i = (size_t)(t - f->tensors);
    not_copied(o);
    if (o->opt == NULL || o->opt->fill == NULL) {
        char q[96];
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor '%s' has no bytes yet and the write has no fill callback",
                          gguf__quote(q, sizeof q, t->name, (size_t)t->name_len));
    }
    /* whole rows per call, so that a fill can quantize row by row: as many as fit in CHUNK,
     * or one longer than it (the buffer holds one row; a tensor with no elements has none) */
    size_t row = row_bytes(t);
    size_t chunk = row == 0 ? CHUNK : row > CHUNK ? row : CHUNK - CHUNK % row;
    for (uint64_t at = 0; at < t->nbytes;) {
        size_t n = t->nbytes - at < chunk ? (size_t)(t->nbytes - at) : chunk;
        int rc = o->opt->fill(o->opt->fill_user, i, at, o->buf, n, err);
        if (rc == 0)
            rc = out_bytes(o, o->buf, n, err);
        if (rc != 0)
            return rc;
        at += n;
        progress(o, n);
    }
    return 0;
}

/* Writes one tensor's bytes, in the output's byte order. */
static int out_tensor(output *o, const gguf_file *f, const gguf__tensor *t, bool swap,
                      gguf_error *err) {
    if (t->src_offset == GGUF__NO_SOURCE)
        return out_filled(o, f, t, err);
    if (!swap)
        return out_source(o, f, t->src_offset, t->src_offset + t->nbytes, err);
    not_copied(o);
    /* 1 MiB at a time: read, converted and written while it is in the cache (16 MiB chunks
     * cost 2-4x the CPU time: each pass over them goes to memory) */
    size_t block = gguf_dtype_block_bytes(t->type);
    size_t chunk = SWAP_CHUNK - SWAP_CHUNK % block;
    for (uint64_t at = 0; at < t->nbytes;) {
        size_t n = t->nbytes - at < chunk ? (size_t)(t->nbytes - at) : chunk;
        int rc = gguf__file_read(f, o->buf, n, t->src_offset + at, err);
        if (rc != 0)
            return rc;
        swap_chunk(o, t->type, o->buf, n);
        rc = out_bytes(o, o->buf, n, err);
        if (rc != 0)
            return rc;
        at += n;
        progress(o, n);
    }
    return 0;
}

static int cmp_src_offset(const void *a, const void *b) {
    const gguf__tensor *x = *(const gguf__tensor *const *)a, *y = *(const gguf__tensor *const *)b;
    return x->src_offset < y->src_offset ? -1 : x->src_offset > y->src_offset;
}

/* f's tensors in the order of their bytes in the source; NULL (err set) for want of memory. */
static const gguf__tensor **by_offset(const gguf_file *f, gguf_error *err) {
    const gguf__tensor **order = gguf__malloc((f->n_tensors ? f->n_tensors : 1) * sizeof *order);
    if (order == NULL) {
        gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < f->n_tensors; i++)
        order[i] = &f->tensors[i];
    qsort(order, f->n_tensors, sizeof *order, cmp_src_offset);
    return order;
}

/* The kept layout with a byte-order change: tensors converted, the bytes around them copied. */
static int out_region_swapped(output *o, const gguf_file *f, gguf_error *err) {
    const gguf__tensor **order = by_offset(f, err);
    if (order == NULL)
        return GGUF_ENOMEM;
    uint64_t pos = f->data_offset;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f->n_tensors; i++) {
        rc = out_source(o, f, pos, order[i]->src_offset, err);
        if (rc == 0)
            rc = out_tensor(o, f, order[i], true, err);
        pos = order[i]->src_offset + order[i]->nbytes;
    }
    if (rc == 0)
        rc = out_source(o, f, pos, f->size, err);
    gguf__free(order);
    return rc;
}

/* The kept layout in the same byte order: the data region as it is, in pieces that end at
 * each tensor's end, so that progress (and the bar's tensor count) follows the tensors.
 * Pieces never overlap: tensors that share bytes, or of unknown size, add no boundary. */
static int out_region_kept(output *o, const gguf_file *f, gguf_error *err) {
    const gguf__tensor **order = by_offset(f, err);
    if (order == NULL)
        return GGUF_ENOMEM;
    uint64_t pos = f->data_offset;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f->n_tensors; i++) {
        const gguf__tensor *t = order[i];
        uint64_t end;
        if (t->src_offset == GGUF__NO_SOURCE || t->nbytes == GGUF_NBYTES_UNKNOWN ||
            !gguf__add_u64(&end, t->src_offset, t->nbytes) || end <= pos || end > f->size)
            continue;
        rc = out_source(o, f, pos, end, err);
        pos = end;
    }
    if (rc == 0)
        rc = out_source(o, f, pos, f->size, err);
    gguf__free(order);
    return rc;
}

static int out_packed(output *o, const gguf_file *f, const plan *p, gguf_error *err) {
    uint64_t at = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        rc = out_zeros(o, p->offsets[i] - at, err);
        if (rc == 0)
            rc = out_tensor(o, f, t, p->swap, err);
        at = p->offsets[i] + t->nbytes;
    }
    return rc == 0 ? out_zeros(o, p->data_len - at, err) : rc;
}

static int out_all(output *o, const gguf_file *f, const plan *p, gguf_error *err) {
    int rc = out_bytes(o, p->header.b.data, p->header.b.len, err);
    if (rc == 0)
        rc = p->pad_src ? out_bytes(o, p->pad_src, p->pad_len, err) : out_zeros(o, p->pad_len, err);
    /* the header region in a write of its own, apart from the data (a fault in one is not
     * one in the other) */
    if (rc == 0 && o->cp != NULL && gguf__copier_flush(o->cp) != 0)
        rc = gguf__io_fail(err, o->path, "write");
    if (rc != 0)
        return rc;
    gguf__test_pause("header-written");
    /* what progress() will count: the tensors of a packed layout (not the zeros between
     * them), else the whole data region as it is copied, gaps and trailing bytes included */
    if (p->packed) {
        for (size_t i = 0; i < f->n_tensors; i++)
            o->total += f->tensors[i].nbytes == GGUF_NBYTES_UNKNOWN ? 0 : f->tensors[i].nbytes;
    } else {
        o->total = f->size - f->data_offset;
    }
    /* a conversion buffer: CHUNK bytes, or one row of a filled tensor if that is more */
    size_t buf_size = p->swap ? CHUNK : 0;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        if (t->src_offset == GGUF__NO_SOURCE) {
            size_t row = row_bytes(t);
            buf_size = row > CHUNK ? row : buf_size > CHUNK ? buf_size : CHUNK;
        }
    }
    if (buf_size > 0) {
        o->buf = gguf__malloc(buf_size);
        if (o->buf == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                              "out of memory for the conversion buffer");
    }
    /* threads, when asked for, convert the byte order (a pool that cannot start threads, or no
     * pool for want of memory, converts on this thread: the same bytes) */
    if (p->swap && o->opt != NULL && o->opt->threads > 1)
        (void)gguf__pool_new(&o->pool, o->opt->threads);
    if (p->packed)
        rc = out_packed(o, f, p, err);
    else if (p->swap)
        rc = out_region_swapped(o, f, err);
    else
        rc = out_region_kept(o, f, err);
    gguf__free(o->buf);
    o->buf = NULL;
    gguf__pool_free(o->pool);
    o->pool = NULL;
    return rc;
}

int gguf_file_write_memory(void **out, size_t *size, const gguf_file *f,
                           const gguf_write_options *opt, gguf_error *err) {
    if (out == NULL || size == NULL || f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to write");
    gguf_write_options wo;
    int rc = GGUF__OPTIONS_READ(wo, gguf_write_options, GGUF_WRITE_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    opt = &wo;
    plan p;
    rc = make_plan(&p, f, opt, GGUF__PAD_KEEP, err);
    if (rc != 0)
        return rc;
    gguf__buf mem = {0};
    output o = {.fd = -1, .mem = &mem, .path = "memory", .opt = opt};
    rc = out_all(&o, f, &p, err);
    plan_free(&p);
    if (rc != 0) {
        gguf__buf_free(&mem);
        return rc;
    }
    *out = mem.data;
    *size = mem.len;
    return 0;
}

typedef struct fd_job {
    output *o;
    const gguf_file *f;
    const plan *p;
    gguf_error *err;
} fd_job;

static int produce(gguf__copier *c, void *ctx) {
    fd_job *j = ctx;
    j->o->cp = c;
    if (j->o->ctl != NULL && j->o->ctl->replaces_source)
        gguf__copier_drop_read(c);
    /* the output's size: the header region, then the data (as out_all lays it out) */
    const gguf_file *f = j->f;
    uint64_t data = j->p->packed ? j->p->data_len
                                 : (f->size > f->data_offset ? f->size - f->data_offset : 0);
    gguf__copier_direct(c, j->p->data_offset + data);
    return out_all(j->o, j->f, j->p, j->err);
}

int gguf__write_fd(int fd, const char *path, const gguf_file *f, const gguf_write_options *opt,
                   gguf__write_ctl *ctl, gguf_error *err) {
    plan p;
    int rc = make_plan(&p, f, opt, ctl != NULL ? ctl->padding : GGUF__PAD_KEEP, err);
    if (rc != 0)
        return rc;
    if (ctl != NULL) {
        ctl->all_copied = true;
        /* what the header region [0, data offset) will hold, for the proof to compare */
        uLong c = crc32_z(0, p.header.b.data, p.header.b.len);
        static const uint8_t zeros[256];
        for (uint64_t at = 0; at < p.pad_len;) {
            size_t k = p.pad_len - at < sizeof zeros ? (size_t)(p.pad_len - at) : sizeof zeros;
            c = crc32_z(c, p.pad_src != NULL ? p.pad_src + at : zeros, k);
            at += k;
        }
        ctl->header_crc = (uint32_t)c;
        ctl->data_offset = p.data_offset;
    }
    output o = {.fd = fd, .path = path, .opt = opt, .ctl = ctl, .clone = true};
    fd_job job = {&o, f, &p, err};
    off_t pos = lseek(fd, 0, SEEK_CUR);
    int werr = 0;
    if (pos < 0)
        rc = gguf__io_fail(err, path, "seek");
    else
        rc = gguf__copier_run(&werr, fd, (uint64_t)pos, ctl != NULL ? ctl->piece : NULL,
                              ctl != NULL ? ctl->piece_user : NULL, produce, &job);
    if (rc == GGUF_ENOMEM && (err == NULL || err->code == 0))
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0 && werr != 0) {
        errno = werr;
        rc = gguf__io_fail(err, path, "write");
    }
    plan_free(&p);
    return rc;
}
