/* gguf-edit tensor: one tensor's bytes as stored, or its values dequantized to little-endian
 * f32, to a file or standard output, streamed in blocks. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: gguf-edit tensor FILE NAME [--f32] [-o OUT]\n"
    "Writes tensor NAME's raw bytes (as stored), or with --f32 its values as little-endian f32\n"
    "(dequantized; big-endian files are converted first), to OUT or standard output ('-').\n"
    "A truncated download is read with a warning: its whole tensors can be taken out.\n"
    "  --f32              the values as little-endian f32\n"
    "  -o, --output OUT   write to OUT instead of standard output\n" CLI_OPEN_HELP;

#define CHUNK_BLOCKS 65536

static int emit(FILE *out, const void *p, size_t n) {
    return fwrite(p, 1, n, out) == n ? 0 : -1;
}

/* The output is little-endian whatever the host: swap floats on a big-endian one. */
static void to_little_endian(float *v, size_t n) {
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe == 1)
        return;
    for (size_t k = 0; k < n; k++) {
        uint32_t u;
        memcpy(&u, &v[k], 4);
        u = (u >> 24) | ((u >> 8) & 0xff00) | ((u << 8) & 0xff0000) | (u << 24);
        memcpy(&v[k], &u, 4);
    }
}

int cmd_tensor(int argc, char **argv) {
    static const struct option longopts[] = {
        {"f32", no_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'}, CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int f32 = 0, status = CLI_OK, c;
    const char *out_path = NULL;
    while ((c = cli_getopt(argc, argv, "o:h", longopts, usage_text, &flags, &status)) >= 0) {
        if (c == 'f')
            f32 = 1;
        else
            out_path = optarg; /* -o */
    }
    if (c == CLI_DONE)
        return status;
    if (cli_operands(argc, 2, usage_text) != 0)
        return CLI_USAGE;
    const char *path = argv[optind], *name = argv[optind + 1];
    if (out_path != NULL && cli_refuse_url_output(out_path) != CLI_OK)
        return CLI_BAD;
    gguf_file *f = cli_open_partial(path, flags, 0);
    if (f == NULL)
        return CLI_BAD;
    int64_t i = gguf_tensor_find(f, name);
    gguf_tensor_info t;
    int rc = CLI_OK;
    if (i < 0) {
        cli_errorf("%s: no tensor '%s'", path, name);
        gguf_file_free(f);
        return CLI_BAD;
    }
    gguf_tensor_get(&t, f, (size_t)i);
    if (t.nbytes == UINT64_MAX || (f32 && !gguf_quant_can_dequantize(t.type))) {
        char tb[32];
        cli_errorf("%s: tensor '%s' of type %s: %s", path, name,
                   cli_dtype_name(t.type, tb, sizeof tb),
                   t.nbytes == UINT64_MAX ? "size unknown" : "no float form to convert to");
        gguf_file_free(f);
        return CLI_BAD;
    }
    /* a file: written as every output is (never the input, nor a FIFO or device; a
     * temporary file renamed over it once whole) */
    FILE *out = stdout;
    gguf_output *file = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    if (out_path != NULL && strcmp(out_path, "-") != 0) {
        int fd = gguf_output_open(&file, out_path, f, &err) == 0 ? dup(gguf_output_fd(file)) : -1;
        out = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (out == NULL) {
            if (file != NULL)
                cli_errorf("%s: cannot create: %m", out_path);
            else
                cli_report(out_path, &err);
            if (fd >= 0)
                close(fd);
            gguf_output_abort(file);
            gguf_file_free(f);
            return CLI_BAD;
        }
    }
    size_t block = gguf_dtype_block_bytes(t.type), elems = gguf_dtype_block_elems(t.type);
    size_t chunk = block * CHUNK_BLOCKS;
    uint8_t *buf = malloc(chunk);
    float *vals = f32 ? malloc(elems * CHUNK_BLOCKS * sizeof *vals) : NULL;
    if (buf == NULL || (f32 && vals == NULL)) {
        cli_errorf("out of memory");
        rc = CLI_BAD;
    }
    for (uint64_t at = 0; rc == CLI_OK && at < t.nbytes;) {
        size_t n = t.nbytes - at < chunk ? (size_t)(t.nbytes - at) : chunk;
        if (gguf_tensor_read(buf, f, (size_t)i, at, n, &err) != 0 ||
            (f32 && gguf_file_endian(f) == GGUF_ENDIAN_BIG &&
             gguf_dtype_byteswap(buf, n, t.type, &err) != 0) ||
            (f32 && gguf_quant_dequantize(vals, t.type, buf, n, (int64_t)(n / block * elems), &err) != 0)) {
            cli_report(path, &err);
            rc = CLI_BAD;
            break;
        }
        if (f32)
            to_little_endian(vals, n / block * elems);
        if ((f32 ? emit(out, vals, n / block * elems * sizeof *vals) : emit(out, buf, n)) != 0) {
            if (out != stdout) /* standard output's errors are told at exit */
                cli_errorf("%s: write failed: %m", out_path);
            rc = CLI_BAD;
        }
        at += n;
    }
    free(buf);
    free(vals);
    if (out != stdout && fclose(out) != 0 && rc == CLI_OK) {
        cli_errorf("%s: write failed: %m", out_path);
        rc = CLI_BAD;
    }
    if (file != NULL && rc != CLI_OK)
        gguf_output_abort(file);
    else if (file != NULL && gguf_output_commit(file, &err) != 0) {
        cli_report(out_path, &err);
        rc = CLI_BAD;
    }
    if (out == stdout && cli_flush_stdout() != 0)
        rc = CLI_BAD;
    gguf_file_free(f);
    return rc;
}
