/* Shared tool glue: errors, open options, JSON and text rendering of metadata values. */
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

const char *cli_prog = "gguf-edit";

void cli_report(const char *path, const gguf_error *err) {
    const char *msg = err->message[0] ? err->message : gguf_strerror(err->code);
    if (err->path[0] != '\0')
        path = err->path; /* the library knows which file it was about */
    if (err->offset != GGUF_ERROR_NO_OFFSET)
        fprintf(stderr, "%s: %s: offset 0x%" PRIx64 ": %s\n", cli_prog, path, err->offset, msg);
    else
        fprintf(stderr, "%s: %s: %s\n", cli_prog, path, msg);
}

void cli_errorf(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", cli_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_open_option(int opt, const char *arg, unsigned *flags) {
    switch (opt) {
    case CLI_OPT_LENIENT: *flags |= GGUF_OPEN_LENIENT; return 1;
    case CLI_OPT_UNKNOWN_TYPES: *flags |= GGUF_OPEN_UNKNOWN_TYPES; return 1;
    case CLI_OPT_NO_MMAP: *flags |= GGUF_OPEN_NO_MMAP; return 1;
    case CLI_OPT_ENDIAN:
        *flags &= ~(unsigned)(GGUF_OPEN_FORCE_LITTLE | GGUF_OPEN_FORCE_BIG);
        if (strcmp(arg, "little") == 0)
            *flags |= GGUF_OPEN_FORCE_LITTLE;
        else if (strcmp(arg, "big") == 0)
            *flags |= GGUF_OPEN_FORCE_BIG;
        else {
            cli_errorf("--endian takes 'little' or 'big', not '%s'", arg);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *usage, unsigned *flags, int *status) {
    for (;;) {
        int c = getopt_long(argc, argv, shortopts, longopts, NULL);
        if (c == -1)
            return -1;
        if (c == 'h') {
            fputs(usage, stdout);
            *status = CLI_OK;
            return CLI_DONE;
        }
        int open_opt = cli_open_option(c, optarg, flags);
        if (open_opt > 0)
            continue;
        if (open_opt < 0 || c == '?' || c == ':') {
            fputs(usage, stderr);
            *status = CLI_USAGE;
            return CLI_DONE;
        }
        return c;
    }
}

int cli_operands(int argc, int n, const char *usage) {
    if (argc - optind == n)
        return 0;
    fputs(usage, stderr);
    return CLI_USAGE;
}

void cli_note_journal(const char *path) {
    int state;
    gguf_error why;
    gguf_error_clear(&why);
    if (gguf_file_journal(&state, path, &why) != 0 || state == GGUF_JOURNAL_NONE)
        return;
    if (state == GGUF_JOURNAL_PENDING)
        cli_errorf("%s: an interrupted edit is pending: run `gguf-edit recover %s` "
                   "(shown as it was before that edit)", path, path);
    else
        cli_errorf("%s: a journal lies beside it that recover would refuse: %s", path,
                   why.message);
}

int cli_recover(const char *path) {
    gguf_error err;
    gguf_error_clear(&err);
    int recovered = 0;
    if (gguf_file_recover(path, &recovered, &err) != 0) {
        cli_report(path, &err);
        return CLI_BAD;
    }
    if (recovered)
        cli_errorf("%s: finished an interrupted edit first (from its journal)", path);
    return CLI_OK;
}

gguf_file *cli_open(const char *path, unsigned flags) {
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_file_open(&f, path, flags, &err) != 0) {
        cli_report(path, &err);
        return NULL;
    }
    cli_note_journal(path);
    return f;
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when the bytes are not UTF-8. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

void cli_json_str(FILE *out, const char *str, size_t n) {
    const unsigned char *s = (const unsigned char *)str;
    putc('"', out);
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc != NULL) {
            fputs(esc, out);
            i++;
            continue;
        }
        if (c < 0x20 || c == 0x7f) {
            fprintf(out, "\\u%04x", c);
            i++;
            continue;
        }
        size_t len = utf8_len(s + i, n - i);
        if (len == 0) {
            fprintf(out, "\\u%04x", c);
            i++;
            continue;
        }
        fwrite(s + i, 1, len, out);
        i += len;
    }
    putc('"', out);
}

static void json_double(FILE *out, double d, int digits) {
    if (isnan(d))
        fputs("\"nan\"", out);
    else if (isinf(d))
        fputs(d > 0 ? "\"inf\"" : "\"-inf\"", out);
    else
        fprintf(out, "%.*g", digits, d);
}

static void json_scalar(FILE *out, const gguf_value *v) {
    uint32_t t = gguf_value_type(v);
    uint64_t u;
    int64_t i;
    int is_signed;
    double d;
    if (t == GGUF_VTYPE_BOOL) {
        uint8_t b;
        gguf_value_get_bool_byte(&b, v, NULL);
        fputs(b ? "true" : "false", out);
    } else if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        gguf_value_get_f64(&d, v, NULL);
        json_double(out, d, t == GGUF_VTYPE_F32 ? 9 : 17);
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s;
        uint64_t len;
        gguf_value_get_str(&s, &len, v, NULL);
        cli_json_str(out, s, (size_t)len);
    } else if (gguf_value_get_int(&u, &i, &is_signed, v, NULL) == 0) {
        if (is_signed)
            fprintf(out, "%" PRId64, i);
        else
            fprintf(out, "%" PRIu64, u);
    } else {
        fputs("null", out);
    }
}

void cli_json_value(FILE *out, const gguf_value *v) {
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        json_scalar(out, v);
        return;
    }
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    putc('[', out);
    for (int first = 1; gguf_value_iter_next(&it, &e); first = 0) {
        if (!first)
            putc(',', out);
        cli_json_value(out, &e);
    }
    putc(']', out);
}

/* ---- text ---- */

void cli_text_value(FILE *out, const gguf_value *v, unsigned max_elems) {
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        json_scalar(out, v);
        return;
    }
    gguf_value_iter it;
    gguf_value e;
    uint64_t n = gguf_value_count(v);
    gguf_value_iter_init(&it, v);
    putc('[', out);
    unsigned shown = 0;
    while (shown < max_elems && gguf_value_iter_next(&it, &e)) {
        if (shown++)
            fputs(", ", out);
        cli_text_value(out, &e, max_elems);
    }
    if (n > shown)
        fprintf(out, "%s... %" PRIu64 " more", shown ? ", " : "", n - shown);
    putc(']', out);
}

const char *cli_vtype_name(uint32_t vtype) {
    const char *n = gguf_vtype_name(vtype);
    return n ? n : "?";
}

const char *cli_dtype_name(uint32_t dtype, char *buf, size_t bufsize) {
    const char *n = gguf_dtype_name(dtype);
    if (n != NULL)
        return n;
    snprintf(buf, bufsize, "TYPE_%u", dtype);
    return buf;
}
