/* Query results of gguf-catalog printed the ways sqlite3 prints them: a table (columns sized to
 * their content, never cut), CSV (RFC 4180), JSON (one array of row objects) or lines
 * ("column = value", a blank line between rows). Table and line output escape what a terminal
 * would act on: control characters, C1 controls, bytes that are not UTF-8. */
#ifndef GGUF_TOOLS_QUERY_OUTPUT_H
#define GGUF_TOOLS_QUERY_OUTPUT_H

#include <libgguf/gguf.h>
#include <stdio.h>

enum query_format { QUERY_TABLE, QUERY_CSV, QUERY_JSON, QUERY_LINE };

/* The format named name ("table", "csv", "json", "line"), or -1. */
int query_format_parse(const char *name);

typedef struct query_output query_output;

/* Output in format to out; NULL when memory runs out. */
query_output *query_output_new(int format, FILE *out);
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
