/* gguf-edit tensor: one tensor's bytes as stored, or its values dequantized to little-endian
 * f32 (raw, or as a NumPy .npy file), to a file or standard output, streamed in blocks; or its
 * first values as text. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct tensor_values {
    int f32, npy, values;
    uint64_t n_values;
    const char *out_path;
} tensor_values;

static int take_values(const opt_spec *o, const char *arg, void *values) {
    tensor_values *v = values;
    (void)o;
    v->values = 1;
    return opt_parse_count(&v->n_values, arg, "--values", 0, UINT64_MAX, "a count");
}

static const opt_spec options[] = {
    OPT_FLAG_("f32", 0, "the values as little-endian f32", tensor_values, f32, 1),
    OPT_FLAG_("npy", 0,
              "the values as a NumPy .npy file (f32, shape in NumPy's order: the\n"
              "GGUF dimensions reversed), for numpy.load",
              tensor_values, npy, 1),
    OPT_HANDLER_("values", 0, "N", "the first N values as text, one per line", take_values, 0),
    OPT_STRING_("output", 'o', "OUT", "write to OUT instead of standard output", tensor_values,
                out_path),
    {0}};

static int tensor_run(int argc, char **argv);

const opt_command cmd_tensor = {
    .name = "tensor",
    .run = tensor_run,
    .line = "tensor FILE NAME [--f32] [-o OUT]     one tensor's raw bytes, or its values as f32",
    .synopsis = "usage: gguf-edit tensor FILE NAME [--f32|--npy|--values N] [-o OUT]\n",
    .summary =
    "Writes tensor NAME's raw bytes (as stored), or with --f32 its values as little-endian f32\n"
    "(dequantized; big-endian files are converted first), to OUT or standard output ('-').\n"
    "Binary output is not written to a terminal. A truncated download is read with a warning:\n"
    "its whole tensors can be taken out.\n",
    .options = options,
    .groups = opt_open_groups,
};

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

/* The .npy header (format version 1.0): magic, version, the header's length, then a Python
 * dict literal padded with spaces to a multiple of 64 bytes and ended by a newline. */
static int emit_npy_header(FILE *out, const gguf_tensor_info *t) {
    char dict[256];
    int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (uint32_t d = t->n_dims; d-- > 0;)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%" PRIu64 "%s", t->dims[d],
                      t->n_dims == 1 || d > 0 ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    size_t total = 10 + (size_t)n + 1, pad = (64 - total % 64) % 64;
    size_t hlen = (size_t)n + pad + 1;
    uint8_t head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (uint8_t)hlen, (uint8_t)(hlen >> 8)};
    if (emit(out, head, sizeof head) != 0 || emit(out, dict, (size_t)n) != 0)
        return -1;
    for (size_t k = 0; k < pad; k++)
        if (putc(' ', out) == EOF)
            return -1;
    return putc('\n', out) == EOF ? -1 : 0;
}

/* Values printed as text, one per line, until *left reaches 0. */
static int emit_text(FILE *out, const float *v, size_t n, uint64_t *left) {
    for (size_t k = 0; k < n && *left > 0; k++, (*left)--)
        if (fprintf(out, "%.9g\n", (double)v[k]) < 0)
            return -1;
    return 0;
}

static int tensor_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS;
    tensor_values o = {0, 0, 0, 0, NULL};
    int status = opt_parse(&cmd_tensor, argc, argv, &o, &flags);
    if (status >= 0)
        return status;
    int f32 = o.f32, npy = o.npy, values = o.values;
    uint64_t n_values = o.n_values;
    const char *out_path = o.out_path;
    if (f32 + npy + values > 1)
        return cli_usage_error(cmd_tensor.synopsis, "--f32, --npy and --values: choose one");
    if (cli_operands(argc, 2, cmd_tensor.synopsis) != 0)
        return CLI_USAGE;
    if (!values && (out_path == NULL || strcmp(out_path, "-") == 0) && isatty(STDOUT_FILENO)) {
        cli_errorf("tensor: binary output to a terminal refused: give -o OUT, a pipe, or "
                   "--values N for text");
        return CLI_BAD;
    }
    f32 |= npy | values;
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
        cli_no_tensor(f, path, name);
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
    if (rc == CLI_OK && npy && emit_npy_header(out, &t) != 0) {
        if (out != stdout)
            cli_errorf("%s: write failed: %m", out_path);
        rc = CLI_BAD;
    }
    uint64_t left = n_values;
    for (uint64_t at = 0; rc == CLI_OK && at < t.nbytes && (!values || left > 0);) {
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
        size_t got = n / block * elems;
        if ((values ? emit_text(out, vals, got, &left)
             : f32  ? emit(out, vals, got * sizeof *vals)
                    : emit(out, buf, n)) != 0) {
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
