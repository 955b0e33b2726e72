/* --prune-layers, as llama.cpp's quantizer does it. Tensors are taken in llama.cpp's order; in
 * each name the first "blk.N." (anywhere in the name) names its layer. A layer seen for the first
 * time is pruned when it is in the list, keeps its number when it is below the first pruned
 * layer, and otherwise takes the next free number (one after the last layer kept or renumbered,
 * counting from the layers below the first pruned one). A pruned layer's tensors are left out;
 * the others' number is replaced by the new one ("blk.007." below the first pruned layer
 * becomes "blk.7."). The number of layers kept is the next free number at the end. */
#include "requant/requant.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first "blk.<digits>." in name: where the digits start and how many; false if none. */
static bool find_layer(const char *name, size_t *at, size_t *len) {
    for (const char *p = strstr(name, "blk."); p; p = strstr(p + 1, "blk.")) {
        size_t d = 0;
        while (p[4 + d] >= '0' && p[4 + d] <= '9')
            d++;
        if (d > 0 && p[4 + d] == '.') {
            *at = (size_t)(p - name) + 4;
            *len = d;
            return true;
        }
    }
    return false;
}

static int int_cmp(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* A layer's fate once decided: its new number, or -1 (pruned). */
typedef struct mapping {
    long long layer;
    long long to;
} mapping;

/* Sorted, without repeats. */
static int prune_list(int32_t **out, size_t *n, const gguf_requant_options *opt,
                      gguf_error *err) {
    int32_t *l = gguf__malloc(opt->n_prune_layers * sizeof *l);
    if (l == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (size_t k = 0; k < opt->n_prune_layers; k++) {
        l[k] = opt->prune_layers[k];
        if (l[k] < 0) {
            int32_t bad = l[k];
            gguf__free(l);
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "layer %d to prune: layers are numbered from 0", (int)bad);
        }
    }
    qsort(l, opt->n_prune_layers, sizeof *l, int_cmp);
    size_t u = 0;
    for (size_t k = 0; k < opt->n_prune_layers; k++) {
        if (u == 0 || l[k] != l[u - 1])
            l[u++] = l[k];
    }
    *out = l;
    *n = u;
    return 0;
}

/* The new name of one tensor (NULL: pruned); m[*n_map] remembers the layers seen. */
static int rename_one(char **out, const char *name, const int32_t *prune, size_t n_prune,
                      mapping *m, size_t *n_map, long long *next, gguf_error *err) {
    size_t at, len;
    if (!find_layer(name, &at, &len)) {
        *out = gguf__strdup(name);
        return *out ? 0 : gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    long long layer = 0;
    for (size_t d = 0; d < len && layer <= INT_MAX; d++)
        layer = layer * 10 + (name[at + d] - '0');
    if (layer > INT_MAX)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor '%s': its layer number is too large to prune around", name);
    size_t k = 0;
    while (k < *n_map && m[k].layer != layer)
        k++;
    if (k == *n_map) {
        int32_t key = (int32_t)layer;
        m[k].layer = layer;
        if (bsearch(&key, prune, n_prune, sizeof *prune, int_cmp) != NULL) {
            m[k].to = -1;
        } else if (layer < prune[0]) {
            m[k].to = layer;
            *next = layer + 1;
        } else {
            m[k].to = (*next)++;
        }
        (*n_map)++;
    }
    *out = NULL;
    if (m[k].to < 0)
        return 0;
    char num[24];
    int nl = snprintf(num, sizeof num, "%lld", m[k].to);
    size_t total = strlen(name) - len + (size_t)nl;
    if (total > GGUF_TENSOR_NAME_MAX)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "tensor '%s': renumbered, its name would be longer than %d bytes", name,
                          GGUF_TENSOR_NAME_MAX);
    char *s = gguf__malloc(total + 1);
    if (s == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    memcpy(s, name, at);
    memcpy(s + at, num, (size_t)nl);
    strcpy(s + at + nl, name + at + len);
    *out = s;
    return 0;
}

int gguf__requant_prune(char **out, uint32_t *n_layers, char *const *names, const size_t *order,
                        size_t n, const gguf_requant_options *opt, gguf_error *err) {
    int32_t *prune = NULL;
    size_t n_prune = 0;
    int rc = prune_list(&prune, &n_prune, opt, err);
    if (rc != 0)
        return rc;
    mapping *m = gguf__malloc((n ? n : 1) * sizeof *m);
    if (m == NULL) {
        gguf__free(prune);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    size_t n_map = 0;
    long long next = 0;
    for (size_t k = 0; rc == 0 && k < n; k++)
        rc = rename_one(&out[order[k]], names[order[k]], prune, n_prune, m, &n_map, &next, err);
    *n_layers = next > UINT32_MAX ? UINT32_MAX : (uint32_t)next;
    gguf__free(m);
    gguf__free(prune);
    return rc;
}
