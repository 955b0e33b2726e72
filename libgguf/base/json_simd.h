/* The SIMD string writers of json.c, one width per inclusion (json.c defines the SIMD_ names
 * before each): SIMD_W bytes at a time, the vector type SIMD_V, and for it SIMD_LOAD (W bytes
 * from anywhere), SIMD_STORE, SIMD_ZERO, SIMD_PAD (bytes from len on made spaces) and SIMD_BAD
 * (a bit per byte that needs escaping or breaks UTF-8, given the block before it). */

/* A JSON string literal of s[0..n) at o, the same bytes as str_scalar writes. Bytes up to end
 * (>= s + n) may be read; o has room for 6 * n + 2 + GGUF__JSON_SLACK bytes. A block that is
 * valid UTF-8 so far (its last character may go on in the next block) and needs no escape is
 * stored as it is; any other is written by esc_run, from the start of its first character. */
/* always inline: the list loop then keeps its constants in registers */
static inline __attribute__((always_inline)) SIMD_TARGET uint8_t *
SIMD_STR(uint8_t *o, const uint8_t *s, size_t n, const uint8_t *end) {
    SIMD_V prev = SIMD_ZERO();
    bool pending = false; /* the last block was stored whole: it may end inside a character */
    size_t i = 0;
    *o++ = '"';
    while (i < n) {
        size_t len = n - i < SIMD_W ? n - i : SIMD_W;
        SIMD_V x;
        if ((size_t)(end - s) - i >= SIMD_W) {
            x = SIMD_LOAD(s + i);
        } else { /* the last bytes that may be read */
            uint8_t tmp[SIMD_W];
            memset(tmp, ' ', sizeof tmp);
            memcpy(tmp, s + i, len);
            x = SIMD_LOAD(tmp);
        }
        if (len < SIMD_W)
            x = SIMD_PAD(x, len); /* a character cut by the end then fails on the spaces */
        if (SIMD_BAD(x, prev) == 0) {
            SIMD_STORE(o, x); /* bytes past len land in the slack, overwritten next */
            o += len;
            i += len;
            prev = x;
            pending = len == SIMD_W;
            continue;
        }
        size_t stop = i + len;
        if (pending) { /* back to the start of a character the last block began */
            size_t k = unfinished(s, i);
            i -= k;
            o -= k;
        }
        o = esc_run(o, s, &i, stop, n);
        prev = SIMD_ZERO(); /* esc_run stops between characters */
        pending = false;
    }
    if (pending) { /* the string ends inside a character the last block began */
        size_t k = unfinished(s, i);
        i -= k;
        o -= k;
        o = esc_run(o, s, &i, n, n);
    }
    *o++ = '"';
    return o;
}

/* SIMD_STR for a caller without this target (which cannot inline it). */
static SIMD_TARGET uint8_t *SIMD_ONE(uint8_t *o, const uint8_t *s, size_t n, const uint8_t *end) {
    return SIMD_STR(o, s, n, end);
}

/* gguf__json_str_list at this width. */
static SIMD_TARGET uint8_t *SIMD_LIST(uint8_t *o, const uint8_t *lim, const uint8_t **pp,
                                      uint64_t *left, bool first, bool wide, bool big,
                                      const uint8_t *end) {
    const uint8_t *p = *pp;
    uint64_t i = 0, count = *left;
    for (; i < count; i++) {
        uint64_t n = wide ? gguf__load64(p, big) : gguf__load32(p, big);
        if (o > lim || n > (size_t)(lim - o) / 6)
            break;
        p += wide ? 8 : 4;
        if (i > 0 || !first)
            *o++ = ',';
        o = SIMD_STR(o, p, (size_t)n, end);
        p += n;
    }
    *pp = p;
    *left = count - i;
    return o;
}
