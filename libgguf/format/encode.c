/* Encoding in a file's byte order and length width: numbers, and whole values transcoded from
 * the encoding they were read in to another one (a value keeps the bytes it was read as, so an
 * unchanged value is written back exactly; a conversion re-encodes it here). */
#include "format/format.h"

#include <string.h>

void gguf__sink_u32(gguf__sink *s, uint32_t v) {
    uint8_t *at = gguf__buf_grow(&s->b, 4);
    if (at != NULL)
        gguf__store32(at, v, s->big);
}

void gguf__sink_u64(gguf__sink *s, uint64_t v) {
    uint8_t *at = gguf__buf_grow(&s->b, 8);
    if (at != NULL)
        gguf__store64(at, v, s->big);
}

void gguf__sink_len(gguf__sink *s, uint64_t v) {
    if (s->wide)
        gguf__sink_u64(s, v);
    else
        gguf__sink_u32(s, (uint32_t)v);
}

void gguf__sink_scalar(gguf__sink *s, uint32_t type, const void *host) {
    size_t n = gguf_vtype_size(type);
    uint8_t b[8];
    uint16_t x16;
    uint32_t x32;
    uint64_t x64;
    switch (n) {
    case 2: memcpy(&x16, host, 2); gguf__store16(b, x16, s->big); break;
    case 4: memcpy(&x32, host, 4); gguf__store32(b, x32, s->big); break;
    case 8: memcpy(&x64, host, 8); gguf__store64(b, x64, s->big); break;
    default: memcpy(b, host, n); break;
    }
    gguf__buf_add(&s->b, b, n);
}

/* Copies n scalars of `size` bytes, swapping each when the byte orders differ. */
static void emit_scalars(gguf__sink *s, const uint8_t *p, uint64_t n, size_t size, bool swap) {
    uint8_t *at = gguf__buf_grow(&s->b, (size_t)(n * size));
    if (at == NULL)
        return;
    if (!swap || size == 1) {
        memcpy(at, p, (size_t)(n * size));
        return;
    }
    for (uint64_t i = 0; i < n; i++, p += size, at += size) {
        for (size_t b = 0; b < size; b++)
            at[b] = p[size - 1 - b];
    }
}

void gguf__value_emit(gguf__sink *s, const gguf_value *v) {
    if ((bool)v->big_endian == s->big && (bool)v->wide == s->wide) {
        gguf__buf_add(&s->b, v->raw, (size_t)v->raw_len);
        return;
    }
    bool swap = (bool)v->big_endian != s->big;
    if (v->type == GGUF_VTYPE_STRING) {
        const char *str;
        uint64_t len;
        gguf_value_get_str(&str, &len, v, NULL);
        gguf__sink_len(s, len);
        gguf__buf_add(&s->b, str, (size_t)len);
        return;
    }
    if (v->type != GGUF_VTYPE_ARRAY) {
        emit_scalars(s, v->raw, 1, gguf_vtype_size(v->type), swap);
        return;
    }
    uint32_t elem = gguf_value_elem_type(v);
    uint64_t count = gguf_value_count(v);
    gguf__sink_u32(s, elem);
    gguf__sink_len(s, count);
    size_t size = gguf_vtype_size(elem);
    if (size != 0) {
        emit_scalars(s, v->raw + 4 + (v->wide ? 8 : 4), count, size, swap);
        return;
    }
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    while (gguf_value_iter_next(&it, &e))
        gguf__value_emit(s, &e);
}

/* ---- comparing values ---- */

int gguf_value_equal(const gguf_value *a, const gguf_value *b) {
    if (a->type != b->type)
        return 0;
    if (a->big_endian == b->big_endian && a->wide == b->wide)
        return a->raw_len == b->raw_len && memcmp(a->raw, b->raw, (size_t)a->raw_len) == 0;
    /* different encodings: compare both in one */
    gguf__sink x = {.wide = true}, y = {.wide = true};
    gguf__value_emit(&x, a);
    gguf__value_emit(&y, b);
    int eq = x.b.failed || y.b.failed
                 ? -1
                 : x.b.len == y.b.len && memcmp(x.b.data, y.b.data, x.b.len) == 0;
    gguf__buf_free(&x.b);
    gguf__buf_free(&y.b);
    return eq;
}
