/* Generates the input of bench/bench_convert.sh: a GGUF v3 little-endian file of about SIZE
 * MiB holding three large tensors, F16, Q8_0 and Q4_K (a third of the size each), written with
 * the library's own writer. The bytes are pseudo-random (a fixed seed) with every f16 scale
 * kept finite, so the blocks are valid for ggml.
 *   gen_convert OUT SIZE_MIB */
#include <libgguf/gguf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW 4096u

static const uint32_t TYPES[3] = {GGUF_DTYPE_F16, GGUF_DTYPE_Q8_0, GGUF_DTYPE_Q4_K};

static int fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                gguf_error *err) {
    (void)user;
    (void)err;
    /* xorshift64 seeded by tensor and offset, so any chunking gives the same bytes; clearing
     * bit 14 of every 16-bit lane keeps every f16 (values and block scales) finite */
    uint64_t x = 0x9e3779b97f4a7c15ull ^ ((uint64_t)(tensor + 1) << 40) ^ offset;
    uint8_t *p = buf;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t v = x & 0xbfffbfffbfffbfffull;
        memcpy(p + i, &v, 8);
    }
    for (; i < len; i++)
        p[i] = (uint8_t)i;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: gen_convert OUT SIZE_MIB\n");
        return 2;
    }
    uint64_t bytes = strtoull(argv[2], NULL, 10) << 20;
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, &err);
    if (rc == 0)
        rc = gguf_kv_set_str(f, "general.name", "bench_convert", 13, &err);
    for (size_t t = 0; rc == 0 && t < 3; t++) {
        /* rows of ROW elements: bytes per row from the type's block size */
        uint64_t row_bytes = ROW / gguf_dtype_block_elems(TYPES[t]) *
                             gguf_dtype_block_bytes(TYPES[t]);
        uint64_t rows = bytes / 3 / row_bytes;
        uint64_t dims[2] = {ROW, rows ? rows : 1};
        char name[32];
        snprintf(name, sizeof name, "bench.%s", gguf_dtype_name(TYPES[t]));
        rc = gguf_tensor_add(f, name, TYPES[t], dims, 2, &err);
    }
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.fill = fill;
    if (rc == 0)
        rc = gguf_file_save(f, argv[1], &opt, &err);
    if (rc != 0)
        fprintf(stderr, "gen_convert: %s\n", err.message);
    gguf_file_free(f);
    return rc == 0 ? 0 : 1;
}
