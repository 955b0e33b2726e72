/* libFuzzer target: values from text (gguf_kv_set_text: numbers, bools, strings, JSON arrays)
 * and the JSON writer. The first byte picks the value type (and, for arrays, the element type);
 * the rest is the text. An accepted value must survive a write and a read, and its JSON, set
 * again as text, must give the same value back (when that JSON can mean it: finite floats,
 * strings that were valid UTF-8). Any violation aborts. */
#include <libgguf/gguf.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                             \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "fuzz_json: check failed: %s (line %d)\n", #cond, __LINE__);        \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

/* Can the value's JSON be read back as the same value? */
static int round_trips(const gguf_value *v) {
    uint32_t t = gguf_value_type(v);
    if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double d;
        return gguf_value_get_f64(&d, v, NULL) == 0 && isfinite(d);
    }
    if (t == GGUF_VTYPE_STRING || t == GGUF_VTYPE_BOOL)
        return 0; /* strings: the writer maps invalid UTF-8; bools: stored bytes other than 0/1 */
    if (t != GGUF_VTYPE_ARRAY)
        return 1;
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    while (gguf_value_iter_next(&it, &e)) {
        if (!round_trips(&e))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    uint32_t sel = data[0];
    uint32_t vtype = sel % 14 == 13 ? GGUF_VTYPE_ARRAY : sel % 14;
    uint32_t elem = (sel / 14) % 14; /* 13: inferred from the JSON */
    if (elem == GGUF_VTYPE_ARRAY || elem == 13)
        elem = GGUF_VTYPE_COUNT;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    gguf_file *f;
    CHECK(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_kv_set_text(f, "k", vtype, elem, text, len, &err);
    if (rc != 0) {
        CHECK(err.message[0] != '\0');
        CHECK(gguf_kv_find(f, "k") == -1);
        gguf_file_free(f);
        return 0;
    }
    const gguf_value *v = gguf_kv_value(f, (size_t)gguf_kv_find(f, "k"));
    void *buf;
    size_t n;
    CHECK(gguf_file_write_memory(&buf, &n, f, NULL, NULL) == 0);
    gguf_file *g;
    CHECK(gguf_file_open_memory(&g, buf, n, 0, 0, NULL) == 0);
    const gguf_value *w = gguf_kv_value(g, 0);
    CHECK(gguf_value_equal(v, w) == 1);
    gguf_text json = {0};
    CHECK(gguf_json_value(&json, w) == 0);
    if (gguf_value_type(w) == GGUF_VTYPE_ARRAY && round_trips(w) &&
        gguf_value_elem_type(w) != GGUF_VTYPE_ARRAY && gguf_value_count(w) > 0) {
        CHECK(gguf_kv_set_text(f, "again", GGUF_VTYPE_ARRAY, gguf_value_elem_type(w), json.data,
                               json.len, NULL) == 0);
        CHECK(gguf_value_equal(w, gguf_kv_value(f, (size_t)gguf_kv_find(f, "again"))) == 1);
    }
    gguf_text_free(&json);
    gguf_file_free(g);
    free(buf);
    gguf_file_free(f);
    return 0;
}
