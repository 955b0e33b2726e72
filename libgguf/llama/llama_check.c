/* gguf_llama_check: applies llama.cpp's loader rules (llama_arch.c, llama_vocab.c) to a model
 * (one file, or a split set's view), as the loader would see it, without reading tensor data. Every
 * problem is reported (llama.cpp stops at the first one); each names its key or tensor.
 *
 * Hyperparameters are symbols resolved lazily from their keys (or defaults) when an
 * expression needs them; a symbol whose key is unusable is undefined, and a rule that depends
 * on an undefined symbol is not judged, so one bad key gives one finding, not a cascade.
 *
 * Values that differ by layer (the per-layer arrays, which layers are recurrent or sliding) come
 * from the one hyperparameter reader (llama_hparams.c), as the symbols HKV_i, H_i, FF_i, FFE_i,
 * XU_i, RECR_i, SWA_i, IDX_i and CR_i at the layer being judged. */
#include "llama.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MSG_MAX 1024
#define NAME_MAX_LEN 160
#define MAX_SYMS 96
#define MAX_REPORTED_EXTRA 24

/* ---- the check in progress ---- */

enum sym_state { SYM_NEW = 0, SYM_BUSY, SYM_DONE };

typedef struct sym {
    const char *name;
    const gguf__llama_key *key; /* set by a key, or */
    const char *expr;           /* defined by an expression, or neither (set directly) */
    const char *about;
    int state;
    int undefined;
    int64_t value;
} sym;

typedef struct lc {
    gguf__llama_report rep;
    const gguf_file *meta; /* the model: a file or a split set's view */
    size_t n_shards;
    const gguf__llama_arch *arch;
    char arch_name[64];
    sym syms[MAX_SYMS];
    size_t n_syms;
    int64_t xu_max;
    int xu_max_set;
    uint8_t *used;   /* per tensor: a rule created it */
    int indefinite;  /* some tensor rule could not be judged */
    int *stats_arch;
    char label[NAME_MAX_LEN]; /* sym_label's answer */
    gguf_error *err;
    int64_t layer;            /* the layer an expression is evaluated at, or -1 */
    int hp_read;              /* hp holds the file's hyperparameters */
    gguf__llama_hparams hp;
} lc;

static const gguf_value *find_value(const gguf_file *f, const char *key, uint64_t *offset) {
    int64_t i = gguf_kv_find(f, key);
    if (offset != NULL)
        *offset = i < 0 ? GGUF_ERROR_NO_OFFSET : gguf_kv_source_offset(f, (size_t)i);
    return i < 0 ? NULL : gguf_kv_value(f, (size_t)i);
}

/* The key's full name: "{arch}." + name unless global. */
static const char *key_name(char *buf, size_t size, const lc *c, const gguf__llama_key *k) {
    if (k->flags & GGUF__LK_GLOBAL)
        snprintf(buf, size, "%s", k->name);
    else
        snprintf(buf, size, "%s.%s", c->arch_name, k->name);
    return buf;
}

/* A rule's key: "tokenizer.*" and "general.*" as they are, the others after "{arch}.". */
static const char *rule_key(char *buf, size_t size, const lc *c, const char *k) {
    if (strncmp(k, "tokenizer.", 10) == 0 || strncmp(k, "general.", 8) == 0 ||
        strncmp(k, "split.", 6) == 0)
        snprintf(buf, size, "%s", k);
    else
        snprintf(buf, size, "%s.%s", c->arch_name, k);
    return buf;
}

static sym *sym_find(lc *c, const char *name, size_t len) {
    for (size_t i = 0; i < c->n_syms; i++) {
        if (strlen(c->syms[i].name) == len && memcmp(c->syms[i].name, name, len) == 0)
            return &c->syms[i];
    }
    return NULL;
}

static void sym_add(lc *c, const char *name, const gguf__llama_key *key, const char *expr,
                    const char *about) {
    if (c->n_syms >= MAX_SYMS || sym_find(c, name, strlen(name)) != NULL)
        return; /* the first definition wins: architectures before the generic ones */
    c->syms[c->n_syms++] = (sym){name, key, expr, about, SYM_NEW, 0, 0};
}

static void sym_set(lc *c, const char *name, int64_t v, int undefined) {
    sym_add(c, name, NULL, NULL, NULL);
    sym *s = sym_find(c, name, strlen(name));
    if (s != NULL) {
        s->state = SYM_DONE;
        s->value = v;
        s->undefined = undefined;
    }
}

static int resolve(void *ctx, const char *name, size_t len, int defined, int64_t *v);

static int eval(lc *c, const char *expr, int64_t layer, int64_t *out) {
    int64_t outer = c->layer;
    c->layer = layer;
    int rc = gguf__llama_eval(out, expr, layer, resolve, c);
    c->layer = outer;
    return rc < 0 ? 1 : rc; /* a table bug counts as undefined; tests catch it */
}

/* 1 when the condition holds, 0 when not, -1 when undefined. NULL holds. */
static int holds(lc *c, const char *expr, int64_t layer) {
    if (expr == NULL)
        return 1;
    int64_t v;
    if (eval(c, expr, layer, &v) != 0)
        return -1;
    return v != 0;
}

/* 1 when the type is accepted as an element of an array read into `type`. */
static int elem_accepts(uint32_t type, uint32_t elem) {
    switch (type) {
    case GGUF_VTYPE_U32:
    case GGUF_VTYPE_I32:
        return elem == GGUF_VTYPE_U32 || elem == GGUF_VTYPE_I32 || elem == GGUF_VTYPE_BOOL;
    case GGUF_VTYPE_ARRAY: return 1; /* any element type (get_arr_n) */
    default: return elem == type;
    }
}

static int64_t scalar_value(const gguf_value *v) {
    uint64_t u;
    int64_t i;
    int sgn;
    if (gguf_value_get_int(&u, &i, &sgn, v, NULL) != 0)
        return 0;
    return sgn ? i : (int64_t)(u > INT64_MAX ? INT64_MAX : u);
}

/* Index of a string value in a '|'-separated list, or -1. */
static int value_index(const char *list, const char *s, uint64_t len) {
    int idx = 0;
    for (const char *p = list;; idx++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && memcmp(p, s, n) == 0)
            return idx;
        if (bar == NULL)
            return -1;
        p = bar + 1;
    }
}

/* The value a key gives its symbol (silently: findings come from check_key). Returns 0 and sets
 * *out, or 1 when the key is unusable. */
static int key_value(lc *c, const gguf__llama_key *k, const gguf_value *v, int64_t *out) {
    uint32_t t = gguf_value_type(v);
    if (k->form == GGUF__LK_ARRAY) {
        if (t != GGUF_VTYPE_ARRAY || !elem_accepts(k->type, gguf_value_elem_type(v)))
            return 1;
        *out = (int64_t)gguf_value_count(v);
        return 0;
    }
    if (t == GGUF_VTYPE_ARRAY) {
        if (k->form != GGUF__LK_PER_LAYER || !elem_accepts(k->type, gguf_value_elem_type(v)) ||
            gguf_value_count(v) == 0)
            return 1;
        if (!(k->flags & GGUF__LK_ANY_LENGTH)) {
            int64_t nl;
            if (eval(c, "NL", -1, &nl) != 0 || (uint64_t)nl != gguf_value_count(v))
                return 1;
        }
        gguf_value_iter it;
        gguf_value e;
        gguf_value_iter_init(&it, v);
        int64_t first = 0, max = 0;
        for (int n = 0; gguf_value_iter_next(&it, &e); n++) {
            int64_t x = scalar_value(&e);
            if (n == 0)
                first = x;
            if (x > max)
                max = x;
        }
        if (k->sym != NULL && strcmp(k->sym, "XU") == 0) {
            c->xu_max = max;
            c->xu_max_set = 1;
        }
        *out = first;
        return 0;
    }
    if (t != k->type)
        return 1;
    if (t == GGUF_VTYPE_STRING) {
        const char *s;
        uint64_t len;
        if (k->values == NULL || gguf_value_get_str(&s, &len, v, NULL) != 0)
            return 1;
        int idx = value_index(k->values, s, len);
        if (idx < 0)
            return 1;
        *out = idx;
        return 0;
    }
    if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64)
        return 1; /* floats are not symbols */
    *out = scalar_value(v);
    if (k->sym != NULL && strcmp(k->sym, "XU") == 0) {
        c->xu_max = *out;
        c->xu_max_set = 1;
    }
    return 0;
}

/* The symbols whose value depends on the layer: what llama_hparams.c reads for that layer.
 * Each is undefined where the layer-0 symbols `base` names are (a key llama.cpp would refuse,
 * so that the key's own finding is the only one). */
static uint32_t hkv_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->n_head_kv[il]; }
static uint32_t h_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->n_head[il]; }
static uint32_t ff_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->n_ff[il]; }
static uint32_t ffe_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->n_ff_exp[il]; }
static uint32_t xu_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->n_expert_used[il]; }
static uint32_t recr_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->is_recr[il]; }
static uint32_t swa_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->is_swa[il]; }
static uint32_t idx_at(const gguf__llama_hparams *hp, uint32_t il) {
    return hp->is_indexer_full[il];
}
static uint32_t cr_at(const gguf__llama_hparams *hp, uint32_t il) { return hp->compress_ratio[il]; }
static const struct layer_sym {
    const char *name;
    const char *base;
    uint32_t (*at)(const gguf__llama_hparams *hp, uint32_t il);
    const char *key; /* how a message names it */
} layer_syms[] = {
    {"HKV_i", "HKV", hkv_at, "attention.head_count_kv"},
    {"H_i", "H", h_at, "attention.head_count"},
    {"FF_i", "FF", ff_at, "feed_forward_length"},
    {"FFE_i", "E", ffe_at, "expert_feed_forward_length"},
    {"XU_i", "XU", xu_at, "expert_used_count"},
    {"RECR_i", "HKV + FF", recr_at, NULL},
    {"SWA_i", "NL", swa_at, NULL},
    {"IDX_i", "NL", idx_at, NULL},
    {"CR_i", "NCR", cr_at, "attention.compress_ratios"},
};

/* UPGATE_i: 1 when layer i's ffn_up.weight is twice feed_forward_length wide, the gate fused
 * into it (a loader that reads the width from the tensor accepts both), else 0. FULLN: the
 * layers that are not sliding-window layers (for a tensor the first of them creates). */
#define UPGATE "UPGATE_i"
#define FULLN "FULLN"

const char *gguf__llama_layer_sym(size_t i) {
    size_t n = sizeof layer_syms / sizeof layer_syms[0];
    return i < n ? layer_syms[i].name : i == n ? UPGATE : i == n + 1 ? FULLN : NULL;
}

static int resolve_fulln(lc *c, int64_t *v) {
    int64_t nl;
    if (eval(c, "NL", -1, &nl) != 0 || nl < 0)
        return 1;
    if (!c->hp_read) {
        gguf__llama_hparams_read(&c->hp, c->meta, c->arch_name, NULL, NULL);
        c->hp_read = 1;
    }
    *v = 0;
    for (uint32_t il = 0; il < c->hp.n_layer && il < GGUF__LLAMA_MAX_LAYERS; il++)
        *v += !c->hp.is_swa[il];
    return 0;
}

static int resolve_upgate(lc *c, int64_t *v) {
    int64_t ff;
    if (c->layer < 0 || eval(c, "FF", -1, &ff) != 0)
        return 1;
    char name[NAME_MAX_LEN];
    snprintf(name, sizeof name, "blk.%lld.ffn_up.weight", (long long)c->layer);
    int64_t i = gguf_tensor_find(c->meta, name);
    *v = 0;
    if (i >= 0 && ff > 0) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, c->meta, (size_t)i);
        *v = t.n_dims >= 2 && t.dims[1] == 2 * (uint64_t)ff;
    }
    return 0;
}

static const struct layer_sym *layer_sym_find(const char *name, size_t len) {
    for (size_t k = 0; k < sizeof layer_syms / sizeof layer_syms[0]; k++) {
        if (strlen(layer_syms[k].name) == len && memcmp(layer_syms[k].name, name, len) == 0)
            return &layer_syms[k];
    }
    return NULL;
}

static int resolve_layer(lc *c, const struct layer_sym *ls, int64_t *v) {
    int64_t base, nl;
    if (c->layer < 0 || eval(c, ls->base, -1, &base) != 0 || eval(c, "NL", -1, &nl) != 0 ||
        c->layer >= nl || c->layer >= GGUF__LLAMA_MAX_LAYERS)
        return 1;
    if (!c->hp_read) {
        gguf__llama_hparams_read(&c->hp, c->meta, c->arch_name, NULL, NULL);
        c->hp_read = 1;
    }
    *v = ls->at(&c->hp, (uint32_t)c->layer);
    return 0;
}

static int resolve(void *ctx, const char *name, size_t len, int defined, int64_t *v) {
    lc *c = ctx;
    const struct layer_sym *ls = layer_sym_find(name, len);
    if (ls != NULL) {
        *v = 0;
        return defined ? 0 : resolve_layer(c, ls, v);
    }
    if (len == strlen(UPGATE) && memcmp(name, UPGATE, len) == 0) {
        *v = 0;
        return defined ? 0 : resolve_upgate(c, v);
    }
    if (len == strlen(FULLN) && memcmp(name, FULLN, len) == 0) {
        *v = 0;
        return defined ? 0 : resolve_fulln(c, v);
    }
    if (len == 5 && memcmp(name, "XUMAX", 5) == 0 && !defined) {
        int64_t xu;
        if (eval(c, "XU", -1, &xu) != 0)
            return 1;
        *v = c->xu_max_set ? c->xu_max : xu;
        return 0;
    }
    sym *s = sym_find(c, name, len);
    if (s == NULL)
        return -1;
    if (defined) {
        char kb[NAME_MAX_LEN];
        *v = s->key != NULL && find_value(c->meta, key_name(kb, sizeof kb, c, s->key), NULL) != NULL;
        return 0;
    }
    if (s->state == SYM_DONE) {
        *v = s->value;
        return s->undefined;
    }
    if (s->state == SYM_BUSY)
        return 1; /* a cycle through a default: undefined */
    s->state = SYM_BUSY;
    int64_t val = 0;
    int undef = 1;
    if (s->key != NULL) {
        char kb[NAME_MAX_LEN];
        const gguf_value *kv = find_value(c->meta, key_name(kb, sizeof kb, c, s->key), NULL);
        int read = holds(c, s->key->when, -1);
        if (kv != NULL && read == 1)
            undef = key_value(c, s->key, kv, &val);
        else if (read == -1)
            undef = 1;
        else if (s->key->dflt != NULL)
            undef = eval(c, s->key->dflt, -1, &val);
    } else if (s->expr != NULL) {
        undef = eval(c, s->expr, -1, &val);
    }
    s->state = SYM_DONE;
    s->value = val;
    s->undefined = undef;
    *v = val;
    return undef;
}

/* How a message names a symbol: its key, or what it is. */
static const char *sym_label(void *ctx, const char *name, size_t len) {
    lc *c = ctx;
    if (len == 1 && name[0] == 'V')
        return "n_vocab";
    if (len == 5 && memcmp(name, "XUMAX", 5) == 0) {
        snprintf(c->label, sizeof c->label, "max(%s.expert_used_count)", c->arch_name);
        return c->label;
    }
    if (len == strlen(UPGATE) && memcmp(name, UPGATE, len) == 0)
        return "the gate fused into ffn_up";
    if (len == strlen(FULLN) && memcmp(name, FULLN, len) == 0)
        return "layers without a sliding window";
    const struct layer_sym *ls = layer_sym_find(name, len);
    if (ls != NULL && ls->key != NULL) {
        snprintf(c->label, sizeof c->label, "%s.%s[i]", c->arch_name, ls->key);
        return c->label;
    }
    sym *s = sym_find(c, name, len);
    if (s == NULL)
        return NULL;
    if (s->key != NULL)
        return key_name(c->label, sizeof c->label, c, s->key);
    return s->about;
}

/* ---- keys ---- */

static void check_key(lc *c, const gguf__llama_key *k) {
    char name[NAME_MAX_LEN];
    key_name(name, sizeof name, c, k);
    uint64_t off;
    const gguf_value *v = find_value(c->meta, name, &off);
    if (holds(c, k->when, -1) == 0)
        return;
    const char *tn = gguf_vtype_name(k->type);
    if (v == NULL) {
        if ((k->flags & GGUF__LK_REQUIRED) && holds(c, k->when, -1) == 1)
            gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, name, NULL, 0, GGUF_ERROR_NO_OFFSET,
                             "%s is absent: llama.cpp refuses the model without it (a %s)", name,
                             k->form == GGUF__LK_ARRAY ? "array" : tn);
        return;
    }
    uint32_t t = gguf_value_type(v);
    const char *have = gguf_vtype_name(t);
    if (t == GGUF_VTYPE_ARRAY) {
        uint32_t e = gguf_value_elem_type(v);
        const char *en = gguf_vtype_name(e) ? gguf_vtype_name(e) : "?";
        if (k->form == GGUF__LK_SCALAR) {
            gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, name, NULL, 0, off,
                             "%s is an ARRAY of %s where llama.cpp reads one %s: it refuses the "
                             "model", name, en, tn);
        } else if (k->form == GGUF__LK_SCALAR_OR_IGNORED) {
            return; /* llama.cpp skips it */
        } else if (!elem_accepts(k->type, e)) {
            gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, name, NULL, 0, off,
                             "%s is an ARRAY of %s where llama.cpp reads %s%s: it refuses the "
                             "model", name, en, k->type == GGUF_VTYPE_U32 ? "UINT32 or INT32" : tn,
                             k->form == GGUF__LK_PER_LAYER ? " (one, or one per layer)" : "");
        } else if (k->form == GGUF__LK_PER_LAYER && !(k->flags & GGUF__LK_ANY_LENGTH)) {
            int64_t nl;
            if (eval(c, "NL", -1, &nl) == 0 && (uint64_t)nl != gguf_value_count(v))
                gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, name, NULL, 0, off,
                                 "%s has %llu elements where llama.cpp wants one per layer "
                                 "(%s.block_count = %lld): it refuses the model", name,
                                 (unsigned long long)gguf_value_count(v), c->arch_name,
                                 (long long)nl);
        }
        return;
    }
    if (k->form == GGUF__LK_ARRAY) {
        if (k->flags & GGUF__LK_REQUIRED)
            gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, name, NULL, 0, off,
                             "%s is a %s where llama.cpp reads an array: it refuses the model",
                             name, have ? have : "?");
        return; /* an optional array key that is not an array is ignored */
    }
    if (t != k->type) {
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, name, NULL, 0, off,
                         "%s is %s where llama.cpp reads %s: it refuses the model", name,
                         have ? have : "?", tn);
        return;
    }
    if (t == GGUF_VTYPE_STRING && k->values != NULL) {
        const char *s;
        uint64_t len;
        char q[96];
        if (gguf_value_get_str(&s, &len, v, NULL) == 0 && value_index(k->values, s, len) < 0)
            gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, name, NULL, 0, off,
                             "%s is '%s': llama.cpp aborts on a value other than %s", name,
                             gguf__quote(q, sizeof q, s, (size_t)len), k->values);
    }
}

/* Checks a key list, skipping keys an earlier list checked already. */
static void check_keys(lc *c, const gguf__llama_key *keys, const gguf__llama_key *const *before,
                       size_t n_before) {
    for (const gguf__llama_key *k = keys; k != NULL && k->name != NULL; k++) {
        int seen = 0;
        for (size_t b = 0; b < n_before && !seen; b++) {
            for (const gguf__llama_key *p = before[b]; p->name != NULL && !seen; p++)
                seen = strcmp(p->name, k->name) == 0 &&
                       (p->flags & GGUF__LK_GLOBAL) == (k->flags & GGUF__LK_GLOBAL);
        }
        if (!seen)
            check_key(c, k);
    }
}

static void add_key_syms(lc *c, const gguf__llama_key *keys) {
    for (const gguf__llama_key *k = keys; k != NULL && k->name != NULL; k++) {
        if (k->sym != NULL)
            sym_add(c, k->sym, k, NULL, NULL);
    }
}

/* The symbols of the architecture's keys and table, then the generic ones (in that order: a
 * name defined twice keeps its first definition, the architecture's). */
static void add_model_syms(lc *c) {
    add_key_syms(c, c->arch->keys);
    for (const gguf__llama_sym *d = c->arch->syms; d != NULL && d->name != NULL; d++)
        sym_add(c, d->name, NULL, d->expr, d->about);
    add_key_syms(c, gguf__llama_generic_keys);
    for (const gguf__llama_sym *d = gguf__llama_generic_syms; d->name != NULL; d++)
        sym_add(c, d->name, NULL, d->expr, d->about);
}

/* "name = value, ..." for the symbols an expression uses (each once). */
static void expr_values(lc *c, char *buf, size_t size, const char *expr) {
    size_t o = 0;
    const char *seen[16];
    size_t seen_len[16], n_seen = 0;
    buf[0] = '\0';
    for (const char *p = expr; *p != '\0';) {
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_')) {
            p++;
            continue;
        }
        const char *start = p;
        while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
               *p == '_')
            p++;
        size_t len = (size_t)(p - start);
        int dup = len == 7 && memcmp(start, "defined", 7) == 0;
        for (size_t k = 0; k < n_seen && !dup; k++)
            dup = seen_len[k] == len && memcmp(seen[k], start, len) == 0;
        if (dup || n_seen == 16)
            continue;
        seen[n_seen] = start;
        seen_len[n_seen++] = len;
        int64_t v, present = 1;
        int undef = resolve(c, start, len, 0, &v);
        sym *sy = sym_find(c, start, len);
        if (sy != NULL && sy->key != NULL)
            resolve(c, start, len, 1, &present);
        const char *label = sym_label(c, start, len);
        char name[NAME_MAX_LEN];
        if (label != NULL)
            snprintf(name, sizeof name, "%s", label);
        else
            snprintf(name, sizeof name, "%.*s", (int)len, start);
        int w = undef < 0 ? 0
                : !present ? snprintf(buf + o, size - o, "%s%s absent", o ? ", " : "", name)
                : undef  ? snprintf(buf + o, size - o, "%s%s unusable", o ? ", " : "", name)
                         : snprintf(buf + o, size - o, "%s%s = %lld", o ? ", " : "", name,
                                    (long long)v);
        o += w < 0 ? 0 : (size_t)w;
        if (o >= size) {
            buf[size - 1] = '\0';
            return;
        }
    }
}

/* The first layer where a per-layer rule fails, or -1. */
static int64_t rule_layer(lc *c, const gguf__llama_rule *r) {
    int64_t n;
    if (eval(c, (r->layers & GGUF__LT_ALL_LAYERS) ? "NL" : "L", -1, &n) != 0)
        return -1;
    for (int64_t i = 0; i < n && i < GGUF__LLAMA_MAX_LAYERS; i++) {
        if (holds(c, r->when, i) == 1 && holds(c, r->expr, i) == 0)
            return i;
    }
    return -1;
}

static void check_rules(lc *c, const gguf__llama_rule *rules) {
    for (const gguf__llama_rule *r = rules; r != NULL && r->expr != NULL; r++) {
        int64_t layer = -1;
        if (r->layers != 0) {
            if ((layer = rule_layer(c, r)) < 0)
                continue;
        } else if (holds(c, r->when, -1) != 1 || holds(c, r->expr, -1) != 0) {
            continue;
        }
        char key[NAME_MAX_LEN];
        rule_key(key, sizeof key, c, r->key);
        uint64_t off;
        find_value(c->meta, key, &off);
        char values[MSG_MAX / 2], at[48] = "";
        c->layer = layer;
        expr_values(c, values, sizeof values, r->expr);
        c->layer = -1;
        if (layer >= 0)
            snprintf(at, sizeof at, " in layer %lld", (long long)layer);
        gguf__llama_emit(&c->rep, r->severity, key, NULL, 0, off, "%s: %s%s (%s)", key,
                         r->message, at, values);
    }
}

/* ---- tensors ---- */

/* name with %d replaced by the layer */
static void tensor_name(char *buf, size_t size, const char *pattern, int64_t layer) {
    const char *p = strstr(pattern, "%d");
    if (p == NULL || layer < 0) {
        snprintf(buf, size, "%s", pattern);
        return;
    }
    snprintf(buf, size, "%.*s%lld%s", (int)(p - pattern), pattern, (long long)layer, p + 2);
}

typedef struct tref {
    size_t shard;
    size_t index;
} tref;

static int find_tensor(const lc *c, const char *name, tref *out) {
    int64_t i = gguf_tensor_find(c->meta, name);
    if (i < 0)
        return 0;
    out->index = (size_t)i;
    out->shard = gguf_tensor_shard(c->meta, (size_t)i);
    return 1;
}

static int present(const lc *c, const char *pattern, int64_t layer) {
    char name[NAME_MAX_LEN];
    tref r;
    tensor_name(name, sizeof name, pattern, layer);
    return find_tensor(c, name, &r);
}

static void shape_text(char *buf, size_t size, const uint64_t *dims, uint32_t n) {
    size_t o = 0;
    buf[o++] = '[';
    for (uint32_t d = 0; d < n && o < size; d++) {
        int w = snprintf(buf + o, size - o, "%s%llu", d ? ", " : "", (unsigned long long)dims[d]);
        o += w < 0 ? 0 : (size_t)w;
    }
    if (o + 2 <= size) {
        buf[o++] = ']';
        buf[o] = '\0';
    } else {
        buf[size - 1] = '\0';
    }
}

/* The problems of one rule over its layers: the first one in full, then a count. */
typedef struct agg {
    int64_t missing_layer, n_missing;
    int64_t shape_layer, n_shape;
    char shape_msg[MSG_MAX / 2];
    tref shape_at;
} agg;

/* Whether a tensor has the shape dims give at this layer: 1, 0, or -1 when a dimension has no
 * value; want and nd get the shape. */
static int shape_is(lc *c, const char *const *dims, int64_t layer, const gguf_tensor_info *info,
                    int by_count, int64_t *want, uint32_t *nd) {
    for (*nd = 0; *nd < 4 && dims[*nd] != NULL; (*nd)++) {
        if (eval(c, dims[*nd], layer, &want[*nd]) != 0)
            return -1;
    }
    if (by_count) {
        /* the element count alone (checked arithmetic: an overflow is no match) */
        int ok = 1;
        uint64_t have = 1, expect = 1;
        for (uint32_t d = 0; d < info->n_dims && ok; d++)
            ok = gguf__mul_u64(&have, have, info->dims[d]);
        for (uint32_t d = 0; d < *nd && ok; d++)
            ok = want[d] >= 0 && gguf__mul_u64(&expect, expect, (uint64_t)want[d]);
        return ok && have == expect;
    }
    for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
        uint64_t have = d < info->n_dims ? info->dims[d] : 1;
        if ((d < *nd && (want[d] < 0 || have != (uint64_t)want[d])) || (d >= *nd && have != 1))
            return 0;
    }
    return 1;
}

static void check_one(lc *c, const gguf__llama_tensor *t, int64_t layer, int optional,
                      agg *a) {
    char name[NAME_MAX_LEN];
    tensor_name(name, sizeof name, t->name, layer);
    tref r;
    int found = find_tensor(c, name, &r);
    int w = holds(c, t->when, layer);
    if (w == 0)
        return;
    if (t->if_present != NULL && !present(c, t->if_present, layer))
        return;
    if (t->if_absent != NULL && present(c, t->if_absent, layer))
        return;
    if (w < 0) {
        c->indefinite = 1;
        if (found)
            c->used[r.index] = 1;
        return;
    }
    if (!found) {
        if (!optional && !(t->flags & GGUF__LT_OPTIONAL) && a->n_missing++ == 0)
            a->missing_layer = layer;
        return;
    }
    c->used[r.index] = 1;
    gguf_tensor_info info;
    gguf_tensor_get(&info, c->meta, r.index);
    int64_t want[4];
    uint32_t nd;
    int by_count = (t->flags & GGUF__LT_RESHAPE) != 0;
    int ok = shape_is(c, t->dims, layer, &info, by_count, want, &nd);
    int64_t alt[4];
    uint32_t alt_nd = 0;
    if (ok == 0 && t->alt_dims[0] != NULL)
        ok = shape_is(c, t->alt_dims, layer, &info, by_count, alt, &alt_nd);
    if (ok < 0) {
        c->indefinite = 1;
        return;
    }
    if (ok || a->n_shape++ > 0)
        return;
    a->shape_layer = layer;
    a->shape_at = r;
    char got[96], exp[96], why[MSG_MAX / 4];
    shape_text(got, sizeof got, info.dims, info.n_dims);
    uint64_t wd[4] = {0, 0, 0, 0};
    for (uint32_t d = 0; d < nd; d++)
        wd[d] = (uint64_t)want[d];
    shape_text(exp, sizeof exp, wd, nd);
    size_t o = 0;
    why[0] = '\0';
    for (uint32_t d = 0; d < nd && o + 8 < sizeof why; d++) {
        char part[MSG_MAX / 4];
        gguf__llama_expr_explain(part, sizeof part, t->dims[d], sym_label, c);
        int n = snprintf(why + o, sizeof why - o, "%s%s", d ? ", " : "", part);
        o += n < 0 ? 0 : (size_t)n;
        if (o >= sizeof why)
            o = sizeof why - 1;
    }
    char alt_text[112] = "";
    if (alt_nd > 0) {
        uint64_t ad[4] = {0, 0, 0, 0};
        for (uint32_t d = 0; d < alt_nd; d++)
            ad[d] = (uint64_t)alt[d];
        char alt_shape[96];
        shape_text(alt_shape, sizeof alt_shape, ad, alt_nd);
        snprintf(alt_text, sizeof alt_text, " (or %s)", alt_shape);
    }
    snprintf(a->shape_msg, sizeof a->shape_msg,
             "tensor '%s' has shape %s where llama.cpp expects %s = [%s]%s: it refuses the model",
             name, got, exp, why, alt_text);
}

static void check_tensor_rules(lc *c, const gguf__llama_tensor *rules, int64_t nl, int64_t l,
                               int mtp_optional) {
    char blk[NAME_MAX_LEN];
    snprintf(blk, sizeof blk, "%s.block_count", c->arch_name);
    for (const gguf__llama_tensor *t = rules; t->name != NULL; t++) {
        agg a = {-1, 0, -1, 0, "", {0, 0}};
        int64_t n = 0;
        if (t->flags & (GGUF__LT_LAYER | GGUF__LT_ALL_LAYERS)) {
            n = (t->flags & GGUF__LT_ALL_LAYERS) ? nl : l;
            if (n < 0) {
                c->indefinite = 1;
                continue;
            }
            for (int64_t i = 0; i < n && i < 4096; i++)
                check_one(c, t, i, i >= l && mtp_optional, &a);
        } else {
            check_one(c, t, -1, 0, &a);
        }
        char name[NAME_MAX_LEN];
        if (a.n_missing > 0) {
            tensor_name(name, sizeof name, t->name, a.missing_layer);
            if (a.missing_layer >= 0) {
                char more[64] = "";
                if (a.n_missing > 1)
                    snprintf(more, sizeof more, "; %lld layers lack it",
                             (long long)a.n_missing);
                gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, blk, name, 0, GGUF_ERROR_NO_OFFSET,
                                 "tensor '%s' is missing: llama.cpp's %s loader requires it in "
                                 "each of the %lld layers (%s)%s", name, c->arch_name,
                                 (long long)n, blk, more);
            } else {
                gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, NULL, name, 0, GGUF_ERROR_NO_OFFSET,
                                 "tensor '%s' is missing: llama.cpp's %s loader requires it",
                                 name, c->arch_name);
            }
        }
        if (a.n_shape > 0) {
            tensor_name(name, sizeof name, t->name, a.shape_layer);
            if (a.n_shape > 1)
                gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, NULL, name, a.shape_at.shard,
                                 GGUF_ERROR_NO_OFFSET, "%s (the same in %lld layers)",
                                 a.shape_msg, (long long)a.n_shape);
            else
                gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, NULL, name, a.shape_at.shard,
                                 GGUF_ERROR_NO_OFFSET, "%s", a.shape_msg);
        }
    }
}

/* The layer in "blk.N...." or -1. */
static int64_t name_layer(const char *s, size_t len) {
    if (len < 5 || memcmp(s, "blk.", 4) != 0 || s[4] < '0' || s[4] > '9')
        return -1;
    int64_t n = 0;
    for (size_t i = 4; i < len && s[i] >= '0' && s[i] <= '9' && n < 1000000; i++)
        n = n * 10 + (s[i] - '0');
    return n;
}

static void check_unused(lc *c, int64_t nl) {
    uint64_t extra = 0;
    for (size_t i = 0; i < gguf_tensor_count(c->meta); i++) {
        if (c->used[i])
            continue;
        if (extra++ >= MAX_REPORTED_EXTRA)
            continue;
        gguf_tensor_info t;
        gguf_tensor_get(&t, c->meta, i);
        char q[NAME_MAX_LEN], hint[128] = "";
        gguf__quote(q, sizeof q, t.name, t.name_len);
        int64_t layer = name_layer(t.name, t.name_len);
        if (layer >= 0 && nl >= 0 && layer >= nl)
            snprintf(hint, sizeof hint, " (layer %lld, but %s.block_count is %lld)",
                     (long long)layer, c->arch_name, (long long)nl);
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, NULL, q, gguf_tensor_shard(c->meta, i),
                         GGUF_ERROR_NO_OFFSET,
                         "tensor '%s' is not one llama.cpp's %s loader creates%s: it refuses a "
                         "model with tensors it does not use (wrong number of tensors)",
                         q, c->arch_name, hint);
    }
    if (extra > MAX_REPORTED_EXTRA)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, NULL, NULL, 0, GGUF_ERROR_NO_OFFSET,
                         "%llu tensors in all that llama.cpp's %s loader does not create",
                         (unsigned long long)extra, c->arch_name);
}

static int check_tensors(lc *c) {
    size_t n = gguf_tensor_count(c->meta);
    c->used = gguf__calloc(n ? n : 1, 1);
    if (c->used == NULL)
        return gguf__fail(c->err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int64_t nl = -1, l = -1;
    if (eval(c, "NL", -1, &nl) != 0 || nl < 0 || nl > 4096)
        nl = -1;
    if (eval(c, "L", -1, &l) != 0 || l < 0 || l > nl)
        l = -1;
    int mtp_optional = 0;
    if (c->arch->mtp_probe != NULL && l >= 0)
        mtp_optional = !present(c, c->arch->mtp_probe, l);
    check_tensor_rules(c, c->arch->tensors, nl, l, mtp_optional);
    check_tensor_rules(c, gguf__llama_generic_tensors, nl, l, 1);
    if (!c->indefinite)
        check_unused(c, nl);
    else
        gguf__llama_emit(&c->rep, GGUF_LLAMA_NOTE, NULL, NULL, 0, GGUF_ERROR_NO_OFFSET,
                         "some tensor shapes depend on keys that are absent or unusable (see "
                         "above), so tensors llama.cpp would not use were not looked for");
    return 0;
}

/* general.file_type against the tensor types (llama.cpp believes the key). */
static void check_file_type(lc *c) {
    uint64_t off;
    const gguf_value *v = find_value(c->meta, "general.file_type", &off);
    uint64_t ft;
    if (v == NULL || gguf_value_type(v) != GGUF_VTYPE_U32 || gguf_value_get_u64(&ft, v, NULL) != 0)
        return;
    ft &= ~(uint64_t)GGUF__LLAMA_FTYPE_GUESSED;
    const gguf__llama_ftype *row = ft <= UINT32_MAX ? gguf__llama_ftype_find((uint32_t)ft) : NULL;
    if (row == NULL || row->dtype < 0) {
        gguf__llama_emit(&c->rep, GGUF_LLAMA_WARNING, "general.file_type", NULL, 0, off,
                         "general.file_type is %llu, which is no llama.cpp file type (it shows "
                         "the model as 'unknown')", (unsigned long long)ft);
        return;
    }
    int want = row->dtype;
    uint64_t count[GGUF_DTYPE_COUNT] = {0}, weights = 0;
    for (size_t i = 0; i < gguf_tensor_count(c->meta); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, c->meta, i);
        if (t.n_dims >= 2 && t.type < GGUF_DTYPE_COUNT) {
            count[t.type]++;
            weights++;
        }
    }
    if (weights == 0)
        return;
    uint32_t most = 0;
    for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
        if (count[t] > count[most])
            most = t;
    }
    const char *fname = row->display;
    if (want == GGUF_DTYPE_F32 && count[GGUF_DTYPE_F32] != weights)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_WARNING, "general.file_type", NULL, 0, off,
                         "general.file_type is %llu (%s) but %llu of the %llu weight tensors are "
                         "not F32 (most are %s)", (unsigned long long)ft, fname,
                         (unsigned long long)(weights - count[GGUF_DTYPE_F32]),
                         (unsigned long long)weights, gguf_dtype_name(most));
    else if (count[want] == 0)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_WARNING, "general.file_type", NULL, 0, off,
                         "general.file_type is %llu (%s) but no weight tensor is %s; most are %s "
                         "(llama.cpp shows the model as %s)", (unsigned long long)ft, fname,
                         gguf_dtype_name((uint32_t)want), gguf_dtype_name(most), fname);
}

/* ---- split sets ----
 * A set's view was checked when it was opened (every shard there, split.no in order, no tensor
 * twice); what is left is the count of tensors, and a shard checked alone. Returns 1 when the
 * tensors cannot be judged (one shard of a set). */

static int check_split(lc *c) {
    uint64_t off;
    const gguf_value *v = find_value(c->meta, "split.count", &off);
    uint64_t count = 0;
    if (v == NULL || gguf_value_type(v) != GGUF_VTYPE_U16 || gguf_value_get_u64(&count, v, NULL) != 0)
        return 0; /* none, or a wrong type (the container's findings say so) */
    if (count <= 1)
        return 0;
    if (find_value(c->meta, "split.no", NULL) == NULL)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, "split.no", NULL, 0, GGUF_ERROR_NO_OFFSET,
                         "split.no is absent but split.count is %llu: llama.cpp refuses the "
                         "shard", (unsigned long long)count);
    if (c->n_shards < count) {
        gguf__llama_emit(&c->rep, GGUF_LLAMA_NOTE, "split.count", NULL, 0, off,
                         "one shard of a split set of %llu checked alone: the tensors of the "
                         "others are not seen, so the tensor set was not checked",
                         (unsigned long long)count);
        return 1;
    }
    const gguf_value *tc = find_value(c->meta, "split.tensors.count", &off);
    int64_t n;
    size_t total = gguf_tensor_count(c->meta);
    if (tc == NULL)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, "split.tensors.count", NULL, 0,
                         GGUF_ERROR_NO_OFFSET,
                         "split.tensors.count is absent: llama.cpp refuses the split set");
    else if (gguf_value_type(tc) == GGUF_VTYPE_I32 && gguf_value_get_i64(&n, tc, NULL) == 0 &&
             (n < 0 || (uint64_t)n != total))
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, "split.tensors.count", NULL, 0, off,
                         "split.tensors.count is %lld but the shards hold %zu tensors: llama.cpp "
                         "refuses the set as corrupted", (long long)n, total);
    return 0;
}

/* ---- the container: what ggml's reader refuses ---- */

/* The lint's findings (a shard's name their own message's prefix). */
static void on_lint(void *user, int refused, const char *message, uint64_t offset) {
    lc *c = user;
    gguf__llama_emit(&c->rep, refused ? GGUF_LLAMA_ERROR : GGUF_LLAMA_WARNING, NULL, NULL, 0,
                     offset, "%s%s", message,
                     refused && strstr(message, "refuse") == NULL ? " (llama.cpp refuses the file)"
                                                                  : "");
}

/* ---- the whole check ---- */

static int string_key(const gguf_file *f, const char *key, const char **s, uint64_t *len) {
    const gguf_value *v = find_value(f, key, NULL);
    return v != NULL && gguf_value_get_str(s, len, v, NULL) == 0;
}

static int run(lc *c, unsigned flags) {
    const gguf_file *f = c->meta;
    if (gguf__lint(f, on_lint, c, c->err) < 0)
        return c->err ? c->err->code : GGUF_ENOMEM;
    const char *s;
    uint64_t len;
    if (string_key(f, "general.type", &s, &len) && !(len == 5 && memcmp(s, "model", 5) == 0)) {
        char q[64];
        gguf__llama_emit(&c->rep, GGUF_LLAMA_NOTE, "general.type", NULL, 0, GGUF_ERROR_NO_OFFSET,
                         "general.type is '%s', not a model: llama.cpp's model rules were not "
                         "applied", gguf__quote(q, sizeof q, s, (size_t)len));
        return 0;
    }

    /* the loader's constructor: architecture, file type, split keys */
    const gguf__llama_key *file_keys = gguf__llama_file_keys;
    add_key_syms(c, file_keys);
    check_keys(c, file_keys, NULL, 0);
    uint64_t off;
    const gguf_value *av = find_value(f, "general.architecture", &off);
    const char *arch = "";
    uint64_t alen = 0;
    if (av != NULL && gguf_value_get_str(&arch, &alen, av, NULL) != 0)
        alen = 0; /* wrong type: reported above */
    c->arch = gguf__llama_arch_find(arch, (size_t)alen);
    char qa[64];
    gguf__quote(qa, sizeof qa, arch, (size_t)alen);
    if (c->stats_arch != NULL)
        *c->stats_arch = c->arch == NULL || c->arch->refused ? GGUF_LLAMA_ARCH_UNKNOWN
                         : c->arch->tensors != NULL           ? GGUF_LLAMA_ARCH_FULL
                                                              : GGUF_LLAMA_ARCH_KEYS;
    if (av == NULL)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, "general.architecture", NULL, 0,
                         GGUF_ERROR_NO_OFFSET,
                         "general.architecture is absent: llama.cpp refuses the model (unknown "
                         "model architecture '')");
    else if (c->arch == NULL && gguf_value_type(av) == GGUF_VTYPE_STRING)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, "general.architecture", NULL, 0, off,
                         "general.architecture is '%s', an architecture llama.cpp does not know: "
                         "it refuses the model", qa);
    else if (c->arch != NULL && c->arch->refused)
        gguf__llama_emit(&c->rep, GGUF_LLAMA_ERROR, "general.architecture", NULL, 0, off,
                         "general.architecture is '%s': llama.cpp cannot load it as a model", qa);
    snprintf(c->arch_name, sizeof c->arch_name, "%s", c->arch ? c->arch->name : qa);

    /* the vocabulary, read whatever the load */
    add_key_syms(c, gguf__llama_vocab_keys);
    const gguf__llama_key *before[3] = {file_keys};
    check_keys(c, gguf__llama_vocab_keys, before, 1);
    int64_t n_tokens = -1;
    int rc = gguf__llama_check_vocab(&c->rep, f, c->arch_name, &n_tokens, c->err);
    if (rc != 0)
        return rc;
    sym_set(c, "V", n_tokens, n_tokens < 0);

    uint64_t n_tensors = gguf_tensor_count(f);
    if (!(flags & GGUF_LLAMA_CHECK_VOCAB_ONLY) && n_tensors == 0) {
        gguf__llama_emit(&c->rep, GGUF_LLAMA_WARNING, NULL, NULL, 0, GGUF_ERROR_NO_OFFSET,
                         "no tensors: checked as a vocabulary, which llama.cpp loads only with "
                         "vocab_only");
        flags |= GGUF_LLAMA_CHECK_VOCAB_ONLY;
    }
    if (c->arch == NULL || c->arch->refused)
        return 0;
    int partial = check_split(c);
    if (flags & GGUF_LLAMA_CHECK_VOCAB_ONLY)
        return 0;

    /* load_hparams: generic, then the architecture's */
    add_model_syms(c);
    check_keys(c, gguf__llama_generic_keys, before, 1);
    before[1] = gguf__llama_generic_keys;
    before[2] = gguf__llama_vocab_keys;
    check_keys(c, c->arch->keys, before, 3);
    check_rules(c, gguf__llama_generic_rules);
    check_rules(c, c->arch->rules);
    check_file_type(c);
    if (c->arch->tensors == NULL) {
        gguf__llama_emit(&c->rep, GGUF_LLAMA_NOTE, NULL, NULL, 0, GGUF_ERROR_NO_OFFSET,
                         "architecture '%s': its key types and tokenizer were checked, not its "
                         "hyperparameters' consistency or its tensors", c->arch_name);
        return 0;
    }
    return partial ? 0 : check_tensors(c);
}

int gguf_llama_check(gguf_llama_check_stats *stats, const gguf_file *f, unsigned flags,
                     gguf_llama_finding_fn fn, void *user, gguf_error *err) {
    if (f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file to check");
    gguf_llama_check_stats st = {0, 0, 0, GGUF_LLAMA_ARCH_UNKNOWN};
    lc *c = gguf__calloc(1, sizeof *c);
    if (c == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    c->rep = (gguf__llama_report){fn, user, &st};
    c->meta = f;
    c->layer = -1;
    c->n_shards = gguf_file_shard_count(f);
    c->err = err;
    c->stats_arch = &st.arch_support;
    int rc = run(c, flags);
    gguf__free(c->used);
    gguf__free(c);
    if (rc != 0)
        return rc;
    if (stats != NULL)
        *stats = st;
    return 0;
}

/* ---- the tensors a model's metadata calls for (for tests that build models) ---- */

typedef struct plan_ctx {
    lc *c;
    gguf__llama_plan_fn fn;
    void *user;
} plan_ctx;

static void plan_rows(plan_ctx *p, const gguf__llama_tensor *rows, int64_t nl, int64_t l) {
    lc *c = p->c;
    for (const gguf__llama_tensor *t = rows; t->name != NULL; t++) {
        int64_t n = (t->flags & GGUF__LT_ALL_LAYERS) ? nl : (t->flags & GGUF__LT_LAYER) ? l : 1;
        for (int64_t i = 0; i < n; i++) {
            int64_t layer = (t->flags & (GGUF__LT_LAYER | GGUF__LT_ALL_LAYERS)) ? i : -1;
            if (holds(c, t->when, layer) != 1)
                continue;
            /* a tensor created beside another only when the file has that one (the plan
             * takes the alternative without it, and with it once the file has it) */
            if (t->if_present != NULL && !present(c, t->if_present, layer))
                continue;
            if (t->if_absent != NULL && present(c, t->if_absent, layer))
                continue;
            int64_t dims[4];
            int nd = 0;
            for (; nd < 4 && t->dims[nd] != NULL; nd++) {
                if (eval(c, t->dims[nd], layer, &dims[nd]) != 0)
                    break;
            }
            if (nd < 4 && t->dims[nd] != NULL)
                continue;
            char name[NAME_MAX_LEN];
            tensor_name(name, sizeof name, t->name, layer);
            p->fn(p->user, name, dims, nd, !(t->flags & GGUF__LT_OPTIONAL));
        }
    }
}

int gguf__llama_plan(const gguf_file *f, gguf__llama_plan_fn fn, void *user, gguf_error *err) {
    const char *arch;
    uint64_t alen;
    int64_t ai = gguf_kv_find(f, "general.architecture");
    if (ai < 0 || gguf_value_get_str(&arch, &alen, gguf_kv_value(f, (size_t)ai), NULL) != 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no general.architecture");
    lc *c = gguf__calloc(1, sizeof *c);
    if (c == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    c->meta = f;
    c->layer = -1;
    c->n_shards = 1;
    c->err = err;
    c->arch = gguf__llama_arch_find(arch, (size_t)alen);
    int rc = 0;
    if (c->arch == NULL || c->arch->tensors == NULL) {
        rc = gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                        "no tensor table for this architecture");
    } else {
        snprintf(c->arch_name, sizeof c->arch_name, "%s", c->arch->name);
        int64_t n_tokens = -1;
        const gguf_value *tv = find_value(f, "tokenizer.ggml.tokens", NULL);
        if (tv != NULL && gguf_value_type(tv) == GGUF_VTYPE_ARRAY)
            n_tokens = (int64_t)gguf_value_count(tv);
        sym_set(c, "V", n_tokens, n_tokens < 0);
        add_key_syms(c, gguf__llama_file_keys);
        add_key_syms(c, gguf__llama_vocab_keys);
        add_model_syms(c);
        int64_t nl = -1, l = -1;
        if (eval(c, "NL", -1, &nl) != 0 || eval(c, "L", -1, &l) != 0 || nl < 0 || l < 0)
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no usable block_count");
        else {
            plan_ctx p = {c, fn, user};
            plan_rows(&p, c->arch->tensors, nl, l);
        }
    }
    gguf__free(c);
    return rc;
}
