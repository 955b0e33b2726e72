/* What llama.cpp refuses in files this library accepts: reported as warnings by `verify`. */
#include "format/format.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GGML_MAX_STRING ((uint64_t)1 << 30)
#define GGML_MAX_ARRAY ((uint64_t)1 << 30)

typedef struct lint {
    gguf__lint_fn report;
    void *user;
    int count;
    const char *prefix; /* put before each message (a shard of a split set), or NULL */
} lint;

/* `refused`: ggml's reader (and so llama.cpp) refuses the file for it; else only the spec is
 * broken, or it is only a sign of a mix-up. */
static void warn(lint *l, int refused, uint64_t offset, const char *fmt, ...) GGUF_PRINTF(4, 5);
static void warn(lint *l, int refused, uint64_t offset, const char *fmt, ...) {
    char msg[GGUF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = l->prefix != NULL ? snprintf(msg, sizeof msg, "%s", l->prefix) : 0;
    if (n < 0 || (size_t)n >= sizeof msg)
        n = 0;
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    l->count++;
    if (l->report != NULL)
        l->report(l->user, refused, msg, offset);
}

typedef struct value_findings {
    uint64_t bad_bools;
    uint8_t first_bad_bool;
    bool nested;
    bool long_string;
    bool long_array;
} value_findings;

static void scan_value(value_findings *vf, const gguf_value *v) {
    if (v->type == GGUF_VTYPE_BOOL) {
        if (v->raw[0] > 1 && vf->bad_bools++ == 0)
            vf->first_bad_bool = v->raw[0];
        return;
    }
    if (v->type == GGUF_VTYPE_STRING) {
        if (v->raw_len - (v->wide ? 8 : 4) > GGML_MAX_STRING)
            vf->long_string = true;
        return;
    }
    if (v->type != GGUF_VTYPE_ARRAY)
        return;
    uint32_t elem = gguf_value_elem_type(v);
    if (gguf_value_count(v) > GGML_MAX_ARRAY)
        vf->long_array = true;
    if (elem != GGUF_VTYPE_BOOL && elem != GGUF_VTYPE_STRING && elem != GGUF_VTYPE_ARRAY)
        return;
    if (elem == GGUF_VTYPE_ARRAY)
        vf->nested = true;
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    while (gguf_value_iter_next(&it, &e))
        scan_value(vf, &e);
}

static bool is_ascii(const char *s, uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] >= 0x80)
            return false;
    }
    return true;
}

static void lint_kv(lint *l, const gguf_file *f) {
    char q[96];
    for (size_t i = 0; i < f->n_kv; i++) {
        const gguf__kv *kv = &f->kv[i];
        const char *qk = gguf__quote(q, sizeof q, kv->key, (size_t)kv->key_len);
        if (kv->key_len > 65535)
            warn(l, 0, kv->src_offset, "key '%s': %llu bytes long (the spec allows 65535)", qk,
                 (unsigned long long)kv->key_len);
        if (!is_ascii(kv->key, kv->key_len))
            warn(l, 0, kv->src_offset, "key '%s': not ASCII (the spec asks for ASCII keys)", qk);
        value_findings vf = {0};
        scan_value(&vf, &kv->value);
        if (vf.bad_bools > 0)
            warn(l, 0, kv->src_offset, "key '%s': %llu bool byte(s) other than 0 or 1 (first: %u)", qk,
                 (unsigned long long)vf.bad_bools, vf.first_bad_bool);
        if (vf.nested)
            warn(l, 1, kv->src_offset, "key '%s': nested arrays (ggml refuses them)", qk);
        if (vf.long_string)
            warn(l, 1, kv->src_offset, "key '%s': a string longer than 1 GiB (ggml refuses it)", qk);
        if (vf.long_array)
            warn(l, 1, kv->src_offset, "key '%s': an array of more than 2^30 elements (ggml refuses it)", qk);
    }
}

static void lint_tensors(lint *l, const gguf_file *f) {
    char q[96];
    uint64_t expect = 0;
    bool packed = !f->must_pack; /* a file to be written packed needs no layout check */
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        const char *qn = gguf__quote(q, sizeof q, t->name, (size_t)t->name_len);
        if (t->name_len >= GGUF_TENSOR_NAME_MAX)
            warn(l, 1, t->info_offset, "tensor '%s': name of %llu bytes (ggml wants fewer than %d)",
                 qn, (unsigned long long)t->name_len, GGUF_TENSOR_NAME_MAX);
        if (packed && t->offset != expect) {
            warn(l, 1, t->info_offset,
                 "tensor '%s': offset %llu where ggml expects %llu (tensor data must be packed in "
                 "tensor-info order)", qn, (unsigned long long)t->offset,
                 (unsigned long long)expect);
            packed = false;
        }
        if (t->nbytes == GGUF_NBYTES_UNKNOWN) {
            warn(l, 1, t->info_offset, "tensor '%s': unknown tensor type id %u", qn, t->type);
            packed = false;
            continue;
        }
        uint64_t padded;
        if (!gguf__align_up(&padded, t->nbytes, f->alignment) ||
            !gguf__add_u64(&expect, expect, padded))
            packed = false;
    }
}

/* Duplicates (a file opened leniently may have them; ggml refuses them): names sorted, then
 * neighbours compared. */
typedef struct named {
    const char *s;
    uint64_t len;
    uint64_t offset;
} named;

static int cmp_named(const void *a, const void *b) {
    const named *x = a, *y = b;
    uint64_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, (size_t)n);
    if (c != 0)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void lint_duplicates(lint *l, named *v, size_t n, const char *what) {
    if (n < 2)
        return;
    qsort(v, n, sizeof *v, cmp_named);
    char q[96];
    for (size_t i = 1; i < n; i++) {
        if (v[i].len == v[i - 1].len && memcmp(v[i].s, v[i - 1].s, (size_t)v[i].len) == 0)
            warn(l, 1, v[i].offset, "%s '%s' appears more than once (ggml refuses duplicates)", what,
                 gguf__quote(q, sizeof q, v[i].s, (size_t)v[i].len));
    }
}

static int lint_names(lint *l, const gguf_file *f, gguf_error *err) {
    size_t n = f->n_kv > f->n_tensors ? f->n_kv : f->n_tensors;
    named *v = gguf__malloc((n ? n : 1) * sizeof *v);
    if (v == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < f->n_kv; i++)
        v[i] = (named){f->kv[i].key, f->kv[i].key_len, f->kv[i].src_offset};
    lint_duplicates(l, v, f->n_kv, "key");
    for (size_t i = 0; i < f->n_tensors; i++)
        v[i] = (named){f->tensors[i].name, f->tensors[i].name_len, f->tensors[i].info_offset};
    lint_duplicates(l, v, f->n_tensors, "tensor");
    gguf__free(v);
    return 0;
}

/* llama.cpp reads split.no and split.count as UINT16 and split.tensors.count as INT32, and
 * aborts on another type. */
static void lint_split_keys(lint *l, const gguf_file *f) {
    static const struct {
        const char *key;
        uint32_t type;
    } keys[] = {{"split.no", GGUF_VTYPE_U16}, {"split.count", GGUF_VTYPE_U16},
                {"split.tensors.count", GGUF_VTYPE_I32}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int64_t i = gguf_kv_find(f, keys[k].key);
        if (i >= 0 && f->kv[i].value.type != keys[k].type)
            warn(l, 1, f->kv[i].src_offset, "key '%s' is %s; llama.cpp wants %s", keys[k].key,
                 gguf_vtype_name(f->kv[i].value.type) ? gguf_vtype_name(f->kv[i].value.type)
                                                      : "of an unknown type",
                 gguf_vtype_name(keys[k].type));
    }
}

/* A split set: each shard's own layout and split keys, and files beside the set named like
 * shards of another split of it (the loader takes the names from split.count, so they are not
 * read, but they are a sign of a mix-up). */
static void lint_shards(lint *l, const gguf_file *f) {
    char prefix[160];
    for (size_t k = 0; k < f->n_shards; k++) {
        const gguf_file *s = f->shards[k];
        const char *name = strrchr(s->src->name, '/');
        snprintf(prefix, sizeof prefix, "shard %zu/%zu (%s): ", k + 1, f->n_shards,
                 name != NULL ? name + 1 : s->src->name);
        l->prefix = prefix;
        lint_tensors(l, s);
        if (k > 0)
            lint_split_keys(l, s);
    }
    l->prefix = NULL;
    for (size_t i = 0; i < f->n_strays; i++)
        warn(l, 0, GGUF_ERROR_NO_OFFSET,
             "%s lies beside the set and is named like a shard of another split of it",
             f->strays[i]);
}

int gguf__lint(const gguf_file *f, gguf__lint_fn report, void *user, gguf_error *err) {
    if (f == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file");
    lint l = {report, user, 0, NULL};
    if (f->version == 1)
        warn(&l, 1, 4, "GGUF v1 file (ggml no longer reads v1; convert it to v3)");
    if (f->big && !gguf__host_is_big())
        warn(&l, 1, 4, "big-endian file on a little-endian host (llama.cpp here will refuse it)");
    if (!f->big && gguf__host_is_big())
        warn(&l, 1, 4, "little-endian file on a big-endian host (llama.cpp here will refuse it)");
    if ((f->alignment & (f->alignment - 1)) != 0) {
        int64_t i = gguf_kv_find(f, "general.alignment");
        warn(&l, 1, i >= 0 ? f->kv[i].src_offset : GGUF_ERROR_NO_OFFSET,
             "alignment %u is not a power of two (ggml refuses it)", f->alignment);
    }
    lint_kv(&l, f);
    lint_split_keys(&l, f);
    if (f->n_shards > 0)
        lint_shards(&l, f);
    else
        lint_tensors(&l, f);
    int rc = lint_names(&l, f, err);
    return rc != 0 ? rc : l.count;
}

/* gguf_file_lint reports every finding alike. */
typedef struct plain_lint {
    gguf_warn_fn report;
    void *user;
} plain_lint;

static void plain_report(void *user, int refused, const char *message, uint64_t offset) {
    (void)refused;
    plain_lint *p = user;
    if (p->report != NULL)
        p->report(p->user, message, offset);
}

int gguf_file_lint(const gguf_file *f, gguf_warn_fn report, void *user, gguf_error *err) {
    plain_lint p = {report, user};
    return gguf__lint(f, plain_report, &p, err);
}
