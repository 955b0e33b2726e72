/* Shared tool glue: errors, open options, JSON and text rendering of metadata values. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
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
    case CLI_OPT_ONE_FILE: *flags &= ~(unsigned)GGUF_OPEN_SPLIT_SET; return 1;
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

int cli_getopt_help(int argc, char **argv, const char *shortopts, const struct option *longopts,
                    const char *usage, const char *help, unsigned *flags, int *status) {
    for (;;) {
        int c = getopt_long(argc, argv, shortopts, longopts, NULL);
        if (c == -1)
            return -1;
        if (c == 'h') {
            fputs(help, stdout);
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

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *usage, unsigned *flags, int *status) {
    return cli_getopt_help(argc, argv, shortopts, longopts, usage, usage, flags, status);
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

/* ---- JSON: the library's writer, into one reused buffer ---- */

static gguf_text json_buf;

static void flush_json(FILE *out, int rc) {
    if (rc == 0)
        fwrite(json_buf.data, 1, json_buf.len, out);
    else
        fputs("null", out); /* out of memory: still a JSON document */
    json_buf.len = 0;
}

void cli_json_str(FILE *out, const char *s, size_t len) {
    flush_json(out, gguf_json_string(&json_buf, s, len));
}

void cli_json_value(FILE *out, const gguf_value *v) {
    flush_json(out, gguf_json_value(&json_buf, v));
}

void cli_json_double(FILE *out, double d, int digits) {
    if (isnan(d))
        fputs("\"nan\"", out);
    else if (isinf(d))
        fputs(d > 0 ? "\"inf\"" : "\"-inf\"", out);
    else
        fprintf(out, "%.*g", digits, d);
}

/* ---- text ---- */

/* Length of the valid UTF-8 sequence of two or more bytes at s, or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
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

void cli_text_escape(FILE *out, const char *str, size_t n, int quoted) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    if (quoted)
        putc('"', out);
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f) {
            if (c == '\\' || (quoted && c == '"'))
                putc('\\', out);
            putc(c, out);
            i++;
            continue;
        }
        size_t len = c < 0x80 ? 0 : utf8_len(s + i, n - i);
        /* U+0080..U+009F are the C1 controls (CSI, OSC, ...) some terminals obey */
        if (len > 1 && !(len == 2 && c == 0xc2 && s[i + 1] < 0xa0)) {
            fwrite(s + i, 1, len, out);
            i += len;
            continue;
        }
        size_t k = len > 1 ? len : 1;
        for (size_t j = 0; j < k; j++, i++) {
            c = s[i];
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            case 0x1b: fputs("\\e", out); break;
            default:
                putc('\\', out);
                putc('x', out);
                putc(hex[c >> 4], out);
                putc(hex[c & 15], out);
            }
        }
    }
    if (quoted)
        putc('"', out);
}

void cli_text_value(FILE *out, const gguf_value *v, unsigned max_elems) {
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        const char *s;
        uint64_t len;
        /* strings quoted and escaped for the terminal; other scalars read as in JSON */
        if (gguf_value_type(v) == GGUF_VTYPE_STRING && gguf_value_get_str(&s, &len, v, NULL) == 0)
            cli_text_escape(out, s, (size_t)len, 1);
        else
            cli_json_value(out, v);
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

int cli_parse_size(const char *text, const char *what, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift != 0 && (*end == 'i' || *end == 'I'))
        end++;
    if (shift != 0 && (*end == 'b' || *end == 'B'))
        end++;
    if (end == text || *end != '\0' || text[0] == '-' || errno != 0 ||
        (shift != 0 && v > (UINT64_MAX >> shift))) {
        cli_errorf("%s: '%s' is not a size (bytes, or a number with K, M, G or T)", what, text);
        return -1;
    }
    *out = (uint64_t)v << shift;
    return 0;
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
