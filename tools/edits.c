/* The edit engine: operations from the command line or an edits file, applied in order. */
#define _GNU_SOURCE
#include "edits.h"
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int edits_add(edit_list *l, enum edit_kind kind, const char *key, const char *value, int vtype) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        edit_op *ops = realloc(l->ops, cap * sizeof *ops);
        if (ops == NULL) {
            cli_errorf("out of memory");
            return -1;
        }
        l->ops = ops;
        l->cap = cap;
    }
    edit_op *op = &l->ops[l->n];
    op->kind = kind;
    op->key = key ? strdup(key) : NULL;
    op->value = value ? strdup(value) : NULL;
    op->vtype = vtype;
    if ((key && !op->key) || (value && !op->value)) {
        free(op->key);
        free(op->value);
        cli_errorf("out of memory");
        return -1;
    }
    l->n++;
    return 0;
}

/* "KEY:TYPE" -> key and type, when the part after the last ':' names a value type. */
static int split_type(char *key, int *vtype) {
    *vtype = -1;
    char *colon = strrchr(key, ':');
    if (colon != NULL && gguf_vtype_parse(colon + 1) >= 0) {
        *vtype = gguf_vtype_parse(colon + 1);
        *colon = '\0';
    }
    return 0;
}

int edits_add_pair(edit_list *l, enum edit_kind kind, const char *arg) {
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg) {
        cli_errorf("'%s': expected NAME=VALUE", arg);
        return -1;
    }
    char *key = strndup(arg, (size_t)(eq - arg));
    if (key == NULL)
        return -1;
    int vtype = -1;
    if (kind == EDIT_SET || kind == EDIT_SET_JSON || kind == EDIT_SET_FILE ||
        kind == EDIT_SET_JSON_FILE)
        split_type(key, &vtype);
    int rc = edits_add(l, kind, key, eq + 1, vtype);
    free(key);
    return rc;
}

static const struct {
    const char *word;
    enum edit_kind kind;
    int args; /* 1: NAME, 2: NAME VALUE (VALUE is the rest of the line) */
} verbs[] = {
    {"set", EDIT_SET, 2},         {"set-json", EDIT_SET_JSON, 2},
    {"set-file", EDIT_SET_FILE, 2}, {"rm", EDIT_RM, 1},
    {"rename", EDIT_RENAME, 2},   {"realign", EDIT_REALIGN, 1},
    {"rename-tensor", EDIT_RENAME_TENSOR, 2}, {"rm-tensor", EDIT_RM_TENSOR, 1},
    {"set-json-file", EDIT_SET_JSON_FILE, 2},
};

int edits_load(edit_list *l, const char *path) {
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        cli_errorf("%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0, lineno = 0;
    while (rc == 0 && (len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        char *p = line + strspn(line, " \t");
        if (*p == '\0' || *p == '#')
            continue;
        char *word = p;
        p += strcspn(p, " \t");
        if (*p != '\0')
            *p++ = '\0';
        p += strspn(p, " \t");
        size_t v;
        for (v = 0; v < sizeof verbs / sizeof verbs[0]; v++) {
            if (strcmp(word, verbs[v].word) == 0)
                break;
        }
        if (v == sizeof verbs / sizeof verbs[0]) {
            cli_errorf("%s:%d: unknown operation '%s'", path, lineno, word);
            rc = -1;
            break;
        }
        char *name = p, *value = NULL;
        if (verbs[v].args == 2) {
            p += strcspn(p, " \t");
            if (*p != '\0')
                *p++ = '\0';
            value = p + strspn(p, " \t");
        } else {
            name[strcspn(name, " \t")] = '\0';
        }
        if (*name == '\0' || (verbs[v].args == 2 && verbs[v].kind != EDIT_SET && *value == '\0')) {
            cli_errorf("%s:%d: '%s' needs %s", path, lineno, word,
                       verbs[v].args == 2 ? "a name and a value" : "a name");
            rc = -1;
            break;
        }
        int vtype = -1;
        if (verbs[v].kind == EDIT_SET || verbs[v].kind == EDIT_SET_JSON ||
            verbs[v].kind == EDIT_SET_FILE || verbs[v].kind == EDIT_SET_JSON_FILE)
            split_type(name, &vtype);
        /* realign takes its number as the name */
        rc = verbs[v].kind == EDIT_REALIGN ? edits_add(l, EDIT_REALIGN, NULL, name, -1)
                                           : edits_add(l, verbs[v].kind, name, value, vtype);
    }
    free(line);
    fclose(fp);
    return rc;
}

void edits_free(edit_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->ops[i].key);
        free(l->ops[i].value);
    }
    free(l->ops);
    l->ops = NULL;
    l->n = l->cap = 0;
}

/* The type a new key gets from its text: BOOL, INT32/INT64/UINT64, FLOAT32, else STRING. */
static int infer_type(const char *text, size_t len) {
    if (memchr(text, '\0', len) != NULL)
        return GGUF_VTYPE_STRING;
    if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0)
        return GGUF_VTYPE_BOOL;
    char *end;
    errno = 0;
    long long ll = strtoll(text, &end, 10);
    if (*text != '\0' && *end == '\0' && errno == 0)
        return ll >= INT32_MIN && ll <= INT32_MAX ? GGUF_VTYPE_I32 : GGUF_VTYPE_I64;
    errno = 0;
    (void)strtoull(text, &end, 10);
    if (*text != '\0' && *text != '-' && *end == '\0' && errno == 0)
        return GGUF_VTYPE_U64;
    (void)strtod(text, &end);
    if (*text != '\0' && *end == '\0' && strpbrk(text, "0123456789") != NULL)
        return GGUF_VTYPE_F32;
    return GGUF_VTYPE_STRING;
}

/* A file's contents, NUL-terminated (for the number parsers; *len does not count it). */
static char *read_text_file(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (n + 1 >= cap) {
            char *grown = realloc(buf, cap *= 2);
            if (grown == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        if (got == 0)
            break;
        n += got;
    }
    if (buf != NULL && ferror(fp)) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf != NULL)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static int apply_set(gguf_file *f, const edit_op *op, gguf_error *err) {
    int64_t at = gguf_kv_find(f, op->key);
    const gguf_value *old = at >= 0 ? gguf_kv_value(f, (size_t)at) : NULL;
    int vtype = op->vtype;
    uint32_t elem = GGUF_VTYPE_COUNT;
    const char *text = op->value;
    size_t len = strlen(text);
    char *owned = NULL;
    int json = op->kind == EDIT_SET_JSON || op->kind == EDIT_SET_JSON_FILE;
    if (op->kind == EDIT_SET_FILE || op->kind == EDIT_SET_JSON_FILE) {
        /* the file's text, less the one newline that ends it (get prints one; editors save
         * one): then the same as a VALUE given on the command line */
        owned = read_text_file(op->value, &len);
        if (owned == NULL) {
            snprintf(err->message, sizeof err->message, "%s: %s", op->value,
                     errno ? strerror(errno) : "out of memory");
            err->code = GGUF_EIO;
            return GGUF_EIO;
        }
        if (len > 0 && owned[len - 1] == '\n')
            owned[--len] = '\0';
        text = owned;
    }
    int rc;
    if (json) {
        /* an array; KEY:TYPE or --type gives the element type */
        if (vtype >= 0)
            elem = (uint32_t)vtype;
        else if (old != NULL && gguf_value_type(old) == GGUF_VTYPE_ARRAY)
            elem = gguf_value_elem_type(old);
        rc = gguf_kv_set_text(f, op->key, GGUF_VTYPE_ARRAY, elem, text, len, err);
    } else {
        if (vtype < 0)
            vtype = old != NULL ? (int)gguf_value_type(old) : infer_type(text, len);
        if (vtype == GGUF_VTYPE_ARRAY && old != NULL &&
            gguf_value_type(old) == GGUF_VTYPE_ARRAY)
            elem = gguf_value_elem_type(old);
        rc = gguf_kv_set_text(f, op->key, (uint32_t)vtype, elem, text, len, err);
    }
    free(owned);
    return rc;
}

static const struct {
    const char *name;
    const char *key;
} special_tokens[] = {
    {"bos", "tokenizer.ggml.bos_token_id"},
    {"eos", "tokenizer.ggml.eos_token_id"},
    {"eot", "tokenizer.ggml.eot_token_id"},
    {"eom", "tokenizer.ggml.eom_token_id"},
    {"unknown", "tokenizer.ggml.unknown_token_id"},
    {"unk", "tokenizer.ggml.unknown_token_id"},
    {"seperator", "tokenizer.ggml.seperator_token_id"}, /* the key's spelling */
    {"sep", "tokenizer.ggml.seperator_token_id"},
    {"padding", "tokenizer.ggml.padding_token_id"},
    {"pad", "tokenizer.ggml.padding_token_id"},
    {"mask", "tokenizer.ggml.mask_token_id"},
    {"fim_pre", "tokenizer.ggml.fim_pre_token_id"},
    {"fim_suf", "tokenizer.ggml.fim_suf_token_id"},
    {"fim_mid", "tokenizer.ggml.fim_mid_token_id"},
    {"fim_pad", "tokenizer.ggml.fim_pad_token_id"},
    {"fim_rep", "tokenizer.ggml.fim_rep_token_id"},
    {"fim_sep", "tokenizer.ggml.fim_sep_token_id"},
    {"prefix", "tokenizer.ggml.prefix_token_id"},
    {"suffix", "tokenizer.ggml.suffix_token_id"},
    {"middle", "tokenizer.ggml.middle_token_id"},
};

const char *edits_special_token_key(const char *name) {
    for (size_t i = 0; i < sizeof special_tokens / sizeof special_tokens[0]; i++)
        if (strcmp(name, special_tokens[i].name) == 0)
            return special_tokens[i].key;
    return NULL;
}

static int is_special_token_key(const char *key) {
    for (size_t i = 0; i < sizeof special_tokens / sizeof special_tokens[0]; i++)
        if (strcmp(key, special_tokens[i].key) == 0)
            return 1;
    return 0;
}

static int fail_msg(gguf_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_msg(gguf_error *err, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

/* The vocabulary: tokenizer.ggml.tokens, or NULL. */
static const gguf_value *vocabulary(const gguf_file *f) {
    int64_t at = gguf_kv_find(f, "tokenizer.ggml.tokens");
    const gguf_value *v = at >= 0 ? gguf_kv_value(f, (size_t)at) : NULL;
    return v != NULL && gguf_value_type(v) == GGUF_VTYPE_ARRAY &&
                   gguf_value_elem_type(v) == GGUF_VTYPE_STRING
               ? v
               : NULL;
}

/* A special token's id must name a token of the vocabulary (llama.cpp would index past it). */
static int check_token_id(const gguf_file *f, const char *key, gguf_error *err) {
    const gguf_value *vocab = vocabulary(f);
    int64_t at = gguf_kv_find(f, key);
    uint64_t u;
    int64_t i;
    int sg;
    if (vocab == NULL || at < 0 ||
        gguf_value_get_int(&u, &i, &sg, gguf_kv_value(f, (size_t)at), NULL) != 0)
        return 0;
    uint64_t n = gguf_value_count(vocab);
    if ((sg && i < 0) || (sg ? (uint64_t)i : u) >= n)
        return fail_msg(err, GGUF_EINVAL, "id %s%" PRIu64 " is outside the vocabulary of %" PRIu64
                        " token%s (ids 0 to %" PRIu64 "): refused (--force sets it anyway)",
                        sg && i < 0 ? "-" : "", sg ? (i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i) : u,
                        n, n == 1 ? "" : "s", n ? n - 1 : 0);
    return 0;
}

/* --special-token NAME TEXT: the first token whose text is TEXT, as gguf_new_metadata.py picks
 * it (a note names the others), written as UINT32 as that script writes it. */
static int apply_special_token(gguf_file *f, const edit_op *op, gguf_error *err) {
    const char *key = edits_special_token_key(op->key);
    if (key == NULL)
        return fail_msg(err, GGUF_EINVAL, "unknown special token name '%s' (bos, eos, eot, eom, "
                        "unk, sep, pad, mask, fim_pre, fim_suf, fim_mid, fim_pad, fim_rep, "
                        "fim_sep, prefix, suffix, middle)", op->key);
    const gguf_value *vocab = vocabulary(f);
    if (vocab == NULL)
        return fail_msg(err, GGUF_ENOTFOUND, "no vocabulary (tokenizer.ggml.tokens) to find "
                        "the token in");
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, vocab);
    size_t want = strlen(op->value);
    uint64_t id = 0, found = UINT64_MAX, more = 0;
    for (; gguf_value_iter_next(&it, &e); id++) {
        const char *s;
        uint64_t len;
        if (gguf_value_get_str(&s, &len, &e, NULL) == 0 && len == want &&
            memcmp(s, op->value, want) == 0) {
            if (found == UINT64_MAX)
                found = id;
            else
                more++;
        }
    }
    if (found == UINT64_MAX)
        return fail_msg(err, GGUF_ENOTFOUND, "no token '%s' in the vocabulary (%" PRIu64
                        " tokens)", op->value, gguf_value_count(vocab));
    if (found > UINT32_MAX)
        return fail_msg(err, GGUF_ELIMIT, "token '%s' has id %" PRIu64 ", above UINT32",
                        op->value, found);
    if (more > 0)
        cli_errorf("note: %" PRIu64 " more tokens are '%s'; %s is set to the first, %" PRIu64,
                   more, op->value, key, found);
    uint32_t id32 = (uint32_t)found;
    return gguf_kv_set_scalar(f, key, GGUF_VTYPE_U32, &id32, err);
}

/* ---- --chat-template-config: the chat_template member of a tokenizer_config.json ---- */

typedef struct json_in {
    const char *p, *end;
    int depth;
} json_in;

static void json_ws(json_in *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int json_hex4(json_in *j, uint32_t *v) {
    *v = 0;
    for (int k = 0; k < 4; k++, j->p++) {
        char c = j->p < j->end ? *j->p : 0;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* A JSON string at j->p, decoded (NUL-terminated, malloc'd; *len its length) when out is not
 * NULL, else skipped. -1 when it is not a valid string. */
static int json_string(json_in *j, char **out, size_t *len) {
    if (j->p >= j->end || *j->p != '"')
        return -1;
    j->p++;
    size_t cap = 64, n = 0;
    char *b = out ? malloc(cap) : NULL;
    if (out && b == NULL)
        return -1;
    while (j->p < j->end && *j->p != '"') {
        char tmp[4];
        size_t k = 1;
        unsigned char c = (unsigned char)*j->p++;
        if (c < 0x20)
            goto bad;
        tmp[0] = (char)c;
        if (c == '\\') {
            char e = j->p < j->end ? *j->p++ : 0;
            uint32_t cp, lo;
            switch (e) {
            case '"': case '\\': case '/': tmp[0] = e; break;
            case 'b': tmp[0] = '\b'; break;
            case 'f': tmp[0] = '\f'; break;
            case 'n': tmp[0] = '\n'; break;
            case 'r': tmp[0] = '\r'; break;
            case 't': tmp[0] = '\t'; break;
            case 'u':
                if (json_hex4(j, &cp) != 0)
                    goto bad;
                if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair */
                    if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
                        goto bad;
                    j->p += 2;
                    if (json_hex4(j, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
                        goto bad;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp < 0xe000) {
                    goto bad;
                }
                if (cp < 0x80) {
                    tmp[0] = (char)cp;
                } else if (cp < 0x800) {
                    tmp[0] = (char)(0xc0 | cp >> 6), tmp[1] = (char)(0x80 | (cp & 0x3f)), k = 2;
                } else if (cp < 0x10000) {
                    tmp[0] = (char)(0xe0 | cp >> 12), tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                    tmp[2] = (char)(0x80 | (cp & 0x3f)), k = 3;
                } else {
                    tmp[0] = (char)(0xf0 | cp >> 18), tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
                    tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), tmp[3] = (char)(0x80 | (cp & 0x3f));
                    k = 4;
                }
                break;
            default: goto bad;
            }
        }
        if (b != NULL) {
            if (n + k + 1 > cap) {
                char *g = realloc(b, cap *= 2);
                if (g == NULL)
                    goto bad;
                b = g;
            }
            memcpy(b + n, tmp, k);
        }
        n += k;
    }
    if (j->p >= j->end)
        goto bad;
    j->p++;
    if (b != NULL) {
        b[n] = '\0';
        *out = b;
        *len = n;
    }
    return 0;
bad:
    free(b);
    return -1;
}

static int json_skip(json_in *j);

/* Calls member(j, key, user) at each member's value of the object at j->p (which must consume
 * the value: return -1 on error). */
typedef int (*json_member_fn)(json_in *j, const char *key, void *user);
static int json_object(json_in *j, json_member_fn member, void *user) {
    json_ws(j);
    if (j->p >= j->end || *j->p != '{' || ++j->depth > 64)
        return -1;
    j->p++;
    json_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        j->depth--;
        return 0;
    }
    for (;;) {
        char *key;
        size_t klen;
        json_ws(j);
        if (json_string(j, &key, &klen) != 0)
            return -1;
        json_ws(j);
        int rc = j->p < j->end && *j->p == ':' ? 0 : -1;
        if (rc == 0) {
            j->p++;
            json_ws(j);
            rc = member(j, key, user);
        }
        free(key);
        json_ws(j);
        if (rc != 0 || j->p >= j->end)
            return -1;
        if (*j->p == '}') {
            j->p++;
            j->depth--;
            return 0;
        }
        if (*j->p++ != ',')
            return -1;
    }
}

static int skip_member(json_in *j, const char *key, void *user) {
    (void)key;
    (void)user;
    return json_skip(j);
}

static int json_skip(json_in *j) {
    json_ws(j);
    if (j->p >= j->end)
        return -1;
    if (*j->p == '"')
        return json_string(j, NULL, NULL);
    if (*j->p == '{')
        return json_object(j, skip_member, NULL);
    if (*j->p == '[') {
        if (++j->depth > 64)
            return -1;
        j->p++;
        json_ws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            j->depth--;
            return 0;
        }
        for (;;) {
            if (json_skip(j) != 0)
                return -1;
            json_ws(j);
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
    const char *start = j->p; /* a number, true, false or null */
    while (j->p < j->end && strchr("+-.0123456789eEtruefalsn", *j->p) != NULL)
        j->p++;
    return j->p > start ? 0 : -1;
}

/* What chat_template holds: one template, or named ones. */
typedef struct chat_templates {
    char *single;           /* the string form */
    char **names, **texts;  /* the list form ({"name":..., "template":...}) */
    size_t n, cap;
    int seen, is_list;
    char *name, *text;      /* the entry being read */
} chat_templates;

static int entry_member(json_in *j, const char *key, void *user) {
    chat_templates *c = user;
    size_t len;
    char **slot = strcmp(key, "name") == 0 ? &c->name : strcmp(key, "template") == 0 ? &c->text
                                                                                   : NULL;
    if (slot == NULL || *j->p != '"')
        return json_skip(j);
    free(*slot);
    *slot = NULL;
    return json_string(j, slot, &len);
}

static int config_member(json_in *j, const char *key, void *user) {
    chat_templates *c = user;
    size_t len;
    if (strcmp(key, "chat_template") != 0 || j->depth != 1)
        return json_skip(j);
    c->seen = 1;
    if (*j->p == '"') {
        free(c->single);
        c->single = NULL;
        return json_string(j, &c->single, &len);
    }
    if (*j->p != '[')
        return json_skip(j); /* null: no template */
    c->is_list = 1;
    j->p++;
    for (;;) {
        json_ws(j);
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return 0;
        }
        if (json_object(j, entry_member, c) != 0)
            return -1;
        if (c->name != NULL && c->text != NULL) {
            if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 4;
                char **a = realloc(c->names, cap * sizeof *a), **b;
                if (a != NULL)
                    c->names = a;
                b = a != NULL ? realloc(c->texts, cap * sizeof *b) : NULL;
                if (b == NULL)
                    return -1;
                c->texts = b;
                c->cap = cap;
            }
            c->names[c->n] = c->name;
            c->texts[c->n++] = c->text;
            c->name = c->text = NULL;
        }
        free(c->name);
        free(c->text);
        c->name = c->text = NULL;
        json_ws(j);
        if (j->p < j->end && *j->p == ',')
            j->p++;
        else if (j->p >= j->end || *j->p != ']')
            return -1;
    }
}

static void chat_templates_free(chat_templates *c) {
    free(c->single);
    for (size_t i = 0; i < c->n; i++) {
        free(c->names[i]);
        free(c->texts[i]);
    }
    free(c->names);
    free(c->texts);
    free(c->name);
    free(c->text);
}

/* The templates into the file as gguf-py's add_chat_template writes them: a string as
 * tokenizer.chat_template; a list as tokenizer.chat_template.NAME for each named template
 * (characters other than letters and digits in NAME made '_'), their names in
 * tokenizer.chat_templates, and the one named "default" as tokenizer.chat_template. The old
 * template keys go first. */
static int put_templates(gguf_file *f, chat_templates *c, gguf_error *err) {
    for (size_t i = gguf_kv_count(f); i-- > 0;) {
        size_t klen;
        const char *k = gguf_kv_key(f, i, &klen);
        static const char prefix[] = "tokenizer.chat_template";
        if (klen >= sizeof prefix - 1 && memcmp(k, prefix, sizeof prefix - 1) == 0) {
            char *key = strndup(k, klen);
            int rc = key != NULL ? gguf_kv_remove(f, key, err) : GGUF_ENOMEM;
            free(key);
            if (rc != 0)
                return rc;
        }
    }
    if (!c->is_list)
        return gguf_kv_set_text(f, "tokenizer.chat_template", GGUF_VTYPE_STRING,
                                GGUF_VTYPE_COUNT, c->single, strlen(c->single), err);
    size_t list_cap = 2, list_len = 1;
    char *list = malloc(list_cap);
    const char *deflt = NULL;
    int rc = list != NULL ? 0 : GGUF_ENOMEM;
    if (list != NULL)
        list[0] = '[';
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        char *name = c->names[i];
        if (name[0] == '\0')
            continue;
        for (char *q = name; *q; q++)
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
                *q = '_';
        if (strcmp(name, "default") == 0) {
            deflt = c->texts[i];
            continue;
        }
        char key[256];
        snprintf(key, sizeof key, "tokenizer.chat_template.%.200s", name);
        rc = gguf_kv_set_text(f, key, GGUF_VTYPE_STRING, GGUF_VTYPE_COUNT, c->texts[i],
                              strlen(c->texts[i]), err);
        size_t need = list_len + strlen(name) + 4;
        if (rc == 0 && need > list_cap) {
            char *g = realloc(list, list_cap = need * 2);
            if (g == NULL)
                rc = GGUF_ENOMEM;
            else
                list = g;
        }
        if (rc == 0)
            list_len += (size_t)sprintf(list + list_len, "%s\"%s\"", list_len > 1 ? "," : "", name);
    }
    if (rc == 0 && list_len > 1) {
        list[list_len++] = ']';
        rc = gguf_kv_set_text(f, "tokenizer.chat_templates", GGUF_VTYPE_ARRAY, GGUF_VTYPE_STRING,
                              list, list_len, err);
    }
    free(list);
    if (rc == 0 && deflt != NULL)
        rc = gguf_kv_set_text(f, "tokenizer.chat_template", GGUF_VTYPE_STRING, GGUF_VTYPE_COUNT,
                              deflt, strlen(deflt), err);
    return rc;
}

static int apply_chat_template_config(gguf_file *f, const edit_op *op, gguf_error *err) {
    size_t len;
    char *text = read_text_file(op->value, &len);
    if (text == NULL)
        return fail_msg(err, GGUF_EIO, "%s: %s", op->value,
                        errno ? strerror(errno) : "out of memory");
    json_in j = {text, text + len, 0};
    chat_templates c = {0};
    int rc = 0;
    if (json_object(&j, config_member, &c) != 0)
        rc = fail_msg(err, GGUF_EINVAL, "%s: not a JSON object (a tokenizer_config.json) at "
                      "byte %zu", op->value, (size_t)(j.p - text));
    else if (!c.seen || (c.single == NULL && !c.is_list))
        rc = fail_msg(err, GGUF_ENOTFOUND, "%s: no chat_template", op->value);
    else
        rc = put_templates(f, &c, err);
    chat_templates_free(&c);
    free(text);
    return rc;
}

static int apply_one(gguf_file *f, const edit_op *op, gguf_error *err) {
    switch (op->kind) {
    case EDIT_SET:
    case EDIT_SET_JSON:
    case EDIT_SET_FILE:
    case EDIT_SET_JSON_FILE: return apply_set(f, op, err);
    case EDIT_RM: return gguf_kv_remove(f, op->key, err);
    case EDIT_RENAME: return gguf_kv_rename(f, op->key, op->value, err);
    case EDIT_RENAME_TENSOR: return gguf_tensor_rename(f, op->key, op->value, err);
    case EDIT_RM_TENSOR: return gguf_tensor_remove(f, op->key, err);
    case EDIT_SPECIAL_TOKEN: return apply_special_token(f, op, err);
    case EDIT_CHAT_TEMPLATE_CONFIG: return apply_chat_template_config(f, op, err);
    case EDIT_REALIGN: {
        char *end;
        errno = 0;
        unsigned long a = strtoul(op->value, &end, 10);
        if (*op->value == '\0' || *end != '\0' || errno != 0 || a > UINT32_MAX) {
            snprintf(err->message, sizeof err->message, "alignment '%s' is not a number", op->value);
            err->code = GGUF_EINVAL;
            return GGUF_EINVAL;
        }
        uint32_t a32 = (uint32_t)a;
        return gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &a32, err);
    }
    }
    return GGUF_EINVAL;
}

static const char *describe(const edit_op *op, char *buf, size_t n) {
    static const char *names[] = {"set", "set-json", "set-file", "rm", "rename", "realign",
                                  "rename-tensor", "rm-tensor", "set-json-file",
                                  "special-token", "chat-template-config"};
    snprintf(buf, n, "%s %s%s%s", names[op->kind], op->key ? op->key : "",
             op->key && op->value && op->kind != EDIT_SET_JSON ? " " : "",
             op->value && op->kind != EDIT_SET_JSON ? op->value : "");
    return buf;
}

int edits_apply(gguf_file *f, const edit_list *l, const char *path, int force) {
    for (size_t i = 0; i < l->n; i++) {
        gguf_error err;
        gguf_error_clear(&err);
        const edit_op *op = &l->ops[i];
        int set = op->kind == EDIT_SET || op->kind == EDIT_SET_FILE;
        if (apply_one(f, op, &err) != 0 ||
            (set && !force && is_special_token_key(op->key) && check_token_id(f, op->key, &err))) {
            char what[160];
            /* a name the file lacks: the one it has that was most likely meant */
            int tensor = op->kind == EDIT_RM_TENSOR || op->kind == EDIT_RENAME_TENSOR;
            const char *s = err.code == GGUF_ENOTFOUND &&
                                    (tensor || op->kind == EDIT_RM || op->kind == EDIT_RENAME)
                                ? cli_suggest_name(f, tensor, op->key)
                                : NULL;
            cli_errorf("%s: %s: %s%s%s%s", path, describe(op, what, sizeof what),
                       err.message[0] ? err.message : gguf_strerror(err.code),
                       s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
            return 1;
        }
    }
    return 0;
}
