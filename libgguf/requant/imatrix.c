/* An importance matrix (llama-imatrix's output) in memory: its entries, each a tensor name and
 * the per-column weights llama-quantize computes from the file, found by name. */
#include "requant/requant.h"

#include <stdlib.h>
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

int gguf__imatrix_new(gguf_requant_imatrix **out, const char *path, gguf_error *err) {
    gguf_requant_imatrix *im = gguf__calloc(1, sizeof *im);
    if (im == NULL || (im->path = gguf__strdup(path)) == NULL) {
        gguf__free(im);
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
    gguf__free(im->path);
    gguf__free(im->dataset);
    gguf__free(im);
}

static int entry_cmp(const void *a, const void *b) {
    COUNT_COMPARE();
    return strcmp(((const gguf__imatrix_entry *)a)->name, ((const gguf__imatrix_entry *)b)->name);
}

void gguf__imatrix_finish(gguf_requant_imatrix *im) {
    qsort(im->e, im->n, sizeof *im->e, entry_cmp);
}

const gguf__imatrix_entry *gguf__imatrix_lookup(const gguf_requant_imatrix *im,
                                                const char *name) {
    if (im == NULL || im->n == 0)
        return NULL;
    gguf__imatrix_entry key = {.name = (char *)name};
    return bsearch(&key, im->e, im->n, sizeof *im->e, entry_cmp);
}

int gguf__imatrix_put(gguf_requant_imatrix *im, const char *name, size_t name_len, float *w,
                      size_t n, gguf_error *err) {
    for (size_t i = 0; i < im->n; i++) {
        COUNT_COMPARE();
        if (strlen(im->e[i].name) == name_len && memcmp(im->e[i].name, name, name_len) == 0) {
            gguf__free(im->e[i].w);
            im->e[i].w = w;
            im->e[i].n = n;
            return 0;
        }
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
    im->e[im->n++] = (gguf__imatrix_entry){copy, w, n};
    return 0;
}

int gguf__imatrix_set_dataset(gguf_requant_imatrix *im, const char *s, size_t len,
                              gguf_error *err) {
    gguf__free(im->dataset);
    im->dataset = gguf__strndup(s, len);
    return im->dataset ? 0 : gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
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
