/* The writer: atomic saves (nothing left behind, target untouched on failure, mode kept),
 * output options (version, byte order) and their refusals, header conversions that must equal
 * files made by other tools. */
#define _GNU_SOURCE
#include "tests/support/testutil.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void make_dir(void) {
    strcpy(dir, "/tmp/gguf-write-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
}

static int count_entries(const char *path) {
    DIR *d = opendir(path);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.' || (e->d_name[1] != '\0' && strcmp(e->d_name, "..") != 0);
    closedir(d);
    return n;
}

static void remove_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}

/* The fill callback of filled_tensors_of_any_row_length: each byte is its offset's low byte
 * plus the tensor's index; it counts its calls. */
static int calls;
static int fill_offsets(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                        gguf_error *err) {
    (void)user;
    (void)err;
    calls++;
    for (size_t k = 0; k < len; k++)
        ((uint8_t *)buf)[k] = (uint8_t)(offset + k + tensor);
    return 0;
}

static gguf_file *open_golden(const char *rel) {
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&f, tu_src(rel), 0, &err) == 0, "%s: %s", rel, err.message);
    return f;
}

START_TEST(save_leaves_only_the_target) {
    make_dir();
    gguf_file *f = open_golden("golden/hand/le_v3_two_tensors.gguf");
    char target[128];
    snprintf(target, sizeof target, "%s/model.gguf", dir);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_save(f, target, NULL, &err) == 0, "%s", err.message);
    ck_assert_int_eq(count_entries(dir), 1);
    gguf_file_free(f);
    remove_dir();
}
END_TEST

START_TEST(save_keeps_the_mode_of_the_target) {
    make_dir();
    gguf_file *f = open_golden("golden/hand/le_v3_two_tensors.gguf");
    char target[128];
    snprintf(target, sizeof target, "%s/model.gguf", dir);
    FILE *fp = fopen(target, "w");
    fputs("old", fp);
    fclose(fp);
    ck_assert(chmod(target, 0640) == 0);
    ck_assert(gguf_file_save(f, target, NULL, NULL) == 0);
    struct stat st;
    ck_assert(stat(target, &st) == 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);
    ck_assert_int_eq(st.st_size, 264);
    gguf_file_free(f);
    remove_dir();
}
END_TEST

START_TEST(failed_save_changes_nothing) {
    make_dir();
    gguf_file *f = open_golden("golden/hand/le_v3_two_tensors.gguf");
    char target[128];
    /* the target's directory does not exist */
    snprintf(target, sizeof target, "%s/missing/model.gguf", dir);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_save(f, target, NULL, &err), GGUF_EIO);
    ck_assert(strstr(err.message, "temporary file") != NULL);
    /* an invalid option leaves an existing target as it was, with nothing beside it */
    snprintf(target, sizeof target, "%s/model.gguf", dir);
    FILE *fp = fopen(target, "w");
    fputs("old", fp);
    fclose(fp);
    gguf_write_options opt = {
        .size = sizeof(gguf_write_options), .version = 2, .endian = GGUF_ENDIAN_BIG};
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_save(f, target, &opt, &err), GGUF_EINVAL);
    ck_assert(strstr(err.message, "big-endian") != NULL);
    size_t len;
    uint8_t *bytes = tu_read_file(target, &len);
    ck_assert(len == 3 && memcmp(bytes, "old", 3) == 0);
    free(bytes);
    ck_assert_int_eq(count_entries(dir), 1);
    gguf_file_free(f);
    remove_dir();
}
END_TEST

START_TEST(output_version_rules) {
    gguf_file *f = open_golden("golden/hand/le_v3_two_tensors.gguf");
    void *out;
    size_t len;
    gguf_error err;
    gguf_write_options v1 = {.size = sizeof(gguf_write_options), .version = 1, .endian = -1},
                       v4 = {.size = sizeof(gguf_write_options), .version = 4, .endian = -1},
                       be = {.size = sizeof(gguf_write_options),
                             .version = 0,
                             .endian = GGUF_ENDIAN_BIG};
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_write_memory(&out, &len, f, &v1, &err), GGUF_EUNSUPPORTED);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_write_memory(&out, &len, f, &v4, &err), GGUF_EINVAL);
    /* another byte order converts tensor data too, and converting back gives the input */
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_write_memory(&out, &len, f, &be, &err), 0);
    gguf_file *b;
    ck_assert(gguf_file_open_memory(&b, out, len, 1, 0, NULL) == 0);
    free(out);
    ck_assert_int_eq(gguf_file_endian(b), GGUF_ENDIAN_BIG);
    gguf_write_options little = {
        .size = sizeof(gguf_write_options), .version = 0, .endian = GGUF_ENDIAN_LITTLE};
    ck_assert_int_eq(gguf_file_write_memory(&out, &len, b, &little, &err), 0);
    size_t orig_len;
    uint8_t *orig = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &orig_len);
    ck_assert(orig_len == len && memcmp(orig, out, len) == 0);
    free(orig);
    free(out);
    gguf_file_free(b);
    gguf_file_free(f);
}
END_TEST

/* v3 -> v2 keeps every value: the v2 output reads back with the same keys and tensors. */
START_TEST(v2_output_reads_back_the_same) {
    gguf_file *f = open_golden("golden/hand/le_v3_two_tensors.gguf");
    gguf_write_options v2 = {.size = sizeof(gguf_write_options), .version = 2, .endian = -1};
    void *out;
    size_t len;
    ck_assert(gguf_file_write_memory(&out, &len, f, &v2, NULL) == 0);
    gguf_file *g;
    ck_assert(gguf_file_open_memory(&g, out, len, 0, 0, NULL) == 0);
    ck_assert_int_eq(gguf_file_version(g), 2);
    ck_assert_int_eq(gguf_kv_count(g), 3);
    ck_assert_int_eq(gguf_tensor_count(g), 2);
    ck_assert_int_eq(gguf_file_data_offset(g), gguf_file_data_offset(f));
    ck_assert(memcmp(gguf_tensor_data(g, 1), gguf_tensor_data(f, 1), 8) == 0);
    ck_assert_int_eq(len, gguf_file_size(f));
    gguf_file_free(g);
    free(out);
    gguf_file_free(f);
}
END_TEST

/* Tensor-less files convert to big-endian exactly as llama.cpp's gguf_convert_endian.py does. */
START_TEST(header_only_files_match_the_reference_big_endian_converter) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    char **files = tu_list_files(tu_corpus("be"), ".be.gguf");
    int compared = 0;
    for (char **p = files; p && *p; p++) {
        const char *base = strrchr(*p, '/') + 1;
        char rel[512];
        snprintf(rel, sizeof rel, "synth/%.*s.gguf", (int)(strlen(base) - 8), base);
        gguf_file *le;
        if (gguf_file_open(&le, tu_corpus(rel), 0, NULL) != 0) {
            snprintf(rel, sizeof rel, "real/%.*s.gguf", (int)(strlen(base) - 8), base);
            ck_assert_msg(gguf_file_open(&le, tu_corpus(rel), 0, NULL) == 0, "no original of %s", base);
        }
        if (gguf_tensor_count(le) == 0) {
            gguf_write_options be = {
                .size = sizeof(gguf_write_options), .version = 0, .endian = GGUF_ENDIAN_BIG};
            void *out;
            size_t len, want_len;
            ck_assert(gguf_file_write_memory(&out, &len, le, &be, NULL) == 0);
            uint8_t *want = tu_read_file(*p, &want_len);
            ck_assert_msg(len == want_len && memcmp(out, want, len) == 0, "%s differs", base);
            free(want);
            free(out);
            /* and back */
            gguf_file *b;
            ck_assert(gguf_file_open(&b, *p, 0, NULL) == 0);
            gguf_write_options little = {
                .size = sizeof(gguf_write_options), .version = 0, .endian = GGUF_ENDIAN_LITTLE};
            ck_assert(gguf_file_write_memory(&out, &len, b, &little, NULL) == 0);
            uint8_t *orig = tu_read_file(tu_corpus(rel), &want_len);
            ck_assert_msg(len == want_len && memcmp(out, orig, len) == 0, "%s back differs", base);
            free(orig);
            free(out);
            gguf_file_free(b);
            compared++;
        }
        gguf_file_free(le);
    }
    tu_free_list(files);
    ck_assert_int_ge(compared, 8);
}
END_TEST

/* The testing build's I/O hooks (libgguf/base/io.c). */
void gguf_testing_fail_io_after(long n, int errnum);
void gguf_testing_corrupt_io_after(long n, int kind);
const char *gguf_testing_io_trace(void);

/* Opens the model at path, or in memory (mem, len) when mem is not NULL, gives it a name too
 * long for its header's padding (so it is rewritten), and saves it to target with the proof on
 * and the corrupt_at-th write (0: none) silently corrupted. Returns the bytes of target (NULL:
 * no file) and sets *rc. */
static uint8_t *save_corrupted(const char *path, const uint8_t *mem, size_t mem_len,
                               const char *target, long corrupt_at, int *rc, size_t *len) {
    gguf_file *f;
    if (mem != NULL)
        ck_assert(gguf_file_open_memory(&f, mem, mem_len, 0, 0, NULL) == 0);
    else
        ck_assert(gguf_file_open(&f, path, 0, NULL) == 0);
    static const char name[] = "a name too long for the header's padding, so it is rewritten";
    ck_assert(gguf_kv_set_str(f, "general.name", name, sizeof name - 1, NULL) == 0);
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.verify = 1;
    gguf_testing_fail_io_after(0, 0); /* starts the trace */
    gguf_testing_corrupt_io_after(corrupt_at, 'w');
    *rc = gguf_file_save(f, target, &opt, NULL);
    gguf_testing_corrupt_io_after(0, 0);
    gguf_file_free(f);
    return tu_read_file(target, len);
}

/* Corrupts each write of the save in turn: every save must fail and leave nothing, or write the
 * right file. Returns how many writes there were, or -1 when the calls of the uncorrupted save
 * do not hold the sequence `need` (NULL: anything goes). */
static long corrupt_each_write(const char *path, const uint8_t *mem, size_t mem_len,
                               const char *target, const char *need) {
    int rc;
    size_t want_len, len;
    uint8_t *want = save_corrupted(path, mem, mem_len, target, 0, &rc, &want_len);
    ck_assert_int_eq(rc, 0);
    ck_assert(want != NULL && unlink(target) == 0);
    if (need != NULL && strstr(gguf_testing_io_trace(), need) == NULL) {
        free(want);
        return -1;
    }
    long writes = 0;
    for (const char *p = gguf_testing_io_trace(); *p != '\0'; p++)
        writes += *p == 'w';
    for (long k = 1; k <= writes; k++) {
        uint8_t *got = save_corrupted(path, mem, mem_len, target, k, &rc, &len);
        if (rc == 0) {
            ck_assert_msg(got != NULL && len == want_len && memcmp(got, want, len) == 0,
                          "%s: write %ld of %ld corrupted: the save succeeded with other bytes",
                          mem ? "from memory" : path, k, writes);
            ck_assert(unlink(target) == 0);
        } else {
            ck_assert_msg(got == NULL, "write %ld corrupted: the save failed but left a file", k);
        }
        free(got);
        ck_assert_int_eq(count_entries(dir), 0); /* no temporary file left */
    }
    free(want);
    return writes;
}

/* The proof before the rename checks every tensor's bytes in the output against the source's:
 * bytes that change on their way to the disk are caught there and nowhere else (the header's
 * own crc32 covers the header only). Tensor bytes written from memory are proven by their
 * crc32s after the write; bytes copied from a file (here from another filesystem, tmpfs) are
 * read back from the disk and compared with the source (all of them: the copy is small). Each
 * write in turn is silently corrupted (one bit of its middle byte). The file's data region is
 * one tensor, written apart from the header, so that byte is a tensor's (the gaps between
 * tensors are not proven). */
START_TEST(proof_catches_corrupted_tensor_bytes) {
    make_dir();
    char target[128];
    snprintf(target, sizeof target, "%s/model.gguf", dir);
    size_t n;
    uint8_t *bytes = tu_read_file(tu_src("golden/hand/be_v3_scalars.gguf"), &n);
    ck_assert_ptr_nonnull(bytes);
    /* from memory: the header, then the tensor data */
    ck_assert_int_ge(corrupt_each_write(NULL, bytes, n, target, NULL), 2);
    /* copied from tmpfs, unlinked at once and read through /proc/self/fd so that nothing is
     * left behind, even on a failure */
    char src[64] = "/dev/shm/gguf-write-XXXXXX";
    struct stat shm, here;
    int fd = mkstemp(src);
    if (fd >= 0)
        unlink(src);
    if (fd < 0 || fstat(fd, &shm) != 0 || stat(dir, &here) != 0 || shm.st_dev == here.st_dev) {
        tu_skip_part("a copy from another filesystem", "no second filesystem in /dev/shm");
    } else {
        ck_assert(write(fd, bytes, n) == (ssize_t)n);
        snprintf(src, sizeof src, "/proc/self/fd/%d", fd);
        /* read (r) and written (w) through the copy engine's buffer */
        ck_assert_int_ge(corrupt_each_write(src, NULL, 0, target, "rw"), 2);
    }
    if (fd >= 0)
        close(fd);
    free(bytes);
    remove_dir();
}
END_TEST

/* The progress callback's done never passes its total, and ends equal to it: for every layout
 * (kept with gaps between tensors and bytes after the last, packed, byte-swapped) and every
 * kind of output (a file, memory). */
typedef struct progress_seen {
    uint64_t done, total;
    int calls, over;
} progress_seen;

static void note_progress(void *user, uint64_t done, uint64_t total) {
    progress_seen *p = user;
    p->over |= done > total;
    p->done = done;
    p->total = total;
    p->calls++;
}

/* A filled tensor with no elements (a dimension of 0: ggml allows it) divided the chunk size by
 * its row of 0 bytes; one whose row is longer than the write's chunk (16 MiB) was filled in
 * chunks of 0 bytes, for ever. Both are written, with their bytes. */
START_TEST(filled_tensors_of_any_row_length) {
    make_dir();
    char out[128];
    snprintf(out, sizeof out, "%s/out.gguf", dir);
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    uint64_t empty[2] = {0, 4}, wide[1] = {5u << 20}, small[2] = {8, 2};
    ck_assert(gguf_tensor_add(f, "empty", GGUF_DTYPE_F32, empty, 2, NULL) == 0);
    ck_assert(gguf_tensor_add(f, "wide", GGUF_DTYPE_F32, wide, 1, NULL) == 0);
    ck_assert(gguf_tensor_add(f, "small", GGUF_DTYPE_F32, small, 2, NULL) == 0);
    gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
    o.fill = fill_offsets;
    gguf_error err;
    gguf_error_clear(&err);
    calls = 0;
    ck_assert_msg(gguf_file_save(f, out, &o, &err) == 0, "%s", err.message);
    gguf_file_free(f);
    ck_assert_int_eq(calls, 2); /* the wide row whole, and the small tensor */
    ck_assert(gguf_file_open(&f, out, 0, NULL) == 0);
    ck_assert_uint_eq(gguf_tensor_count(f), 3);
    for (size_t i = 0; i < 3; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        uint8_t *b = malloc(t.nbytes ? t.nbytes : 1);
        ck_assert(b != NULL);
        ck_assert(gguf_tensor_read(b, f, i, 0, t.nbytes, NULL) == 0);
        /* one assertion per tensor: Check reports every passing assertion to its parent */
        uint64_t k = 0;
        while (k < t.nbytes && b[k] == (uint8_t)(k + i))
            k++;
        ck_assert_msg(k == t.nbytes, "tensor %zu byte %llu of %llu", i, (unsigned long long)k,
                      (unsigned long long)t.nbytes);
        free(b);
    }
    gguf_file_free(f);
    remove_dir();
}
END_TEST

START_TEST(progress_ends_at_its_total) {
    static const char *const files[] = {"golden/hand/gaps_and_trailer.gguf",
                                        "golden/hand/le_v3_two_tensors.gguf",
                                        "golden/hand/be_v3_scalars.gguf"};
    make_dir();
    char out[128];
    snprintf(out, sizeof out, "%s/out.gguf", dir);
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        for (int mode = 0; mode < 6; mode++) {
            gguf_file *f = open_golden(files[k]);
            gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
            progress_seen seen = {0};
            opt.progress = note_progress;
            opt.progress_user = &seen;
            if (mode / 2 == 1)
                opt.layout = GGUF_LAYOUT_PACKED;
            if (mode / 2 == 2)
                opt.endian = gguf_file_endian(f) == GGUF_ENDIAN_BIG ? GGUF_ENDIAN_LITTLE
                                                                    : GGUF_ENDIAN_BIG;
            gguf_error err;
            gguf_error_clear(&err);
            if (mode % 2 == 0) {
                ck_assert_int_eq(gguf_file_save(f, out, &opt, &err), 0);
            } else {
                void *mem = NULL;
                size_t len;
                ck_assert_int_eq(gguf_file_write_memory(&mem, &len, f, &opt, &err), 0);
                free(mem);
            }
            ck_assert_msg(seen.calls > 0, "%s mode %d: no progress", files[k], mode);
            ck_assert_msg(!seen.over && seen.done == seen.total,
                          "%s mode %d: done %llu of %llu (over: %d)", files[k], mode,
                          (unsigned long long)seen.done, (unsigned long long)seen.total,
                          seen.over);
            gguf_file_free(f);
        }
    }
    remove_dir();
}
END_TEST

int main(void) {
    Suite *s = suite_create("write");
    TCase *tc = tcase_create("write");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, save_leaves_only_the_target);
    tcase_add_test(tc, save_keeps_the_mode_of_the_target);
    tcase_add_test(tc, failed_save_changes_nothing);
    tcase_add_test(tc, output_version_rules);
    tcase_add_test(tc, v2_output_reads_back_the_same);
    tcase_add_test(tc, header_only_files_match_the_reference_big_endian_converter);
    tcase_add_test(tc, proof_catches_corrupted_tensor_bytes);
    tcase_add_test(tc, progress_ends_at_its_total);
    tcase_add_test(tc, filled_tensors_of_any_row_length);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
