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

/* --chat-template-config FILE: a tokenizer_config.json's chat templates */
static int apply_chat_template_config(gguf_file *f, const edit_op *op, gguf_error *err) {
    size_t len;
    char *text = read_text_file(op->value, &len);
    if (text == NULL)
        return fail_msg(err, GGUF_EIO, "%s: %s", op->value,
                        errno ? strerror(errno) : "out of memory");
    int rc = gguf_kv_set_chat_templates_json(f, text, len, err);
    free(text);
    if (rc != 0) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        fail_msg(err, rc, "%s: %s", op->value, why);
    }
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
