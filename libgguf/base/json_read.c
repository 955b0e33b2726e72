/* The one JSON reader: a bounded walk over text the caller holds (never past j->end, nesting
 * at most JSON_DEPTH deep, so hostile input costs neither the stack nor a read out of bounds).
 * It decodes strings strictly: a control character, a bad escape or a lone surrogate is an
 * error, so what comes out is always valid UTF-8. Objects and arrays are walked with a
 * callback per member or element; what the callback does not want it skips. */
#include "base/base.h"

#include <string.h>

#define JSON_DEPTH 64

void gguf__json_ws(gguf__json_in *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int hex4(gguf__json_in *j, uint32_t *v) {
    if (j->end - j->p < 4)
        return -1;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = *j->p++;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* \uXXXX, or a surrogate pair \uD8xx\uDCxx, after the "\u": its code point. */
static int escaped_code_point(gguf__json_in *j, uint32_t *cp) {
    uint32_t lo;
    if (hex4(j, cp) != 0)
        return -1;
    if (*cp >= 0xdc00 && *cp < 0xe000)
        return -1; /* a low surrogate first */
    if (*cp < 0xd800 || *cp >= 0xdc00)
        return 0;
    if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
        return -1;
    j->p += 2;
    if (hex4(j, &lo) != 0 || lo < 0xdc00 || lo >= 0xe000)
        return -1;
    *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
    return 0;
}

int gguf__json_string(gguf__json_in *j, gguf__buf *out) {
    if (j->p >= j->end || *j->p != '"')
        return -1;
    j->p++;
    for (;;) {
        /* a run of plain bytes at once */
        const char *run = j->p;
        while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
            j->p++;
        if (out != NULL)
            gguf__buf_add(out, run, (size_t)(j->p - run));
        if (j->p >= j->end || (unsigned char)*j->p < 0x20)
            return -1;
        if (*j->p++ == '"')
            return 0;
        char e = j->p < j->end ? *j->p++ : 0;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *simple = e != 0 ? strchr(from, e) : NULL;
        uint32_t cp;
        if (simple != NULL) {
            if (out != NULL)
                gguf__buf_add(out, &to[simple - from], 1);
        } else if (e == 'u' && escaped_code_point(j, &cp) == 0) {
            if (out != NULL)
                gguf__utf8_put(out, cp);
        } else {
            return -1;
        }
    }
}

int gguf__json_object(gguf__json_in *j, gguf__json_member_fn member, void *user) {
    gguf__json_ws(j);
    if (j->p >= j->end || *j->p != '{' || j->depth >= JSON_DEPTH)
        return -1;
    j->p++;
    j->depth++;
    gguf__json_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        j->depth--;
        return 0;
    }
    gguf__buf key = {0};
    int rc = 0;
    for (;;) {
        key.len = 0;
        gguf__json_ws(j);
        if (gguf__json_string(j, &key) != 0 || gguf__buf_nul(&key) != 0) {
            rc = -1;
            break;
        }
        gguf__json_ws(j);
        if (j->p >= j->end || *j->p != ':') {
            rc = -1;
            break;
        }
        j->p++;
        gguf__json_ws(j);
        rc = member != NULL ? member(j, (const char *)key.data, user) : gguf__json_skip(j);
        gguf__json_ws(j);
        if (rc != 0 || j->p >= j->end) {
            rc = -1;
            break;
        }
        if (*j->p == '}') {
            j->p++;
            j->depth--;
            break;
        }
        if (*j->p++ != ',') {
            rc = -1;
            break;
        }
    }
    gguf__buf_free(&key);
    return rc;
}

int gguf__json_array(gguf__json_in *j, gguf__json_element_fn element, void *user) {
    gguf__json_ws(j);
    if (j->p >= j->end || *j->p != '[' || j->depth >= JSON_DEPTH)
        return -1;
    j->p++;
    j->depth++;
    gguf__json_ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        j->depth--;
        return 0;
    }
    for (size_t i = 0;; i++) {
        gguf__json_ws(j);
        if ((element != NULL ? element(j, i, user) : gguf__json_skip(j)) != 0)
            return -1;
        gguf__json_ws(j);
        if (j->p >= j->end)
            return -1;
        if (*j->p == ']') {
            j->p++;
            j->depth--;
            return 0;
        }
        if (*j->p++ != ',')
            return -1;
    }
}

/* A literal: the extent of a number, true, false or null (checked by whoever reads it). */
static int literal(gguf__json_in *j) {
    const char *start = j->p;
    while (j->p < j->end && strchr("+-.0123456789eEtruefalsn", *j->p) != NULL && *j->p != 0)
        j->p++;
    return j->p > start ? 0 : -1;
}

int gguf__json_skip(gguf__json_in *j) {
    gguf__json_ws(j);
    if (j->p >= j->end)
        return -1;
    switch (*j->p) {
    case '"': return gguf__json_string(j, NULL);
    case '{': return gguf__json_object(j, NULL, NULL);
    case '[': return gguf__json_array(j, NULL, NULL);
    default: return literal(j);
    }
}
