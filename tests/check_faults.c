/* I/O faults, each turned into a clean error with nothing lost: every write, fsync, copy and
 * rename of an edit is made to fail in turn (EIO, then ENOSPC as on a full disk), and after each
 * failure the file must be the old one (or, once an in-place edit's journal is complete, the new
 * one when the journal is replayed), with nothing left beside it. A source file truncated by
 * another process while we copy it gives an error, not SIGBUS. */
#define _GNU_SOURCE
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gguf_testing_fail_io_after(long n, int errnum);

static char dir[64], model[128];
static uint8_t *old_bytes, *new_bytes;
static size_t old_len, new_len;

static void write_file(const char *path, const uint8_t *b, size_t n) {
    FILE *fp = fopen(path, "wb");
    ck_assert(fp != NULL && fwrite(b, 1, n, fp) == n);
    fclose(fp);
}

static int count_entries(void) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static int edit(const char *value) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open(&f, model, 0, &err);
    if (rc != 0)
        return rc;
    rc = gguf_kv_set_str(f, "general.architecture", value, strlen(value), &err);
    if (rc == 0)
        rc = gguf_file_update(f, model, NULL, NULL, &err);
    if (rc != 0)
        ck_assert_msg(err.message[0] != '\0', "a failed update without a message");
    gguf_file_free(f);
    return rc;
}

/* Makes every I/O call of one edit fail in turn, until the edit goes through. */
static void sweep(const char *value, int errnum) {
    dir[0] = '\0';
    strcpy(dir, "/tmp/gguf-faults-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    old_bytes = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &old_len);
    write_file(model, old_bytes, old_len);
    ck_assert(edit(value) == 0); /* the expected result, without faults */
    new_bytes = tu_read_file(model, &new_len);
    int failures = 0;
    for (long n = 1;; n++) {
        write_file(model, old_bytes, old_len);
        gguf_testing_fail_io_after(n, errnum);
        int rc = edit(value);
        gguf_testing_fail_io_after(0, 0);
        int recovered = 0;
        ck_assert(gguf_file_recover(model, &recovered, NULL) == 0);
        size_t len;
        uint8_t *now = tu_read_file(model, &len);
        int is_old = len == old_len && memcmp(now, old_bytes, len) == 0;
        int is_new = len == new_len && memcmp(now, new_bytes, len) == 0;
        free(now);
        ck_assert_msg(is_old || is_new, "fault at I/O call %ld: the file is neither old nor new", n);
        ck_assert_msg(rc != 0 || is_new, "fault at I/O call %ld: success but the old file", n);
        ck_assert_msg(rc == 0 || is_old || recovered,
                      "fault at I/O call %ld: failed, yet the file changed without a journal", n);
        ck_assert_msg(count_entries() == 1, "fault at I/O call %ld: files left beside it", n);
        if (rc == 0)
            break;
        failures++;
        ck_assert_msg(n < 1000, "the edit never succeeds");
    }
    ck_assert_int_ge(failures, 3);
    free(old_bytes);
    free(new_bytes);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}

START_TEST(in_place_edit_survives_every_io_fault) {
    sweep("tent", EIO); /* same length: the header is rewritten in place */
}
END_TEST

START_TEST(rewrite_survives_every_io_fault) {
    sweep("an architecture name long enough to need a rewrite", EIO);
}
END_TEST

START_TEST(full_disk_during_rewrite) {
    sweep("an architecture name long enough to need a rewrite", ENOSPC);
}
END_TEST

START_TEST(source_truncated_while_copying) {
    strcpy(dir, "/tmp/gguf-faults-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    size_t len;
    uint8_t *bytes = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &len);
    write_file(model, bytes, len);
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    ck_assert(truncate(model, 230) == 0); /* another process cuts the tensor data */
    char out[160];
    snprintf(out, sizeof out, "%s/out.gguf", dir);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_save(f, out, NULL, &err), GGUF_EIO);
    ck_assert_msg(strstr(err.message, "ended early") != NULL, "%s", err.message);
    void *buf;
    size_t n;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_write_memory(&buf, &n, f, NULL, &err), GGUF_EIO);
    uint32_t crc;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_crc_tensor(&crc, f, 1, &err), GGUF_EIO);
    gguf_file_free(f);
    ck_assert_int_eq(count_entries(), 1);
    free(bytes);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, in_place_edit_survives_every_io_fault);
    tcase_add_test(tc, rewrite_survives_every_io_fault);
    tcase_add_test(tc, full_disk_during_rewrite);
    tcase_add_test(tc, source_truncated_while_copying);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
