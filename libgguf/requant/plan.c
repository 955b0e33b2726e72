/* The plan: each tensor's type in the output, as llama_tensor_get_type chooses it, without
 * changing anything.
 *
 *   1. Which tensors may change type at all (category.c).
 *   2. Explicit choices first: --token-embedding-type, --output-tensor-type.
 *   3. A preset whose default type is not quantized (F32, F16, BF16) gives that type as is.
 *   4. Else a --tensor-type pattern that matches the name decides; else, unless --pure, the
 *      mixture (rules.c).
 *   5. Finally the fallback of a type whose block does not divide the row length.
 *
 * Tensors are considered in llama.cpp's order: by layer number ("blk.N."), tensors without one
 * first, then by name; the counters of the mixture advance in that order. With layers to
 * prune, their tensors are left out and the rules see the others under their new names
 * (prune.c). Then what the data needs is checked: an importance matrix where a type needs one,
 * of the right size, kernels that can read and write the types, and (unless allowed) no source
 * that is quantized already. */
#include "requant/requant.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct plan_ctx {
    const gguf_file *f;
    const gguf_requant_options *opt;
    gguf__requant_policy pol;
    regex_t *re;     /* compiled override patterns */
    size_t n_re;
    char **names;    /* NUL-terminated copies of the tensor names */
    char **renamed;  /* with pruned layers: the names in the output (NULL: pruned); else NULL */
    size_t *order;   /* llama.cpp's order */
    uint32_t n_layers_kept;
} plan_ctx;

/* Tensor i's name in the output, which the rules see (NULL: pruned). */
static const char *out_name(const plan_ctx *p, size_t i) {
    return p->renamed ? p->renamed[i] : p->names[i];
}

/* A tensor's place in llama.cpp's order: by layer (-1 without "blk.N."), then by name (byte
 * order, as std::string compares), then (duplicate names in lenient files) by index. */
typedef struct order_key {
    int layer;
    const char *name;
    size_t index;
} order_key;

static int order_cmp(const void *a, const void *b) {
    const order_key *x = a, *y = b;
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c != 0)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void plan_ctx_free(plan_ctx *p) {
    for (size_t i = 0; i < p->n_re; i++)
        regfree(&p->re[i]);
    gguf__free(p->re);
    for (size_t i = 0; i < gguf_tensor_count(p->f); i++) {
        if (p->names)
            gguf__free(p->names[i]);
        if (p->renamed)
            gguf__free(p->renamed[i]);
    }
    gguf__free(p->names);
    gguf__free(p->renamed);
    gguf__free(p->order);
}

static bool valid_dtype(int t) {
    return t >= 0 && t < GGUF_DTYPE_COUNT && gguf_dtype_name((uint32_t)t) != NULL;
}

static int compile_overrides(plan_ctx *p, gguf_error *err) {
    const gguf_requant_options *opt = p->opt;
    for (size_t i = 0; i < opt->n_overrides; i++) {
        const gguf_requant_override *o = &opt->overrides[i];
        if (o->pattern == NULL || !valid_dtype((int)o->type))
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor type override %zu: no pattern or unknown type", i);
        int rc = regcomp(&p->re[i], o->pattern, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[128];
            regerror(rc, &p->re[i], msg, sizeof msg);
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor type pattern '%s': %s", o->pattern, msg);
        }
        p->n_re = i + 1;
    }
    return 0;
}

/* Names, llama.cpp's order (of the source's names), the output's names, categories counted
 * (of the tensors kept, by their output names, as llama.cpp counts them after pruning). */
static int read_tensors(plan_ctx *p, gguf_error *err) {
    size_t n = gguf_tensor_count(p->f);
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, p->f, i);
        p->names[i] = gguf__strndup(ti.name, ti.name_len);
        if (p->names[i] == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    order_key *keys = gguf__malloc((n ? n : 1) * sizeof *keys);
    if (keys == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int layer = -1;
        gguf__requant_blk_number(p->names[i], &layer);
        keys[i] = (order_key){layer, p->names[i], i};
    }
    qsort(keys, n, sizeof *keys, order_cmp);
    for (size_t k = 0; k < n; k++)
        p->order[k] = keys[k].index;
    gguf__free(keys);
    if (p->opt->n_prune_layers > 0) {
        p->renamed = gguf__calloc(n ? n : 1, sizeof *p->renamed);
        if (p->renamed == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        int rc = gguf__requant_prune(p->renamed, &p->n_layers_kept, p->names, p->order, n,
                                     p->opt, err);
        if (rc != 0)
            return rc;
    }
    p->pol.tied = true;
    for (size_t i = 0; i < n; i++) {
        if (out_name(p, i) == NULL)
            continue;
        enum gguf__requant_cat c = gguf__requant_category(out_name(p, i));
        if ((GGUF__CATS_ATTN_V_LIKE >> c) & 1)
            p->pol.n_wv++;
        if (c == GGUF__CAT_OUTPUT)
            p->pol.tied = false;
    }
    return 0;
}

static int plan_init(plan_ctx *p, const gguf_file *f, const gguf_requant_options *opt,
                     gguf_error *err) {
    memset(p, 0, sizeof *p);
    p->f = f;
    p->opt = opt;
    p->pol.opt = opt;
    if (!gguf__requant_preset_valid(opt->ftype))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "unknown file type %u",
                          opt->ftype);
    if ((opt->output_type >= 0 && !valid_dtype(opt->output_type)) ||
        (opt->token_embd_type >= 0 && !valid_dtype(opt->token_embd_type)))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "unknown output or token embedding type");
    p->pol.def = gguf__requant_preset_dtype(opt->ftype);
    p->pol.has_imatrix = opt->imatrix != NULL && opt->imatrix->n > 0;
    gguf__requant_read_model(&p->pol.m, f, opt);
    size_t n = gguf_tensor_count(f);
    p->names = gguf__calloc(n ? n : 1, sizeof *p->names);
    p->order = gguf__malloc((n ? n : 1) * sizeof *p->order);
    if (opt->n_overrides)
        p->re = gguf__calloc(opt->n_overrides, sizeof *p->re);
    if (p->names == NULL || p->order == NULL || (opt->n_overrides && p->re == NULL))
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = compile_overrides(p, err);
    return rc != 0 ? rc : read_tensors(p, err);
}

static bool matches(const plan_ctx *p, size_t k, const char *name) {
    return regexec(&p->re[k], name, 0, NULL, 0) == 0;
}

/* The type of tensor i (llama_tensor_get_type). */
static int choose(gguf_requant_choice *ch, plan_ctx *p, size_t i, gguf_error *err) {
    const gguf_requant_options *opt = p->opt;
    const char *name = out_name(p, i);
    gguf_tensor_info ti;
    gguf_tensor_get(&ti, p->f, i);
    memset(ch, 0, sizeof *ch);
    ch->type = ti.type;
    snprintf(ch->name, sizeof ch->name, "%s", name ? name : p->names[i]);
    ch->pruned = name == NULL;
    if (ch->pruned)
        return 0;
    ch->allowed = gguf__requant_allowed(name, &ti, opt);
    if (!ch->allowed)
        return 0;
    enum gguf__requant_cat c = gguf__requant_category(name);
    if (opt->token_embd_type >= 0 && c == GGUF__CAT_TOKEN_EMBD) {
        /* per_layer_token_embd follows it too, unless a pattern names it */
        bool named = false;
        for (size_t k = 0; strcmp(name, "per_layer_token_embd.weight") == 0 && k < p->n_re; k++)
            named = named || matches(p, k, name);
        if (!named) {
            ch->type = (uint32_t)opt->token_embd_type;
            return 0;
        }
    }
    if (opt->output_type >= 0 && c == GGUF__CAT_OUTPUT) {
        ch->type = (uint32_t)opt->output_type;
        return 0;
    }
    ch->type = p->pol.def;
    if (gguf_dtype_block_elems(p->pol.def) <= 1) /* not quantized */
        return 0;
    bool manual = false;
    for (size_t k = 0; k < p->n_re && !manual; k++) {
        if (matches(p, k, name)) {
            ch->type = opt->overrides[k].type;
            ch->override = (int)k + 1;
            manual = true;
        }
    }
    if (!manual && !opt->pure) {
        gguf__requant_tensor s = {.name = name, .ti = &ti, .cat = c, .cur = p->pol.def};
        int rc = gguf__requant_mixture(&p->pol, &s, err);
        if (rc != 0)
            return rc;
        ch->type = s.cur;
    }
    bool fell = false;
    int rc = gguf__requant_fallback(&ch->type, name, ti.dims[0], &fell, err);
    ch->fallback = fell;
    return rc;
}

/* A type that needs an importance matrix without one: llama.cpp checks every tensor for this
 * before it starts. */
static int check_imatrix_given(const gguf_requant_choice *c, const plan_ctx *p, size_t i,
                               gguf_error *err) {
    const char *name = out_name(p, i);
    if (name == NULL || p->pol.has_imatrix || !c->allowed ||
        !gguf__requant_needs_imatrix(name, c->type, p->opt->ftype))
        return 0;
    return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                      "tensor '%s': type %s needs an importance matrix (--imatrix)", name,
                      gguf_dtype_name(c->type));
}

/* What the data of a tensor that changes type needs: kernels that read and write its types,
 * an importance matrix of the right size where its type needs one (found by the source's name,
 * as llama.cpp maps renumbered layers back), and a source that is not quantized already unless
 * requantizing is allowed. */
static int check_data(gguf_requant_choice *c, const plan_ctx *p, size_t i, gguf_error *err) {
    const gguf_requant_options *opt = p->opt;
    gguf_tensor_info ti;
    gguf_tensor_get(&ti, p->f, i);
    const char *name = out_name(p, i);
    c->convert = name != NULL && c->type != ti.type;
    if (!c->convert)
        return 0;
    bool need = c->allowed && gguf__requant_needs_imatrix(name, c->type, opt->ftype);
    if (ti.nbytes == GGUF_NBYTES_UNKNOWN || !gguf_quant_can_dequantize(ti.type)) {
        char tb[16];
        snprintf(tb, sizeof tb, "%u", ti.type);
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "tensor '%s': cannot read values of type %s", name,
                          gguf_dtype_name(ti.type) ? gguf_dtype_name(ti.type) : tb);
    }
    if (!gguf_quant_can_quantize(c->type))
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "tensor '%s': this build cannot quantize to %s", name,
                          gguf_dtype_name(c->type));
    if (p->pol.has_imatrix) {
        const gguf__imatrix_entry *e = gguf__imatrix_lookup(opt->imatrix, p->names[i]);
        uint64_t want = ti.dims[0] * ti.dims[2];
        if (e && e->n == want && ti.dims[3] == 1)
            c->imatrix = 1;
        else if (e && gguf__requant_category(name) != GGUF__CAT_TOKEN_EMBD)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': the importance matrix has %zu values, the tensor "
                              "needs %llu", name, e->n, (unsigned long long)want);
        if (!c->imatrix && need)
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "tensor '%s': no importance matrix for it, and %s needs one", name,
                              gguf_dtype_name(c->type));
    }
    if (gguf_quant_needs_imatrix(c->type) && !c->imatrix)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor '%s': %s needs an importance matrix", name,
                          gguf_dtype_name(c->type));
    if (!opt->allow_requantize && gguf_dtype_block_elems(ti.type) > 1)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor '%s' is quantized already (%s): requantizing from %s is "
                          "disabled without --allow-requantize (it loses more quality than "
                          "quantizing from F32, F16 or BF16)", name, gguf_dtype_name(ti.type),
                          gguf_dtype_name(ti.type));
    return 0;
}

int gguf__requant_plan(gguf_requant_choice *out, gguf__requant_plan_info *info,
                       const gguf_file *f, const gguf_requant_options *opt, gguf_error *err) {
    if (out == NULL || f == NULL || opt == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to plan");
    plan_ctx p;
    int rc = plan_init(&p, f, opt, err);
    size_t n = gguf_tensor_count(f);
    gguf_requant_choice *ch = rc == 0 ? gguf__calloc(n ? n : 1, sizeof *ch) : NULL;
    if (rc == 0 && ch == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    size_t kept = 0, pruned = 0;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        size_t i = p.order[k];
        rc = choose(&ch[i], &p, i, err);
        kept += !ch[i].pruned;
    }
    /* positions: the tensors kept in llama.cpp's order, then the pruned ones */
    for (size_t k = 0, at = 0; rc == 0 && k < n; k++) {
        gguf_requant_choice *c = &ch[p.order[k]];
        c->position = c->pruned ? kept + pruned++ : at++;
    }
    for (size_t k = 0; rc == 0 && k < n; k++)
        rc = check_imatrix_given(&ch[p.order[k]], &p, p.order[k], err);
    for (size_t k = 0; rc == 0 && k < n; k++)
        rc = check_data(&ch[p.order[k]], &p, p.order[k], err);
    if (rc == 0)
        memcpy(out, ch, n * sizeof *ch);
    if (rc == 0 && info != NULL) {
        memcpy(info->arch, p.pol.m.arch, sizeof info->arch);
        info->n_layers_kept = p.n_layers_kept;
    }
    gguf__free(ch);
    plan_ctx_free(&p);
    return rc;
}

int gguf_requant_plan(gguf_requant_choice *out, const gguf_file *f,
                      const gguf_requant_options *opt, gguf_error *err) {
    gguf_requant_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_requant_options, GGUF_REQUANT_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    return gguf__requant_plan(out, NULL, f, opt != NULL ? &o : NULL, err);
}
