/* libFuzzer target: gguf-catalog's query output (tools/query_output.c). The first byte chooses
 * the format (table, csv, json, line) and where the rows come from: cells made from the rest
 * of the input (names, types, lengths and bytes), or the rest run as SQL on a small catalog
 * (with tight time and memory limits). The output goes to memory and must be sound: table and
 * line output valid UTF-8 with no control character but the newline (so that nothing reaches a
 * terminal as a command), JSON valid UTF-8 and one array.
 *
 * The format byte: bits 0-1 the format (table, csv, json, line), bit 2 SQL, bit 3 markdown
 * or box instead (bit 0), bit 4 cells cut to 7 columns, bit 5 pages of 256 bytes, bit 6 the
 * output taken for a terminal.
 * Input (cells): format byte, then n_cols = 1 + byte % 6, then per column a name (a length
 * byte % 16 and its bytes), then cells until the input ends: a type byte (% 5: NULL, INTEGER,
 * REAL, TEXT, BLOB), then 8 bytes for numbers, or a length byte (255: two more bytes of
 * length) and the bytes. Regression inputs: tests/fuzz/regress_catalog/ (table-blob-31: the
 * 31-byte blob whose table cell was written one byte past its buffer). */
#define _GNU_SOURCE
#include "tools/query_output.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                             \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "fuzz_catalog: check failed: %s (line %d)\n", #cond, __LINE__);     \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

#define MAX_COLS 6
#define MAX_ROWS 64

/* ---- checks on the output ---- */

/* Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF); *c1 is set when
 * a C1 control (U+0080..U+009F) appears. */
static int valid_utf8(const unsigned char *s, size_t n, int *c1) {
    *c1 = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
                                   : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (len == 0 || n - i < len)
            return 0;
        uint32_t cp = len == 1 ? c : c & (0x7f >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        if (cp >= 0x80 && cp <= 0x9f)
            *c1 = 1;
        i += len;
    }
    return 1;
}

static void check_output(int format, const char *out, size_t n) {
    int c1;
    if (format == QUERY_CSV)
        return; /* data, as it is */
    CHECK(valid_utf8((const unsigned char *)out, n, &c1));
    if (format == QUERY_JSON) {
        CHECK(n == 0 || (out[0] == '[' && n >= 3 && memcmp(out + n - 2, "]\n", 2) == 0));
        return;
    }
    CHECK(!c1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)out[i];
        CHECK(c == '\n' || (c >= 0x20 && c != 0x7f));
    }
}

/* ---- rows from the input ---- */

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static int take(reader *r, void *out, size_t n) {
    if (r->n < n)
        return 0;
    memcpy(out, r->p, n);
    r->p += n, r->n -= n;
    return 1;
}

static int take_byte(reader *r, uint8_t *b) { return take(r, b, 1); }

/* A byte string: its length, then its bytes (as many as remain). */
static int take_bytes(reader *r, const char **s, size_t *len) {
    uint8_t b;
    if (!take_byte(r, &b))
        return 0;
    size_t n = b;
    if (b == 255) {
        uint8_t hi, lo;
        if (!take_byte(r, &hi) || !take_byte(r, &lo))
            return 0;
        n = (size_t)hi << 8 | lo;
    }
    if (n > r->n)
        n = r->n;
    *s = (const char *)r->p;
    *len = n;
    r->p += n, r->n -= n;
    return 1;
}

static void feed_cells(query_output *o, reader *r) {
    uint8_t b;
    if (!take_byte(r, &b))
        return;
    size_t ncols = 1 + b % MAX_COLS;
    char names[MAX_COLS][16];
    const char *name_ptr[MAX_COLS];
    for (size_t c = 0; c < ncols; c++) {
        uint8_t len = 0;
        take_byte(r, &len);
        len %= 16;
        if (len > r->n)
            len = (uint8_t)r->n;
        take(r, names[c], len);
        names[c][len] = '\0'; /* a name is NUL-terminated: it stops at the first NUL */
        name_ptr[c] = names[c];
    }
    if (query_output_row(ncols, name_ptr, NULL, o))
        return;
    gguf_catalog_cell cells[MAX_COLS];
    char numbers[MAX_COLS][40];
    for (int row = 0; row < MAX_ROWS && r->n > 0; row++) {
        for (size_t c = 0; c < ncols; c++) {
            gguf_catalog_cell *cell = &cells[c];
            memset(cell, 0, sizeof *cell);
            uint8_t type = 0;
            take_byte(r, &type);
            switch (type % 5) {
            case 1: {
                int64_t i = 0;
                take(r, &i, sizeof i);
                cell->type = GGUF_CATALOG_INTEGER;
                cell->i = i;
                cell->r = (double)i;
                cell->len = (size_t)snprintf(numbers[c], sizeof numbers[c], "%lld", (long long)i);
                cell->text = numbers[c];
                break;
            }
            case 2: {
                double d = 0;
                take(r, &d, sizeof d);
                cell->type = GGUF_CATALOG_REAL;
                cell->r = d;
                cell->len = (size_t)snprintf(numbers[c], sizeof numbers[c], "%.15g", d);
                cell->text = numbers[c];
                break;
            }
            case 3:
            case 4:
                cell->type = type % 5 == 3 ? GGUF_CATALOG_TEXT : GGUF_CATALOG_BLOB;
                if (!take_bytes(r, &cell->text, &cell->len))
                    cell->text = "", cell->len = 0;
                break;
            default: cell->type = GGUF_CATALOG_NULL; break;
            }
        }
        if (query_output_row(ncols, name_ptr, cells, o))
            return;
    }
}

/* ---- rows from SQL, on a catalog made once ---- */

static char dir[64];
static gguf_catalog *cat;

static void remove_catalog(void) {
    static const char *const tails[] = {"", "-wal", "-shm"};
    char path[128];
    gguf_catalog_close(cat);
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/c.db%s", dir, tails[i]);
        unlink(path);
    }
    rmdir(dir);
}

static gguf_catalog *the_catalog(void) {
    static int tried;
    if (!tried) {
        tried = 1;
        char path[128];
        strcpy(dir, "/tmp/gguf-fuzz-catalog-XXXXXX");
        if (mkdtemp(dir) == NULL)
            return NULL;
        snprintf(path, sizeof path, "%s/c.db", dir);
        if (gguf_catalog_open(&cat, path, 0, NULL) != 0 ||
            gguf_catalog_set_query_limits(cat, 200, 32 << 20, NULL) != 0) {
            gguf_catalog_close(cat);
            cat = NULL;
        }
        atexit(remove_catalog);
    }
    return cat;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    int format = data[0] % 4, sql = (data[0] >> 2) & 1;
    if ((data[0] >> 3) & 1) /* the framed tables, paged and cut */
        format = data[0] & 1 ? QUERY_BOX : QUERY_MARKDOWN;
    query_output_options opt = {.max_width = (data[0] >> 4) & 1 ? 7 : 0,
                                .max_memory = (data[0] >> 5) & 1 ? 256 : 0,
                                .terminal = (data[0] >> 6) & 1};
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    CHECK(out != NULL);
    query_output *o = query_output_new(format, out, &opt);
    CHECK(o != NULL);
    reader r = {data + 1, size - 1};
    if (sql) {
        char *text = malloc(size);
        CHECK(text != NULL);
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        gguf_catalog *c = the_catalog();
        if (c != NULL)
            gguf_catalog_query(c, text, query_output_row, o, NULL);
        free(text);
    } else {
        feed_cells(o, &r);
    }
    int rc = query_output_finish(o);
    int nomem = query_output_nomem(o);
    query_output_free(o);
    CHECK(fclose(out) == 0);
    if (rc == 0 && !nomem)
        check_output(format, buf, len);
    free(buf);
    return 0;
}
