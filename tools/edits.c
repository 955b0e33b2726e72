/* The edit engine: operations from the command line or an edits file, applied in order. */
#define _GNU_SOURCE
#include "edits.h"
#include "cli.h"

#include <errno.h>
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
                                  "rename-tensor", "rm-tensor", "set-json-file"};
    snprintf(buf, n, "%s %s%s%s", names[op->kind], op->key ? op->key : "",
             op->key && op->value && op->kind != EDIT_SET_JSON ? " " : "",
             op->value && op->kind != EDIT_SET_JSON ? op->value : "");
    return buf;
}

int edits_apply(gguf_file *f, const edit_list *l, const char *path) {
    for (size_t i = 0; i < l->n; i++) {
        gguf_error err;
        gguf_error_clear(&err);
        if (apply_one(f, &l->ops[i], &err) != 0) {
            char what[160];
            cli_errorf("%s: %s: %s", path, describe(&l->ops[i], what, sizeof what),
                       err.message[0] ? err.message : gguf_strerror(err.code));
            return 1;
        }
    }
    return 0;
}
