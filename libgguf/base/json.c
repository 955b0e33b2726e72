/* The one JSON writer: strings and numbers appended to a buffer. Output is always valid UTF-8:
 * a byte that is not part of valid UTF-8 is written as \u00XX (its Latin-1 code point), so that
 * no input can make the document unreadable. Floats print as printf's %.*g does (9 significant
 * digits for f32, 17 for f64: enough to read the same value back); non-finite floats, which
 * JSON lacks, as the strings "nan", "inf" and "-inf".
 *
 * Speed matters here (a 262k-token vocabulary is a million strings). The scalar string writer
 * below is the definition. On x86-64, strings go through SSE2 (always there) or AVX2 (when the
 * CPU has it, chosen at run time) 16 or 32 bytes at a time: one pass finds the bytes to escape
 * and checks UTF-8 together, and a block that is valid UTF-8 with nothing to escape is stored
 * as it is; any other block is handed to the scalar writer, so that every path writes the same
 * bytes (tests/lib/base/check_base.c compares them on every byte in every place of a block).
 * Integers are written straight into the output, and floats in the range vocabularies hold are
 * formatted exactly without printf (see f32_fast). */
#include "base/base.h"

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* other machines, and a build with -DGGUF_QUANT_NO_SIMD as for the kernels, write scalar */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(GGUF_QUANT_NO_SIMD)
#define JSON_X86 1
#include <immintrin.h>
#else
#define JSON_X86 0
#endif

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

/* Writes the characters that start in s[*ip..stop) of the n bytes at s, escaped, at o (each
 * whole: the last may end past stop); *ip becomes the end of the last. */
static uint8_t *esc_run(uint8_t *o, const uint8_t *s, size_t *ip, size_t stop, size_t n) {
    static const char hex[] = "0123456789abcdef";
    size_t i = *ip;
    while (i < stop) {
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
    *ip = i;
    return o;
}

/* The definition: a JSON string literal of s[0..n) at o (room: 6 * n + 2). */
static uint8_t *str_scalar(uint8_t *o, const uint8_t *s, size_t n) {
    *o++ = '"';
    if (copies_as_is(s, n)) {
        memcpy(o, s, n);
        o += n;
    } else {
        size_t i = 0;
        o = esc_run(o, s, &i, n, n);
    }
    *o++ = '"';
    return o;
}

static uint8_t *list_scalar(uint8_t *o, const uint8_t *lim, const uint8_t **pp,
                            uint64_t *left, bool first, bool wide, bool big) {
    const uint8_t *p = *pp;
    uint64_t i = 0, count = *left;
    for (; i < count; i++) {
        uint64_t n = wide ? gguf__load64(p, big) : gguf__load32(p, big);
        if (o > lim || n > (size_t)(lim - o) / 6)
            break;
        p += wide ? 8 : 4;
        if (i > 0 || !first)
            *o++ = ',';
        o = str_scalar(o, p, (size_t)n);
        p += n;
    }
    *pp = p;
    *left = count - i;
    return o;
}

#if JSON_X86
/* How many of the bytes before s[i] (i >= 3; valid UTF-8 so far) begin a character that they
 * do not finish: 0 to 3. */
static size_t unfinished(const uint8_t *s, size_t i) {
    if (s[i - 1] >= 0xc0)
        return 1;
    if (s[i - 1] < 0x80)
        return 0;
    if (s[i - 2] >= 0xe0)
        return 2;
    if (s[i - 2] >= 0xc0 || s[i - 2] < 0x80)
        return 0;
    return s[i - 3] >= 0xf0 ? 3 : 0;
}

/* UTF-8 by comparisons only (SSE2 has no byte shuffle): with p1, p2, p3 the bytes one, two and
 * three places before, a byte must be a continuation (80..BF) exactly when p1 >= C0, p2 >= E0
 * or p3 >= F0; C0, C1 and F5..FF never occur; and after E0, ED, F0 and F4 the next byte has a
 * narrower range (no overlong forms, no surrogates, nothing above U+10FFFF). Together these
 * are the rules of gguf__utf8_len. */
static inline __m128i ld16(const uint8_t *p) {
    return _mm_loadu_si128((const __m128i *)p);
}

static inline void st16(uint8_t *o, __m128i x) {
    _mm_storeu_si128((__m128i *)o, x);
}

static inline __m128i zero16(void) {
    return _mm_setzero_si128();
}

static inline __m128i pad16(__m128i x, size_t len) {
    const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m128i keep = _mm_cmpgt_epi8(_mm_set1_epi8((char)len), iota);
    return _mm_or_si128(_mm_and_si128(keep, x), _mm_andnot_si128(keep, _mm_set1_epi8(' ')));
}

/* Bit j set when byte j of x needs an escape or breaks UTF-8, prev being the 16 bytes before
 * (zeros at a character boundary). UTF-8 by comparisons only (SSE2 has no byte shuffle): with
 * p1, p2, p3 the bytes one, two and three places before, a byte must be a continuation
 * (80..BF) exactly when p1 >= C0, p2 >= E0 or p3 >= F0; C0, C1 and F5..FF never occur; after
 * E0, ED, F0 and F4 the next byte has a narrower range (no overlong forms, no surrogates,
 * nothing above U+10FFFF). Together these are gguf__utf8_len's rules. */
static inline uint32_t bad16(__m128i x, __m128i prev) {
    const __m128i zero = _mm_setzero_si128(), c1f = _mm_set1_epi8(0x1f);
    __m128i esc = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
        _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f)),
                     _mm_cmpeq_epi8(_mm_max_epu8(x, c1f), c1f)));
    uint32_t bad = (uint32_t)_mm_movemask_epi8(esc);
    __m128i p1 = _mm_or_si128(_mm_slli_si128(x, 1), _mm_srli_si128(prev, 15));
    __m128i p2 = _mm_or_si128(_mm_slli_si128(x, 2), _mm_srli_si128(prev, 14));
    __m128i p3 = _mm_or_si128(_mm_slli_si128(x, 3), _mm_srli_si128(prev, 13));
    __m128i must = _mm_or_si128(_mm_or_si128(_mm_subs_epu8(p1, _mm_set1_epi8((char)0xbf)),
                                             _mm_subs_epu8(p2, _mm_set1_epi8((char)0xdf))),
                                _mm_subs_epu8(p3, _mm_set1_epi8((char)0xef)));
    __m128i idle = _mm_cmpeq_epi8(must, zero); /* no continuation byte wanted here */
    if (_mm_movemask_epi8(x) == 0)
        return bad | (~(uint32_t)_mm_movemask_epi8(idle) & 0xffff);
    __m128i cont = _mm_cmplt_epi8(x, _mm_set1_epi8((char)0xc0)); /* signed: 80..BF */
    __m128i e = _mm_cmpeq_epi8(idle, cont);
    e = _mm_or_si128(e, _mm_cmpeq_epi8(_mm_and_si128(x, _mm_set1_epi8((char)0xfe)),
                                       _mm_set1_epi8((char)0xc0)));
    const __m128i c9f = _mm_set1_epi8((char)0x9f), c8f = _mm_set1_epi8((char)0x8f);
    __m128i le9f = _mm_cmpeq_epi8(_mm_max_epu8(x, c9f), c9f);
    __m128i le8f = _mm_cmpeq_epi8(_mm_max_epu8(x, c8f), c8f);
    e = _mm_or_si128(e, _mm_and_si128(_mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xe0)), le9f));
    e = _mm_or_si128(e, _mm_andnot_si128(le9f, _mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xed))));
    e = _mm_or_si128(e, _mm_and_si128(_mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xf0)), le8f));
    e = _mm_or_si128(e, _mm_andnot_si128(le8f, _mm_cmpeq_epi8(p1, _mm_set1_epi8((char)0xf4))));
    __m128i le_f4 = _mm_cmpeq_epi8(_mm_subs_epu8(x, _mm_set1_epi8((char)0xf4)), zero);
    return bad | (uint32_t)_mm_movemask_epi8(e) | (~(uint32_t)_mm_movemask_epi8(le_f4) & 0xffff);
}

#define SIMD_TARGET
#define SIMD_W 16
#define SIMD_V __m128i
#define SIMD_LOAD ld16
#define SIMD_STORE st16
#define SIMD_ZERO zero16
#define SIMD_PAD pad16
#define SIMD_BAD bad16
#define SIMD_STR str_sse2
#define SIMD_ONE one_sse2
#define SIMD_LIST list_sse2
#include "base/json_simd.h"
#undef SIMD_TARGET
#undef SIMD_W
#undef SIMD_V
#undef SIMD_LOAD
#undef SIMD_STORE
#undef SIMD_ZERO
#undef SIMD_PAD
#undef SIMD_BAD
#undef SIMD_STR
#undef SIMD_ONE
#undef SIMD_LIST

#define AVX2 __attribute__((target("avx2")))

static inline AVX2 __m256i ld32(const uint8_t *p) {
    return _mm256_loadu_si256((const __m256i *)p);
}

static inline AVX2 void st32(uint8_t *o, __m256i x) {
    _mm256_storeu_si256((__m256i *)o, x);
}

static inline AVX2 __m256i zero32(void) {
    return _mm256_setzero_si256();
}

static inline AVX2 __m256i pad32(__m256i x, size_t len) {
    const __m256i iota = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                          16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                                          29, 30, 31);
    __m256i keep = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)len), iota);
    return _mm256_blendv_epi8(_mm256_set1_epi8(' '), x, keep);
}

/* bad16 for 32 bytes (the byte shifts cross the two lanes through a permute). */
static inline AVX2 uint32_t bad32(__m256i x, __m256i prev) {
    const __m256i zero = _mm256_setzero_si256(), c1f = _mm256_set1_epi8(0x1f);
    __m256i esc = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('"')),
                        _mm256_cmpeq_epi8(x, _mm256_set1_epi8('\\'))),
        _mm256_or_si256(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(0x7f)),
                        _mm256_cmpeq_epi8(_mm256_max_epu8(x, c1f), c1f)));
    uint32_t bad = (uint32_t)_mm256_movemask_epi8(esc);
    __m256i t = _mm256_permute2x128_si256(prev, x, 0x21); /* prev's high lane, x's low lane */
    __m256i p1 = _mm256_alignr_epi8(x, t, 15);
    __m256i p2 = _mm256_alignr_epi8(x, t, 14);
    __m256i p3 = _mm256_alignr_epi8(x, t, 13);
    __m256i must = _mm256_or_si256(
        _mm256_or_si256(_mm256_subs_epu8(p1, _mm256_set1_epi8((char)0xbf)),
                        _mm256_subs_epu8(p2, _mm256_set1_epi8((char)0xdf))),
        _mm256_subs_epu8(p3, _mm256_set1_epi8((char)0xef)));
    __m256i idle = _mm256_cmpeq_epi8(must, zero);
    if (_mm256_movemask_epi8(x) == 0)
        return bad | ~(uint32_t)_mm256_movemask_epi8(idle);
    __m256i cont = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)0xc0), x);
    __m256i e = _mm256_cmpeq_epi8(idle, cont);
    e = _mm256_or_si256(e, _mm256_cmpeq_epi8(_mm256_and_si256(x, _mm256_set1_epi8((char)0xfe)),
                                             _mm256_set1_epi8((char)0xc0)));
    __m256i le9f = _mm256_cmpeq_epi8(_mm256_max_epu8(x, _mm256_set1_epi8((char)0x9f)),
                                     _mm256_set1_epi8((char)0x9f));
    __m256i le8f = _mm256_cmpeq_epi8(_mm256_max_epu8(x, _mm256_set1_epi8((char)0x8f)),
                                     _mm256_set1_epi8((char)0x8f));
    const __m256i e0 = _mm256_set1_epi8((char)0xe0), ed = _mm256_set1_epi8((char)0xed);
    const __m256i f0 = _mm256_set1_epi8((char)0xf0), f4 = _mm256_set1_epi8((char)0xf4);
    e = _mm256_or_si256(e, _mm256_and_si256(_mm256_cmpeq_epi8(p1, e0), le9f));
    e = _mm256_or_si256(e, _mm256_andnot_si256(le9f, _mm256_cmpeq_epi8(p1, ed)));
    e = _mm256_or_si256(e, _mm256_and_si256(_mm256_cmpeq_epi8(p1, f0), le8f));
    e = _mm256_or_si256(e, _mm256_andnot_si256(le8f, _mm256_cmpeq_epi8(p1, f4)));
    __m256i le_f4 = _mm256_cmpeq_epi8(_mm256_subs_epu8(x, _mm256_set1_epi8((char)0xf4)), zero);
    return bad | (uint32_t)_mm256_movemask_epi8(e) | ~(uint32_t)_mm256_movemask_epi8(le_f4);
}

#define SIMD_TARGET AVX2
#define SIMD_W 32
#define SIMD_V __m256i
#define SIMD_LOAD ld32
#define SIMD_STORE st32
#define SIMD_ZERO zero32
#define SIMD_PAD pad32
#define SIMD_BAD bad32
#define SIMD_STR str_avx2
#define SIMD_ONE one_avx2
#define SIMD_LIST list_avx2
#include "base/json_simd.h"
#endif /* JSON_X86 */

/* ---- which writer ---- */

static atomic_int level_supported = -1; /* detected once */
static atomic_int level_selected = -1;  /* -1: the best supported */

static int detect_level(void) {
#if JSON_X86
    __builtin_cpu_init();
    /* "avx2" includes the check that the OS saves the AVX state */
    return __builtin_cpu_supports("avx2") ? GGUF__JSON_AVX2 : GGUF__JSON_SSE2;
#else
    return GGUF__JSON_SCALAR;
#endif
}

static int json_level(void) {
    int sup = atomic_load_explicit(&level_supported, memory_order_relaxed);
    if (sup < 0) {
        sup = detect_level();
        atomic_store_explicit(&level_supported, sup, memory_order_relaxed);
    }
    int sel = atomic_load_explicit(&level_selected, memory_order_relaxed);
    return sel < 0 || sel > sup ? sup : sel;
}

int gguf__json_set_level(int level) {
    atomic_store_explicit(&level_selected, level < 0 ? -1 : level, memory_order_relaxed);
    return json_level();
}

static uint8_t *str_to(uint8_t *o, const uint8_t *s, size_t n, const uint8_t *end) {
    switch (json_level()) {
#if JSON_X86
    case GGUF__JSON_AVX2: return one_avx2(o, s, n, end);
    case GGUF__JSON_SSE2: return one_sse2(o, s, n, end);
#endif
    default: (void)end; return str_scalar(o, s, n);
    }
}

uint8_t *gguf__json_str_list(uint8_t *o, const uint8_t *lim, const uint8_t **p,
                             uint64_t *left, bool first, bool wide, bool big, const uint8_t *end) {
    switch (json_level()) {
#if JSON_X86
    case GGUF__JSON_AVX2: return list_avx2(o, lim, p, left, first, wide, big, end);
    case GGUF__JSON_SSE2: return list_sse2(o, lim, p, left, first, wide, big, end);
#endif
    default: (void)end; return list_scalar(o, lim, p, left, first, wide, big);
    }
}

uint8_t *gguf__json_str_at(uint8_t *o, const void *str, size_t n, const void *end) {
    return str_to(o, str, n, end);
}

void gguf__json_str(gguf__buf *b, const void *str, size_t n) {
    /* worst case: six bytes out per byte in, plus the quotes */
    if (n > (SIZE_MAX - 2 - GGUF__JSON_SLACK) / 6) {
        b->failed = true;
        return;
    }
    size_t room = 6 * n + 2 + GGUF__JSON_SLACK;
    uint8_t *o = gguf__buf_grow(b, room);
    if (o == NULL)
        return;
    uint8_t *end = str_to(o, str, n, (const uint8_t *)str + n);
    b->len -= room - (size_t)(end - o); /* give back what was not used */
}

/* ---- numbers ---- */

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                            "34353637383940414243444546474849505152535455565758596061626364656667"
                            "6869707172737475767778798081828384858687888990919293949596979899";

uint8_t *gguf__json_u64_to(uint8_t *o, uint64_t v) {
    if (v < 10) { /* token types, flags, small counts */
        *o = (uint8_t)('0' + v);
        return o + 1;
    }
    size_t n = 2; /* digits */
    for (uint64_t t = v / 100; t != 0; t /= 10)
        n++;
    uint8_t *p = o + n;
    while (v >= 100) {
        p -= 2;
        memcpy(p, pairs + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10)
        memcpy(p - 2, pairs + 2 * v, 2);
    else
        p[-1] = (uint8_t)('0' + v);
    return o + n;
}

uint8_t *gguf__json_i64_to(uint8_t *o, int64_t v) {
    if (v < 0) {
        *o++ = '-';
        return gguf__json_u64_to(o, (uint64_t)0 - (uint64_t)v);
    }
    return gguf__json_u64_to(o, (uint64_t)v);
}

void gguf__json_u64(gguf__buf *b, uint64_t v) {
    uint8_t *o = gguf__buf_grow(b, 20);
    if (o != NULL)
        b->len -= 20 - (size_t)(gguf__json_u64_to(o, v) - o);
}

void gguf__json_i64(gguf__buf *b, int64_t v) {
    uint8_t *o = gguf__buf_grow(b, 21);
    if (o != NULL)
        b->len -= 21 - (size_t)(gguf__json_i64_to(o, v) - o);
}

/* The strings JSON lacks numbers for, at o; NULL when d is finite. */
static uint8_t *non_finite(uint8_t *o, double d) {
    const char *s = isnan(d) ? "\"nan\"" : !isinf(d) ? NULL : d > 0 ? "\"inf\"" : "\"-inf\"";
    if (s == NULL)
        return NULL;
    size_t n = strlen(s);
    memcpy(o, s, n);
    return o + n;
}

uint8_t *gguf__json_double_to(uint8_t *o, double d, int digits) {
    uint8_t *end = non_finite(o, d);
    if (end != NULL)
        return end;
    int n = snprintf((char *)o, GGUF__JSON_NUM_ROOM, "%.*g", digits, d);
    return o + (n > 0 && n < GGUF__JSON_NUM_ROOM ? n : 0);
}

void gguf__json_double(gguf__buf *b, double d, int digits) {
    uint8_t *o = gguf__buf_grow(b, GGUF__JSON_NUM_ROOM);
    if (o != NULL)
        b->len -= GGUF__JSON_NUM_ROOM - (size_t)(gguf__json_double_to(o, d, digits) - o);
}

/* printf's "%.9g" of a float f with 1e-4 <= |f| < 1e8, without printf, at o (a whole number
 * below 1e9 has at most nine digits: gguf__json_f32_to prints it as an integer). f = m * 2^e
 * with m below 2^24; scaled by 10^k (k = 8 - its decimal exponent, 0..12) it becomes
 * m * 5^k * 2^j, whose significand stays below 2^24 * 5^12 < 2^53: the product is exact in a
 * double, and rounding it to an integer (to nearest, ties to even, as printf rounds) gives
 * exactly printf's nine digits. Returns NULL outside that range (printf then does it). */
static uint8_t *f32_fast(uint8_t *o, float f) {
    /* 10^k for k = 0..12, exact in a double */
    static const double pow10[] = {1,   1e1, 1e2, 1e3,  1e4,  1e5, 1e6,
                                   1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
    double d = fabs((double)f);
    if (!(d >= 1e-4 && d < 1e8))
        return NULL;
    int x = -4; /* the decimal exponent: 10^x <= d < 10^(x+1), found as d * 10^4 >= 10^(x+5) */
    while (d * 1e4 >= pow10[x + 5])
        x++;
    double scaled = d * pow10[8 - x]; /* exact: see above */
    long long n = llrint(scaled);
    if (n >= 1000000000LL) { /* rounded up to the next power of ten */
        x++;
        n /= 10;
        if (x >= 8)
            return NULL; /* 1e8 and up: printf's exponent form */
    }
    char digits[10]; /* nine digits, two at a time after the first */
    digits[0] = (char)('0' + n / 100000000);
    for (int i = 7; i >= 1; i -= 2) {
        memcpy(digits + i, pairs + 2 * (n % 100), 2);
        n /= 100;
    }
    int last = 8; /* %g drops trailing zeros of the fraction */
    while (last > 0 && digits[last] == '0' && last > x)
        last--;
    if (f < 0)
        *o++ = '-';
    if (x < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = -1; i > x; i--)
            *o++ = '0';
        memcpy(o, digits, (size_t)last + 1);
        o += last + 1;
    } else {
        memcpy(o, digits, (size_t)x + 1);
        o += x + 1;
        if (last > x) {
            *o++ = '.';
            memcpy(o, digits + x + 1, (size_t)(last - x));
            o += last - x;
        }
    }
    return o;
}

uint8_t *gguf__json_f32_to(uint8_t *o, float f) {
    /* whole numbers first (vocabulary scores such as -1000): below 1e9 they print as integers */
    if (f > -1e9f && f < 1e9f && f == (float)(int32_t)f && f != 0) {
        int32_t i = (int32_t)f;
        if (i < 0)
            *o++ = '-';
        return gguf__json_u64_to(o, i < 0 ? (uint64_t)0 - (uint64_t)(int64_t)i : (uint64_t)i);
    }
    if (f == 0) {
        if (signbit(f))
            *o++ = '-';
        *o++ = '0';
        return o;
    }
    uint8_t *end = non_finite(o, f);
    if (end == NULL)
        end = f32_fast(o, f);
    return end != NULL ? end : gguf__json_double_to(o, f, 9);
}

void gguf__json_f32(gguf__buf *b, float f) {
    uint8_t *o = gguf__buf_grow(b, GGUF__JSON_NUM_ROOM);
    if (o != NULL)
        b->len -= GGUF__JSON_NUM_ROOM - (size_t)(gguf__json_f32_to(o, f) - o);
}
