/* A tiny GGUF byte builder for the Check programs: tests assemble the exact bytes they parse,
 * in either byte order and any version, without going through the library's writer (so a bug
 * shared by our reader and writer cannot hide). Header-only: every function is static inline.
 *
 *   gb b;
 *   gb_begin(&b, 3, 0, 1, 2);             // v3, little-endian, 1 tensor, 2 keys
 *   gb_kv(&b, "general.alignment", GGUF_VTYPE_U32); gb_u32(&b, 32);
 *   gb_kv(&b, "x", GGUF_VTYPE_STRING);    gb_str(&b, "hi");
 *   gb_tensor(&b, "t", 1, (uint64_t[]){4}, GGUF_DTYPE_F32, 0);
 *   gb_align(&b, 32);                     // data section
 *   gb_fill(&b, 0xAB, 16);
 *   ... b.p, b.len ...
 *   gb_free(&b);
 *
 * Allocation failure aborts the test (it is the test's own memory, not the library's). */
#ifndef GGUF_TEST_BUILDER_H
#define GGUF_TEST_BUILDER_H

#include <libgguf/gguf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gb {
    uint8_t *p;
    size_t len;
    size_t cap;
    int big;  /* multi-byte numbers big-endian */
    int wide; /* lengths and counts u64 (v2+), else u32 (v1) */
    size_t count_at; /* where the tensor count starts (for gb_set_counts) */
} gb;

static inline void gb_reserve(gb *b, size_t n) {
    if (b->cap - b->len >= n)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (p == NULL) {
        fprintf(stderr, "gguf_builder: out of memory\n");
        abort();
    }
    b->p = p;
    b->cap = cap;
}

static inline void gb_raw(gb *b, const void *p, size_t n) {
    gb_reserve(b, n);
    if (n > 0)
        memcpy(b->p + b->len, p, n);
    b->len += n;
}

static inline void gb_fill(gb *b, uint8_t byte, size_t n) {
    gb_reserve(b, n);
    memset(b->p + b->len, byte, n);
    b->len += n;
}

/* Stores the low `size` bytes of v in the builder's byte order at p. */
static inline void gb_store(const gb *b, uint8_t *p, uint64_t v, size_t size) {
    for (size_t i = 0; i < size; i++) {
        size_t at = b->big ? size - 1 - i : i;
        p[at] = (uint8_t)(v >> (8 * i));
    }
}

static inline void gb_num(gb *b, uint64_t v, size_t size) {
    gb_reserve(b, size);
    gb_store(b, b->p + b->len, v, size);
    b->len += size;
}

static inline void gb_u8(gb *b, uint8_t v) { gb_num(b, v, 1); }
static inline void gb_i8(gb *b, int8_t v) { gb_num(b, (uint8_t)v, 1); }
static inline void gb_u16(gb *b, uint16_t v) { gb_num(b, v, 2); }
static inline void gb_i16(gb *b, int16_t v) { gb_num(b, (uint16_t)v, 2); }
static inline void gb_u32(gb *b, uint32_t v) { gb_num(b, v, 4); }
static inline void gb_i32(gb *b, int32_t v) { gb_num(b, (uint32_t)v, 4); }
static inline void gb_u64(gb *b, uint64_t v) { gb_num(b, v, 8); }
static inline void gb_i64(gb *b, int64_t v) { gb_num(b, (uint64_t)v, 8); }
static inline void gb_f32(gb *b, float v) {
    uint32_t bits;
    memcpy(&bits, &v, 4);
    gb_num(b, bits, 4);
}
static inline void gb_f64(gb *b, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    gb_num(b, bits, 8);
}
/* A length or count: u64 in v2+, u32 in v1. */
static inline void gb_len(gb *b, uint64_t v) { gb_num(b, v, b->wide ? 8 : 4); }

/* A string: length, then the bytes (may contain NUL). */
static inline void gb_strn(gb *b, const char *s, size_t n) {
    gb_len(b, n);
    gb_raw(b, s, n);
}
static inline void gb_str(gb *b, const char *s) { gb_strn(b, s, strlen(s)); }

/* Starts a file: magic, version, tensor count, key count. */
static inline void gb_begin(gb *b, uint32_t version, int big, uint64_t n_tensors, uint64_t n_kv) {
    memset(b, 0, sizeof *b);
    b->big = big;
    b->wide = version >= 2;
    gb_raw(b, "GGUF", 4);
    gb_u32(b, version);
    b->count_at = b->len;
    gb_len(b, n_tensors);
    gb_len(b, n_kv);
}

/* Rewrites the two counts written by gb_begin. */
static inline void gb_set_counts(gb *b, uint64_t n_tensors, uint64_t n_kv) {
    size_t w = b->wide ? 8 : 4;
    gb_store(b, b->p + b->count_at, n_tensors, w);
    gb_store(b, b->p + b->count_at + w, n_kv, w);
}

/* A key and its value type; the caller writes the value next. */
static inline void gb_kvn(gb *b, const char *key, size_t key_len, uint32_t vtype) {
    gb_strn(b, key, key_len);
    gb_u32(b, vtype);
}
static inline void gb_kv(gb *b, const char *key, uint32_t vtype) {
    gb_kvn(b, key, strlen(key), vtype);
}

/* An array header: element type and count; the caller writes the elements next. */
static inline void gb_arr(gb *b, uint32_t elem_type, uint64_t count) {
    gb_u32(b, elem_type);
    gb_len(b, count);
}

/* A tensor info. */
static inline void gb_tensorn(gb *b, const char *name, size_t name_len, uint32_t n_dims,
                              const uint64_t *dims, uint32_t type, uint64_t offset) {
    gb_strn(b, name, name_len);
    gb_u32(b, n_dims);
    for (uint32_t d = 0; d < n_dims; d++)
        gb_len(b, dims[d]);
    gb_u32(b, type);
    gb_u64(b, offset);
}
static inline void gb_tensor(gb *b, const char *name, uint32_t n_dims, const uint64_t *dims,
                             uint32_t type, uint64_t offset) {
    gb_tensorn(b, name, strlen(name), n_dims, dims, type, offset);
}

/* Zero padding up to a multiple of align. */
static inline void gb_align(gb *b, size_t align) {
    size_t rem = b->len % align;
    if (rem != 0)
        gb_fill(b, 0, align - rem);
}

/* n bytes of a recognisable pattern (so misplaced tensor data shows). */
static inline void gb_pattern(gb *b, size_t n, uint8_t seed) {
    gb_reserve(b, n);
    for (size_t i = 0; i < n; i++)
        b->p[b->len + i] = (uint8_t)(seed + 37 * i);
    b->len += n;
}

/* Where gb_sample puts things. */
enum {
    GB_SAMPLE_KEYS = 11,
    GB_SAMPLE_TENSORS = 3,
    GB_SAMPLE_DATA_BYTES = 102 /* a: 32 at 0, b: 36 at 32, c: 6 at 96; ends at EOF */
};

/* A small file with something of everything: 11 keys (string, u32 alignment 32, u8, i16, f32,
 * bool, u64, a string with a NUL inside, an array of u32, an array of strings, and an array of
 * arrays), three tensors (a: F32 [4,2] at 0, b: Q4_0 [64] at 32, c: F16 [3] at 96), packed
 * with alignment 32, and the last tensor ending at the end of the file. */
static inline void gb_sample(gb *b, uint32_t version, int big) {
    gb_begin(b, version, big, GB_SAMPLE_TENSORS, GB_SAMPLE_KEYS);
    gb_kv(b, "general.architecture", GGUF_VTYPE_STRING), gb_str(b, "test");
    gb_kv(b, "general.alignment", GGUF_VTYPE_U32), gb_u32(b, 32);
    gb_kv(b, "test.u8", GGUF_VTYPE_U8), gb_u8(b, 200);
    gb_kv(b, "test.i16", GGUF_VTYPE_I16), gb_i16(b, -300);
    gb_kv(b, "test.f32", GGUF_VTYPE_F32), gb_f32(b, 0.5f);
    gb_kv(b, "test.bool", GGUF_VTYPE_BOOL), gb_u8(b, 1);
    gb_kv(b, "test.u64", GGUF_VTYPE_U64), gb_u64(b, (uint64_t)1 << 40);
    gb_kv(b, "test.str", GGUF_VTYPE_STRING), gb_strn(b, "a\0b", 3);
    gb_kv(b, "test.arr.u32", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_U32, 3);
    gb_u32(b, 1), gb_u32(b, 2), gb_u32(b, 3);
    gb_kv(b, "test.arr.str", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_STRING, 3);
    gb_str(b, "x"), gb_str(b, ""), gb_str(b, "yz");
    gb_kv(b, "test.arr.nested", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_ARRAY, 2);
    gb_arr(b, GGUF_VTYPE_I8, 2), gb_i8(b, -1), gb_i8(b, 1);
    gb_arr(b, GGUF_VTYPE_STRING, 1), gb_str(b, "q");
    gb_tensor(b, "a", 2, (const uint64_t[]){4, 2}, GGUF_DTYPE_F32, 0);
    gb_tensor(b, "b", 1, (const uint64_t[]){64}, GGUF_DTYPE_Q4_0, 32);
    gb_tensor(b, "c", 1, (const uint64_t[]){3}, GGUF_DTYPE_F16, 96);
    gb_align(b, 32);
    gb_pattern(b, 32, 1);
    gb_pattern(b, 36, 2);
    gb_fill(b, 0, 28);
    gb_pattern(b, 6, 3);
}

static inline void gb_free(gb *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

#endif
