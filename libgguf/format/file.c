/* A gguf_file's life: made from a source (its header read in growing pieces until the parse no
 * longer runs out of held bytes; tensor bytes are read on demand), from a header region, or
 * new and empty; cleared and freed. Reading is a pure function of the bytes: it never writes,
 * creates or deletes anything (an interrupted edit's journal beside the file is left for an
 * editor to finish: commit/recover.c). Opening by name, descriptor or memory is open.c. */
#include "format/format.h"

#include <string.h>

/* The first read of a header: a model's header with a vocabulary of up to about 100k tokens is
 * read and parsed at once (a second read and parse cost more than the larger first one); past
 * it, reads grow to where the vocabulary says the header ends, else double. */
#define FIRST_READ ((uint64_t)4 << 20)

static gguf_file *new_file(unsigned flags) {
    gguf_file *f = gguf__calloc(1, sizeof *f);
    if (f != NULL)
        f->flags = flags;
    return f;
}

const char *gguf__file_name(const gguf_file *f) {
    return f->src != NULL ? f->src->name : "memory";
}

int gguf__file_read(const gguf_file *f, void *buf, size_t len, uint64_t off, gguf_error *err) {
    if (f->src == NULL)
        return gguf__fail(err, GGUF_EINVAL, off, "bytes %llu..%llu: this file has no source",
                          (unsigned long long)off, (unsigned long long)(off + len));
    return gguf__source_read(f->src, buf, len, off, err);
}

/* One step of reading a header from a source that is not in memory: holds its first `want`
 * bytes (reading those not held yet) and parses them. Returns 0 when the header is parsed, 1
 * with *next = how many bytes to hold for the next step when the parse ran out of them, or an
 * error. Reads at least double (few requests), but a source that pays per byte reads no
 * further than read_ahead past where the header ends at least (so never much tensor data). */
int gguf__open_step(gguf_file *f, uint64_t want, uint64_t *next, gguf_error *err) {
    uint64_t have = f->head_len;
    *next = 0;
    if (want > f->size)
        want = f->size;
    /* read past a pipe's kept bytes only once the header needs them, to be told they are gone */
    if (f->src->readable != 0 && have < f->src->readable && want > f->src->readable)
        want = f->src->readable;
    if (want < have)
        want = have;
    if (want > SIZE_MAX)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "a header of %llu bytes does not fit in memory",
                          (unsigned long long)want);
    /* grown in place: a large block is mapped on its own, and realloc moves its pages
     * (mremap) instead of copying them, so that what was read is not faulted in twice */
    uint8_t *head = gguf__realloc(f->head_owned, want ? (size_t)want : 1);
    if (head == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                          "out of memory for a header of %llu bytes", (unsigned long long)want);
    f->head_owned = head;
    f->head = head;
    gguf__alloc_populate(head + have, (size_t)(want - have));
    int rc = gguf__source_read(f->src, head + have, (size_t)(want - have), have, err);
    if (rc != 0)
        return rc;
    have = want;
    f->head_len = have;
    gguf_error sub;
    gguf_error_clear(&sub);
    f->walking = true;
    rc = gguf__parse(f, &sub);
    f->walking = false;
    if (rc == 0 || f->head_need <= have || have == f->size) {
        f->n_walked = 0; /* the next parse of f may be of other bytes */
        if (rc != 0 && err != NULL && err->code == 0)
            *err = sub;
        /* what was read past the header is not kept for later: tensor bytes are read when
         * asked for, as they are then */
        if (rc == 0 && f->head_len > f->data_offset) {
            f->head_len = f->data_offset;
            /* an open file holds its header, not the rest of a first read larger than it */
            gguf__alloc_trim(f->head_owned, (size_t)f->head_len, (size_t)have);
        }
        return rc;
    }
    /* ran out of held bytes inside the file: read more and parse again */
    gguf__file_clear(f);
    uint64_t grow = have * 2 < have ? f->size : have * 2;
    /* a vocabulary cut off tells, from its strings so far, where the header ends: going there
     * (an eighth more for strings longer than those before) parses the header once or twice
     * instead of at every doubling, and does not read up to twice its size */
    if (f->head_guess > have)
        grow = f->head_guess + f->head_guess / 8 < f->head_guess ? f->size
                                                                 : f->head_guess + f->head_guess / 8;
    uint64_t ahead = f->src->read_ahead;
    if (ahead != 0 && f->head_floor < f->size - ahead && grow > f->head_floor + ahead)
        grow = f->head_floor + ahead;
    *next = grow > f->head_need ? grow : f->head_need;
    return 1;
}

/* Reads the header from a source that is not in memory: the first first_read bytes (or
 * FIRST_READ), then more, keeping what was read, until the parse is satisfied. */
static int parse_from_source(gguf_file *f, gguf_error *err) {
    uint64_t want = f->src->first_read ? f->src->first_read : FIRST_READ;
    for (;;) {
        int rc = gguf__open_step(f, want, &want, err);
        if (rc != 1)
            return rc;
    }
}

gguf_file *gguf__file_new(unsigned flags) {
    return new_file(flags);
}

int gguf__open_source(gguf_file **out, gguf__source *src, unsigned flags, gguf_error *err) {
    gguf_file *f = new_file(flags);
    if (f == NULL) {
        gguf__source_free(src);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    f->src = src;
    f->size = src->size;
    int rc;
    const uint8_t *in_place = src->mem != NULL                    ? src->mem
                            : (flags & GGUF_OPEN_MAPPED_HEADER) != 0 ? src->map
                                                                   : NULL;
    if (in_place != NULL) {
        f->head = in_place;
        f->head_len = src->size;
        rc = gguf__parse(f, err);
    } else {
        rc = parse_from_source(f, err);
    }
    /* a header that does not parse, its journal beside it, is most likely torn by an in-place
     * rewrite, running now (an editor holds the file's lock) or interrupted: that is the
     * news, not what its half-written bytes say */
    int edit = rc != 0 && rc != GGUF_ENOMEM && err != NULL ? gguf__source_edit_state(src)
                                                          : GGUF__EDIT_NONE;
    if (edit == GGUF__EDIT_RUNNING) {
        gguf_error_clear(err);
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "being edited by another process (it holds the edit lock): its header "
                        "is being rewritten; read it again once the edit is done");
    } else if (edit == GGUF__EDIT_INTERRUPTED) {
        char why[sizeof err->message];
        memcpy(why, err->message, sizeof why);
        gguf_error_clear(err);
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "an in-place edit of its header was interrupted, and its journal lies "
                        "beside it: `gguf-edit recover` (gguf_file_recover) finishes the edit "
                        "(the torn header: %s)", why);
    }
    if (rc != 0) {
        gguf__fail_path(err, src->name);
        gguf_file_free(f);
        return rc;
    }
    gguf__test_pause("file-opened"); /* the header parsed, no tensor byte read yet */
    *out = f;
    return 0;
}

int gguf_file_new(gguf_file **out, uint32_t version, enum gguf_endian endian, gguf_error *err) {
    if (out == NULL || version < 2 || version > 3 || (endian == GGUF_ENDIAN_BIG && version < 3))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "new files are GGUF v3 (either byte order) or v2 (little-endian)");
    gguf_file *f = new_file(0);
    if (f == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    f->head = (const uint8_t *)"";
    f->version = version;
    f->big = endian == GGUF_ENDIAN_BIG;
    f->alignment = 32;
    f->must_pack = true;
    *out = f;
    return 0;
}

int gguf__open_header(gguf_file **out, const uint8_t *region, size_t len, uint64_t file_size,
                      unsigned flags, gguf_error *err) {
    gguf_file *f = new_file(flags & ~(unsigned)GGUF_OPEN_NO_MMAP);
    if (f == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    f->head = region;
    f->head_len = len;
    f->size = file_size;
    int rc = gguf__parse(f, err);
    if (rc != 0 && f->head_need > len) {
        gguf_error_clear(err);
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "the header runs past its region of %zu bytes", len);
    }
    if (rc != 0) {
        gguf_file_free(f);
        return rc;
    }
    *out = f;
    return 0;
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
    gguf__hashset_free(&f->kv_index);
    gguf__hashset_free(&f->tensor_index);
    f->kv = NULL;
    f->tensors = NULL;
    f->n_kv = f->n_tensors = f->cap_kv = f->cap_tensors = 0;
}

void gguf_file_free(gguf_file *f) {
    if (f == NULL)
        return;
    gguf__file_clear(f);
    gguf__free(f->head_owned);
    /* a split set's source reads its shards' sources: it goes first */
    if (!f->src_borrowed)
        gguf__source_free(f->src);
    for (size_t k = 0; k < f->n_shards; k++)
        gguf_file_free(f->shards[k]);
    gguf__free(f->shards);
    for (size_t k = 0; k < f->n_strays; k++)
        gguf__free(f->strays[k]);
    gguf__free(f->strays);
    gguf__free(f);
}

uint32_t gguf_file_version(const gguf_file *f) { return f->version; }
enum gguf_endian gguf_file_endian(const gguf_file *f) { return f->big ? GGUF_ENDIAN_BIG : GGUF_ENDIAN_LITTLE; }
uint32_t gguf_file_alignment(const gguf_file *f) { return f->alignment; }
uint64_t gguf_file_data_offset(const gguf_file *f) { return f->data_offset; }
uint64_t gguf_file_size(const gguf_file *f) { return f->size; }
