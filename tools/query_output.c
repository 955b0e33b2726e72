/* Query results as table, box, markdown, CSV, JSON or lines (see query_output.h). The three
 * tables hold a statement's rows to size its columns, up to max_memory bytes: past it the rows
 * held print as a page and the next page is measured anew. The others print as rows come.
 * Every escaped cell is measured by the same function that writes it, run twice, so that its
 * buffer is exactly as large as what is written. Which characters are escaped is
 * cli_text_control's rule, the one every tool follows. */
#include "query_output.h"

#include "cli.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct query_output {
    int format;
    FILE *out;
    query_output_options opt;
    size_t ncols;
    char **names; /* tables and line: this statement's column names, escaped */
    size_t *name_width;
    char **cells;   /* tables: the page's rendered cells, row-major */
    size_t *widths; /* tables: the display width of each cell */
    int *numeric;   /* tables: per column, every non-NULL cell so far is a number */
    size_t *col_width; /* tables: the columns' widths as printed so far */
    size_t nrows, cap;
    uint64_t held;   /* tables: bytes of the page's rows */
    int pages;       /* tables: pages printed of this statement */
    size_t name_max; /* line: the widest column name */
    uint64_t rows;   /* rows printed (json, line) */
    int tables;      /* tables: statements printed */
    size_t pending_spaces; /* table: held back until text follows, so no line ends in spaces */
    cli_json json;   /* json: the document, its strings escaped as cli_text_control says */
    int nomem;
};

static const char *const format_names[] = {
    [QUERY_TABLE] = "table",       [QUERY_CSV] = "csv", [QUERY_JSON] = "json",
    [QUERY_LINE] = "line", [QUERY_MARKDOWN] = "markdown", [QUERY_BOX] = "box"};

int query_format_parse(const char *name) {
    for (int i = 0; i < (int)(sizeof format_names / sizeof format_names[0]); i++) {
        if (strcmp(name, format_names[i]) == 0)
            return i;
    }
    return -1;
}

static int is_table(int format) {
    return format == QUERY_TABLE || format == QUERY_MARKDOWN || format == QUERY_BOX;
}

query_output *query_output_new(int format, FILE *out, const query_output_options *opt) {
    query_output *o = calloc(1, sizeof *o);
    if (o != NULL) {
        o->format = format;
        o->out = out;
        cli_json_init(&o->json, out, CLI_JSON_CONTROLS);
        if (opt != NULL)
            o->opt = *opt;
    }
    return o;
}

int query_output_nomem(const query_output *o) { return o->nomem; }

/* ---- escaping ---- */

/* Writes s escaped to out (when out is not NULL) and returns its length in bytes; *width gets
 * its display width (code points). \n \t \r and \xNN for other C0 controls, DEL and bytes
 * that are not UTF-8; \uNNNN for the other characters cli_text_control names (C1 and
 * bidirectional controls); with pipe (Markdown) | as \|. */
static size_t escape(char *out, const char *str, size_t n, int pipe, size_t *width) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    size_t o = 0, w = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = gguf_text_utf8_len(s + i, n - i);
        long cp = len > 0 ? cli_text_control(s + i, len) : -1;
        char esc[8];
        size_t elen = 0;
        if (c == '\n' || c == '\t' || c == '\r') {
            esc[0] = '\\', esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            elen = 2;
        } else if (len == 0 || (cp >= 0 && cp < 0x80)) {
            esc[0] = '\\', esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15];
            elen = 4;
            len = 1;
        } else if (cp >= 0) {
            esc[0] = '\\', esc[1] = 'u';
            for (int k = 0; k < 4; k++)
                esc[2 + k] = hex[(cp >> (12 - 4 * k)) & 15];
            elen = 6;
        } else if (pipe && c == '|') {
            esc[0] = '\\', esc[1] = '|';
            elen = 2;
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
static char *escaped(const char *s, size_t n, int pipe, size_t *width) {
    size_t len = escape(NULL, s, n, pipe, width);
    char *p = malloc(len + 1);
    if (p == NULL)
        return NULL;
    size_t again = escape(p, s, n, pipe, width);
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

/* Cuts the rendered cell p (width code points) to max columns, the last one "…". */
static char *cut(char *p, size_t *width, size_t max) {
    static const char ellipsis[] = "\xe2\x80\xa6";
    if (max == 0 || *width <= max)
        return p;
    size_t at = 0, n = strlen(p);
    for (size_t k = 0; k + 1 < max; k++) {
        size_t len = gguf_text_utf8_len(p + at, n - at);
        at += len > 0 ? len : 1;
    }
    char *q = realloc(p, at + sizeof ellipsis);
    if (q == NULL) {
        free(p);
        return NULL;
    }
    memcpy(q + at, ellipsis, sizeof ellipsis);
    *width = max;
    return q;
}

/* The text shown for a cell in the tables and line output. */
static char *cell_text(const query_output *o, const gguf_catalog_cell *c, size_t *width) {
    char *p;
    if (c->type == GGUF_CATALOG_NULL) {
        *width = 0;
        return calloc(1, 1);
    }
    if (c->type == GGUF_CATALOG_BLOB)
        p = hex_blob(c->text, c->len, width);
    else
        p = escaped(c->text, c->len, o->format == QUERY_MARKDOWN, width);
    return p != NULL && is_table(o->format) ? cut(p, width, o->opt.max_width) : p;
}

/* ---- tables ---- */

static void put_text(query_output *o, const char *s) {
    if (*s == '\0')
        return;
    for (; o->pending_spaces > 0; o->pending_spaces--)
        putc(' ', o->out);
    fputs(s, o->out);
}

static void put_repeat(query_output *o, const char *s, size_t n) {
    for (size_t k = 0; k < n; k++)
        put_text(o, s);
}

static void end_line(query_output *o) {
    o->pending_spaces = 0;
    putc('\n', o->out);
}

/* One row of cells (or the names) in the style of the format. */
static void put_row(query_output *o, char *const *cells, const size_t *w, const size_t *width) {
    int framed = o->format != QUERY_TABLE;
    const char *bar = o->format == QUERY_BOX ? "\xe2\x94\x82" : "|";
    for (size_t c = 0; c < o->ncols; c++) {
        if (framed) {
            put_text(o, bar);
            o->pending_spaces++;
        } else if (c) {
            o->pending_spaces += 2;
        }
        size_t pad = width[c] - w[c];
        if (o->numeric[c])
            o->pending_spaces += pad;
        put_text(o, cells[c]);
        if (!o->numeric[c])
            o->pending_spaces += pad;
        if (framed)
            o->pending_spaces++;
    }
    if (framed)
        put_text(o, bar);
    end_line(o);
}

/* A rule: the table's dashes under its names; the box's top (which 0), middle (1) or bottom
 * (2); Markdown's line under the names, with the alignment of each column. */
static void put_rule(query_output *o, const size_t *width, int which) {
    static const char *const box[3][3] = {{"\xe2\x94\x8c", "\xe2\x94\xac", "\xe2\x94\x90"},
                                          {"\xe2\x94\x9c", "\xe2\x94\xbc", "\xe2\x94\xa4"},
                                          {"\xe2\x94\x94", "\xe2\x94\xb4", "\xe2\x94\x98"}};
    for (size_t c = 0; c < o->ncols; c++) {
        if (o->format == QUERY_BOX) {
            put_text(o, box[which][c == 0 ? 0 : 1]);
            put_repeat(o, "\xe2\x94\x80", width[c] + 2);
        } else if (o->format == QUERY_MARKDOWN) {
            put_text(o, "| ");
            put_repeat(o, "-", width[c] - 1);
            put_text(o, o->numeric[c] ? ":" : "-");
            put_text(o, " ");
        } else {
            if (c)
                o->pending_spaces += 2;
            put_repeat(o, "-", width[c]);
        }
    }
    if (o->format == QUERY_BOX)
        put_text(o, box[which][2]);
    else if (o->format == QUERY_MARKDOWN)
        put_text(o, "|");
    end_line(o);
}

/* Forgets the page's rows. */
static void drop_rows(query_output *o) {
    for (size_t i = 0; o->cells != NULL && i < o->nrows * o->ncols; i++)
        free(o->cells[i]);
    o->nrows = 0;
    o->held = 0;
}

/* Prints the rows held (the names and rule first on a statement's first page), sized to them
 * and to the pages before; last: the statement ends (the box's bottom). */
static void page_print(query_output *o, int last) {
    if (o->names == NULL)
        return;
    int grew = 0;
    for (size_t c = 0; c < o->ncols; c++) {
        size_t w = o->pages == 0 ? o->name_width[c] : o->col_width[c];
        for (size_t i = 0; i < o->nrows; i++) {
            if (o->widths[i * o->ncols + c] > w)
                w = o->widths[i * o->ncols + c];
        }
        if (o->format == QUERY_MARKDOWN && w < 3)
            w = 3; /* the rule under the names is at least three dashes */
        if (o->pages > 0 && w > o->col_width[c])
            grew = 1;
        o->col_width[c] = w;
    }
    if (o->pages == 0) {
        if (o->tables++ > 0)
            end_line(o);
        if (o->format == QUERY_BOX)
            put_rule(o, o->col_width, 0);
        put_row(o, o->names, o->name_width, o->col_width);
        put_rule(o, o->col_width, 1);
    } else if (grew && o->format != QUERY_MARKDOWN && o->nrows > 0) {
        put_rule(o, o->col_width, 1); /* the columns widen from here */
    }
    for (size_t i = 0; i < o->nrows; i++)
        put_row(o, o->cells + i * o->ncols, o->widths + i * o->ncols, o->col_width);
    if (last && o->format == QUERY_BOX)
        put_rule(o, o->col_width, 2);
    drop_rows(o);
    o->pages++;
}

/* Forgets the statement's rows and names. */
static void reset(query_output *o) {
    drop_rows(o);
    for (size_t c = 0; o->names != NULL && c < o->ncols; c++)
        free(o->names[c]);
    free(o->cells);
    free(o->widths);
    free(o->names);
    free(o->name_width);
    free(o->numeric);
    free(o->col_width);
    o->cells = o->names = NULL;
    o->widths = o->name_width = o->col_width = NULL;
    o->numeric = NULL;
    o->cap = o->ncols = 0;
    o->pages = 0;
    o->name_max = 0;
}

/* A new statement: its column names, escaped. */
static int start_statement(query_output *o, size_t ncols, const char *const *names) {
    reset(o);
    size_t n = ncols ? ncols : 1;
    o->ncols = ncols;
    o->names = calloc(n, sizeof *o->names);
    o->name_width = calloc(n, sizeof *o->name_width);
    o->numeric = calloc(n, sizeof *o->numeric);
    o->col_width = calloc(n, sizeof *o->col_width);
    if (o->names == NULL || o->name_width == NULL || o->numeric == NULL || o->col_width == NULL)
        return -1;
    for (size_t c = 0; c < ncols; c++) {
        o->names[c] = escaped(names[c], strlen(names[c]), o->format == QUERY_MARKDOWN,
                              &o->name_width[c]);
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
        char *s = cell_text(o, &cells[c], &o->widths[at]);
        if (s == NULL) {
            for (size_t k = 0; k < c; k++)
                free(o->cells[o->nrows * ncols + k]);
            return -1;
        }
        o->cells[at] = s;
        o->held += strlen(s) + 1 + sizeof(char *) + sizeof(size_t);
        if (cells[c].type != GGUF_CATALOG_NULL && cells[c].type != GGUF_CATALOG_INTEGER &&
            cells[c].type != GGUF_CATALOG_REAL)
            o->numeric[c] = 0;
    }
    o->nrows++;
    if (o->opt.max_memory != 0 && o->held > o->opt.max_memory)
        page_print(o, 0);
    return 0;
}

/* ---- lines ---- */

static int line_row(query_output *o, size_t ncols, const gguf_catalog_cell *cells) {
    if (o->rows++ > 0)
        putc('\n', o->out);
    for (size_t c = 0; c < ncols; c++) {
        size_t w;
        char *s = cell_text(o, &cells[c], &w);
        if (s == NULL)
            return -1;
        fprintf(o->out, "%*s%s = %s\n", (int)(o->name_max - o->name_width[c]), "", o->names[c],
                s);
        free(s);
    }
    return 0;
}

/* ---- csv ---- */

/* 1 when s holds a character cli_text_control names (\n, \r and \t too). */
static int has_control(const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        size_t len = gguf_text_utf8_len(s + i, n - i);
        if (len == 0)
            len = 1;
        else if (cli_text_control(s + i, len) >= 0)
            return 1;
        i += len;
    }
    return 0;
}

/* A field of data: quoted when it holds a separator, a quote, a line end, a space at an end or
 * a control; escaped as well when out is a terminal and it holds a control. */
static int csv_field(query_output *o, const char *s, size_t n) {
    int control = has_control(s, n);
    int quote = control || (n > 0 && (s[0] == ' ' || s[n - 1] == ' '));
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"';
    char *esc = NULL;
    if (control && o->opt.terminal) {
        size_t w;
        esc = escaped(s, n, 0, &w);
        if (esc == NULL)
            return -1;
        s = esc;
        n = strlen(esc);
    }
    if (!quote) {
        fwrite(s, 1, n, o->out);
        free(esc);
        return 0;
    }
    putc('"', o->out);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            putc('"', o->out);
        putc(s[i], o->out);
    }
    putc('"', o->out);
    free(esc);
    return 0;
}

static int csv_row(query_output *o, size_t ncols, const char *const *names,
                   const gguf_catalog_cell *cells) {
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            putc(',', o->out);
        if (cells == NULL) {
            if (csv_field(o, names[c], strlen(names[c])) != 0)
                return -1;
        } else if (cells[c].type == GGUF_CATALOG_BLOB) {
            fputs("X'", o->out);
            for (size_t i = 0; i < cells[c].len; i++)
                fprintf(o->out, "%02x", (unsigned char)cells[c].text[i]);
            putc('\'', o->out);
        } else if (cells[c].type != GGUF_CATALOG_NULL) {
            if (csv_field(o, cells[c].text, cells[c].len) != 0)
                return -1;
        }
    }
    fputs("\r\n", o->out);
    return 0;
}

/* ---- json ---- */

static int json_row(query_output *o, size_t ncols, const char *const *names,
                    const gguf_catalog_cell *cells) {
    cli_json *j = &o->json;
    if (o->rows++ == 0)
        cli_json_array(j);
    cli_json_line(j);
    cli_json_object(j);
    for (size_t c = 0; c < ncols; c++) {
        const gguf_catalog_cell *cell = &cells[c];
        cli_json_name(j, names[c]);
        switch (cell->type) {
        case GGUF_CATALOG_INTEGER: cli_json_i64(j, cell->i); break;
        case GGUF_CATALOG_REAL: cli_json_double(j, cell->r, 17); break;
        case GGUF_CATALOG_TEXT: cli_json_str(j, cell->text, cell->len); break;
        case GGUF_CATALOG_BLOB: { /* an object, so that it never reads as a string */
            char *hex = malloc(2 * cell->len + 1);
            if (hex == NULL)
                return -1;
            for (size_t i = 0; i < cell->len; i++)
                snprintf(hex + 2 * i, 3, "%02x", (unsigned char)cell->text[i]);
            cli_json_object(j);
            cli_json_name(j, "hex");
            cli_json_str(j, hex, 2 * cell->len);
            cli_json_end(j);
            free(hex);
            break;
        }
        default: cli_json_null(j); break;
        }
    }
    cli_json_end(j);
    return j->nomem ? -1 : 0;
}

int query_output_row(size_t ncols, const char *const *names, const gguf_catalog_cell *cells,
                     void *user) {
    query_output *o = user;
    int rc = 0;
    if (o->nomem)
        return 1;
    switch (o->format) {
    case QUERY_CSV: rc = csv_row(o, ncols, names, cells); break;
    case QUERY_JSON:
        if (cells != NULL)
            rc = json_row(o, ncols, names, cells);
        break;
    case QUERY_LINE:
        rc = cells == NULL ? start_statement(o, ncols, names) : line_row(o, ncols, cells);
        break;
    default:
        if (cells == NULL) {
            page_print(o, 1);
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
    if (is_table(o->format) && !o->nomem)
        page_print(o, 1);
    if (o->format == QUERY_JSON && !o->nomem) {
        if (o->rows == 0)
            cli_json_array(&o->json);
        else
            cli_json_line(&o->json);
        cli_json_end(&o->json);
        putc('\n', o->out);
    }
    return o->nomem || ferror(o->out) ? -1 : 0;
}

void query_output_free(query_output *o) {
    if (o == NULL)
        return;
    reset(o);
    free(o);
}
