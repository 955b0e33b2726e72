/* The reader (parse.c, file.c): what it accepts and refuses, and that it fails cleanly.
 *
 *  1. every file of ../shared/corpus/bad gets the verdict bad/EXPECTED.tsv gives it;
 *  2. every truncation of every valid fixture fails with GGUF_ETRUNC or GGUF_ECORRUPT (or opens,
 *     once the prefix holds everything the file declares);
 *  3. seeded byte flips never crash: the result opens (and then reads, lints and writes back
 *     unchanged) or fails with a message;
 *  4. each rule of the read policy, on bytes built here.
 *
 * Prefixes and flipped copies live in heap blocks of their exact size, so that AddressSanitizer
 * catches any read past the end. GGUF_TEST_SEED=<n> overrides the flips' default seed, and
 * GGUF_TEST_FLIPS=<n> the number of flipped copies per fixture (200). */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libgguf/gguf.h>
#include "tests/support/testutil.h"
#include "tests/support/gguf_builder.h"

#define SMALL_FIXTURE ((size_t)64 * 1024) /* every prefix of files up to this size is tried */

static const gguf_file *const SENTINEL = (const gguf_file *)&SENTINEL;

/* ---- helpers ---- */

static int is_reader_code(int rc) {
    return rc == GGUF_ETRUNC || rc == GGUF_ECORRUPT || rc == GGUF_ELIMIT ||
           rc == GGUF_EUNSUPPORTED;
}

/* Opens bytes that must be accepted (the library keeps its own exact-size copy). */
static gguf_file *accept_bytes(const void *p, size_t n, unsigned flags) {
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open_memory(&f, p, n, 1, flags, &err);
    ck_assert_msg(rc == 0, "refused: %d %s (offset %" PRIu64 ")", rc, err.message, err.offset);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(err.code, 0);
    return f;
}

static gguf_file *accept_gb(const gb *b, unsigned flags) {
    return accept_bytes(b->p, b->len, flags);
}

/* Opens bytes that must be refused with `code`; checks the message (and that it contains
 * `needle`), the offset, and that the output was left alone. Returns the error. */
static gguf_error refuse_bytes(const void *p, size_t n, unsigned flags, int code,
                               const char *needle) {
    gguf_file *f = (gguf_file *)SENTINEL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open_memory(&f, p, n, 1, flags, &err);
    ck_assert_msg(rc == code, "rc %d (%s), expected %d (%s); message: %s", rc, gguf_strerror(rc),
                  code, gguf_strerror(code), err.message);
    ck_assert_ptr_eq(f, SENTINEL);
    ck_assert_int_eq(err.code, code);
    ck_assert_msg(err.message[0] != '\0', "no message");
    ck_assert_msg(err.offset <= n || err.offset == GGUF_ERROR_NO_OFFSET,
                  "offset %" PRIu64 " beyond the %zu bytes: %s", err.offset, n, err.message);
    if (needle != NULL)
        ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' not in message: %s", needle,
                      err.message);
    return err;
}

static gguf_error refuse_gb(const gb *b, unsigned flags, int code, const char *needle) {
    return refuse_bytes(b->p, b->len, flags, code, needle);
}

/* Bytes a file needs: through its last tensor, or through its tensor infos without tensors. */
static uint64_t required_len(const gguf_file *f) {
    uint64_t need = gguf_file_data_offset(f);
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        ck_assert_uint_ne(t.nbytes, UINT64_MAX);
        uint64_t end = gguf_file_data_offset(f) + t.offset + t.nbytes;
        if (end > need)
            need = end;
    }
    return need;
}

/* ---- a deterministic generator (splitmix64) ---- */

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t test_seed(void) {
    const char *env = getenv("GGUF_TEST_SEED");
    if (env != NULL && *env != '\0')
        return strtoull(env, NULL, 0);
    return 0x6767756621ull; /* fixed, so a run is reproducible */
}

/* ---- fixtures: bytes built here, hand maps, small corpus files ---- */

typedef struct fixture {
    char name[256];
    uint8_t *p;
    size_t n;
} fixture;

typedef struct fixture_list {
    fixture *v;
    size_t n, cap;
    size_t built, maps, corpus;
} fixture_list;

static void add_fixture(fixture_list *l, const char *name, uint8_t *p, size_t n) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 32;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        ck_assert_ptr_nonnull(l->v);
    }
    fixture *fx = &l->v[l->n++];
    snprintf(fx->name, sizeof fx->name, "%s", name);
    fx->p = p;
    fx->n = n;
}

static void add_built(fixture_list *l, const char *name, gb *b) {
    add_fixture(l, name, b->p, b->len); /* takes the buffer */
    b->p = NULL;
    l->built++;
}

/* A file without tensors whose header is followed by padding (data_offset = end of infos). */
static void build_kv_only(gb *b) {
    gb_begin(b, 3, 0, 0, 3);
    gb_kv(b, "general.name", GGUF_VTYPE_STRING), gb_str(b, "kv only");
    gb_kv(b, "a.f64", GGUF_VTYPE_F64), gb_f64(b, 2.5);
    gb_kv(b, "a.deep", GGUF_VTYPE_ARRAY), gb_arr(b, GGUF_VTYPE_ARRAY, 1);
    gb_arr(b, GGUF_VTYPE_ARRAY, 1), gb_arr(b, GGUF_VTYPE_I64, 1), gb_i64(b, -5);
    gb_align(b, 32);
}

/* Unknown-size tensors pass with GGUF_OPEN_UNKNOWN_TYPES; this one is laid out for it. */
static void build_alignment_48(gb *b) {
    gb_begin(b, 3, 0, 2, 1);
    gb_kv(b, "general.alignment", GGUF_VTYPE_U32), gb_u32(b, 48);
    gb_tensor(b, "x", 1, (const uint64_t[]){5}, GGUF_DTYPE_F32, 0);
    gb_tensor(b, "y", 2, (const uint64_t[]){32, 2}, GGUF_DTYPE_Q8_0, 48);
    gb_align(b, 48);
    gb_pattern(b, 20, 9);
    gb_fill(b, 0, 28);
    gb_pattern(b, 68, 10);
}

static fixture_list load_fixtures(int with_large) {
    fixture_list l = {0};
    static const struct {
        uint32_t version;
        int big;
        const char *name;
    } samples[] = {{3, 0, "built/sample-v3-le"}, {3, 1, "built/sample-v3-be"},
                   {2, 0, "built/sample-v2-le"}, {1, 0, "built/sample-v1-le"},
                   {1, 1, "built/sample-v1-be"}};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        gb b;
        gb_sample(&b, samples[i].version, samples[i].big);
        add_built(&l, samples[i].name, &b);
    }
    gb b;
    build_kv_only(&b);
    add_built(&l, "built/kv-only-padded", &b);
    build_alignment_48(&b);
    add_built(&l, "built/alignment-48", &b);
    gb_begin(&b, 3, 0, 0, 0);
    add_built(&l, "built/header-only", &b);

    char **maps = tu_list_files(tu_src("golden/hand"), ".map");
    for (char **m = maps; m != NULL && *m != NULL; m++) {
        size_t n;
        uint8_t *p = tu_assemble_map(*m, &n);
        ck_assert_msg(p != NULL, "%s: byte map does not assemble", *m);
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        if (gguf_file_open_memory(&f, p, n, 0, 0, &err) != 0) {
            /* a must-fail fixture: not a base for truncations */
            printf("check_parse: %s is refused (%s): not used as a valid fixture\n", *m,
                   err.message);
            free(p);
            continue;
        }
        gguf_file_free(f);
        const char *base = strrchr(*m, '/');
        char name[256];
        snprintf(name, sizeof name, "hand/%s", base ? base + 1 : *m);
        add_fixture(&l, name, p, n);
        l.maps++;
    }
    tu_free_list(maps);

    if (tu_have_corpus()) {
        static const char *const dirs[] = {"synth", "v1v2", "be"};
        for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
            char **files = tu_list_files(tu_corpus(dirs[d]), ".gguf");
            for (char **fp = files; fp != NULL && *fp != NULL; fp++) {
                struct stat st;
                if (stat(*fp, &st) != 0 || (!with_large && (size_t)st.st_size > SMALL_FIXTURE))
                    continue;
                size_t n;
                uint8_t *p = tu_read_file(*fp, &n);
                ck_assert_ptr_nonnull(p);
                char name[256];
                snprintf(name, sizeof name, "%s/%s", dirs[d], strrchr(*fp, '/') + 1);
                add_fixture(&l, name, p, n);
                l.corpus++;
            }
            tu_free_list(files);
        }
        size_t n;
        uint8_t *p = tu_read_file(tu_corpus("bad/base_valid.gguf"), &n);
        ck_assert_ptr_nonnull(p);
        add_fixture(&l, "bad/base_valid.gguf", p, n);
        l.corpus++;
        if (with_large) {
            p = tu_read_file(tu_corpus("real/ggml-vocab-llama-spm.gguf"), &n);
            ck_assert_ptr_nonnull(p);
            add_fixture(&l, "real/ggml-vocab-llama-spm.gguf", p, n);
            l.corpus++;
        }
    }
    return l;
}

static void free_fixtures(fixture_list *l) {
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].p);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* =========================================================================================== */
/* 1. the corpus of malformed and borderline files                                            */

typedef struct verdicts {
    int checked, accepted, refused;
} verdicts;

/* Codes for files where more than the verdict is pinned down. */
static const struct {
    const char *file;
    int code;
    const char *needle;
} CORPUS_CODES[] = {
    {"nested_arrays_10000_deep.gguf", GGUF_ELIMIT, "test.deep"},
    {"ggml_type_1000.gguf", GGUF_EUNSUPPORTED, "1000"},
    {"ggml_type_4_removed_q4_2.gguf", GGUF_ECORRUPT, "type 4"},
    {"duplicate_keys.gguf", GGUF_ECORRUPT, "test.dup"},
    {"duplicate_key_architecture.gguf", GGUF_ECORRUPT, "general.architecture"},
    {"duplicate_tensor_names.gguf", GGUF_ECORRUPT, "same.weight"},
    {"empty_file.gguf", GGUF_ETRUNC, NULL},
    {"wrong_magic.gguf", GGUF_ECORRUPT, NULL},
    {"magic_lowercase.gguf", GGUF_ECORRUPT, NULL},
    {"version_0.gguf", GGUF_ECORRUPT, NULL},
    {"version_4.gguf", GGUF_ECORRUPT, NULL},
    {"alignment_0.gguf", GGUF_ECORRUPT, "alignment"},
    {"alignment_7.gguf", GGUF_ECORRUPT, "alignment"},
    {"alignment_string.gguf", GGUF_ECORRUPT, "general.alignment"},
    {"alignment_u64.gguf", GGUF_ECORRUPT, "general.alignment"},
    {"misaligned_tensor_offset.gguf", GGUF_ECORRUPT, "36"},
    {"overlapping_tensors.gguf", GGUF_ECORRUPT, NULL},
    {"n_dims_5.gguf", GGUF_ECORRUPT, "t5"},
    {"tensor_name_65_bytes.gguf", GGUF_ECORRUPT, NULL},
    {"tensor_offset_beyond_eof.gguf", GGUF_ETRUNC, NULL},
};

static void check_verdict(const char *file, int accept, void *user) {
    verdicts *v = user;
    char rel[512];
    snprintf(rel, sizeof rel, "bad/%s", file);
    const char *path = tu_corpus(rel);
    struct stat st;
    ck_assert_msg(stat(path, &st) == 0, "%s listed in EXPECTED.tsv but missing", file);
    gguf_file *f = (gguf_file *)SENTINEL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open(&f, path, 0, &err);
    v->checked++;
    if (accept) {
        ck_assert_msg(rc == 0, "%s must be accepted, got %d: %s", file, rc, err.message);
        ck_assert_int_eq(err.code, 0);
        ck_assert_uint_eq(gguf_file_size(f), (uint64_t)st.st_size);
        gguf_file_free(f);
        v->accepted++;
        return;
    }
    ck_assert_msg(rc < 0, "%s must be refused, but it opened", file);
    ck_assert_ptr_eq(f, SENTINEL);
    ck_assert_msg(is_reader_code(rc), "%s: unexpected code %d (%s)", file, rc, err.message);
    ck_assert_int_eq(err.code, rc);
    ck_assert_msg(err.message[0] != '\0', "%s: refused without a message", file);
    ck_assert_msg(err.offset <= (uint64_t)st.st_size || err.offset == GGUF_ERROR_NO_OFFSET,
                  "%s: offset %" PRIu64 " beyond %lld bytes", file, err.offset,
                  (long long)st.st_size);
    if (strncmp(file, "truncated_", 10) == 0)
        ck_assert_msg(rc == GGUF_ETRUNC || rc == GGUF_ECORRUPT, "%s: %d %s", file, rc,
                      err.message);
    for (size_t i = 0; i < sizeof CORPUS_CODES / sizeof CORPUS_CODES[0]; i++) {
        if (strcmp(CORPUS_CODES[i].file, file) != 0)
            continue;
        ck_assert_msg(rc == CORPUS_CODES[i].code, "%s: code %d, expected %d (%s)", file, rc,
                      CORPUS_CODES[i].code, err.message);
        if (CORPUS_CODES[i].needle != NULL)
            ck_assert_msg(strstr(err.message, CORPUS_CODES[i].needle) != NULL,
                          "%s: '%s' not in message: %s", file, CORPUS_CODES[i].needle,
                          err.message);
    }
    v->refused++;
}

START_TEST(test_corpus_verdicts) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    verdicts v = {0};
    int n = tu_each_expected(check_verdict, &v);
    ck_assert_msg(n > 0, "bad/EXPECTED.tsv cannot be read or is empty");
    ck_assert_int_eq(v.checked, n);
    /* every .gguf file in bad/ is listed, so none escapes a verdict */
    char **files = tu_list_files(tu_corpus("bad"), ".gguf");
    int on_disk = 0;
    for (char **fp = files; fp != NULL && *fp != NULL; fp++)
        on_disk++;
    tu_free_list(files);
    ck_assert_int_eq(on_disk, n);
    ck_assert_int_ge(n, 60);
    ck_assert_int_ge(v.accepted, 5);
    ck_assert_int_ge(v.refused, 40);
    printf("check_parse: %d corpus verdicts (%d accepted, %d refused)\n", n, v.accepted,
           v.refused);
}
END_TEST

/* The files refused only for duplicates open leniently. */
START_TEST(test_corpus_lenient) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    static const char *const files[] = {"bad/duplicate_keys.gguf",
                                        "bad/duplicate_key_architecture.gguf",
                                        "bad/duplicate_tensor_names.gguf"};
    for (size_t i = 0; i < 3; i++) {
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_msg(gguf_file_open(&f, tu_corpus(files[i]), GGUF_OPEN_LENIENT, &err) == 0,
                      "%s: %s", files[i], err.message);
        gguf_file_free(f);
    }
    /* the unknown type opens with GGUF_OPEN_UNKNOWN_TYPES */
    gguf_file *f = NULL;
    ck_assert_int_eq(gguf_file_open(&f, tu_corpus("bad/ggml_type_1000.gguf"),
                                    GGUF_OPEN_UNKNOWN_TYPES, NULL), 0);
    ck_assert_uint_eq(gguf_tensor_count(f), 1);
    gguf_tensor_info t;
    gguf_tensor_get(&t, f, 0);
    ck_assert_uint_eq(t.type, 1000);
    ck_assert_uint_eq(t.nbytes, UINT64_MAX);
    ck_assert_ptr_null(gguf_tensor_data(f, 0));
    gguf_file_free(f);
}
END_TEST

/* Every valid corpus file (all but bad/) opens, by mapping and by reading. */
START_TEST(test_corpus_valid_files_open) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    static const char *const dirs[] = {"synth", "real", "be", "v1v2", "models"};
    int n = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char **files = tu_list_files(tu_corpus(dirs[d]), ".gguf");
        for (char **fp = files; fp != NULL && *fp != NULL; fp++) {
            for (int mode = 0; mode < 2; mode++) {
                gguf_file *f = NULL;
                gguf_error err;
                gguf_error_clear(&err);
                int rc = gguf_file_open(&f, *fp, mode ? GGUF_OPEN_NO_MMAP : 0, &err);
                ck_assert_msg(rc == 0, "%s: %d %s", *fp, rc, err.message);
                if (strstr(*fp, ".be.") != NULL || strstr(*fp, "writer-be") != NULL)
                    ck_assert_int_eq(gguf_file_endian(f), GGUF_ENDIAN_BIG);
                else
                    ck_assert_int_eq(gguf_file_endian(f), GGUF_ENDIAN_LITTLE);
                gguf_file_free(f);
            }
            n++;
        }
        tu_free_list(files);
    }
    ck_assert_int_ge(n, 60);
    printf("check_parse: %d valid corpus files open\n", n);
}
END_TEST

/* =========================================================================================== */
/* 2. every truncation fails cleanly                                                           */

typedef struct sweep_stats {
    size_t fixtures, prefixes, refused, opened, all_refused_fixtures;
} sweep_stats;

/* Opens the first L bytes of fx, in a block of exactly L bytes. */
static void try_prefix(const fixture *fx, size_t L, uint64_t required, size_t n_kv,
                       size_t n_tensors, sweep_stats *st) {
    uint8_t *blk = malloc(L ? L : 1);
    ck_assert_ptr_nonnull(blk);
    memcpy(blk, fx->p, L);
    gguf_file *f = (gguf_file *)SENTINEL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open_memory(&f, blk, L, 0, 0, &err);
    st->prefixes++;
    if (L < required) {
        ck_assert_msg(rc == GGUF_ETRUNC || rc == GGUF_ECORRUPT,
                      "%s cut to %zu bytes (needs %" PRIu64 "): rc %d (%s)", fx->name, L,
                      required, rc, err.message);
        ck_assert_ptr_eq(f, SENTINEL);
        ck_assert_int_eq(err.code, rc);
        ck_assert_msg(err.message[0] != '\0', "%s cut to %zu bytes: no message", fx->name, L);
        ck_assert_msg(err.offset <= L || err.offset == GGUF_ERROR_NO_OFFSET,
                      "%s cut to %zu bytes: offset %" PRIu64 " (%s)", fx->name, L, err.offset,
                      err.message);
        st->refused++;
    } else {
        ck_assert_msg(rc == 0, "%s cut to %zu bytes (needs only %" PRIu64 "): %d %s", fx->name,
                      L, required, rc, err.message);
        ck_assert_uint_eq(gguf_kv_count(f), n_kv);
        ck_assert_uint_eq(gguf_tensor_count(f), n_tensors);
        gguf_file_free(f);
        st->opened++;
    }
    free(blk);
}

/* Every prefix by default; GGUF_TEST_PREFIX_STRIDE=N tries every Nth (CI's valgrind pass). */
static size_t prefix_stride(void) {
    const char *env = getenv("GGUF_TEST_PREFIX_STRIDE");
    long n = env ? strtol(env, NULL, 10) : 1;
    return n > 1 ? (size_t)n : 1;
}

static void sweep_fixture(const fixture *fx, uint64_t seed, sweep_stats *st) {
    const size_t stride = prefix_stride();
    gguf_file *full = accept_bytes(fx->p, fx->n, 0);
    uint64_t required = required_len(full);
    size_t n_kv = gguf_kv_count(full), n_tensors = gguf_tensor_count(full);
    ck_assert_uint_le(required, fx->n);
    if (fx->n <= SMALL_FIXTURE) {
        for (size_t L = 0; L < fx->n; L += stride)
            try_prefix(fx, L, required, n_kv, n_tensors, st);
    } else {
        /* a large file: every prefix of the first 4 KiB and the last 256 bytes, around each
         * key and tensor info, and 1000 seeded cut points */
        for (size_t L = 0; L < 4096; L += stride)
            try_prefix(fx, L, required, n_kv, n_tensors, st);
        for (size_t L = fx->n - 256; L < fx->n; L += stride)
            try_prefix(fx, L, required, n_kv, n_tensors, st);
        for (size_t i = 0; i < n_kv; i++) {
            uint64_t at = gguf_kv_source_offset(full, i);
            for (uint64_t L = at > 4 ? at - 4 : 0; L < at + 24 && L < fx->n; L++)
                try_prefix(fx, (size_t)L, required, n_kv, n_tensors, st);
        }
        uint64_t s = seed;
        for (size_t i = 0; i < 1000; i += stride)
            try_prefix(fx, (size_t)(mix(&s) % fx->n), required, n_kv, n_tensors, st);
    }
    if (required == fx->n)
        st->all_refused_fixtures++;
    st->fixtures++;
    gguf_file_free(full);
}

START_TEST(test_every_truncation_fails) {
    fixture_list l = load_fixtures(1);
    if (!tu_have_corpus())
        tu_skip_part("the corpus files", "no ../shared/corpus");
    sweep_stats st = {0};
    for (size_t i = 0; i < l.n; i++)
        sweep_fixture(&l.v[i], test_seed() + i, &st);
    printf("check_parse: truncations: %zu fixtures (%zu built, %zu hand maps, %zu corpus), "
           "%zu prefixes: %zu refused, %zu opened; %zu fixtures refuse every prefix\n",
           st.fixtures, l.built, l.maps, l.corpus, st.prefixes, st.refused, st.opened,
           st.all_refused_fixtures);
    ck_assert_uint_ge(st.fixtures, 8);
    ck_assert_uint_ge(st.all_refused_fixtures, 5); /* the sample files end with their tensor */
    if (tu_have_corpus())
        ck_assert_uint_ge(l.corpus, 30);
    free_fixtures(&l);
}
END_TEST

/* The sample's last tensor ends at EOF: every prefix fails, in every format. */
START_TEST(test_truncated_tensor_data) {
    gb b;
    gb_sample(&b, 3, 0);
    gguf_file *f = accept_gb(&b, 0);
    ck_assert_uint_eq(required_len(f), b.len);
    ck_assert_uint_eq(gguf_file_data_offset(f) + GB_SAMPLE_DATA_BYTES, b.len);
    gguf_file_free(f);
    /* one byte short: the message names the tensor that no longer fits */
    gguf_error err = refuse_bytes(b.p, b.len - 1, 0, GGUF_ETRUNC, "'c'");
    (void)err;
    /* cut at the data section: the first tensor is named */
    gguf_file *g = accept_gb(&b, 0);
    size_t data = (size_t)gguf_file_data_offset(g);
    gguf_file_free(g);
    refuse_bytes(b.p, data, 0, GGUF_ETRUNC, "'a'");
    gb_free(&b);
}
END_TEST

/* =========================================================================================== */
/* 3. seeded byte flips                                                                        */

static void walk_value(const gguf_value *v, int depth) {
    ck_assert_int_lt(depth, 100000);
    uint32_t t = gguf_value_type(v);
    if (t == GGUF_VTYPE_ARRAY) {
        gguf_value_iter it;
        gguf_value e;
        uint64_t n = 0;
        gguf_value_iter_init(&it, v);
        while (gguf_value_iter_next(&it, &e)) {
            walk_value(&e, depth + 1);
            n++;
        }
        ck_assert_uint_eq(n, gguf_value_count(v));
    } else if (t == GGUF_VTYPE_STRING) {
        const char *s;
        uint64_t n;
        ck_assert_int_eq(gguf_value_get_str(&s, &n, v, NULL), 0);
        volatile char sink = 0;
        for (uint64_t i = 0; i < n; i++)
            sink ^= s[i]; /* touch every byte: ASan checks they are inside the input */
        (void)sink;
    } else if (t == GGUF_VTYPE_F32 || t == GGUF_VTYPE_F64) {
        double d;
        ck_assert_int_eq(gguf_value_get_f64(&d, v, NULL), 0);
    } else {
        uint64_t u;
        int64_t i;
        int s;
        ck_assert_int_eq(gguf_value_get_int(&u, &i, &s, v, NULL), 0);
    }
}

/* Reads everything an accepted file offers, lints it, writes it back: the bytes must come back
 * unchanged. */
static void exercise(const gguf_file *f, const uint8_t *p, size_t n, const char *ctx) {
    for (size_t i = 0; i < gguf_kv_count(f); i++) {
        size_t len;
        ck_assert_ptr_nonnull(gguf_kv_key(f, i, &len));
        walk_value(gguf_kv_value(f, i), 0);
    }
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        const uint8_t *d = gguf_tensor_data(f, i);
        ck_assert_msg(d != NULL, "%s: tensor %zu has no data", ctx, i);
        ck_assert_msg(d >= p && t.nbytes <= (uint64_t)(p + n - d), "%s: tensor %zu outside", ctx,
                      i);
        if (t.nbytes > 0) {
            volatile uint8_t x = d[0] ^ d[t.nbytes - 1];
            (void)x;
        }
    }
    int w = gguf_file_lint(f, NULL, NULL, NULL);
    ck_assert_msg(w >= 0, "%s: lint failed: %d", ctx, w);
    if (gguf_file_endian(f) == GGUF_ENDIAN_BIG && gguf_file_version(f) < 3)
        return; /* the writer refuses these: see test_big_endian_v1_v2_write_back */
    void *out = NULL;
    size_t out_n = 0;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_write_memory(&out, &out_n, f, NULL, &err);
    ck_assert_msg(rc == 0, "%s: write failed: %d %s", ctx, rc, err.message);
    ck_assert_msg(out_n == n && memcmp(out, p, n) == 0,
                  "%s: an accepted file does not write back unchanged (%zu -> %zu bytes)", ctx, n,
                  out_n);
    free(out);
}

START_TEST(test_seeded_byte_flips) {
    const uint64_t seed = test_seed();
    const char *env = getenv("GGUF_TEST_FLIPS"); /* flipped copies per fixture */
    const int iterations = env != NULL && atoi(env) > 0 ? atoi(env) : 200;
    printf("check_parse: byte flips with GGUF_TEST_SEED=%#" PRIx64 "\n", seed);
    fixture_list l = load_fixtures(0);
    if (!tu_have_corpus())
        tu_skip_part("the corpus files", "no ../shared/corpus");
    size_t runs = 0, opened = 0, refused = 0;
    for (size_t fi = 0; fi < l.n; fi++) {
        const fixture *fx = &l.v[fi];
        if (fx->n == 0)
            continue;
        for (int it = 0; it < iterations; it++) {
            uint64_t s = seed ^ (fi * 0x100000001b3ull) ^ ((uint64_t)it << 40);
            uint8_t *blk = malloc(fx->n);
            ck_assert_ptr_nonnull(blk);
            memcpy(blk, fx->p, fx->n);
            int flips = 1 + (int)(mix(&s) % 4);
            for (int k = 0; k < flips; k++) {
                size_t at = (size_t)(mix(&s) % fx->n);
                static const uint8_t special[] = {0x00, 0xff, 0x7f, 0x80, 0x01, 0x40, 0x20};
                uint64_t r = mix(&s);
                if (r % 10 < 7)
                    blk[at] ^= (uint8_t)(1 + (r >> 8) % 255);
                else
                    blk[at] = special[(r >> 8) % sizeof special];
            }
            char ctx[400];
            snprintf(ctx, sizeof ctx, "%s, GGUF_TEST_SEED=%#" PRIx64 " iteration %d", fx->name,
                     seed, it);
            gguf_file *f = (gguf_file *)SENTINEL;
            gguf_error err;
            gguf_error_clear(&err);
            int rc = gguf_file_open_memory(&f, blk, fx->n, 0, 0, &err);
            if (rc == 0) {
                exercise(f, blk, fx->n, ctx);
                gguf_file_free(f);
                opened++;
            } else {
                ck_assert_msg(is_reader_code(rc), "%s: code %d (%s)", ctx, rc, err.message);
                ck_assert_msg(f == SENTINEL, "%s: output written on failure", ctx);
                ck_assert_msg(err.code == rc && err.message[0] != '\0', "%s: no message", ctx);
                ck_assert_msg(err.offset <= fx->n || err.offset == GGUF_ERROR_NO_OFFSET,
                              "%s: offset %" PRIu64 " beyond the file", ctx, err.offset);
                refused++;
            }
            free(blk);
            runs++;
        }
    }
    printf("check_parse: %zu flipped copies of %zu fixtures: %zu opened, %zu refused\n", runs, l.n,
           opened, refused);
    ck_assert_uint_ge(l.n, 8);
    ck_assert_uint_gt(opened, 0);
    ck_assert_uint_gt(refused, 0);
    free_fixtures(&l);
}
END_TEST

/* The unflipped fixtures write back unchanged too (the flip test's invariant holds at 0). */
START_TEST(test_fixtures_write_back) {
    fixture_list l = load_fixtures(1);
    if (!tu_have_corpus())
        tu_skip_part("the corpus files", "no ../shared/corpus");
    for (size_t i = 0; i < l.n; i++) {
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_int_eq(gguf_file_open_memory(&f, l.v[i].p, l.v[i].n, 0, 0, &err), 0);
        exercise(f, l.v[i].p, l.v[i].n, l.v[i].name);
        gguf_file_free(f);
    }
    free_fixtures(&l);
}
END_TEST

/* =========================================================================================== */
/* 4. the rules, one by one                                                                    */

START_TEST(test_minimal_files) {
    gb b;
    gb_begin(&b, 3, 0, 0, 0);
    gguf_file *f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_kv_count(f), 0);
    ck_assert_uint_eq(gguf_tensor_count(f), 0);
    ck_assert_uint_eq(gguf_file_data_offset(f), 24);
    ck_assert_uint_eq(gguf_file_size(f), 24);
    ck_assert_uint_eq(gguf_file_version(f), 3);
    gguf_file_free(f);
    gb_free(&b);
    gb_begin(&b, 1, 0, 0, 0);
    f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_file_data_offset(f), 16);
    ck_assert_uint_eq(gguf_file_version(f), 1);
    gguf_file_free(f);
    gb_free(&b);
    /* the sample in every format */
    for (uint32_t v = 1; v <= 3; v++) {
        for (int big = 0; big < 2; big++) {
            gb_sample(&b, v, big);
            f = accept_gb(&b, 0);
            ck_assert_uint_eq(gguf_kv_count(f), GB_SAMPLE_KEYS);
            ck_assert_uint_eq(gguf_tensor_count(f), GB_SAMPLE_TENSORS);
            ck_assert_uint_eq(gguf_file_version(f), v);
            ck_assert_int_eq(gguf_file_endian(f), big ? GGUF_ENDIAN_BIG : GGUF_ENDIAN_LITTLE);
            ck_assert_uint_eq(gguf_file_data_offset(f) % 32, 0);
            gguf_tensor_info t;
            gguf_tensor_get(&t, f, 1);
            ck_assert_uint_eq(t.name_len, 1);
            ck_assert_int_eq(t.name[0], 'b');
            ck_assert_uint_eq(t.type, GGUF_DTYPE_Q4_0);
            ck_assert_uint_eq(t.n_dims, 1);
            ck_assert_uint_eq(t.dims[0], 64);
            ck_assert_uint_eq(t.dims[1], 1);
            ck_assert_uint_eq(t.dims[3], 1);
            ck_assert_uint_eq(t.offset, 32);
            ck_assert_uint_eq(t.nbytes, 36);
            const uint8_t *d = gguf_tensor_data(f, 1);
            ck_assert_uint_eq(d[0], 2);       /* gb_pattern(.., 2) */
            ck_assert_uint_eq(d[1], 2 + 37);
            ck_assert_int_eq(gguf_tensor_find(f, "c"), 2);
            ck_assert_int_eq(gguf_tensor_find(f, "d"), -1);
            gguf_file_free(f);
            gb_free(&b);
        }
    }
}
END_TEST

START_TEST(test_bad_header) {
    gb b;
    gb_begin(&b, 3, 0, 0, 0);
    ck_assert_int_eq(refuse_bytes(b.p, 0, 0, GGUF_ETRUNC, NULL).offset, 0);
    refuse_bytes(b.p, 3, 0, GGUF_ETRUNC, NULL);
    refuse_bytes(b.p, 6, 0, GGUF_ETRUNC, NULL);
    b.p[0] = 'g';
    ck_assert_int_eq(refuse_gb(&b, 0, GGUF_ECORRUPT, "magic").offset, 0);
    b.p[0] = 'G';
    static const uint32_t versions[] = {0, 4, 0x100, 0x7fffffffu, UINT32_MAX};
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        gb_store(&b, b.p + 4, versions[i], 4);
        gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, "version");
        ck_assert_uint_eq(err.offset, 4);
    }
    gb_free(&b);
    /* counts no file could hold are refused before anything is allocated for them */
    gb_begin(&b, 3, 0, 0, 1ull << 60);
    gb_kv(&b, "k", GGUF_VTYPE_U8), gb_u8(&b, 1);
    refuse_gb(&b, 0, GGUF_ECORRUPT, NULL);
    gb_set_counts(&b, 1ull << 60, 1);
    refuse_gb(&b, 0, GGUF_ECORRUPT, NULL);
    gb_set_counts(&b, UINT64_MAX, UINT64_MAX);
    refuse_gb(&b, 0, GGUF_ECORRUPT, NULL);
    gb_free(&b);
    gb_begin(&b, 1, 0, UINT32_MAX, UINT32_MAX);
    refuse_gb(&b, 0, GGUF_ECORRUPT, NULL);
    gb_free(&b);
    /* API misuse */
    gguf_file *f = (gguf_file *)SENTINEL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_memory(NULL, "GGUF", 4, 0, 0, &err), GGUF_EINVAL);
    ck_assert_int_eq(err.code, GGUF_EINVAL);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_memory(&f, NULL, 24, 0, 0, &err), GGUF_EINVAL);
    ck_assert_ptr_eq(f, SENTINEL);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_memory(&f, NULL, 0, 0, 0, &err), GGUF_ETRUNC);
    ck_assert_ptr_eq(f, SENTINEL);
    gguf_file_free(NULL);
}
END_TEST

START_TEST(test_bad_keys_and_values) {
    gb b;
    /* empty key */
    gb_begin(&b, 3, 0, 0, 2);
    gb_kv(&b, "ok", GGUF_VTYPE_U8), gb_u8(&b, 1);
    size_t at = b.len;
    gb_kv(&b, "", GGUF_VTYPE_U8), gb_u8(&b, 1);
    ck_assert_uint_eq(refuse_gb(&b, 0, GGUF_ECORRUPT, "empty").offset, at);
    gb_free(&b);
    /* unknown value types, at top level and as array elements */
    static const uint32_t bad_types[] = {13, 255, UINT32_MAX};
    for (size_t i = 0; i < 3; i++) {
        gb_begin(&b, 3, 0, 0, 1);
        gb_str(&b, "the.key");
        size_t type_at = b.len;
        gb_u32(&b, bad_types[i]);
        gb_u64(&b, 0);
        gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, "the.key");
        ck_assert_uint_eq(err.offset, type_at);
        gb_free(&b);
        gb_begin(&b, 3, 0, 0, 1);
        gb_kv(&b, "arr.key", GGUF_VTYPE_ARRAY);
        gb_arr(&b, bad_types[i], 1);
        gb_u64(&b, 0);
        refuse_gb(&b, 0, GGUF_ECORRUPT, "arr.key");
        gb_free(&b);
    }
    /* lengths past the end */
    gb_begin(&b, 3, 0, 0, 1);
    gb_kv(&b, "s", GGUF_VTYPE_STRING), gb_u64(&b, 1ull << 63), gb_raw(&b, "abc", 3);
    refuse_gb(&b, 0, GGUF_ETRUNC, "'s'");
    gb_free(&b);
    gb_begin(&b, 3, 0, 0, 1);
    gb_u64(&b, UINT64_MAX), gb_raw(&b, "key", 3), gb_fill(&b, 0, 32);
    refuse_gb(&b, 0, GGUF_ETRUNC, NULL);
    gb_free(&b);
    gb_begin(&b, 3, 0, 0, 1);
    gb_kv(&b, "arr", GGUF_VTYPE_ARRAY), gb_arr(&b, GGUF_VTYPE_STRING, 1ull << 62), gb_str(&b, "x");
    refuse_gb(&b, 0, GGUF_ETRUNC, "'arr'");
    gb_free(&b);
    gb_begin(&b, 3, 0, 0, 1);
    gb_kv(&b, "arr", GGUF_VTYPE_ARRAY), gb_arr(&b, GGUF_VTYPE_U64, 1ull << 61), gb_u64(&b, 1);
    refuse_gb(&b, 0, GGUF_ETRUNC, "'arr'");
    gb_free(&b);
    /* an error inside an array names the element */
    gb_begin(&b, 3, 0, 0, 1);
    gb_kv(&b, "toks", GGUF_VTYPE_ARRAY), gb_arr(&b, GGUF_VTYPE_STRING, 3);
    gb_str(&b, "a"), gb_str(&b, "b"), gb_u64(&b, 1000), gb_raw(&b, "c", 1);
    refuse_gb(&b, 0, GGUF_ETRUNC, "'toks'[2]");
    gb_free(&b);
    /* a bool byte other than 0 and 1 is kept as read */
    gb_begin(&b, 3, 0, 0, 1);
    gb_kv(&b, "flag", GGUF_VTYPE_BOOL), gb_u8(&b, 2);
    gguf_file *f = accept_gb(&b, 0);
    uint8_t byte = 0;
    ck_assert_int_eq(gguf_value_get_bool_byte(&byte, gguf_kv_value(f, 0), NULL), 0);
    ck_assert_uint_eq(byte, 2);
    gguf_file_free(f);
    gb_free(&b);
}
END_TEST

START_TEST(test_duplicate_keys) {
    gb b;
    gb_begin(&b, 3, 0, 0, 3);
    gb_kv(&b, "a.b", GGUF_VTYPE_U32), gb_u32(&b, 1);
    gb_kv(&b, "x", GGUF_VTYPE_U8), gb_u8(&b, 7);
    size_t dup_at = b.len;
    gb_kv(&b, "a.b", GGUF_VTYPE_STRING), gb_str(&b, "two");
    gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, "'a.b'");
    ck_assert_uint_eq(err.offset, dup_at);
    gguf_file *f = accept_gb(&b, GGUF_OPEN_LENIENT);
    ck_assert_uint_eq(gguf_kv_count(f), 3);
    ck_assert_int_eq(gguf_kv_find(f, "a.b"), 0); /* the first one */
    ck_assert_uint_eq(gguf_value_type(gguf_kv_value(f, 2)), GGUF_VTYPE_STRING);
    ck_assert_uint_eq(gguf_kv_source_offset(f, 2), dup_at);
    gguf_file_free(f);
    gb_free(&b);
    /* same bytes, different length: not duplicates */
    gb_begin(&b, 3, 0, 0, 2);
    gb_kv(&b, "ab", GGUF_VTYPE_U8), gb_u8(&b, 1);
    gb_kvn(&b, "ab\0", 3, GGUF_VTYPE_U8), gb_u8(&b, 2);
    f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_kv_count(f), 2);
    gguf_file_free(f);
    gb_free(&b);
    /* many keys, the duplicate last: found however the set is sized */
    gb_begin(&b, 3, 0, 0, 1001);
    char k[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof k, "key.%d", i);
        gb_kv(&b, k, GGUF_VTYPE_U16), gb_u16(&b, (uint16_t)i);
    }
    gb_kv(&b, "key.500", GGUF_VTYPE_U16), gb_u16(&b, 1);
    refuse_gb(&b, 0, GGUF_ECORRUPT, "key.500");
    f = accept_gb(&b, GGUF_OPEN_LENIENT);
    ck_assert_uint_eq(gguf_kv_count(f), 1001);
    ck_assert_int_eq(gguf_kv_find(f, "key.500"), 500);
    gguf_file_free(f);
    gb_free(&b);
}
END_TEST

START_TEST(test_duplicate_tensor_names) {
    gb b;
    gb_begin(&b, 3, 0, 2, 0);
    gb_tensor(&b, "same.weight", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 0);
    size_t dup_at = b.len;
    gb_tensor(&b, "same.weight", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 32);
    gb_align(&b, 32);
    gb_pattern(&b, 16, 1);
    gb_fill(&b, 0, 16);
    gb_pattern(&b, 16, 2);
    gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, "same.weight");
    ck_assert_uint_eq(err.offset, dup_at);
    gguf_file *f = accept_gb(&b, GGUF_OPEN_LENIENT);
    ck_assert_uint_eq(gguf_tensor_count(f), 2);
    ck_assert_int_eq(gguf_tensor_find(f, "same.weight"), 0);
    const uint8_t *d0 = gguf_tensor_data(f, 0), *d1 = gguf_tensor_data(f, 1);
    ck_assert_uint_eq(d0[0], 1);
    ck_assert_uint_eq(d1[0], 2);
    gguf_file_free(f);
    gb_free(&b);
}
END_TEST

/* A file with general.alignment = a (stored as type vt), and two F32 tensors laid out for it. */
static void build_aligned(gb *b, uint32_t a, uint32_t vt, size_t *kv_at) {
    gb_begin(b, 3, 0, 2, 2);
    gb_kv(b, "general.name", GGUF_VTYPE_STRING), gb_str(b, "aligned");
    *kv_at = b->len;
    gb_kv(b, "general.alignment", vt);
    switch (vt) {
    case GGUF_VTYPE_U8: gb_u8(b, (uint8_t)a); break;
    case GGUF_VTYPE_U16: gb_u16(b, (uint16_t)a); break;
    case GGUF_VTYPE_U32: gb_u32(b, a); break;
    case GGUF_VTYPE_I32: gb_i32(b, (int32_t)a); break;
    case GGUF_VTYPE_U64: gb_u64(b, a); break;
    case GGUF_VTYPE_F32: gb_f32(b, (float)a); break;
    case GGUF_VTYPE_STRING: {
        char s[16];
        snprintf(s, sizeof s, "%u", a);
        gb_str(b, s);
        break;
    }
    case GGUF_VTYPE_ARRAY: gb_arr(b, GGUF_VTYPE_U32, 1), gb_u32(b, a); break;
    default: ck_abort();
    }
    uint32_t al = a ? a : 1;
    uint64_t second = (16 + al - 1) / al * al;
    gb_tensor(b, "first", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 0);
    gb_tensor(b, "second", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, second);
    gb_align(b, al);
    gb_pattern(b, 16, 1);
    gb_fill(b, 0, (size_t)(second - 16));
    gb_pattern(b, 16, 2);
}

START_TEST(test_alignment) {
    /* accepted: powers of two (ggml) and multiples of 8 (spec) */
    static const uint32_t good[] = {1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 256, 4096};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        gb b;
        size_t kv_at;
        build_aligned(&b, good[i], GGUF_VTYPE_U32, &kv_at);
        gguf_file *f = accept_gb(&b, 0);
        ck_assert_uint_eq(gguf_file_alignment(f), good[i]);
        uint64_t dof = gguf_file_data_offset(f);
        ck_assert_uint_eq(dof % good[i], 0);
        const uint8_t *d = gguf_tensor_data(f, 1);
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, 1);
        ck_assert_uint_eq(t.offset % good[i], 0);
        ck_assert_ptr_eq(d, gguf_tensor_data(f, 0) + t.offset);
        ck_assert_uint_eq(d[0], 2);
        ck_assert_uint_eq(dof + t.offset + 16, b.len);
        gguf_file_free(f);
        gb_free(&b);
    }
    /* refused: zero, and neither a power of two nor a multiple of 8 */
    static const uint32_t bad[] = {0, 3, 7, 12, 20, 33, 100, 1001};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gb b;
        size_t kv_at;
        build_aligned(&b, bad[i], GGUF_VTYPE_U32, &kv_at);
        char num[16];
        snprintf(num, sizeof num, "%u", bad[i]);
        gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, num);
        ck_assert_msg(strstr(err.message, "alignment") != NULL, "%s", err.message);
        ck_assert_uint_eq(err.offset, kv_at);
        gb_free(&b);
    }
}
END_TEST

START_TEST(test_alignment_must_be_u32) {
    static const uint32_t types[] = {GGUF_VTYPE_U8, GGUF_VTYPE_U16, GGUF_VTYPE_I32,
                                     GGUF_VTYPE_U64, GGUF_VTYPE_F32, GGUF_VTYPE_STRING,
                                     GGUF_VTYPE_ARRAY};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        gb b;
        size_t kv_at;
        build_aligned(&b, 32, types[i], &kv_at);
        gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, "general.alignment");
        ck_assert_uint_eq(err.offset, kv_at);
        gb_free(&b);
    }
}
END_TEST

/* One tensor of the given type id, shape [32], with 64 data bytes after it. */
static void build_typed(gb *b, uint32_t type, size_t *type_at, size_t *info_at) {
    gb_begin(b, 3, 0, 2, 0);
    *info_at = b->len;
    gb_str(b, "odd.tensor");
    gb_u32(b, 1);
    gb_len(b, 32);
    *type_at = b->len;
    gb_u32(b, type);
    gb_u64(b, 0);
    gb_tensor(b, "plain", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 32);
    gb_align(b, 32);
    gb_pattern(b, 32, 1);
    gb_pattern(b, 16, 2);
}

START_TEST(test_unknown_tensor_type) {
    static const uint32_t ids[] = {43, 44, 100, 1000, 65536, UINT32_MAX};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        gb b;
        size_t type_at, info_at;
        build_typed(&b, ids[i], &type_at, &info_at);
        char num[16];
        snprintf(num, sizeof num, "%u", ids[i]);
        gguf_error err = refuse_gb(&b, 0, GGUF_EUNSUPPORTED, num);
        ck_assert_msg(strstr(err.message, "odd.tensor") != NULL, "%s", err.message);
        ck_assert_uint_ge(err.offset, info_at);
        ck_assert_uint_le(err.offset, type_at);
        /* accepted on request: size unknown, no data pointer, the neighbour intact */
        gguf_file *f = accept_gb(&b, GGUF_OPEN_UNKNOWN_TYPES);
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, 0);
        ck_assert_uint_eq(t.type, ids[i]);
        ck_assert_uint_eq(t.nbytes, UINT64_MAX);
        ck_assert_uint_eq(t.dims[0], 32);
        ck_assert_ptr_null(gguf_tensor_data(f, 0));
        const uint8_t *d = gguf_tensor_data(f, 1);
        ck_assert_ptr_nonnull(d);
        ck_assert_uint_eq(d[0], 2);
        gguf_file_free(f);
        gb_free(&b);
    }
    /* an unknown-size tensor must still start inside the file */
    gb b;
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "far", 1, (const uint64_t[]){32}, 1000, 1u << 20);
    gb_align(&b, 32);
    gb_pattern(&b, 64, 1);
    refuse_gb(&b, GGUF_OPEN_UNKNOWN_TYPES, GGUF_ETRUNC, "far");
    gb_free(&b);
}
END_TEST

START_TEST(test_removed_tensor_types) {
    static const uint32_t removed[] = {4, 5, 31, 32, 33, 36, 37, 38};
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        gb b;
        size_t type_at, info_at;
        build_typed(&b, removed[i], &type_at, &info_at);
        char num[16];
        snprintf(num, sizeof num, "%u", removed[i]);
        gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, num);
        ck_assert_msg(strstr(err.message, "removed") != NULL, "%s", err.message);
        /* removed ids stay refused, even when unknown ids are let through */
        refuse_gb(&b, GGUF_OPEN_UNKNOWN_TYPES, GGUF_ECORRUPT, num);
        gb_free(&b);
    }
}
END_TEST

START_TEST(test_block_row_mismatch) {
    gb b;
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "q", 2, (const uint64_t[]){33, 2}, GGUF_DTYPE_Q4_0, 0);
    gb_align(&b, 32);
    gb_fill(&b, 0, 128);
    refuse_gb(&b, 0, GGUF_ECORRUPT, "'q'");
    gb_free(&b);
}
END_TEST

static void build_named(gb *b, size_t name_len) {
    char name[128];
    memset(name, 'n', sizeof name);
    gb_begin(b, 3, 0, 1, 0);
    gb_tensorn(b, name, name_len, 1, (const uint64_t[]){2}, GGUF_DTYPE_F32, 0);
    gb_align(b, 32);
    gb_pattern(b, 8, 1);
}

START_TEST(test_tensor_name_length) {
    gb b;
    for (size_t n = 0; n <= 64; n += 16) {
        build_named(&b, n);
        gguf_file *f = accept_gb(&b, 0);
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, 0);
        ck_assert_uint_eq(t.name_len, n);
        gguf_file_free(f);
        gb_free(&b);
    }
    build_named(&b, 65);
    refuse_gb(&b, 0, GGUF_ECORRUPT, "65");
    refuse_gb(&b, GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES, GGUF_ECORRUPT, NULL);
    gb_free(&b);
    build_named(&b, 100);
    refuse_gb(&b, 0, GGUF_ECORRUPT, NULL);
    gb_free(&b);
}
END_TEST

START_TEST(test_n_dims) {
    gb b;
    /* 5 and more */
    static const uint32_t too_many[] = {5, 8, UINT32_MAX};
    for (size_t i = 0; i < 3; i++) {
        gb_begin(&b, 3, 0, 1, 0);
        gb_str(&b, "t5");
        gb_u32(&b, too_many[i]);
        for (int d = 0; d < 5; d++)
            gb_u64(&b, 2);
        gb_u32(&b, GGUF_DTYPE_F32);
        gb_u64(&b, 0);
        gb_align(&b, 32);
        gb_fill(&b, 0, 128);
        refuse_gb(&b, 0, GGUF_ECORRUPT, "t5");
        gb_free(&b);
    }
    /* 0: one element */
    gb_begin(&b, 3, 0, 2, 0);
    gb_tensor(&b, "scalar", 0, NULL, GGUF_DTYPE_F32, 0);
    gb_tensor(&b, "after", 4, (const uint64_t[]){2, 1, 1, 3}, GGUF_DTYPE_F16, 32);
    gb_align(&b, 32);
    gb_pattern(&b, 4, 1);
    gb_fill(&b, 0, 28);
    gb_pattern(&b, 12, 2);
    gguf_file *f = accept_gb(&b, 0);
    gguf_tensor_info t;
    gguf_tensor_get(&t, f, 0);
    ck_assert_uint_eq(t.n_dims, 0);
    for (int d = 0; d < GGUF_MAX_DIMS; d++)
        ck_assert_uint_eq(t.dims[d], 1);
    ck_assert_uint_eq(t.nbytes, 4);
    gguf_tensor_get(&t, f, 1);
    ck_assert_uint_eq(t.n_dims, 4);
    ck_assert_uint_eq(t.dims[3], 3);
    ck_assert_uint_eq(t.nbytes, 12);
    gguf_file_free(f);
    gb_free(&b);
}
END_TEST

START_TEST(test_dims_overflow) {
    gb b;
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "huge", 2, (const uint64_t[]){1ull << 32, 1ull << 32}, GGUF_DTYPE_F32, 0);
    gb_align(&b, 32);
    gb_fill(&b, 0, 64);
    refuse_gb(&b, 0, GGUF_ECORRUPT, "huge");
    gb_free(&b);
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "huge", 2, (const uint64_t[]){4, (1ull << 62) + 1}, GGUF_DTYPE_F32, 0);
    gb_align(&b, 32);
    gb_fill(&b, 0, 16);
    refuse_gb(&b, 0, GGUF_ECORRUPT, "huge");
    gb_free(&b);
    /* one dimension above 2^63 - 1 */
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "neg", 1, (const uint64_t[]){1ull << 63}, GGUF_DTYPE_I8, 0);
    gb_align(&b, 32);
    refuse_gb(&b, 0, GGUF_ECORRUPT, "neg");
    gb_free(&b);
    /* elements fit, bytes do not: 2^62 floats */
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "big", 1, (const uint64_t[]){1ull << 62}, GGUF_DTYPE_F32, 0);
    gb_align(&b, 32);
    refuse_gb(&b, 0, GGUF_ECORRUPT, "big");
    gb_free(&b);
    /* plausible dims beyond the file: truncated */
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "big", 2, (const uint64_t[]){4096, 4096}, GGUF_DTYPE_F32, 0);
    gb_align(&b, 32);
    gb_fill(&b, 0, 64);
    refuse_gb(&b, 0, GGUF_ETRUNC, "big");
    gb_free(&b);
}
END_TEST

/* Two F32 tensors of `na` and `nb` elements at offsets oa and ob, data of `total` bytes. */
static void build_pair(gb *b, uint64_t na, uint64_t oa, uint64_t nb, uint64_t ob, size_t total) {
    gb_begin(b, 3, 0, 2, 0);
    gb_tensor(b, "ta", 1, (const uint64_t[]){na}, GGUF_DTYPE_F32, oa);
    gb_tensor(b, "tb", 1, (const uint64_t[]){nb}, GGUF_DTYPE_F32, ob);
    gb_align(b, 32);
    gb_pattern(b, total, 5);
}

START_TEST(test_overlapping_tensors) {
    gb b;
    build_pair(&b, 16, 0, 16, 32, 96); /* [0,64) and [32,96) */
    gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, "overlaps");
    ck_assert_msg(strstr(err.message, "ta") && strstr(err.message, "tb"), "%s", err.message);
    refuse_gb(&b, GGUF_OPEN_LENIENT, GGUF_ECORRUPT, NULL);
    gb_free(&b);
    build_pair(&b, 16, 32, 16, 0, 96); /* the same, listed the other way round */
    refuse_gb(&b, 0, GGUF_ECORRUPT, "overlaps");
    gb_free(&b);
    build_pair(&b, 8, 0, 8, 0, 32); /* the same bytes */
    refuse_gb(&b, 0, GGUF_ECORRUPT, NULL);
    gb_free(&b);
    build_pair(&b, 24, 0, 8, 32, 96); /* [0,96) holds [32,64) */
    refuse_gb(&b, 0, GGUF_ECORRUPT, NULL);
    gb_free(&b);
    /* touching is fine, in either order */
    build_pair(&b, 8, 0, 8, 32, 64);
    gguf_file_free(accept_gb(&b, 0));
    gb_free(&b);
    build_pair(&b, 8, 32, 8, 0, 64);
    gguf_file_free(accept_gb(&b, 0));
    gb_free(&b);
    /* three tensors, the first in offset order holding both others: the first overlap met
     * walking by offset is the middle one's */
    gb_begin(&b, 3, 0, 3, 0);
    gb_tensor(&b, "big", 1, (const uint64_t[]){32}, GGUF_DTYPE_F32, 0);
    gb_tensor(&b, "mid", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 64);
    gb_tensor(&b, "end", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 96);
    gb_align(&b, 32);
    gb_pattern(&b, 128, 1);
    err = refuse_gb(&b, 0, GGUF_ECORRUPT, "overlaps");
    ck_assert_msg(strstr(err.message, "'mid'") && strstr(err.message, "'big'"), "%s", err.message);
    gb_free(&b);
    /* three tensors, listed out of offset order, the overlap only between the first and the
     * last in offset order: the middle one is empty, so it shares no bytes with either, and a
     * check of neighbours alone (or one that lets an empty tensor end the walk so far) misses
     * big [0,128) holding end [96,112) */
    gb_begin(&b, 3, 0, 3, 0);
    gb_tensor(&b, "end", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 96);
    gb_tensor(&b, "big", 1, (const uint64_t[]){32}, GGUF_DTYPE_F32, 0);
    gb_tensor(&b, "mid", 1, (const uint64_t[]){0}, GGUF_DTYPE_F32, 64);
    gb_align(&b, 32);
    gb_pattern(&b, 128, 1);
    err = refuse_gb(&b, 0, GGUF_ECORRUPT, "overlaps");
    ck_assert_msg(strstr(err.message, "'end'") && strstr(err.message, "'big'") &&
                      !strstr(err.message, "'mid'"),
                  "%s", err.message);
    gb_free(&b);
}
END_TEST

/* An empty tensor has no bytes, so it overlaps nothing: where it sits, and the order of the
 * tensor infos, must not matter. */
START_TEST(test_empty_tensor_overlaps_nothing) {
    gb b;
    build_pair(&b, 0, 0, 16, 0, 64); /* empty first, then [0,64) */
    gguf_file_free(accept_gb(&b, 0));
    gb_free(&b);
    build_pair(&b, 16, 0, 0, 0, 64); /* [0,64), then empty at 0 */
    gguf_file_free(accept_gb(&b, 0));
    gb_free(&b);
    build_pair(&b, 16, 0, 0, 32, 64); /* [0,64), then empty at 32 */
    gguf_file_free(accept_gb(&b, 0));
    gb_free(&b);
}
END_TEST

START_TEST(test_misaligned_offset) {
    for (int with_kv = 0; with_kv < 2; with_kv++) {
        /* alignment 32 (default, or stated), second tensor at 36 */
        gb b;
        gb_begin(&b, 3, 0, 2, (uint64_t)with_kv);
        if (with_kv)
            gb_kv(&b, "general.alignment", GGUF_VTYPE_U32), gb_u32(&b, 32);
        gb_tensor(&b, "ta", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 0);
        size_t info_b = b.len;
        gb_tensor(&b, "tb", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 36);
        gb_align(&b, 32);
        gb_pattern(&b, 52, 1);
        gguf_error err = refuse_gb(&b, 0, GGUF_ECORRUPT, "36");
        ck_assert_msg(strstr(err.message, "'tb'") != NULL, "%s", err.message);
        ck_assert_uint_eq(err.offset, info_b);
        refuse_gb(&b, GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES, GGUF_ECORRUPT, "36");
        gb_free(&b);
    }
    /* with alignment 4, offset 36 is aligned */
    gb b;
    gb_begin(&b, 3, 0, 2, 1);
    gb_kv(&b, "general.alignment", GGUF_VTYPE_U32), gb_u32(&b, 4);
    gb_tensor(&b, "ta", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 0);
    gb_tensor(&b, "tb", 1, (const uint64_t[]){4}, GGUF_DTYPE_F32, 36);
    gb_align(&b, 4);
    gb_pattern(&b, 52, 1);
    gguf_file *f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_file_alignment(f), 4);
    gguf_file_free(f);
    gb_free(&b);
}
END_TEST

START_TEST(test_data_beyond_eof) {
    gb b;
    /* 1 MiB past the data start */
    build_pair(&b, 4, 0, 4, 1u << 20, 64);
    refuse_gb(&b, 0, GGUF_ETRUNC, "tb");
    gb_free(&b);
    /* one byte past the end */
    build_pair(&b, 4, 0, 5, 32, 51);
    refuse_gb(&b, 0, GGUF_ETRUNC, "tb");
    gb_free(&b);
    /* exactly to the end */
    build_pair(&b, 4, 0, 5, 32, 52);
    gguf_file *f = accept_gb(&b, 0);
    ck_assert_uint_eq(required_len(f), b.len);
    gguf_file_free(f);
    gb_free(&b);
    /* an offset so large that offset + size wraps */
    build_pair(&b, 4, 0, 4, UINT64_MAX - 31, 64);
    refuse_gb(&b, 0, GGUF_ETRUNC, "tb");
    gb_free(&b);
    /* tensor data missing entirely, file ends inside the padding */
    gb_begin(&b, 3, 0, 1, 0);
    gb_tensor(&b, "t", 1, (const uint64_t[]){1}, GGUF_DTYPE_F32, 0);
    size_t infos_end = b.len;
    gb_align(&b, 32);
    ck_assert_uint_gt(b.len, infos_end);
    refuse_bytes(b.p, infos_end + 1, 0, GGUF_ETRUNC, NULL);
    refuse_bytes(b.p, b.len, 0, GGUF_ETRUNC, "'t'");
    gb_free(&b);
}
END_TEST

/* Arrays nested `depth` levels deep (depth 1: a plain array), one u8 innermost. */
static void build_nested(gb *b, size_t depth) {
    gb_begin(b, 3, 0, 0, 2);
    gb_kv(b, "test.deep", GGUF_VTYPE_ARRAY);
    for (size_t i = 1; i < depth; i++)
        gb_arr(b, GGUF_VTYPE_ARRAY, 1);
    gb_arr(b, GGUF_VTYPE_U8, 1);
    gb_u8(b, 42);
    gb_kv(b, "after", GGUF_VTYPE_U8), gb_u8(b, 7);
}

static int nested_opens(size_t depth, int *code) {
    gb b;
    build_nested(&b, depth);
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open_memory(&f, b.p, b.len, 1, 0, &err);
    gb_free(&b);
    *code = rc;
    if (rc == 0) {
        /* walk down to the u8 */
        const gguf_value *v = gguf_kv_value(f, 0);
        gguf_value cur = *v, e;
        for (size_t i = 1; i < depth; i++) {
            gguf_value_iter it;
            gguf_value_iter_init(&it, &cur);
            ck_assert(gguf_value_iter_next(&it, &e));
            cur = e;
        }
        ck_assert_uint_eq(gguf_value_elem_type(&cur), GGUF_VTYPE_U8);
        gguf_file_free(f);
        return 1;
    }
    ck_assert_msg(err.message[0] != '\0', "depth %zu: no message", depth);
    return 0;
}

START_TEST(test_nesting_limit) {
    int code;
    ck_assert(nested_opens(1, &code));
    ck_assert(nested_opens(3, &code));
    /* deep nesting is a limit error, not a stack overflow */
    ck_assert(!nested_opens(10000, &code));
    ck_assert_int_eq(code, GGUF_ELIMIT);
    ck_assert(!nested_opens(200000, &code));
    ck_assert_int_eq(code, GGUF_ELIMIT);
    gb b;
    build_nested(&b, 10000);
    refuse_gb(&b, 0, GGUF_ELIMIT, "test.deep");
    gb_free(&b);
    /* find the deepest accepted level: below it all open, above it ELIMIT */
    size_t lo = 3, hi = 10000;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (nested_opens(mid, &code))
            lo = mid;
        else
            hi = mid;
    }
    ck_assert(!nested_opens(lo + 1, &code));
    ck_assert_int_eq(code, GGUF_ELIMIT);
    ck_assert_uint_ge(lo, 8); /* a useful depth is allowed */
    printf("check_parse: arrays nest at most %zu deep\n", lo);
    /* a deep array of strings hits the same limit */
    gb_begin(&b, 3, 0, 0, 1);
    gb_kv(&b, "deep.str", GGUF_VTYPE_ARRAY);
    for (size_t i = 0; i < lo + 5; i++)
        gb_arr(&b, GGUF_VTYPE_ARRAY, 1);
    gb_arr(&b, GGUF_VTYPE_STRING, 1), gb_str(&b, "x");
    refuse_gb(&b, 0, GGUF_ELIMIT, "deep.str");
    gb_free(&b);
}
END_TEST

START_TEST(test_force_byte_order) {
    gb le, be;
    gb_sample(&le, 3, 0);
    gb_sample(&be, 3, 1);
    gguf_file *f = accept_gb(&le, GGUF_OPEN_FORCE_LITTLE);
    ck_assert_int_eq(gguf_file_endian(f), GGUF_ENDIAN_LITTLE);
    gguf_file_free(f);
    f = accept_gb(&be, GGUF_OPEN_FORCE_BIG);
    ck_assert_int_eq(gguf_file_endian(f), GGUF_ENDIAN_BIG);
    ck_assert_uint_eq(gguf_file_version(f), 3);
    gguf_file_free(f);
    /* forced the wrong way: the version reads as 0x03000000 */
    ck_assert_uint_eq(refuse_gb(&le, GGUF_OPEN_FORCE_BIG, GGUF_ECORRUPT, "version").offset, 4);
    ck_assert_uint_eq(refuse_gb(&be, GGUF_OPEN_FORCE_LITTLE, GGUF_ECORRUPT, "version").offset, 4);
    gb_free(&le);
    gb_free(&be);
    /* the header alone decides: a big-endian header-only file, both ways */
    gb_begin(&be, 2, 1, 0, 0);
    f = accept_gb(&be, 0);
    ck_assert_int_eq(gguf_file_endian(f), GGUF_ENDIAN_BIG);
    ck_assert_uint_eq(gguf_file_version(f), 2);
    gguf_file_free(f);
    refuse_gb(&be, GGUF_OPEN_FORCE_LITTLE, GGUF_ECORRUPT, NULL);
    gb_free(&be);
}
END_TEST

START_TEST(test_data_offset) {
    gb b;
    /* with tensors: the end of the tensor infos rounded up to the alignment */
    gb_sample(&b, 3, 0);
    gguf_file *f = accept_gb(&b, 0);
    uint64_t dof = gguf_file_data_offset(f);
    ck_assert_uint_eq(dof % 32, 0);
    ck_assert_uint_eq(dof, b.len - GB_SAMPLE_DATA_BYTES);
    ck_assert_ptr_eq(gguf_tensor_data(f, 0), gguf_tensor_data(f, 1) - 32);
    gguf_file_free(f);
    gb_free(&b);
    /* without tensors: the end of the tensor infos, unaligned, whatever follows */
    build_kv_only(&b);
    size_t pad = b.len;
    gb_free(&b);
    gb_begin(&b, 3, 0, 0, 3);
    gb_kv(&b, "general.name", GGUF_VTYPE_STRING), gb_str(&b, "kv only");
    gb_kv(&b, "a.f64", GGUF_VTYPE_F64), gb_f64(&b, 2.5);
    gb_kv(&b, "a.deep", GGUF_VTYPE_ARRAY), gb_arr(&b, GGUF_VTYPE_ARRAY, 1);
    gb_arr(&b, GGUF_VTYPE_ARRAY, 1), gb_arr(&b, GGUF_VTYPE_I64, 1), gb_i64(&b, -5);
    size_t end = b.len;
    ck_assert_uint_ne(end % 32, 0);
    gb_align(&b, 32);
    ck_assert_uint_eq(b.len, pad);
    f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_file_data_offset(f), end);
    gguf_file_free(f);
    f = accept_bytes(b.p, end, 0); /* without the padding */
    ck_assert_uint_eq(gguf_file_data_offset(f), end);
    gguf_file_free(f);
    gb_fill(&b, 0xAA, 1000); /* trailing bytes of any kind */
    f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_file_data_offset(f), end);
    ck_assert_uint_eq(gguf_file_size(f), b.len);
    gguf_file_free(f);
    gb_free(&b);
    /* without tensors, a non-default alignment changes nothing */
    gb_begin(&b, 3, 0, 0, 1);
    gb_kv(&b, "general.alignment", GGUF_VTYPE_U32), gb_u32(&b, 64);
    end = b.len;
    gb_align(&b, 64);
    f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_file_alignment(f), 64);
    ck_assert_uint_eq(gguf_file_data_offset(f), end);
    gguf_file_free(f);
    gb_free(&b);
    /* with tensors and alignment 64 */
    gb_begin(&b, 3, 0, 1, 1);
    gb_kv(&b, "general.alignment", GGUF_VTYPE_U32), gb_u32(&b, 64);
    gb_tensor(&b, "t", 1, (const uint64_t[]){2}, GGUF_DTYPE_F32, 0);
    end = b.len;
    gb_align(&b, 64);
    size_t data = b.len;
    ck_assert_uint_gt(data, end);
    gb_pattern(&b, 8, 1);
    f = accept_gb(&b, 0);
    ck_assert_uint_eq(gguf_file_data_offset(f), data);
    gguf_file_free(f);
    gb_free(&b);
    if (!tu_have_corpus()) {
        tu_skip_part("a real file", "no ../shared/corpus");
    } else {
        /* real files: 24 bytes of header plus 8 bytes of padding, no tensors */
        f = NULL;
        ck_assert_int_eq(gguf_file_open(&f, tu_corpus("synth/header_only_padded.gguf"), 0, NULL),
                         0);
        ck_assert_uint_eq(gguf_file_data_offset(f), 24);
        ck_assert_uint_eq(gguf_file_size(f), 32);
        gguf_file_free(f);
    }
}
END_TEST

START_TEST(test_open_path_errors) {
    char dir[] = "/tmp/check_parse.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/missing.gguf", dir);
    gguf_file *f = (gguf_file *)SENTINEL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(&f, path, 0, &err), GGUF_EIO);
    ck_assert_ptr_eq(f, SENTINEL);
    ck_assert_int_eq(err.code, GGUF_EIO);
    ck_assert_str_eq(err.path, path); /* the error names its file */
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(&f, dir, 0, &err), GGUF_EIO);
    ck_assert_ptr_eq(f, SENTINEL);
    ck_assert(err.message[0] != '\0');
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(&f, dir, GGUF_OPEN_NO_MMAP, &err), GGUF_EIO);
    /* an empty regular file is a truncated GGUF file */
    snprintf(path, sizeof path, "%s/empty.gguf", dir);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    fclose(fp);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(&f, path, 0, &err), GGUF_ETRUNC);
    ck_assert_ptr_eq(f, SENTINEL);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(&f, path, GGUF_OPEN_NO_MMAP, &err), GGUF_ETRUNC);
    unlink(path);
    /* missing arguments */
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(NULL, path, 0, &err), GGUF_EINVAL);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open(&f, NULL, 0, &err), GGUF_EINVAL);
    ck_assert_ptr_eq(f, SENTINEL);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* Everything a file offers, compared between two openings of the same bytes. */
static void same_file(const gguf_file *a, const gguf_file *b) {
    ck_assert_uint_eq(gguf_file_version(a), gguf_file_version(b));
    ck_assert_int_eq(gguf_file_endian(a), gguf_file_endian(b));
    ck_assert_uint_eq(gguf_file_alignment(a), gguf_file_alignment(b));
    ck_assert_uint_eq(gguf_file_data_offset(a), gguf_file_data_offset(b));
    ck_assert_uint_eq(gguf_file_size(a), gguf_file_size(b));
    ck_assert_uint_eq(gguf_kv_count(a), gguf_kv_count(b));
    for (size_t i = 0; i < gguf_kv_count(a); i++) {
        size_t la, lb;
        const char *ka = gguf_kv_key(a, i, &la), *kb = gguf_kv_key(b, i, &lb);
        ck_assert(la == lb && memcmp(ka, kb, la) == 0);
        ck_assert_uint_eq(gguf_kv_source_offset(a, i), gguf_kv_source_offset(b, i));
        const gguf_value *va = gguf_kv_value(a, i), *vb = gguf_kv_value(b, i);
        ck_assert_uint_eq(gguf_value_type(va), gguf_value_type(vb));
        ck_assert(va->raw_len == vb->raw_len && memcmp(va->raw, vb->raw, va->raw_len) == 0);
    }
    ck_assert_uint_eq(gguf_tensor_count(a), gguf_tensor_count(b));
    for (size_t i = 0; i < gguf_tensor_count(a); i++) {
        gguf_tensor_info ta, tb;
        gguf_tensor_get(&ta, a, i);
        gguf_tensor_get(&tb, b, i);
        ck_assert(ta.name_len == tb.name_len && memcmp(ta.name, tb.name, ta.name_len) == 0);
        ck_assert_uint_eq(ta.type, tb.type);
        ck_assert_uint_eq(ta.n_dims, tb.n_dims);
        ck_assert(memcmp(ta.dims, tb.dims, sizeof ta.dims) == 0);
        ck_assert_uint_eq(ta.offset, tb.offset);
        ck_assert_uint_eq(ta.nbytes, tb.nbytes);
        ck_assert(memcmp(gguf_tensor_data(a, i), gguf_tensor_data(b, i), (size_t)ta.nbytes) ==
                  0);
    }
}

static void check_read_modes(const char *path, const uint8_t *p, size_t n) {
    gguf_file *mem = accept_bytes(p, n, 0), *mapped = NULL, *read = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&mapped, path, 0, &err) == 0, "%s", err.message);
    ck_assert_msg(gguf_file_open(&read, path, GGUF_OPEN_NO_MMAP, &err) == 0, "%s", err.message);
    same_file(mem, mapped);
    same_file(mem, read);
    gguf_file_free(mem);
    gguf_file_free(mapped);
    gguf_file_free(read);
}

START_TEST(test_no_mmap_reads_the_same) {
    char dir[] = "/tmp/check_parse.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/sample.gguf", dir);
    for (int big = 0; big < 2; big++) {
        gb b;
        gb_sample(&b, 3, big);
        ck_assert_int_eq(tu_write_file(path, b.p, b.len), 0);
        check_read_modes(path, b.p, b.len);
        gb_free(&b);
    }
    unlink(path);
    ck_assert_int_eq(rmdir(dir), 0);
    if (!tu_have_corpus()) {
        tu_skip_part("the corpus files", "no ../shared/corpus");
    } else {
        static const char *const files[] = {"synth/tensors_mixed.gguf", "be/tensors_q4_0.be.gguf",
                                            "v1v2/v1_tensors.gguf",
                                            "models/tiny-llama-e256-Q4_K_M.gguf"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            size_t n;
            uint8_t *p = tu_read_file(tu_corpus(files[i]), &n);
            ck_assert_ptr_nonnull(p);
            check_read_modes(tu_corpus(files[i]), p, n);
            free(p);
        }
    }
}
END_TEST

/* The reader accepts big-endian v1 and v2 files (the byte-swapped version field says so);
 * written back unchanged with default options they must come back byte for byte. */
START_TEST(test_big_endian_v1_v2_write_back) {
    for (uint32_t v = 1; v <= 2; v++) {
        gb b;
        gb_sample(&b, v, 1);
        gguf_file *f = accept_gb(&b, 0);
        ck_assert_int_eq(gguf_file_endian(f), GGUF_ENDIAN_BIG);
        ck_assert_uint_eq(gguf_file_version(f), v);
        void *out = NULL;
        size_t n = 0;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = gguf_file_write_memory(&out, &n, f, NULL, &err);
        ck_assert_msg(rc == 0, "big-endian v%u: accepted on read, refused on write: %s", v,
                      err.message);
        ck_assert(n == b.len && memcmp(out, b.p, n) == 0);
        free(out);
        gguf_file_free(f);
        gb_free(&b);
    }
}
END_TEST

static Suite *parse_suite(void) {
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_corpus_verdicts);
    tcase_add_test(tc, test_corpus_lenient);
    tcase_add_test(tc, test_corpus_valid_files_open);
    suite_add_tcase(s, tc);

    TCase *tt = tcase_create("sweeps");
    tcase_set_timeout(tt, 900);
    tcase_add_test(tt, test_every_truncation_fails);
    tcase_add_test(tt, test_truncated_tensor_data);
    tcase_add_test(tt, test_seeded_byte_flips);
    tcase_add_test(tt, test_fixtures_write_back);
    suite_add_tcase(s, tt);

    TCase *tr = tcase_create("rules");
    tcase_set_timeout(tr, 120);
    tcase_add_test(tr, test_minimal_files);
    tcase_add_test(tr, test_bad_header);
    tcase_add_test(tr, test_bad_keys_and_values);
    tcase_add_test(tr, test_duplicate_keys);
    tcase_add_test(tr, test_duplicate_tensor_names);
    tcase_add_test(tr, test_alignment);
    tcase_add_test(tr, test_alignment_must_be_u32);
    tcase_add_test(tr, test_unknown_tensor_type);
    tcase_add_test(tr, test_removed_tensor_types);
    tcase_add_test(tr, test_block_row_mismatch);
    tcase_add_test(tr, test_tensor_name_length);
    tcase_add_test(tr, test_n_dims);
    tcase_add_test(tr, test_dims_overflow);
    tcase_add_test(tr, test_overlapping_tensors);
    tcase_add_test(tr, test_empty_tensor_overlaps_nothing);
    tcase_add_test(tr, test_misaligned_offset);
    tcase_add_test(tr, test_data_beyond_eof);
    tcase_add_test(tr, test_nesting_limit);
    tcase_add_test(tr, test_force_byte_order);
    tcase_add_test(tr, test_data_offset);
    tcase_add_test(tr, test_open_path_errors);
    tcase_add_test(tr, test_no_mmap_reads_the_same);
    tcase_add_test(tr, test_big_endian_v1_v2_write_back);
    suite_add_tcase(s, tr);
    return s;
}

int main(void) {
    return tu_run_suite(parse_suite());
}
