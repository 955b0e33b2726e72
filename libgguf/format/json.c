/* Metadata values as JSON: the one rendering that `show --json`, `get --json` and the catalog
 * share (base/json.c writes the strings and numbers). BOOL as true/false, integers exactly,
 * FLOAT32 with 9 and FLOAT64 with 17 significant digits, strings as valid UTF-8 JSON, arrays
 * (nested too) as JSON arrays. Arrays of scalars and strings are walked in their encoded bytes
 * directly: a vocabulary is a few arrays of hundreds of thousands of elements. */
#include "format/format.h"

#include <string.h>

/* One scalar of type t, encoded at p in the value's byte order, written at o (room:
 * GGUF__JSON_NUM_ROOM). Returns the end. */
static uint8_t *scalar_to(uint8_t *o, uint32_t t, const uint8_t *p, bool big) {
    switch (t) {
    case GGUF_VTYPE_U8: return gguf__json_u64_to(o, p[0]);
    case GGUF_VTYPE_I8: return gguf__json_i64_to(o, (int8_t)p[0]);
    case GGUF_VTYPE_U16: return gguf__json_u64_to(o, gguf__load16(p, big));
    case GGUF_VTYPE_I16: return gguf__json_i64_to(o, (int16_t)gguf__load16(p, big));
    case GGUF_VTYPE_U32: return gguf__json_u64_to(o, gguf__load32(p, big));
    case GGUF_VTYPE_I32: return gguf__json_i64_to(o, (int32_t)gguf__load32(p, big));
    case GGUF_VTYPE_U64: return gguf__json_u64_to(o, gguf__load64(p, big));
    case GGUF_VTYPE_I64: return gguf__json_i64_to(o, (int64_t)gguf__load64(p, big));
    case GGUF_VTYPE_BOOL:
        memcpy(o, p[0] ? "true" : "false", p[0] ? 4 : 5);
        return o + (p[0] ? 4 : 5);
    case GGUF_VTYPE_F32: {
        uint32_t bits = gguf__load32(p, big);
        float f;
        memcpy(&f, &bits, 4);
        return gguf__json_f32_to(o, f);
    }
    case GGUF_VTYPE_F64: {
        uint64_t bits = gguf__load64(p, big);
        double d;
        memcpy(&d, &bits, 8);
        return gguf__json_double_to(o, d, 17);
    }
    default: memcpy(o, "null", 4); return o + 4;
    }
}

static void scalar_json(gguf__buf *b, uint32_t t, const uint8_t *p, bool big) {
    uint8_t *o = gguf__buf_grow(b, GGUF__JSON_NUM_ROOM);
    if (o != NULL)
        b->len -= GGUF__JSON_NUM_ROOM - (size_t)(scalar_to(o, t, p, big) - o);
}

/* An array whose elements are scalars or strings, from its bytes (checked by the parser, or
 * built by an edit). */
static void flat_array_json(gguf__buf *b, const gguf_value *v, size_t limit) {
    bool big = v->big_endian;
    uint32_t elem = gguf_value_elem_type(v);
    uint64_t count = gguf_value_count(v);
    size_t w = v->wide ? 8 : 4;
    const uint8_t *p = v->raw + 4 + w;
    size_t size = gguf_vtype_size(elem);
    if (limit == 0 && (elem == GGUF_VTYPE_STRING || size > 0) &&
        v->raw_len < (SIZE_MAX - 2 - GGUF__JSON_SLACK) / (GGUF__JSON_NUM_ROOM + 1)) {
        /* one reservation for the whole array: a string needs at most 6 bytes per byte, its
         * quotes and a comma, all within 7 times its encoded size; a number at most
         * GGUF__JSON_NUM_ROOM and a comma, per element of at least one byte */
        size_t room = elem == GGUF_VTYPE_STRING ? (size_t)v->raw_len * 7
                                                : (size_t)count * (GGUF__JSON_NUM_ROOM + 1);
        room += 2 + GGUF__JSON_SLACK;
        uint8_t *o = gguf__buf_grow(b, room);
        if (o == NULL)
            return;
        uint8_t *start = o;
        *o++ = '[';
        if (elem == GGUF_VTYPE_STRING) {
            o = gguf__json_str_list(o, p, count, w == 8, big, v->raw + v->raw_len);
        } else if (elem == GGUF_VTYPE_F32 && big == gguf__host_is_big()) {
            /* scores: a loop of their own, without a switch and a byte-order test each */
            for (uint64_t i = 0; i < count; i++, p += 4) {
                float f;
                memcpy(&f, p, 4);
                *o = ',';
                o = gguf__json_f32_to(o + (i > 0), f);
            }
        } else if (elem == GGUF_VTYPE_I32 && big == gguf__host_is_big()) {
            for (uint64_t i = 0; i < count; i++, p += 4) { /* token types */
                int32_t n;
                memcpy(&n, p, 4);
                *o = ',';
                o = gguf__json_i64_to(o + (i > 0), n);
            }
        } else {
            for (uint64_t i = 0; i < count; i++, p += size) {
                if (i > 0)
                    *o++ = ',';
                o = scalar_to(o, elem, p, big);
            }
        }
        *o++ = ']';
        b->len -= room - (size_t)(o - start);
        return;
    }
    gguf__buf_add(b, "[", 1);
    for (uint64_t i = 0; i < count; i++) {
        if (b->failed || (limit != 0 && b->len > limit))
            return;
        if (i > 0)
            gguf__buf_add(b, ",", 1);
        if (elem == GGUF_VTYPE_STRING) {
            uint64_t n = w == 8 ? gguf__load64(p, big) : gguf__load32(p, big);
            gguf__json_str(b, p + w, (size_t)n);
            p += w + n;
        } else {
            scalar_json(b, elem, p, big);
            p += size;
        }
    }
    gguf__buf_add(b, "]", 1);
}

void gguf__value_json(gguf__buf *b, const gguf_value *v, size_t limit) {
    uint32_t t = gguf_value_type(v);
    if (b->failed || (limit != 0 && b->len > limit))
        return;
    if (t == GGUF_VTYPE_ARRAY && gguf_value_elem_type(v) != GGUF_VTYPE_ARRAY) {
        flat_array_json(b, v, limit);
    } else if (t == GGUF_VTYPE_ARRAY) {
        gguf_value_iter it;
        gguf_value e;
        gguf_value_iter_init(&it, v);
        gguf__buf_add(b, "[", 1);
        for (int first = 1; gguf_value_iter_next(&it, &e); first = 0) {
            if (b->failed || (limit != 0 && b->len > limit))
                return;
            if (!first)
                gguf__buf_add(b, ",", 1);
            gguf__value_json(b, &e, limit);
        }
        gguf__buf_add(b, "]", 1);
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s = "";
        uint64_t len = 0;
        gguf_value_get_str(&s, &len, v, NULL);
        gguf__json_str(b, s, (size_t)len);
    } else {
        scalar_json(b, t, v->raw, v->big_endian);
    }
}

/* The caller's gguf_text is the library's buffer under another name. */
static gguf__buf as_buf(const gguf_text *t) {
    return (gguf__buf){.data = (uint8_t *)t->data, .len = t->len, .cap = t->cap};
}

static int give_back(gguf_text *t, const gguf__buf *b) {
    t->data = (char *)b->data;
    t->cap = b->cap;
    if (b->failed)
        return GGUF_ENOMEM; /* t->len stays where it was before the call */
    t->len = b->len;
    return 0;
}

int gguf_json_value(gguf_text *t, const gguf_value *v) {
    gguf__buf b = as_buf(t);
    gguf__value_json(&b, v, 0);
    return give_back(t, &b);
}

int gguf_json_string(gguf_text *t, const void *s, size_t n) {
    gguf__buf b = as_buf(t);
    gguf__json_str(&b, s, n);
    return give_back(t, &b);
}

size_t gguf_text_utf8_len(const void *s, size_t n) {
    return gguf__utf8_len(s, n);
}

void gguf_text_free(gguf_text *t) {
    if (t == NULL)
        return;
    gguf__free(t->data);
    t->data = NULL;
    t->len = t->cap = 0;
}
