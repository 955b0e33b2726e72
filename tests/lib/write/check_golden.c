#define _GNU_SOURCE
/* Golden files: MANIFEST crc32s, hand-assembled fixtures equal their byte maps, derived files
 * equal what the writer makes now, and every golden and accepted corpus file round-trips byte
 * for byte through the reader and the writer (to memory and through an atomic file save). */
#include "tests/support/golden_derive.h"
#include "tests/support/testutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Opens path, writes it back (memory, then file), and compares both with the input. Returns
 * 1 when the file was accepted and round-tripped, 0 when it was refused. */
static int roundtrip(const char *path, gguf_write_options *opt) {
    size_t len;
    uint8_t *orig = tu_read_file(path, &len);
    ck_assert_msg(orig != NULL, "cannot read %s", path);
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_file_open(&f, path, 0, &err) != 0) {
        ck_assert_msg(err.message[0] != '\0', "%s: refused without a message", path);
        free(orig);
        return 0;
    }
    void *out;
    size_t out_len;
    ck_assert_msg(gguf_file_write_memory(&out, &out_len, f, opt, &err) == 0, "%s: %s", path,
                  err.message);
    ck_assert_msg(out_len == len && memcmp(out, orig, len) == 0,
                  "%s: written back to memory differs (%zu bytes vs %zu)", path, out_len, len);
    free(out);
    char tmp[] = "/tmp/gguf-golden-XXXXXX";
    int fd = mkstemp(tmp);
    ck_assert(fd >= 0);
    close(fd);
    ck_assert_msg(gguf_file_save(f, tmp, opt, &err) == 0, "%s: %s", path, err.message);
    size_t saved_len;
    uint8_t *saved = tu_read_file(tmp, &saved_len);
    ck_assert_msg(saved_len == len && memcmp(saved, orig, len) == 0,
                  "%s: saved file differs from the input", path);
    unlink(tmp);
    free(saved);
    free(orig);
    gguf_file_free(f);
    return 1;
}

START_TEST(manifest_crcs_match) {
    FILE *fp = fopen(tu_src("golden/MANIFEST"), "r");
    ck_assert_msg(fp != NULL, "golden/MANIFEST missing");
    char line[4096];
    int checked = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        if (line[0] == '#')
            continue;
        char name[1024];
        size_t size;
        unsigned long crc;
        ck_assert_msg(sscanf(line, "%1023s %zu %lx", name, &size, &crc) == 3, "bad line %s", line);
        char rel[1100];
        snprintf(rel, sizeof rel, "golden/%s", name);
        size_t len;
        uint8_t *bytes = tu_read_file(tu_src(rel), &len);
        ck_assert_msg(bytes != NULL, "%s listed but missing", rel);
        ck_assert_msg(len == size, "%s: %zu bytes, MANIFEST says %zu", rel, len, size);
        ck_assert_msg(crc32_z(0L, bytes, len) == crc, "%s: crc32 differs from MANIFEST", rel);
        free(bytes);
        checked++;
    }
    fclose(fp);
    char **all = tu_list_files(tu_src("golden"), ".gguf");
    int on_disk = 0;
    for (char **p = all; p && *p; p++)
        on_disk++;
    tu_free_list(all);
    ck_assert_msg(checked == on_disk, "MANIFEST lists %d files, golden/ holds %d", checked, on_disk);
    ck_assert_int_ge(checked, 4 + (int)GOLDEN_N_DERIVATIONS);
}
END_TEST

static int maps_equal_files(const char *dir) {
    char **maps = tu_list_files(tu_src(dir), ".map");
    int n = 0;
    for (char **m = maps; m && *m; m++, n++) {
        size_t want_len, len;
        uint8_t *want = tu_assemble_map(*m, &want_len);
        char path[4096];
        snprintf(path, sizeof path, "%.*s.gguf", (int)(strlen(*m) - 4), *m);
        uint8_t *got = tu_read_file(path, &len);
        ck_assert_msg(want != NULL && got != NULL, "%s: map or file missing", *m);
        ck_assert_msg(len == want_len && memcmp(got, want, len) == 0,
                      "%s differs from its byte map (run make update-golden and review)", path);
        free(want);
        free(got);
    }
    tu_free_list(maps);
    return n;
}

START_TEST(hand_fixtures_equal_their_maps) {
    ck_assert_int_ge(maps_equal_files("golden/hand"), 3);
    ck_assert_int_ge(maps_equal_files("golden/refuse"), 5);
}
END_TEST

static int code_of(const char *name) {
    static const struct { const char *name; int code; } codes[] = {
        {"GGUF_ETRUNC", GGUF_ETRUNC}, {"GGUF_ECORRUPT", GGUF_ECORRUPT},
        {"GGUF_ELIMIT", GGUF_ELIMIT}, {"GGUF_EUNSUPPORTED", GGUF_EUNSUPPORTED}};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (strcmp(codes[i].name, name) == 0)
            return codes[i].code;
    }
    return 0;
}

/* golden/refuse: each file is refused with the code and at the byte offset its table names. */
START_TEST(refused_files_give_their_error) {
    FILE *fp = fopen(tu_src("golden/refuse/EXPECTED.tsv"), "r");
    ck_assert(fp != NULL);
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        char name[256], code[64];
        unsigned long long offset;
        if (strncmp(line, "file\t", 5) == 0 || sscanf(line, "%255s %63s %llu", name, code, &offset) != 3)
            continue;
        char rel[300];
        snprintf(rel, sizeof rel, "golden/refuse/%s", name);
        gguf_file *f;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_open(&f, tu_src(rel), 0, &err) != 0, "%s accepted", name);
        ck_assert_msg(err.code == code_of(code), "%s: code %d (%s), expected %s", name, err.code,
                      err.message, code);
        ck_assert_msg(err.offset == offset, "%s: offset %llu, expected %llu (%s)", name,
                      (unsigned long long)err.offset, offset, err.message);
        n++;
    }
    fclose(fp);
    ck_assert_int_ge(n, 5);
}
END_TEST

START_TEST(derived_files_are_reproduced) {
    for (size_t i = 0; i < GOLDEN_N_DERIVATIONS; i++) {
        const golden_derivation *d = &golden_derivations[i];
        gguf_file *f;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_open(&f, tu_src(d->input), 0, &err) == 0, "%s", err.message);
        gguf_write_options opt = {
            .size = sizeof(gguf_write_options), .version = d->version, .endian = d->endian};
        void *out;
        size_t out_len, len;
        ck_assert_msg(gguf_file_write_memory(&out, &out_len, f, &opt, &err) == 0, "%s",
                      err.message);
        uint8_t *want = tu_read_file(tu_src(d->output), &len);
        ck_assert_msg(want != NULL && len == out_len && memcmp(want, out, len) == 0,
                      "%s: the writer now makes other bytes", d->output);
        free(want);
        free(out);
        gguf_file_free(f);
    }
}
END_TEST

START_TEST(golden_files_round_trip) {
    char **files = tu_list_files(tu_src("golden"), ".gguf");
    int n = 0;
    for (char **p = files; p && *p; p++) {
        if (strstr(*p, "/golden/refuse/") != NULL)
            continue;
        ck_assert_msg(roundtrip(*p, NULL) == 1, "%s refused", *p);
        n++;
    }
    tu_free_list(files);
    ck_assert_int_ge(n, 4);
}
END_TEST

typedef struct verdicts {
    int accepted;
    int refused;
} verdicts;

START_TEST(corpus_files_round_trip) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    char **files = tu_list_files(tu_corpus(""), ".gguf");
    verdicts v = {0, 0};
    for (char **p = files; p && *p; p++) {
        if (roundtrip(*p, NULL))
            v.accepted++;
        else
            v.refused++;
    }
    tu_free_list(files);
    printf("corpus: %d files round-tripped byte for byte, %d refused\n", v.accepted, v.refused);
    /* the corpus as shipped: 75 files to accept, 52 to refuse (bad/EXPECTED.tsv) */
    ck_assert_int_ge(v.accepted, 75);
    ck_assert_int_ge(v.refused, 52);
}
END_TEST

START_TEST(v1_files_upgrade_to_their_v3_equivalents) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    static const char *names[] = {"header_only", "kv_types", "tensors"};
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.version = 3;
    for (size_t i = 0; i < 3; i++) {
        char in[256], want_path[256];
        snprintf(in, sizeof in, "v1v2/v1_%s.gguf", names[i]);
        snprintf(want_path, sizeof want_path, "v1v2/v1_%s.v3equiv.gguf", names[i]);
        gguf_file *f;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_open(&f, tu_corpus(in), 0, &err) == 0, "%s", err.message);
        void *out;
        size_t out_len, len;
        ck_assert(gguf_file_write_memory(&out, &out_len, f, &opt, &err) == 0);
        uint8_t *want = tu_read_file(tu_corpus(want_path), &len);
        ck_assert_msg(len == out_len && memcmp(want, out, len) == 0, "%s as v3 differs from %s",
                      in, want_path);
        free(want);
        free(out);
        gguf_file_free(f);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("golden");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, manifest_crcs_match);
    tcase_add_test(tc, hand_fixtures_equal_their_maps);
    tcase_add_test(tc, refused_files_give_their_error);
    tcase_add_test(tc, derived_files_are_reproduced);
    tcase_add_test(tc, golden_files_round_trip);
    tcase_add_test(tc, corpus_files_round_trip);
    tcase_add_test(tc, v1_files_upgrade_to_their_v3_equivalents);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
