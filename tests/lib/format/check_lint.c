/* gguf_file_lint (lint.c): what llama.cpp would refuse, or the spec forbids, in files this
 * library accepts. Each rule on bytes built here (count, message naming the key or tensor,
 * offset), a clean file giving 0, and the whole corpus against ggml's own verdicts
 * (../shared/corpus/MANIFEST.tsv: a file ggml refuses must draw a warning; a file ggml reads,
 * none, apart from the spec-only findings listed below). */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libgguf/gguf.h>
#include "tests/support/testutil.h"
#include "tests/support/gguf_builder.h"

#define MAX_WARNINGS 32

typedef struct warnings {
    int n;
    char msg[MAX_WARNINGS][GGUF_ERROR_MESSAGE_MAX];
    uint64_t offset[MAX_WARNINGS];
} warnings;

static void collect(void *user, const char *message, uint64_t offset) {
    warnings *w = user;
    ck_assert_ptr_nonnull(message);
    ck_assert_msg(message[0] != '\0', "empty warning");
    if (w->n < MAX_WARNINGS) {
        snprintf(w->msg[w->n], sizeof w->msg[w->n], "%s", message);
        w->offset[w->n] = offset;
    }
    w->n++;
}

/* Lints an open file; the return value must equal the warnings reported, and lint without a
 * callback must count the same. */
static int lint_file(const gguf_file *f, warnings *w) {
    memset(w, 0, sizeof *w);
    gguf_error err;
    gguf_error_clear(&err);
    int n = gguf_file_lint(f, collect, w, &err);
    ck_assert_msg(n >= 0, "lint failed: %d %s", n, err.message);
    ck_assert_int_eq(err.code, 0);
    ck_assert_int_eq(n, w->n);
    ck_assert_int_eq(gguf_file_lint(f, NULL, NULL, NULL), n);
    for (int i = 0; i < w->n && i < MAX_WARNINGS; i++)
        ck_assert_msg(w->offset[i] < gguf_file_size(f) || w->offset[i] == GGUF_ERROR_NO_OFFSET,
                      "warning offset %" PRIu64 " outside the file: %s", w->offset[i],
                      w->msg[i]);
    return n;
}

static int lint_bytes(const gb *b, unsigned flags, warnings *w) {
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open_memory(&f, b->p, b->len, 1, flags, &err);
    ck_assert_msg(rc == 0, "fixture refused: %s", err.message);
    int n = lint_file(f, w);
    gguf_file_free(f);
    return n;
}

static void dump(const warnings *w) {
    for (int i = 0; i < w->n && i < MAX_WARNINGS; i++)
        fprintf(stderr, "  warning %d at %" PRIu64 ": %s\n", i, w->offset[i], w->msg[i]);
}

/* Exactly one warning, containing each of the needles (NULL-terminated), at `offset`. */
static void expect_one(const warnings *w, uint64_t offset, const char *needle, ...) {
    if (w->n != 1)
        dump(w);
    ck_assert_int_eq(w->n, 1);
    ck_assert_msg(w->offset[0] == offset, "offset %" PRIu64 ", expected %" PRIu64 ": %s",
                  w->offset[0], offset, w->msg[0]);
    va_list ap;
    va_start(ap, needle);
    for (const char *s = needle; s != NULL; s = va_arg(ap, const char *))
        ck_assert_msg(strstr(w->msg[0], s) != NULL, "'%s' not in: %s", s, w->msg[0]);
    va_end(ap);
}

/* ---- a clean file ---- */

/* v3 (or as given), alignment 32 unless `align` says otherwise (then stated in a key), three
 * packed tensors in info order, all the value kinds ggml reads. */
static void build_clean(gb *b, uint32_t version, int big, uint32_t align) {
    gb_begin(b, version, big, 3, align ? 7 : 6);
    gb_kv(b, "general.architecture", GGUF_VTYPE_STRING), gb_str(b, "llama");
    if (align)
        gb_kv(b, "general.alignment", GGUF_VTYPE_U32), gb_u32(b, align);
    gb_kv(b, "llama.context_length", GGUF_VTYPE_U32), gb_u32(b, 4096);
    gb_kv(b, "tokenizer.ggml.add_bos_token", GGUF_VTYPE_BOOL), gb_u8(b, 1);
    gb_kv(b, "tokenizer.ggml.add_eos_token", GGUF_VTYPE_BOOL), gb_u8(b, 0);
    gb_kv(b, "tokenizer.ggml.tokens", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_STRING, 3);
    gb_str(b, "<s>"), gb_str(b, ""), gb_str(b, "\xc3\xa9"); /* values may be any UTF-8 */
    gb_kv(b, "flags", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_BOOL, 2), gb_u8(b, 0), gb_u8(b, 1);
    uint32_t a = align ? align : 32;
    /* sizes 20, 36, 6: padded to the alignment in turn */
    uint64_t o1 = (20 + a - 1) / a * a, o2 = o1 + (36 + a - 1) / a * a;
    gb_tensor(b, "token_embd.weight", 1, (const uint64_t[]){5}, GGUF_DTYPE_F32, 0);
    gb_tensor(b, "blk.0.attn_q.weight", 1, (const uint64_t[]){64}, GGUF_DTYPE_Q4_0, o1);
    gb_tensor(b, "output_norm.weight", 1, (const uint64_t[]){3}, GGUF_DTYPE_F16, o2);
    gb_align(b, a);
    gb_pattern(b, 20, 1);
    gb_fill(b, 0, (size_t)(o1 - 20));
    gb_pattern(b, 36, 2);
    gb_fill(b, 0, (size_t)(o2 - o1 - 36));
    gb_pattern(b, 6, 3);
}

START_TEST(test_clean_files) {
    warnings w;
    gb b;
    build_clean(&b, 3, 0, 0);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    /* trailing bytes after the last tensor: ggml ignores them */
    gb_fill(&b, 0xEE, 100);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    gb_free(&b);
    build_clean(&b, 2, 0, 0);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    gb_free(&b);
    static const uint32_t pow2[] = {32, 64, 8, 1};
    for (size_t i = 0; i < sizeof pow2 / sizeof pow2[0]; i++) {
        build_clean(&b, 3, 0, pow2[i]);
        if (lint_bytes(&b, 0, &w) != 0)
            dump(&w);
        ck_assert_int_eq(w.n, 0);
        gb_free(&b);
    }
    gb_begin(&b, 3, 0, 0, 0);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    gb_free(&b);
    /* no file: an error, not a count */
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_lint(NULL, collect, &w, &err), GGUF_EINVAL);
    ck_assert_int_eq(err.code, GGUF_EINVAL);
}
END_TEST

/* ---- the file as a whole ---- */

START_TEST(test_alignment_48) {
    warnings w;
    gb b;
    build_clean(&b, 3, 0, 48);
    gguf_file *f = NULL;
    ck_assert_int_eq(gguf_file_open_memory(&f, b.p, b.len, 0, 0, NULL), 0);
    uint64_t at = gguf_kv_source_offset(f, (size_t)gguf_kv_find(f, "general.alignment"));
    lint_file(f, &w);
    expect_one(&w, at, "48", "alignment", NULL);
    gguf_file_free(f);
    gb_free(&b);
    /* 24 too; 64 is fine (test_clean_files) */
    build_clean(&b, 3, 0, 24);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 1);
    ck_assert(strstr(w.msg[0], "24") != NULL);
    gb_free(&b);
}
END_TEST

START_TEST(test_v1_file) {
    warnings w;
    gb b;
    build_clean(&b, 1, 0, 0);
    lint_bytes(&b, 0, &w);
    expect_one(&w, 4, "v1", NULL);
    gb_free(&b);
}
END_TEST

START_TEST(test_big_endian_file) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    warnings w;
    gb b;
    build_clean(&b, 3, 1, 0);
    lint_bytes(&b, 0, &w);
    expect_one(&w, 4, "big-endian", NULL);
    gb_free(&b);
    /* a little-endian file on this host: nothing */
    build_clean(&b, 3, 0, 0);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    gb_free(&b);
#else
    printf("check_lint: big-endian host: the little-endian case is the one that warns\n");
    warnings w;
    gb b;
    build_clean(&b, 3, 0, 0);
    lint_bytes(&b, 0, &w);
    expect_one(&w, 4, "little-endian", NULL);
    gb_free(&b);
#endif
}
END_TEST

/* ---- tensor layout ---- */

START_TEST(test_gap_between_tensors) {
    warnings w;
    gb b;
    gb_begin(&b, 3, 0, 3, 0);
    gb_tensor(&b, "first", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 0); /* 32 bytes */
    size_t second_at = b.len;
    gb_tensor(&b, "second", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 64); /* ggml: 32 */
    gb_tensor(&b, "third", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 96);
    gb_align(&b, 32);
    gb_pattern(&b, 128, 1);
    lint_bytes(&b, 0, &w);
    expect_one(&w, second_at, "'second'", "64", "32", NULL); /* reported once, at the first */
    gb_free(&b);
    /* data not in info order: the first info's data comes second */
    gb_begin(&b, 3, 0, 2, 0);
    size_t first_at = b.len;
    gb_tensor(&b, "late", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 32);
    gb_tensor(&b, "early", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 0);
    gb_align(&b, 32);
    gb_pattern(&b, 64, 1);
    lint_bytes(&b, 0, &w);
    expect_one(&w, first_at, "'late'", NULL);
    gb_free(&b);
    /* a gap before the first tensor */
    gb_begin(&b, 3, 0, 1, 0);
    size_t only_at = b.len;
    gb_tensor(&b, "only", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 32);
    gb_align(&b, 32);
    gb_pattern(&b, 64, 1);
    lint_bytes(&b, 0, &w);
    expect_one(&w, only_at, "'only'", NULL);
    gb_free(&b);
}
END_TEST

START_TEST(test_tensor_name_64) {
    warnings w;
    gb b;
    char name[65];
    memset(name, 'x', 64);
    name[0] = 'N';
    name[64] = '\0';
    for (size_t len = 62; len <= 64; len++) {
        gb_begin(&b, 3, 0, 1, 0);
        size_t at = b.len;
        gb_tensorn(&b, name, len, 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 0);
        gb_align(&b, 32);
        gb_pattern(&b, 16, 1);
        int n = lint_bytes(&b, 0, &w);
        if (len < 64) {
            ck_assert_msg(n == 0, "a %zu-byte name drew %d warnings", len, n);
        } else {
            expect_one(&w, at, "64", "'Nxxxx", NULL);
        }
        gb_free(&b);
    }
}
END_TEST

START_TEST(test_unknown_tensor_type) {
    warnings w;
    gb b;
    gb_begin(&b, 3, 0, 1, 0);
    size_t at = b.len;
    gb_tensor(&b, "mystery", 1, (const uint64_t[]){32}, 777, 0);
    gb_align(&b, 32);
    gb_pattern(&b, 64, 1);
    lint_bytes(&b, GGUF_OPEN_UNKNOWN_TYPES, &w);
    expect_one(&w, at, "'mystery'", "777", NULL);
    gb_free(&b);
}
END_TEST

/* ---- keys and values ---- */

static void one_key(gb *b, const char *key, size_t key_len, uint32_t type, uint64_t *at) {
    gb_begin(b, 3, 0, 0, 2);
    gb_kv(b, "general.architecture", GGUF_VTYPE_STRING), gb_str(b, "llama");
    *at = b->len;
    gb_kvn(b, key, key_len, type);
}

START_TEST(test_bool_bytes) {
    warnings w;
    gb b;
    uint64_t at;
    static const uint8_t bad[] = {2, 3, 0x80, 0xff};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        one_key(&b, "flag.scalar", 11, GGUF_VTYPE_BOOL, &at);
        gb_u8(&b, bad[i]);
        lint_bytes(&b, 0, &w);
        char num[8];
        snprintf(num, sizeof num, "%u", bad[i]);
        expect_one(&w, at, "'flag.scalar'", num, NULL);
        gb_free(&b);
    }
    /* inside an array: one warning for the key, with the count and the first bad byte */
    one_key(&b, "flag.array", 10, GGUF_VTYPE_ARRAY, &at);
    gb_arr(&b, GGUF_VTYPE_BOOL, 5);
    gb_u8(&b, 1), gb_u8(&b, 2), gb_u8(&b, 0), gb_u8(&b, 7), gb_u8(&b, 1);
    lint_bytes(&b, 0, &w);
    expect_one(&w, at, "'flag.array'", "2", NULL);
    gb_free(&b);
    /* 0 and 1 are fine */
    one_key(&b, "flag.ok", 7, GGUF_VTYPE_ARRAY, &at);
    gb_arr(&b, GGUF_VTYPE_BOOL, 3), gb_u8(&b, 1), gb_u8(&b, 0), gb_u8(&b, 1);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    gb_free(&b);
    /* a u8 of 2 is not a bool */
    one_key(&b, "byte", 4, GGUF_VTYPE_U8, &at);
    gb_u8(&b, 2);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    gb_free(&b);
}
END_TEST

START_TEST(test_long_key) {
    warnings w;
    gb b;
    uint64_t at;
    char *key = malloc(70000);
    ck_assert_ptr_nonnull(key);
    memset(key, 'k', 70000);
    memcpy(key, "long.", 5);
    for (size_t len = 65534; len <= 65536; len++) {
        one_key(&b, key, len, GGUF_VTYPE_U8, &at);
        gb_u8(&b, 1);
        int n = lint_bytes(&b, 0, &w);
        if (len <= 65535) {
            ck_assert_msg(n == 0, "a %zu-byte key drew %d warnings", len, n);
        } else {
            expect_one(&w, at, "65536", "'long.kkk", NULL);
        }
        gb_free(&b);
    }
    one_key(&b, key, 70000, GGUF_VTYPE_STRING, &at);
    gb_str(&b, "v");
    lint_bytes(&b, 0, &w);
    expect_one(&w, at, "70000", "'long.kkk", NULL);
    gb_free(&b);
    free(key);
}
END_TEST

START_TEST(test_non_ascii_key) {
    warnings w;
    gb b;
    uint64_t at;
    static const char *const keys[] = {"caf\xc3\xa9.name", "raw\xff\xfe\x80", "\x80start"};
    static const char *const shown[] = {"caf", "raw", "start"};
    for (size_t i = 0; i < 3; i++) {
        one_key(&b, keys[i], strlen(keys[i]), GGUF_VTYPE_U32, &at);
        gb_u32(&b, 1);
        lint_bytes(&b, 0, &w);
        expect_one(&w, at, shown[i], "ASCII", NULL);
        gb_free(&b);
    }
    /* every printable ASCII byte is fine, and so are control bytes (ASCII too) */
    char ascii[96];
    for (int c = 0; c < 95; c++)
        ascii[c] = (char)(0x20 + c);
    ascii[95] = '\t';
    one_key(&b, ascii, sizeof ascii, GGUF_VTYPE_U32, &at);
    gb_u32(&b, 1);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 0);
    gb_free(&b);
}
END_TEST

START_TEST(test_nested_arrays) {
    warnings w;
    gb b;
    uint64_t at;
    one_key(&b, "test.nested", 11, GGUF_VTYPE_ARRAY, &at);
    gb_arr(&b, GGUF_VTYPE_ARRAY, 2);
    gb_arr(&b, GGUF_VTYPE_U32, 1), gb_u32(&b, 1);
    gb_arr(&b, GGUF_VTYPE_STRING, 1), gb_str(&b, "s");
    lint_bytes(&b, 0, &w);
    expect_one(&w, at, "'test.nested'", "nested", NULL);
    gb_free(&b);
    /* ggml refuses the type itself, so an empty array of arrays counts too */
    one_key(&b, "test.empty", 10, GGUF_VTYPE_ARRAY, &at);
    gb_arr(&b, GGUF_VTYPE_ARRAY, 0);
    lint_bytes(&b, 0, &w);
    expect_one(&w, at, "'test.empty'", NULL);
    gb_free(&b);
    /* three levels: still one warning for the key */
    one_key(&b, "test.deep", 9, GGUF_VTYPE_ARRAY, &at);
    gb_arr(&b, GGUF_VTYPE_ARRAY, 1), gb_arr(&b, GGUF_VTYPE_ARRAY, 1), gb_arr(&b, GGUF_VTYPE_I8, 0);
    lint_bytes(&b, 0, &w);
    expect_one(&w, at, "'test.deep'", NULL);
    gb_free(&b);
    /* a bad bool deep inside: two findings for the key */
    one_key(&b, "test.both", 9, GGUF_VTYPE_ARRAY, &at);
    gb_arr(&b, GGUF_VTYPE_ARRAY, 2);
    gb_arr(&b, GGUF_VTYPE_BOOL, 1), gb_u8(&b, 1);
    gb_arr(&b, GGUF_VTYPE_BOOL, 2), gb_u8(&b, 0), gb_u8(&b, 9);
    ck_assert_int_eq(lint_bytes(&b, 0, &w), 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_uint_eq(w.offset[i], at);
        ck_assert_msg(strstr(w.msg[i], "'test.both'") != NULL, "%s", w.msg[i]);
    }
    ck_assert(strstr(w.msg[0], "9") != NULL || strstr(w.msg[1], "9") != NULL);
    gb_free(&b);
}
END_TEST

/* Duplicates reach lint only through GGUF_OPEN_LENIENT; ggml refuses them. */
START_TEST(test_duplicates_when_lenient) {
    warnings w;
    gb b;
    gb_begin(&b, 3, 0, 0, 2);
    gb_kv(&b, "dup.key", GGUF_VTYPE_U8), gb_u8(&b, 1);
    size_t at = b.len;
    gb_kv(&b, "dup.key", GGUF_VTYPE_U8), gb_u8(&b, 2);
    lint_bytes(&b, GGUF_OPEN_LENIENT, &w);
    expect_one(&w, at, "'dup.key'", NULL);
    gb_free(&b);
    gb_begin(&b, 3, 0, 2, 0);
    gb_tensor(&b, "dup.t", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 0);
    at = b.len;
    gb_tensor(&b, "dup.t", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 32);
    gb_align(&b, 32);
    gb_pattern(&b, 64, 1);
    lint_bytes(&b, GGUF_OPEN_LENIENT, &w);
    expect_one(&w, at, "'dup.t'", NULL);
    gb_free(&b);
}
END_TEST

/* Everything at once: the count is the sum, each finding reported once. */
START_TEST(test_many_findings) {
    warnings w;
    gb b;
    char longkey[65537];
    memset(longkey, 'L', sizeof longkey);
    gb_begin(&b, 1, 0, 2, 5);                                          /* v1: 1 */
    gb_kv(&b, "general.alignment", GGUF_VTYPE_U32), gb_u32(&b, 40);   /* 40: 1 */
    gb_kv(&b, "b", GGUF_VTYPE_BOOL), gb_u8(&b, 2);                    /* bool: 1 */
    gb_kvn(&b, longkey, sizeof longkey, GGUF_VTYPE_U8), gb_u8(&b, 0); /* long: 1 */
    gb_kv(&b, "\xe2\x82\xac", GGUF_VTYPE_U8), gb_u8(&b, 0);           /* non-ASCII: 1 */
    gb_kv(&b, "n", GGUF_VTYPE_ARRAY), gb_arr(&b, GGUF_VTYPE_ARRAY, 0); /* nested: 1 */
    char name64[64];
    memset(name64, 'T', sizeof name64);
    gb_tensorn(&b, name64, 64, 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 0); /* name: 1 */
    gb_tensor(&b, "gap", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 80);      /* gap: 1 */
    gb_align(&b, 40);
    gb_pattern(&b, 96, 1);
    int n = lint_bytes(&b, 0, &w);
    if (n != 8)
        dump(&w);
    ck_assert_int_eq(n, 8);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            ck_assert_str_ne(w.msg[i], w.msg[j]);
    gb_free(&b);
}
END_TEST

/* ---- the corpus, against ggml's verdicts ---- */

/* Files ggml reads but the spec forbids something in: lint warns anyway. */
static const char *const SPEC_ONLY[] = {
    "bad/bool_byte_2.gguf",     /* ggml reads any byte as a bool */
    "bad/key_70000_bytes.gguf", /* ggml has no key length limit below 1 GiB */
    "bad/key_non_utf8.gguf",    /* ggml takes any key bytes */
};

static int spec_only(const char *file) {
    for (size_t i = 0; i < sizeof SPEC_ONLY / sizeof SPEC_ONLY[0]; i++)
        if (strcmp(file, SPEC_ONLY[i]) == 0)
            return 1;
    return 0;
}

START_TEST(test_corpus_against_ggml) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    FILE *fp = fopen(tu_corpus("MANIFEST.tsv"), "r");
    ck_assert_ptr_nonnull(fp);
    char line[4096];
    int files = 0, linted = 0, ggml_refuses = 0, ggml_reads = 0, spec = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        char *fields[5] = {0};
        int nf = 0;
        for (char *tok = strtok(line, "\t\n"); tok != NULL && nf < 5; tok = strtok(NULL, "\t\n"))
            fields[nf++] = tok;
        if (nf < 4 || strcmp(fields[0], "file") == 0)
            continue;
        const char *file = fields[0];
        int ggml_ok = strcmp(fields[3], "accept") == 0;
        ck_assert_msg(ggml_ok || strcmp(fields[3], "refuse") == 0, "%s: verdict '%s'", file,
                      fields[3]);
        files++;
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        if (gguf_file_open(&f, tu_corpus(file), 0, &err) != 0)
            continue; /* refused by us as well: nothing to lint */
        warnings w;
        int n = lint_file(f, &w);
        gguf_file_free(f);
        linted++;
        if (!ggml_ok) {
            ck_assert_msg(n > 0, "%s: ggml refuses it (%s), lint finds nothing", file,
                          nf > 4 ? fields[4] : "?");
            ggml_refuses++;
        } else if (spec_only(file)) {
            ck_assert_msg(n > 0, "%s: lint finds nothing", file);
            spec++;
        } else {
            if (n != 0)
                dump(&w);
            ck_assert_msg(n == 0, "%s: ggml reads it, lint warns %d times: %s", file, n, w.msg[0]);
            ggml_reads++;
        }
    }
    fclose(fp);
    printf("check_lint: %d corpus files, %d linted: %d refused by ggml warned, %d read by ggml "
           "clean, %d spec-only findings\n",
           files, linted, ggml_refuses, ggml_reads, spec);
    ck_assert_int_ge(files, 120);
    ck_assert_int_ge(ggml_refuses, 25);
    ck_assert_int_ge(ggml_reads, 30);
    ck_assert_int_eq(spec, (int)(sizeof SPEC_ONLY / sizeof SPEC_ONLY[0]));
}
END_TEST

static Suite *lint_suite(void) {
    Suite *s = suite_create("lint");
    TCase *tc = tcase_create("rules");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_clean_files);
    tcase_add_test(tc, test_alignment_48);
    tcase_add_test(tc, test_v1_file);
    tcase_add_test(tc, test_big_endian_file);
    tcase_add_test(tc, test_gap_between_tensors);
    tcase_add_test(tc, test_tensor_name_64);
    tcase_add_test(tc, test_unknown_tensor_type);
    tcase_add_test(tc, test_bool_bytes);
    tcase_add_test(tc, test_long_key);
    tcase_add_test(tc, test_non_ascii_key);
    tcase_add_test(tc, test_nested_arrays);
    tcase_add_test(tc, test_duplicates_when_lenient);
    tcase_add_test(tc, test_many_findings);
    suite_add_tcase(s, tc);
    TCase *tk = tcase_create("corpus");
    tcase_set_timeout(tk, 300);
    tcase_add_test(tk, test_corpus_against_ggml);
    suite_add_tcase(s, tk);
    return s;
}

int main(void) {
    return tu_run_suite(lint_suite());
}
