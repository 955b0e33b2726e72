/* Split sets in the library (format/shards.c, source/set.c, split/): shard names, the split
 * plan, a set opened as one model (every read reaching the right shard), the refusals of broken
 * sets, the merges, and the merge that deletes its shards killed (SIGKILL) or failed (EIO) at
 * each of its I/O calls in turn: the model is whole after each, and a second run finishes with
 * the same bytes as the plain merge. The byte equality with llama-gguf-split itself is
 * tests/cli/split.sh's. */
#define _GNU_SOURCE
#include "tests/support/testutil.h"
#include "source/source.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void gguf_testing_fail_io_after(long n, int errnum);
void gguf_testing_die_at_io(long n);
long gguf_testing_io_calls(void);

#define N_TENSORS 10

static char dir[64], model[128], prefix[128];

static int fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                gguf_error *err) {
    (void)user;
    (void)err;
    uint8_t *p = buf;
    for (size_t i = 0; i < len; i++)
        p[i] = (uint8_t)(tensor * 37 + (offset + i) * 11 + ((offset + i) >> 8));
    return 0;
}

/* A model of N_TENSORS F32 tensors of different sizes, one with a trailing dim of 1 (ggml
 * writes it with one dim less). */
static void make_model(const char *path) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "test", 4, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.name", "split test", 10, NULL) == 0);
    for (int i = 0; i < N_TENSORS; i++) {
        char name[32];
        snprintf(name, sizeof name, "blk.%d.weight", i);
        uint64_t dims[2] = {(uint64_t)(8 + 8 * i), i == 3 ? 1 : (uint64_t)(1 + i % 3)};
        ck_assert(gguf_tensor_add(f, name, GGUF_DTYPE_F32, dims, 2, NULL) == 0);
    }
    gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
    w.fill = fill;
    ck_assert(gguf_file_save(f, path, &w, NULL) == 0);
    gguf_file_free(f);
}

static void setup(void) {
    strcpy(dir, "/tmp/check_split.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(model, sizeof model, "%s/model.gguf", dir);
    snprintf(prefix, sizeof prefix, "%s/s", dir);
    make_model(model);
}

static void teardown(void) {
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}

static const char *shard(uint32_t k, uint32_t n) {
    static char buf[192];
    ck_assert(gguf_split_name(buf, sizeof buf, prefix, k, n) > 0);
    return buf;
}

/* Writes the model as a set of shards of `per` tensors; returns the shard count. */
static uint32_t split_model(uint64_t per) {
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    gguf_split_options opt = GGUF_SPLIT_OPTIONS_INIT;
    opt.max_tensors = per;
    uint32_t n = 0;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_split_save(&n, f, prefix, &opt, &err) == 0, "%s", err.message);
    gguf_file_free(f);
    return n;
}

START_TEST(names) {
    char buf[64];
    ck_assert_int_eq(gguf_split_name(buf, sizeof buf, "a/m", 0, 3), 23);
    ck_assert_str_eq(buf, "a/m-00001-of-00003.gguf");
    ck_assert_int_eq(gguf_split_name(buf, sizeof buf, "m", 3, 3), -1);
    ck_assert_int_eq(gguf_split_name(buf, 10, "m", 0, 3), -1);
    size_t plen;
    uint32_t no, count;
    ck_assert(gguf_split_parse_name(&plen, &no, &count, "x/big-00002-of-00004.gguf") == 1);
    ck_assert(plen == 5 && no == 1 && count == 4);
    const char *bad[] = {"-00001-of-00002.gguf", "m-00000-of-00002.gguf", "m-00003-of-00002.gguf",
                         "m-00001-of-00002.GGUF", "m-0001-of-00002.gguf", "m-00001_of-00002.gguf",
                         "m.gguf", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(gguf_split_parse_name(NULL, NULL, NULL, bad[i]) == 0, "%s", bad[i]);
}
END_TEST

START_TEST(plan) {
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    uint32_t of[N_TENSORS], n;
    gguf_split_options opt = GGUF_SPLIT_OPTIONS_INIT;
    opt.max_tensors = 4;
    ck_assert(gguf_split_plan(of, &n, f, &opt, NULL) == 0);
    ck_assert(n == 3 && of[0] == 0 && of[3] == 0 && of[4] == 1 && of[8] == 2 && of[9] == 2);
    opt.no_tensor_first = 1;
    ck_assert(gguf_split_plan(of, &n, f, &opt, NULL) == 0);
    ck_assert(n == 4 && of[0] == 1 && of[9] == 3);
    /* by size: tensor i has 4 * (8 + 8i) * (1 + i % 3) bytes (tensor 3: 128), each padded to 32 */
    opt = (gguf_split_options)GGUF_SPLIT_OPTIONS_INIT;
    opt.mode = GGUF_SPLIT_BY_SIZE;
    opt.max_bytes = 400;
    ck_assert(gguf_split_plan(of, &n, f, &opt, NULL) == 0);
    uint64_t used = 0;
    for (int i = 0; i < N_TENSORS; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, (size_t)i);
        uint64_t padded = (t.nbytes + 31) / 32 * 32;
        if (i > 0 && of[i] != of[i - 1])
            ck_assert_msg(used + padded > 400 && of[i] == of[i - 1] + 1, "cut before %d", i);
        used = i > 0 && of[i] == of[i - 1] ? used + padded : padded;
        ck_assert(used <= 400 || (i > 0 && of[i] != of[i - 1]));
    }
    opt.max_bytes = 10; /* the first tensor alone is larger: a shard would hold none */
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert(gguf_split_plan(of, &n, f, &opt, &err) == GGUF_EINVAL);
    ck_assert(strstr(err.message, "blk.0.weight") != NULL);
    opt.max_bytes = 0;
    ck_assert(gguf_split_plan(of, &n, f, &opt, NULL) == GGUF_EINVAL);
    /* by shard: a single file is one shard */
    opt.mode = GGUF_SPLIT_BY_SHARD;
    ck_assert(gguf_split_plan(of, &n, f, &opt, NULL) == 0 && n == 1 && of[9] == 0);
    gguf_file_free(f);
}
END_TEST

/* The set read through each shard is the model: names, types, shapes, bytes. */
START_TEST(set_view) {
    uint32_t n = split_model(3);
    ck_assert_uint_eq(n, 4);
    gguf_file *m;
    ck_assert(gguf_file_open(&m, model, 0, NULL) == 0);
    for (uint32_t k = 0; k < n; k++) {
        gguf_file *s;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_open(&s, shard(k, n), GGUF_OPEN_SPLIT_SET, &err) == 0, "%s",
                      err.message);
        ck_assert_uint_eq(gguf_file_shard_count(s), n);
        ck_assert_uint_eq(gguf_tensor_count(s), N_TENSORS);
        ck_assert_str_eq(gguf_file_path(s), shard(0, n));
        ck_assert_str_eq(gguf_file_path(gguf_file_shard(s, 2)), shard(2, n));
        ck_assert_ptr_null(gguf_file_shard(s, n));
        ck_assert(gguf_kv_find(s, "general.name") >= 0);
        uint64_t sum = 0;
        for (uint32_t j = 0; j < n; j++)
            sum += gguf_file_size(gguf_file_shard(s, j));
        ck_assert(gguf_file_size(s) == sum);
        for (size_t i = 0; i < N_TENSORS; i++) {
            gguf_tensor_info a, b;
            gguf_tensor_get(&a, m, i);
            gguf_tensor_get(&b, s, i);
            ck_assert(a.name_len == b.name_len && memcmp(a.name, b.name, a.name_len) == 0);
            ck_assert(a.type == b.type && a.nbytes == b.nbytes && a.dims[0] == b.dims[0] &&
                      a.dims[1] == b.dims[1]);
            ck_assert_uint_eq(gguf_tensor_shard(s, i), i / 3);
            uint8_t x[4096], y[4096];
            ck_assert(a.nbytes <= sizeof x);
            ck_assert(gguf_tensor_read(x, m, i, 0, (size_t)a.nbytes, NULL) == 0);
            ck_assert(gguf_tensor_read(y, s, i, 0, (size_t)b.nbytes, NULL) == 0);
            ck_assert(memcmp(x, y, (size_t)a.nbytes) == 0);
            const void *p = gguf_tensor_data(s, i);
            ck_assert(p != NULL && memcmp(p, x, (size_t)a.nbytes) == 0);
            uint32_t c1, c2;
            ck_assert(gguf_crc_tensor(&c1, m, i, NULL) == 0);
            ck_assert(gguf_crc_tensor(&c2, s, i, NULL) == 0);
            ck_assert_uint_eq(c1, c2);
        }
        /* by shard: the set's own split; written again, the same shards (prefix t) */
        uint32_t of[N_TENSORS], ns;
        gguf_split_options so = GGUF_SPLIT_OPTIONS_INIT;
        so.mode = GGUF_SPLIT_BY_SHARD;
        ck_assert(gguf_split_plan(of, &ns, s, &so, NULL) == 0 && ns == n);
        for (size_t i = 0; i < N_TENSORS; i++)
            ck_assert_uint_eq(of[i], i / 3);
        /* a set view is never written over one of its files */
        ck_assert(gguf_file_update(s, shard(0, n), NULL, NULL, NULL) == GGUF_EINVAL);
        ck_assert_int_eq(gguf_file_lint(s, NULL, NULL, NULL), 0);
        gguf_file_free(s);
        /* without the flag, a shard is the file it is */
        ck_assert(gguf_file_open(&s, shard(k, n), 0, NULL) == 0);
        ck_assert_uint_eq(gguf_file_shard_count(s), 1);
        ck_assert(gguf_file_shard(s, 0) == s);
        ck_assert_uint_eq(gguf_tensor_count(s), k < 3 ? 3 : 1);
        gguf_file_free(s);
    }
    /* read with NO_MMAP too (each shard in memory) */
    gguf_file *s;
    ck_assert(gguf_file_open(&s, shard(1, n), GGUF_OPEN_SPLIT_SET | GGUF_OPEN_NO_MMAP, NULL) == 0);
    uint32_t c1, c2;
    ck_assert(gguf_crc_tensor(&c1, m, 7, NULL) == 0 && gguf_crc_tensor(&c2, s, 7, NULL) == 0);
    ck_assert_uint_eq(c1, c2);
    gguf_file_free(s);
    gguf_file_free(m);
}
END_TEST

static void copy_file(const char *from, const char *to) {
    size_t len;
    uint8_t *b = tu_read_file(from, &len);
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(tu_write_file(to, b, len), 0);
    free(b);
}

static void expect_refusal(const char *path, int code, const char *words) {
    gguf_file *s = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(&s, path, GGUF_OPEN_SPLIT_SET, &err), code);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err.message, words) != NULL, "'%s' does not say '%s'", err.message, words);
    ck_assert(err.path[0] != '\0');
}

START_TEST(refusals) {
    uint32_t n = split_model(3);
    char saved[192], aside[160];
    strcpy(saved, shard(2, n));
    snprintf(aside, sizeof aside, "%s/aside", dir);
    ck_assert(rename(saved, aside) == 0); /* keep its bytes aside */
    expect_refusal(shard(0, n), GGUF_ENOTFOUND, "1 missing: s-00003-of-00004.gguf");
    copy_file(shard(1, n), saved); /* shard 2's bytes under shard 3's name */
    expect_refusal(shard(3, n), GGUF_ECORRUPT, "copy of shard 2");
    ck_assert(rename(aside, saved) == 0);
    gguf_split_options opt = GGUF_SPLIT_OPTIONS_INIT;
    char name[160];
    /* shard 2 of a set of 4 shards of another model (9 tensors): two sets */
    gguf_file *g;
    ck_assert(gguf_file_open(&g, model, 0, NULL) == 0);
    ck_assert(gguf_tensor_remove(g, "blk.9.weight", NULL) == 0);
    char pfx2[128];
    snprintf(pfx2, sizeof pfx2, "%s/t", dir);
    opt.max_tensors = 3;
    opt.no_tensor_first = 1;
    ck_assert(gguf_split_save(NULL, g, pfx2, &opt, NULL) == 0);
    gguf_file_free(g);
    snprintf(name, sizeof name, "%s-00002-of-00004.gguf", pfx2);
    copy_file(shard(1, n), aside);
    copy_file(name, shard(1, n));
    expect_refusal(shard(0, n), GGUF_ECORRUPT, "two different sets");
    copy_file(aside, shard(1, n));
    /* split.count against the name */
    snprintf(name, sizeof name, "%s-00001-of-00005.gguf", prefix);
    copy_file(shard(0, n), name);
    expect_refusal(name, GGUF_ECORRUPT, "disagrees with the name");
    /* split.count > 1 in a file not named as a shard */
    copy_file(shard(0, n), aside);
    expect_refusal(aside, GGUF_EINVAL, "not PREFIX-00001-of-00004.gguf");
    /* the good set still opens, and lint names the stray shard of another split beside it */
    gguf_file *s;
    ck_assert(gguf_file_open(&s, shard(3, n), GGUF_OPEN_SPLIT_SET, NULL) == 0);
    ck_assert_int_eq(gguf_file_lint(s, NULL, NULL, NULL), 1);
    gguf_file_free(s);
}
END_TEST

/* The plain merge and the deleting one give the same bytes; the merged file holds the model. */
static uint8_t *expected;
static size_t expected_len;
static char out[160];

static void merged_expectation(uint32_t n) {
    gguf_file *s;
    ck_assert(gguf_file_open(&s, shard(0, n), GGUF_OPEN_SPLIT_SET, NULL) == 0);
    char ref[160];
    snprintf(ref, sizeof ref, "%s/ref.gguf", dir);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_split_merge_save(s, ref, NULL, NULL, &err) == 0, "%s", err.message);
    /* an existing output is replaced, atomically, as by every writer */
    ck_assert(gguf_split_merge_save(s, ref, NULL, NULL, NULL) == 0);
    gguf_file_free(s);
    expected = tu_read_file(ref, &expected_len);
    ck_assert_ptr_nonnull(expected);
    unlink(ref);
    /* the merge holds every tensor of the model, and split.count 0 */
    gguf_file *a, *b;
    ck_assert(gguf_file_open_memory(&a, expected, expected_len, 0, 0, NULL) == 0);
    ck_assert(gguf_file_open(&b, model, 0, NULL) == 0);
    ck_assert_uint_eq(gguf_tensor_count(a), gguf_tensor_count(b));
    for (size_t i = 0; i < gguf_tensor_count(a); i++) {
        uint32_t c1, c2;
        ck_assert(gguf_crc_tensor(&c1, a, i, NULL) == 0 && gguf_crc_tensor(&c2, b, i, NULL) == 0);
        ck_assert_uint_eq(c1, c2);
    }
    uint64_t count = 1;
    ck_assert(gguf_value_get_u64(&count, gguf_kv_value(a, (size_t)gguf_kv_find(a, "split.count")),
                                 NULL) == 0);
    ck_assert(count == 0 && gguf_kv_find(a, "split.count") == (int64_t)gguf_kv_count(a) - 1);
    gguf_file_free(a);
    gguf_file_free(b);
    snprintf(out, sizeof out, "%s/out.gguf", dir);
}

static bool same_as_expected(const char *path) {
    size_t len;
    uint8_t *b = tu_read_file(path, &len);
    bool same = b != NULL && len == expected_len && memcmp(b, expected, len) == 0;
    free(b);
    return same;
}

/* Files in dir other than the model. */
static int files_left(void) {
    char cmd[192];
    snprintf(cmd, sizeof cmd,
             "test $(ls -A '%s' | grep -v -e '^model.gguf$' -e '^keep$' | wc -l) -eq 1", dir);
    return system(cmd) == 0;
}

/* Whole after a crash: merged (under OUT or the first shard's name, the expected bytes), or in
 * shards whose tensors (leniently: one shard's may be in two files) match the model's, or with
 * the first shard's header torn inside its in-place rewrite, its journal beside it ('j': the
 * reader says so; the rerun, which the sweep runs next, must finish it). */
static char whole(uint32_t n) {
    if (access(out, F_OK) == 0)
        return same_as_expected(out) ? 'm' : '?';
    gguf_file *s;
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_file_open(&s, shard(0, n), 0, &err) != 0)
        return strstr(err.message, "edit of its header was interrupted") != NULL ? 'j' : '?';
    uint64_t count = 9;
    int64_t i = gguf_kv_find(s, "split.count");
    if (i >= 0)
        gguf_value_get_u64(&count, gguf_kv_value(s, (size_t)i), NULL);
    gguf_file_free(s);
    if (count == 0)
        return same_as_expected(shard(0, n)) ? 'm' : '?';
    char c = 's';
    if (gguf_file_open(&s, shard(0, n), GGUF_OPEN_SPLIT_SET, NULL) != 0) {
        c = 't'; /* the window: a shard's tensors in two files */
        if (gguf_file_open(&s, shard(0, n), GGUF_OPEN_SPLIT_SET | GGUF_OPEN_LENIENT, NULL) != 0)
            return '?';
    }
    gguf_file *m;
    ck_assert(gguf_file_open(&m, model, 0, NULL) == 0);
    for (size_t t = 0; c != '?' && t < gguf_tensor_count(m); t++) {
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, m, t);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)ti.name_len, ti.name);
        int64_t j = gguf_tensor_find(s, name);
        uint32_t c1, c2;
        if (j < 0 || gguf_crc_tensor(&c1, m, t, NULL) != 0 ||
            gguf_crc_tensor(&c2, s, (size_t)j, NULL) != 0 || c1 != c2)
            c = '?';
    }
    gguf_file_free(m);
    gguf_file_free(s);
    return c;
}

static int merge_delete(uint32_t n, gguf_split_merge_result *res) {
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_split_merge_delete(res, shard(n - 1, n), out, NULL, NULL, &err);
    ck_assert_msg(rc != 0 || err.code == 0, "success with an error recorded");
    ck_assert_msg(rc == 0 || err.message[0] != '\0', "failure without a message");
    return rc;
}

START_TEST(merge_delete_plain) {
    uint32_t n = split_model(3);
    merged_expectation(n);
    gguf_split_merge_result res;
    ck_assert(merge_delete(n, &res) == 0);
    ck_assert(same_as_expected(out) && files_left());
    ck_assert(res.resumed == 0 && res.shards == n && res.shards_merged == n);
    free(expected);
}
END_TEST

/* The deleting merge of the set of n shards run in a child killed (SIGKILL) at I/O call `at`;
 * whether it finished before that call. */
static int killed_at(uint32_t n, long at) {
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        gguf_testing_die_at_io(at);
        int r = gguf_split_merge_delete(NULL, shard(0, n), out, NULL, NULL, NULL);
        _exit(r == 0 ? 0 : 1);
    }
    int status;
    ck_assert(waitpid(pid, &status, 0) == pid);
    int done = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ck_assert_msg(done || (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL),
                  "I/O call %ld: the merge failed without being killed", at);
    return done;
}

/* The deleting merge killed (SIGKILL in a child) or failed (EIO) at each I/O call in turn. */
static void sweep(int kill) {
    uint32_t n = split_model(3);
    merged_expectation(n);
    char keep[160];
    snprintf(keep, sizeof keep, "%s/keep", dir);
    ck_assert(mkdir(keep, 0700) == 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cp '%s'/s-* '%s'/", dir, keep);
    ck_assert(system(cmd) == 0);
    int seen[128] = {0};
    long points = 0;
    for (long at = 1;; at++) {
        snprintf(cmd, sizeof cmd, "rm -f '%s'/s-* '%s'/.s-* '%s' && cp '%s'/s-* '%s'/", dir, dir,
                 out, keep, dir);
        ck_assert(system(cmd) == 0);
        int done;
        if (kill) {
            done = killed_at(n, at);
        } else {
            gguf_testing_fail_io_after(at, EIO);
            done = merge_delete(n, NULL) == 0 && gguf_testing_io_calls() < at;
            gguf_testing_fail_io_after(0, 0);
        }
        char c = whole(n);
        ck_assert_msg(c != '?', "%s at I/O call %ld: the model is not whole",
                      kill ? "killed" : "failed", at);
        seen[(unsigned char)c]++;
        /* the rerun finishes: the merge's bytes, nothing else left */
        gguf_split_merge_result res;
        ck_assert_msg(merge_delete(n, &res) == 0, "the rerun after I/O call %ld failed", at);
        ck_assert_msg(same_as_expected(out) && files_left(), "after I/O call %ld", at);
        points++;
        if (done)
            break;
    }
    fprintf(stderr, "check_split: %s at each of %ld I/O calls: %d in shards, %d with a shard in "
            "two files, %d torn with a journal, %d merged\n", kill ? "killed" : "failed", points,
            seen['s'], seen['t'], seen['j'], seen['m']);
    ck_assert(seen['s'] > 0 && seen['m'] > 0 && seen['t'] > 0 && seen['j'] > 0);
    free(expected);
}

START_TEST(merge_delete_killed) { sweep(1); }
END_TEST

START_TEST(merge_delete_failed) { sweep(0); }
END_TEST

/* The shard (1..n-1) still holding tensors that the first shard, read alone, lists too (a
 * crash between the header's write and the emptying of that shard), or 0; *merged: the
 * first shard says split.count 0 (the merged header was written). */
static uint32_t duplicated_shard(uint32_t n, bool *merged) {
    gguf_file *first, *s;
    if (gguf_file_open(&first, shard(0, n), 0, NULL) != 0)
        return 0;
    uint64_t count = 1;
    int64_t i = gguf_kv_find(first, "split.count");
    ck_assert(i >= 0 && gguf_value_get_u64(&count, gguf_kv_value(first, (size_t)i), NULL) == 0);
    *merged = count == 0;
    uint32_t dup = 0;
    for (uint32_t k = 1; dup == 0 && k < n; k++) {
        if (gguf_file_open(&s, shard(k, n), 0, NULL) != 0)
            continue;
        gguf_tensor_info t;
        char name[64];
        if (gguf_tensor_count(s) > 0) {
            gguf_tensor_get(&t, s, 0);
            snprintf(name, sizeof name, "%.*s", (int)t.name_len, t.name);
            dup = gguf_tensor_find(first, name) >= 0 ? k : 0;
        }
        gguf_file_free(s);
    }
    gguf_file_free(first);
    return dup;
}

/* After such a crash the rerun empties (or removes) the shard only after proving its bytes
 * equal to the merged file's: with one byte of its last tensor changed, it refuses and
 * changes nothing. merged: the crash after the merged header (the last shard with tensors),
 * else after an intermediate one. */
static void duplicate_differs(bool merged) {
    uint32_t n = split_model(3);
    merged_expectation(n);
    char keep[160], cmd[1024];
    snprintf(keep, sizeof keep, "%s/keep", dir);
    ck_assert(mkdir(keep, 0700) == 0);
    snprintf(cmd, sizeof cmd, "cp '%s'/s-* '%s'/", dir, keep);
    ck_assert(system(cmd) == 0);
    uint32_t k = 0;
    for (long at = 1; k == 0; at++) {
        snprintf(cmd, sizeof cmd, "rm -f '%s'/s-* '%s'/.s-* '%s' && cp '%s'/s-* '%s'/", dir, dir,
                 out, keep, dir);
        ck_assert(system(cmd) == 0);
        ck_assert_msg(!killed_at(n, at), "no crash left a shard in two files (%s header)",
                      merged ? "merged" : "an intermediate");
        bool m = false;
        k = duplicated_shard(n, &m);
        if (m != merged)
            k = 0;
    }
    /* one byte of the shard's last tensor changed */
    gguf_file *s;
    ck_assert(gguf_file_open(&s, shard(k, n), 0, NULL) == 0);
    gguf_tensor_info t;
    gguf_tensor_get(&t, s, gguf_tensor_count(s) - 1);
    uint64_t at = gguf_file_data_offset(s) + t.offset + t.nbytes / 2;
    gguf_file_free(s);
    FILE *fp = fopen(shard(k, n), "r+b");
    ck_assert(fp != NULL && fseek(fp, (long)at, SEEK_SET) == 0);
    int c = fgetc(fp);
    ck_assert(c != EOF && fseek(fp, (long)at, SEEK_SET) == 0 && fputc(c ^ 0x5a, fp) != EOF);
    ck_assert(fclose(fp) == 0);
    snprintf(cmd, sizeof cmd, "cd '%s' && cksum s-* > keep/sums.%d", dir, merged);
    ck_assert(system(cmd) == 0);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert(gguf_split_merge_delete(NULL, shard(0, n), out, NULL, NULL, &err) == GGUF_ECORRUPT);
    ck_assert_msg(strstr(err.message, "differs from the merged file's") != NULL &&
                      strstr(err.path, shard(k, n)) != NULL,
                  "%s: %s", err.path, err.message);
    snprintf(cmd, sizeof cmd, "cd '%s' && cksum s-* | cmp -s - keep/sums.%d", dir, merged);
    ck_assert_msg(system(cmd) == 0, "the refused rerun changed the shards");
    ck_assert(access(out, F_OK) != 0);
    free(expected);
}

START_TEST(merge_delete_duplicate_differs) { duplicate_differs(false); }
END_TEST

START_TEST(merge_delete_duplicate_differs_merged) { duplicate_differs(true); }
END_TEST

/* Every allocation failure while opening a set fails cleanly. */
START_TEST(open_alloc_failures) {
    uint32_t n = split_model(3);
    for (long k = 1;; k++) {
        gguf_testing_fail_alloc_after(k);
        gguf_file *s = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_file_open(&s, shard(1, n), GGUF_OPEN_SPLIT_SET, &err);
        gguf_testing_fail_alloc_after(0);
        if (rc == 0) {
            ck_assert_uint_eq(gguf_tensor_count(s), N_TENSORS);
            gguf_file_free(s);
            break;
        }
        ck_assert_int_eq(rc, GGUF_ENOMEM);
        ck_assert_ptr_null(s);
    }
}
END_TEST

/* A set's read stays inside one part: one that would run from the end of one shard into the
 * next is refused (GGUF_EIO, naming both shards) rather than read from one part past its end.
 * Memory parts, because a local shard's own read past its end fails anyway. */
START_TEST(set_read_within_part) {
    static const uint8_t a[8] = "ABCDEFGH", b[5] = "ijklm";
    gguf__source *parts[2], *set;
    ck_assert(gguf__source_open_memory(&parts[0], a, sizeof a, false, "a", NULL) == 0);
    ck_assert(gguf__source_open_memory(&parts[1], b, sizeof b, false, "b", NULL) == 0);
    ck_assert(gguf__source_open_set(&set, parts, 2, NULL) == 0);
    ck_assert_uint_eq(set->size, 13);
    uint8_t x[13] = {0};
    ck_assert(gguf__source_read(set, x, 3, 5, NULL) == 0 && memcmp(x, "FGH", 3) == 0);
    ck_assert(gguf__source_read(set, x, 5, 8, NULL) == 0 && memcmp(x, "ijklm", 5) == 0);
    const uint64_t spans[][2] = {{7, 2}, {0, 13}, {6, 7}};
    for (size_t i = 0; i < sizeof spans / sizeof spans[0]; i++) {
        gguf_error err;
        gguf_error_clear(&err);
        memset(x, 0, sizeof x);
        ck_assert_int_eq(gguf__source_read(set, x, (size_t)spans[i][1], spans[i][0], &err), GGUF_EIO);
        ck_assert_msg(strstr(err.message, "span shards 1 and 2") != NULL, "%s", err.message);
        ck_assert_uint_eq(err.offset, spans[i][0]);
        ck_assert(memcmp(x, (uint8_t[13]){0}, sizeof x) == 0);
    }
    gguf__source_free(set);
    gguf__source_free(parts[0]);
    gguf__source_free(parts[1]);
}
END_TEST

int main(void) {
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("split");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, names);
    tcase_add_test(tc, plan);
    tcase_add_test(tc, set_view);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, merge_delete_plain);
    tcase_add_test(tc, merge_delete_killed);
    tcase_add_test(tc, merge_delete_failed);
    tcase_add_test(tc, merge_delete_duplicate_differs);
    tcase_add_test(tc, merge_delete_duplicate_differs_merged);
    tcase_add_test(tc, open_alloc_failures);
    tcase_add_test(tc, set_read_within_part);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
