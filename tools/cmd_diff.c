/* gguf-edit diff: keys added, removed and changed (old and new values); tensors added,
 * removed, and changed in type, shape or bytes (with the first differing block). */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#define DIFF_ARRAY_ELEMS 8

static const char usage_text[] =
    "usage: gguf-edit diff A B\n"
    "Lists what differs: '-' only in A, '+' only in B, '~' changed (A's value -> B's).\n"
    "Exit status (as diff's): 0 no differences, 1 differences, 2 trouble.\n" CLI_OPEN_HELP;

static void show_value(const gguf_value *v) {
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
        printf("[%s[%" PRIu64 "]] ", cli_vtype_name(gguf_value_elem_type(v)), gguf_value_count(v));
    else
        printf("[%s] ", cli_vtype_name(gguf_value_type(v)));
    cli_text_value(stdout, v, DIFF_ARRAY_ELEMS);
}

static void show_key(const gguf_file *f, size_t i) {
    size_t len;
    const char *k = gguf_kv_key(f, i, &len);
    fwrite(k, 1, len, stdout);
}

static int64_t find_key(const gguf_file *f, const char *key, size_t len) {
    for (size_t i = 0; i < gguf_kv_count(f); i++) {
        size_t n;
        const char *k = gguf_kv_key(f, i, &n);
        if (n == len && memcmp(k, key, len) == 0)
            return (int64_t)i;
    }
    return -1;
}

static int64_t find_tensor(const gguf_file *f, const char *name, size_t len) {
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        if (t.name_len == len && memcmp(t.name, name, len) == 0)
            return (int64_t)i;
    }
    return -1;
}

static int diff_kv(const gguf_file *a, const gguf_file *b) {
    int n = 0;
    for (size_t i = 0; i < gguf_kv_count(a); i++) {
        size_t len;
        const char *k = gguf_kv_key(a, i, &len);
        int64_t j = find_key(b, k, len);
        const gguf_value *va = gguf_kv_value(a, i);
        if (j < 0) {
            fputs("- ", stdout);
            show_key(a, i);
            putchar(' ');
            show_value(va);
            putchar('\n');
            n++;
        } else if (gguf_value_equal(va, gguf_kv_value(b, (size_t)j)) != 1) {
            fputs("~ ", stdout);
            show_key(a, i);
            putchar(' ');
            show_value(va);
            fputs(" -> ", stdout);
            show_value(gguf_kv_value(b, (size_t)j));
            putchar('\n');
            n++;
        }
    }
    for (size_t j = 0; j < gguf_kv_count(b); j++) {
        size_t len;
        const char *k = gguf_kv_key(b, j, &len);
        if (find_key(a, k, len) < 0) {
            fputs("+ ", stdout);
            show_key(b, j);
            putchar(' ');
            show_value(gguf_kv_value(b, j));
            putchar('\n');
            n++;
        }
    }
    return n;
}

static void show_tensor(char sign, const gguf_tensor_info *t) {
    char tb[32];
    printf("%c tensor ", sign);
    fwrite(t->name, 1, t->name_len, stdout);
    printf(" %s [", cli_dtype_name(t->type, tb, sizeof tb));
    for (uint32_t d = 0; d < t->n_dims; d++)
        printf("%s%" PRIu64, d ? ", " : "", t->dims[d]);
    puts("]");
}

/* Offset of the first byte where a and b differ, or n when they are equal. */
static uint64_t first_difference(const uint8_t *a, const uint8_t *b, uint64_t n) {
    const uint64_t step = 1 << 16;
    uint64_t at = 0;
    while (at < n) {
        uint64_t k = n - at < step ? n - at : step;
        if (memcmp(a + at, b + at, (size_t)k) != 0)
            break;
        at += k;
    }
    while (at < n && a[at] == b[at])
        at++;
    return at;
}

static int dims_equal(const gguf_tensor_info *x, const gguf_tensor_info *y) {
    for (int d = 0; d < GGUF_MAX_DIMS; d++) {
        if (x->dims[d] != y->dims[d])
            return 0;
    }
    return 1;
}

static int diff_tensors(const gguf_file *a, const gguf_file *b) {
    int n = 0;
    char ta[32], tb[32];
    for (size_t i = 0; i < gguf_tensor_count(a); i++) {
        gguf_tensor_info x, y;
        gguf_tensor_get(&x, a, i);
        int64_t j = find_tensor(b, x.name, x.name_len);
        if (j < 0) {
            show_tensor('-', &x);
            n++;
            continue;
        }
        gguf_tensor_get(&y, b, (size_t)j);
        if (x.type != y.type || !dims_equal(&x, &y)) {
            printf("~ tensor ");
            fwrite(x.name, 1, x.name_len, stdout);
            printf(": %s -> %s, [%" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "] -> [%" PRIu64
                   ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 "]\n",
                   cli_dtype_name(x.type, ta, sizeof ta), cli_dtype_name(y.type, tb, sizeof tb),
                   x.dims[0], x.dims[1], x.dims[2], x.dims[3], y.dims[0], y.dims[1], y.dims[2],
                   y.dims[3]);
            n++;
            continue;
        }
        const uint8_t *da = gguf_tensor_data(a, i), *db = gguf_tensor_data(b, (size_t)j);
        if (da == NULL || db == NULL)
            continue; /* unknown type: sizes unknown, nothing to compare */
        uint64_t at = first_difference(da, db, x.nbytes);
        if (at < x.nbytes) {
            uint32_t block = gguf_dtype_block_bytes(x.type);
            printf("~ tensor ");
            fwrite(x.name, 1, x.name_len, stdout);
            printf(": bytes differ from block %" PRIu64 " (byte %" PRIu64 " of %" PRIu64 ")\n",
                   at / block, at, x.nbytes);
            n++;
        }
    }
    for (size_t j = 0; j < gguf_tensor_count(b); j++) {
        gguf_tensor_info y;
        gguf_tensor_get(&y, b, j);
        if (find_tensor(a, y.name, y.name_len) < 0) {
            show_tensor('+', &y);
            n++;
        }
    }
    return n;
}

int cmd_diff(int argc, char **argv) {
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'}, CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int status = CLI_OK;
    if (cli_getopt(argc, argv, "h", longopts, usage_text, &flags, &status) == CLI_DONE)
        return status;
    if (cli_operands(argc, 2, usage_text) != 0)
        return CLI_USAGE;
    gguf_file *a = cli_open(argv[optind], flags);
    gguf_file *b = a ? cli_open(argv[optind + 1], flags) : NULL;
    if (b == NULL) {
        gguf_file_free(a);
        return 2;
    }
    int n = 0;
    if (gguf_file_version(a) != gguf_file_version(b)) {
        printf("~ version %u -> %u\n", gguf_file_version(a), gguf_file_version(b));
        n++;
    }
    if (gguf_file_endian(a) != gguf_file_endian(b)) {
        printf("~ byte order %s -> %s (tensor bytes compared as stored)\n",
               gguf_file_endian(a) == GGUF_ENDIAN_BIG ? "big" : "little",
               gguf_file_endian(b) == GGUF_ENDIAN_BIG ? "big" : "little");
        n++;
    }
    n += diff_kv(a, b);
    n += diff_tensors(a, b);
    gguf_file_free(a);
    gguf_file_free(b);
    if (fflush(stdout) != 0)
        return 2;
    return n > 0 ? 1 : 0;
}
