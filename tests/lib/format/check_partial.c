/* GGUF_OPEN_PARTIAL: a file cut short inside its tensor data (a truncated download) opens with
 * its whole header; each tensor says how many of its bytes are there; reading what is missing
 * fails with GGUF_ETRUNC (never a read past the end: the prefixes live in heap blocks of their
 * exact size, for AddressSanitizer), and such a file is never written. Without the flag, every
 * cut is refused as before; a file cut inside its header is refused with the flag too. */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libgguf/gguf.h>
#include "tests/support/testutil.h"

/* golden/hand/le_v3_two_tensors.map: tensor infos end at 0xcc, data at 0xe0; tensor "a" (16
 * bytes) at 0xe0, "b" (8 bytes) at 0x100; 0x108 bytes in all. */
#define HEADER_END 0xcc
#define DATA 0xe0
#define A_AT 0xe0
#define A_LEN 16
#define B_AT 0x100
#define B_LEN 8

static uint8_t *whole;
static size_t whole_len;

static void load(void) {
    whole = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &whole_len);
    ck_assert_ptr_nonnull(whole);
    ck_assert_uint_eq(whole_len, B_AT + B_LEN);
}

static void unload(void) {
    free(whole);
}

static uint64_t present_of(size_t len, uint64_t at, uint64_t n) {
    if (len <= at)
        return 0;
    return len - at < n ? len - at : n;
}

/* Checks an opened prefix of len bytes: the header, the bounds, reads, crc32s, writes. */
static void check_prefix(gguf_file *f, size_t len) {
    gguf_error err;
    ck_assert_uint_eq(gguf_file_size(f), len);
    ck_assert_uint_eq(gguf_file_data_offset(f), DATA);
    ck_assert_uint_eq(gguf_file_data_end(f), B_AT + B_LEN);
    ck_assert_uint_eq(gguf_kv_count(f), 3);
    ck_assert_int_ge(gguf_kv_find(f, "test.arr"), 0);
    ck_assert_uint_eq(gguf_tensor_count(f), 2);
    const uint64_t at[2] = {A_AT, B_AT}, n[2] = {A_LEN, B_LEN};
    for (size_t i = 0; i < 2; i++) {
        uint64_t have = present_of(len, at[i], n[i]);
        ck_assert_uint_eq(gguf_tensor_bytes_present(f, i), have);
        uint8_t buf[16];
        gguf_error_clear(&err);
        int rc = gguf_tensor_read(buf, f, i, 0, (size_t)n[i], &err);
        uint32_t crc = 0;
        gguf_error crc_err;
        gguf_error_clear(&crc_err);
        int crc_rc = gguf_crc_tensor(&crc, f, i, &crc_err);
        if (have == n[i]) {
            ck_assert_int_eq(rc, 0);
            ck_assert_mem_eq(buf, whole + at[i], (size_t)n[i]);
            ck_assert_int_eq(crc_rc, 0);
            ck_assert_ptr_nonnull(gguf_tensor_data(f, i));
        } else {
            ck_assert_msg(rc == GGUF_ETRUNC, "len %zu tensor %zu: read gave %d", len, i, rc);
            ck_assert_msg(strstr(err.message, "cut short") != NULL, "message: %s", err.message);
            ck_assert_int_eq(crc_rc, GGUF_ETRUNC);
            ck_assert_ptr_null(gguf_tensor_data(f, i));
            /* the bytes that are there can be read */
            if (have > 0) {
                gguf_error_clear(&err);
                ck_assert_int_eq(gguf_tensor_read(buf, f, i, 0, (size_t)have, &err), 0);
                ck_assert_mem_eq(buf, whole + at[i], (size_t)have);
            }
        }
    }
    /* a cut file is never written, to memory or to a path */
    int complete = len == whole_len;
    void *out = NULL;
    size_t out_len = 0;
    gguf_error_clear(&err);
    int rc = gguf_file_write_memory(&out, &out_len, f, NULL, &err);
    if (complete) {
        ck_assert_int_eq(rc, 0);
        ck_assert_uint_eq(out_len, whole_len);
        ck_assert_mem_eq(out, whole, whole_len);
        free(out);
    } else {
        ck_assert_msg(rc == GGUF_ETRUNC, "len %zu: write gave %d", len, rc);
        ck_assert_msg(strstr(err.message, "cut short") != NULL, "message: %s", err.message);
    }
}

START_TEST(every_cut_in_the_data) {
    load();
    for (size_t len = HEADER_END; len <= whole_len; len++) {
        uint8_t *p = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(p);
        memcpy(p, whole, len);
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_file_open_memory(&f, p, len, 0, GGUF_OPEN_DEFAULT, &err);
        if (len < whole_len) {
            ck_assert_msg(rc == GGUF_ETRUNC, "len %zu: without the flag: %d", len, rc);
            ck_assert_ptr_null(f);
        } else {
            ck_assert_int_eq(rc, 0);
            gguf_file_free(f);
            f = NULL;
        }
        gguf_error_clear(&err);
        rc = gguf_file_open_memory(&f, p, len, 0, GGUF_OPEN_PARTIAL, &err);
        ck_assert_msg(rc == 0, "len %zu: %d %s", len, rc, err.message);
        check_prefix(f, len);
        gguf_file_free(f);
        free(p);
    }
    unload();
}
END_TEST

START_TEST(a_cut_header_is_refused) {
    load();
    for (size_t len = 0; len < HEADER_END; len++) {
        uint8_t *p = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(p);
        memcpy(p, whole, len);
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_file_open_memory(&f, p, len, 0, GGUF_OPEN_PARTIAL, &err);
        ck_assert_msg(rc == GGUF_ETRUNC || rc == GGUF_ECORRUPT, "len %zu: %d", len, rc);
        ck_assert_ptr_null(f);
        free(p);
    }
    unload();
}
END_TEST

/* A cut file on disk: the header and the whole tensor read with pread (mapped and not);
 * saving and updating it are refused and leave no file behind. */
START_TEST(a_cut_file_on_disk) {
    load();
    char dir[] = "/tmp/check_partial.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128], out[128];
    snprintf(path, sizeof path, "%s/cut.gguf", dir);
    snprintf(out, sizeof out, "%s/out.gguf", dir);
    size_t len = B_AT + 3;
    ck_assert_int_eq(tu_write_file(path, whole, len), 0);
    const unsigned flags[2] = {GGUF_OPEN_PARTIAL, GGUF_OPEN_PARTIAL | GGUF_OPEN_NO_MMAP};
    for (int k = 0; k < 2; k++) {
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_file_open(&f, path, GGUF_OPEN_DEFAULT, &err), GGUF_ETRUNC);
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_file_open(&f, path, flags[k], &err), 0);
        check_prefix(f, len);
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_file_save(f, out, NULL, &err), GGUF_ETRUNC);
        ck_assert_int_ne(access(out, F_OK), 0);
        gguf_update_result res;
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_kv_set_text(f, "test.new", GGUF_VTYPE_STRING, GGUF_VTYPE_COUNT,
                                          "x", 1, &err), 0);
        ck_assert_int_eq(gguf_file_update(f, path, NULL, &res, &err), GGUF_ETRUNC);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_uint_eq((uint64_t)st.st_size, len);
        gguf_file_free(f);
    }
    unlink(path);
    rmdir(dir);
    unload();
}
END_TEST

/* Cut inside the padding before the data: every tensor is missing; still no write. */
START_TEST(cut_in_the_padding) {
    load();
    size_t len = HEADER_END + 4;
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_memory(&f, whole, len, 1, GGUF_OPEN_PARTIAL, &err), 0);
    ck_assert_uint_eq(gguf_tensor_bytes_present(f, 0), 0);
    ck_assert_uint_eq(gguf_tensor_bytes_present(f, 1), 0);
    uint32_t crc;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_crc_header(&crc, f, &err), 0);
    void *out = NULL;
    size_t out_len;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_write_memory(&out, &out_len, f, NULL, &err), GGUF_ETRUNC);
    gguf_file_free(f);
    unload();
}
END_TEST

/* Every allocation failure while opening a cut file fails cleanly. */
START_TEST(allocation_failures) {
    load();
    size_t len = B_AT + 1;
    for (long n = 1;; n++) {
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_file_open_memory(&f, whole, len, 1, GGUF_OPEN_PARTIAL, &err);
        gguf_testing_fail_alloc_after(0);
        if (rc == 0) {
            check_prefix(f, len);
            gguf_file_free(f);
            break;
        }
        ck_assert_int_eq(rc, GGUF_ENOMEM);
        ck_assert_ptr_null(f);
    }
    unload();
}
END_TEST

static Suite *partial_suite(void) {
    Suite *s = suite_create("partial");
    TCase *tc = tcase_create("partial");
    tcase_add_test(tc, every_cut_in_the_data);
    tcase_add_test(tc, a_cut_header_is_refused);
    tcase_add_test(tc, a_cut_file_on_disk);
    tcase_add_test(tc, cut_in_the_padding);
    tcase_add_test(tc, allocation_failures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return tu_run_suite(partial_suite());
}
