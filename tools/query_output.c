/* Query results as table, CSV, JSON or lines (see query_output.h). Table output holds one
 * statement's rows until its last, to size the columns; the others print as rows come. Every
 * escaped cell is measured by the same function that writes it, run twice, so that its buffer
 * is exactly as large as what is written. */
#include "query_output.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct query_output {
    int format;
    FILE *out;
    size_t ncols;
    char **names;   /* table and line: this statement's column names, escaped */
    size_t *name_width;
    char **cells;   /* table: rendered cells, row-major */
    size_t *widths; /* table: the display width of each cell */
    int *numeric;   /* table: per column, every non-NULL cell is a number */
    size_t nrows, cap;
    size_t name_max; /* line: the widest column name */
    uint64_t rows;   /* rows printed (json, line) */
    int tables;      /* table: statements printed */
    size_t pending_spaces; /* table: held back until text follows, so no line ends in spaces */
    gguf_text json;
    int nomem;
};

int query_format_parse(const char *name) {
    static const char *const names[] = {
        [QUERY_TABLE] = "table", [QUERY_CSV] = "csv", [QUERY_JSON] = "json", [QUERY_LINE] = "line"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++) {
        if (strcmp(name, names[i]) == 0)
            return i;
    }
    return -1;
}

query_output *query_output_new(int format, FILE *out) {
    query_output *o = calloc(1, sizeof *o);
    if (o != NULL) {
        o->format = format;
        o->out = out;
    }
    return o;
}

int query_output_nomem(const query_output *o) { return o->nomem; }

/* ---- escaping for terminals ---- */

/* Length of the valid UTF-8 sequence at s (n > 0 bytes), or 0. */
/* Writes s escaped to out (when out is not NULL) and returns its length in bytes; *width gets
 * its display width (code points). \n \t \r and \\xNN for other controls, DEL and bytes that
 * are not UTF-8; \\u00NN for C1 controls (U+0080..U+009F), which terminals also obey. */
static size_t escape(char *out, const char *str, size_t n, size_t *width) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    size_t o = 0, w = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = gguf_text_utf8_len(s + i, n - i);
        char esc[8];
        size_t elen = 0;
        if (c == '\n' || c == '\t' || c == '\r') {
            esc[0] = '\\', esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            elen = 2;
        } else if (c < 0x20 || c == 0x7f || len == 0) {
            esc[0] = '\\', esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15];
            elen = 4;
            len = 1;
        } else if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) {
            unsigned cp = s[i + 1];
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[cp >> 4], esc[5] = hex[cp & 15];
            elen = 6;
        }
        if (elen > 0) {
            if (out != NULL)
                memcpy(out + o, esc, elen);
            o += elen;
            w += elen;
        } else {
            if (out != NULL)
                memcpy(out + o, s + i, len);
            o += len;
            w++;
        }
        i += len;
    }
    *width = w;
    return o;
}

/* A NUL-terminated copy of s escaped; NULL when memory runs out. */
static char *escaped(const char *s, size_t n, size_t *width) {
    size_t len = escape(NULL, s, n, width);
    char *p = malloc(len + 1);
    if (p == NULL)
        return NULL;
    size_t again = escape(p, s, n, width);
    p[again] = '\0';
    return p;
}

/* X'hex' of a blob, NUL-terminated; NULL when memory runs out. */
static char *hex_blob(const char *s, size_t n, size_t *width) {
    static const char hex[] = "0123456789abcdef";
    if (n > (SIZE_MAX - 4) / 2)
        return NULL;
    char *p = malloc(2 * n + 4);
    if (p == NULL)
        return NULL;
    size_t o = 0;
    p[o++] = 'X', p[o++] = '\'';
    for (size_t i = 0; i < n; i++) {
        p[o++] = hex[(unsigned char)s[i] >> 4];
        p[o++] = hex[(unsigned char)s[i] & 15];
    }
    p[o++] = '\'';
    p[o] = '\0';
    *width = o;
    return p;
}

/* The text shown for a cell in table and line output. */
static char *cell_text(const gguf_catalog_cell *c, size_t *width) {
    if (c->type == GGUF_CATALOG_NULL) {
        *width = 0;
        return calloc(1, 1);
    }
    if (c->type == GGUF_CATALOG_BLOB)
        return hex_blob(c->text, c->len, width);
    return escaped(c->text, c->len, width);
}

/* ---- table ---- */

static void put_text(query_output *o, const char *s) {
    if (*s == '\0')
        return;
    for (; o->pending_spaces > 0; o->pending_spaces--)
        putc(' ', o->out);
    fputs(s, o->out);
}

static void put_cell(query_output *o, const char *s, size_t w, size_t width, int right) {
    if (right)
        o->pending_spaces += width - w;
    put_text(o, s);
    if (!right)
        o->pending_spaces += width - w;
}

static void end_line(query_output *o) {
    o->pending_spaces = 0;
    putc('\n', o->out);
}

static void table_print(query_output *o) {
    if (o->names == NULL)
        return;
    size_t *width = calloc(o->ncols ? o->ncols : 1, sizeof *width);
    if (width == NULL) {
        o->nomem = 1;
        return;
    }
    for (size_t c = 0; c < o->ncols; c++) {
        width[c] = o->name_width[c];
        for (size_t i = 0; i < o->nrows; i++) {
            if (o->widths[i * o->ncols + c] > width[c])
                width[c] = o->widths[i * o->ncols + c];
        }
    }
    if (o->tables++ > 0)
        end_line(o);
    for (size_t c = 0; c < o->ncols; c++) {
        if (c)
            o->pending_spaces += 2;
        put_cell(o, o->names[c], o->name_width[c], width[c], o->numeric[c]);
    }
    end_line(o);
    for (size_t c = 0; c < o->ncols; c++) {
        if (c)
            o->pending_spaces += 2;
        for (size_t k = 0; k < width[c]; k++)
            put_text(o, "-");
    }
    end_line(o);
    for (size_t i = 0; i < o->nrows; i++) {
        for (size_t c = 0; c < o->ncols; c++) {
            if (c)
                o->pending_spaces += 2;
            put_cell(o, o->cells[i * o->ncols + c], o->widths[i * o->ncols + c], width[c],
                     o->numeric[c]);
        }
        end_line(o);
    }
    free(width);
}

/* Forgets the statement's rows (and names). */
static void reset(query_output *o) {
    for (size_t i = 0; o->cells != NULL && i < o->nrows * o->ncols; i++)
        free(o->cells[i]);
    for (size_t c = 0; o->names != NULL && c < o->ncols; c++)
        free(o->names[c]);
    free(o->cells);
    free(o->widths);
    free(o->names);
    free(o->name_width);
    free(o->numeric);
    o->cells = o->names = NULL;
    o->widths = o->name_width = NULL;
    o->numeric = NULL;
    o->nrows = o->cap = o->ncols = 0;
    o->name_max = 0;
}

/* A new statement: its column names, escaped. */
static int start_statement(query_output *o, size_t ncols, const char *const *names) {
    reset(o);
    o->ncols = ncols;
    o->names = calloc(ncols ? ncols : 1, sizeof *o->names);
    o->name_width = calloc(ncols ? ncols : 1, sizeof *o->name_width);
    o->numeric = calloc(ncols ? ncols : 1, sizeof *o->numeric);
    if (o->names == NULL || o->name_width == NULL || o->numeric == NULL)
        return -1;
    for (size_t c = 0; c < ncols; c++) {
        o->names[c] = escaped(names[c], strlen(names[c]), &o->name_width[c]);
        if (o->names[c] == NULL)
            return -1;
        o->numeric[c] = 1;
        if (o->name_width[c] > o->name_max)
            o->name_max = o->name_width[c];
    }
    return 0;
}

static int table_row(query_output *o, size_t ncols, const gguf_catalog_cell *cells) {
    if (o->nrows == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        if (ncols != 0 && cap > SIZE_MAX / sizeof(char *) / ncols)
            return -1;
        char **p = realloc(o->cells, cap * (ncols ? ncols : 1) * sizeof *p);
        if (p == NULL)
            return -1;
        o->cells = p;
        size_t *w = realloc(o->widths, cap * (ncols ? ncols : 1) * sizeof *w);
        if (w == NULL)
            return -1;
        o->widths = w;
        o->cap = cap;
    }
    for (size_t c = 0; c < ncols; c++) {
        size_t at = o->nrows * ncols + c;
        char *s = cell_text(&cells[c], &o->widths[at]);
        if (s == NULL) {
            for (size_t k = 0; k < c; k++)
                free(o->cells[o->nrows * ncols + k]);
            return -1;
        }
        o->cells[at] = s;
        if (cells[c].type != GGUF_CATALOG_NULL && cells[c].type != GGUF_CATALOG_INTEGER &&
            cells[c].type != GGUF_CATALOG_REAL)
            o->numeric[c] = 0;
    }
    o->nrows++;
    return 0;
}

/* ---- lines ---- */

static int line_row(query_output *o, size_t ncols, const gguf_catalog_cell *cells) {
    if (o->rows++ > 0)
        putc('\n', o->out);
    for (size_t c = 0; c < ncols; c++) {
        size_t w;
        char *s = cell_text(&cells[c], &w);
        if (s == NULL)
            return -1;
        fprintf(o->out, "%*s%s = %s\n", (int)(o->name_max - o->name_width[c]), "", o->names[c],
                s);
        free(s);
    }
    return 0;
}

/* ---- csv ---- */

static void csv_field(FILE *out, const char *s, size_t n) {
    int quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        fwrite(s, 1, n, out);
        return;
    }
    putc('"', out);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            putc('"', out);
        putc(s[i], out);
    }
    putc('"', out);
}

static void csv_row(FILE *out, size_t ncols, const char *const *names,
                    const gguf_catalog_cell *cells) {
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            putc(',', out);
        if (cells == NULL) {
            csv_field(out, names[c], strlen(names[c]));
        } else if (cells[c].type == GGUF_CATALOG_BLOB) {
            fputs("X'", out);
            for (size_t i = 0; i < cells[c].len; i++)
                fprintf(out, "%02x", (unsigned char)cells[c].text[i]);
            putc('\'', out);
        } else if (cells[c].type != GGUF_CATALOG_NULL) {
            csv_field(out, cells[c].text, cells[c].len);
        }
    }
    fputs("\r\n", out);
}

/* ---- json ---- */

static int json_string(query_output *o, const char *s, size_t n) {
    o->json.len = 0;
    if (gguf_json_string(&o->json, s, n) != 0)
        return -1;
    fwrite(o->json.data, 1, o->json.len, o->out);
    return 0;
}

static int json_row(query_output *o, size_t ncols, const char *const *names,
                    const gguf_catalog_cell *cells) {
    fputs(o->rows++ ? ",\n{" : "[\n{", o->out);
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            putc(',', o->out);
        if (json_string(o, names[c], strlen(names[c])) != 0)
            return -1;
        putc(':', o->out);
        const gguf_catalog_cell *cell = &cells[c];
        switch (cell->type) {
        case GGUF_CATALOG_INTEGER: fprintf(o->out, "%" PRId64, cell->i); break;
        case GGUF_CATALOG_REAL:
            if (isnan(cell->r))
                fputs("\"nan\"", o->out);
            else if (isinf(cell->r))
                fputs(cell->r > 0 ? "\"inf\"" : "\"-inf\"", o->out);
            else
                fprintf(o->out, "%.17g", cell->r);
            break;
        case GGUF_CATALOG_TEXT:
            if (json_string(o, cell->text, cell->len) != 0)
                return -1;
            break;
        case GGUF_CATALOG_BLOB:
            putc('"', o->out);
            for (size_t i = 0; i < cell->len; i++)
                fprintf(o->out, "%02x", (unsigned char)cell->text[i]);
            putc('"', o->out);
            break;
        default: fputs("null", o->out); break;
        }
    }
    putc('}', o->out);
    return 0;
}

int query_output_row(size_t ncols, const char *const *names, const gguf_catalog_cell *cells,
                     void *user) {
    query_output *o = user;
    int rc = 0;
    if (o->nomem)
        return 1;
    switch (o->format) {
    case QUERY_CSV: csv_row(o->out, ncols, names, cells); break;
    case QUERY_JSON:
        if (cells != NULL)
            rc = json_row(o, ncols, names, cells);
        break;
    case QUERY_LINE:
        rc = cells == NULL ? start_statement(o, ncols, names) : line_row(o, ncols, cells);
        break;
    default:
        if (cells == NULL) {
            table_print(o);
            rc = start_statement(o, ncols, names);
        } else {
            rc = table_row(o, ncols, cells);
        }
        break;
    }
    if (rc != 0)
        o->nomem = 1;
    return o->nomem || ferror(o->out);
}

int query_output_finish(query_output *o) {
    if (o->format == QUERY_TABLE && !o->nomem)
        table_print(o);
    if (o->format == QUERY_JSON)
        fputs(o->rows ? "\n]\n" : "[]\n", o->out);
    return o->nomem || ferror(o->out) ? -1 : 0;
}

void query_output_free(query_output *o) {
    if (o == NULL)
        return;
    reset(o);
    gguf_text_free(&o->json);
    free(o);
}
