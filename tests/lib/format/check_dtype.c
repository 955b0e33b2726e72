/* The type tables (dtype.c, and the value-type table in value.c): tensor type names, parsing,
 * block sizes against ggml's own table, tensor byte sizes; value type names, parsing, sizes.
 *
 * The expected block sizes are ggml's, as printed by `ggml-oracle types` (ggml 0.23.0, run
 * over the real ggml library): id, name, elements per block, bytes per block. Removed ids
 * print as DEPRECATED / REMOVED with 0 and 0; this library must not know them. */
#include <check.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <libgguf/gguf.h>
#include "tests/support/testutil.h"

typedef struct oracle_type {
    uint32_t id;
    const char *name; /* ggml's spelling (lower case, K upper), NULL: removed */
    uint32_t blck;
    uint32_t bytes;
} oracle_type;

/* `ggml-oracle types`, verbatim. */
static const oracle_type ORACLE[] = {
    {0, "f32", 1, 4},         {1, "f16", 1, 2},         {2, "q4_0", 32, 18},
    {3, "q4_1", 32, 20},      {4, NULL, 0, 0},          {5, NULL, 0, 0},
    {6, "q5_0", 32, 22},      {7, "q5_1", 32, 24},      {8, "q8_0", 32, 34},
    {9, "q8_1", 32, 36},      {10, "q2_K", 256, 84},    {11, "q3_K", 256, 110},
    {12, "q4_K", 256, 144},   {13, "q5_K", 256, 176},   {14, "q6_K", 256, 210},
    {15, "q8_K", 256, 292},   {16, "iq2_xxs", 256, 66}, {17, "iq2_xs", 256, 74},
    {18, "iq3_xxs", 256, 98}, {19, "iq1_s", 256, 50},   {20, "iq4_nl", 32, 18},
    {21, "iq3_s", 256, 110},  {22, "iq2_s", 256, 82},   {23, "iq4_xs", 256, 136},
    {24, "i8", 1, 1},         {25, "i16", 1, 2},        {26, "i32", 1, 4},
    {27, "i64", 1, 8},        {28, "f64", 1, 8},        {29, "iq1_m", 256, 56},
    {30, "bf16", 1, 2},       {31, NULL, 0, 0},         {32, NULL, 0, 0},
    {33, NULL, 0, 0},         {34, "tq1_0", 256, 54},   {35, "tq2_0", 256, 66},
    {36, NULL, 0, 0},         {37, NULL, 0, 0},         {38, NULL, 0, 0},
    {39, "mxfp4", 32, 17},    {40, "nvfp4", 64, 36},    {41, "q1_0", 128, 18},
    {42, "q2_0", 64, 18},
};
#define N_ORACLE (sizeof ORACLE / sizeof ORACLE[0])

static void to_case(char *out, size_t outsize, const char *in, int upper) {
    size_t i = 0;
    for (; in[i] != '\0' && i + 1 < outsize; i++)
        out[i] = (char)(upper ? toupper((unsigned char)in[i]) : tolower((unsigned char)in[i]));
    out[i] = '\0';
}

/* ---- tensor types ---- */

START_TEST(test_oracle_table_complete) {
    /* the table above covers every id below GGUF_DTYPE_COUNT, in order */
    ck_assert_uint_eq(N_ORACLE, 43);
    ck_assert_uint_eq(GGUF_DTYPE_COUNT, N_ORACLE);
    for (size_t i = 0; i < N_ORACLE; i++)
        ck_assert_uint_eq(ORACLE[i].id, i);
}
END_TEST

START_TEST(test_block_sizes_match_ggml) {
    int known = 0, removed = 0;
    for (size_t i = 0; i < N_ORACLE; i++) {
        const oracle_type *o = &ORACLE[i];
        if (o->name == NULL) {
            ck_assert_msg(gguf_dtype_name(o->id) == NULL, "removed id %u has name %s", o->id,
                          gguf_dtype_name(o->id));
            ck_assert_uint_eq(gguf_dtype_block_elems(o->id), 0);
            ck_assert_uint_eq(gguf_dtype_block_bytes(o->id), 0);
            removed++;
            continue;
        }
        ck_assert_msg(gguf_dtype_block_elems(o->id) == o->blck,
                      "%s (id %u): block of %u elements, ggml says %u", o->name, o->id,
                      gguf_dtype_block_elems(o->id), o->blck);
        ck_assert_msg(gguf_dtype_block_bytes(o->id) == o->bytes,
                      "%s (id %u): block of %u bytes, ggml says %u", o->name, o->id,
                      gguf_dtype_block_bytes(o->id), o->bytes);
        known++;
    }
    ck_assert_int_eq(known, 35);
    ck_assert_int_eq(removed, 8);
}
END_TEST

START_TEST(test_names_match_ggml) {
    for (size_t i = 0; i < N_ORACLE; i++) {
        const oracle_type *o = &ORACLE[i];
        if (o->name == NULL)
            continue;
        const char *name = gguf_dtype_name(o->id);
        ck_assert_msg(name != NULL, "id %u (%s) has no name", o->id, o->name);
        ck_assert_msg(strcasecmp(name, o->name) == 0, "id %u: '%s', ggml says '%s'", o->id, name,
                      o->name);
        /* documented as upper case */
        for (const char *c = name; *c != '\0'; c++)
            ck_assert_msg(!islower((unsigned char)*c), "name '%s' is not upper case", name);
    }
    ck_assert_str_eq(gguf_dtype_name(GGUF_DTYPE_Q4_K), "Q4_K");
    ck_assert_str_eq(gguf_dtype_name(GGUF_DTYPE_BF16), "BF16");
    ck_assert_str_eq(gguf_dtype_name(GGUF_DTYPE_IQ2_XXS), "IQ2_XXS");
    ck_assert_str_eq(gguf_dtype_name(GGUF_DTYPE_MXFP4), "MXFP4");
}
END_TEST

START_TEST(test_enum_values_are_ggml_ids) {
    ck_assert_int_eq(GGUF_DTYPE_F32, 0);
    ck_assert_int_eq(GGUF_DTYPE_Q4_1, 3);
    ck_assert_int_eq(GGUF_DTYPE_Q5_0, 6);
    ck_assert_int_eq(GGUF_DTYPE_Q8_K, 15);
    ck_assert_int_eq(GGUF_DTYPE_IQ4_XS, 23);
    ck_assert_int_eq(GGUF_DTYPE_F64, 28);
    ck_assert_int_eq(GGUF_DTYPE_BF16, 30);
    ck_assert_int_eq(GGUF_DTYPE_TQ1_0, 34);
    ck_assert_int_eq(GGUF_DTYPE_MXFP4, 39);
    ck_assert_int_eq(GGUF_DTYPE_Q2_0, 42);
    /* every known id's name maps back to the enum value the header gives it */
    ck_assert_int_eq(gguf_dtype_parse("IQ1_M"), GGUF_DTYPE_IQ1_M);
    ck_assert_int_eq(gguf_dtype_parse("TQ2_0"), GGUF_DTYPE_TQ2_0);
    ck_assert_int_eq(gguf_dtype_parse("NVFP4"), GGUF_DTYPE_NVFP4);
    ck_assert_int_eq(gguf_dtype_parse("Q1_0"), GGUF_DTYPE_Q1_0);
}
END_TEST

START_TEST(test_parse_any_case) {
    int n = 0;
    for (size_t i = 0; i < N_ORACLE; i++) {
        const oracle_type *o = &ORACLE[i];
        if (o->name == NULL)
            continue;
        char up[32], low[32], mixed[32];
        to_case(up, sizeof up, o->name, 1);
        to_case(low, sizeof low, o->name, 0);
        /* alternate the case of each letter, starting upper */
        snprintf(mixed, sizeof mixed, "%s", o->name);
        for (size_t k = 0; mixed[k] != '\0'; k++)
            mixed[k] = (char)(k % 2 ? tolower((unsigned char)mixed[k])
                                    : toupper((unsigned char)mixed[k]));
        ck_assert_int_eq(gguf_dtype_parse(o->name), (int)o->id); /* ggml's own spelling */
        ck_assert_int_eq(gguf_dtype_parse(up), (int)o->id);
        ck_assert_int_eq(gguf_dtype_parse(low), (int)o->id);
        ck_assert_int_eq(gguf_dtype_parse(mixed), (int)o->id);
        ck_assert_int_eq(gguf_dtype_parse(gguf_dtype_name(o->id)), (int)o->id);
        n++;
    }
    ck_assert_int_eq(n, 35);
}
END_TEST

START_TEST(test_parse_unknown) {
    static const char *const bad[] = {
        "", "Q4_2", "Q4_3", "q4_0_4_4", "Q4_0_8_8", "IQ4_NL_4_4", "DEPRECATED", "F32 ",
        " F32", "F3", "F322", "Q4", "Q4_K_M", "float", "2", "Q4-K",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(gguf_dtype_parse(bad[i]) == -1, "'%s' parsed as %d", bad[i],
                      gguf_dtype_parse(bad[i]));
    ck_assert_int_eq(gguf_dtype_parse(NULL), -1);
}
END_TEST

START_TEST(test_unknown_ids) {
    static const uint32_t ids[] = {4, 5, 31, 32, 33, 36, 37, 38, 43, 44, 64, 255, 1000,
                                   0x7fffffffu, UINT32_MAX};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        ck_assert_msg(gguf_dtype_name(ids[i]) == NULL, "id %u has a name", ids[i]);
        ck_assert_uint_eq(gguf_dtype_block_elems(ids[i]), 0);
        ck_assert_uint_eq(gguf_dtype_block_bytes(ids[i]), 0);
        uint64_t nb = 12345, dims[1] = {32};
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_dtype_nbytes(&nb, ids[i], dims, 1, &err), GGUF_EUNSUPPORTED);
        ck_assert_int_eq(err.code, GGUF_EUNSUPPORTED);
        ck_assert_msg(err.message[0] != '\0', "no message for unknown id %u", ids[i]);
        ck_assert_uint_eq(nb, 12345); /* untouched */
    }
    /* the message names the id */
    uint64_t nb, dims[1] = {32};
    gguf_error err;
    gguf_error_clear(&err);
    gguf_dtype_nbytes(&nb, 1000, dims, 1, &err);
    ck_assert_msg(strstr(err.message, "1000") != NULL, "message: %s", err.message);
}
END_TEST

/* ---- gguf_dtype_nbytes ---- */

static uint64_t nbytes_ok(uint32_t type, const uint64_t *dims, uint32_t n_dims) {
    uint64_t nb = 0xdeadbeef;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_dtype_nbytes(&nb, type, dims, n_dims, &err);
    ck_assert_msg(rc == 0, "nbytes(%s) failed: %d %s", gguf_dtype_name(type), rc, err.message);
    ck_assert_int_eq(err.code, 0);
    return nb;
}

START_TEST(test_nbytes_every_type) {
    /* one row of two blocks, three rows, two planes: 12 blocks */
    int n = 0;
    for (size_t i = 0; i < N_ORACLE; i++) {
        const oracle_type *o = &ORACLE[i];
        if (o->name == NULL)
            continue;
        uint64_t dims[3] = {2 * (uint64_t)o->blck, 3, 2};
        ck_assert_uint_eq(nbytes_ok(o->id, dims, 3), 12 * (uint64_t)o->bytes);
        ck_assert_uint_eq(nbytes_ok(o->id, dims, 1), 2 * (uint64_t)o->bytes);
        uint64_t one_block[4] = {o->blck, 1, 1, 1};
        ck_assert_uint_eq(nbytes_ok(o->id, one_block, 4), o->bytes);
        n++;
    }
    ck_assert_int_eq(n, 35);
}
END_TEST

START_TEST(test_nbytes_examples) {
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){4, 3}, 2), 48);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F16, (uint64_t[]){7, 5, 3, 2}, 4), 7 * 5 * 3 * 2 * 2);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_Q4_0, (uint64_t[]){64, 2}, 2), 2 * 2 * 18);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_Q4_K, (uint64_t[]){4096, 4096}, 2),
                      16 * 4096 * (uint64_t)144);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_I8, (uint64_t[]){3}, 1), 3);
    /* dims beyond n_dims are ignored */
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){5, 999, 999, 999}, 1), 20);
}
END_TEST

START_TEST(test_nbytes_zero_dims) {
    /* a zero anywhere makes an empty tensor, never an error */
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){0}, 1), 0);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){0, 5}, 2), 0);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){4, 0}, 2), 0);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_Q4_K, (uint64_t[]){0, 7}, 2), 0);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_Q8_0, (uint64_t[]){32, 7, 0, 9}, 4), 0);
    /* zero rows of a long row: 0 */
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){1ull << 40, 0}, 2), 0);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){1ull << 40, 1ull << 20, 0}, 3), 0);
    /* n_dims 0: one element (ggml reads such a tensor as a scalar) */
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){77}, 0), 4);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F64, NULL, 0), 8);
}
END_TEST

static void nbytes_fails(int expect, uint32_t type, const uint64_t *dims, uint32_t n_dims,
                         const char *needle) {
    uint64_t nb = 0x5555;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_dtype_nbytes(&nb, type, dims, n_dims, &err);
    ck_assert_msg(rc == expect, "%s: rc %d, expected %d (%s)", gguf_dtype_name(type), rc, expect,
                  err.message);
    ck_assert_int_eq(err.code, expect);
    ck_assert_msg(err.message[0] != '\0', "no message");
    ck_assert_uint_eq(err.offset, GGUF_ERROR_NO_OFFSET);
    ck_assert_uint_eq(nb, 0x5555);
    if (needle != NULL)
        ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' not in '%s'", needle,
                      err.message);
    /* err may be NULL */
    nb = 0x5555;
    ck_assert_int_eq(gguf_dtype_nbytes(&nb, type, dims, n_dims, NULL), expect);
    ck_assert_uint_eq(nb, 0x5555);
}

START_TEST(test_nbytes_row_not_multiple_of_block) {
    nbytes_fails(GGUF_ECORRUPT, GGUF_DTYPE_Q4_0, (uint64_t[]){33}, 1, "33");
    nbytes_fails(GGUF_ECORRUPT, GGUF_DTYPE_Q4_0, (uint64_t[]){16, 2}, 2, "16");
    nbytes_fails(GGUF_ECORRUPT, GGUF_DTYPE_Q4_K, (uint64_t[]){128, 4}, 2, "Q4_K");
    nbytes_fails(GGUF_ECORRUPT, GGUF_DTYPE_Q8_0, (uint64_t[]){31, 1, 1, 1}, 4, NULL);
    nbytes_fails(GGUF_ECORRUPT, GGUF_DTYPE_NVFP4, (uint64_t[]){32}, 1, NULL);
    /* only the row counts: dims[1] need not be a multiple of anything */
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_Q4_0, (uint64_t[]){32, 3}, 2), 3 * 18);
    /* a scalar (n_dims 0) of a block type is one element: not a whole block */
    nbytes_fails(GGUF_ECORRUPT, GGUF_DTYPE_Q4_0, NULL, 0, NULL);
    /* every block type refuses a row one element short of a block */
    int n = 0;
    for (size_t i = 0; i < N_ORACLE; i++) {
        if (ORACLE[i].name == NULL || ORACLE[i].blck == 1)
            continue;
        nbytes_fails(GGUF_ECORRUPT, ORACLE[i].id, (uint64_t[]){ORACLE[i].blck - 1}, 1, NULL);
        nbytes_fails(GGUF_ECORRUPT, ORACLE[i].id, (uint64_t[]){ORACLE[i].blck + 1}, 1, NULL);
        n++;
    }
    ck_assert_int_eq(n, 27);
}
END_TEST

START_TEST(test_nbytes_overflow) {
    /* 2^62 floats: 2^64 bytes */
    nbytes_fails(GGUF_ELIMIT, GGUF_DTYPE_F32, (uint64_t[]){1ull << 62}, 1, NULL);
    nbytes_fails(GGUF_ELIMIT, GGUF_DTYPE_F32, (uint64_t[]){1ull << 40, 1ull << 40}, 2, NULL);
    nbytes_fails(GGUF_ELIMIT, GGUF_DTYPE_I8, (uint64_t[]){1ull << 32, 1ull << 16, 1ull << 16}, 3,
                 NULL);
    nbytes_fails(GGUF_ELIMIT, GGUF_DTYPE_F64, (uint64_t[]){2, 2, 2, UINT64_MAX / 8}, 4, NULL);
    /* 2^59 - 1 blocks of 34 bytes */
    nbytes_fails(GGUF_ELIMIT, GGUF_DTYPE_Q8_0, (uint64_t[]){UINT64_MAX - 31}, 1, NULL);
    nbytes_fails(GGUF_ELIMIT, GGUF_DTYPE_Q4_K, (uint64_t[]){256, UINT64_MAX}, 2, NULL);
    /* just below the limit is fine */
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_F32, (uint64_t[]){(1ull << 62) - 1}, 1),
                      UINT64_MAX - 3);
    ck_assert_uint_eq(nbytes_ok(GGUF_DTYPE_I8, (uint64_t[]){1ull << 32, 1ull << 31}, 2),
                      1ull << 63);
}
END_TEST

START_TEST(test_nbytes_bad_args) {
    uint64_t nb = 7, dims[5] = {1, 1, 1, 1, 1};
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_dtype_nbytes(&nb, GGUF_DTYPE_F32, dims, 5, &err), GGUF_EINVAL);
    ck_assert_int_eq(err.code, GGUF_EINVAL);
    ck_assert_uint_eq(nb, 7);
}
END_TEST

START_TEST(test_first_error_wins) {
    uint64_t nb = 7;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(err.code, 0);
    ck_assert_uint_eq(err.offset, GGUF_ERROR_NO_OFFSET);
    ck_assert_str_eq(err.message, "");
    ck_assert_int_eq(gguf_dtype_nbytes(&nb, 4, (uint64_t[]){32}, 1, &err), GGUF_EUNSUPPORTED);
    char first[GGUF_ERROR_MESSAGE_MAX];
    memcpy(first, err.message, sizeof first);
    ck_assert_int_eq(gguf_dtype_nbytes(&nb, GGUF_DTYPE_Q4_0, (uint64_t[]){3}, 1, &err),
                     GGUF_ECORRUPT);
    ck_assert_int_eq(err.code, GGUF_EUNSUPPORTED);
    ck_assert_str_eq(err.message, first);
    /* a success does not clear it either */
    ck_assert_int_eq(gguf_dtype_nbytes(&nb, GGUF_DTYPE_F32, (uint64_t[]){3}, 1, &err), 0);
    ck_assert_int_eq(err.code, GGUF_EUNSUPPORTED);
    ck_assert_uint_eq(nb, 12);
}
END_TEST

/* ---- value types ---- */

static const struct {
    uint32_t id;
    const char *name;
    const char *short_name;
    size_t size;
} VTYPES[] = {
    {GGUF_VTYPE_U8, "UINT8", "u8", 1},        {GGUF_VTYPE_I8, "INT8", "i8", 1},
    {GGUF_VTYPE_U16, "UINT16", "u16", 2},     {GGUF_VTYPE_I16, "INT16", "i16", 2},
    {GGUF_VTYPE_U32, "UINT32", "u32", 4},     {GGUF_VTYPE_I32, "INT32", "i32", 4},
    {GGUF_VTYPE_F32, "FLOAT32", "f32", 4},    {GGUF_VTYPE_BOOL, "BOOL", "bool", 1},
    {GGUF_VTYPE_STRING, "STRING", "str", 0},  {GGUF_VTYPE_ARRAY, "ARRAY", NULL, 0},
    {GGUF_VTYPE_U64, "UINT64", "u64", 8},     {GGUF_VTYPE_I64, "INT64", "i64", 8},
    {GGUF_VTYPE_F64, "FLOAT64", "f64", 8},
};
#define N_VTYPES (sizeof VTYPES / sizeof VTYPES[0])

START_TEST(test_vtype_ids) {
    ck_assert_uint_eq(N_VTYPES, GGUF_VTYPE_COUNT);
    ck_assert_int_eq(GGUF_VTYPE_COUNT, 13);
    for (size_t i = 0; i < N_VTYPES; i++)
        ck_assert_uint_eq(VTYPES[i].id, i); /* the spec's ids, in order */
}
END_TEST

START_TEST(test_vtype_names) {
    for (size_t i = 0; i < N_VTYPES; i++) {
        const char *name = gguf_vtype_name(VTYPES[i].id);
        ck_assert_msg(name != NULL, "vtype %u has no name", VTYPES[i].id);
        ck_assert_str_eq(name, VTYPES[i].name);
    }
    static const uint32_t unknown[] = {13, 14, 255, 256, 0x80000000u, UINT32_MAX};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        ck_assert_ptr_null(gguf_vtype_name(unknown[i]));
}
END_TEST

START_TEST(test_vtype_parse) {
    for (size_t i = 0; i < N_VTYPES; i++) {
        ck_assert_int_eq(gguf_vtype_parse(VTYPES[i].name), (int)VTYPES[i].id);
        if (VTYPES[i].short_name != NULL)
            ck_assert_int_eq(gguf_vtype_parse(VTYPES[i].short_name), (int)VTYPES[i].id);
    }
    ck_assert_int_eq(gguf_vtype_parse("str"), GGUF_VTYPE_STRING);
    ck_assert_int_eq(gguf_vtype_parse("bool"), GGUF_VTYPE_BOOL);
    ck_assert_int_eq(gguf_vtype_parse("f32"), GGUF_VTYPE_F32);
    static const char *const bad[] = {"", "u128", "UINT", "uint", "float", "int", "s",
                                      "UINT32 ", "u 32", "9", "f16", "bf16", "char"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(gguf_vtype_parse(bad[i]) == -1, "'%s' parsed as %d", bad[i],
                      gguf_vtype_parse(bad[i]));
    ck_assert_int_eq(gguf_vtype_parse(NULL), -1);
}
END_TEST

START_TEST(test_vtype_sizes) {
    for (size_t i = 0; i < N_VTYPES; i++)
        ck_assert_msg(gguf_vtype_size(VTYPES[i].id) == VTYPES[i].size, "%s: %zu, expected %zu",
                      VTYPES[i].name, gguf_vtype_size(VTYPES[i].id), VTYPES[i].size);
    ck_assert_uint_eq(gguf_vtype_size(13), 0);
    ck_assert_uint_eq(gguf_vtype_size(UINT32_MAX), 0);
}
END_TEST

static Suite *dtype_suite(void) {
    Suite *s = suite_create("dtype");
    TCase *tc = tcase_create("dtype");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_oracle_table_complete);
    tcase_add_test(tc, test_block_sizes_match_ggml);
    tcase_add_test(tc, test_names_match_ggml);
    tcase_add_test(tc, test_enum_values_are_ggml_ids);
    tcase_add_test(tc, test_parse_any_case);
    tcase_add_test(tc, test_parse_unknown);
    tcase_add_test(tc, test_unknown_ids);
    tcase_add_test(tc, test_nbytes_every_type);
    tcase_add_test(tc, test_nbytes_examples);
    tcase_add_test(tc, test_nbytes_zero_dims);
    tcase_add_test(tc, test_nbytes_row_not_multiple_of_block);
    tcase_add_test(tc, test_nbytes_overflow);
    tcase_add_test(tc, test_nbytes_bad_args);
    tcase_add_test(tc, test_first_error_wins);
    suite_add_tcase(s, tc);
    TCase *tv = tcase_create("vtype");
    tcase_set_timeout(tv, 120);
    tcase_add_test(tv, test_vtype_ids);
    tcase_add_test(tv, test_vtype_names);
    tcase_add_test(tv, test_vtype_parse);
    tcase_add_test(tv, test_vtype_sizes);
    suite_add_tcase(s, tv);
    return s;
}

int main(void) {
    return tu_run_suite(dtype_suite());
}
