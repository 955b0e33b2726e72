/* The journal of in-place edits (commit/journal.c, commit/recover.c): reading never applies,
 * removes or creates anything; recovery applies exactly the journals that belong to the file
 * and refuses every other one, leaving it and the file in place. Journals here are assembled by
 * a test-local encoder from the format's byte map, so that a bug shared by the library's writer
 * and reader cannot hide. */
#define _GNU_SOURCE
#include "tests/support/testutil.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <zlib.h>

static char dir[64], model[128], jpath[160];
static uint8_t *orig;   /* the model's bytes */
static size_t orig_len;
#define REGION 224      /* data offset of golden/hand/le_v3_two_tensors.gguf */
#define ARCH_AT 0x40    /* the value of general.architecture ("test") */

static uint8_t new_region[REGION];

/* The journal an interrupted "set general.architecture tent" leaves. */
static tu_journal valid_spec(void) {
    struct stat st;
    ck_assert(stat(model, &st) == 0);
    memcpy(new_region, orig, REGION);
    memcpy(new_region + ARCH_AT, "tent", 4);
    tu_journal s = {.version = TU_JOURNAL_VERSION, .dev = (uint64_t)st.st_dev,
                    .ino = (uint64_t)st.st_ino, .size = (uint64_t)st.st_size, .len = REGION,
                    .old_crc = (uint32_t)crc32_z(0, orig, REGION), .old_region = orig,
                    .new_region = new_region};
    memcpy(s.magic, "GGUFJRNL", 8);
    return s;
}

static size_t plant(const tu_journal *s, uint8_t *out) {
    size_t n = tu_journal_encode(out, s);
    ck_assert_int_eq(tu_write_file(jpath, out, n), 0);
    return n;
}

static void setup(void) {
    strcpy(dir, "/tmp/check_journal.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(model, sizeof model, "%s/m.gguf", dir);
    snprintf(jpath, sizeof jpath, "%s/.m.gguf.gguf-journal", dir);
    orig = tu_read_file(tu_src("golden/hand/le_v3_two_tensors.gguf"), &orig_len);
    ck_assert(orig != NULL && orig_len > REGION);
    ck_assert_int_eq(tu_write_file(model, orig, orig_len), 0);
}

static void teardown(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
    free(orig);
}

/* 1 when the file at path holds exactly these bytes. */
static int holds(const char *path, const uint8_t *p, size_t n) {
    size_t len;
    uint8_t *now = tu_read_file(path, &len);
    int same = now != NULL && len == n && memcmp(now, p, n) == 0;
    free(now);
    return same;
}

static uint8_t *new_file(void) {
    uint8_t *b = malloc(orig_len);
    memcpy(b, orig, orig_len);
    memcpy(b + ARCH_AT, "tent", 4);
    return b;
}

/* recover must refuse the planted journal, leaving it and the model as they are. */
static void expect_refused(const uint8_t *journal, size_t n, const char *what) {
    gguf_error err;
    gguf_error_clear(&err);
    int recovered = 1;
    int rc = gguf_file_recover(model, &recovered, &err);
    ck_assert_msg(rc != 0, "%s: recover applied it", what);
    ck_assert_msg(recovered == 0, "%s", what);
    ck_assert_msg(err.message[0] != '\0' && err.path[0] != '\0', "%s: no reason given", what);
    ck_assert_msg(holds(model, orig, orig_len), "%s: the model changed", what);
    if (journal != NULL)
        ck_assert_msg(holds(jpath, journal, n), "%s: the journal was not left in place", what);
    int state = -1;
    gguf_error why;
    gguf_error_clear(&why);
    ck_assert(gguf_file_journal(&state, model, &why) == 0);
    ck_assert_msg(state == GGUF_JOURNAL_REFUSED, "%s: state %d", what, state);
    ck_assert_msg(why.message[0] != '\0', "%s", what);
}

START_TEST(reading_never_applies_or_removes_a_journal) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    size_t n = plant(&s, j);
    char temp[160];
    snprintf(temp, sizeof temp, "%s/.m.gguf.tmp-AbCdEf", dir);
    ck_assert_int_eq(tu_write_file(temp, "stale", 5), 0);
    struct stat before, after, jbefore, jafter;
    ck_assert(stat(model, &before) == 0 && stat(jpath, &jbefore) == 0);
    for (int flags = 0; flags < 2; flags++) {
        gguf_file *f;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_open(&f, model, flags ? GGUF_OPEN_NO_MMAP : 0, &err) == 0, "%s",
                      err.message);
        uint32_t crc;
        ck_assert(gguf_crc_tensor(&crc, f, 0, NULL) == 0);
        void *buf;
        size_t len;
        ck_assert(gguf_file_write_memory(&buf, &len, f, NULL, NULL) == 0);
        ck_assert(len == orig_len && memcmp(buf, orig, len) == 0); /* the old file, as it is */
        free(buf);
        gguf_file_free(f);
    }
    int state = -1;
    ck_assert(gguf_file_journal(&state, model, NULL) == 0);
    ck_assert_int_eq(state, GGUF_JOURNAL_PENDING);
    ck_assert(stat(model, &after) == 0 && stat(jpath, &jafter) == 0);
    ck_assert(holds(model, orig, orig_len));
    ck_assert(holds(jpath, j, n));
    ck_assert(holds(temp, (const uint8_t *)"stale", 5));
    ck_assert(after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
    ck_assert(jafter.st_mtim.tv_nsec == jbefore.st_mtim.tv_nsec);
    teardown();
}
END_TEST

START_TEST(recover_applies_a_valid_journal) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    plant(&s, j);
    int recovered = 0;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0, "%s", err.message);
    ck_assert_int_eq(recovered, 1);
    uint8_t *want = new_file();
    ck_assert(holds(model, want, orig_len));
    ck_assert(access(jpath, F_OK) != 0);
    /* nothing left to do */
    ck_assert(gguf_file_recover(model, &recovered, NULL) == 0);
    ck_assert_int_eq(recovered, 0);
    free(want);
    teardown();
}
END_TEST

START_TEST(recover_finishes_a_torn_write) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    plant(&s, j);
    /* the crash hit while the header was half written: the first bytes new, the rest old */
    uint8_t *torn = malloc(orig_len);
    memcpy(torn, orig, orig_len);
    memcpy(torn + ARCH_AT, "te", 2);
    memcpy(torn + ARCH_AT, new_region + ARCH_AT, 2);
    ck_assert_int_eq(tu_write_file(model, torn, orig_len), 0);
    int recovered = 0;
    ck_assert(gguf_file_recover(model, &recovered, NULL) == 0);
    ck_assert_int_eq(recovered, 1);
    uint8_t *want = new_file();
    ck_assert(holds(model, want, orig_len));
    /* and the edit already complete: the journal only goes away */
    plant(&s, j);
    ck_assert(gguf_file_recover(model, &recovered, NULL) == 0);
    ck_assert(holds(model, want, orig_len));
    ck_assert(access(jpath, F_OK) != 0);
    free(torn);
    free(want);
    teardown();
}
END_TEST

/* An edit of 4 bytes ("test" to "abcd"): the journal's split point is their middle. Killed
 * between the two writes, the file holds "abst": recovery finishes it. A tear elsewhere inside
 * the bytes the edit writes ("aest", which a power loss on a device writing less than 4 KiB
 * at once can leave) is finished too: the bytes the edit leaves alone prove the result. */
START_TEST(recover_finishes_a_write_stopped_at_its_split_point_or_torn_elsewhere) {
    setup();
    tu_journal s = valid_spec();
    memcpy(new_region + ARCH_AT, "abcd", 4);
    uint8_t j[1024];
    size_t n = tu_journal_encode(j, &s);
    uint8_t *want = malloc(orig_len), *torn = malloc(orig_len);
    memcpy(want, orig, orig_len);
    memcpy(want + ARCH_AT, "abcd", 4);
    static const char *const states[] = {"abst", "aest"};
    for (int k = 0; k < 2; k++) {
        memcpy(torn, orig, orig_len);
        memcpy(torn + ARCH_AT, states[k], 4);
        ck_assert_int_eq(tu_write_file(model, torn, orig_len), 0);
        ck_assert_int_eq(tu_write_file(jpath, j, n), 0);
        int recovered = 0;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_file_recover(model, &recovered, &err);
        ck_assert_msg(rc == 0 && recovered == 1, "%s: %s", states[k], err.message);
        ck_assert(holds(model, want, orig_len));
        ck_assert(access(jpath, F_OK) != 0);
    }
    free(want);
    free(torn);
    teardown();
}
END_TEST

START_TEST(every_flipped_byte_is_refused) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    size_t n = tu_journal_encode(j, &s);
    for (size_t at = 0; at < n; at++) {
        uint8_t bad[1024];
        memcpy(bad, j, n);
        bad[at] ^= 0x20;
        ck_assert_int_eq(tu_write_file(jpath, bad, n), 0);
        char what[64];
        snprintf(what, sizeof what, "byte %zu flipped", at);
        expect_refused(bad, n, what);
    }
    teardown();
}
END_TEST

/* One field of a journal wrong, its crcs right: each check must catch its own field. */
enum field { F_TRAILER, F_OLD_CRC, F_NEW_CRC, F_MAGIC, F_VERSION, F_DEV, F_INO, F_SIZE, F_LEN,
              F_COUNT };
static const char *const field_names[F_COUNT] = {
    [F_TRAILER] = "bad trailing crc32", [F_OLD_CRC] = "crc32 of the old region",
    [F_NEW_CRC] = "crc32 of the new region", [F_MAGIC] = "magic", [F_VERSION] = "version",
    [F_DEV] = "device", [F_INO] = "inode", [F_SIZE] = "file size", [F_LEN] = "region length",
};

START_TEST(every_field_is_checked) {
    setup();
    for (int fld = 0; fld < F_COUNT; fld++) {
        tu_journal s = valid_spec();
        switch (fld) {
        case F_TRAILER: s.trailer_delta = 1; break;
        case F_OLD_CRC: s.old_crc ^= 1; break;
        case F_NEW_CRC: s.new_crc_delta = 1; break;
        case F_MAGIC: memcpy(s.magic, "GGUFJRNX", 8); break;
        case F_VERSION: s.version = TU_JOURNAL_VERSION + 1; break;
        case F_DEV: s.dev ^= 1; break;
        case F_INO: s.ino ^= 1; break;
        case F_SIZE: s.size += 32; break;
        case F_LEN: s.len = REGION - 32; break;
        }
        uint8_t j[1024];
        size_t n = plant(&s, j);
        expect_refused(j, n, field_names[fld]);
    }
    teardown();
}
END_TEST

/* Format 3, as earlier versions wrote it (libgguf/commit/journal.c): the head's first 68 bytes,
 * the old region, the new one, the crc32 of all before. */
static size_t encode_v3(uint8_t *out, const tu_journal *j) {
    size_t len = (size_t)j->len, new_len = (size_t)(j->len + j->insert_len);
    tu_journal_fields(out, j, 3);
    memcpy(out + 68, j->old_region, len);
    memcpy(out + 68 + len, j->new_region, new_len);
    tu_put_le(out + 68 + len + new_len, (uint32_t)crc32_z(0, out, 68 + len + new_len), 4);
    return 68 + len + new_len + 4;
}

/* A journal of format 3 that an earlier version left behind a crash is still finished (before
 * the write and after it), and refused when its old header is not the file's. */
START_TEST(a_journal_of_format_3_is_still_recovered) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    size_t n = encode_v3(j, &s);
    uint8_t *want = new_file();
    for (int round = 0; round < 2; round++) {
        ck_assert_int_eq(tu_write_file(jpath, j, n), 0);
        int recovered = 0;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0, "round %d: %s", round,
                      err.message);
        ck_assert_int_eq(recovered, 1);
        ck_assert(holds(model, want, orig_len));
        ck_assert(access(jpath, F_OK) != 0);
    }
    /* the file changed since, at a byte the edit does not change: no torn write explains it
     * (a change only inside the bytes the edit writes is one a tear can explain: finished) */
    n = encode_v3(j, &s);
    ck_assert_int_eq(tu_write_file(jpath, j, n), 0);
    orig[REGION - 1] ^= 0x5a;
    ck_assert_int_eq(tu_write_file(model, orig, orig_len), 0);
    expect_refused(j, n, "format 3, the file changed outside the edit's bytes");
    free(want);
    teardown();
}
END_TEST

START_TEST(a_cut_journal_is_refused) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    size_t n = tu_journal_encode(j, &s);
    for (size_t cut = 1; cut < n; cut += 37) {
        ck_assert_int_eq(tu_write_file(jpath, j, n - cut), 0);
        expect_refused(j, n - cut, "cut journal");
    }
    teardown();
}
END_TEST

/* Journals whose bytes are all consistent but whose edit would reach past the header, or
 * which do not belong to the file's present state. */
START_TEST(journals_that_would_move_data_are_refused) {
    setup();
    uint8_t j[1024];
    /* the new region moves tensor b (its offset field at 0xc4: 32 -> 0, onto tensor a) */
    tu_journal s = valid_spec();
    uint8_t moved[REGION];
    memcpy(moved, new_region, REGION);
    moved[0xc4] = 0;
    s.new_region = moved;
    size_t n = plant(&s, j);
    expect_refused(j, n, "new region moves a tensor");
    /* the new region retypes tensor a (type at 0x97: F32 -> F16): it parses, yet the bytes
     * would mean something else */
    memcpy(moved, new_region, REGION);
    moved[0x97] = 1;
    n = plant(&s, j);
    expect_refused(j, n, "new region retypes a tensor");
    /* the file is not the one the journal was made on (another edit happened since) at a
     * byte the edit does not change: no torn write explains it */
    s = valid_spec();
    n = plant(&s, j);
    orig[REGION - 1] ^= 0x5a;
    ck_assert_int_eq(tu_write_file(model, orig, orig_len), 0);
    expect_refused(j, n, "the file changed outside the edit's bytes");
    /* only inside the bytes the edit changes (the file holds "test" where the journal's old
     * region has "xxxx"): the journal holds its old header's crc32s, not those bytes, and a
     * write torn by 512-byte sectors may leave anything there, so it is finished: the new
     * header */
    orig[REGION - 1] ^= 0x5a;
    ck_assert_int_eq(tu_write_file(model, orig, orig_len), 0);
    uint8_t other[REGION];
    memcpy(other, orig, REGION);
    memcpy(other + ARCH_AT, "xxxx", 4);
    s.old_region = other;
    s.old_crc = (uint32_t)crc32_z(0, other, REGION);
    plant(&s, j);
    int recovered = 0;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0, "%s", err.message);
    uint8_t *want = new_file();
    ck_assert(recovered == 1 && holds(model, want, orig_len));
    free(want);
    teardown();
}
END_TEST

START_TEST(links_special_files_and_strangers_are_refused) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    size_t n = tu_journal_encode(j, &s);
    /* a symbolic link to a valid journal */
    char real_j[160];
    snprintf(real_j, sizeof real_j, "%s/elsewhere", dir);
    ck_assert_int_eq(tu_write_file(real_j, j, n), 0);
    ck_assert(symlink(real_j, jpath) == 0);
    expect_refused(NULL, 0, "symlinked journal");
    ck_assert(holds(real_j, j, n));
    ck_assert(unlink(jpath) == 0);
    /* a FIFO: refused without blocking */
    ck_assert(mkfifo(jpath, 0600) == 0);
    expect_refused(NULL, 0, "FIFO journal");
    ck_assert(unlink(jpath) == 0);
    /* a journal of another user (only root can make one) */
    if (geteuid() == 0) {
        ck_assert_int_eq(tu_write_file(jpath, j, n), 0);
        ck_assert(chown(jpath, 65534, 65534) == 0);
        expect_refused(j, n, "journal of another user");
        ck_assert(unlink(jpath) == 0);
    }
    /* a journal of another file: a copy of the model has another inode */
    char copy[160];
    snprintf(copy, sizeof copy, "%s/copy.gguf", dir);
    ck_assert_int_eq(tu_write_file(copy, orig, orig_len), 0);
    char copy_j[192];
    snprintf(copy_j, sizeof copy_j, "%s/.copy.gguf.gguf-journal", dir);
    ck_assert_int_eq(tu_write_file(copy_j, j, n), 0);
    ck_assert(gguf_file_recover(copy, NULL, NULL) != 0);
    ck_assert(holds(copy, orig, orig_len));
    ck_assert(holds(copy_j, j, n));
    teardown();
}
END_TEST

/* A journal that grows the header by inserting blocks before the data: recover finishes it
 * whether the crash came before the insertion, after it, or in the middle of the header write
 * that follows; the result is the file the uninterrupted edit gives. */
START_TEST(recover_finishes_a_growing_edit) {
    setup();
    /* the reference: the same edit made without interruption, on a copy */
    char ref[160];
    snprintf(ref, sizeof ref, "%s/ref.gguf", dir);
    ck_assert_int_eq(tu_write_file(ref, orig, orig_len), 0);
    gguf_file *f;
    ck_assert(gguf_file_open(&f, ref, 0, NULL) == 0);
    gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
    o.reserve = 2000;
    gguf_update_result res;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_update(f, ref, &o, &res, &err) == 0, "%s", err.message);
    gguf_file_free(f);
    if (res.inserted == 0) { /* a filesystem without block insertion: nothing to test here */
        teardown();
        return;
    }
    size_t ref_len;
    uint8_t *grown = tu_read_file(ref, &ref_len);
    uint64_t ins = ref_len - orig_len;
    ck_assert_uint_eq(ins, res.inserted);
    struct stat st;
    ck_assert(stat(model, &st) == 0);
    size_t moved = orig_len - REGION < ins ? orig_len - REGION : ins;
    tu_journal s = {.version = TU_JOURNAL_VERSION, .dev = (uint64_t)st.st_dev,
                    .ino = (uint64_t)st.st_ino, .size = orig_len, .len = REGION, .insert_at = 0,
                    .insert_len = ins, .old_crc = (uint32_t)crc32_z(0, orig, REGION),
                    .moved_crc = (uint32_t)crc32_z(0, orig + REGION, moved), .old_region = orig,
                    .new_region = grown};
    memcpy(s.magic, "GGUFJRNL", 8);
    uint8_t *j = malloc(tu_journal_encoded_size(&s));
    for (int stage = 0; stage < 3; stage++) {
        ck_assert_int_eq(tu_write_file(model, orig, orig_len), 0);
        int fd = open(model, O_RDWR);
        ck_assert(fd >= 0);
        /* 0: nothing done; 1: the blocks inserted; 2: and half the new header written */
        if (stage >= 1)
            ck_assert(fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, (off_t)ins) == 0);
        if (stage == 2)
            ck_assert(pwrite(fd, grown, (REGION + ins) / 2, 0) == (ssize_t)((REGION + ins) / 2));
        close(fd);
        ck_assert(stat(model, &st) == 0);
        s.dev = (uint64_t)st.st_dev;
        s.ino = (uint64_t)st.st_ino;
        size_t n = tu_journal_encode(j, &s);
        ck_assert_int_eq(tu_write_file(jpath, j, n), 0);
        int recovered = 0;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0, "stage %d: %s", stage,
                      err.message);
        ck_assert_int_eq(recovered, 1);
        ck_assert_msg(holds(model, grown, ref_len), "stage %d: not the grown file", stage);
        ck_assert(access(jpath, F_OK) != 0);
    }
    /* an insertion that is no whole number of blocks is refused */
    ck_assert_int_eq(tu_write_file(model, orig, orig_len), 0);
    s.insert_len = ins - 100;
    size_t n = tu_journal_encode(j, &s);
    ck_assert_int_eq(tu_write_file(jpath, j, n), 0);
    expect_refused(j, n, "insertion of a part of a block");
    free(j);
    free(grown);
    teardown();
}
END_TEST

/* Tensor a's bytes are zero (the first block of data), tensor b's are not. */
static int fill_a_zero_b_pattern(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                                 gguf_error *err) {
    (void)user;
    (void)err;
    uint8_t *p = buf;
    for (size_t i = 0; i < len; i++)
        p[i] = tensor == 0 ? 0 : (uint8_t)(0x41 + (offset + i) % 7);
    return 0;
}

#define BLOCK 4096
/* A model whose data offset D is a multiple of the block (alignment 4096), whose first block of
 * data is zero bytes (tensor a) and the next one not (tensor b), followed by one block more than
 * its tensors (what a claimed insertion needs to look like the file grew by it). Its bytes in
 * *out (malloc'd), D in *d. */
static size_t write_block_model(const char *path, uint8_t **out, uint64_t *d) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "test", 4, NULL) == 0);
    uint32_t align = BLOCK;
    ck_assert(gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &align, NULL) == 0);
    uint64_t dims[1] = {BLOCK / 4};
    ck_assert(gguf_tensor_add(f, "a", GGUF_DTYPE_F32, dims, 1, NULL) == 0);
    ck_assert(gguf_tensor_add(f, "b", GGUF_DTYPE_F32, dims, 1, NULL) == 0);
    gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
    o.fill = fill_a_zero_b_pattern;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_save(f, path, &o, &err) == 0, "%s", err.message);
    gguf_file_free(f);
    size_t n;
    uint8_t *b = tu_read_file(path, &n);
    b = realloc(b, n + BLOCK);
    memset(b + n, 0x77, BLOCK);
    n += BLOCK;
    ck_assert_int_eq(tu_write_file(path, b, n), 0);
    ck_assert(gguf_file_open(&f, path, 0, NULL) == 0);
    *d = gguf_file_data_offset(f);
    gguf_file_free(f);
    ck_assert_uint_eq(*d % BLOCK, 0);
    ck_assert_uint_eq(n, *d + 3 * BLOCK);
    *out = b;
    return n;
}

/* The header of that model grown by one block (a new key that outgrows its region), the
 * tensors one block further: *out (malloc'd), D + BLOCK bytes. */
static void grown_header(uint8_t **out, const char *path, uint64_t d) {
    gguf_file *f;
    ck_assert(gguf_file_open(&f, path, 0, NULL) == 0);
    char *big = malloc(d);
    memset(big, 'g', d);
    ck_assert(gguf_kv_set_str(f, "general.name", big, d - 100, NULL) == 0);
    free(big);
    void *buf;
    size_t len;
    ck_assert(gguf_file_write_memory(&buf, &len, f, NULL, NULL) == 0);
    gguf_file_free(f);
    gguf_file *g;
    ck_assert(gguf_file_open_memory(&g, buf, len, 0, 0, NULL) == 0);
    ck_assert_uint_eq(gguf_file_data_offset(g), d + BLOCK);
    gguf_file_free(g);
    *out = buf;
}

/* A journal that claims blocks were inserted at the end of the header (B = D) when they never
 * were: the file is only longer by those bytes, and the first block of data is zero bytes,
 * which look like the inserted hole. Applying it would put every tensor one block further. An
 * honest journal of the same insertion is still finished, before and after the insertion. */
START_TEST(an_insertion_that_never_happened_is_refused) {
    setup();
    uint8_t *bytes, *grown;
    uint64_t d;
    size_t n = write_block_model(model, &bytes, &d);
    grown_header(&grown, model, d);
    struct stat st;
    ck_assert(stat(model, &st) == 0);
    /* the claim: the file was one block shorter, and its blocks were inserted at D (the data
     * that followed the header, as the claimed file held it: its first block) */
    tu_journal s = {.version = TU_JOURNAL_VERSION, .dev = (uint64_t)st.st_dev,
                    .ino = (uint64_t)st.st_ino, .size = n - BLOCK, .len = d, .insert_at = d,
                    .insert_len = BLOCK, .old_crc = (uint32_t)crc32_z(0, bytes, d),
                    .moved_crc = (uint32_t)crc32_z(0, bytes + d, BLOCK), .old_region = bytes,
                    .new_region = grown};
    memcpy(s.magic, "GGUFJRNL", 8);
    uint8_t *j = malloc(tu_journal_encoded_size(&s));
    size_t jn = tu_journal_encode(j, &s);
    ck_assert_int_eq(tu_write_file(jpath, j, jn), 0);
    free(orig);
    orig = bytes; /* expect_refused compares with these */
    orig_len = n;
    expect_refused(j, jn, "an insertion at D that never happened");
    /* the same insertion made for real, in the file without its last block: finished whether
     * the crash came before the insertion or after it */
    uint8_t *want = malloc(n);
    memcpy(want, grown, d + BLOCK);
    memcpy(want + d + BLOCK, bytes + d, n - BLOCK - d);
    for (int stage = 0; stage < 2; stage++) {
        ck_assert_int_eq(tu_write_file(model, bytes, n - BLOCK), 0);
        if (stage == 1) {
            int fd = open(model, O_RDWR);
            ck_assert(fd >= 0 && fallocate(fd, FALLOC_FL_INSERT_RANGE, (off_t)d, BLOCK) == 0);
            close(fd);
        }
        ck_assert(stat(model, &st) == 0);
        s.dev = (uint64_t)st.st_dev;
        s.ino = (uint64_t)st.st_ino;
        ck_assert_int_eq(tu_write_file(jpath, j, tu_journal_encode(j, &s)), 0);
        int recovered = 0;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0, "stage %d: %s", stage,
                      err.message);
        ck_assert_int_eq(recovered, 1);
        ck_assert_msg(holds(model, want, n), "stage %d: not the grown file", stage);
    }
    free(want);
    free(j);
    free(grown);
    teardown();
}
END_TEST

/* A model whose header spans four 4 KiB blocks (general.name is NAME_LEN bytes of 'a', then
 * general.description DESC_LEN of 'c'), and the same file after the uninterrupted in-place edit
 * that makes the name all 'b': one changed range from block 0 into block 2, none in block 3.
 * Bytes in *old_out and *new_out (malloc'd), D in *d. */
#define NAME_LEN 9000
#define DESC_LEN 4000
static size_t write_long_name_model(uint8_t **old_out, uint8_t **new_out, uint64_t *d) {
    gguf_file *f;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "test", 4, NULL) == 0);
    uint32_t align = BLOCK;
    ck_assert(gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &align, NULL) == 0);
    char *name = malloc(NAME_LEN);
    memset(name, 'a', NAME_LEN);
    ck_assert(gguf_kv_set_str(f, "general.name", name, NAME_LEN, NULL) == 0);
    char desc[DESC_LEN];
    memset(desc, 'c', DESC_LEN);
    ck_assert(gguf_kv_set_str(f, "general.description", desc, DESC_LEN, NULL) == 0);
    uint64_t dims[1] = {BLOCK / 4};
    ck_assert(gguf_tensor_add(f, "a", GGUF_DTYPE_F32, dims, 1, NULL) == 0);
    gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
    o.fill = fill_a_zero_b_pattern;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_save(f, model, &o, &err) == 0, "%s", err.message);
    gguf_file_free(f);
    size_t n, m;
    *old_out = tu_read_file(model, &n);
    /* the edit, uninterrupted, on a copy */
    char copy[192];
    snprintf(copy, sizeof copy, "%s/edited.gguf", dir);
    ck_assert_int_eq(tu_write_file(copy, *old_out, n), 0);
    ck_assert(gguf_file_open(&f, copy, 0, NULL) == 0);
    *d = gguf_file_data_offset(f);
    memset(name, 'b', NAME_LEN);
    ck_assert(gguf_kv_set_str(f, "general.name", name, NAME_LEN, NULL) == 0);
    gguf_update_result res = {0};
    ck_assert_msg(gguf_file_update(f, copy, NULL, &res, &err) == 0, "%s", err.message);
    ck_assert_int_eq(res.in_place, 1);
    gguf_file_free(f);
    free(name);
    *new_out = tu_read_file(copy, &m);
    ck_assert_uint_eq(m, n);
    ck_assert_uint_eq(*d, 4 * BLOCK);
    return n;
}

/* The journal of that edit, for the file at model as it is now: planted, its bytes in *out
 * (malloc'd), its length returned, its split point in *split. */
static size_t plant_long_name_journal(uint8_t **out, uint64_t *split, const uint8_t *old,
                                      const uint8_t *new, size_t n, uint64_t d) {
    struct stat st;
    ck_assert(stat(model, &st) == 0);
    tu_journal s = {.version = TU_JOURNAL_VERSION, .dev = (uint64_t)st.st_dev,
                    .ino = (uint64_t)st.st_ino, .size = n, .len = d,
                    .old_crc = (uint32_t)crc32_z(0, old, (size_t)d), .old_region = old,
                    .new_region = new};
    memcpy(s.magic, "GGUFJRNL", 8);
    uint8_t *j = malloc(tu_journal_encoded_size(&s));
    size_t jn = tu_journal_encode(j, &s);
    ck_assert_int_eq(tu_write_file(jpath, j, jn), 0);
    *split = 0;
    for (int b = 0; b < 8; b++)
        *split |= (uint64_t)j[72 + b] << (8 * b);
    *out = j;
    return jn;
}

/* A power loss on a device that writes 512-byte sectors atomically can leave any of the
 * sectors the edit was writing new and the others old, in any block: here block 0 holds one new
 * sector in the middle of the changed range (not the block of the split point), the rest of
 * the file is old. Recovery finishes the edit: the file is exactly the one the uninterrupted
 * edit makes. A tear cannot explain a changed byte outside every changed range, in the torn
 * block or in another one: refused, naming the block, file and journal left as they are. */
#define SECTOR 512
START_TEST(recover_finishes_a_header_torn_by_sectors) {
    setup();
    uint8_t *old, *new;
    uint64_t d, split;
    size_t n = write_long_name_model(&old, &new, &d);
    uint64_t tear = 2 * SECTOR; /* [1024, 1536): inside the name, which starts before 200 */
    ck_assert(memcmp(old + tear - 1, new + tear - 1, SECTOR + 2) != 0);
    uint8_t *torn = malloc(n);
    for (int foreign = 0; foreign < 3; foreign++) {
        memcpy(torn, old, n);
        memcpy(torn + tear, new + tear, SECTOR);
        /* a byte no edit of the name writes: in the torn block (the architecture's last
         * letter: "tes." still parses, so only the proof can refuse it), or in the last block,
         * which holds no byte the edit changes (its padding) */
        uint64_t arch = (uint64_t)((const uint8_t *)memmem(old, (size_t)d, "test", 4) - old);
        uint64_t at = foreign == 1 ? arch + 3 : d - 1, block = foreign == 1 ? 0 : d - BLOCK;
        if (foreign > 0) {
            ck_assert(old[at] == new[at]);
            torn[at] ^= 0x5a;
        }
        ck_assert_int_eq(tu_write_file(model, torn, n), 0);
        uint8_t *j;
        size_t jn = plant_long_name_journal(&j, &split, old, new, n, d);
        ck_assert_msg(split / BLOCK != tear / BLOCK, "the tear is in the split point's block");
        int recovered = 0;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_file_recover(model, &recovered, &err);
        if (foreign == 0) {
            ck_assert_msg(rc == 0 && recovered == 1, "torn by sectors: %s", err.message);
            ck_assert_msg(holds(model, new, n), "not the file the edit makes");
            ck_assert(access(jpath, F_OK) != 0);
        } else {
            char want[64];
            snprintf(want, sizeof want, "%llu..%llu", (unsigned long long)block,
                     (unsigned long long)(block + BLOCK));
            ck_assert_int_eq(rc, GGUF_ECORRUPT);
            ck_assert_int_eq(recovered, 0);
            ck_assert_msg(strstr(err.message, want) != NULL, "foreign byte %llu: %s",
                          (unsigned long long)at, err.message);
            ck_assert_msg(holds(model, torn, n), "foreign byte %llu: the file changed",
                          (unsigned long long)at);
            ck_assert(holds(jpath, j, jn));
        }
        free(j);
    }
    free(torn);
    free(old);
    free(new);
    teardown();
}
END_TEST

void gguf_testing_alloc_limit(size_t bytes);
void gguf_testing_fail_io_after(long n, int errnum);
long gguf_testing_io_calls(void);

/* A journal is judged from its head first: one made sparse and huge (`truncate -s 3G`), or
 * whose head claims a region longer than the file, is refused without allocating or reading
 * what its size or its head would ask for. Every allocation over 1 MiB fails here, and the
 * I/O calls are counted (a 3 GiB journal read in pieces takes thousands). */
START_TEST(a_huge_journal_is_judged_from_its_head) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    plant(&s, j);
    ck_assert(truncate(jpath, (off_t)3 << 30) == 0);
    for (int round = 0; round < 2; round++) {
        if (round == 1) {
            /* the head says a 1 GiB old region (the file has 264 bytes), and the journal is as
             * long as that head asks */
            uint64_t claimed = (uint64_t)1 << 30;
            tu_journal h = s;
            h.len = 0; /* the head alone (no regions), then the claimed length patched in */
            size_t head = tu_journal_encode(j, &h) - 4;
            for (int b = 0; b < 8; b++)
                j[36 + b] = (uint8_t)(claimed >> (8 * b));
            ck_assert_int_eq(tu_write_file(jpath, j, head), 0);
            ck_assert(truncate(jpath, (off_t)(head + 2 * claimed + 4)) == 0);
        }
        struct stat jbefore;
        ck_assert(stat(jpath, &jbefore) == 0);
        gguf_testing_alloc_limit(1 << 20);
        gguf_testing_fail_io_after(0, 0);
        int state = -1;
        gguf_error why, err;
        gguf_error_clear(&why);
        gguf_error_clear(&err);
        int rc = gguf_file_journal(&state, model, &why);
        long calls = gguf_testing_io_calls();
        int recovered = 1;
        int rrc = gguf_file_recover(model, &recovered, &err);
        gguf_testing_alloc_limit(0);
        ck_assert_msg(rc == 0, "round %d: %d %s", round, rc, why.message);
        ck_assert_int_eq(state, GGUF_JOURNAL_REFUSED);
        ck_assert_msg(strstr(why.message, round == 0 ? "size" : "longer than the file") != NULL,
                      "round %d: %s", round, why.message);
        ck_assert_msg(calls < 8, "round %d: %ld I/O calls to judge it", round, calls);
        ck_assert_int_eq(rrc, GGUF_ECORRUPT);
        ck_assert_int_eq(recovered, 0);
        ck_assert_msg(strstr(err.message, why.message) != NULL, "%s", err.message);
        ck_assert(holds(model, orig, orig_len));
        struct stat jafter;
        ck_assert(stat(jpath, &jafter) == 0 && jafter.st_size == jbefore.st_size);
    }
    teardown();
}
END_TEST

/* A kill while the journal was written leaves its temporary file: recover (an editor) removes
 * it once its writer is gone, and leaves a live writer's, a link named like one, and files of
 * other names alone. */
START_TEST(recover_removes_a_dead_journal_write) {
    setup();
    char dead[192], live[192], link[192], other[192], elsewhere[192];
    snprintf(dead, sizeof dead, "%s/.m.gguf.gguf-journal.tmp-AbC123", dir);
    snprintf(live, sizeof live, "%s/.m.gguf.gguf-journal.tmp-LiVe12", dir);
    snprintf(link, sizeof link, "%s/.m.gguf.gguf-journal.tmp-LiNk12", dir);
    snprintf(other, sizeof other, "%s/.m.gguf.gguf-journal.tmp-toolong", dir);
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", dir);
    ck_assert_int_eq(tu_write_file(dead, "half a journal", 14), 0);
    ck_assert_int_eq(tu_write_file(live, "being written", 13), 0);
    ck_assert_int_eq(tu_write_file(other, "not ours", 8), 0);
    ck_assert_int_eq(tu_write_file(elsewhere, "kept", 4), 0);
    ck_assert(symlink(elsewhere, link) == 0);
    int fd = open(live, O_RDONLY);
    ck_assert(fd >= 0 && flock(fd, LOCK_EX) == 0); /* its writer still runs */
    /* named as ours but another user's (only root can make one): not ours to remove */
    char stranger[192];
    snprintf(stranger, sizeof stranger, "%s/.m.gguf.gguf-journal.tmp-StRaNg", dir);
    if (geteuid() == 0) {
        ck_assert_int_eq(tu_write_file(stranger, "theirs", 6), 0);
        ck_assert(chown(stranger, 65534, 65534) == 0);
    }
    int recovered = 1;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0, "%s", err.message);
    ck_assert_int_eq(recovered, 0);
    ck_assert_msg(access(dead, F_OK) != 0, "the dead journal write was left");
    ck_assert(holds(live, (const uint8_t *)"being written", 13));
    ck_assert(holds(other, (const uint8_t *)"not ours", 8));
    if (geteuid() == 0)
        ck_assert_msg(holds(stranger, (const uint8_t *)"theirs", 6), "another user's was removed");
    struct stat ls;
    ck_assert(lstat(link, &ls) == 0 && S_ISLNK(ls.st_mode));
    ck_assert(holds(elsewhere, (const uint8_t *)"kept", 4));
    ck_assert(holds(model, orig, orig_len));
    close(fd);
    teardown();
}
END_TEST

/* A reader that meets the header while an editor writes it in place says that the file is
 * being edited (from the editor's lock), not what the half-written bytes look like; once the
 * editor is killed there (loop 1), that the edit was interrupted and recover finishes it. The
 * editor (a child) is held with the header half written by the library's test point
 * (journal-half-written, GGUF_TEST_PAUSE_AT/GGUF_TEST_PAUSE_FIFO): ordered by events. */
START_TEST(a_reader_meeting_a_half_written_header_says_it_is_being_edited) {
    setup();
    char fifo[192], go[200];
    snprintf(fifo, sizeof fifo, "%s/pause", dir);
    snprintf(go, sizeof go, "%s/pause.go", dir);
    ck_assert(mkfifo(fifo, 0600) == 0 && mkfifo(go, 0600) == 0);
    static const char value[] = "testtesttest"; /* longer: every byte after it moves */
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        setenv("GGUF_TEST_PAUSE_AT", "journal-half-written", 1);
        setenv("GGUF_TEST_PAUSE_FIFO", fifo, 1);
        gguf_file *f;
        gguf_update_result res = {0};
        int rc = gguf_file_open(&f, model, 0, NULL);
        if (rc == 0)
            rc = gguf_kv_set_str(f, "general.architecture", value, strlen(value), NULL);
        if (rc == 0)
            rc = gguf_file_update(f, model, NULL, &res, NULL);
        /* the edit's end: the test's first line when the point was never reached */
        char end[64];
        int fd = open(fifo, O_WRONLY | O_NONBLOCK);
        int k = snprintf(end, sizeof end, "ended %d in place %d\n", rc, res.in_place);
        if (fd >= 0 && write(fd, end, (size_t)k) == k)
            close(fd);
        _exit(0);
    }
    /* open for reading and writing: never blocks, and the child's last line always has a
     * reader */
    int rfd = open(fifo, O_RDWR);
    ck_assert(rfd >= 0);
    char line[160] = "";
    for (size_t i = 0; i + 1 < sizeof line && read(rfd, line + i, 1) == 1 && line[i] != '\n';)
        i++;
    ck_assert_msg(strncmp(line, "journal-half-written ", 21) == 0, "the editor: %s", line);
    size_t len;
    uint8_t *torn = tu_read_file(model, &len);
    ck_assert_msg(len == orig_len && memcmp(torn, orig, len) != 0, "the header is not half new");
    free(torn);
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open(&f, model, 0, &err);
    ck_assert_int_eq(rc, GGUF_EIO);
    ck_assert_msg(strstr(err.message, "being edited by another process") != NULL, "%s",
                  err.message);
    int status;
    if (_i == 1) {
        /* killed with the header torn: the lock goes with the editor, the journal stays */
        ck_assert(kill(pid, SIGKILL) == 0);
        ck_assert(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status));
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_file_open(&f, model, 0, &err), GGUF_ECORRUPT);
        ck_assert_msg(strstr(err.message, "edit of its header was interrupted") != NULL &&
                          strstr(err.message, "gguf-edit recover") != NULL,
                      "%s", err.message);
        int recovered = 0;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_recover(model, &recovered, &err) == 0, "%s", err.message);
        ck_assert(recovered);
    } else {
        int gfd = open(go, O_WRONLY);
        ck_assert(gfd >= 0);
        close(gfd);
        ck_assert(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    }
    close(rfd);
    /* the edit done (or recovered), the same read gives the new header */
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&f, model, 0, &err) == 0, "%s", err.message);
    int64_t k = gguf_kv_find(f, "general.architecture");
    ck_assert(k >= 0);
    const char *v;
    uint64_t n;
    ck_assert(gguf_value_get_str(&v, &n, gguf_kv_value(f, (size_t)k), NULL) == 0);
    ck_assert(n == strlen(value) && memcmp(v, value, n) == 0);
    gguf_file_free(f);
    teardown();
}
END_TEST

START_TEST(an_edit_refuses_to_start_over_a_pending_journal) {
    setup();
    tu_journal s = valid_spec();
    uint8_t j[1024];
    size_t n = plant(&s, j);
    gguf_file *f;
    ck_assert(gguf_file_open(&f, model, 0, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "xyzw", 4, NULL) == 0);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_update(f, model, NULL, NULL, &err), GGUF_EIO);
    ck_assert_msg(strstr(err.message, "recover") != NULL, "%s", err.message);
    gguf_file_free(f);
    ck_assert(holds(model, orig, orig_len));
    ck_assert(holds(jpath, j, n));
    teardown();
}
END_TEST

int main(void) {
    Suite *s = suite_create("journal");
    TCase *tc = tcase_create("journal");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, reading_never_applies_or_removes_a_journal);
    tcase_add_test(tc, recover_applies_a_valid_journal);
    tcase_add_test(tc, recover_finishes_a_torn_write);
    tcase_add_test(tc, recover_finishes_a_write_stopped_at_its_split_point_or_torn_elsewhere);
    tcase_add_test(tc, recover_finishes_a_header_torn_by_sectors);
    tcase_add_test(tc, every_flipped_byte_is_refused);
    tcase_add_test(tc, every_field_is_checked);
    tcase_add_test(tc, a_cut_journal_is_refused);
    tcase_add_test(tc, a_journal_of_format_3_is_still_recovered);
    tcase_add_test(tc, journals_that_would_move_data_are_refused);
    tcase_add_test(tc, links_special_files_and_strangers_are_refused);
    tcase_add_test(tc, recover_finishes_a_growing_edit);
    tcase_add_test(tc, an_insertion_that_never_happened_is_refused);
    tcase_add_test(tc, a_huge_journal_is_judged_from_its_head);
    tcase_add_test(tc, recover_removes_a_dead_journal_write);
    tcase_add_loop_test(tc, a_reader_meeting_a_half_written_header_says_it_is_being_edited, 0, 2);
    tcase_add_test(tc, an_edit_refuses_to_start_over_a_pending_journal);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
