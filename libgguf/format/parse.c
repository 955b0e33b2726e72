/* bytes -> gguf_file: the header, the key/value list and the tensor table, with every rule of
 * the read policy. Nothing is trusted: each count is checked against the bytes that remain
 * before anything is allocated for it. */
#include "format/format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUOTE_MAX 96

/* ---- the fixed header ---- */

static bool valid_version(uint32_t v) {
    return v >= 1 && v <= 3;
}

/* The smallest possible entries: a key of one byte with a one-byte value; a tensor info with
 * an empty name and no dims. */
static uint64_t kv_min_bytes(const gguf__cursor *c) {
    return (c->wide ? 8 : 4) + 1 + 4 + 1;
}

static uint64_t ti_min_bytes(const gguf__cursor *c) {
    return (c->wide ? 8 : 4) + 4 + 4 + 8;
}

static int parse_header(gguf_file *f, gguf__cursor *c, uint64_t *n_tensors, uint64_t *n_kv,
                        gguf_error *err) {
    if (f->size == 0)
        return gguf__fail(err, GGUF_ETRUNC, 0, "empty file: no GGUF magic");
    if (f->size < 4)
        return gguf__fail(err, GGUF_ETRUNC, 0, "file of %llu bytes ends inside the magic",
                          (unsigned long long)f->size);
    if (f->head_len < 8 && f->head_len < f->size) {
        f->head_need = f->size < 8 ? f->size : 8;
        return gguf__fail(err, GGUF_ETRUNC, 0, "the header is not held in memory");
    }
    if (memcmp(f->head, "GGUF", 4) != 0) {
        char q[32];
        return gguf__fail(err, GGUF_ECORRUPT, 0, "bad magic '%s' (expected 'GGUF')",
                          gguf__quote(q, sizeof q, (const char *)f->head, 4));
    }
    if (f->size < 8)
        return gguf__fail(err, GGUF_ETRUNC, 4, "file ends inside the version field at byte 4");
    uint32_t le = gguf__load32(f->head + 4, false), be = gguf__load32(f->head + 4, true);
    if (f->flags & GGUF_OPEN_FORCE_BIG)
        f->big = true;
    else if (f->flags & GGUF_OPEN_FORCE_LITTLE)
        f->big = false;
    else
        f->big = !valid_version(le) && valid_version(be);
    f->version = f->big ? be : le;
    if (!valid_version(f->version))
        return gguf__fail(err, GGUF_ECORRUPT, 4, "unsupported GGUF version %u at byte 4 "
                          "(this library reads versions 1 to 3, either byte order)", f->version);
    c->base = f->head;
    c->len = f->size;
    c->held = f->head_len;
    c->need = 0;
    c->pos = 8;
    c->big = f->big;
    c->wide = f->version >= 2;
    if (!gguf__cursor_len(c, n_tensors))
        return gguf__fail(err, GGUF_ETRUNC, c->pos, "file ends inside the tensor count at byte %llu",
                          (unsigned long long)c->pos);
    if (!gguf__cursor_len(c, n_kv))
        return gguf__fail(err, GGUF_ETRUNC, c->pos, "file ends inside the key/value count at byte %llu",
                          (unsigned long long)c->pos);
    uint64_t kv_min = kv_min_bytes(c), ti_min = ti_min_bytes(c);
    uint64_t w = c->wide ? 8 : 4;
    const uint64_t tensor_count_at = 8, kv_count_at = 8 + w;
    if (*n_kv > gguf__cursor_remain(c) / kv_min)
        return gguf__fail(err, GGUF_ECORRUPT, kv_count_at,
                          "key/value count %llu needs at least %llu bytes per entry, but only %llu bytes follow",
                          (unsigned long long)*n_kv, (unsigned long long)kv_min,
                          (unsigned long long)gguf__cursor_remain(c));
    if (*n_tensors > gguf__cursor_remain(c) / ti_min)
        return gguf__fail(err, GGUF_ECORRUPT, tensor_count_at,
                          "tensor count %llu needs at least %llu bytes per tensor info, but only %llu bytes follow",
                          (unsigned long long)*n_tensors, (unsigned long long)ti_min,
                          (unsigned long long)gguf__cursor_remain(c));
    return 0;
}

/* An array the parse before this one (of fewer bytes of the same header) walked whole: the
 * cursor goes to its end. */
static bool jump_walked(const gguf_file *f, gguf__cursor *c, uint64_t value_at) {
    for (size_t k = 0; f->walking && k < f->n_walked; k++) {
        if (f->walked[2 * k] == value_at) {
            c->pos = f->walked[2 * k + 1];
            return true;
        }
    }
    return false;
}

static void remember_walked(gguf_file *f, uint32_t type, uint64_t value_at, uint64_t end) {
    size_t max = sizeof f->walked / sizeof f->walked[0] / 2;
    if (f->walking && type == GGUF_VTYPE_ARRAY && end - value_at >= ((uint64_t)64 << 10) &&
        f->n_walked < max) {
        f->walked[2 * f->n_walked] = value_at;
        f->walked[2 * f->n_walked + 1] = end;
        f->n_walked++;
    }
}

/* ---- key/value pairs ---- */

static int parse_kv(gguf_file *f, gguf__cursor *c, uint64_t n_kv, uint64_t n_tensors,
                    gguf_error *err) {
    f->kv = gguf__calloc((size_t)n_kv, sizeof *f->kv);
    if (f->kv == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for %llu keys",
                          (unsigned long long)n_kv);
    f->cap_kv = (size_t)n_kv;
    if (gguf__hashset_init(&f->kv_index, (size_t)n_kv) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = 0;
    char q[QUOTE_MAX];
    /* what the entries after entry i owe at least (see gguf__cursor); the products cannot
     * overflow, as parse_header checked both counts against the bytes that remain */
    uint64_t tensors_owe = n_tensors * ti_min_bytes(c);
    for (uint64_t i = 0; i < n_kv && rc == 0; i++) {
        gguf__kv *kv = &f->kv[i];
        uint64_t start = c->pos, klen;
        c->owed = (n_kv - i - 1) * kv_min_bytes(c);
        c->owed = c->len - c->owed < tensors_owe ? c->len : c->owed + tensors_owe;
        const uint8_t *kp;
        if (!gguf__cursor_len(c, &klen)) {
            rc = gguf__fail(err, GGUF_ETRUNC, start,
                            "key %llu: key length cut off by the end of file at byte %llu",
                            (unsigned long long)i, (unsigned long long)start);
            break;
        }
        if (klen == 0) {
            rc = gguf__fail(err, GGUF_ECORRUPT, start, "key %llu: empty key at byte %llu",
                            (unsigned long long)i, (unsigned long long)start);
            break;
        }
        if (!gguf__cursor_bytes(c, klen, &kp)) {
            rc = gguf__fail(err, GGUF_ETRUNC, start,
                            "key %llu: key length %llu at byte %llu runs past the end of file (%llu bytes left)",
                            (unsigned long long)i, (unsigned long long)klen,
                            (unsigned long long)start, (unsigned long long)gguf__cursor_remain(c));
            break;
        }
        kv->key = (const char *)kp;
        kv->key_len = klen;
        kv->src_offset = start;
        f->n_kv = (size_t)i + 1;
        int64_t dup = gguf__hashset_insert(&f->kv_index, (uint32_t)i, gguf__kv_key, f);
        if (dup == -2) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        if (dup >= 0 && !(f->flags & GGUF_OPEN_LENIENT)) {
            rc = gguf__fail(err, GGUF_ECORRUPT, start,
                            "key '%s' at byte %llu duplicates key %lld (open leniently to repair it)",
                            gguf__quote(q, sizeof q, kv->key, (size_t)klen),
                            (unsigned long long)start, (long long)dup);
            break;
        }
        uint64_t type_at = c->pos;
        uint32_t type;
        if (!gguf__cursor_u32(c, &type)) {
            rc = gguf__fail(err, GGUF_ETRUNC, type_at,
                            "key '%s': value type cut off by the end of file at byte %llu",
                            gguf__quote(q, sizeof q, kv->key, (size_t)klen),
                            (unsigned long long)type_at);
            break;
        }
        uint64_t value_at = c->pos;
        if (type >= GGUF_VTYPE_COUNT) {
            rc = gguf__fail(err, GGUF_ECORRUPT, type_at,
                            "key '%s': unknown value type %u at byte %llu",
                            gguf__quote(q, sizeof q, kv->key, (size_t)klen), type,
                            (unsigned long long)type_at);
            break;
        }
        gguf__path path = {NULL, kv->key, (size_t)klen, 0};
        if (!jump_walked(f, c, value_at)) {
            rc = gguf__value_skip(c, type, 0, &path, err);
            if (rc != 0)
                break;
            remember_walked(f, type, value_at, c->pos);
        }
        kv->value = (gguf_value){
            .raw = f->head + value_at,
            .raw_len = c->pos - value_at,
            .type = type,
            .big_endian = f->big,
            .wide = c->wide,
        };
    }
    return rc;
}

/* general.alignment: a UINT32, non-zero, and a power of two (ggml) or a multiple of 8 (spec). */
static int parse_alignment(gguf_file *f, gguf_error *err) {
    f->alignment = 32;
    int64_t i = gguf_kv_find(f, "general.alignment");
    if (i < 0)
        return 0;
    const gguf__kv *kv = &f->kv[i];
    if (kv->value.type != GGUF_VTYPE_U32)
        return gguf__fail(err, GGUF_ECORRUPT, kv->src_offset,
                          "key 'general.alignment' at byte %llu must be UINT32, not %s",
                          (unsigned long long)kv->src_offset, gguf_vtype_name(kv->value.type));
    uint32_t a = gguf__load32(kv->value.raw, f->big);
    bool pow2 = a != 0 && (a & (a - 1)) == 0;
    if (a == 0 || (!pow2 && a % 8 != 0))
        return gguf__fail(err, GGUF_ECORRUPT, kv->src_offset,
                          "key 'general.alignment' at byte %llu: alignment %u is neither a power of two nor a multiple of 8",
                          (unsigned long long)kv->src_offset, a);
    f->alignment = a;
    return 0;
}

/* ---- tensor infos ---- */

static int parse_tensor(gguf_file *f, gguf__cursor *c, uint64_t i, gguf__tensor *t,
                        gguf_error *err) {
    char q[QUOTE_MAX];
    uint64_t start = c->pos, n;
    const uint8_t *np;
    t->info_offset = start;
    if (!gguf__cursor_len(c, &n))
        return gguf__fail(err, GGUF_ETRUNC, start,
                          "tensor %llu: name length cut off by the end of file at byte %llu",
                          (unsigned long long)i, (unsigned long long)start);
    if (!gguf__cursor_bytes(c, n, &np))
        return gguf__fail(err, GGUF_ETRUNC, start,
                          "tensor %llu: name length %llu at byte %llu runs past the end of file",
                          (unsigned long long)i, (unsigned long long)n, (unsigned long long)start);
    t->name = (const char *)np;
    t->name_len = n;
    const char *qn = gguf__quote(q, sizeof q, t->name, (size_t)n);
    if (n > GGUF_TENSOR_NAME_MAX)
        return gguf__fail(err, GGUF_ECORRUPT, start,
                          "tensor '%s' at byte %llu: name of %llu bytes is longer than %d",
                          qn, (unsigned long long)start, (unsigned long long)n,
                          GGUF_TENSOR_NAME_MAX);
    uint64_t at = c->pos;
    if (!gguf__cursor_u32(c, &t->n_dims))
        return gguf__fail(err, GGUF_ETRUNC, at,
                          "tensor '%s': dimension count cut off by the end of file at byte %llu",
                          qn, (unsigned long long)at);
    if (t->n_dims > GGUF_MAX_DIMS)
        return gguf__fail(err, GGUF_ECORRUPT, at,
                          "tensor '%s' at byte %llu: %u dimensions (at most %d)", qn,
                          (unsigned long long)at, t->n_dims, GGUF_MAX_DIMS);
    uint64_t elems = 1;
    bool overflow = false;
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
        t->dims[d] = 1;
        if (d >= t->n_dims)
            continue;
        at = c->pos;
        if (!gguf__cursor_len(c, &t->dims[d]))
            return gguf__fail(err, GGUF_ETRUNC, at,
                              "tensor '%s': dimension %u cut off by the end of file at byte %llu",
                              qn, d, (unsigned long long)at);
        if (t->dims[d] > (uint64_t)INT64_MAX)
            return gguf__fail(err, GGUF_ECORRUPT, at,
                              "tensor '%s' at byte %llu: dimension %u is %llu (above 2^63-1)", qn,
                              (unsigned long long)at, d, (unsigned long long)t->dims[d]);
        overflow = overflow || !gguf__mul_u64(&elems, elems, t->dims[d]);
    }
    if (overflow || elems > (uint64_t)INT64_MAX)
        return gguf__fail(err, GGUF_ECORRUPT, start,
                          "tensor '%s' at byte %llu: element count of shape [%llu, %llu, %llu, %llu] overflows 63 bits",
                          qn, (unsigned long long)start, (unsigned long long)t->dims[0],
                          (unsigned long long)t->dims[1], (unsigned long long)t->dims[2],
                          (unsigned long long)t->dims[3]);
    at = c->pos;
    if (!gguf__cursor_u32(c, &t->type))
        return gguf__fail(err, GGUF_ETRUNC, at,
                          "tensor '%s': type cut off by the end of file at byte %llu", qn,
                          (unsigned long long)at);
    if (gguf_dtype_name(t->type) == NULL) {
        if (gguf_dtype_removed(t->type))
            return gguf__fail(err, GGUF_ECORRUPT, at,
                              "tensor '%s' at byte %llu: tensor type %u was removed from ggml and GGUF files",
                              qn, (unsigned long long)at, t->type);
        if (!(f->flags & GGUF_OPEN_UNKNOWN_TYPES))
            return gguf__fail(err, GGUF_EUNSUPPORTED, at,
                              "tensor '%s' at byte %llu: unknown tensor type id %u",
                              qn, (unsigned long long)at, t->type);
        t->nbytes = GGUF_NBYTES_UNKNOWN;
    } else {
        gguf_error sub;
        gguf_error_clear(&sub);
        int rc = gguf_dtype_nbytes(&t->nbytes, t->type, t->dims, GGUF_MAX_DIMS, &sub);
        if (rc != 0)
            return gguf__fail(err, rc == GGUF_ELIMIT ? GGUF_ECORRUPT : rc, start,
                              "tensor '%s' at byte %llu: %s", qn, (unsigned long long)start,
                              sub.message);
    }
    at = c->pos;
    if (!gguf__cursor_u64(c, &t->offset))
        return gguf__fail(err, GGUF_ETRUNC, at,
                          "tensor '%s': data offset cut off by the end of file at byte %llu", qn,
                          (unsigned long long)at);
    return 0;
}

static int cmp_by_offset(const void *a, const void *b) {
    const gguf__tensor *x = *(const gguf__tensor *const *)a, *y = *(const gguf__tensor *const *)b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Each tensor's bytes lie inside the file, start on the alignment, and overlap no other's. */
static int check_layout(gguf_file *f, gguf_error *err) {
    char q[QUOTE_MAX];
    for (size_t i = 0; i < f->n_tensors; i++) {
        gguf__tensor *t = &f->tensors[i];
        const char *qn = gguf__quote(q, sizeof q, t->name, (size_t)t->name_len);
        if (t->offset % f->alignment != 0)
            return gguf__fail(err, GGUF_ECORRUPT, t->info_offset,
                              "tensor '%s': offset %llu is not a multiple of the alignment %u",
                              qn, (unsigned long long)t->offset, f->alignment);
        uint64_t size = f->size;
        uint64_t room = size > f->data_offset ? size - f->data_offset : 0; /* 0: cut (partial) */
        uint64_t need = t->nbytes == GGUF_NBYTES_UNKNOWN ? 0 : t->nbytes;
        uint64_t end;
        bool fits = gguf__add_u64(&end, f->data_offset, t->offset) && gguf__add_u64(&end, end, need);
        if (fits && (f->flags & GGUF_OPEN_PARTIAL) && (t->offset > room || need > room - t->offset)) {
            /* a truncated download: the tensor is kept; its missing bytes are refused when
             * asked for, and the file cannot be written */
            f->partial = true;
            t->src_offset = f->data_offset + t->offset;
            continue;
        }
        if (t->offset > room || need > room - t->offset)
            return gguf__fail(err, GGUF_ETRUNC, t->info_offset,
                              "tensor '%s': data at offset %llu + %llu bytes (file bytes %llu..%llu) runs past the end of file (%llu bytes)",
                              qn, (unsigned long long)t->offset, (unsigned long long)need,
                              (unsigned long long)(f->data_offset + (t->offset < room ? t->offset : room)),
                              (unsigned long long)(f->data_offset + t->offset + need),
                              (unsigned long long)size);
        t->src_offset = f->data_offset + t->offset;
    }
    if (f->n_tensors < 2)
        return 0;
    gguf__tensor **order = gguf__malloc(f->n_tensors * sizeof *order);
    if (order == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < f->n_tensors; i++)
        order[i] = &f->tensors[i];
    qsort(order, f->n_tensors, sizeof *order, cmp_by_offset);
    /* walking by offset, each tensor must start at or after the furthest end so far; a tensor
     * of zero bytes shares nothing, and one of unknown size is not checked */
    int rc = 0;
    const gguf__tensor *last = NULL; /* the tensor that ends furthest so far */
    for (size_t i = 0; i < f->n_tensors && rc == 0; i++) {
        const gguf__tensor *b = order[i];
        if (b->nbytes == 0 || b->nbytes == GGUF_NBYTES_UNKNOWN)
            continue;
        if (last != NULL && b->offset < last->offset + last->nbytes) {
            char q2[QUOTE_MAX];
            rc = gguf__fail(err, GGUF_ECORRUPT, b->info_offset,
                            "tensor '%s' (offset %llu) overlaps tensor '%s' (offset %llu, %llu bytes)",
                            gguf__quote(q, sizeof q, b->name, (size_t)b->name_len),
                            (unsigned long long)b->offset,
                            gguf__quote(q2, sizeof q2, last->name, (size_t)last->name_len),
                            (unsigned long long)last->offset, (unsigned long long)last->nbytes);
        }
        if (last == NULL || b->offset + b->nbytes > last->offset + last->nbytes)
            last = b;
    }
    gguf__free(order);
    return rc;
}

static int parse_tensors(gguf_file *f, gguf__cursor *c, uint64_t n_tensors, gguf_error *err) {
    f->tensors = gguf__calloc((size_t)n_tensors, sizeof *f->tensors);
    if (f->tensors == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                          "out of memory for %llu tensors", (unsigned long long)n_tensors);
    f->cap_tensors = (size_t)n_tensors;
    if (gguf__hashset_init(&f->tensor_index, (size_t)n_tensors) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = 0;
    for (uint64_t i = 0; i < n_tensors && rc == 0; i++) {
        gguf__tensor *t = &f->tensors[i];
        c->owed = (n_tensors - i - 1) * ti_min_bytes(c);
        rc = parse_tensor(f, c, i, t, err);
        if (rc != 0)
            break;
        f->n_tensors = (size_t)i + 1;
        int64_t dup = gguf__hashset_insert(&f->tensor_index, (uint32_t)i, gguf__tensor_name, f);
        if (dup == -2) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        if (dup >= 0 && !(f->flags & GGUF_OPEN_LENIENT)) {
            char q[QUOTE_MAX];
            rc = gguf__fail(err, GGUF_ECORRUPT, t->info_offset,
                            "tensor '%s' at byte %llu duplicates tensor %lld (open leniently to repair it)",
                            gguf__quote(q, sizeof q, t->name, (size_t)t->name_len),
                            (unsigned long long)t->info_offset, (long long)dup);
        }
    }
    return rc;
}

int gguf__parse(gguf_file *f, gguf_error *err) {
    gguf__cursor c = {0};
    uint64_t n_tensors, n_kv;
    f->head_need = 0;
    f->partial = false;
    int rc = parse_header(f, &c, &n_tensors, &n_kv, err);
    if (rc == 0)
        rc = parse_kv(f, &c, n_kv, n_tensors, err);
    if (rc == 0)
        rc = parse_alignment(f, err);
    if (rc == 0)
        rc = parse_tensors(f, &c, n_tensors, err);
    c.owed = 0;
    if (c.need > f->head_need)
        f->head_need = c.need;
    f->head_floor = c.floor > f->head_need ? c.floor : f->head_need;
    f->head_guess = c.guess;
    if (rc != 0)
        return rc;
    f->header_end = c.pos;
    f->data_offset = c.pos;
    if (n_tensors > 0) {
        /* cannot overflow: header_end <= size < 2^64 - alignment in practice; checked anyway */
        uint64_t size = f->size;
        bool aligned = gguf__align_up(&f->data_offset, c.pos, f->alignment);
        /* a partial file may end inside the padding: all its tensors are then cut */
        if (!aligned || (f->data_offset > size && !(f->flags & GGUF_OPEN_PARTIAL)))
            return gguf__fail(err, GGUF_ETRUNC, c.pos,
                              "file ends at byte %llu, inside the padding before the data section (which starts at byte %llu)",
                              (unsigned long long)f->size,
                              (unsigned long long)(c.pos + (f->alignment - c.pos % f->alignment)));
        if (f->data_offset > size)
            f->partial = true;
    }
    /* the padding before the data is part of the header: a write keeps its bytes */
    /* (a partial file may end inside the padding) */
    if (f->head_len < f->data_offset && f->head_len < f->size) {
        f->head_need = f->head_floor = f->data_offset;
        return gguf__fail(err, GGUF_ETRUNC, c.pos, "the padding is not held in memory");
    }
    return check_layout(f, err);
}
