/* Metadata values: checking them in the input, reading them, walking arrays. A value is kept
 * as its encoded bytes (in the byte order and length width of the file it came from), so an
 * unchanged value is written back exactly as it was read. */
#include "format/format.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    const char *short_name;
    size_t size;
} vtypes[GGUF_VTYPE_COUNT] = {
    [GGUF_VTYPE_U8] = {"UINT8", "u8", 1},      [GGUF_VTYPE_I8] = {"INT8", "i8", 1},
    [GGUF_VTYPE_U16] = {"UINT16", "u16", 2},   [GGUF_VTYPE_I16] = {"INT16", "i16", 2},
    [GGUF_VTYPE_U32] = {"UINT32", "u32", 4},   [GGUF_VTYPE_I32] = {"INT32", "i32", 4},
    [GGUF_VTYPE_F32] = {"FLOAT32", "f32", 4},  [GGUF_VTYPE_BOOL] = {"BOOL", "bool", 1},
    [GGUF_VTYPE_STRING] = {"STRING", "str", 0}, [GGUF_VTYPE_ARRAY] = {"ARRAY", "array", 0},
    [GGUF_VTYPE_U64] = {"UINT64", "u64", 8},   [GGUF_VTYPE_I64] = {"INT64", "i64", 8},
    [GGUF_VTYPE_F64] = {"FLOAT64", "f64", 8},
};
_Static_assert(sizeof vtypes / sizeof vtypes[0] == GGUF_VTYPE_COUNT, "one entry per value type");

const char *gguf_vtype_name(uint32_t vtype) {
    return vtype < GGUF_VTYPE_COUNT ? vtypes[vtype].name : NULL;
}

int gguf_vtype_parse(const char *name) {
    if (name == NULL)
        return -1;
    for (int t = 0; t < GGUF_VTYPE_COUNT; t++) {
        if (strcasecmp(name, vtypes[t].name) == 0 || strcasecmp(name, vtypes[t].short_name) == 0)
            return t;
    }
    if (strcasecmp(name, "string") == 0)
        return GGUF_VTYPE_STRING;
    return -1;
}

size_t gguf_vtype_size(uint32_t vtype) {
    return vtype < GGUF_VTYPE_COUNT ? vtypes[vtype].size : 0;
}

/* ---- paths for messages ---- */

const char *gguf__path_format(char *buf, size_t bufsize, const gguf__path *path) {
    /* collect the chain root-first; depth is bounded by GGUF__MAX_DEPTH */
    const gguf__path *chain[GGUF__MAX_DEPTH + 2];
    size_t n = 0;
    for (const gguf__path *p = path; p != NULL && n < sizeof chain / sizeof chain[0]; p = p->parent)
        chain[n++] = p;
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = n; i-- > 0 && o < bufsize;) {
        int w;
        if (chain[i]->key != NULL) {
            char quoted[160];
            w = snprintf(buf + o, bufsize - o, "'%s'",
                         gguf__quote(quoted, sizeof quoted, chain[i]->key, chain[i]->key_len));
        } else {
            w = snprintf(buf + o, bufsize - o, "[%llu]", (unsigned long long)chain[i]->index);
        }
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return buf;
}

#define PATH_BUF 256

static int fail_at(gguf_error *err, int code, uint64_t off, const gguf__path *path,
                   const char *what) {
    char where[PATH_BUF];
    return gguf__fail(err, code, off, "key %s: %s at byte %llu",
                      gguf__path_format(where, sizeof where, path), what,
                      (unsigned long long)off);
}

/* ---- checking encoded values ---- */

static int skip_string(gguf__cursor *c, const gguf__path *path, gguf_error *err) {
    uint64_t start = c->pos, n;
    if (!gguf__cursor_len(c, &n))
        return fail_at(err, GGUF_ETRUNC, start, path, "string length cut off by the end of file");
    if (gguf__cursor_remain(c) < n) {
        char what[160];
        snprintf(what, sizeof what, "string length %llu runs past the end of file (%llu bytes left)",
                 (unsigned long long)n, (unsigned long long)gguf__cursor_remain(c));
        c->pos = start;
        return fail_at(err, GGUF_ETRUNC, start, path, what);
    }
    const uint8_t *p;
    if (!gguf__cursor_bytes(c, n, &p)) {
        c->pos = start; /* in the input, not yet in memory: the reader fetches more */
        return fail_at(err, GGUF_ETRUNC, start, path, "string not held in memory");
    }
    return 0;
}

/* The held bytes end inside an array of strings, at pos with `left` strings to go: if they are
 * as long as those before (`each` bytes on average, length field included), the array ends at
 * pos + left * each, and the header at least what it owes after that. Saturates at the input's
 * end; only ever raises c->guess. */
static void guess_end(gguf__cursor *c, uint64_t pos, uint64_t each, uint64_t left) {
    uint64_t room = c->len - pos, end = c->len;
    if (each == 0 || left <= room / each) {
        end = pos + left * each;
        end = c->len - end < c->owed ? c->len : end + c->owed;
    }
    if (end > c->guess)
        c->guess = end;
}

static int skip_array(gguf__cursor *c, int depth, const gguf__path *path, gguf_error *err) {
    uint64_t start = c->pos;
    if (depth >= GGUF__MAX_DEPTH) {
        char what[96];
        snprintf(what, sizeof what, "arrays nested deeper than %d levels", GGUF__MAX_DEPTH);
        return fail_at(err, GGUF_ELIMIT, start, path, what);
    }
    uint32_t elem;
    uint64_t count;
    if (!gguf__cursor_u32(c, &elem))
        return fail_at(err, GGUF_ETRUNC, start, path, "array element type cut off by the end of file");
    if (elem >= GGUF_VTYPE_COUNT) {
        char what[96];
        snprintf(what, sizeof what, "unknown array element type %u", elem);
        c->pos = start;
        return fail_at(err, GGUF_ECORRUPT, start, path, what);
    }
    uint64_t count_at = c->pos;
    if (!gguf__cursor_len(c, &count)) {
        c->pos = start;
        return fail_at(err, GGUF_ETRUNC, count_at, path, "array length cut off by the end of file");
    }
    /* every element takes at least min bytes: refuse impossible counts before walking them */
    uint64_t lenw = c->wide ? 8 : 4;
    uint64_t min = elem == GGUF_VTYPE_STRING ? lenw
                 : elem == GGUF_VTYPE_ARRAY  ? 4 + lenw
                                             : gguf_vtype_size(elem);
    if (count > gguf__cursor_remain(c) / min) {
        char what[160];
        snprintf(what, sizeof what, "array of %llu %s elements runs past the end of file (%llu bytes left)",
                 (unsigned long long)count, vtypes[elem].name,
                 (unsigned long long)gguf__cursor_remain(c));
        c->pos = start;
        return fail_at(err, GGUF_ETRUNC, count_at, path, what);
    }
    if (elem != GGUF_VTYPE_STRING && elem != GGUF_VTYPE_ARRAY) {
        const uint8_t *p;
        if (!gguf__cursor_bytes(c, count * min, &p)) { /* cannot overflow: checked above */
            c->pos = start;
            return fail_at(err, GGUF_ETRUNC, count_at, path, "array not held in memory");
        }
        return 0;
    }
    uint64_t i = 0;
    if (elem == GGUF_VTYPE_STRING) {
        /* the common case (vocabularies): strings that are all in memory, walked without a
         * call per string; the first one that is not (cut off, or not yet held) goes the
         * careful way below, which says why */
        uint64_t first = c->pos, pos = c->pos, held = c->held;
        if (lenw == 8 && c->big == gguf__host_is_big()) {
            /* v2+ in the host's order, nearly every file: a length load and an add each. Each
             * load waits for the one before, so the bytes a page ahead are asked for early
             * (a prefetch never faults, past the end either): 10-20% off a vocabulary's parse
             * where it is mapped and not yet in the CPU's caches. */
            for (; i < count; i++) {
                uint64_t n;
                if (held - pos < 8)
                    break;
                memcpy(&n, c->base + pos, 8);
                __builtin_prefetch((const void *)((uintptr_t)(c->base + pos) + 4096));
                if (held - pos - 8 < n)
                    break;
                pos += 8 + n;
            }
        }
        for (; i < count; i++) {
            if (held - pos < lenw)
                break;
            uint64_t n = lenw == 8 ? gguf__load64(c->base + pos, c->big)
                                   : gguf__load32(c->base + pos, c->big);
            if (held - pos - lenw < n)
                break;
            pos += lenw + n;
        }
        if (i > 0 && i < count && held < c->len)
            guess_end(c, pos, (pos - first) / i, count - i);
        c->pos = pos;
    }
    /* while element i is read, the elements after it owe at least min bytes each (their
     * length fields): a reader fetching in pieces learns where the array ends at least */
    uint64_t outer = c->owed;
    for (; i < count; i++) {
        gguf__path sub = {path, NULL, 0, i};
        uint64_t rest = (count - i - 1) * min; /* cannot overflow: count * min <= remain */
        c->owed = c->len - rest < outer ? c->len : outer + rest;
        int rc = elem == GGUF_VTYPE_STRING ? skip_string(c, &sub, err)
                                           : skip_array(c, depth + 1, &sub, err);
        if (rc != 0) {
            c->owed = outer;
            c->pos = start;
            return rc;
        }
    }
    c->owed = outer;
    return 0;
}

int gguf__value_skip(gguf__cursor *c, uint32_t type, int depth, const gguf__path *path,
                     gguf_error *err) {
    if (type == GGUF_VTYPE_STRING)
        return skip_string(c, path, err);
    if (type == GGUF_VTYPE_ARRAY)
        return skip_array(c, depth, path, err);
    size_t n = gguf_vtype_size(type);
    if (n == 0) {
        char what[64];
        snprintf(what, sizeof what, "unknown value type %u", type);
        return fail_at(err, GGUF_ECORRUPT, c->pos, path, what);
    }
    const uint8_t *p;
    if (!gguf__cursor_bytes(c, n, &p)) {
        char what[96];
        snprintf(what, sizeof what, "%s value cut off by the end of file", vtypes[type].name);
        return fail_at(err, GGUF_ETRUNC, c->pos, path, what);
    }
    return 0;
}

/* ---- reading values ---- */

uint32_t gguf_value_type(const gguf_value *v) {
    return v->type;
}

static size_t len_width(const gguf_value *v) {
    return v->wide ? 8 : 4;
}

static uint64_t load_len(const uint8_t *p, const gguf_value *v) {
    return v->wide ? gguf__load64(p, v->big_endian) : gguf__load32(p, v->big_endian);
}

uint32_t gguf_value_elem_type(const gguf_value *v) {
    if (v->type != GGUF_VTYPE_ARRAY)
        return GGUF_VTYPE_COUNT;
    return gguf__load32(v->raw, v->big_endian);
}

uint64_t gguf_value_count(const gguf_value *v) {
    if (v->type != GGUF_VTYPE_ARRAY)
        return 1;
    return load_len(v->raw + 4, v);
}

static int wrong_type(gguf_error *err, const gguf_value *v, const char *wanted) {
    const char *name = gguf_vtype_name(v->type);
    return gguf__fail(err, GGUF_ETYPE, GGUF_ERROR_NO_OFFSET, "value is %s, not %s",
                      name ? name : "?", wanted);
}

int gguf_value_get_int(uint64_t *u, int64_t *i, int *is_signed, const gguf_value *v,
                       gguf_error *err) {
    const uint8_t *p = v->raw;
    bool big = v->big_endian;
    uint64_t uv = 0;
    int64_t iv = 0;
    int s = 0;
    switch (v->type) {
    case GGUF_VTYPE_U8: uv = p[0]; break;
    case GGUF_VTYPE_BOOL: uv = p[0]; break;
    case GGUF_VTYPE_I8: iv = (int8_t)p[0]; s = 1; break;
    case GGUF_VTYPE_U16: uv = gguf__load16(p, big); break;
    case GGUF_VTYPE_I16: iv = (int16_t)gguf__load16(p, big); s = 1; break;
    case GGUF_VTYPE_U32: uv = gguf__load32(p, big); break;
    case GGUF_VTYPE_I32: iv = (int32_t)gguf__load32(p, big); s = 1; break;
    case GGUF_VTYPE_U64: uv = gguf__load64(p, big); break;
    case GGUF_VTYPE_I64: iv = (int64_t)gguf__load64(p, big); s = 1; break;
    default: return wrong_type(err, v, "an integer");
    }
    if (s) {
        *i = iv;
        if (u != NULL)
            *u = (uint64_t)iv;
    } else {
        *u = uv;
        if (i != NULL)
            *i = (int64_t)uv;
    }
    *is_signed = s;
    return 0;
}

int gguf_value_get_u64(uint64_t *out, const gguf_value *v, gguf_error *err) {
    uint64_t u;
    int64_t i;
    int s;
    if (v->type == GGUF_VTYPE_BOOL || gguf_value_get_int(&u, &i, &s, v, NULL) != 0 || s)
        return wrong_type(err, v, "an unsigned integer");
    *out = u;
    return 0;
}

int gguf_value_get_i64(int64_t *out, const gguf_value *v, gguf_error *err) {
    uint64_t u;
    int64_t i;
    int s;
    if (v->type == GGUF_VTYPE_BOOL || gguf_value_get_int(&u, &i, &s, v, NULL) != 0 || !s)
        return wrong_type(err, v, "a signed integer");
    *out = i;
    return 0;
}

int gguf_value_get_f64(double *out, const gguf_value *v, gguf_error *err) {
    if (v->type == GGUF_VTYPE_F32) {
        uint32_t bits = gguf__load32(v->raw, v->big_endian);
        float f;
        memcpy(&f, &bits, 4);
        *out = f;
        return 0;
    }
    if (v->type == GGUF_VTYPE_F64) {
        uint64_t bits = gguf__load64(v->raw, v->big_endian);
        memcpy(out, &bits, 8);
        return 0;
    }
    return wrong_type(err, v, "a float");
}

int gguf_value_get_str(const char **s, uint64_t *len, const gguf_value *v, gguf_error *err) {
    if (v->type != GGUF_VTYPE_STRING)
        return wrong_type(err, v, "STRING");
    *len = v->raw_len - len_width(v);
    *s = (const char *)v->raw + len_width(v);
    return 0;
}

int gguf_value_get_bool_byte(uint8_t *out, const gguf_value *v, gguf_error *err) {
    if (v->type != GGUF_VTYPE_BOOL)
        return wrong_type(err, v, "BOOL");
    *out = v->raw[0];
    return 0;
}

/* ---- walking arrays ---- */

void gguf_value_iter_init(gguf_value_iter *it, const gguf_value *array) {
    it->array = array;
    it->index = 0;
    if (array->type != GGUF_VTYPE_ARRAY) {
        it->pos = NULL;
        it->remain = 0;
        return;
    }
    size_t head = 4 + len_width(array);
    it->pos = array->raw + head;
    it->remain = gguf_value_count(array);
}

/* Encoded size of the element at p (already checked when the value was read or built). */
static uint64_t elem_size(const uint8_t *p, uint32_t elem, const gguf_value *v) {
    size_t w = len_width(v);
    if (elem == GGUF_VTYPE_STRING)
        return w + load_len(p, v);
    if (elem != GGUF_VTYPE_ARRAY)
        return gguf_vtype_size(elem);
    uint32_t sub = gguf__load32(p, v->big_endian);
    uint64_t count = load_len(p + 4, v);
    uint64_t n = 4 + w;
    if (sub != GGUF_VTYPE_STRING && sub != GGUF_VTYPE_ARRAY)
        return n + count * gguf_vtype_size(sub);
    for (uint64_t i = 0; i < count; i++)
        n += elem_size(p + n, sub, v);
    return n;
}

int gguf_value_iter_next(gguf_value_iter *it, gguf_value *elem) {
    if (it->remain == 0)
        return 0;
    const gguf_value *a = it->array;
    uint32_t type = gguf_value_elem_type(a);
    uint64_t n = elem_size(it->pos, type, a);
    elem->raw = it->pos;
    elem->raw_len = n;
    elem->type = type;
    elem->big_endian = a->big_endian;
    elem->wide = a->wide;
    elem->owned = 0;
    elem->reserved_ = 0;
    it->pos += n;
    it->remain--;
    it->index++;
    return 1;
}

/* ---- the key list ---- */

size_t gguf_kv_count(const gguf_file *f) {
    return f->n_kv;
}

const char *gguf_kv_key(const gguf_file *f, size_t i, size_t *len) {
    if (i >= f->n_kv)
        return NULL;
    if (len != NULL)
        *len = (size_t)f->kv[i].key_len;
    return f->kv[i].key;
}

const gguf_value *gguf_kv_value(const gguf_file *f, size_t i) {
    return i < f->n_kv ? &f->kv[i].value : NULL;
}

uint64_t gguf_kv_source_offset(const gguf_file *f, size_t i) {
    return i < f->n_kv ? f->kv[i].src_offset : GGUF_ERROR_NO_OFFSET;
}
