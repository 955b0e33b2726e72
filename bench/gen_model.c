/* Generates a llama-shaped GGUF file of about SIZE MiB with the library's own writer: some
 * metadata, then F16 tensors of pseudo-random bytes (a fixed seed, so runs are repeatable).
 *   gen_model OUT SIZE_MIB [ALIGNMENT [VOCAB]]
 * With VOCAB (a vocabulary file, such as llama.cpp's models/ggml-vocab-*.gguf), its tokenizer.*
 * keys take the place of the five-token vocabulary, so that the header is as large as a real
 * model's. Used by the benchmarks and by the crash tests, which need large files. */
#include <libgguf/gguf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW 4096u

static int fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                gguf_error *err) {
    (void)user;
    (void)err;
    /* xorshift64 seeded by tensor and offset: any chunking gives the same bytes */
    uint64_t x = 0x9e3779b97f4a7c15ull ^ ((uint64_t)tensor << 40) ^ offset;
    uint8_t *p = buf;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* keep the f16 values finite: clear the top exponent bit of each half */
        uint64_t v = x & 0xbfffbfffbfffbfffull;
        memcpy(p + i, &v, 8);
    }
    for (; i < len; i++)
        p[i] = 0;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: gen_model OUT SIZE_MIB [ALIGNMENT [VOCAB]]\n");
        return 2;
    }
    uint64_t mib = strtoull(argv[2], NULL, 10);
    uint32_t align = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 32;
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, &err);
    uint32_t n_layers = 0;
    uint64_t rows_per_tensor = 2048; /* 16 MiB F16 tensors */
    uint64_t tensors = (mib * 1024 * 1024) / (ROW * 2 * rows_per_tensor);
    if (tensors == 0)
        tensors = 1;
    static const char *tokens[] = {"<unk>", "<s>", "</s>", "hello", "world"};
    size_t lens[5];
    for (int i = 0; i < 5; i++)
        lens[i] = strlen(tokens[i]);
    if (rc == 0)
        rc = gguf_kv_set_str(f, "general.architecture", "llama", 5, &err);
    if (rc == 0)
        rc = gguf_kv_set_str(f, "general.name", "generated", 9, &err);
    if (rc == 0 && align != 32)
        rc = gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &align, &err);
    gguf_file *v = NULL;
    if (rc == 0 && argc > 4)
        rc = gguf_file_open(&v, argv[4], 0, &err);
    if (rc == 0 && v == NULL)
        rc = gguf_kv_set_str_array(f, "tokenizer.ggml.tokens", tokens, lens, 5, &err);
    for (size_t i = 0; rc == 0 && v != NULL && i < gguf_kv_count(v); i++) {
        size_t len;
        const char *k = gguf_kv_key(v, i, &len);
        if (len > 10 && strncmp(k, "tokenizer.", 10) == 0) {
            char key[256];
            snprintf(key, sizeof key, "%.*s", (int)len, k);
            rc = gguf_kv_set_value(f, key, gguf_kv_value(v, i), &err);
        }
    }
    for (uint64_t t = 0; rc == 0 && t < tensors; t++) {
        char name[64];
        snprintf(name, sizeof name, "blk.%llu.ffn_up.weight", (unsigned long long)t);
        uint64_t dims[2] = {ROW, rows_per_tensor};
        rc = gguf_tensor_add(f, name, GGUF_DTYPE_F16, dims, 2, &err);
        n_layers++;
    }
    if (rc == 0)
        rc = gguf_kv_set_scalar(f, "llama.block_count", GGUF_VTYPE_U32, &n_layers, &err);
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.fill = fill;
    if (rc == 0)
        rc = gguf_file_save(f, argv[1], &opt, &err);
    if (rc != 0)
        fprintf(stderr, "gen_model: %s\n", err.message);
    gguf_file_free(f);
    gguf_file_free(v);
    return rc == 0 ? 0 : 1;
}
