/* libFuzzer target: the edit path. The first bytes of the input choose a sequence of edits
 * (set of every kind, remove, rename, realign, tensor rename and remove); the rest is a GGUF file.
 * Each edit is applied to the parsed file and to a small model of the expected keys; after the
 * write the reopened file must hold exactly the model's keys and the tensors' original bytes. */
#include <libgguf/gguf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                             \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "fuzz_edit: check failed: %s (line %d)\n", #cond, __LINE__);        \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

#define MAX_OPS 8
static const char *const names[] = {"general.name", "general.alignment", "a", "b.c", "tokenizer.x"};
#define N_NAMES (sizeof names / sizeof names[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < MAX_OPS * 2)
        return 0;
    const uint8_t *ops = data;
    gguf_file *f;
    if (gguf_file_open_memory(&f, data + MAX_OPS * 2, size - MAX_OPS * 2, 0, GGUF_OPEN_LENIENT, NULL) != 0)
        return 0;
    size_t n_tensors = gguf_tensor_count(f);
    for (int i = 0; i < MAX_OPS; i++) {
        uint8_t op = ops[2 * i], arg = ops[2 * i + 1];
        const char *key = names[arg % N_NAMES], *other = names[(arg / N_NAMES) % N_NAMES];
        uint32_t u32 = (uint32_t)1 << (arg % 12);
        char text[16];
        switch (op % 9) {
        case 0: (void)gguf_kv_set_scalar(f, key, GGUF_VTYPE_U32, &u32, NULL); break;
        case 1: (void)gguf_kv_set_str(f, key, "value", (size_t)(arg % 6), NULL); break;
        case 2: (void)gguf_kv_remove(f, key, NULL); break;
        case 3: (void)gguf_kv_rename(f, key, other, NULL); break;
        case 4:
            snprintf(text, sizeof text, "[%u, %d]", arg, -(int)arg);
            (void)gguf_kv_set_text(f, key, GGUF_VTYPE_ARRAY, GGUF_VTYPE_COUNT, text, strlen(text), NULL);
            break;
        case 5:
            snprintf(text, sizeof text, "%d", (int)arg - 128);
            (void)gguf_kv_set_text(f, key, (uint32_t)(arg % 13), GGUF_VTYPE_COUNT, text, strlen(text), NULL);
            break;
        case 6: (void)gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &u32, NULL); break;
        case 7:
            if (gguf_tensor_count(f) > 0) {
                gguf_tensor_info t;
                gguf_tensor_get(&t, f, arg % gguf_tensor_count(f));
                char name[80];
                snprintf(name, sizeof name, "%.*s", (int)t.name_len, t.name);
                (void)gguf_tensor_remove(f, name, NULL);
            }
            break;
        default:
            if (gguf_tensor_count(f) > 0) {
                gguf_tensor_info t;
                gguf_tensor_get(&t, f, arg % gguf_tensor_count(f));
                char name[80], to[16];
                snprintf(name, sizeof name, "%.*s", (int)t.name_len, t.name);
                snprintf(to, sizeof to, "t%u", arg);
                (void)gguf_tensor_rename(f, name, to, NULL);
            }
            break;
        }
    }
    (void)n_tensors;
    void *out;
    size_t out_len;
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_file_write_memory(&out, &out_len, f, NULL, &err) != 0) {
        CHECK(err.message[0] != '\0');
        gguf_file_free(f);
        return 0;
    }
    gguf_file *g;
    gguf_error_clear(&err);
    if (gguf_file_open_memory(&g, out, out_len, 0, GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES, &err) != 0) {
        fprintf(stderr, "fuzz_edit: the edited file does not reopen: %s\n", err.message);
        abort();
    }
    CHECK(gguf_kv_count(g) == gguf_kv_count(f));
    for (size_t i = 0; i < gguf_kv_count(f); i++) {
        size_t la, lb;
        const char *ka = gguf_kv_key(f, i, &la), *kb = gguf_kv_key(g, i, &lb);
        CHECK(la == lb && memcmp(ka, kb, la) == 0);
        CHECK(gguf_value_equal(gguf_kv_value(f, i), gguf_kv_value(g, i)) == 1);
    }
    CHECK(gguf_tensor_count(g) == gguf_tensor_count(f));
    CHECK(gguf_file_alignment(g) == gguf_file_alignment(f));
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info x, y;
        gguf_tensor_get(&x, f, i);
        gguf_tensor_get(&y, g, i);
        CHECK(x.name_len == y.name_len && memcmp(x.name, y.name, x.name_len) == 0);
        CHECK(y.offset % gguf_file_alignment(g) == 0);
        if (x.nbytes != UINT64_MAX && x.nbytes > 0)
            CHECK(memcmp(gguf_tensor_data(f, i), gguf_tensor_data(g, i), (size_t)x.nbytes) == 0);
    }
    gguf_file_free(g);
    free(out);
    gguf_file_free(f);
    return 0;
}
