/* Metadata and tensor edits through the library, and writing them back safely: key order,
 * types, text parsing and its refusals, alignment changes, in-place updates through the
 * journal (whose recovery check_journal tests), verified rewrites. */
#define _GNU_SOURCE
#include "tests/support/testutil.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

static gguf_file *open_src(const char *rel) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&f, tu_src(rel), 0, &err) == 0, "%s: %s", rel, err.message);
    return f;
}

/* Writes f to memory and reopens it. */
static gguf_file *reopen(const gguf_file *f, void **buf) {
    size_t len;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_write_memory(buf, &len, f, NULL, &err) == 0, "%s", err.message);
    gguf_file *g;
    ck_assert_msg(gguf_file_open_memory(&g, *buf, len, 0, 0, &err) == 0, "%s", err.message);
    return g;
}

static const char *key_at(const gguf_file *f, size_t i) {
    static char buf[256];
    size_t len;
    const char *k = gguf_kv_key(f, i, &len);
    snprintf(buf, sizeof buf, "%.*s", (int)len, k);
    return buf;
}

static uint64_t get_u(const gguf_file *f, const char *key) {
    int64_t i = gguf_kv_find(f, key);
    ck_assert_msg(i >= 0, "no %s", key);
    uint64_t u;
    int64_t s;
    int is_signed;
    ck_assert(gguf_value_get_int(&u, &s, &is_signed, gguf_kv_value(f, (size_t)i), NULL) == 0);
    return u;
}

START_TEST(set_keeps_order_and_appends_new_keys) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    uint16_t v = 7;
    ck_assert(gguf_kv_set_scalar(f, "test.u16", GGUF_VTYPE_U16, &v, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "llama", 5, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "new.key", "x", 1, NULL) == 0);
    void *buf;
    gguf_file *g = reopen(f, &buf);
    ck_assert_int_eq(gguf_kv_count(g), 4);
    ck_assert_str_eq(key_at(g, 0), "general.architecture");
    ck_assert_str_eq(key_at(g, 1), "test.u16");
    ck_assert_str_eq(key_at(g, 2), "test.arr");
    ck_assert_str_eq(key_at(g, 3), "new.key");
    ck_assert_int_eq(get_u(g, "test.u16"), 7);
    const char *s;
    uint64_t len;
    ck_assert(gguf_value_get_str(&s, &len, gguf_kv_value(g, 0), NULL) == 0);
    ck_assert(len == 5 && memcmp(s, "llama", 5) == 0);
    /* the header shrank by nothing and grew by the new key: tensor bytes unchanged */
    ck_assert(memcmp(gguf_tensor_data(g, 0), gguf_tensor_data(f, 0), 16) == 0);
    ck_assert(memcmp(gguf_tensor_data(g, 1), gguf_tensor_data(f, 1), 8) == 0);
    gguf_file_free(g);
    free(buf);
    gguf_file_free(f);
}
END_TEST

START_TEST(set_changes_type_when_asked) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    ck_assert(gguf_kv_set_text(f, "test.u16", GGUF_VTYPE_F64, GGUF_VTYPE_COUNT, "2.5", 3, NULL) == 0);
    const gguf_value *v = gguf_kv_value(f, 1);
    ck_assert_int_eq(gguf_value_type(v), GGUF_VTYPE_F64);
    double d;
    ck_assert(gguf_value_get_f64(&d, v, NULL) == 0);
    ck_assert(d == 2.5);
    gguf_file_free(f);
}
END_TEST

START_TEST(text_values_are_range_checked) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    gguf_error err;
    static const struct { uint32_t type; const char *text; int ok; } cases[] = {
        {GGUF_VTYPE_U8, "255", 1},   {GGUF_VTYPE_U8, "256", 0},  {GGUF_VTYPE_U8, "300", 0},
        {GGUF_VTYPE_U8, "-1", 0},    {GGUF_VTYPE_I8, "-128", 1}, {GGUF_VTYPE_I8, "-129", 0},
        {GGUF_VTYPE_I8, "127", 1},   {GGUF_VTYPE_I8, "128", 0},  {GGUF_VTYPE_U16, "0xffff", 1},
        {GGUF_VTYPE_U32, "4294967296", 0}, {GGUF_VTYPE_I64, "-9223372036854775808", 1},
        {GGUF_VTYPE_I64, "9223372036854775808", 0}, {GGUF_VTYPE_U64, "18446744073709551615", 1},
        {GGUF_VTYPE_U64, "18446744073709551616", 0}, {GGUF_VTYPE_I32, "1.5", 0},
        {GGUF_VTYPE_I32, "abc", 0},  {GGUF_VTYPE_F32, "1e39", 0}, {GGUF_VTYPE_F32, "nan", 1},
        {GGUF_VTYPE_F64, "-inf", 1}, {GGUF_VTYPE_BOOL, "true", 1}, {GGUF_VTYPE_BOOL, "yes", 0},
        {GGUF_VTYPE_F32, "", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gguf_error_clear(&err);
        int rc = gguf_kv_set_text(f, "k", cases[i].type, GGUF_VTYPE_COUNT, cases[i].text,
                                  strlen(cases[i].text), &err);
        ck_assert_msg((rc == 0) == cases[i].ok, "%s as %s: rc %d (%s)", cases[i].text,
                      gguf_vtype_name(cases[i].type), rc, err.message);
        if (!cases[i].ok)
            ck_assert_msg(err.message[0] != '\0' && rc == GGUF_EINVAL, "%s", cases[i].text);
    }
    /* a failed set leaves the key as it was */
    ck_assert(gguf_kv_set_text(f, "test.u16", GGUF_VTYPE_U8, GGUF_VTYPE_COUNT, "300", 3, NULL) != 0);
    ck_assert_int_eq(get_u(f, "test.u16"), 0xbeef);
    gguf_file_free(f);
}
END_TEST

START_TEST(json_arrays) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    const char *j = "[\"a\\n\", \"\\u00e9\\ud83d\\ude00\", \"\"]";
    ck_assert(gguf_kv_set_text(f, "s", GGUF_VTYPE_ARRAY, GGUF_VTYPE_COUNT, j, strlen(j), NULL) == 0);
    const gguf_value *v = gguf_kv_value(f, (size_t)gguf_kv_find(f, "s"));
    ck_assert_int_eq(gguf_value_elem_type(v), GGUF_VTYPE_STRING);
    ck_assert_int_eq(gguf_value_count(v), 3);
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    const char *s;
    uint64_t len;
    ck_assert(gguf_value_iter_next(&it, &e) && gguf_value_get_str(&s, &len, &e, NULL) == 0);
    ck_assert(len == 2 && memcmp(s, "a\n", 2) == 0);
    ck_assert(gguf_value_iter_next(&it, &e) && gguf_value_get_str(&s, &len, &e, NULL) == 0);
    ck_assert(len == 6 && memcmp(s, "\xc3\xa9\xf0\x9f\x98\x80", 6) == 0);
    const char *nums = "[1, -2, 3000000000]";
    ck_assert(gguf_kv_set_text(f, "n", GGUF_VTYPE_ARRAY, GGUF_VTYPE_COUNT, nums, strlen(nums), NULL) == 0);
    ck_assert_int_eq(gguf_value_elem_type(gguf_kv_value(f, (size_t)gguf_kv_find(f, "n"))), GGUF_VTYPE_I64);
    const char *floats = "[1, 2.5]";
    ck_assert(gguf_kv_set_text(f, "x", GGUF_VTYPE_ARRAY, GGUF_VTYPE_COUNT, floats, strlen(floats), NULL) == 0);
    ck_assert_int_eq(gguf_value_elem_type(gguf_kv_value(f, (size_t)gguf_kv_find(f, "x"))), GGUF_VTYPE_F32);
    /* the element type is enforced */
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert(gguf_kv_set_text(f, "y", GGUF_VTYPE_ARRAY, GGUF_VTYPE_U8, "[1, 256]", 8, &err) == GGUF_EINVAL);
    /* the strings: an escape that is not JSON's, lone surrogates (which would be stored as
     * bytes that are not UTF-8), a raw control character, a backslash that ends the text */
    static const char *bad[] = {"[1,", "1,2", "[[1]]", "[\"a]", "[1] x", "[\"\\q\"]",
                                "[\"\\ud83d\"]", "[\"\\ude00\"]", "[\"\\ud83d\\u0041\"]",
                                "[\"a\x01\"]", "[\"a\\\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gguf_error_clear(&err);
        ck_assert_msg(gguf_kv_set_text(f, "z", GGUF_VTYPE_ARRAY, GGUF_VTYPE_COUNT, bad[i],
                                       strlen(bad[i]), &err) == GGUF_EINVAL, "%s accepted", bad[i]);
    }
    ck_assert_int_eq(gguf_kv_find(f, "y"), -1);
    ck_assert_int_eq(gguf_kv_find(f, "z"), -1);
    gguf_file_free(f);
}
END_TEST

/* The string value of key in f (the key must be there). */
static void str_of(const gguf_file *f, const char *key, const char **s, uint64_t *len) {
    int64_t at = gguf_kv_find(f, key);
    ck_assert_msg(at >= 0, "no %s", key);
    ck_assert(gguf_value_get_str(s, len, gguf_kv_value(f, (size_t)at), NULL) == 0);
}

/* tokenizer_config.json's chat templates: the string form, the list form, and a malformed
 * text that changes nothing (nor goes deeper than the reader's bound when nested deep). */
START_TEST(chat_templates_from_json) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    const char *one = "{\"bos_token\": \"<s>\", \"chat_template\": \"{{ m }}\\n\"}";
    ck_assert(gguf_kv_set_chat_templates_json(f, one, strlen(one), NULL) == 0);
    const char *s;
    uint64_t len;
    str_of(f, "tokenizer.chat_template", &s, &len);
    ck_assert(len == 8 && memcmp(s, "{{ m }}\n", 8) == 0);
    const char *list = "{\"chat_template\": [{\"name\": \"default\", \"template\": \"D\"},"
                       " {\"name\": \"tool use\", \"template\": \"T\"}, {\"name\": \"\"}]}";
    ck_assert(gguf_kv_set_chat_templates_json(f, list, strlen(list), NULL) == 0);
    str_of(f, "tokenizer.chat_template", &s, &len);
    ck_assert(len == 1 && s[0] == 'D');
    str_of(f, "tokenizer.chat_template.tool_use", &s, &len);
    ck_assert(len == 1 && s[0] == 'T');
    ck_assert_int_eq(gguf_kv_find(f, "tokenizer.chat_template.default"), -1);
    int64_t names = gguf_kv_find(f, "tokenizer.chat_templates");
    ck_assert(names >= 0);
    ck_assert_int_eq(gguf_value_count(gguf_kv_value(f, (size_t)names)), 1);
    size_t keys = gguf_kv_count(f);
    size_t deep = 100000;
    char *nested = malloc(deep + 40);
    int n = sprintf(nested, "{\"x\": "); /* skipped: its depth is bounded */
    memset(nested + n, '[', deep);
    nested[n + deep] = '\0';
    const char *bad[] = {"", "[]", "{\"chat_template\": \"a", "{\"chat_template\": [1]}",
                         "{\"chat_template\": \"\\ud800\"}", nested};
    gguf_error err_deep;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_kv_set_chat_templates_json(f, bad[i], strlen(bad[i]), &err), GGUF_EINVAL);
        err_deep = err;
        ck_assert_msg(strstr(err.message, "at byte") != NULL, "%s", err.message);
        ck_assert_int_eq(gguf_kv_count(f), keys);
    }
    /* the nesting is refused where it passes the bound (64 levels), not at its end */
    const char *at = strstr(err_deep.message, "at byte ");
    ck_assert_msg(at != NULL && strtoul(at + 8, NULL, 10) < 100, "%s", err_deep.message);
    free(nested);
    const char *none[] = {"{}", "{\"chat_template\": null}", "{\"x\": {\"chat_template\": \"a\"}}"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        ck_assert_int_eq(gguf_kv_set_chat_templates_json(f, none[i], strlen(none[i]), NULL),
                         GGUF_ENOTFOUND);
    ck_assert_int_eq(gguf_kv_count(f), keys);
    gguf_file_free(f);
}
END_TEST

/* Empty elements of a JSON array must not make more tokens than the tokenizer has room for (a
 * heap overflow under ASan, an abort in the plain build, at a few thousand commas). */
START_TEST(json_arrays_with_empty_elements_are_refused) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    size_t n = 5000;
    char *commas = malloc(n + 3);
    commas[0] = '[';
    memset(commas + 1, ',', n);
    commas[n + 1] = ']';
    commas[n + 2] = '\0';
    const char *cases[] = {"[,,,,]", "[,]", "[1,,2]", "[1,]", "[ , 1]", commas};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (uint32_t elem = 0; elem <= GGUF_VTYPE_COUNT; elem++) {
            if (elem == GGUF_VTYPE_ARRAY)
                continue;
            gguf_error err;
            gguf_error_clear(&err);
            int rc = gguf_kv_set_text(f, "j", GGUF_VTYPE_ARRAY, elem, cases[i], strlen(cases[i]),
                                      &err);
            ck_assert_msg(rc == GGUF_EINVAL, "'%.20s' as %u: %d", cases[i], elem, rc);
            ck_assert_msg(strstr(err.message, "empty element") != NULL, "%s", err.message);
        }
    }
    ck_assert_int_eq(gguf_kv_find(f, "j"), -1);
    free(commas);
    gguf_file_free(f);
}
END_TEST

/* A refused element is named: the error keeps its context instead of dropping it. */
START_TEST(json_errors_name_the_element) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_kv_set_text(f, "k", GGUF_VTYPE_ARRAY, GGUF_VTYPE_U8, "[1,300,5]", 9,
                                      &err), GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "element 1") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "300") != NULL, "%s", err.message);
    gguf_file_free(f);
}
END_TEST

START_TEST(remove_and_rename) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_kv_remove(f, "nope", &err), GGUF_ENOTFOUND);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_kv_rename(f, "nope", "x", &err), GGUF_ENOTFOUND);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_kv_rename(f, "test.u16", "test.arr", &err), GGUF_EEXIST);
    ck_assert(gguf_kv_rename(f, "test.u16", "test.renamed", NULL) == 0);
    ck_assert(gguf_kv_remove(f, "general.architecture", NULL) == 0);
    void *buf;
    gguf_file *g = reopen(f, &buf);
    ck_assert_int_eq(gguf_kv_count(g), 2);
    ck_assert_str_eq(key_at(g, 0), "test.renamed");
    ck_assert_int_eq(get_u(g, "test.renamed"), 0xbeef);
    ck_assert_str_eq(key_at(g, 1), "test.arr");
    gguf_file_free(g);
    free(buf);
    gguf_file_free(f);
}
END_TEST

/* Removing keys anywhere (first, middle, last, by name and by position) keeps the others in
 * their order, in memory, in the name index and in the written file. */
START_TEST(remove_keeps_the_order_of_the_rest) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    static const char *const added[] = {"k.0", "k.1", "k.2", "k.3", "k.4", "k.5"};
    for (size_t i = 0; i < 6; i++)
        ck_assert(gguf_kv_set_str(f, added[i], added[i], 3, NULL) == 0);
    /* general.architecture test.u16 test.arr k.0 k.1 k.2 k.3 k.4 k.5 */
    ck_assert(gguf_kv_remove(f, "k.2", NULL) == 0);                /* the middle */
    ck_assert(gguf_kv_remove(f, "general.architecture", NULL) == 0); /* the first */
    ck_assert(gguf_kv_remove(f, "k.5", NULL) == 0);                /* the last */
    ck_assert(gguf_kv_remove_at(f, 3, NULL) == 0);                 /* k.1, by position */
    static const char *const want[] = {"test.u16", "test.arr", "k.0", "k.3", "k.4"};
    ck_assert_uint_eq(gguf_kv_count(f), 5);
    for (size_t i = 0; i < 5; i++) {
        ck_assert_str_eq(key_at(f, i), want[i]);
        ck_assert_int_eq(gguf_kv_find(f, want[i]), (int64_t)i);
    }
    ck_assert_int_eq(gguf_kv_find(f, "k.1"), -1);
    ck_assert_int_eq(gguf_kv_find(f, "k.2"), -1);
    ck_assert_int_eq(get_u(f, "test.u16"), 0xbeef);
    void *buf;
    gguf_file *g = reopen(f, &buf);
    ck_assert_uint_eq(gguf_kv_count(g), 5);
    for (size_t i = 0; i < 5; i++)
        ck_assert_str_eq(key_at(g, i), want[i]);
    const char *s;
    uint64_t len;
    ck_assert(gguf_value_get_str(&s, &len, gguf_kv_value(g, 3), NULL) == 0);
    ck_assert(len == 3 && memcmp(s, "k.3", 3) == 0);
    gguf_file_free(g);
    free(buf);
    gguf_file_free(f);
}
END_TEST

/* Removing general.alignment brings the default alignment (32) back, and the data is laid out
 * for it again: set to 64 and removed, the golden file comes back byte for byte, but for the
 * padding of the last tensor to the alignment that a re-laid file gets (as ggml writes it). */
START_TEST(removing_the_alignment_lays_data_out_at_32) {
    size_t orig_len;
    uint8_t *orig = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &orig_len);
    ck_assert_ptr_nonnull(orig);
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    uint32_t a = 64;
    ck_assert(gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &a, NULL) == 0);
    void *buf64;
    gguf_file *g = reopen(f, &buf64);
    gguf_file_free(f);
    ck_assert_int_eq(gguf_file_alignment(g), 64);
    gguf_tensor_info t;
    gguf_tensor_get(&t, g, 1);
    ck_assert_int_eq(t.offset, 64);
    ck_assert_int_eq(gguf_file_data_offset(g) % 64, 0);
    /* the file read back holds the key; removing it is what is tested */
    ck_assert(gguf_kv_remove(g, "general.alignment", NULL) == 0);
    ck_assert_int_eq(gguf_file_alignment(g), 32);
    void *buf;
    size_t len;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_write_memory(&buf, &len, g, NULL, &err) == 0, "%s", err.message);
    size_t padded = (orig_len + 31) / 32 * 32;
    ck_assert_msg(len == padded && memcmp(buf, orig, orig_len) == 0,
                  "set to 64 and removed, the alignment does not give the file back (%zu bytes, "
                  "%zu expected)", len, padded);
    for (size_t i = orig_len; i < len; i++)
        ck_assert_uint_eq(((const uint8_t *)buf)[i], 0);
    gguf_file *h;
    ck_assert(gguf_file_open_memory(&h, buf, len, 0, 0, NULL) == 0);
    ck_assert_int_eq(gguf_file_alignment(h), 32);
    ck_assert_int_eq(gguf_kv_find(h, "general.alignment"), -1);
    gguf_tensor_get(&t, h, 1);
    ck_assert_int_eq(t.offset, 32);
    ck_assert(memcmp(gguf_tensor_data(h, 0), gguf_tensor_data(g, 0), 16) == 0);
    ck_assert(memcmp(gguf_tensor_data(h, 1), gguf_tensor_data(g, 1), 8) == 0);
    gguf_file_free(h);
    free(buf);
    gguf_file_free(g);
    free(buf64);
    /* a file written with alignment 64 and its key first: the other keys keep their order */
    f = open_src("golden/hand/be_v3_scalars.gguf");
    ck_assert_int_eq(gguf_file_alignment(f), 64);
    ck_assert_str_eq(key_at(f, 0), "general.alignment");
    ck_assert(gguf_kv_remove(f, "general.alignment", NULL) == 0);
    g = reopen(f, &buf);
    ck_assert_int_eq(gguf_file_alignment(g), 32);
    ck_assert_int_eq(gguf_file_data_offset(g) % 32, 0);
    ck_assert_int_lt(gguf_file_data_offset(g), gguf_file_data_offset(f));
    ck_assert_uint_eq(gguf_kv_count(g), 3);
    ck_assert_str_eq(key_at(g, 0), "test.i64");
    ck_assert_str_eq(key_at(g, 1), "test.f64");
    ck_assert_str_eq(key_at(g, 2), "test.strs");
    ck_assert(memcmp(gguf_tensor_data(g, 0), gguf_tensor_data(f, 0), 8) == 0);
    gguf_file_free(g);
    free(buf);
    gguf_file_free(f);
    free(orig);
}
END_TEST

START_TEST(tensor_rename_and_remove) {
    gguf_file *f = open_src("golden/hand/le_v3_two_tensors.gguf");
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_tensor_rename(f, "a", "b", &err), GGUF_EEXIST);
    ck_assert(gguf_tensor_rename(f, "b", "bee", NULL) == 0);
    ck_assert(gguf_tensor_remove(f, "a", NULL) == 0);
    void *buf;
    gguf_file *g = reopen(f, &buf);
    ck_assert_int_eq(gguf_tensor_count(g), 1);
    gguf_tensor_info t;
    gguf_tensor_get(&t, g, 0);
    ck_assert(t.name_len == 3 && memcmp(t.name, "bee", 3) == 0);
    ck_assert_int_eq(t.offset, 0); /* packed again */
    ck_assert(memcmp(gguf_tensor_data(g, 0), gguf_tensor_data(f, 0), 8) == 0);
    ck_assert_int_eq(gguf_file_lint(g, NULL, NULL, NULL), 0);
    gguf_file_free(g);
    free(buf);
    gguf_file_free(f);
}
END_TEST

START_TEST(realign_lays_data_out_again) {
    gguf_file *f = open_src("golden/hand/gaps_and_trailer.gguf");
    uint32_t a = 64;
    ck_assert(gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &a, NULL) == 0);
    void *buf;
    gguf_file *g = reopen(f, &buf);
    ck_assert_int_eq(gguf_file_alignment(g), 64);
    ck_assert_int_eq(gguf_file_data_offset(g) % 64, 0);
    gguf_tensor_info t0, t1;
    gguf_tensor_get(&t0, g, 0);
    gguf_tensor_get(&t1, g, 1);
    ck_assert_int_eq(t0.offset, 0);
    ck_assert_int_eq(t1.offset, 64);
    ck_assert(memcmp(gguf_tensor_data(g, 0), gguf_tensor_data(f, 0), 8) == 0);
    ck_assert(memcmp(gguf_tensor_data(g, 1), gguf_tensor_data(f, 1), 2) == 0);
    gguf_file_free(g);
    free(buf);
    /* invalid alignments are refused, the file unchanged */
    gguf_error err;
    uint32_t bad[] = {0, 7, 12};
    for (int i = 0; i < 3; i++) {
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &bad[i], &err), GGUF_EINVAL);
    }
    uint64_t wide = 64;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U64, &wide, &err), GGUF_ETYPE);
    ck_assert_int_eq(gguf_file_alignment(f), 64);
    gguf_file_free(f);
}
END_TEST

START_TEST(values_compare_across_byte_orders) {
    gguf_file *le = open_src("golden/hand/le_v3_two_tensors.gguf");
    gguf_write_options be = {
        .size = sizeof(gguf_write_options), .version = 0, .endian = GGUF_ENDIAN_BIG};
    void *buf;
    size_t len;
    ck_assert(gguf_file_write_memory(&buf, &len, le, &be, NULL) == 0);
    gguf_file *b;
    ck_assert(gguf_file_open_memory(&b, buf, len, 0, 0, NULL) == 0);
    for (size_t i = 0; i < gguf_kv_count(le); i++)
        ck_assert_int_eq(gguf_value_equal(gguf_kv_value(le, i), gguf_kv_value(b, i)), 1);
    ck_assert_int_eq(gguf_value_equal(gguf_kv_value(le, 0), gguf_kv_value(b, 1)), 0);
    gguf_file_free(b);
    free(buf);
    gguf_file_free(le);
}
END_TEST

/* ---- writing back: in place, rewritten, journals ---- */

static char dir[64];
static char model[128];

static void setup_model(void) {
    strcpy(dir, "/tmp/gguf-edit-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    size_t len;
    uint8_t *bytes = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &len);
    ck_assert_int_eq(tu_write_file(model, bytes, len), 0);
    free(bytes);
}

static void teardown_model(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}

static int entries(void) {
    char cmd[160];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", dir);
    return system(cmd) == 0;
}

START_TEST(update_in_place_when_the_header_fits) {
    setup_model();
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    /* "test" -> "tent": same length, the header fits */
    ck_assert(gguf_kv_set_str(f, "general.architecture", "tent", 4, NULL) == 0);
    gguf_update_result res;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_update(f, model, NULL, &res, &err) == 0, "%s", err.message);
    ck_assert_int_eq(res.in_place, 1);
    ck_assert_int_eq(res.tensors_checked, 2);
    gguf_file_free(f);
    ck_assert(entries()); /* no journal, no temporary file left */
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    const char *s;
    uint64_t len;
    ck_assert(gguf_value_get_str(&s, &len, gguf_kv_value(f, 0), NULL) == 0);
    ck_assert(len == 4 && memcmp(s, "tent", 4) == 0);
    /* a longer value no longer fits the 20 bytes of padding: rewritten and checked */
    ck_assert(gguf_kv_set_str(f, "general.architecture", "a much longer architecture name", 31, NULL) == 0);
    ck_assert(gguf_file_update(f, model, NULL, &res, NULL) == 0);
    ck_assert_int_eq(res.in_place, 0);
    ck_assert_int_eq(res.tensors_checked, 2);
    gguf_file_free(f);
    ck_assert(entries());
    teardown_model();
}
END_TEST

START_TEST(update_refuses_read_only_and_changed_files) {
    setup_model();
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "tent", 4, NULL) == 0);
    ck_assert(chmod(model, 0444) == 0);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_update(f, model, NULL, NULL, &err), GGUF_EIO);
    ck_assert(strstr(err.message, "read-only") != NULL);
    ck_assert(chmod(model, 0644) == 0);
    /* another process changed the file since it was opened */
    struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
    ck_assert(utimensat(AT_FDCWD, model, times, 0) == 0);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_update(f, model, NULL, NULL, &err), GGUF_EIO);
    ck_assert(strstr(err.message, "changed since") != NULL);
    gguf_file_free(f);
    size_t len, orig_len;
    uint8_t *now = tu_read_file(model, &len);
    uint8_t *orig = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &orig_len);
    ck_assert(len == orig_len && memcmp(now, orig, len) == 0);
    free(now);
    free(orig);
    teardown_model();
}
END_TEST

START_TEST(built_files_read_back) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_BIG, NULL) == 0);
    uint64_t dims[2] = {32, 2};
    ck_assert(gguf_kv_set_str(f, "general.architecture", "test", 4, NULL) == 0);
    ck_assert(gguf_tensor_add(f, "w", GGUF_DTYPE_Q8_0, dims, 2, NULL) == 0);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_tensor_add(f, "w", GGUF_DTYPE_F32, dims, 2, &err), GGUF_EEXIST);
    uint64_t odd[1] = {33};
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_tensor_add(f, "odd", GGUF_DTYPE_Q8_0, odd, 1, &err), GGUF_ECORRUPT);
    void *buf;
    size_t len;
    /* no fill callback: the write says so */
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_write_memory(&buf, &len, f, NULL, &err), GGUF_EINVAL);
    gguf_file_free(f);
}
END_TEST

/* ---- the page cache of a replaced file ---- */

/* Fills a tensor with bytes that depend on their offset. */
static int fill_pattern(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                        gguf_error *err) {
    (void)user, (void)tensor, (void)err;
    for (size_t i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = (uint8_t)((offset + i) * 2654435761u >> 24);
    return 0;
}

/* Pages of fd's file held in the page cache, in percent of its pages. */
static int percent_cached(int fd) {
    struct stat st;
    ck_assert(fstat(fd, &st) == 0);
    long page = sysconf(_SC_PAGESIZE);
    size_t pages = (size_t)((st.st_size + page - 1) / page);
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    ck_assert(map != MAP_FAILED);
    unsigned char *in = malloc(pages);
    ck_assert(in != NULL && mincore(map, (size_t)st.st_size, in) == 0);
    size_t n = 0;
    for (size_t i = 0; i < pages; i++)
        n += in[i] & 1;
    free(in);
    munmap(map, (size_t)st.st_size);
    return (int)(n * 100 / pages);
}

/* Reads the whole file, so that its pages are in the cache. */
static void read_whole(const char *path) {
    size_t len;
    free(tu_read_file(path, &len));
}

/* A rewrite replaces the file it copies: the old file's pages, read once by the copy, are
 * dropped as it goes instead of all at once when the replaced file is freed after the rename
 * (in the edit's time). A save to another file leaves its source's pages in the cache. The
 * copy is larger than the proof's read-back of every range (64 MiB), which would read the
 * source again: 80 MiB, of which the proof reads a sample. */
START_TEST(a_rewrite_drops_the_replaced_files_pages) {
    strcpy(dir, "/tmp/gguf-edit-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    char other[160];
    snprintf(other, sizeof other, "%s/other.gguf", dir);
    struct statfs fs;
    ck_assert(statfs(dir, &fs) == 0);
    if (fs.f_type == TMPFS_MAGIC) {
        tu_skip("tmpfs keeps a file's pages as its storage: there is no cache to drop");
        teardown_model();
        return;
    }
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "test", 4, NULL) == 0);
    uint64_t dims[2] = {65536, 320}; /* 80 MiB of f32 */
    ck_assert(gguf_tensor_add(f, "w", GGUF_DTYPE_F32, dims, 2, NULL) == 0);
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.fill = fill_pattern;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_save(f, model, &opt, &err) == 0, "%s", err.message);
    gguf_file_free(f);

    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    int old = open(model, O_RDONLY); /* the replaced file, kept to be looked at */
    ck_assert(old >= 0);
    read_whole(model);
    int before = percent_cached(old);
    ck_assert_int_ge(before, 90);

    gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
    o.verify = 1;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_save(f, other, &o, &err) == 0, "%s", err.message);
    ck_assert_int_ge(percent_cached(old), 90);

    const char *name = "a name long enough to grow the header past its padding";
    ck_assert(gguf_kv_set_str(f, "general.name", name, strlen(name), NULL) == 0);
    gguf_update_result res;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_update(f, model, NULL, &res, &err) == 0, "%s", err.message);
    ck_assert_int_eq(res.in_place, 0);
    /* the header, and the blocks the proof read again (the first, the last, a sample) */
    int after = percent_cached(old);
    ck_assert_msg(after <= 15, "%d%% of the replaced file's pages still cached (%d%% before)",
                  after, before);
    close(old);
    gguf_file_free(f);
    teardown_model();
}
END_TEST

int main(void) {
    Suite *s = suite_create("edit");
    TCase *tc = tcase_create("edit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, set_keeps_order_and_appends_new_keys);
    tcase_add_test(tc, set_changes_type_when_asked);
    tcase_add_test(tc, text_values_are_range_checked);
    tcase_add_test(tc, json_arrays);
    tcase_add_test(tc, json_arrays_with_empty_elements_are_refused);
    tcase_add_test(tc, chat_templates_from_json);
    tcase_add_test(tc, json_errors_name_the_element);
    tcase_add_test(tc, remove_and_rename);
    tcase_add_test(tc, remove_keeps_the_order_of_the_rest);
    tcase_add_test(tc, removing_the_alignment_lays_data_out_at_32);
    tcase_add_test(tc, tensor_rename_and_remove);
    tcase_add_test(tc, realign_lays_data_out_again);
    tcase_add_test(tc, values_compare_across_byte_orders);
    tcase_add_test(tc, update_in_place_when_the_header_fits);
    tcase_add_test(tc, update_refuses_read_only_and_changed_files);
    tcase_add_test(tc, built_files_read_back);
    tcase_add_test(tc, a_rewrite_drops_the_replaced_files_pages);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
