/* An importance matrix (llama-imatrix's output) in memory: its entries, each a tensor name and
 * the per-column weights llama-quantize computes from the file, in the file's order, found by
 * name through the hash set (files of big models hold 100k+ entries: each put and lookup costs
 * about one name comparison, not one per entry). */
#include "requant/requant.h"

#include <string.h>

#ifdef GGUF_ALLOC_FAULTS
/* The testing build counts how many times an entry's name is compared with another name, so
 * that a test can tell a lookup that scans (n per entry) from a hashed one (about 1). */
static long name_compares;
GGUF_API long gguf_testing_imatrix_name_compares(void);
long gguf_testing_imatrix_name_compares(void) {
    return name_compares;
}
#define COUNT_COMPARE() (name_compares++)
#else
#define COUNT_COMPARE() ((void)0)
#endif

/* The key of entry i in the hash set: its name. */
static const void *entry_name(const void *im, size_t i, size_t *n) {
    const gguf__imatrix_entry *e = &((const gguf_requant_imatrix *)im)->e[i];
    COUNT_COMPARE();
    *n = e->name_len;
    return e->name;
}

int gguf__imatrix_new(gguf_requant_imatrix **out, const char *path, gguf_error *err) {
    gguf_requant_imatrix *im = gguf__calloc(1, sizeof *im);
    if (im == NULL || (im->path = gguf__strdup(path)) == NULL ||
        gguf__hashset_init(&im->by_name, 64) != 0) {
        gguf_requant_imatrix_free(im);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    *out = im;
    return 0;
}

void gguf_requant_imatrix_free(gguf_requant_imatrix *im) {
    if (im == NULL)
        return;
    for (size_t i = 0; i < im->n; i++) {
        gguf__free(im->e[i].name);
        gguf__free(im->e[i].w);
    }
    gguf__free(im->e);
    gguf__hashset_free(&im->by_name);
    gguf__free(im->path);
    gguf__free(im->dataset);
    gguf__free(im);
}

const gguf__imatrix_entry *gguf__imatrix_lookup(const gguf_requant_imatrix *im,
                                                const char *name) {
    if (im == NULL || im->n == 0)
        return NULL;
    int64_t i = gguf__hashset_find(&im->by_name, name, strlen(name), entry_name, im);
    return i >= 0 ? &im->e[i] : NULL;
}

int gguf__imatrix_reserve(gguf_requant_imatrix *im, size_t n, gguf_error *err) {
    if (im->n > 0 || n <= im->cap || n >= UINT32_MAX)
        return 0;
    gguf__imatrix_entry *e = gguf__realloc(im->e, n * sizeof *e);
    if (e == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    im->e = e;
    im->cap = n;
    gguf__hashset set;
    if (gguf__hashset_init(&set, n) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    gguf__hashset_free(&im->by_name);
    im->by_name = set;
    return 0;
}

int gguf__imatrix_put(gguf_requant_imatrix *im, const char *name, size_t name_len, float *w,
                      size_t n, gguf_error *err) {
    int64_t seen = gguf__hashset_find(&im->by_name, name, name_len, entry_name, im);
    if (seen >= 0) {
        gguf__free(im->e[seen].w);
        im->e[seen].w = w;
        im->e[seen].n = n;
        return 0;
    }
    if (im->n >= UINT32_MAX - 1) {
        gguf__free(w);
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "%s: too many imatrix entries",
                          im->path);
    }
    if (im->n == im->cap) {
        size_t cap = im->cap ? im->cap * 2 : 64;
        gguf__imatrix_entry *grown = gguf__realloc(im->e, cap * sizeof *grown);
        if (grown == NULL) {
            gguf__free(w);
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        }
        im->e = grown;
        im->cap = cap;
    }
    char *copy = gguf__strndup(name, name_len);
    if (copy == NULL) {
        gguf__free(w);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    im->e[im->n] = (gguf__imatrix_entry){copy, name_len, w, n};
    if (gguf__hashset_insert(&im->by_name, (uint32_t)im->n, entry_name, im) == -2) {
        gguf__free(copy);
        gguf__free(w);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    im->n++;
    return 0;
}

int gguf__imatrix_set_dataset(gguf_requant_imatrix *im, const char *s, size_t len,
                              gguf_error *err) {
    gguf__free(im->dataset);
    im->dataset = gguf__strndup(s, len);
    return im->dataset ? 0 : gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
}

static bool names_any(const char *name, const char *const *names, size_t n) {
    for (size_t k = 0; k < n; k++) {
        if (names[k] != NULL && strstr(name, names[k]) != NULL)
            return true;
    }
    return false;
}

int gguf_requant_imatrix_filter(gguf_requant_imatrix *im, const char *const *names, size_t n,
                                int exclude, gguf_error *err) {
    if (im == NULL || (names == NULL && n > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no imatrix to filter");
    gguf__hashset set;
    if (gguf__hashset_init(&set, im->n) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    size_t kept = 0;
    for (size_t i = 0; i < im->n; i++) {
        gguf__imatrix_entry *e = &im->e[i];
        if (names_any(e->name, names, n) == (exclude != 0)) {
            gguf__free(e->name);
            gguf__free(e->w);
            continue;
        }
        im->e[kept] = *e;
        /* cannot fail: the set has room for every entry */
        gguf__hashset_insert(&set, (uint32_t)kept, entry_name, im);
        kept++;
    }
    im->n = kept;
    gguf__hashset_free(&im->by_name);
    im->by_name = set;
    return 0;
}

size_t gguf_requant_imatrix_count(const gguf_requant_imatrix *im) {
    return im ? im->n : 0;
}

const float *gguf_requant_imatrix_find(const gguf_requant_imatrix *im, const char *name,
                                       size_t *n) {
    const gguf__imatrix_entry *e = im && name ? gguf__imatrix_lookup(im, name) : NULL;
    if (n)
        *n = e ? e->n : 0;
    return e ? e->w : NULL;
}
