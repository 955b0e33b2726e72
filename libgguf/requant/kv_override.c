/* Key overrides (llama-quantize's --override-kv KEY=TYPE:VALUE): parsing them, writing them into
 * the output as llama.cpp does, and the value the model's reading sees instead of the file's
 * (llama.cpp's loader applies them while it reads the hyperparameters the rules depend on). */
#define _GNU_SOURCE /* strnlen */
#include "requant/requant.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int bad(gguf_error *err, const char *text, const char *why) {
    return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "--override-kv '%s': %s", text,
                      why);
}

int gguf_requant_kv_parse(gguf_requant_kv *out, const char *text, gguf_error *err) {
    if (out == NULL || text == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no key override given");
    const char *eq = strchr(text, '=');
    if (eq == NULL || eq == text)
        return bad(err, text, "give KEY=TYPE:VALUE");
    size_t klen = (size_t)(eq - text);
    if (klen >= sizeof out->key)
        return bad(err, text, "the key is longer than 127 bytes");
    gguf_requant_kv kv;
    memset(&kv, 0, sizeof kv);
    memcpy(kv.key, text, klen);
    const char *v = eq + 1;
    char *end;
    if (strncmp(v, "int:", 4) == 0) {
        v += 4;
        kv.type = GGUF_REQUANT_KV_INT;
        errno = 0;
        kv.i = strtoll(v, &end, 10);
        if (*v == '\0' || *end != '\0' || errno == ERANGE)
            return bad(err, text, "not a 64-bit integer");
    } else if (strncmp(v, "float:", 6) == 0) {
        v += 6;
        kv.type = GGUF_REQUANT_KV_FLOAT;
        kv.f = strtod(v, &end);
        if (*v == '\0' || *end != '\0')
            return bad(err, text, "not a number");
    } else if (strncmp(v, "bool:", 5) == 0) {
        v += 5;
        kv.type = GGUF_REQUANT_KV_BOOL;
        if (strcmp(v, "true") != 0 && strcmp(v, "false") != 0)
            return bad(err, text, "a bool is 'true' or 'false'");
        kv.b = strcmp(v, "true") == 0;
    } else if (strncmp(v, "str:", 4) == 0) {
        v += 4;
        kv.type = GGUF_REQUANT_KV_STR;
        if (strlen(v) >= sizeof kv.s)
            return bad(err, text, "the string is longer than 127 bytes");
        strcpy(kv.s, v);
    } else {
        return bad(err, text, "the type is int, float, bool or str");
    }
    *out = kv;
    return 0;
}

/* Writes one override: the key removed if the file has it, then appended. */
static int write_one(gguf_file *f, const gguf_requant_kv *o, gguf_error *err) {
    if (gguf_kv_find(f, o->key) >= 0) {
        int rc = gguf_kv_remove(f, o->key, err);
        if (rc != 0)
            return rc;
    }
    switch (o->type) {
    case GGUF_REQUANT_KV_INT: {
        /* llama.cpp writes a UINT32 of the absolute value */
        uint64_t a = o->i < 0 ? 0 - (uint64_t)o->i : (uint64_t)o->i;
        uint32_t u = (uint32_t)a;
        return gguf_kv_set_scalar(f, o->key, GGUF_VTYPE_U32, &u, err);
    }
    case GGUF_REQUANT_KV_FLOAT: {
        float x = (float)o->f;
        return gguf_kv_set_scalar(f, o->key, GGUF_VTYPE_F32, &x, err);
    }
    case GGUF_REQUANT_KV_BOOL: {
        uint8_t b = o->b != 0;
        return gguf_kv_set_scalar(f, o->key, GGUF_VTYPE_BOOL, &b, err);
    }
    case GGUF_REQUANT_KV_STR:
        return gguf_kv_set_str(f, o->key, o->s, strnlen(o->s, sizeof o->s), err);
    default:
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "key override '%.127s': unknown type %d", o->key, o->type);
    }
}

int gguf__requant_kv_write(gguf_file *f, const gguf_requant_options *opt, gguf_error *err) {
    for (size_t k = 0; k < opt->n_kv_overrides; k++) {
        int rc = write_one(f, &opt->kv_overrides[k], err);
        if (rc != 0)
            return gguf__wrap(err, rc, "key override '%.127s'", opt->kv_overrides[k].key);
    }
    return 0;
}

const gguf_requant_kv *gguf__requant_kv_find(const gguf_requant_options *opt, const char *key,
                                             int type) {
    for (size_t k = 0; opt != NULL && k < opt->n_kv_overrides; k++) {
        const gguf_requant_kv *o = &opt->kv_overrides[k];
        if (strncmp(o->key, key, sizeof o->key) == 0)
            return o->type == type ? o : NULL; /* the first one counts; another type: ignored */
    }
    return NULL;
}
