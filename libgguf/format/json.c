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

/* Where a value's JSON goes: appended to b, stopped once b holds more than limit (when not 0),
 * and with `write`, handed over in pieces: b then never holds much more than a piece (or one
 * long string), so that a vocabulary is never rendered whole. */
typedef struct json_out {
    gguf__buf *b;
    size_t limit;
    gguf_json_write_fn write;
    void *user;
    int rc; /* what write returned, once it was not 0 */
} json_out;

/* A piece: small enough to stay in the CPU's cache between its rendering and its writing. */
#define PIECE ((size_t)64 << 10)

static bool out_stopped(const json_out *j) {
    return j->b->failed || j->rc != 0 || (j->limit != 0 && j->b->len > j->limit);
}

/* Hands what is rendered to write when it makes a piece, or when `all`. */
static void out_hand_over(json_out *j, bool all) {
    if (j->write == NULL || out_stopped(j) || j->b->len == 0 || (!all && j->b->len < PIECE))
        return;
    j->rc = j->write(j->user, (const char *)j->b->data, j->b->len);
    j->b->len = 0;
}

static void out_add(json_out *j, const char *s, size_t n) {
    gguf__buf_add(j->b, s, n);
}

static void scalar_json(json_out *j, uint32_t t, const uint8_t *p, bool big) {
    uint8_t *o = gguf__buf_grow(j->b, GGUF__JSON_NUM_ROOM);
    if (o != NULL)
        j->b->len -= GGUF__JSON_NUM_ROOM - (size_t)(scalar_to(o, t, p, big) - o);
}

/* How much more to render before handing a piece over (a round's worth when nothing is handed
 * over: the value is kept whole). */
static size_t piece_left(const json_out *j) {
    return j->write == NULL ? PIECE : j->b->len < PIECE ? PIECE - j->b->len : 0;
}

/* count encoded strings at p, a piece at a time: each round reserves what is left to make a
 * piece and writes the strings that surely fit; a string that might not fit in what is left
 * starts a piece (its own, when it is longer than a piece). */
static void string_array_json(json_out *j, const uint8_t *p, uint64_t count, bool wide,
                              bool big, const uint8_t *end) {
    for (uint64_t left = count; left > 0 && !out_stopped(j);) {
        uint64_t n = wide ? gguf__load64(p, big) : gguf__load32(p, big);
        if (n > (SIZE_MAX - 3 - GGUF__JSON_SLACK - PIECE) / 6) {
            j->b->failed = true;
            return;
        }
        if (6 * (size_t)n > piece_left(j)) /* the piece so far first, then this one */
            out_hand_over(j, true);
        size_t fill = piece_left(j) > 6 * (size_t)n ? piece_left(j) : 6 * (size_t)n;
        size_t room = fill + 3 + GGUF__JSON_SLACK;
        uint8_t *o = gguf__buf_grow(j->b, room);
        if (o == NULL)
            return;
        uint8_t *start = o;
        o = gguf__json_str_list(o, start + room - 3 - GGUF__JSON_SLACK, &p, &left, left == count,
                                wide, big, end);
        j->b->len -= room - (size_t)(o - start);
        out_hand_over(j, false);
    }
}

/* count numbers of type elem (size bytes each) at p, a piece at a time: each round writes as
 * many as surely fill what is left to make a piece (at least one). */
static void number_array_json(json_out *j, const uint8_t *p, uint64_t count, uint32_t elem,
                              size_t size, bool big) {
    bool host = big == gguf__host_is_big();
    for (uint64_t i = 0; i < count && !out_stopped(j);) {
        uint64_t per_round = piece_left(j) / (GGUF__JSON_NUM_ROOM + 1) + 1;
        uint64_t k = count - i < per_round ? count - i : per_round;
        size_t room = (size_t)k * (GGUF__JSON_NUM_ROOM + 1);
        uint8_t *o = gguf__buf_grow(j->b, room);
        if (o == NULL)
            return;
        uint8_t *start = o;
        uint64_t stop = i + k;
        /* scores and token types: loops of their own, without a switch and a byte-order test
         * per element; a comma is stored before each and then stepped over but for the first */
        if (elem == GGUF_VTYPE_F32 && host) {
            for (; i < stop; i++, p += 4) {
                float f;
                memcpy(&f, p, 4);
                *o = ',';
                o = gguf__json_f32_to(o + (i > 0), f);
            }
        } else if (elem == GGUF_VTYPE_I32 && host) {
            for (; i < stop; i++, p += 4) {
                int32_t n;
                memcpy(&n, p, 4);
                *o = ',';
                o = gguf__json_i64_to(o + (i > 0), n);
            }
        } else {
            for (; i < stop; i++, p += size) {
                *o = ',';
                o = scalar_to(o + (i > 0), elem, p, big);
            }
        }
        j->b->len -= room - (size_t)(o - start);
        out_hand_over(j, false);
    }
}

/* An array whose elements are scalars or strings, from its bytes (checked by the parser, or
 * built by an edit). */
static void flat_array_json(json_out *j, const gguf_value *v) {
    uint32_t elem = gguf_value_elem_type(v);
    size_t w = v->wide ? 8 : 4;
    out_add(j, "[", 1);
    if (elem == GGUF_VTYPE_STRING)
        string_array_json(j, v->raw + 4 + w, gguf_value_count(v), w == 8, v->big_endian,
                          v->raw + v->raw_len);
    else
        number_array_json(j, v->raw + 4 + w, gguf_value_count(v), elem, gguf_vtype_size(elem),
                          v->big_endian);
    out_add(j, "]", 1);
}

static void value_json(json_out *j, const gguf_value *v) {
    uint32_t t = gguf_value_type(v);
    if (out_stopped(j))
        return;
    if (t == GGUF_VTYPE_ARRAY && gguf_value_elem_type(v) != GGUF_VTYPE_ARRAY) {
        flat_array_json(j, v);
    } else if (t == GGUF_VTYPE_ARRAY) {
        gguf_value_iter it;
        gguf_value e;
        gguf_value_iter_init(&it, v);
        out_add(j, "[", 1);
        for (int first = 1; gguf_value_iter_next(&it, &e); first = 0) {
            if (out_stopped(j))
                return;
            if (!first)
                out_add(j, ",", 1);
            value_json(j, &e);
        }
        out_add(j, "]", 1);
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s = "";
        uint64_t len = 0;
        gguf_value_get_str(&s, &len, v, NULL);
        gguf__json_str(j->b, s, (size_t)len);
    } else {
        scalar_json(j, t, v->raw, v->big_endian);
    }
    out_hand_over(j, false);
}

void gguf__value_json(gguf__buf *b, const gguf_value *v, size_t limit) {
    json_out j = {.b = b, .limit = limit};
    value_json(&j, v);
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

int gguf_json_value_write(const gguf_value *v, gguf_json_write_fn write, void *user) {
    gguf__buf b = {0};
    json_out j = {.b = &b, .write = write, .user = user};
    value_json(&j, v);
    out_hand_over(&j, true);
    int rc = b.failed ? GGUF_ENOMEM : j.rc;
    gguf__buf_free(&b);
    return rc;
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
