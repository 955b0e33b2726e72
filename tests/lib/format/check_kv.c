/* Metadata values (format/kv_get.c, value.c): the key list, scalar getters, strings, arrays and
 * their iterators, all on values parsed from real bytes. The bytes are assembled here in every
 * version (1, 2, 3) and both byte orders, then opened with gguf_file_open_memory; corpus files
 * add real converter output (and its big-endian, v1 and v2 twins) when ../shared/corpus is present. */
#include <check.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libgguf/gguf.h>
#include "tests/support/testutil.h"
#include "tests/support/gguf_builder.h"

/* The six formats every fixture is built in: loop index -> (version, byte order). */
static const struct {
    uint32_t version;
    int big;
} FORMATS[] = {{1, 0}, {2, 0}, {3, 0}, {1, 1}, {2, 1}, {3, 1}};
#define N_FORMATS ((int)(sizeof FORMATS / sizeof FORMATS[0]))

static const char NUL_STR[] = {'a', '\0', 'b', '\0'}; /* 4 bytes, two of them NUL */
static const uint32_t F32_NAN_BITS = 0x7fc00001u;  /* a quiet NaN with a payload */

/* ---- the fixture: one key of every kind ---- */

#define MAX_KEYS 64
typedef struct fixture {
    gb b;
    size_t n_keys;
    const char *keys[MAX_KEYS];
    uint64_t offsets[MAX_KEYS]; /* where each entry starts */
} fixture;

static void key(fixture *fx, const char *k, uint32_t vtype) {
    ck_assert_uint_lt(fx->n_keys, MAX_KEYS);
    fx->keys[fx->n_keys] = k;
    fx->offsets[fx->n_keys] = fx->b.len;
    fx->n_keys++;
    gb_kv(&fx->b, k, vtype);
}

static void build_fixture(fixture *fx, uint32_t version, int big) {
    memset(fx, 0, sizeof *fx);
    gb *b = &fx->b;
    gb_begin(b, version, big, 0, 0);
    key(fx, "u8.min", GGUF_VTYPE_U8), gb_u8(b, 0);
    key(fx, "u8.max", GGUF_VTYPE_U8), gb_u8(b, UINT8_MAX);
    key(fx, "i8.min", GGUF_VTYPE_I8), gb_i8(b, INT8_MIN);
    key(fx, "i8.max", GGUF_VTYPE_I8), gb_i8(b, INT8_MAX);
    key(fx, "u16.max", GGUF_VTYPE_U16), gb_u16(b, UINT16_MAX);
    key(fx, "i16.min", GGUF_VTYPE_I16), gb_i16(b, INT16_MIN);
    key(fx, "i16.max", GGUF_VTYPE_I16), gb_i16(b, INT16_MAX);
    key(fx, "u32.max", GGUF_VTYPE_U32), gb_u32(b, UINT32_MAX);
    key(fx, "u32.mixed", GGUF_VTYPE_U32), gb_u32(b, 0x01020304u);
    key(fx, "i32.min", GGUF_VTYPE_I32), gb_i32(b, INT32_MIN);
    key(fx, "i32.max", GGUF_VTYPE_I32), gb_i32(b, INT32_MAX);
    key(fx, "u64.max", GGUF_VTYPE_U64), gb_u64(b, UINT64_MAX);
    key(fx, "u64.mixed", GGUF_VTYPE_U64), gb_u64(b, 0x0102030405060708ull);
    key(fx, "i64.min", GGUF_VTYPE_I64), gb_i64(b, INT64_MIN);
    key(fx, "i64.max", GGUF_VTYPE_I64), gb_i64(b, INT64_MAX);
    key(fx, "f32.max", GGUF_VTYPE_F32), gb_f32(b, FLT_MAX);
    key(fx, "f32.true_min", GGUF_VTYPE_F32), gb_f32(b, FLT_TRUE_MIN);
    key(fx, "f32.negzero", GGUF_VTYPE_F32), gb_f32(b, -0.0f);
    key(fx, "f32.neginf", GGUF_VTYPE_F32), gb_f32(b, -INFINITY);
    key(fx, "f32.nan", GGUF_VTYPE_F32), gb_u32(b, F32_NAN_BITS);
    key(fx, "f64.max", GGUF_VTYPE_F64), gb_f64(b, DBL_MAX);
    key(fx, "f64.min", GGUF_VTYPE_F64), gb_f64(b, DBL_MIN);
    key(fx, "f64.third", GGUF_VTYPE_F64), gb_f64(b, 1.0 / 3.0);
    key(fx, "bool.false", GGUF_VTYPE_BOOL), gb_u8(b, 0);
    key(fx, "bool.true", GGUF_VTYPE_BOOL), gb_u8(b, 1);
    key(fx, "str.empty", GGUF_VTYPE_STRING), gb_str(b, "");
    key(fx, "str.nul", GGUF_VTYPE_STRING), gb_strn(b, NUL_STR, sizeof NUL_STR);
    key(fx, "str.utf8", GGUF_VTYPE_STRING), gb_str(b, "h\xc3\xa9llo \xe2\x82\xac");
    key(fx, "k\xc3\xa9y.utf8", GGUF_VTYPE_U8), gb_u8(b, 42);
    key(fx, "arr.u8.empty", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_U8, 0);
    key(fx, "arr.str.empty", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_STRING, 0);
    key(fx, "arr.arr.empty", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_ARRAY, 0);
    key(fx, "arr.u8", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_U8, 3);
    gb_u8(b, 0), gb_u8(b, 0x80), gb_u8(b, 0xff);
    key(fx, "arr.i8", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_I8, 3);
    gb_i8(b, INT8_MIN), gb_i8(b, -1), gb_i8(b, INT8_MAX);
    key(fx, "arr.u16", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_U16, 2);
    gb_u16(b, 0x0102), gb_u16(b, UINT16_MAX);
    key(fx, "arr.i16", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_I16, 5);
    gb_i16(b, INT16_MIN), gb_i16(b, -1), gb_i16(b, 0), gb_i16(b, 1), gb_i16(b, INT16_MAX);
    key(fx, "arr.u32", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_U32, 2);
    gb_u32(b, 0x01020304u), gb_u32(b, UINT32_MAX);
    key(fx, "arr.i32", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_I32, 2);
    gb_i32(b, INT32_MIN), gb_i32(b, INT32_MAX);
    key(fx, "arr.u64", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_U64, 3);
    gb_u64(b, 0), gb_u64(b, UINT64_MAX), gb_u64(b, 1ull << 63);
    key(fx, "arr.i64", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_I64, 2);
    gb_i64(b, INT64_MIN), gb_i64(b, INT64_MAX);
    key(fx, "arr.f32", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_F32, 3);
    gb_f32(b, 1.5f), gb_f32(b, -2.25f), gb_f32(b, FLT_MAX);
    key(fx, "arr.f64", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_F64, 2);
    gb_f64(b, -0.0), gb_f64(b, DBL_MAX);
    key(fx, "arr.bool", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_BOOL, 4);
    gb_u8(b, 0), gb_u8(b, 1), gb_u8(b, 1), gb_u8(b, 0);
    key(fx, "arr.str", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_STRING, 4);
    gb_str(b, ""), gb_str(b, "x"), gb_strn(b, NUL_STR, sizeof NUL_STR), gb_str(b, "hello world");
    /* [[[1,2],[3]],[[]],[[4,5,6]]]: three levels of arrays, u16 at the bottom */
    key(fx, "arr.nested3", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_ARRAY, 3);
    gb_arr(b, GGUF_VTYPE_ARRAY, 2);
    gb_arr(b, GGUF_VTYPE_U16, 2), gb_u16(b, 1), gb_u16(b, 2);
    gb_arr(b, GGUF_VTYPE_U16, 1), gb_u16(b, 3);
    gb_arr(b, GGUF_VTYPE_ARRAY, 1);
    gb_arr(b, GGUF_VTYPE_U16, 0);
    gb_arr(b, GGUF_VTYPE_ARRAY, 1);
    gb_arr(b, GGUF_VTYPE_U16, 3), gb_u16(b, 4), gb_u16(b, 5), gb_u16(b, 0x0600);
    /* [["a","bc"],[],["",""]] */
    key(fx, "arr.nested.str", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_ARRAY, 3);
    gb_arr(b, GGUF_VTYPE_STRING, 2), gb_str(b, "a"), gb_str(b, "bc");
    gb_arr(b, GGUF_VTYPE_STRING, 0);
    gb_arr(b, GGUF_VTYPE_STRING, 2), gb_str(b, ""), gb_str(b, "");
    key(fx, "last", GGUF_VTYPE_STRING), gb_str(b, "end");
    gb_set_counts(b, 0, fx->n_keys);
}

static gguf_file *open_bytes(const void *p, size_t n, unsigned flags) {
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open_memory(&f, p, n, 0, flags, &err);
    ck_assert_msg(rc == 0, "open failed: %d %s (offset %" PRIu64 ")", rc, err.message,
                  err.offset);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(err.code, 0);
    return f;
}

static const gguf_value *value_of(const gguf_file *f, const char *k) {
    int64_t i = gguf_kv_find(f, k);
    ck_assert_msg(i >= 0, "key '%s' not found", k);
    const gguf_value *v = gguf_kv_value(f, (size_t)i);
    ck_assert_ptr_nonnull(v);
    return v;
}

static uint64_t get_u64(const gguf_file *f, const char *k) {
    uint64_t u = 0;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_value_get_u64(&u, value_of(f, k), &err);
    ck_assert_msg(rc == 0, "%s: %s", k, err.message);
    return u;
}

static int64_t get_i64(const gguf_file *f, const char *k) {
    int64_t i = 0;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_value_get_i64(&i, value_of(f, k), &err);
    ck_assert_msg(rc == 0, "%s: %s", k, err.message);
    return i;
}

static double get_f64(const gguf_file *f, const char *k) {
    double d = 0;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_value_get_f64(&d, value_of(f, k), &err);
    ck_assert_msg(rc == 0, "%s: %s", k, err.message);
    return d;
}

/* ---- header ---- */

START_TEST(test_header) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    ck_assert_uint_eq(gguf_file_version(f), FORMATS[_i].version);
    ck_assert_int_eq(gguf_file_endian(f), FORMATS[_i].big ? GGUF_ENDIAN_BIG : GGUF_ENDIAN_LITTLE);
    ck_assert_uint_eq(gguf_kv_count(f), fx.n_keys);
    ck_assert_uint_eq(gguf_tensor_count(f), 0);
    ck_assert_uint_eq(gguf_file_alignment(f), 32);
    ck_assert_uint_eq(gguf_file_size(f), fx.b.len);
    ck_assert_uint_eq(gguf_file_data_offset(f), fx.b.len); /* no tensors: end of the header */
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* ---- scalars ---- */

START_TEST(test_scalars) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);

    ck_assert_uint_eq(get_u64(f, "u8.min"), 0);
    ck_assert_uint_eq(get_u64(f, "u8.max"), 255);
    ck_assert_int_eq(get_i64(f, "i8.min"), -128);
    ck_assert_int_eq(get_i64(f, "i8.max"), 127);
    ck_assert_uint_eq(get_u64(f, "u16.max"), 65535);
    ck_assert_int_eq(get_i64(f, "i16.min"), -32768);
    ck_assert_int_eq(get_i64(f, "i16.max"), 32767);
    ck_assert_uint_eq(get_u64(f, "u32.max"), UINT32_MAX);
    ck_assert_uint_eq(get_u64(f, "u32.mixed"), 0x01020304u);
    ck_assert_int_eq(get_i64(f, "i32.min"), INT32_MIN);
    ck_assert_int_eq(get_i64(f, "i32.max"), INT32_MAX);
    ck_assert_uint_eq(get_u64(f, "u64.max"), UINT64_MAX);
    ck_assert_uint_eq(get_u64(f, "u64.mixed"), 0x0102030405060708ull);
    ck_assert_int_eq(get_i64(f, "i64.min"), INT64_MIN);
    ck_assert_int_eq(get_i64(f, "i64.max"), INT64_MAX);

    ck_assert(get_f64(f, "f32.max") == (double)FLT_MAX);
    ck_assert(get_f64(f, "f32.true_min") == (double)FLT_TRUE_MIN);
    double nz = get_f64(f, "f32.negzero");
    ck_assert(nz == 0.0 && signbit(nz));
    double ninf = get_f64(f, "f32.neginf");
    ck_assert(isinf(ninf) && ninf < 0);
    double nan = get_f64(f, "f32.nan");
    ck_assert(isnan(nan));
    float back = (float)nan;
    uint32_t back_bits;
    memcpy(&back_bits, &back, 4);
    ck_assert_uint_eq(back_bits, F32_NAN_BITS); /* the payload survives */
    ck_assert(get_f64(f, "f64.max") == DBL_MAX);
    ck_assert(get_f64(f, "f64.min") == DBL_MIN);
    ck_assert(get_f64(f, "f64.third") == 1.0 / 3.0);

    uint8_t byte = 9;
    ck_assert_int_eq(gguf_value_get_bool_byte(&byte, value_of(f, "bool.false"), NULL), 0);
    ck_assert_uint_eq(byte, 0);
    ck_assert_int_eq(gguf_value_get_bool_byte(&byte, value_of(f, "bool.true"), NULL), 0);
    ck_assert_uint_eq(byte, 1);

    /* types, and scalars look like one-element non-arrays */
    ck_assert_uint_eq(gguf_value_type(value_of(f, "i16.min")), GGUF_VTYPE_I16);
    ck_assert_uint_eq(gguf_value_type(value_of(f, "f64.min")), GGUF_VTYPE_F64);
    ck_assert_uint_eq(gguf_value_type(value_of(f, "bool.true")), GGUF_VTYPE_BOOL);
    ck_assert_uint_eq(gguf_value_count(value_of(f, "u8.max")), 1);
    ck_assert_uint_eq(gguf_value_elem_type(value_of(f, "u8.max")), GGUF_VTYPE_COUNT);

    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* gguf_value_get_int: every integer type and bool, widened, with the signedness. */
START_TEST(test_get_int) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    static const struct {
        const char *key;
        int is_signed;
        uint64_t u;
        int64_t i;
    } cases[] = {
        {"u8.max", 0, 255, 0},
        {"i8.min", 1, 0, INT8_MIN},
        {"u16.max", 0, 65535, 0},
        {"i16.min", 1, 0, INT16_MIN},
        {"u32.max", 0, UINT32_MAX, 0},
        {"i32.min", 1, 0, INT32_MIN},
        {"i32.max", 1, 0, INT32_MAX},
        {"u64.max", 0, UINT64_MAX, 0},
        {"i64.min", 1, 0, INT64_MIN},
        {"bool.true", 0, 1, 0},
        {"bool.false", 0, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint64_t u = 77;
        int64_t i = 77;
        int s = 77;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_value_get_int(&u, &i, &s, value_of(f, cases[c].key), &err);
        ck_assert_msg(rc == 0, "%s: %s", cases[c].key, err.message);
        ck_assert_int_eq(s, cases[c].is_signed);
        if (s)
            ck_assert_int_eq(i, cases[c].i);
        else
            ck_assert_uint_eq(u, cases[c].u);
    }
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* ---- typed reads by key: converted when the target holds the value, else named errors ---- */

START_TEST(test_kv_typed_getters) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    uint64_t u;
    int64_t i;
    double d;
    const char *str;
    size_t len;
    gguf_error err;
    /* every integer type converts when it fits */
    ck_assert(gguf_kv_get_u64(&u, f, "u8.max", NULL) == 0 && u == 255);
    ck_assert(gguf_kv_get_u64(&u, f, "i32.max", NULL) == 0 && u == INT32_MAX);
    ck_assert(gguf_kv_get_u64(&u, f, "u64.max", NULL) == 0 && u == UINT64_MAX);
    ck_assert(gguf_kv_get_i64(&i, f, "i8.min", NULL) == 0 && i == INT8_MIN);
    ck_assert(gguf_kv_get_i64(&i, f, "u32.max", NULL) == 0 && i == UINT32_MAX);
    ck_assert(gguf_kv_get_i64(&i, f, "i64.max", NULL) == 0 && i == INT64_MAX);
    ck_assert(gguf_kv_get_f64(&d, f, "f64.third", NULL) == 0 && d == 1.0 / 3.0);
    ck_assert(gguf_kv_get_f64(&d, f, "f32.max", NULL) == 0 && d == FLT_MAX);
    ck_assert(gguf_kv_get_str(&str, &len, f, "str.nul", NULL) == 0);
    ck_assert(len == sizeof NUL_STR && memcmp(str, NUL_STR, len) == 0);
    /* each refusal names the key, its type and why; outputs stay as they were */
    static const struct {
        const char *key;
        int which; /* 0 u64, 1 i64, 2 f64, 3 str */
        int code;
        const char *says;
    } bad[] = {
        {"i8.min", 0, GGUF_ETYPE, "key 'i8.min' (INT8) holds -128, out of range for uint64"},
        {"u64.max", 1, GGUF_ETYPE,
         "key 'u64.max' (UINT64) holds 18446744073709551615, out of range for int64"},
        {"bool.true", 0, GGUF_ETYPE, "key 'bool.true' has type BOOL, not an integer"},
        {"f32.max", 1, GGUF_ETYPE, "key 'f32.max' has type FLOAT32, not an integer"},
        {"u8.max", 2, GGUF_ETYPE, "key 'u8.max' has type UINT8, not a float"},
        {"arr.u32", 3, GGUF_ETYPE, "key 'arr.u32' has type ARRAY of UINT32, not STRING"},
        {"no.such", 0, GGUF_ENOTFOUND, "key 'no.such' not found"},
        {"no.such", 3, GGUF_ENOTFOUND, "key 'no.such' not found"},
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        u = 7, i = 7, d = 7, str = NULL, len = 7;
        gguf_error_clear(&err);
        int rc = bad[c].which == 0   ? gguf_kv_get_u64(&u, f, bad[c].key, &err)
                 : bad[c].which == 1 ? gguf_kv_get_i64(&i, f, bad[c].key, &err)
                 : bad[c].which == 2 ? gguf_kv_get_f64(&d, f, bad[c].key, &err)
                                     : gguf_kv_get_str(&str, &len, f, bad[c].key, &err);
        ck_assert_int_eq(rc, bad[c].code);
        ck_assert_msg(strstr(err.message, bad[c].says) != NULL, "%s", err.message);
        ck_assert(u == 7 && i == 7 && d == 7 && str == NULL && len == 7);
        if (rc == GGUF_ETYPE) /* at the key's entry */
            ck_assert_uint_eq(err.offset, gguf_kv_source_offset(f, gguf_kv_find(f, bad[c].key)));
    }
    ck_assert_int_eq(gguf_kv_get_u64(&u, NULL, "u8.max", NULL), GGUF_EINVAL);
    ck_assert_int_eq(gguf_kv_get_u64(&u, f, NULL, NULL), GGUF_EINVAL);
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* Names given by length: a slice of a longer string finds its key, a prefix does not. */
START_TEST(test_find_by_length) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    const char *text = "u8.max=255";
    ck_assert_int_eq(gguf_kv_find_n(f, text, 6), gguf_kv_find(f, "u8.max"));
    ck_assert_int_ge(gguf_kv_find_n(f, text, 6), 0);
    ck_assert_int_eq(gguf_kv_find_n(f, text, 5), -1);
    ck_assert_int_eq(gguf_kv_find_n(f, NULL, 0), -1);
    ck_assert_int_eq(gguf_kv_find_n(f, NULL, 3), -1);
    gguf_file_free(f);
    gb_free(&fx.b);
    /* tensors too */
    gb b = {0};
    gb_begin(&b, FORMATS[_i].version, FORMATS[_i].big, 2, 0);
    gb_tensor(&b, "blk.0.attn_q.weight", 1, (uint64_t[]){8}, GGUF_DTYPE_F32, 0);
    gb_tensor(&b, "blk.0.attn_q", 1, (uint64_t[]){8}, GGUF_DTYPE_F32, 32);
    gb_align(&b, 32);
    gb_fill(&b, 0, 64);
    f = open_bytes(b.p, b.len, 0);
    const char *names = "blk.0.attn_q.weight,blk.0.attn_k.weight";
    ck_assert_int_eq(gguf_tensor_find_n(f, names, 19), 0);
    ck_assert_int_eq(gguf_tensor_find_n(f, names, 12), 1);
    ck_assert_int_eq(gguf_tensor_find_n(f, names + 20, 19), -1);
    ck_assert_int_eq(gguf_tensor_find_n(f, NULL, 0), -1);
    gguf_file_free(f);
    gb_free(&b);
}
END_TEST

/* ---- wrong types: GGUF_ETYPE, a message, outputs untouched ---- */

enum getter { G_U64, G_I64, G_F64, G_INT, G_STR, G_BOOL, N_GETTERS };
static const char *const GETTER_NAMES[N_GETTERS] = {"get_u64", "get_i64", "get_f64",
                                                    "get_int", "get_str", "get_bool_byte"};

/* Which getters accept a value of each type. */
static int getter_accepts(enum getter g, uint32_t t) {
    int is_unsigned = t == GGUF_VTYPE_U8 || t == GGUF_VTYPE_U16 || t == GGUF_VTYPE_U32 ||
                      t == GGUF_VTYPE_U64;
    int is_signed = t == GGUF_VTYPE_I8 || t == GGUF_VTYPE_I16 || t == GGUF_VTYPE_I32 ||
                    t == GGUF_VTYPE_I64;
    switch (g) {
    case G_U64: return is_unsigned;
    case G_I64: return is_signed;
    case G_F64: return t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64;
    case G_INT: return is_unsigned || is_signed || t == GGUF_VTYPE_BOOL;
    case G_STR: return t == GGUF_VTYPE_STRING;
    case G_BOOL: return t == GGUF_VTYPE_BOOL;
    default: return 0;
    }
}

/* Calls getter g; returns its code and whether every output kept its sentinel. */
static int call_getter(enum getter g, const gguf_value *v, gguf_error *err, int *untouched) {
    uint64_t u = 0xAAAAAAAAAAAAAAAAull;
    int64_t i = 0x5555555555555555ll;
    double d = 12345.5;
    int s = 42;
    const char *str = (const char *)&u;
    uint64_t len = 0x1234;
    uint8_t byte = 0xEE;
    int rc = -999;
    switch (g) {
    case G_U64: rc = gguf_value_get_u64(&u, v, err); break;
    case G_I64: rc = gguf_value_get_i64(&i, v, err); break;
    case G_F64: rc = gguf_value_get_f64(&d, v, err); break;
    case G_INT: rc = gguf_value_get_int(&u, &i, &s, v, err); break;
    case G_STR: rc = gguf_value_get_str(&str, &len, v, err); break;
    case G_BOOL: rc = gguf_value_get_bool_byte(&byte, v, err); break;
    default: break;
    }
    *untouched = u == 0xAAAAAAAAAAAAAAAAull && i == 0x5555555555555555ll && d == 12345.5 &&
                 s == 42 && str == (const char *)&u && len == 0x1234 && byte == 0xEE;
    return rc;
}

START_TEST(test_wrong_type_getters) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    /* one value of each of the 13 types */
    static const char *const reps[] = {"u8.max", "i8.min", "u16.max", "i16.min", "u32.max",
                                       "i32.min", "f32.max", "bool.true", "str.nul", "arr.u8",
                                       "u64.max", "i64.min", "f64.max"};
    ck_assert_uint_eq(sizeof reps / sizeof reps[0], GGUF_VTYPE_COUNT);
    int refused = 0, accepted = 0;
    for (uint32_t t = 0; t < GGUF_VTYPE_COUNT; t++) {
        const gguf_value *v = value_of(f, reps[t]);
        ck_assert_uint_eq(gguf_value_type(v), t);
        for (int g = 0; g < N_GETTERS; g++) {
            gguf_error err;
            gguf_error_clear(&err);
            int untouched;
            int rc = call_getter((enum getter)g, v, &err, &untouched);
            if (getter_accepts((enum getter)g, t)) {
                ck_assert_msg(rc == 0, "%s on %s: %d %s", GETTER_NAMES[g], gguf_vtype_name(t), rc,
                              err.message);
                ck_assert_msg(!untouched, "%s on %s wrote nothing", GETTER_NAMES[g],
                              gguf_vtype_name(t));
                accepted++;
                continue;
            }
            ck_assert_msg(rc == GGUF_ETYPE, "%s on %s: %d, expected GGUF_ETYPE", GETTER_NAMES[g],
                          gguf_vtype_name(t), rc);
            ck_assert_int_eq(err.code, GGUF_ETYPE);
            ck_assert_msg(err.message[0] != '\0', "%s on %s: no message", GETTER_NAMES[g],
                          gguf_vtype_name(t));
            ck_assert_msg(untouched, "%s on %s changed its outputs", GETTER_NAMES[g],
                          gguf_vtype_name(t));
            /* and without an error object */
            ck_assert_int_eq(call_getter((enum getter)g, v, NULL, &untouched), GGUF_ETYPE);
            ck_assert(untouched);
            refused++;
        }
    }
    ck_assert_int_eq(accepted, 4 + 4 + 2 + 9 + 1 + 1);
    ck_assert_int_eq(refused, 13 * 6 - accepted);
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* ---- strings ---- */

static void expect_str(const gguf_value *v, const char *want, size_t want_len) {
    const char *s = NULL;
    uint64_t len = 99;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_value_get_str(&s, &len, v, &err), 0);
    ck_assert_uint_eq(len, want_len);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(memcmp(s, want, want_len) == 0, "string bytes differ");
}

START_TEST(test_strings) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    expect_str(value_of(f, "str.empty"), "", 0);
    expect_str(value_of(f, "str.nul"), NUL_STR, sizeof NUL_STR);
    expect_str(value_of(f, "str.utf8"), "h\xc3\xa9llo \xe2\x82\xac", 10);
    expect_str(value_of(f, "last"), "end", 3);
    /* strings are borrowed from the buffer (copy = 0): they point into it */
    const char *s;
    uint64_t len;
    ck_assert_int_eq(gguf_value_get_str(&s, &len, value_of(f, "last"), NULL), 0);
    ck_assert(s >= (const char *)fx.b.p && s + len <= (const char *)fx.b.p + fx.b.len);
    ck_assert_uint_eq(gguf_value_count(value_of(f, "str.nul")), 1);
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* ---- arrays ---- */

/* Walks an array of integers into u[] / i[]; returns the element count seen. */
static size_t walk_ints(const gguf_value *a, uint64_t *u, int64_t *i, size_t max) {
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, a);
    size_t n = 0;
    while (gguf_value_iter_next(&it, &e)) {
        ck_assert_uint_lt(n, max);
        ck_assert_uint_eq(it.index, n + 1);
        ck_assert_uint_eq(gguf_value_type(&e), gguf_value_elem_type(a));
        int s;
        ck_assert_int_eq(gguf_value_get_int(&u[n], &i[n], &s, &e, NULL), 0);
        n++;
    }
    /* the end is sticky */
    ck_assert_int_eq(gguf_value_iter_next(&it, &e), 0);
    ck_assert_uint_eq(n, gguf_value_count(a));
    return n;
}

START_TEST(test_scalar_arrays) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    uint64_t u[8];
    int64_t i[8];

    const gguf_value *a = value_of(f, "arr.u8");
    ck_assert_uint_eq(gguf_value_type(a), GGUF_VTYPE_ARRAY);
    ck_assert_uint_eq(gguf_value_elem_type(a), GGUF_VTYPE_U8);
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 3);
    ck_assert_uint_eq(u[0], 0);
    ck_assert_uint_eq(u[1], 0x80);
    ck_assert_uint_eq(u[2], 0xff);

    a = value_of(f, "arr.i8");
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 3);
    ck_assert_int_eq(i[0], INT8_MIN);
    ck_assert_int_eq(i[1], -1);
    ck_assert_int_eq(i[2], INT8_MAX);

    a = value_of(f, "arr.u16");
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 2);
    ck_assert_uint_eq(u[0], 0x0102);
    ck_assert_uint_eq(u[1], UINT16_MAX);

    a = value_of(f, "arr.i16");
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 5);
    ck_assert_int_eq(i[0], INT16_MIN);
    ck_assert_int_eq(i[1], -1);
    ck_assert_int_eq(i[2], 0);
    ck_assert_int_eq(i[3], 1);
    ck_assert_int_eq(i[4], INT16_MAX);

    a = value_of(f, "arr.u32");
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 2);
    ck_assert_uint_eq(u[0], 0x01020304u);
    ck_assert_uint_eq(u[1], UINT32_MAX);

    a = value_of(f, "arr.i32");
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 2);
    ck_assert_int_eq(i[0], INT32_MIN);
    ck_assert_int_eq(i[1], INT32_MAX);

    a = value_of(f, "arr.u64");
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 3);
    ck_assert_uint_eq(u[0], 0);
    ck_assert_uint_eq(u[1], UINT64_MAX);
    ck_assert_uint_eq(u[2], 1ull << 63);

    a = value_of(f, "arr.i64");
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 2);
    ck_assert_int_eq(i[0], INT64_MIN);
    ck_assert_int_eq(i[1], INT64_MAX);

    a = value_of(f, "arr.bool");
    ck_assert_uint_eq(gguf_value_elem_type(a), GGUF_VTYPE_BOOL);
    ck_assert_uint_eq(walk_ints(a, u, i, 8), 4);
    ck_assert_uint_eq(u[0], 0);
    ck_assert_uint_eq(u[1], 1);
    ck_assert_uint_eq(u[2], 1);
    ck_assert_uint_eq(u[3], 0);

    /* floats */
    static const double want32[] = {1.5, -2.25, (double)FLT_MAX};
    a = value_of(f, "arr.f32");
    ck_assert_uint_eq(gguf_value_elem_type(a), GGUF_VTYPE_F32);
    ck_assert_uint_eq(gguf_value_count(a), 3);
    gguf_value_iter it;
    gguf_value e;
    size_t n = 0;
    gguf_value_iter_init(&it, a);
    while (gguf_value_iter_next(&it, &e)) {
        double d;
        ck_assert_int_eq(gguf_value_get_f64(&d, &e, NULL), 0);
        ck_assert(d == want32[n]);
        n++;
    }
    ck_assert_uint_eq(n, 3);

    a = value_of(f, "arr.f64");
    ck_assert_uint_eq(gguf_value_elem_type(a), GGUF_VTYPE_F64);
    n = 0;
    gguf_value_iter_init(&it, a);
    while (gguf_value_iter_next(&it, &e)) {
        double d;
        ck_assert_int_eq(gguf_value_get_f64(&d, &e, NULL), 0);
        if (n == 0)
            ck_assert(d == 0.0 && signbit(d));
        else
            ck_assert(d == DBL_MAX);
        n++;
    }
    ck_assert_uint_eq(n, 2);

    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

START_TEST(test_empty_arrays) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    static const struct {
        const char *key;
        uint32_t elem;
    } empties[] = {{"arr.u8.empty", GGUF_VTYPE_U8},
                   {"arr.str.empty", GGUF_VTYPE_STRING},
                   {"arr.arr.empty", GGUF_VTYPE_ARRAY}};
    for (size_t k = 0; k < 3; k++) {
        const gguf_value *a = value_of(f, empties[k].key);
        ck_assert_uint_eq(gguf_value_type(a), GGUF_VTYPE_ARRAY);
        ck_assert_uint_eq(gguf_value_elem_type(a), empties[k].elem);
        ck_assert_uint_eq(gguf_value_count(a), 0);
        gguf_value_iter it;
        gguf_value e;
        gguf_value_iter_init(&it, a);
        ck_assert_int_eq(gguf_value_iter_next(&it, &e), 0);
        ck_assert_uint_eq(it.index, 0);
    }
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

START_TEST(test_string_arrays) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    const gguf_value *a = value_of(f, "arr.str");
    ck_assert_uint_eq(gguf_value_elem_type(a), GGUF_VTYPE_STRING);
    ck_assert_uint_eq(gguf_value_count(a), 4);
    static const struct {
        const char *s;
        size_t n;
    } want[] = {{"", 0}, {"x", 1}, {NUL_STR, sizeof NUL_STR}, {"hello world", 11}};
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, a);
    size_t n = 0;
    while (gguf_value_iter_next(&it, &e)) {
        ck_assert_uint_lt(n, 4);
        ck_assert_uint_eq(gguf_value_type(&e), GGUF_VTYPE_STRING);
        expect_str(&e, want[n].s, want[n].n);
        /* an element is a value like any other: the other getters refuse it */
        uint64_t u = 5;
        ck_assert_int_eq(gguf_value_get_u64(&u, &e, NULL), GGUF_ETYPE);
        ck_assert_uint_eq(u, 5);
        n++;
    }
    ck_assert_uint_eq(n, 4);
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* Formats a value as text ([1,2], "s", ...) by walking it with the public API only. */
static void dump(char *buf, size_t size, size_t *o, const gguf_value *v) {
#define PUT(...)                                                                                  \
    do {                                                                                          \
        int w_ = snprintf(buf + *o, size - *o, __VA_ARGS__);                                      \
        ck_assert(w_ >= 0 && (size_t)w_ < size - *o);                                             \
        *o += (size_t)w_;                                                                         \
    } while (0)
    uint32_t t = gguf_value_type(v);
    if (t == GGUF_VTYPE_ARRAY) {
        PUT("[");
        gguf_value_iter it;
        gguf_value e;
        gguf_value_iter_init(&it, v);
        int first = 1;
        while (gguf_value_iter_next(&it, &e)) {
            if (!first)
                PUT(",");
            first = 0;
            dump(buf, size, o, &e);
        }
        PUT("]");
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s;
        uint64_t n;
        ck_assert_int_eq(gguf_value_get_str(&s, &n, v, NULL), 0);
        PUT("\"%.*s\"", (int)n, s);
    } else if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double d;
        ck_assert_int_eq(gguf_value_get_f64(&d, v, NULL), 0);
        PUT("%.17g", d);
    } else {
        uint64_t u;
        int64_t i;
        int s;
        ck_assert_int_eq(gguf_value_get_int(&u, &i, &s, v, NULL), 0);
        if (s)
            PUT("%" PRId64, i);
        else
            PUT("%" PRIu64, u);
    }
#undef PUT
}

static const char *dump_key(char *buf, size_t size, const gguf_file *f, const char *k) {
    size_t o = 0;
    buf[0] = '\0';
    dump(buf, size, &o, value_of(f, k));
    return buf;
}

START_TEST(test_nested_arrays) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    char buf[512];
    ck_assert_str_eq(dump_key(buf, sizeof buf, f, "arr.nested3"), "[[[1,2],[3]],[[]],[[4,5,1536]]]");
    ck_assert_str_eq(dump_key(buf, sizeof buf, f, "arr.nested.str"), "[[\"a\",\"bc\"],[],[\"\",\"\"]]");
    ck_assert_str_eq(dump_key(buf, sizeof buf, f, "arr.i16"), "[-32768,-1,0,1,32767]");

    /* walk the levels by hand: types and counts at each depth */
    const gguf_value *a = value_of(f, "arr.nested3");
    ck_assert_uint_eq(gguf_value_elem_type(a), GGUF_VTYPE_ARRAY);
    ck_assert_uint_eq(gguf_value_count(a), 3);
    static const uint64_t counts2[] = {2, 1, 1};
    gguf_value_iter it1, it2;
    gguf_value l2, l3;
    gguf_value_iter_init(&it1, a);
    size_t n1 = 0, leaves = 0;
    while (gguf_value_iter_next(&it1, &l2)) {
        ck_assert_uint_eq(gguf_value_type(&l2), GGUF_VTYPE_ARRAY);
        ck_assert_uint_eq(gguf_value_elem_type(&l2), GGUF_VTYPE_ARRAY);
        ck_assert_uint_eq(gguf_value_count(&l2), counts2[n1]);
        gguf_value_iter_init(&it2, &l2);
        while (gguf_value_iter_next(&it2, &l3)) {
            ck_assert_uint_eq(gguf_value_elem_type(&l3), GGUF_VTYPE_U16);
            leaves += gguf_value_count(&l3);
        }
        n1++;
    }
    ck_assert_uint_eq(n1, 3);
    ck_assert_uint_eq(leaves, 6);
    /* the value after the nested ones was found where it should be */
    expect_str(value_of(f, "last"), "end", 3);
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

START_TEST(test_iter_on_scalar) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    static const char *const scalars[] = {"u8.max", "str.nul", "f64.max", "bool.true"};
    for (size_t k = 0; k < 4; k++) {
        gguf_value_iter it;
        gguf_value e;
        gguf_value_iter_init(&it, value_of(f, scalars[k]));
        ck_assert_int_eq(gguf_value_iter_next(&it, &e), 0);
    }
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* ---- the key list ---- */

START_TEST(test_keys) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *f = open_bytes(fx.b.p, fx.b.len, 0);
    ck_assert_uint_eq(gguf_kv_count(f), fx.n_keys);
    for (size_t i = 0; i < fx.n_keys; i++) {
        ck_assert_int_eq(gguf_kv_find(f, fx.keys[i]), (int64_t)i);
        size_t len = 12345;
        const char *k = gguf_kv_key(f, i, &len);
        ck_assert_ptr_nonnull(k);
        ck_assert_uint_eq(len, strlen(fx.keys[i]));
        ck_assert(memcmp(k, fx.keys[i], len) == 0);
        ck_assert_ptr_nonnull(gguf_kv_key(f, i, NULL));
        ck_assert_ptr_nonnull(gguf_kv_value(f, i));
        ck_assert_uint_eq(gguf_kv_source_offset(f, i), fx.offsets[i]);
    }
    /* misses: absent, a prefix, an extension, another case, empty */
    ck_assert_int_eq(gguf_kv_find(f, "absent"), -1);
    ck_assert_int_eq(gguf_kv_find(f, "u8"), -1);
    ck_assert_int_eq(gguf_kv_find(f, "u8.ma"), -1);
    ck_assert_int_eq(gguf_kv_find(f, "u8.maxx"), -1);
    ck_assert_int_eq(gguf_kv_find(f, "U8.MAX"), -1);
    ck_assert_int_eq(gguf_kv_find(f, ""), -1);
    ck_assert_int_ge(gguf_kv_find(f, "k\xc3\xa9y.utf8"), 0);
    /* out of range */
    size_t len = 777;
    ck_assert_ptr_null(gguf_kv_key(f, fx.n_keys, &len));
    ck_assert_ptr_null(gguf_kv_key(f, SIZE_MAX, &len));
    ck_assert_uint_eq(len, 777);
    ck_assert_ptr_null(gguf_kv_value(f, fx.n_keys));
    ck_assert_uint_eq(gguf_kv_source_offset(f, fx.n_keys), GGUF_ERROR_NO_OFFSET);
    gguf_file_free(f);
    gb_free(&fx.b);
}
END_TEST

/* ---- equal values, whatever the encoding ---- */

/* 1 when a and b hold the same value (same types, same numbers bit for bit, same bytes). */
static int same_value(const gguf_value *a, const gguf_value *b) {
    uint32_t t = gguf_value_type(a);
    if (t != gguf_value_type(b))
        return 0;
    if (t == GGUF_VTYPE_ARRAY) {
        if (gguf_value_elem_type(a) != gguf_value_elem_type(b) ||
            gguf_value_count(a) != gguf_value_count(b))
            return 0;
        gguf_value_iter ia, ib;
        gguf_value ea, eb;
        gguf_value_iter_init(&ia, a);
        gguf_value_iter_init(&ib, b);
        uint64_t n = 0;
        for (;;) {
            int ra = gguf_value_iter_next(&ia, &ea), rb = gguf_value_iter_next(&ib, &eb);
            if (ra != rb)
                return 0;
            if (!ra)
                break;
            if (!same_value(&ea, &eb))
                return 0;
            n++;
        }
        return n == gguf_value_count(a);
    }
    if (t == GGUF_VTYPE_STRING) {
        const char *sa, *sb;
        uint64_t na, nb;
        ck_assert_int_eq(gguf_value_get_str(&sa, &na, a, NULL), 0);
        ck_assert_int_eq(gguf_value_get_str(&sb, &nb, b, NULL), 0);
        return na == nb && memcmp(sa, sb, (size_t)na) == 0;
    }
    if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double da, db;
        ck_assert_int_eq(gguf_value_get_f64(&da, a, NULL), 0);
        ck_assert_int_eq(gguf_value_get_f64(&db, b, NULL), 0);
        return memcmp(&da, &db, sizeof da) == 0;
    }
    uint64_t ua = 1, ub = 2;
    int64_t ia = 3, ib = 4;
    int sa, sb;
    ck_assert_int_eq(gguf_value_get_int(&ua, &ia, &sa, a, NULL), 0);
    ck_assert_int_eq(gguf_value_get_int(&ub, &ib, &sb, b, NULL), 0);
    return sa == sb && (sa ? ia == ib : ua == ub);
}

/* Every key of a and b: same names, same order, same values. Returns the number compared. */
static size_t compare_files(const gguf_file *a, const gguf_file *b, const char *what) {
    ck_assert_msg(gguf_kv_count(a) == gguf_kv_count(b), "%s: %zu keys vs %zu", what,
                  gguf_kv_count(a), gguf_kv_count(b));
    for (size_t i = 0; i < gguf_kv_count(a); i++) {
        size_t la, lb;
        const char *ka = gguf_kv_key(a, i, &la), *kb = gguf_kv_key(b, i, &lb);
        ck_assert_msg(la == lb && memcmp(ka, kb, la) == 0, "%s: key %zu differs", what, i);
        ck_assert_msg(same_value(gguf_kv_value(a, i), gguf_kv_value(b, i)),
                      "%s: value of '%.*s' differs", what, (int)la, ka);
    }
    return gguf_kv_count(a);
}

START_TEST(test_big_endian_reads_like_little) {
    /* _i: version 1..3 */
    uint32_t version = (uint32_t)_i + 1;
    fixture le, be;
    build_fixture(&le, version, 0);
    build_fixture(&be, version, 1);
    ck_assert_uint_eq(le.b.len, be.b.len);
    ck_assert(memcmp(le.b.p, be.b.p, le.b.len) != 0); /* different bytes ... */
    gguf_file *fl = open_bytes(le.b.p, le.b.len, 0);
    gguf_file *fb = open_bytes(be.b.p, be.b.len, 0);
    ck_assert_int_eq(gguf_file_endian(fl), GGUF_ENDIAN_LITTLE);
    ck_assert_int_eq(gguf_file_endian(fb), GGUF_ENDIAN_BIG);
    ck_assert_uint_eq(compare_files(fl, fb, "LE vs BE"), le.n_keys); /* ... same values */
    char b1[512], b2[512];
    ck_assert_str_eq(dump_key(b1, sizeof b1, fl, "arr.nested3"),
                     dump_key(b2, sizeof b2, fb, "arr.nested3"));
    gguf_file_free(fl);
    gguf_file_free(fb);
    gb_free(&le.b);
    gb_free(&be.b);
}
END_TEST

START_TEST(test_versions_read_alike) {
    fixture fx[N_FORMATS];
    gguf_file *f[N_FORMATS];
    for (int k = 0; k < N_FORMATS; k++) {
        build_fixture(&fx[k], FORMATS[k].version, FORMATS[k].big);
        f[k] = open_bytes(fx[k].b.p, fx[k].b.len, 0);
    }
    /* v1 is 4 bytes shorter per length field; all read the same values */
    ck_assert_uint_lt(fx[0].b.len, fx[1].b.len);
    for (int k = 1; k < N_FORMATS; k++)
        ck_assert_uint_eq(compare_files(f[0], f[k], "v1 LE vs other"), fx[0].n_keys);
    for (int k = 0; k < N_FORMATS; k++) {
        gguf_file_free(f[k]);
        gb_free(&fx[k].b);
    }
}
END_TEST

START_TEST(test_copied_bytes_outlive_the_buffer) {
    fixture fx;
    build_fixture(&fx, FORMATS[_i].version, FORMATS[_i].big);
    gguf_file *ref = open_bytes(fx.b.p, fx.b.len, 0);
    uint8_t *tmp = malloc(fx.b.len);
    ck_assert_ptr_nonnull(tmp);
    memcpy(tmp, fx.b.p, fx.b.len);
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_memory(&f, tmp, fx.b.len, 1, 0, &err), 0);
    memset(tmp, 0xA5, fx.b.len);
    free(tmp); /* ASan reports any later read of it */
    ck_assert_uint_eq(compare_files(ref, f, "copy vs borrowed"), fx.n_keys);
    gguf_file_free(f);
    gguf_file_free(ref);
    gb_free(&fx.b);
}
END_TEST

/* ---- real files ---- */

static gguf_file *open_corpus(const char *rel) {
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open(&f, tu_corpus(rel), 0, &err);
    ck_assert_msg(rc == 0, "%s: %d %s", rel, rc, err.message);
    return f;
}

START_TEST(test_real_vocab) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    gguf_file *f = open_corpus("real/ggml-vocab-llama-spm.gguf");
    ck_assert_uint_eq(gguf_kv_count(f), 22);
    ck_assert_uint_eq(gguf_tensor_count(f), 0);
    expect_str(value_of(f, "general.architecture"), "llama", 5);
    ck_assert_uint_eq(get_u64(f, "llama.context_length"), 4096);
    ck_assert_uint_eq(get_u64(f, "llama.vocab_size"), 32000);
    ck_assert_uint_eq(gguf_kv_source_offset(f, (size_t)gguf_kv_find(f, "tokenizer.ggml.tokens")),
                      596);
    const gguf_value *tokens = value_of(f, "tokenizer.ggml.tokens");
    ck_assert_uint_eq(gguf_value_elem_type(tokens), GGUF_VTYPE_STRING);
    ck_assert_uint_eq(gguf_value_count(tokens), 32000);
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, tokens);
    static const char *const first[] = {"<unk>", "<s>", "</s>"};
    uint64_t n = 0;
    while (gguf_value_iter_next(&it, &e)) {
        if (n < 3)
            expect_str(&e, first[n], strlen(first[n]));
        n++;
    }
    ck_assert_uint_eq(n, 32000);
    const gguf_value *types = value_of(f, "tokenizer.ggml.token_type");
    ck_assert_uint_eq(gguf_value_elem_type(types), GGUF_VTYPE_I32);
    ck_assert_uint_eq(gguf_value_count(types), 32000);
    gguf_value_iter_init(&it, types);
    ck_assert(gguf_value_iter_next(&it, &e));
    ck_assert_uint_eq(get_u64(f, "tokenizer.ggml.bos_token_id"), 1);
    int64_t i = 0;
    ck_assert_int_eq(gguf_value_get_i64(&i, value_of(f, "tokenizer.ggml.bos_token_id"), NULL),
                     GGUF_ETYPE);
    ck_assert_int_eq(gguf_value_get_i64(&i, &e, NULL), 0);
    ck_assert_int_eq(i, 2); /* <unk> is type 2 (UNKNOWN) */
    uint8_t byte;
    ck_assert_int_eq(gguf_value_get_bool_byte(&byte, value_of(f, "tokenizer.ggml.add_bos_token"), NULL), 0);
    ck_assert_uint_eq(byte, 1);
    gguf_file_free(f);
}
END_TEST

/* Real twins: converter output in big-endian and in v1/v2 reads the same as the original. */
START_TEST(test_real_twins) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    static const char *const pairs[][2] = {
        {"real/ggml-vocab-llama-spm.gguf", "be/ggml-vocab-llama-spm.be.gguf"},
        {"real/ggml-vocab-bert-bge.gguf", "be/ggml-vocab-bert-bge.be.gguf"},
        {"real/ggml-vocab-bert-bge.gguf", "v1v2/v2_ggml-vocab-bert-bge.gguf"},
        {"synth/kv_all_types.gguf", "be/kv_all_types.be.gguf"},
        {"synth/kv_all_types.gguf", "be/kv_all_types.writer-be.gguf"},
        {"synth/kv_all_types.gguf", "v1v2/v2_kv_all_types.gguf"},
        {"synth/kv_nested_arrays.gguf", "be/kv_nested_arrays.be.gguf"},
        {"synth/kv_scalar_extremes.gguf", "be/kv_scalar_extremes.be.gguf"},
        {"synth/kv_float_special.gguf", "be/kv_float_special.be.gguf"},
        {"synth/kv_empty_values.gguf", "be/kv_empty_values.be.gguf"},
        {"synth/kv_strings_unicode.gguf", "be/kv_strings_unicode.be.gguf"},
        {"synth/kv_long_string.gguf", "be/kv_long_string.be.gguf"},
        {"synth/kv_arrays.gguf", "be/kv_arrays.be.gguf"},
        {"v1v2/v1_kv_types.v3equiv.gguf", "v1v2/v1_kv_types.gguf"},
        {"v1v2/v1_tensors.v3equiv.gguf", "v1v2/v1_tensors.gguf"},
    };
    size_t keys = 0;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        gguf_file *a = open_corpus(pairs[p][0]), *b = open_corpus(pairs[p][1]);
        size_t n = compare_files(a, b, pairs[p][1]);
        ck_assert_msg(n > 0, "%s has no keys", pairs[p][0]);
        keys += n;
        gguf_file_free(a);
        gguf_file_free(b);
    }
    printf("check_kv: %zu corpus pairs, %zu keys compared\n", sizeof pairs / sizeof pairs[0],
           keys);
}
END_TEST

/* What gguf_json_value_write handed over: the pieces joined, how many, the longest; it stops
 * the writing (returns 7) at piece stop_at when that is not 0. */
typedef struct pieces {
    char *data;
    size_t len, cap, count, longest, stop_at;
} pieces;

/* (checks in the loops by `if`: each ck_assert records where it passed, a write per call) */
static int take_piece(void *user, const char *data, size_t len) {
    pieces *p = user;
    if (len == 0)
        ck_abort_msg("an empty piece");
    p->count++;
    if (p->stop_at != 0 && p->count == p->stop_at)
        return 7;
    if (p->cap - p->len < len) {
        p->cap = 2 * (p->len + len);
        p->data = realloc(p->data, p->cap);
        if (p->data == NULL)
            ck_abort_msg("out of memory");
    }
    memcpy(p->data + p->len, data, len);
    p->len += len;
    if (len > p->longest)
        p->longest = len;
    return 0;
}

/* Real files opened as usual and with their header parsed where mapped read alike, and every
 * value's JSON handed over in pieces is gguf_json_value's text: vocabularies (hundreds of
 * pieces), both byte orders, nested arrays, long and non-UTF-8 strings. */
START_TEST(test_real_json_in_pieces) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    static const char *const files[] = {
        "real/ggml-vocab-llama-bpe.gguf", "be/ggml-vocab-llama-spm.be.gguf",
        "synth/kv_all_types.gguf",        "be/kv_all_types.be.gguf",
        "synth/kv_nested_arrays.gguf",    "synth/kv_strings_unicode.gguf",
        "synth/kv_long_string.gguf",      "synth/kv_float_special.gguf",
    };
    size_t values = 0, many_pieces = 0;
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        gguf_file *f = open_corpus(files[k]), *m = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_open(&m, tu_corpus(files[k]), GGUF_OPEN_MAPPED_HEADER, &err) == 0,
                      "%s: %s", files[k], err.message);
        ck_assert_uint_eq(gguf_kv_count(f), gguf_kv_count(m));
        for (size_t i = 0; i < gguf_kv_count(m); i++) {
            const gguf_value *v = gguf_kv_value(m, i);
            size_t la, lb;
            const char *ka = gguf_kv_key(f, i, &la), *kb = gguf_kv_key(m, i, &lb);
            ck_assert_msg(la == lb && memcmp(ka, kb, la) == 0 &&
                              gguf_value_equal(gguf_kv_value(f, i), v) == 1,
                          "%s: key %zu reads otherwise where mapped", files[k], i);
            gguf_text whole = {0};
            ck_assert_int_eq(gguf_json_value(&whole, v), 0);
            if (gguf_value_type(v) == GGUF_VTYPE_ARRAY) {
                /* an array's text is its elements' texts, each rendered alone, between
                 * brackets and commas */
                pieces joined = {0};
                gguf_text one = {0};
                gguf_value_iter it;
                gguf_value e;
                take_piece(&joined, "[", 1);
                gguf_value_iter_init(&it, v);
                for (size_t n = 0; gguf_value_iter_next(&it, &e); n++) {
                    if (n > 0)
                        take_piece(&joined, ",", 1);
                    one.len = 0;
                    if (gguf_json_value(&one, &e) != 0)
                        ck_abort_msg("out of memory");
                    take_piece(&joined, one.data, one.len);
                }
                take_piece(&joined, "]", 1);
                ck_assert_msg(joined.len == whole.len &&
                                  memcmp(joined.data, whole.data, whole.len) == 0,
                              "%s: key %zu: not its elements' texts joined", files[k], i);
                gguf_text_free(&one);
                free(joined.data);
            }
            pieces got = {0};
            ck_assert_int_eq(gguf_json_value_write(v, take_piece, &got), 0);
            ck_assert_msg(got.len == whole.len && memcmp(got.data, whole.data, got.len) == 0,
                          "%s: key %zu: the pieces differ from the whole text", files[k], i);
            /* a piece is handed over once it holds 64 KiB, and a round of writing stops
             * before a string or number that could pass that (these files' strings are
             * short, but for kv_long_string's one) */
            ck_assert_msg(got.longest <= ((size_t)1 << 16) + 64 || got.count == 1,
                          "%s: key %zu: a piece of %zu bytes", files[k], i, got.longest);
            if (whole.len > (size_t)4 << 16) {
                ck_assert_uint_ge(got.count, whole.len / (((size_t)1 << 16) + 64));
                many_pieces++;
                pieces stopped = {.stop_at = 2};
                ck_assert_int_eq(gguf_json_value_write(v, take_piece, &stopped), 7);
                ck_assert_uint_eq(stopped.count, 2);
                free(stopped.data);
            }
            free(got.data);
            gguf_text_free(&whole);
            values++;
        }
        gguf_file_free(f);
        gguf_file_free(m);
    }
    ck_assert_uint_ge(many_pieces, 3); /* llama-bpe's tokens and merges, llama-spm's tokens */
    printf("check_kv: %zu values written whole and in pieces, %zu in many\n", values,
           many_pieces);
}
END_TEST

static Suite *kv_suite(void) {
    Suite *s = suite_create("kv");
    TCase *tc = tcase_create("formats");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_header, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_scalars, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_get_int, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_wrong_type_getters, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_kv_typed_getters, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_find_by_length, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_strings, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_scalar_arrays, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_empty_arrays, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_string_arrays, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_nested_arrays, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_iter_on_scalar, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_keys, 0, N_FORMATS);
    tcase_add_loop_test(tc, test_big_endian_reads_like_little, 0, 3);
    tcase_add_test(tc, test_versions_read_alike);
    tcase_add_loop_test(tc, test_copied_bytes_outlive_the_buffer, 0, N_FORMATS);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("corpus");
    tcase_set_timeout(tr, 300);
    tcase_add_test(tr, test_real_vocab);
    tcase_add_test(tr, test_real_twins);
    tcase_add_test(tr, test_real_json_in_pieces);
    suite_add_tcase(s, tr);
    return s;
}

int main(void) {
    return tu_run_suite(kv_suite());
}
