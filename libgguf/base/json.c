/* The one JSON writer: strings and numbers appended to a buffer. Output is always valid UTF-8:
 * a byte that is not part of valid UTF-8 is written as \u00XX (its Latin-1 code point), so that
 * no input can make the document unreadable. Floats print as printf's %.*g does (9 significant
 * digits for f32, 17 for f64: enough to read the same value back); non-finite floats, which
 * JSON lacks, as the strings "nan", "inf" and "-inf". */
#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bytes that need more than copying: '"', '\\', controls and DEL, and every byte >= 0x80
 * (checked as UTF-8). */
static bool plain(uint8_t c) {
    return c >= 0x20 && c != '"' && c != '\\' && c < 0x7f;
}

void gguf__json_str(gguf__buf *b, const void *str, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const uint8_t *s = str;
    /* worst case: six bytes out per byte in, plus the quotes */
    if (n > (SIZE_MAX - 2) / 6) {
        b->failed = true;
        return;
    }
    uint8_t *o = gguf__buf_grow(b, 6 * n + 2);
    if (o == NULL)
        return;
    uint8_t *start = o;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        size_t run = i;
        while (run < n && plain(s[run]))
            run++;
        memcpy(o, s + i, run - i);
        o += run - i;
        i = run;
        if (i == n)
            break;
        uint8_t c = s[i];
        char esc = 0;
        switch (c) {
        case '"': esc = '"'; break;
        case '\\': esc = '\\'; break;
        case '\n': esc = 'n'; break;
        case '\r': esc = 'r'; break;
        case '\t': esc = 't'; break;
        case '\b': esc = 'b'; break;
        case '\f': esc = 'f'; break;
        default: break;
        }
        if (esc != 0) {
            *o++ = '\\';
            *o++ = (uint8_t)esc;
            i++;
            continue;
        }
        size_t len = c >= 0x80 ? gguf__utf8_len(s + i, n - i) : 0;
        if (len == 0) { /* a control byte, DEL, or a byte that is not UTF-8 */
            memcpy(o, "\\u00", 4);
            o[4] = (uint8_t)hex[c >> 4];
            o[5] = (uint8_t)hex[c & 15];
            o += 6;
            i++;
            continue;
        }
        memcpy(o, s + i, len);
        o += len;
        i += len;
    }
    *o++ = '"';
    b->len -= 6 * n + 2 - (size_t)(o - start); /* give back what was not used */
}

void gguf__json_double(gguf__buf *b, double d, int digits) {
    if (isnan(d))
        gguf__buf_str(b, "\"nan\"");
    else if (isinf(d))
        gguf__buf_str(b, d > 0 ? "\"inf\"" : "\"-inf\"");
    else
        gguf__buf_printf(b, "%.*g", digits, d);
}

void gguf__json_u64(gguf__buf *b, uint64_t v) {
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    uint8_t *o = gguf__buf_grow(b, n);
    if (o != NULL) {
        for (size_t i = 0; i < n; i++)
            o[i] = (uint8_t)tmp[n - 1 - i];
    }
}

void gguf__json_i64(gguf__buf *b, int64_t v) {
    if (v < 0) {
        gguf__buf_add(b, "-", 1);
        gguf__json_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        gguf__json_u64(b, (uint64_t)v);
    }
}
