/* Byte-order-aware output into a growing memory buffer. Headers are built here, then written
 * to a file in one piece; a failed allocation marks the sink failed and later calls do nothing. */
#include "internal.h"

#include <string.h>

static uint8_t *reserve(gguf__sink *s, size_t n) {
    if (s->failed)
        return NULL;
    if (s->cap - s->len < n) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap - s->len < n) {
            if (cap > SIZE_MAX / 2) {
                s->failed = true;
                return NULL;
            }
            cap *= 2;
        }
        uint8_t *p = gguf__realloc(s->buf, cap);
        if (p == NULL) {
            s->failed = true;
            return NULL;
        }
        s->buf = p;
        s->cap = cap;
    }
    uint8_t *at = s->buf + s->len;
    s->len += n;
    return at;
}

void gguf__sink_bytes(gguf__sink *s, const void *p, size_t n) {
    uint8_t *at = reserve(s, n);
    if (at != NULL && n > 0)
        memcpy(at, p, n);
}

void gguf__sink_zeros(gguf__sink *s, size_t n) {
    uint8_t *at = reserve(s, n);
    if (at != NULL && n > 0)
        memset(at, 0, n);
}

void gguf__sink_u32(gguf__sink *s, uint32_t v) {
    uint8_t *at = reserve(s, 4);
    if (at != NULL)
        gguf__store32(at, v, s->big);
}

void gguf__sink_u64(gguf__sink *s, uint64_t v) {
    uint8_t *at = reserve(s, 8);
    if (at != NULL)
        gguf__store64(at, v, s->big);
}

void gguf__sink_len(gguf__sink *s, uint64_t v) {
    if (s->wide)
        gguf__sink_u64(s, v);
    else
        gguf__sink_u32(s, (uint32_t)v);
}

void gguf__sink_free(gguf__sink *s) {
    gguf__free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
}

/* Copies n scalars of `size` bytes, swapping each when the byte orders differ. */
static void emit_scalars(gguf__sink *s, const uint8_t *p, uint64_t n, size_t size, bool swap) {
    uint8_t *at = reserve(s, (size_t)(n * size));
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
        gguf__sink_bytes(s, v->raw, (size_t)v->raw_len);
        return;
    }
    bool swap = (bool)v->big_endian != s->big;
    if (v->type == GGUF_VTYPE_STRING) {
        const char *str;
        uint64_t len;
        gguf_value_get_str(&str, &len, v, NULL);
        gguf__sink_len(s, len);
        gguf__sink_bytes(s, str, (size_t)len);
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
