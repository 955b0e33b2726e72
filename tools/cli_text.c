/* Text output for people: names and strings from a file escaped so that they cannot drive
 * the terminal, values on one line, type names. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>

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
        size_t len = c < 0x80 ? 0 : gguf_text_utf8_len(s + i, n - i);
        /* C1 and bidirectional controls are escaped too, byte by byte */
        if (len > 1 && cli_text_control(s + i, len) < 0) {
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
