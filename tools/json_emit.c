/* The tools' JSON emitter (json_emit.h): the layout (commas, brackets, member names, line
 * breaks) here, the strings and values by the library's JSON writer: names and strings
 * rendered into one reused buffer and copied to the output, metadata values handed over in
 * pieces as they are rendered. */
#include "json_emit.h"

#include "cli.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static gguf_text rendered; /* the tools are single-threaded */

void cli_json_init(cli_json *j, FILE *out, unsigned flags) {
    *j = (cli_json){.out = out, .flags = flags};
}

/* Before an item (a value, a container, or a member name when `name`): its comma and line
 * break. In an object, a name comes before each value; elsewhere there are no names. */
static void item(cli_json *j, bool name) {
    if (j->after_name) {
        assert(!name);
        j->after_name = 0;
        return;
    }
    assert(name == (j->depth > 0 && j->close[j->depth] == '}'));
    if (j->items[j->depth])
        fputs(j->flags & CLI_JSON_SPACED ? ", " : ",", j->out);
    if (j->line)
        putc('\n', j->out);
    j->line = 0;
    j->items[j->depth] = j->depth > 0;
}

static void begin(cli_json *j, char c, char close) {
    item(j, false);
    assert(j->depth < CLI_JSON_MAX_DEPTH);
    putc(c, j->out);
    j->depth++;
    j->close[j->depth] = close;
    j->items[j->depth] = 0;
}

void cli_json_object(cli_json *j) {
    begin(j, '{', '}');
}

void cli_json_array(cli_json *j) {
    begin(j, '[', ']');
}

void cli_json_end(cli_json *j) {
    assert(j->depth > 0 && !j->after_name);
    if (j->line)
        putc('\n', j->out);
    j->line = 0;
    putc(j->close[j->depth--], j->out);
}

void cli_json_line(cli_json *j) {
    j->line = 1;
}

/* Rendered text written out, the controls JSON lets through escaped when asked. */
static void emit(cli_json *j, const char *data, size_t n) {
    if (!(j->flags & CLI_JSON_CONTROLS)) {
        fwrite(data, 1, n, j->out);
        return;
    }
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n;) {
        size_t len = gguf_text_utf8_len(p + i, n - i);
        long cp = len > 0 ? cli_text_control(p + i, len) : -1;
        if (len == 0)
            len = 1;
        if (cp >= 0)
            fprintf(j->out, "\\u%04lx", (unsigned long)cp);
        else
            fwrite(p + i, 1, len, j->out);
        i += len;
    }
}

/* The rendered text (rc: what rendering returned); null when rendering ran out of memory. */
static void flush(cli_json *j, int rc) {
    if (rc != 0) {
        fputs("null", j->out); /* out of memory: still a JSON document */
        j->nomem = 1;
    } else {
        emit(j, rendered.data, rendered.len);
    }
    rendered.len = 0;
}

typedef struct piece_writer {
    cli_json *j;
    size_t handed; /* bytes written so far */
} piece_writer;

static int emit_piece(void *user, const char *data, size_t n) {
    piece_writer *w = user;
    emit(w->j, data, n);
    w->handed += n;
    return 0;
}

void cli_json_name(cli_json *j, const char *name) {
    item(j, true);
    flush(j, gguf_json_string(&rendered, name, strlen(name)));
    fputs(j->flags & CLI_JSON_SPACED ? ": " : ":", j->out);
    j->after_name = 1;
}

void cli_json_str(cli_json *j, const char *s, size_t len) {
    item(j, false);
    flush(j, gguf_json_string(&rendered, s, len));
}

void cli_json_cstr(cli_json *j, const char *s) {
    if (s == NULL)
        cli_json_null(j);
    else
        cli_json_str(j, s, strlen(s));
}

void cli_json_u64(cli_json *j, uint64_t v) {
    item(j, false);
    fprintf(j->out, "%" PRIu64, v);
}

void cli_json_i64(cli_json *j, int64_t v) {
    item(j, false);
    fprintf(j->out, "%" PRId64, v);
}

void cli_json_double(cli_json *j, double d, int digits) {
    item(j, false);
    if (isnan(d))
        fputs("\"nan\"", j->out);
    else if (isinf(d))
        fputs(d > 0 ? "\"inf\"" : "\"-inf\"", j->out);
    else
        fprintf(j->out, "%.*g", digits, d);
}

void cli_json_bool(cli_json *j, int b) {
    item(j, false);
    fputs(b ? "true" : "false", j->out);
}

void cli_json_null(cli_json *j) {
    item(j, false);
    fputs("null", j->out);
}

void cli_json_gguf_value(cli_json *j, const gguf_value *v) {
    item(j, false);
    /* in pieces as rendered: a vocabulary is never held whole. Out of memory before any
     * piece, null as for a string; after one, the value stays cut */
    piece_writer w = {j, 0};
    if (gguf_json_value_write(v, emit_piece, &w) != 0) {
        if (w.handed == 0)
            fputs("null", j->out);
        j->nomem = 1;
    }
}

void cli_json_member_u64(cli_json *j, const char *name, uint64_t v) {
    cli_json_name(j, name);
    cli_json_u64(j, v);
}

void cli_json_member_str(cli_json *j, const char *name, const char *s) {
    cli_json_name(j, name);
    cli_json_cstr(j, s);
}

void cli_json_member_bool(cli_json *j, const char *name, int b) {
    cli_json_name(j, name);
    cli_json_bool(j, b);
}

void cli_json_value(FILE *out, const gguf_value *v) {
    cli_json j;
    cli_json_init(&j, out, 0);
    cli_json_gguf_value(&j, v);
}
