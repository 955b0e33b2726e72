/* llama-imatrix's GGUF format: for each tensor NAME, NAME.in_sum2 (sums of squared activations,
 * ne0 x n_expert) and NAME.counts (tokens seen per expert), both F32; keys imatrix.datasets,
 * imatrix.chunk_count and imatrix.chunk_size. A weight is sum / count, or 1 where the count is
 * 0 (as llama-quantize computes it). The tensors' bytes are read, never reached through a
 * mapping, so a file cut short under us is an error, not a crash. */
#include "requant/requant.h"

#include <stdio.h>
#include <string.h>

static float ld_f32(const uint8_t *p, bool big) {
    uint32_t u = gguf__load32(p, big);
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* lround: to the nearest integer, halves away from zero (|x| < 2^63). */
static int64_t round_away(float x) {
    int64_t t = (int64_t)x;
    float frac = x - (float)t; /* exact: both on x's grid */
    if (frac >= 0.5f)
        t++;
    else if (frac <= -0.5f)
        t--;
    return t;
}

static bool ends_with(const char *s, size_t len, const char *suffix, size_t *stem) {
    size_t n = strlen(suffix);
    if (len < n || memcmp(s + len - n, suffix, n) != 0)
        return false;
    *stem = len - n;
    return true;
}

/* imatrix.chunk_count, and the first of imatrix.datasets. */
static int read_keys(gguf_requant_imatrix *im, const gguf_file *f, const char *path,
                     gguf_error *err) {
    int64_t kd = gguf_kv_find(f, "imatrix.datasets"), kc = gguf_kv_find(f, "imatrix.chunk_count"),
            ks = gguf_kv_find(f, "imatrix.chunk_size");
    if (gguf_tensor_count(f) == 0)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET, "%s: no importance data",
                          path);
    if (kd < 0 || kc < 0 || ks < 0)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "%s: not an imatrix file: imatrix.datasets, imatrix.chunk_count or "
                          "imatrix.chunk_size missing", path);
    uint64_t u;
    int64_t s;
    int sg;
    const gguf_value *cv = gguf_kv_value(f, (size_t)kc);
    if (gguf_value_type(cv) != GGUF_VTYPE_U32 || gguf_value_get_int(&u, &s, &sg, cv, NULL) != 0)
        return gguf__fail(err, GGUF_ETYPE, gguf_kv_source_offset(f, (size_t)kc),
                          "%s: imatrix.chunk_count is not a UINT32", path);
    im->chunk_count = (uint32_t)u;
    const gguf_value *dv = gguf_kv_value(f, (size_t)kd);
    if (gguf_value_type(dv) == GGUF_VTYPE_ARRAY && gguf_value_elem_type(dv) == GGUF_VTYPE_STRING &&
        gguf_value_count(dv) > 0) {
        gguf_value_iter it;
        gguf_value elem;
        const char *str;
        uint64_t len;
        gguf_value_iter_init(&it, dv);
        if (gguf_value_iter_next(&it, &elem) && gguf_value_get_str(&str, &len, &elem, NULL) == 0)
            return gguf__imatrix_set_dataset(im, str, (size_t)len, err);
    }
    return 0;
}

/* The weights of one entry: sums (tensor si) over counts (tensor ci). */
static int read_entry(gguf_requant_imatrix *im, const gguf_file *f, size_t si, size_t ci,
                      const char *path, gguf_error *err) {
    gguf_tensor_info a, c;
    gguf_tensor_get(&a, f, si);
    gguf_tensor_get(&c, f, ci);
    int stem = (int)(a.name_len - 8); /* without ".in_sum2" */
    if (a.type != GGUF_DTYPE_F32 || c.type != GGUF_DTYPE_F32)
        return gguf__fail(err, GGUF_ETYPE, GGUF_ERROR_NO_OFFSET,
                          "%s: sums and counts of '%.*s' must be F32", path, stem, a.name);
    size_t nval = (size_t)(a.nbytes / 4), ncounts = (size_t)(c.nbytes / 4);
    if (ncounts == 0 || nval == 0)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET, "%s: '%.*s' has no values",
                          path, stem, a.name);
    bool big = gguf_file_endian(f) == GGUF_ENDIAN_BIG;
    float *w = gguf__calloc(nval, sizeof *w);
    uint8_t *sums = gguf__malloc(nval * 4), *counts = gguf__malloc(ncounts * 4);
    int rc = 0;
    if (w == NULL || sums == NULL || counts == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0)
        rc = gguf_tensor_read(sums, f, si, 0, nval * 4, err);
    if (rc == 0)
        rc = gguf_tensor_read(counts, f, ci, 0, ncounts * 4, err);
    size_t ne0 = nval / ncounts;
    for (size_t j = 0; rc == 0 && j < ncounts; j++) {
        float cf = ld_f32(counts + 4 * j, big);
        if (!(cf > -9e18f && cf < 9e18f)) {
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "%s: '%.*s': count %zu is not a number of tokens", path, stem, a.name,
                            j);
            break;
        }
        int64_t count = round_away(cf);
        for (size_t k = 0; k < ne0; k++)
            w[j * ne0 + k] =
                count > 0 ? ld_f32(sums + 4 * (j * ne0 + k), big) / (float)count : 1.0f;
    }
    gguf__free(sums);
    gguf__free(counts);
    if (rc != 0) {
        gguf__free(w);
        return rc;
    }
    return gguf__imatrix_put(im, a.name, (size_t)stem, w, nval, err);
}

int gguf__imatrix_load_gguf(gguf_requant_imatrix *im, const char *path, gguf_error *err) {
    gguf_file *f;
    int rc = gguf_file_open(&f, path, 0, err);
    if (rc != 0)
        return rc;
    rc = read_keys(im, f, path, err);
    size_t n = gguf_tensor_count(f);
    if (rc == 0)
        rc = gguf__imatrix_reserve(im, n / 2, err); /* sums and counts per entry */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        gguf_tensor_info a;
        gguf_tensor_get(&a, f, i);
        size_t stem;
        if (!ends_with(a.name, a.name_len, ".in_sum2", &stem) || stem == 0)
            continue;
        char cname[160];
        int64_t ci = -1;
        if (stem + 8 < sizeof cname) {
            snprintf(cname, sizeof cname, "%.*s.counts", (int)stem, a.name);
            ci = gguf_tensor_find(f, cname);
        }
        if (ci < 0)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "%s: '%.*s' has sums but no counts", path, (int)stem, a.name);
        else
            rc = read_entry(im, f, i, (size_t)ci, path, err);
    }
    /* counts without sums */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        gguf_tensor_info c;
        gguf_tensor_get(&c, f, i);
        size_t stem;
        if (!ends_with(c.name, c.name_len, ".counts", &stem) || stem == 0)
            continue;
        char sname[160];
        if (stem + 9 >= sizeof sname)
            continue;
        snprintf(sname, sizeof sname, "%.*s.in_sum2", (int)stem, c.name);
        if (gguf_tensor_find(f, sname) < 0)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "%s: '%.*s' has counts but no sums", path, (int)stem, c.name);
    }
    gguf_file_free(f);
    return rc;
}
