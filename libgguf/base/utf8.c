/* UTF-8 validation: which bytes may go into JSON and SQLite text as they are. Overlong forms,
 * surrogates and code points above U+10FFFF are not UTF-8. */
#include "base/base.h"

size_t gguf__utf8_len(const uint8_t *s, size_t n) {
    uint8_t c = s[0];
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

bool gguf__utf8_valid(const void *p, size_t n) {
    const uint8_t *s = p;
    for (size_t i = 0; i < n;) {
        /* runs of ASCII, the common case, eight bytes at a time */
        while (n - i >= 8) {
            uint64_t w;
            __builtin_memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull)
                break;
            i += 8;
        }
        if (i == n)
            break;
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        /* two bytes (most non-ASCII text in vocabularies), checked inline */
        if (c >= 0xc2 && c <= 0xdf && n - i >= 2 && (s[i + 1] & 0xc0) == 0x80) {
            i += 2;
            continue;
        }
        size_t l = gguf__utf8_len(s + i, n - i);
        if (l == 0)
            return false;
        i += l;
    }
    return true;
}

void gguf__utf8_put(gguf__buf *b, uint32_t cp) {
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xc0 | cp >> 6), u[1] = (uint8_t)(0x80 | (cp & 0x3f)), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xe0 | cp >> 12), u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (uint8_t)(0x80 | (cp & 0x3f)), n = 3;
    } else {
        u[0] = (uint8_t)(0xf0 | cp >> 18), u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (uint8_t)(0x80 | (cp & 0x3f)), n = 4;
    }
    gguf__buf_add(b, u, n);
}
