/* Metadata values as JSON: the one rendering that `show --json`, `get --json` and the catalog
 * share (base/json.c writes the strings and numbers). BOOL as true/false, integers exactly,
 * FLOAT32 with 9 and FLOAT64 with 17 significant digits, strings as valid UTF-8 JSON, arrays
 * (nested too) as JSON arrays. */
#include "format/format.h"

void gguf__value_json(gguf__buf *b, const gguf_value *v, size_t limit) {
    uint32_t t = gguf_value_type(v);
    if (b->failed || (limit != 0 && b->len > limit))
        return;
    if (t == GGUF_VTYPE_ARRAY) {
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
    } else if (t == GGUF_VTYPE_BOOL) {
        uint8_t x = 0;
        gguf_value_get_bool_byte(&x, v, NULL);
        gguf__buf_str(b, x ? "true" : "false");
    } else if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double d = 0;
        gguf_value_get_f64(&d, v, NULL);
        gguf__json_double(b, d, t == GGUF_VTYPE_F32 ? 9 : 17);
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s = "";
        uint64_t len = 0;
        gguf_value_get_str(&s, &len, v, NULL);
        gguf__json_str(b, s, (size_t)len);
    } else {
        uint64_t u = 0;
        int64_t i = 0;
        int is_signed = 0;
        if (gguf_value_get_int(&u, &i, &is_signed, v, NULL) != 0)
            gguf__buf_str(b, "null");
        else if (is_signed)
            gguf__json_i64(b, i);
        else
            gguf__json_u64(b, u);
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

void gguf_text_free(gguf_text *t) {
    if (t == NULL)
        return;
    gguf__free(t->data);
    t->data = NULL;
    t->len = t->cap = 0;
}
