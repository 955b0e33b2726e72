/* The one hash set: open addressing over indices into the caller's own array, found by their
 * key bytes (the caller says how to get the key of an index). Holding indices instead of keys
 * keeps it small and lets the caller's array stay the owner of the names. Used for key and
 * tensor names (duplicate checks, lookups), catalog paths and imatrix entries. */
#include "base/base.h"

#include <string.h>

uint64_t gguf__hash_bytes(const void *p, size_t n) {
    const uint8_t *s = p;
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void gguf__hashset_free(gguf__hashset *set) {
    gguf__free(set->slots);
    set->slots = NULL;
    set->mask = 0;
    set->n = 0;
}

/* Room for n entries at a load of at most 1/2. */
static size_t capacity_for(size_t n) {
    size_t cap = 16;
    while (cap / 2 < n && cap < SIZE_MAX / 4)
        cap *= 2;
    return cap;
}

int gguf__hashset_init(gguf__hashset *set, size_t n) {
    size_t cap = capacity_for(n);
    set->slots = gguf__calloc(cap, sizeof *set->slots);
    set->mask = cap - 1;
    set->n = 0;
    return set->slots != NULL ? 0 : GGUF_ENOMEM;
}

static int64_t probe(const gguf__hashset *set, const void *key, size_t n, uint64_t h,
                     gguf__hashset_key_fn get, const void *ctx, size_t *slot) {
    for (size_t i = (size_t)h & set->mask;; i = (i + 1) & set->mask) {
        uint32_t v = set->slots[i];
        if (v == 0) {
            *slot = i;
            return -1;
        }
        size_t len;
        const void *other = get(ctx, v - 1, &len);
        if (len == n && memcmp(other, key, n) == 0) {
            *slot = i;
            return (int64_t)(v - 1);
        }
    }
}

int64_t gguf__hashset_find(const gguf__hashset *set, const void *key, size_t n,
                           gguf__hashset_key_fn get, const void *ctx) {
    if (set->slots == NULL)
        return -1;
    size_t slot;
    return probe(set, key, n, gguf__hash_bytes(key, n), get, ctx, &slot);
}

static int grow(gguf__hashset *set, gguf__hashset_key_fn get, const void *ctx) {
    size_t cap = (set->mask + 1) * 2;
    uint32_t *slots = gguf__calloc(cap, sizeof *slots);
    if (slots == NULL)
        return GGUF_ENOMEM;
    for (size_t i = 0; i <= set->mask; i++) {
        uint32_t v = set->slots[i];
        if (v == 0)
            continue;
        size_t len;
        const void *key = get(ctx, v - 1, &len);
        size_t j = (size_t)gguf__hash_bytes(key, len) & (cap - 1);
        while (slots[j] != 0)
            j = (j + 1) & (cap - 1);
        slots[j] = v;
    }
    gguf__free(set->slots);
    set->slots = slots;
    set->mask = cap - 1;
    return 0;
}

int64_t gguf__hashset_insert(gguf__hashset *set, uint32_t index, gguf__hashset_key_fn get,
                             const void *ctx) {
    if (set->slots == NULL || index == UINT32_MAX)
        return -2;
    if ((set->n + 1) * 2 > set->mask + 1 && grow(set, get, ctx) != 0)
        return -2;
    size_t n;
    const void *key = get(ctx, index, &n);
    size_t slot;
    int64_t old = probe(set, key, n, gguf__hash_bytes(key, n), get, ctx, &slot);
    if (old >= 0)
        return old;
    set->slots[slot] = index + 1;
    set->n++;
    return -1;
}
