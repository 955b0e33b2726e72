/* libFuzzer target: the reader and the writer on arbitrary bytes. Opens the bytes (strictly and
 * leniently), walks every key, value and tensor, lints, writes the file back to memory and
 * checks the symmetry: an accepted input is reproduced byte for byte, and the output reopens
 * with the same keys and tensors. Any violation aborts (a crash for the fuzzer). */
#include <libgguf/gguf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                             \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "fuzz_read: check failed: %s (line %d)\n", #cond, __LINE__);        \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

static uint64_t walk(const gguf_value *v, int depth) {
    uint64_t n = 1;
    uint64_t u;
    int64_t i;
    int s;
    double d;
    const char *str;
    uint64_t len;
    uint8_t b;
    (void)gguf_value_get_int(&u, &i, &s, v, NULL);
    (void)gguf_value_get_f64(&d, v, NULL);
    (void)gguf_value_get_bool_byte(&b, v, NULL);
    if (gguf_value_get_str(&str, &len, v, NULL) == 0 && len > 0)
        n += (uint8_t)str[len - 1] == 0xff; /* touch the last byte */
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY) {
        gguf_value_iter it;
        gguf_value e;
        uint64_t count = 0;
        gguf_value_iter_init(&it, v);
        while (gguf_value_iter_next(&it, &e)) {
            n += walk(&e, depth + 1);
            count++;
        }
        CHECK(count == gguf_value_count(v));
    }
    return n;
}

static void same_content(const gguf_file *a, const gguf_file *b) {
    CHECK(gguf_kv_count(a) == gguf_kv_count(b));
    CHECK(gguf_tensor_count(a) == gguf_tensor_count(b));
    for (size_t i = 0; i < gguf_kv_count(a); i++) {
        size_t la, lb;
        const char *ka = gguf_kv_key(a, i, &la), *kb = gguf_kv_key(b, i, &lb);
        CHECK(la == lb && memcmp(ka, kb, la) == 0);
        CHECK(gguf_value_equal(gguf_kv_value(a, i), gguf_kv_value(b, i)) == 1);
    }
    for (size_t i = 0; i < gguf_tensor_count(a); i++) {
        gguf_tensor_info x, y;
        gguf_tensor_get(&x, a, i);
        gguf_tensor_get(&y, b, i);
        CHECK(x.name_len == y.name_len && memcmp(x.name, y.name, x.name_len) == 0);
        CHECK(x.type == y.type && x.nbytes == y.nbytes && x.n_dims == y.n_dims);
        if (x.nbytes != UINT64_MAX && x.nbytes > 0)
            CHECK(memcmp(gguf_tensor_data(a, i), gguf_tensor_data(b, i), (size_t)x.nbytes) == 0);
    }
}

static void one(const uint8_t *data, size_t size, unsigned flags) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_file_open_memory(&f, data, size, 0, flags, &err) != 0) {
        CHECK(err.code < 0 && err.message[0] != '\0');
        CHECK(err.offset == GGUF_ERROR_NO_OFFSET || err.offset <= size);
        return;
    }
    for (size_t i = 0; i < gguf_kv_count(f); i++)
        walk(gguf_kv_value(f, i), 0);
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        CHECK(t.nbytes == UINT64_MAX || t.offset + t.nbytes <= size - gguf_file_data_offset(f));
    }
    CHECK(gguf_file_lint(f, NULL, NULL, NULL) >= 0);
    void *out;
    size_t out_len;
    gguf_error_clear(&err);
    if (gguf_file_write_memory(&out, &out_len, f, NULL, &err) == 0) {
        CHECK(out_len == size && memcmp(out, data, size) == 0); /* symmetry */
        gguf_file *g;
        CHECK(gguf_file_open_memory(&g, out, out_len, 0, flags, NULL) == 0);
        same_content(f, g);
        gguf_file_free(g);
        free(out);
    } else {
        CHECK(err.message[0] != '\0');
    }
    /* other versions and byte orders read back with the same content */
    gguf_write_options conv = GGUF_WRITE_OPTIONS_INIT;
    conv.version = 3;
    conv.endian = gguf_file_endian(f) == GGUF_ENDIAN_BIG ? GGUF_ENDIAN_LITTLE : GGUF_ENDIAN_BIG;
    if (gguf_file_write_memory(&out, &out_len, f, &conv, NULL) == 0) {
        gguf_file *g;
        CHECK(gguf_file_open_memory(&g, out, out_len, 0, flags, NULL) == 0);
        CHECK(gguf_kv_count(g) == gguf_kv_count(f) && gguf_tensor_count(g) == gguf_tensor_count(f));
        for (size_t i = 0; i < gguf_kv_count(f); i++)
            CHECK(gguf_value_equal(gguf_kv_value(f, i), gguf_kv_value(g, i)) == 1);
        gguf_file_free(g);
        free(out);
    }
    gguf_file_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    one(data, size, 0);
    one(data, size, GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES);
    return 0;
}
