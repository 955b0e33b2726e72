/* The expression language of the llama.cpp rule tables: shapes ("DK*H"), conditions
 * ("X > 0", "i < NDL") and defaults ("H > 0 ? E/H : 0"), evaluated with checked int64
 * arithmetic. A precedence-climbing parser that evaluates as it parses; it never allocates.
 * An undefined operand (a symbol without a value, a division by zero, an overflow) makes the
 * result undefined, which the checker treats as "cannot judge". */
#include "llama.h"

#include <stdio.h>
#include <string.h>

typedef struct ev {
    const char *s;
    size_t pos;
    int64_t layer;
    gguf__llama_sym_fn sym;
    void *ctx;
    int bad;       /* syntax error or unknown symbol */
} ev;

/* A value, or undefined. */
typedef struct val {
    int64_t v;
    int undef;
} val;

static void skip_ws(ev *e) {
    while (e->s[e->pos] == ' ')
        e->pos++;
}

static int is_ident(char c, int first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

static val parse_ternary(ev *e);

static val undef(void) { return (val){0, 1}; }

static val parse_primary(ev *e) {
    skip_ws(e);
    char c = e->s[e->pos];
    if (c == '(') {
        e->pos++;
        val v = parse_ternary(e);
        skip_ws(e);
        if (e->s[e->pos] != ')') {
            e->bad = 1;
            return undef();
        }
        e->pos++;
        return v;
    }
    if (c == '!' || c == '-') {
        e->pos++;
        val v = parse_primary(e);
        if (v.undef)
            return v;
        if (c == '!')
            return (val){!v.v, 0};
        if (v.v == INT64_MIN)
            return undef();
        return (val){-v.v, 0};
    }
    if (c >= '0' && c <= '9') {
        int64_t n = 0;
        int over = 0;
        while (e->s[e->pos] >= '0' && e->s[e->pos] <= '9') {
            if (__builtin_mul_overflow(n, 10, &n) ||
                __builtin_add_overflow(n, e->s[e->pos] - '0', &n))
                over = 1;
            e->pos++;
        }
        return over ? undef() : (val){n, 0};
    }
    if (is_ident(c, 1)) {
        size_t start = e->pos;
        while (is_ident(e->s[e->pos], 0))
            e->pos++;
        size_t len = e->pos - start;
        const char *name = e->s + start;
        int defined = 0;
        if (len == 7 && memcmp(name, "defined", 7) == 0) {
            skip_ws(e);
            if (e->s[e->pos] != '(') {
                e->bad = 1;
                return undef();
            }
            e->pos++;
            skip_ws(e);
            start = e->pos;
            while (is_ident(e->s[e->pos], 0))
                e->pos++;
            name = e->s + start;
            len = e->pos - start;
            skip_ws(e);
            if (len == 0 || e->s[e->pos] != ')') {
                e->bad = 1;
                return undef();
            }
            e->pos++;
            defined = 1;
        }
        if (!defined && len == 1 && name[0] == 'i')
            return e->layer < 0 ? undef() : (val){e->layer, 0};
        int64_t v = 0;
        int rc = e->sym(e->ctx, name, len, defined, &v);
        if (rc < 0) {
            e->bad = 1;
            return undef();
        }
        return rc == 0 ? (val){v, 0} : undef();
    }
    e->bad = 1;
    return undef();
}

/* Binary operators by precedence level (higher binds tighter). */
static int binop(const char *s, int *len) {
    static const struct {
        const char *op;
        int prec;
    } ops[] = {{"||", 1}, {"&&", 2}, {"==", 3}, {"!=", 3}, {"<=", 4}, {">=", 4}, {"<", 4},
               {">", 4},  {"+", 5},  {"-", 5},  {"*", 6},  {"/", 6},  {"%", 6}};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = strlen(ops[k].op);
        if (strncmp(s, ops[k].op, n) == 0) {
            *len = (int)n;
            return ops[k].prec;
        }
    }
    return 0;
}

static val apply(const char *op, int len, val a, val b) {
    /* || and && decide on a defined side alone when they can */
    if (len == 2 && op[0] == '|') {
        if ((!a.undef && a.v) || (!b.undef && b.v))
            return (val){1, 0};
        return a.undef || b.undef ? undef() : (val){0, 0};
    }
    if (len == 2 && op[0] == '&') {
        if ((!a.undef && !a.v) || (!b.undef && !b.v))
            return (val){0, 0};
        return a.undef || b.undef ? undef() : (val){1, 0};
    }
    if (a.undef || b.undef)
        return undef();
    int64_t r = 0;
    switch (op[0]) {
    case '=': return (val){a.v == b.v, 0};
    case '!': return (val){a.v != b.v, 0};
    case '<': return (val){len == 2 ? a.v <= b.v : a.v < b.v, 0};
    case '>': return (val){len == 2 ? a.v >= b.v : a.v > b.v, 0};
    case '+': return __builtin_add_overflow(a.v, b.v, &r) ? undef() : (val){r, 0};
    case '-': return __builtin_sub_overflow(a.v, b.v, &r) ? undef() : (val){r, 0};
    case '*': return __builtin_mul_overflow(a.v, b.v, &r) ? undef() : (val){r, 0};
    case '/':
        if (b.v == 0 || (a.v == INT64_MIN && b.v == -1))
            return undef();
        return (val){a.v / b.v, 0};
    case '%':
        if (b.v == 0 || (a.v == INT64_MIN && b.v == -1))
            return undef();
        return (val){a.v % b.v, 0};
    default: return undef();
    }
}

static val parse_binary(ev *e, int min_prec) {
    val lhs = parse_primary(e);
    for (;;) {
        skip_ws(e);
        int len = 0;
        int prec = binop(e->s + e->pos, &len);
        if (prec == 0 || prec < min_prec || e->bad)
            return lhs;
        const char *op = e->s + e->pos;
        e->pos += (size_t)len;
        val rhs = parse_binary(e, prec + 1);
        lhs = apply(op, len, lhs, rhs);
    }
}

static val parse_ternary(ev *e) {
    val c = parse_binary(e, 1);
    skip_ws(e);
    if (e->s[e->pos] != '?')
        return c;
    e->pos++;
    val a = parse_ternary(e);
    skip_ws(e);
    if (e->s[e->pos] != ':') {
        e->bad = 1;
        return undef();
    }
    e->pos++;
    val b = parse_ternary(e);
    if (c.undef)
        return undef();
    return c.v ? a : b;
}

int gguf__llama_eval(int64_t *out, const char *expr, int64_t layer, gguf__llama_sym_fn sym,
                     void *ctx) {
    ev e = {expr, 0, layer, sym, ctx, 0};
    val v = parse_ternary(&e);
    skip_ws(&e);
    if (e.bad || e.s[e.pos] != '\0')
        return -1;
    if (v.undef)
        return 1;
    *out = v.v;
    return 0;
}

void gguf__llama_expr_explain(char *buf, size_t size, const char *expr,
                              gguf__llama_name_fn name_of, void *ctx) {
    size_t o = 0;
    if (size == 0)
        return;
    for (size_t p = 0; expr[p] != '\0' && o + 1 < size;) {
        if (is_ident(expr[p], 1)) {
            size_t start = p;
            while (is_ident(expr[p], 0))
                p++;
            const char *name = name_of ? name_of(ctx, expr + start, p - start) : NULL;
            if (name != NULL) {
                int w = snprintf(buf + o, size - o, "%s", name);
                o += w < 0 ? 0 : (size_t)w;
            } else {
                size_t n = p - start;
                if (n > size - o - 1)
                    n = size - o - 1;
                memcpy(buf + o, expr + start, n);
                o += n;
            }
            if (o >= size)
                o = size - 1;
            continue;
        }
        if (expr[p] != ' ')
            buf[o++] = expr[p];
        p++;
    }
    buf[o] = '\0';
}
