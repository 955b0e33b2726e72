/* The one JSON writer: strings and numbers appended to a buffer. Output is always valid UTF-8:
 * a byte that is not part of valid UTF-8 is written as \u00XX (its Latin-1 code point), so that
 * no input can make the document unreadable. Floats print as printf's %.*g does (9 significant
 * digits for f32, 17 for f64: enough to read the same value back); non-finite floats, which
 * JSON lacks, as the strings "nan", "inf" and "-inf".
 *
 * Speed matters here (a 262k-token vocabulary is a million strings): plain ASCII is found
 * eight bytes at a time, integers are written straight into the buffer, and floats in the
 * range vocabularies hold are formatted exactly without printf (see json_f32_fast). */
#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Bytes that need more than copying: '"', '\\', controls and DEL, and every byte >= 0x80
 * (checked as UTF-8). A table: one load per byte instead of four comparisons. */
static const uint8_t special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x00 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x10 */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x20 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x30 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x50 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x60 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, /* 0x70 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x80 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x90 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xa0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xb0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xc0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xd0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xe0 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xf0 */
};

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Non-zero when one of the eight bytes of w is not plain: below 0x20, a quote, a backslash,
 * 0x7f or above (the classic "has a byte less than n" and "has a zero byte" tests). */
static uint64_t special8(uint64_t w) {
    uint64_t low = (w - ONES * 0x20) & ~w;
    uint64_t q = w ^ (ONES * '"'), bs = w ^ (ONES * '\\'), del = w ^ (ONES * 0x7f);
    uint64_t zq = (q - ONES) & ~q, zb = (bs - ONES) & ~bs, zd = (del - ONES) & ~del;
    return (low | zq | zb | zd | w) & HIGHS;
}

/* The common case first: a string with nothing to escape that is valid UTF-8 is copied as it
 * is, after one pass of word tests (and a UTF-8 check when it has bytes >= 0x80). */
static bool copies_as_is(const uint8_t *s, size_t n) {
    uint64_t esc = 0, high = 0;
    size_t i = 0;
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t q = w ^ (ONES * '"'), bs = w ^ (ONES * '\\'), del = w ^ (ONES * 0x7f);
        esc |= ((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((bs - ONES) & ~bs) |
               ((del - ONES) & ~del);
        high |= w;
    }
    if (i < n) {
        uint64_t w = ONES * ' '; /* the tail, padded with spaces (which need nothing) */
        memcpy(&w, s + i, n - i);
        uint64_t q = w ^ (ONES * '"'), bs = w ^ (ONES * '\\'), del = w ^ (ONES * 0x7f);
        esc |= ((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((bs - ONES) & ~bs) |
               ((del - ONES) & ~del);
        high |= w;
    }
    if ((esc & HIGHS) != 0)
        return false;
    return (high & HIGHS) == 0 || gguf__utf8_valid(s, n);
}

static inline uint8_t *str_to(uint8_t *o, const void *str, size_t n) {
    static const char hex[] = "0123456789abcdef";
    const uint8_t *s = str;
    *o++ = '"';
    if (copies_as_is(s, n)) {
        memcpy(o, s, n);
        o += n;
        *o++ = '"';
        return o;
    }
    size_t i = 0;
    while (i < n) {
        /* long runs of plain ASCII eight bytes at a time; short strings (most tokens) go byte
         * by byte, where the word test would cost more than it saves */
        while (n - i >= 16) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            uint64_t m = special8(w);
            memcpy(o, &w, 8); /* room: 6 bytes out per byte in, and 8 bytes remain in */
            if (m == 0) {
                o += 8;
                i += 8;
                continue;
            }
            /* the first special byte (the lowest flag is exact; higher ones may be borrows) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            size_t k = (size_t)__builtin_ctzll(m) >> 3;
#else
            size_t k = (size_t)__builtin_clzll(m) >> 3;
#endif
            o += k;
            i += k;
            break;
        }
        uint8_t c = s[i];
        if (special[c] == 0) {
            *o++ = c;
            i++;
            continue;
        }
        /* two-byte UTF-8 (BPE vocabularies are full of U+0120 'Ġ'), checked inline */
        if (c >= 0xc2 && c <= 0xdf && n - i >= 2 && (s[i + 1] & 0xc0) == 0x80) {
            o[0] = c;
            o[1] = s[i + 1];
            o += 2;
            i += 2;
            continue;
        }
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
    return o;
}

uint8_t *gguf__json_str_to(uint8_t *o, const void *str, size_t n) {
    return str_to(o, str, n);
}

uint8_t *gguf__json_str_list(uint8_t *o, const uint8_t *p, uint64_t count, bool wide, bool big) {
    for (uint64_t i = 0; i < count; i++) {
        uint64_t n = wide ? gguf__load64(p, big) : gguf__load32(p, big);
        p += wide ? 8 : 4;
        if (i > 0)
            *o++ = ',';
        o = str_to(o, p, (size_t)n);
        p += n;
    }
    return o;
}

void gguf__json_str(gguf__buf *b, const void *str, size_t n) {
    /* worst case: six bytes out per byte in, plus the quotes */
    if (n > (SIZE_MAX - 2) / 6) {
        b->failed = true;
        return;
    }
    uint8_t *o = gguf__buf_grow(b, 6 * n + 2);
    if (o == NULL)
        return;
    uint8_t *end = str_to(o, str, n);
    b->len -= 6 * n + 2 - (size_t)(end - o); /* give back what was not used */
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

static bool non_finite(gguf__buf *b, double d) {
    if (isnan(d))
        gguf__buf_str(b, "\"nan\"");
    else if (isinf(d))
        gguf__buf_str(b, d > 0 ? "\"inf\"" : "\"-inf\"");
    else
        return false;
    return true;
}

void gguf__json_double(gguf__buf *b, double d, int digits) {
    if (!non_finite(b, d))
        gguf__buf_printf(b, "%.*g", digits, d);
}

/* printf's "%.9g" of a float f with 1e-4 <= |f| < 1e8, without printf. f = m * 2^e with m
 * below 2^24; scaled by 10^k (k = 8 - its decimal exponent, 0..12) it becomes m * 5^k * 2^j,
 * whose significand stays below 2^24 * 5^12 < 2^53: the product is exact in a double, and
 * rounding it to an integer (to nearest, ties to even, as printf rounds) gives exactly printf's
 * nine digits. Returns false outside that range (printf then does it). */
static bool json_f32_fast(gguf__buf *b, float f) {
    /* 10^k for k = 0..12, exact in a double */
    static const double pow10[] = {1,   1e1, 1e2, 1e3,  1e4,  1e5, 1e6,
                                   1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
    double d = fabs((double)f);
    if (!(d >= 1e-4 && d < 1e8))
        return false;
    int x = -4; /* the decimal exponent: 10^x <= d < 10^(x+1), found as d * 10^4 >= 10^(x+5) */
    while (d * 1e4 >= pow10[x + 5])
        x++;
    double scaled = d * pow10[8 - x]; /* exact: see above */
    long long n = llrint(scaled);
    if (n >= 1000000000LL) { /* rounded up to the next power of ten */
        x++;
        n /= 10;
        if (x >= 8)
            return false; /* 1e8 and up: printf's exponent form */
    }
    char digits[9];
    for (int i = 8; i >= 0; i--) {
        digits[i] = (char)('0' + n % 10);
        n /= 10;
    }
    int last = 8; /* %g drops trailing zeros of the fraction */
    while (last > 0 && digits[last] == '0' && last > x)
        last--;
    uint8_t *o = gguf__buf_grow(b, 16);
    if (o == NULL)
        return true;
    uint8_t *p = o;
    if (f < 0)
        *p++ = '-';
    if (x < 0) {
        *p++ = '0';
        *p++ = '.';
        for (int i = -1; i > x; i--)
            *p++ = '0';
        for (int i = 0; i <= last; i++)
            *p++ = (uint8_t)digits[i];
    } else {
        for (int i = 0; i <= x; i++)
            *p++ = (uint8_t)digits[i];
        if (last > x) {
            *p++ = '.';
            for (int i = x + 1; i <= last; i++)
                *p++ = (uint8_t)digits[i];
        }
    }
    b->len -= 16 - (size_t)(p - o);
    return true;
}

void gguf__json_f32(gguf__buf *b, float f) {
    if (f == 0) {
        gguf__buf_str(b, signbit(f) ? "-0" : "0");
        return;
    }
    if (!non_finite(b, f) && !json_f32_fast(b, f))
        gguf__buf_printf(b, "%.9g", (double)f);
}
