/* The tools' one JSON emitter: documents written to a FILE as they are built, the emitter
 * keeping track of nesting and of where a comma goes, so that no command writes a member name,
 * a comma or a bracket by hand. Strings and values are rendered by the library's JSON writer
 * (gguf_json_string, gguf_json_value): always valid UTF-8 JSON, bytes that are not UTF-8 as
 * \u00XX (their Latin-1 code point); floats with the digits asked for, non-finite ones as the
 * strings "nan", "inf" and "-inf". */
#ifndef GGUF_TOOLS_JSON_EMIT_H
#define GGUF_TOOLS_JSON_EMIT_H

#include <libgguf/gguf.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_JSON_MAX_DEPTH 16

enum {
    CLI_JSON_SPACED = 1,  /* ", " between items and ": " after a member name */
    CLI_JSON_CONTROLS = 2 /* in strings, the characters cli_text_control names that JSON lets
                           * through (DEL, C1 and bidirectional controls) as \uXXXX */
};

typedef struct cli_json {
    FILE *out;
    unsigned flags;     /* CLI_JSON_* */
    unsigned depth;     /* containers open */
    char close[CLI_JSON_MAX_DEPTH + 1];          /* each open container's closing bracket */
    unsigned char items[CLI_JSON_MAX_DEPTH + 1]; /* it holds an item: the next needs a comma */
    unsigned char after_name; /* a member name was written: its value comes next */
    unsigned char line;       /* the next item or closing bracket starts a line */
    unsigned char nomem;      /* a string or value could not be rendered (written as null,
                               * or a value cut after its first pieces) */
} cli_json;

/* An emitter writing to out, nothing open. Values written at the top level follow each other
 * without commas. */
void cli_json_init(cli_json *j, FILE *out, unsigned flags);

/* Containers: an object or an array opened, and the innermost one closed. */
void cli_json_object(cli_json *j);
void cli_json_array(cli_json *j);
void cli_json_end(cli_json *j);
/* The next item (or the closing bracket) starts a line: written after its comma. */
void cli_json_line(cli_json *j);
/* A member name; the value written next is the member's. */
void cli_json_name(cli_json *j, const char *name);

/* Values. */
void cli_json_str(cli_json *j, const char *s, size_t len);
/* A NUL-terminated string, or null for NULL. */
void cli_json_cstr(cli_json *j, const char *s);
void cli_json_u64(cli_json *j, uint64_t v);
void cli_json_i64(cli_json *j, int64_t v);
/* A number with `digits` significant digits (%.*g). */
void cli_json_double(cli_json *j, double d, int digits);
void cli_json_bool(cli_json *j, int b);
void cli_json_null(cli_json *j);
/* A metadata value (arrays as JSON arrays). */
void cli_json_gguf_value(cli_json *j, const gguf_value *v);

/* A member: its name and a number, a NUL-terminated string (null for NULL) or a bool. */
void cli_json_member_u64(cli_json *j, const char *name, uint64_t v);
void cli_json_member_str(cli_json *j, const char *name, const char *s);
void cli_json_member_bool(cli_json *j, const char *name, int b);

/* One metadata value alone, written to out (get --json, Markdown cells). */
void cli_json_value(FILE *out, const gguf_value *v);

#endif
