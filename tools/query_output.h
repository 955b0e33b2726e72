/* Query results of gguf-catalog printed the ways sqlite3 prints them: a table (columns sized to
 * their content), a box of lines, a Markdown table, CSV (RFC 4180), JSON (one array of row
 * objects) or lines ("column = value", a blank line between rows). Text for people (table,
 * box, markdown, line) is escaped: what a terminal would act on (control characters, C1
 * controls) or what would reorder the text around it (bidirectional controls) and bytes that
 * are not UTF-8. CSV is data: such fields are always quoted, and escaped as well when the
 * output is a terminal. JSON escapes them as \uXXXX, which loses nothing. */
#ifndef GGUF_TOOLS_QUERY_OUTPUT_H
#define GGUF_TOOLS_QUERY_OUTPUT_H

#include <libgguf/gguf.h>
#include <stdint.h>
#include <stdio.h>

enum query_format { QUERY_TABLE, QUERY_CSV, QUERY_JSON, QUERY_LINE, QUERY_MARKDOWN, QUERY_BOX };

/* The format named name ("table", "csv", "json", "line", "markdown", "box"), or -1. */
int query_format_parse(const char *name);

typedef struct query_output_options {
    size_t max_width;    /* table, markdown, box: a wider cell is cut, ending in "…" (0: none) */
    uint64_t max_memory; /* table, markdown, box: the bytes of rows held to size the columns
                          * (0: no limit); past it the rows held print as a page, and the
                          * columns of the next page are sized anew (they never shrink) */
    int terminal;        /* out is a terminal: csv escapes what a terminal would act on */
} query_output_options;

typedef struct query_output query_output;

/* Output in format to out (opt may be NULL: no limits, not a terminal); NULL when memory runs
 * out. */
query_output *query_output_new(int format, FILE *out, const query_output_options *opt);
/* A gguf_catalog_row_fn (user: the query_output). Returns 1 to stop the query when memory
 * ran out or out has a write error. */
int query_output_row(size_t n_cols, const char *const *names, const gguf_catalog_cell *cells,
                     void *user);
/* Ends the output: the last table printed, the JSON array closed. Returns 0, or -1 when memory
 * ran out (query_output_row stopped) or out has a write error. */
int query_output_finish(query_output *o);
/* 1 when memory ran out. */
int query_output_nomem(const query_output *o);
void query_output_free(query_output *o);

#endif
