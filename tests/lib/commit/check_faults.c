/* Faults during an edit, each turned into a clean result with nothing lost (io.c's testing
 * hooks):
 *  - every write, fsync, copy, rename and unlink of an edit fails in turn (EIO, then ENOSPC as
 *    on a full disk): afterwards the file is the old one (or, once an in-place edit's journal
 *    is complete, the new one after recover), with nothing left beside it;
 *  - the process dies (SIGKILL) before each I/O call in turn, of an in-place edit, a rewrite
 *    and a recovery: the file is then the old or the new one once recover has run, never
 *    anything else, and both outcomes occur;
 *  - a byte written or read is silently corrupted, at each call in turn: the proofs (the header
 *    and tensor crc32s of a rewrite read back, the journal's crc32) reject it, and the file is
 *    never left different from both the old and the new one (except by a corrupted in-place
 *    write, which is not read back: see corrupt_sweep);
 *  - the order of the calls: the file is fsync'd before the rename and its folder after it, the
 *    journal is fsync'd and in place before the file is touched, the file fsync'd after the
 *    in-place write;
 *  - all of the above again for a rewrite whose copy writes directly, past the page cache
 *    (base/copy.c; for any size here, on a model of a few buffers), which must also
 *    write the bytes a rewrite through the page cache writes, and fall back to the page cache
 *    where it cannot go direct.
 * A source file truncated by another process while we copy it gives an error, not SIGBUS. */
#define _GNU_SOURCE
#include "tests/support/testutil.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

void gguf_testing_fail_io_after(long n, int errnum);
void gguf_testing_corrupt_io_after(long n, int kind);
void gguf_testing_die_at_io(long n);
const char *gguf_testing_io_trace(void);
void gguf_testing_direct_writes_from(uint64_t n);
void gguf_testing_fail_preallocate(int errnum);
#define DIRECT_MIN_DEFAULT ((uint64_t)512 << 20)

static char dir[64], model[128];
static uint8_t *old_bytes, *new_bytes;
static size_t old_len, new_len;

#define SHORT_VALUE "tent" /* same length: the header is rewritten in place */
#define LONG_VALUE "an architecture name long enough to need a rewrite"
/* with the padding key: past the room a reserve of 1 KiB leaves, blocks are inserted in place */
static char huge_value[6001];
static const char *huge(void) {
    memset(huge_value, 'x', sizeof huge_value - 1);
    return huge_value;
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

/* The edit under test: set general.architecture to value, written back over the model. The
 * hook (a failure, a corruption, a crash) is armed once the file is open and edited, so that
 * it hits the writing of the edit. */
typedef void (*arm_fn)(long n);
static char edit_trace[4096]; /* the I/O calls of the last edit (gguf_testing_io_trace) */
static int edit(const char *value, arm_fn arm, long n, gguf_error *err) {
    gguf_file *f;
    gguf_error_clear(err);
    int rc = gguf_file_open(&f, model, 0, err);
    if (rc != 0)
        return rc;
    rc = gguf_kv_set_str(f, "general.architecture", value, strlen(value), err);
    if (rc == 0 && arm != NULL)
        arm(n);
    if (rc == 0)
        rc = gguf_file_update(f, model, NULL, NULL, err);
    snprintf(edit_trace, sizeof edit_trace, "%s", gguf_testing_io_trace());
    gguf_testing_fail_io_after(0, 0);
    gguf_testing_corrupt_io_after(0, 0);
    gguf_testing_die_at_io(0);
    if (rc != 0)
        ck_assert_msg(err->message[0] != '\0', "a failed update without a message");
    gguf_file_free(f);
    return rc;
}

/* The model's present bytes: 'o' old, 'n' new, '?' neither. */
static char state(void) {
    size_t len;
    uint8_t *now = tu_read_file(model, &len);
    char s = len == old_len && memcmp(now, old_bytes, len) == 0   ? 'o'
             : len == new_len && memcmp(now, new_bytes, len) == 0 ? 'n'
                                                                  : '?';
    free(now);
    return s;
}

/* The model of the direct-write cases: a header longer than one of the copy engine's buffers
 * (256 KiB), so that direct writes begin in it, stop for the flush before the first tensor
 * (where a copy tries to clone) and begin again; tensors across several buffers, one of them
 * not a whole number of blocks, with bytes that differ everywhere. */
static int direct_model;
static int fill_pattern(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                        gguf_error *err) {
    (void)user, (void)err;
    for (size_t i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = (uint8_t)((offset + i + tensor * 977) * 2654435761u >> 24);
    return 0;
}

static void write_direct_model(const char *path) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "test", 4, NULL) == 0);
    static char blob[300001];
    for (size_t i = 0; i + 1 < sizeof blob; i++)
        blob[i] = (char)('a' + i % 23);
    ck_assert(gguf_kv_set_str(f, "test.blob", blob, sizeof blob - 1, NULL) == 0);
    uint64_t a[2] = {1024, 300}, b[1] = {1001}, c[2] = {512, 129};
    ck_assert(gguf_tensor_add(f, "a", GGUF_DTYPE_F32, a, 2, NULL) == 0);
    ck_assert(gguf_tensor_add(f, "b", GGUF_DTYPE_F32, b, 1, NULL) == 0);
    ck_assert(gguf_tensor_add(f, "c", GGUF_DTYPE_F32, c, 2, NULL) == 0);
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.fill = fill_pattern;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_save(f, path, &opt, &err) == 0, "%s", err.message);
    gguf_file_free(f);
}

/* A fresh folder holding the old model (padded: with 1 KiB of room reserved in its header),
 * and the old and new bytes of an edit to value. */
static void setup_model(const char *value, int padded) {
    strcpy(dir, "/tmp/gguf-faults-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    if (direct_model) {
        write_direct_model(model);
        old_bytes = tu_read_file(model, &old_len);
    } else {
        old_bytes = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &old_len);
        ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
    }
    if (padded) {
        gguf_file *f;
        ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
        gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
        o.reserve = 1024;
        ck_assert(gguf_file_update(f, model, &o, NULL, NULL) == 0);
        gguf_file_free(f);
        free(old_bytes);
        old_bytes = tu_read_file(model, &old_len);
    }
    gguf_error err;
    ck_assert(edit(value, NULL, 0, &err) == 0); /* the expected result, without faults */
    new_bytes = tu_read_file(model, &new_len);
    ck_assert(new_len != old_len || memcmp(new_bytes, old_bytes, old_len) != 0);
}

static void setup(const char *value) {
    setup_model(value, 0);
}

static void teardown(void) {
    free(old_bytes);
    free(new_bytes);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}

static int fail_errnum;
static int sweep_padded; /* the sweep edits a model with the padding key */
static void arm_fail(long n) { gguf_testing_fail_io_after(n, fail_errnum); }

/* Makes every I/O call of one edit fail in turn, until the edit goes through. */
static void fail_sweep(const char *value, int errnum) {
    setup_model(value, sweep_padded);
    fail_errnum = errnum;
    int failures = 0;
    for (long n = 1;; n++) {
        ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
        gguf_error err;
        int rc = edit(value, arm_fail, n, &err);
        /* a failure before the in-place write (no pwrite of the file, 'W', began) leaves no
         * journal: else recover would finish an edit its user was told had failed */
        char jpath[160];
        snprintf(jpath, sizeof jpath, "%s/.m.gguf.gguf-journal", dir);
        ck_assert_msg(rc == 0 || strchr(edit_trace, 'W') != NULL || access(jpath, F_OK) != 0,
                      "fault at I/O call %ld (calls %s): failed before the in-place write, "
                      "yet a journal is pending", n, edit_trace);
        int recovered = 0;
        ck_assert(gguf_file_recover(model, &recovered, NULL) == 0);
        char s = state();
        ck_assert_msg(s != '?', "fault at I/O call %ld: the file is neither old nor new", n);
        ck_assert_msg(rc != 0 || s == 'n', "fault at I/O call %ld: success but the old file", n);
        ck_assert_msg(rc == 0 || s == 'o' || recovered,
                      "fault at I/O call %ld: failed, yet the file changed without a journal", n);
        ck_assert_msg(count_entries() == 1, "fault at I/O call %ld: files left beside it", n);
        if (rc == 0)
            break;
        failures++;
        ck_assert_msg(n < 1000, "the edit never succeeds");
    }
    ck_assert_int_ge(failures, 3);
    teardown();
}

START_TEST(in_place_edit_survives_every_io_fault) {
    fail_sweep(SHORT_VALUE, EIO);
}
END_TEST

START_TEST(rewrite_survives_every_io_fault) {
    fail_sweep(LONG_VALUE, EIO);
}
END_TEST

START_TEST(full_disk_during_rewrite) {
    fail_sweep(LONG_VALUE, ENOSPC);
}
END_TEST

START_TEST(growing_in_place_survives_every_io_fault) {
    sweep_padded = 1;
    fail_sweep(huge(), EIO);
    sweep_padded = 0;
}
END_TEST

/* ---- the order of the calls ---- */

/* The trace of one edit, reads ('r') left out. */
static void trace_of(const char *value, char *out, size_t size) {
    ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
    gguf_testing_fail_io_after(0, 0); /* starts a trace */
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", value, strlen(value), NULL) == 0);
    gguf_testing_fail_io_after(0, 0);
    ck_assert(gguf_file_update(f, model, NULL, NULL, NULL) == 0);
    gguf_file_free(f);
    size_t o = 0;
    for (const char *p = gguf_testing_io_trace(); *p && o + 1 < size; p++) {
        if (*p != 'r')
            out[o++] = *p;
    }
    out[o] = '\0';
}

static void assert_matches(const char *trace, const char *pattern, const char *what) {
    regex_t re;
    ck_assert(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) == 0);
    int m = regexec(&re, trace, 0, NULL, 0);
    regfree(&re);
    ck_assert_msg(m == 0, "%s: calls '%s' do not match %s (w write, W pwrite, c copy, f fsync, "
                  "D folder fsync, n rename, u unlink)", what, trace, pattern);
}

START_TEST(calls_happen_in_a_safe_order) {
    setup(SHORT_VALUE);
    char t[512];
    /* in place: the journal written (w), fsync'd (f), renamed into place (n), its folder
     * fsync'd (D); then the header written (W) and fsync'd (f); then the journal removed (u:
     * no folder sync after it, see journal.c) */
    trace_of(SHORT_VALUE, t, sizeof t);
    assert_matches(t, "^w+fnDW+fu$", "in-place edit");
    /* a rewrite: the temporary file written (w, its writeback started b), fsync'd (f),
     * renamed (n), folder fsync'd */
    teardown();
    setup(LONG_VALUE);
    trace_of(LONG_VALUE, t, sizeof t);
    assert_matches(t, "^[wb]+fnD$", "rewrite");
    teardown();
    /* growing in place: the journal as above, then blocks inserted (i) before the header is
     * written (a filesystem that cannot insert falls back to the rewrite) */
    setup_model(huge(), 1);
    trace_of(huge(), t, sizeof t);
    struct statfs fs;
    ck_assert(statfs(dir, &fs) == 0);
    if (fs.f_type == EXT4_SUPER_MAGIC || fs.f_type == XFS_SUPER_MAGIC)
        assert_matches(t, "^w+fnDiW+fu$", "growing in place");
    else
        assert_matches(t, "^w+fnD(u)?[wb]+fnD$", "growing by a rewrite");
    teardown();
}
END_TEST

/* ---- silent corruption ---- */

static char corrupt_kind;
static void arm_corrupt(long n) { gguf_testing_corrupt_io_after(n, corrupt_kind); }
static char caught_message[512]; /* the first corruption an edit reported in a sweep */

/* The operation of the Nth write (w write, W pwrite) in an edit's trace, or 0. */
static char nth_write(const char *trace, long n) {
    for (const char *p = trace; *p; p++) {
        if ((*p == 'w' || *p == 'W') && --n == 0)
            return *p;
    }
    return 0;
}

/* Corrupts the Nth write (or read) of the edit, for every N the edit makes: the edit either
 * reports the corruption with the old file kept, or ends with exactly the new file. Returns
 * how many corruptions were reported. An in-place edit's write over the file (a pwrite) is not
 * read back (the bytes would come from the page cache that write just filled, no proof of what
 * reaches the disk; see commit/journal.c): its corruption is outside what an edit can see. */
static int corrupt_sweep(const char *value, char kind) {
    corrupt_kind = kind;
    int caught = 0;
    for (long n = 1; n < 200; n++) {
        ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
        gguf_error err;
        int rc = edit(value, arm_corrupt, n, &err);
        int recovered = 0;
        int rrc = gguf_file_recover(model, &recovered, NULL);
        char s = state();
        if (rc == 0 && kind == 'w' && strcmp(value, SHORT_VALUE) == 0 &&
            nth_write(edit_trace, n) == 'W') {
            ck_assert_msg(count_entries() == 1, "w corruption %ld: files left beside it", n);
            continue;
        }
        ck_assert_msg(rc != 0 || s == 'n', "%c corruption %ld: the edit succeeded but the file "
                      "is not the new one (%c): no proof caught it", kind, n, s);
        ck_assert_msg(rc == 0 || s == 'o' || (rrc == 0 && recovered && s == 'n'),
                      "%c corruption %ld: failed (%s) and the file is %c", kind, n, err.message,
                      s);
        ck_assert_msg(count_entries() == 1, "%c corruption %ld: files left beside it", kind, n);
        caught += rc != 0;
        if (rc != 0 && caught_message[0] == '\0')
            snprintf(caught_message, sizeof caught_message, "%s", err.message);
        /* past the last call, nothing was corrupted: the edit went through */
        if (rc == 0 && s == 'n' && n > 40)
            break;
    }
    return caught;
}

/* Corrupts each call of the kind in turn (corrupt_sweep): at least one is caught, the first
 * with a message holding `as`. */
static void assert_caught_as(char kind, const char *as) {
    caught_message[0] = '\0';
    ck_assert_int_gt(corrupt_sweep(LONG_VALUE, kind), 0);
    ck_assert_msg(strstr(caught_message, as) != NULL, "caught as: %s", caught_message);
}

START_TEST(proofs_catch_corrupted_bytes) {
    setup(LONG_VALUE);
    /* a rewrite: a corrupted header write or a corrupted read of the copy is caught by the
     * read-back proof before the rename (the copy is small: all of it is read back) */
    ck_assert_int_gt(corrupt_sweep(LONG_VALUE, 'w'), 0);
    ck_assert_int_gt(corrupt_sweep(LONG_VALUE, 'r'), 0);
    /* the copy engine's buffer changed between the read and the write: the two checksums */
    assert_caught_as('b', "changed in memory");
    /* bytes copied from elsewhere than the tensor's own: the log of copied ranges */
    assert_caught_as('p', "was not copied from its byte");
    teardown();
    setup(SHORT_VALUE);
    /* in place: a corrupted journal write is harmless (the edit writes from memory; a journal
     * left by a crash would be refused by its crc32); nothing is read after the open */
    corrupt_sweep(SHORT_VALUE, 'w');
    corrupt_sweep(SHORT_VALUE, 'r');
    teardown();
}
END_TEST

/* ---- crashes ---- */

/* Runs the edit in a child that dies before its Nth I/O call. Returns 1 when it died, 0 when
 * it finished first. */
static int edit_dying_at(const char *value, long n) {
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        gguf_error err;
        int rc = edit(value, gguf_testing_die_at_io, n, &err);
        _exit(rc == 0 ? 0 : 1);
    }
    int status;
    ck_assert(waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status)) {
        ck_assert_int_eq(WTERMSIG(status), SIGKILL);
        return 1;
    }
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the edit failed");
    return 0;
}

/* Dies before each I/O call of the edit in turn; recover must then give the old or the new
 * file. Returns the counts of each outcome in *olds, *news. */
static void crash_sweep(const char *value, int *olds, int *news) {
    *olds = *news = 0;
    for (long n = 1;; n++) {
        ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
        int died = edit_dying_at(value, n);
        int recovered = 0;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0,
                      "crash before I/O call %ld: recover: %s", n, err.message);
        char s = state();
        ck_assert_msg(s != '?', "crash before I/O call %ld: the file is neither old nor new", n);
        /* recover removes what the dead one left (temporary files: their lock died) */
        ck_assert_msg(count_entries() == 1, "crash before I/O call %ld: recover left files "
                      "beside it", n);
        if (s == 'o')
            (*olds)++;
        else
            (*news)++;
        if (!died)
            break;
        ck_assert_msg(n < 1000, "the edit never finishes");
        gguf_error e2;
        ck_assert(edit("zzzz", NULL, 0, &e2) == 0);
        ck_assert_msg(count_entries() == 1, "crash before I/O call %ld: litter survives the "
                      "next edit", n);
    }
}

START_TEST(crashes_leave_the_old_or_the_new_file) {
    int olds, news;
    setup(SHORT_VALUE);
    crash_sweep(SHORT_VALUE, &olds, &news);
    ck_assert_msg(olds > 0 && news > 1, "in place: %d old, %d new", olds, news);
    teardown();
    setup_model(huge(), 1);
    crash_sweep(huge(), &olds, &news);
    ck_assert_msg(olds > 0 && news > 1, "growing in place: %d old, %d new", olds, news);
    teardown();
    setup(LONG_VALUE);
    crash_sweep(LONG_VALUE, &olds, &news);
    ck_assert_msg(olds > 0 && news > 0, "rewrite: %d old, %d new", olds, news);
    teardown();
}
END_TEST

/* A crash during recovery itself: recover again finishes the edit. */
START_TEST(a_crash_during_recover_is_recovered) {
    setup(SHORT_VALUE);
    int finished = 0;
    for (long n = 1;; n++) {
        /* an in-place edit that dies just before it writes the header: a journal, the old file */
        ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
        long k = 1;
        while (edit_dying_at(SHORT_VALUE, k) && state() == 'o') {
            char jpath[160];
            snprintf(jpath, sizeof jpath, "%s/.m.gguf.gguf-journal", dir);
            if (access(jpath, F_OK) == 0)
                break;
            ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
            k++;
        }
        ck_assert_msg(state() == 'o', "setup: no pending journal");
        pid_t pid = fork();
        ck_assert(pid >= 0);
        if (pid == 0) {
            gguf_testing_die_at_io(n);
            _exit(gguf_file_recover(model, NULL, NULL) == 0 ? 0 : 1);
        }
        int status;
        ck_assert(waitpid(pid, &status, 0) == pid);
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_recover(model, NULL, &err) == 0, "after a crash at call %ld: %s",
                      n, err.message);
        ck_assert_msg(state() == 'n', "a crash at call %ld of recover, then recover: not new", n);
        ck_assert_int_eq(count_entries(), 1);
        if (WIFEXITED(status)) {
            finished = 1;
            break;
        }
        ck_assert(n < 100);
    }
    ck_assert(finished);
    teardown();
}
END_TEST

/* ---- what an in-place edit reads and writes ---- */

void gguf_testing_io_bytes(uint64_t *read, uint64_t *written);

static int fill_zeros(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                      gguf_error *err) {
    (void)user;
    (void)tensor;
    (void)offset;
    (void)err;
    memset(buf, 0, len);
    return 0;
}

/* A model with the tokenizer of the vocabulary file vocab (its tokenizer.* keys), two small
 * tensors, and `gguf-edit reserve 1M`'s room in its header, at path. Its data offset. */
static uint64_t vocab_model(const char *path, const char *vocab) {
    gguf_file *v, *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&v, vocab, 0, &err) == 0, "%s", err.message);
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "llama", 5, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.name", "generated", 9, NULL) == 0);
    for (size_t i = 0; i < gguf_kv_count(v); i++) {
        size_t len;
        const char *k = gguf_kv_key(v, i, &len);
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)len, k);
        if (strncmp(key, "tokenizer.", 10) == 0)
            ck_assert(gguf_kv_set_value(f, key, gguf_kv_value(v, i), NULL) == 0);
    }
    uint64_t dims[2] = {4096, 4};
    ck_assert(gguf_tensor_add(f, "a.weight", GGUF_DTYPE_F32, dims, 2, NULL) == 0);
    ck_assert(gguf_tensor_add(f, "b.weight", GGUF_DTYPE_F32, dims, 2, NULL) == 0);
    gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
    o.reserve = 1 << 20;
    o.fill = fill_zeros;
    ck_assert_msg(gguf_file_save(f, path, &o, &err) == 0, "%s", err.message);
    gguf_file_free(f);
    gguf_file_free(v);
    ck_assert(gguf_file_open(&f, path, 0, NULL) == 0);
    uint64_t d = gguf_file_data_offset(f);
    gguf_file_free(f);
    return d;
}

/* The bytes one edit of key (a string, or with u32 set, that number) reads and writes, from
 * the open to the end of gguf_file_update; it must be in place. */
static void count_edit(uint64_t *r, uint64_t *w, const char *key, const char *text, size_t len,
                       const uint32_t *u32) {
    gguf_testing_fail_io_after(0, 0);
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&f, model, 0, &err) == 0, "%s", err.message);
    if (u32 != NULL)
        ck_assert(gguf_kv_set_scalar(f, key, GGUF_VTYPE_U32, u32, NULL) == 0);
    else
        ck_assert(gguf_kv_set_str(f, key, text, len, NULL) == 0);
    gguf_update_result res = {0};
    ck_assert_msg(gguf_file_update(f, model, NULL, &res, &err) == 0, "%s", err.message);
    ck_assert_msg(res.in_place == 1, "%s: not in place", key);
    gguf_file_free(f);
    gguf_testing_io_bytes(r, w);
}

/* An edit that fits in the header's room (a name, a 100 KiB chat template, a token id) reads
 * the header once, with the open, and writes it at most twice (the journal and the file), on a
 * header that holds a real vocabulary (llama-spm's 32k tokens; gemma-4's 262k when ggml-oracle's
 * llama.cpp tree is there) and 1 MiB of room. An edit of a few bytes writes a few bytes and
 * the journal's crc32s of the old header's blocks. Counted by io.c's hooks: deterministic. */
static void io_bound(const char *vocab) {
    strcpy(dir, "/tmp/gguf-faults-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    uint64_t d = vocab_model(model, vocab);
    /* what opening the file reads: the header read, the one an edit may make */
    gguf_testing_fail_io_after(0, 0);
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    gguf_file_free(f);
    uint64_t header_read, none;
    gguf_testing_io_bytes(&header_read, &none);
    /* in a file much longer than its header, as a real model is, the open reads its first 4 MiB
     * or the header and little more (the vocabulary's strings so far tell where it ends), not
     * up to twice the header */
    char cmd[512], longer[160];
    snprintf(longer, sizeof longer, "%s/long.gguf", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", model, longer);
    ck_assert(system(cmd) == 0 && truncate(longer, (off_t)(d + (256 << 20))) == 0);
    gguf_testing_fail_io_after(0, 0);
    ck_assert(gguf_file_open(&f, longer, 0, NULL) == 0);
    gguf_file_free(f);
    uint64_t long_read;
    gguf_testing_io_bytes(&long_read, &none);
    fprintf(stderr, "# %s: a header of %llu bytes in a file of %llu MiB: the open reads %llu\n",
            strrchr(vocab, '/') + 1, (unsigned long long)d, (unsigned long long)(d >> 20) + 256,
            (unsigned long long)long_read);
    uint64_t bound = d + d / 4 > (4 << 20) ? d + d / 4 : 4 << 20;
    ck_assert_msg(long_read <= bound, "the open read %llu bytes of a header of %llu",
                  (unsigned long long)long_read, (unsigned long long)d);
    size_t tlen = 100 << 10;
    char *tpl = malloc(tlen);
    memset(tpl, 'x', tlen);
    static const char *const what[] = {"general.name", "tokenizer.chat_template",
                                       "tokenizer.ggml.bos_token_id"};
    uint32_t bos = 7;
    for (int e = 0; e < 3; e++) {
        uint64_t r, w;
        count_edit(&r, &w, what[e], e == 0 ? "abcdef" : tpl, e == 0 ? 6 : tlen,
                   e == 2 ? &bos : NULL);
        fprintf(stderr, "# %s: %s: header region %llu bytes, the open reads %llu; the edit read "
                "%llu and wrote %llu (%.2f x the region)\n", strrchr(vocab, '/') + 1, what[e],
                (unsigned long long)d, (unsigned long long)header_read, (unsigned long long)r,
                (unsigned long long)w, (double)w / (double)d);
        ck_assert_msg(r <= header_read, "%s: read %llu bytes, the header read is %llu", what[e],
                      (unsigned long long)r, (unsigned long long)header_read);
        ck_assert_msg(w <= 2 * d, "%s: wrote %llu bytes, twice the header is %llu", what[e],
                      (unsigned long long)w, (unsigned long long)(2 * d));
        if (e == 2) /* 4 bytes changed: the journal's head, crc32s and the bytes, twice */
            ck_assert_msg(w <= 128 + d / 1024 + 4096, "a token id: wrote %llu bytes",
                          (unsigned long long)w);
    }
    free(tpl);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}

START_TEST(in_place_edits_read_the_header_once_and_write_it_twice) {
    if (!tu_have_corpus()) {
        tu_skip("../shared/corpus absent (llama-spm's vocabulary)");
        return;
    }
    io_bound(tu_corpus("real/ggml-vocab-llama-spm.gguf"));
    /* beside ggml-oracle: its llama.cpp tree's models/ (as bench/bench_estimate.sh) */
    const char *oracle = getenv("GGML_ORACLE");
    char bin[4000], gemma[4096];
    snprintf(bin, sizeof bin, "%s", oracle != NULL ? oracle : "/tmp/ggml-oracle/bin/ggml-oracle");
    char *slash = strrchr(bin, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(gemma, sizeof gemma, "%s/../src/models/ggml-vocab-gemma-4.gguf", bin);
    if (access(gemma, R_OK) == 0)
        io_bound(gemma);
    else
        tu_skip_part("gemma-4", "ggml-oracle's llama.cpp tree (models/ggml-vocab-gemma-4.gguf) absent");
}
END_TEST

START_TEST(source_truncated_while_copying) {
    strcpy(dir, "/tmp/gguf-faults-XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    size_t len;
    uint8_t *bytes = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &len);
    ck_assert_int_eq(tu_write_file(model, bytes, len), 0);
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

/* ---- direct writes ---- */

static void direct_off(void) {
    direct_model = 0;
    gguf_testing_direct_writes_from(DIRECT_MIN_DEFAULT);
}

/* Rewrites whose copy writes past the page cache whatever its size, on a model of several
 * buffers. Returns 0 where the folder's filesystem takes no direct writes. */
static int direct_on(void) {
    direct_model = 1;
    gguf_testing_direct_writes_from(0);
    setup(LONG_VALUE);
    char t[1024];
    trace_of(LONG_VALUE, t, sizeof t);
    teardown();
    if (strchr(t, 'x') == NULL) {
        direct_off();
        return 0;
    }
    return 1;
}
#define NO_DIRECT "the folder's filesystem takes no direct writes (O_DIRECT with Linux AIO)"

/* The same bytes as a rewrite through the page cache, in the order: direct writes (x) each
 * ended (y) before the fsync, the blocks allocated ahead cut off (t), the rest of the trace
 * as a rewrite's. */
START_TEST(direct_rewrite_writes_what_a_cached_one_writes) {
    if (!direct_on())
        tu_skip(NO_DIRECT);
    setup(LONG_VALUE); /* new_bytes: with direct writes */
    char t[1024];
    trace_of(LONG_VALUE, t, sizeof t);
    /* direct writes in the header (x), ended (y) before the flush's last part block (w),
     * and again in the tensors */
    assert_matches(t, "^w*x[xy]*yw+x[wxyb]*y[wb]*t?fnD$", "direct rewrite");
    long x = 0, y = 0;
    for (const char *p = t; *p; p++) {
        x += *p == 'x';
        y += *p == 'y';
    }
    ck_assert_msg(x >= 3 && x == y, "%ld direct writes, %ld ended: %s", x, y, t);
    gguf_testing_direct_writes_from(UINT64_MAX);
    ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
    gguf_error err;
    gguf_testing_fail_io_after(0, 0); /* starts a trace */
    ck_assert(edit(LONG_VALUE, NULL, 0, &err) == 0);
    ck_assert_msg(strchr(edit_trace, 'x') == NULL, "direct writes when none were allowed");
    size_t len;
    uint8_t *cached = tu_read_file(model, &len);
    ck_assert_int_eq(len, new_len);
    ck_assert_msg(memcmp(cached, new_bytes, len) == 0, "direct and cached rewrites differ");
    free(cached);
    teardown();
    direct_off();
}
END_TEST

/* The edit's bytes and trace with one hook armed: 0 and the new file, or the error. */
static int direct_edit_with(arm_fn arm, long n) {
    ck_assert_int_eq(tu_write_file(model, old_bytes, old_len), 0);
    gguf_error err;
    gguf_testing_fail_io_after(0, 0); /* starts a trace */
    int rc = edit(LONG_VALUE, arm, n, &err);
    ck_assert_msg(rc != 0 || state() == 'n', "the edit succeeded but the file is not the new one");
    ck_assert_msg(rc == 0 || state() == 'o', "the edit failed (%s) and the file changed",
                  err.message);
    ck_assert_int_eq(count_entries(), 1);
    return rc;
}

/* What cannot go direct goes through the page cache, never as an error: blocks that cannot be
 * allocated ahead, a first direct write refused with EINVAL (a device whose blocks are larger
 * than the alignment). EINVAL from a later direct write is an error. */
START_TEST(direct_rewrite_falls_back_where_it_cannot_go_direct) {
    if (!direct_on())
        tu_skip(NO_DIRECT);
    setup(LONG_VALUE);
    gguf_testing_fail_preallocate(ENOSPC);
    ck_assert_int_eq(direct_edit_with(NULL, 0), 0);
    gguf_testing_fail_preallocate(0);
    ck_assert_msg(strchr(edit_trace, 'x') == NULL, "direct writes without allocated blocks: %s",
                  edit_trace);
    /* the I/O call numbers of the first and second direct writes, counted from where the
     * hook is armed (a failure that never comes) */
    fail_errnum = EINVAL;
    ck_assert_int_eq(direct_edit_with(arm_fail, 1000000), 0);
    const char *x1 = strchr(edit_trace, 'x');
    ck_assert(x1 != NULL && strchr(x1 + 1, 'x') != NULL);
    long first = x1 - edit_trace + 1, second = strchr(x1 + 1, 'x') - edit_trace + 1;
    ck_assert_int_eq(direct_edit_with(arm_fail, first), 0);
    ck_assert_msg(strchr(edit_trace + first, 'x') == NULL,
                  "direct writes after the first was refused: %s", edit_trace);
    ck_assert_int_ne(direct_edit_with(arm_fail, second), 0);
    teardown();
    direct_off();
}
END_TEST

START_TEST(direct_rewrite_survives_every_io_fault) {
    if (!direct_on())
        tu_skip(NO_DIRECT);
    fail_sweep(LONG_VALUE, EIO);
    fail_sweep(LONG_VALUE, ENOSPC);
    direct_off();
}
END_TEST

START_TEST(direct_rewrite_proofs_catch_corrupted_bytes) {
    if (!direct_on())
        tu_skip(NO_DIRECT);
    setup(LONG_VALUE);
    /* a direct write whose bytes differ from its buffer's: the read-back (each write in turn;
     * the sweep fails if one is neither caught nor harmless) */
    ck_assert_int_gt(corrupt_sweep(LONG_VALUE, 'w'), 0);
    ck_assert_int_gt(corrupt_sweep(LONG_VALUE, 'r'), 0);
    /* a buffer changed between its read and its write, a range cut at a block boundary among
     * them: the two checksums */
    assert_caught_as('b', "changed in memory");
    teardown();
    direct_off();
}
END_TEST

START_TEST(direct_rewrite_crashes_leave_the_old_or_the_new_file) {
    if (!direct_on())
        tu_skip(NO_DIRECT);
    int olds, news;
    setup(LONG_VALUE);
    crash_sweep(LONG_VALUE, &olds, &news);
    ck_assert_msg(olds > 0 && news > 0, "rewrite: %d old, %d new", olds, news);
    teardown();
    direct_off();
}
END_TEST

int main(void) {
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("faults");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, in_place_edit_survives_every_io_fault);
    tcase_add_test(tc, rewrite_survives_every_io_fault);
    tcase_add_test(tc, full_disk_during_rewrite);
    tcase_add_test(tc, growing_in_place_survives_every_io_fault);
    tcase_add_test(tc, calls_happen_in_a_safe_order);
    tcase_add_test(tc, proofs_catch_corrupted_bytes);
    tcase_add_test(tc, crashes_leave_the_old_or_the_new_file);
    tcase_add_test(tc, a_crash_during_recover_is_recovered);
    tcase_add_test(tc, source_truncated_while_copying);
    suite_add_tcase(s, tc);
    TCase *direct = tcase_create("direct");
    tcase_set_timeout(direct, 300);
    tcase_add_test(direct, direct_rewrite_writes_what_a_cached_one_writes);
    tcase_add_test(direct, direct_rewrite_falls_back_where_it_cannot_go_direct);
    tcase_add_test(direct, direct_rewrite_survives_every_io_fault);
    tcase_add_test(direct, direct_rewrite_proofs_catch_corrupted_bytes);
    tcase_add_test(direct, direct_rewrite_crashes_leave_the_old_or_the_new_file);
    suite_add_tcase(s, direct);
    /* its own case: bench/bench_edit.sh runs it alone (CK_RUN_CASE=io) for its figures */
    TCase *io = tcase_create("io");
    tcase_set_timeout(io, 300);
    tcase_add_test(io, in_place_edits_read_the_header_once_and_write_it_twice);
    suite_add_tcase(s, io);
    return tu_run_suite(s);
}
