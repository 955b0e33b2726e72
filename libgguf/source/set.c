/* A list of sources read as one: the shards of a split set. Part k's bytes appear at
 * base[k] = the sum of the sizes of the parts before it, so that a tensor of shard k keeps one
 * absolute offset (base[k] + its offset in the shard) and every reader of tensor bytes (crc,
 * write, requant, gguf_tensor_read) reaches the right file through the one read function. A
 * range never spans two parts (a tensor lies in one shard); a read that would is refused.
 *
 * Also the names of split files: llama.cpp's "PREFIX-%05d-of-%05d.gguf", shard numbers from 1
 * in the name and from 0 in split.no. */
#include "source/source.h"

#include <stdio.h>
#include <string.h>

typedef struct set_impl {
    size_t n;
    uint64_t *base;        /* n + 1 entries: base[n] is the total size */
    gguf__source **parts;  /* borrowed: their owner frees them after this source */
} set_impl;

/* The part holding byte off (the last part whose base is <= off). */
static size_t part_of(const set_impl *s, uint64_t off) {
    size_t lo = 0, hi = s->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->base[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int set_read(gguf__source *src, void *buf, size_t len, uint64_t off, gguf_error *err) {
    const set_impl *s = src->impl;
    size_t k = part_of(s, off);
    uint64_t local = off - s->base[k];
    if (len > s->base[k + 1] - off)
        return gguf__fail(err, GGUF_EIO, off,
                          "bytes %llu..%llu span shards %zu and %zu: no tensor does that",
                          (unsigned long long)off, (unsigned long long)(off + len), k + 1, k + 2);
    int rc = gguf__source_read(s->parts[k], buf, len, local, err);
    if (rc != 0)
        gguf__fail_path(err, s->parts[k]->name);
    return rc;
}

static void set_close(gguf__source *src) {
    set_impl *s = src->impl;
    if (s == NULL)
        return;
    gguf__free(s->base);
    gguf__free(s->parts);
    gguf__free(s);
}

/* An announced range lies in one part: that part is told (a remote shard streams it). */
static void set_will_read(gguf__source *src, uint64_t off, uint64_t len, bool certain) {
    const set_impl *s = src->impl;
    size_t k = part_of(s, off);
    if (off < s->base[s->n] && len <= s->base[k + 1] - off)
        gguf__source_will_read(s->parts[k], off - s->base[k], len, certain);
}

static const gguf__source_ops set_ops = {
    .read = set_read, .close = set_close, .will_read = set_will_read};

int gguf__source_open_set(gguf__source **out, gguf__source *const *parts, size_t n,
                          gguf_error *err) {
    if (n == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "a set of no sources");
    gguf__source *src = gguf__calloc(1, sizeof *src);
    set_impl *s = gguf__calloc(1, sizeof *s);
    char *name = gguf__strdup(parts[0]->name);
    uint64_t *base = gguf__malloc((n + 1) * sizeof *base);
    gguf__source **copy = gguf__malloc(n * sizeof *copy);
    if (src == NULL || s == NULL || name == NULL || base == NULL || copy == NULL) {
        gguf__free(src);
        gguf__free(s);
        gguf__free(name);
        gguf__free(base);
        gguf__free(copy);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    base[0] = 0;
    for (size_t k = 0; k < n; k++) {
        copy[k] = parts[k];
        if (!gguf__add_u64(&base[k + 1], base[k], parts[k]->size)) {
            gguf__free(src);
            gguf__free(s);
            gguf__free(name);
            gguf__free(base);
            gguf__free(copy);
            return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                              "the shards hold more than 2^64 bytes");
        }
    }
    *s = (set_impl){.n = n, .base = base, .parts = copy};
    *src = (gguf__source){
        .ops = &set_ops,
        .kind = parts[0]->kind, /* a set of URLs is remote */
        .name = name,
        .size = base[n],
        .fd = -1,
        .impl = s,
    };
    *out = src;
    return 0;
}

bool gguf__source_is_set(const gguf__source *s) {
    return s != NULL && s->ops == &set_ops;
}

uint64_t gguf__source_part_base(const gguf__source *s, size_t k) {
    return gguf__source_is_set(s) ? ((const set_impl *)s->impl)->base[k] : 0;
}

const gguf__source *gguf__source_part(const gguf__source *s, size_t k) {
    if (!gguf__source_is_set(s))
        return k == 0 ? s : NULL;
    const set_impl *set = s->impl;
    return k < set->n ? set->parts[k] : NULL;
}

bool gguf__source_locate(const gguf__source *s, uint64_t off, uint64_t len,
                         const gguf__source **leaf, uint64_t *leaf_off) {
    if (!gguf__source_is_set(s)) {
        *leaf = s;
        *leaf_off = off;
        return s != NULL && off <= s->size && len <= s->size - off;
    }
    const set_impl *set = s->impl;
    if (off >= set->base[set->n])
        return false;
    size_t k = part_of(set, off);
    if (len > set->base[k + 1] - off)
        return false;
    *leaf = set->parts[k];
    *leaf_off = off - set->base[k];
    return true;
}

/* ---- names ---- */

#define TAIL_LEN 20 /* "-00001-of-00003.gguf" */

int gguf_split_name(char *buf, size_t size, const char *prefix, uint32_t shard, uint32_t count) {
    if (buf == NULL || prefix == NULL || shard >= count || count > 99999)
        return -1;
    int n = snprintf(buf, size, "%s-%05u-of-%05u.gguf", prefix, shard + 1, count);
    return n < 0 || (size_t)n >= size ? -1 : n;
}

/* Five decimal digits at p, or -1. */
static long five_digits(const char *p) {
    long v = 0;
    for (int i = 0; i < 5; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

int gguf_split_parse_name(size_t *prefix_len, uint32_t *shard, uint32_t *count,
                          const char *path) {
    size_t n = path != NULL ? strlen(path) : 0;
    if (n <= TAIL_LEN)
        return 0;
    const char *t = path + n - TAIL_LEN;
    if (t[0] != '-' || memcmp(t + 6, "-of-", 4) != 0 || strcmp(t + 15, ".gguf") != 0)
        return 0;
    long no = five_digits(t + 1), of = five_digits(t + 10);
    if (no < 1 || of < 1 || no > of)
        return 0;
    if (prefix_len != NULL)
        *prefix_len = n - TAIL_LEN;
    if (shard != NULL)
        *shard = (uint32_t)(no - 1);
    if (count != NULL)
        *count = (uint32_t)of;
    return 1;
}
