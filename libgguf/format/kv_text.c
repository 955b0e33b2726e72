/* Values from text: numbers, bools and strings for scalars, JSON arrays of scalars or strings.
 * Every number is range-checked against the type that must hold it. */
#include "format/format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct number {
    bool is_int;      /* the text is an integer (no fraction, no exponent) */
    bool negative;
    uint64_t u;       /* magnitude, for integers */
    double d;         /* value as a double */
} number;

/* tn: the type that needs the number, for messages ("UINT32"). */
static int parse_number(number *out, const char *s, size_t len, const char *tn, gguf_error *err) {
    char buf[128];
    if (len == 0 || len >= sizeof buf)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "'%.*s' is not a number, as %s needs", (int)(len < 64 ? len : 64), s,
                          tn);
    memcpy(buf, s, len);
    buf[len] = '\0';
    number n = {0};
    const char *p = buf;
    n.negative = *p == '-';
    const char *digits = p + (*p == '-' || *p == '+');
    bool hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
    n.is_int = strpbrk(digits, hex ? "." : ".eEnNiI") == NULL;
    char *end;
    errno = 0;
    if (n.is_int) {
        n.u = strtoull(digits, &end, 0);
        if (*end != '\0' || end == digits || errno == ERANGE || digits[0] == '-' || digits[0] == '+')
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "'%s' is not an integer of at most 64 bits, as %s needs", buf, tn);
        n.d = n.negative ? -(double)n.u : (double)n.u;
    } else {
        n.d = strtod(buf, &end);
        if (*end != '\0' || end == buf)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "'%s' is not a number, as %s needs", buf, tn);
    }
    *out = n;
    return 0;
}

/* Encodes number n as a scalar of type into out (host byte order). */
static int fit(uint8_t out[8], uint32_t type, const number *n, const char *text, size_t len,
               gguf_error *err) {
    static const struct { uint64_t umax; int64_t imin; } range[GGUF_VTYPE_COUNT] = {
        [GGUF_VTYPE_U8] = {UINT8_MAX, 0},     [GGUF_VTYPE_I8] = {INT8_MAX, INT8_MIN},
        [GGUF_VTYPE_U16] = {UINT16_MAX, 0},   [GGUF_VTYPE_I16] = {INT16_MAX, INT16_MIN},
        [GGUF_VTYPE_U32] = {UINT32_MAX, 0},   [GGUF_VTYPE_I32] = {INT32_MAX, INT32_MIN},
        [GGUF_VTYPE_U64] = {UINT64_MAX, 0},   [GGUF_VTYPE_I64] = {INT64_MAX, INT64_MIN},
    };
    const char *tn = gguf_vtype_name(type);
    if (type == GGUF_VTYPE_F32) {
        float f = (float)n->d;
        if (!n->is_int) {
            char buf[128];
            snprintf(buf, sizeof buf, "%.*s", (int)len, text);
            f = strtof(buf, NULL); /* correctly rounded, not rounded twice through double */
        }
        if (isinf(f) && !isinf(n->d))
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "value '%.*s' does not fit FLOAT32", (int)len, text);
        memcpy(out, &f, 4);
        return 0;
    }
    if (type == GGUF_VTYPE_F64) {
        memcpy(out, &n->d, 8);
        return 0;
    }
    if (!n->is_int)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "value '%.*s' is not an integer, as %s needs", (int)len, text, tn);
    bool is_signed = range[type].imin < 0;
    bool ok = n->negative ? is_signed && n->u <= (uint64_t)-(range[type].imin + 1) + 1
                          : n->u <= range[type].umax;
    if (!ok)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "value '%.*s' does not fit %s (%lld to %llu)", (int)len, text, tn,
                          (long long)range[type].imin, (unsigned long long)range[type].umax);
    uint64_t bits = n->negative ? (uint64_t)0 - n->u : n->u;
    size_t size = gguf_vtype_size(type);
    /* the low `size` bytes of bits, in host order */
    uint8_t b8 = (uint8_t)bits;
    uint16_t b16 = (uint16_t)bits;
    uint32_t b32 = (uint32_t)bits;
    if (size == 1)
        memcpy(out, &b8, 1);
    else if (size == 2)
        memcpy(out, &b16, 2);
    else if (size == 4)
        memcpy(out, &b32, 4);
    else
        memcpy(out, &bits, 8);
    return 0;
}

static int parse_bool(uint8_t *out, const char *s, size_t len, gguf_error *err) {
    if ((len == 4 && memcmp(s, "true", 4) == 0) || (len == 1 && s[0] == '1'))
        *out = 1;
    else if ((len == 5 && memcmp(s, "false", 5) == 0) || (len == 1 && s[0] == '0'))
        *out = 0;
    else
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "'%.*s' is not a bool (true, false, 1 or 0)", (int)(len < 64 ? len : 64), s);
    return 0;
}

static int parse_scalar(uint8_t out[8], uint32_t type, const char *s, size_t len,
                        gguf_error *err) {
    if (type == GGUF_VTYPE_BOOL)
        return parse_bool(out, s, len, err);
    number n;
    int rc = parse_number(&n, s, len, gguf_vtype_name(type), err);
    return rc ? rc : fit(out, type, &n, s, len, err);
}

/* ---- JSON arrays ---- */

typedef struct token {
    const char *s;
    size_t len;
    int kind; /* 's' string (s/len: its JSON text, quotes included), 'n' number, 'b' bool */
} token;

static const char *skip_ws(const char *p, const char *end) {
    gguf__json_in in = {p, end, 0};
    gguf__json_ws(&in);
    return in.p;
}

static int json_fail(gguf_error *err, const char *text, const char *p, const char *what) {
    return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "JSON array, character %zu: %s",
                      (size_t)(p - text), what);
}

/* Splits "[a, b, ...]" into tokens. Every token takes at least one character and a separator,
 * so there are at most len/2 + 1 of them; an empty element (",,") is refused, which keeps that
 * bound true. */
static int tokenize(token **out, size_t *count, const char *text, size_t len, gguf_error *err) {
    const char *p = skip_ws(text, text + len), *end = text + len;
    if (p == end || *p != '[')
        return json_fail(err, text, p, "expected '['");
    size_t cap = len / 2 + 1;
    token *toks = gguf__malloc(cap * sizeof *toks);
    if (toks == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    size_t n = 0;
    int rc = 0;
    p = skip_ws(p + 1, end);
    if (p < end && *p == ']') {
        p++;
    } else {
        for (;;) {
            p = skip_ws(p, end);
            if (p == end) {
                rc = json_fail(err, text, p, "unterminated array");
                break;
            }
            token t = {p, 0, 0};
            if (*p == '"') {
                gguf__json_in in = {p, end, 0};
                if (gguf__json_string(&in, NULL) != 0) {
                    rc = json_fail(err, text, in.p, "not a valid JSON string (unterminated, a "
                                   "bad escape, a lone surrogate or a control character)");
                    break;
                }
                t = (token){p, (size_t)(in.p - p), 's'};
                p = in.p;
            } else if (*p == '[' || *p == '{') {
                rc = json_fail(err, text, p, "nested arrays and objects are not supported");
                break;
            } else {
                const char *q = p;
                while (q < end && *q != ',' && *q != ']' && *q != ' ' && *q != '\t' &&
                       *q != '\n' && *q != '\r')
                    q++;
                if (q == p) {
                    rc = json_fail(err, text, p, "empty element");
                    break;
                }
                t = (token){p, (size_t)(q - p), (*p == 't' || *p == 'f') ? 'b' : 'n'};
                p = q;
            }
            if (n == cap) { /* cannot happen while the bound above holds; never write past it */
                rc = json_fail(err, text, p, "too many elements");
                break;
            }
            toks[n++] = t;
            p = skip_ws(p, end);
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            if (p < end && *p == ']') {
                p++;
                break;
            }
            rc = json_fail(err, text, p, "expected ',' or ']'");
            break;
        }
    }
    if (rc == 0 && skip_ws(p, end) != end)
        rc = json_fail(err, text, p, "text after the array");
    if (rc != 0) {
        gguf__free(toks);
        return rc;
    }
    *out = toks;
    *count = n;
    return 0;
}

/* The element type a JSON array implies: strings, bools, integers (INT32, or INT64 when one
 * does not fit), or FLOAT32 as soon as one number has a fraction or an exponent. */
static uint32_t infer(const token *toks, size_t n) {
    if (n == 0)
        return GGUF_VTYPE_STRING;
    if (toks[0].kind == 's')
        return GGUF_VTYPE_STRING;
    if (toks[0].kind == 'b')
        return GGUF_VTYPE_BOOL;
    uint32_t t = GGUF_VTYPE_I32;
    for (size_t i = 0; i < n; i++) {
        number num;
        if (toks[i].kind != 'n' || parse_number(&num, toks[i].s, toks[i].len, "a number", NULL) != 0)
            return GGUF_VTYPE_I32; /* encoding reports the bad element */
        if (!num.is_int)
            return GGUF_VTYPE_F32;
        if ((num.negative && num.u > (uint64_t)INT32_MAX + 1) || (!num.negative && num.u > INT32_MAX))
            t = GGUF_VTYPE_I64;
    }
    return t;
}

static int encode_array(gguf__sink *s, uint32_t elem, const token *toks, size_t n,
                        gguf_error *err) {
    gguf__sink_u32(s, elem);
    gguf__sink_len(s, n);
    for (size_t i = 0; i < n; i++) {
        const token *t = &toks[i];
        int rc = 0;
        if (elem == GGUF_VTYPE_STRING) {
            if (t->kind != 's')
                return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                  "element %zu is not a string, as a STRING array needs", i);
            gguf__buf str = {0};
            gguf__json_in in = {t->s, t->s + t->len, 0};
            gguf__json_string(&in, &str); /* checked by tokenize */
            if (str.failed)
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            if (rc == 0) {
                gguf__sink_len(s, str.len);
                gguf__buf_add(&s->b, str.data, str.len);
            }
            gguf__buf_free(&str);
        } else {
            uint8_t b[8] = {0};
            if (t->kind == 's')
                return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                                  "element %zu is a string, not a %s", i, gguf_vtype_name(elem));
            rc = parse_scalar(b, elem, t->s, t->len, err);
            if (rc == 0)
                gguf__sink_scalar(s, elem, b);
        }
        if (rc != 0)
            return gguf__wrap(err, rc, "element %zu", i);
    }
    return 0;
}

int gguf_kv_set_text(gguf_file *f, const char *key, uint32_t vtype, uint32_t elem_type,
                     const char *text, size_t len, gguf_error *err) {
    if (f == NULL || key == NULL || (text == NULL && len > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to set");
    if (vtype == GGUF_VTYPE_STRING)
        return gguf_kv_set_str(f, key, text, len, err);
    if (vtype != GGUF_VTYPE_ARRAY) {
        uint8_t b[8];
        if (gguf_vtype_size(vtype) == 0)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "unknown value type %u", vtype);
        int rc = parse_scalar(b, vtype, text, len, err);
        return rc ? rc : gguf_kv_set_scalar(f, key, vtype, b, err);
    }
    token *toks = NULL;
    size_t n = 0;
    int rc = tokenize(&toks, &n, text, len, err);
    if (rc != 0)
        return rc;
    if (elem_type >= GGUF_VTYPE_COUNT)
        elem_type = infer(toks, n);
    if (elem_type == GGUF_VTYPE_ARRAY) {
        gguf__free(toks);
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "nested arrays cannot be set from text");
    }
    gguf__sink s = {.big = f->big, .wide = f->version >= 2};
    rc = encode_array(&s, elem_type, toks, n, err);
    gguf__free(toks);
    if (rc == 0 && s.b.failed)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0) {
        gguf_value v = {.raw = s.b.data, .raw_len = s.b.len, .type = GGUF_VTYPE_ARRAY,
                        .big_endian = f->big, .wide = f->version >= 2};
        rc = gguf_kv_set_value(f, key, &v, err);
    }
    gguf__buf_free(&s.b);
    return rc;
}
