/* Allocation failures (alloc.c, and every caller of its choke point): for each operation, make
 * allocation 1, 2, ... fail in turn until the operation makes no more allocations than that.
 * Each failing run must return GGUF_ENOMEM with a message, leave its outputs and the files it
 * works on as they were, and free what it took: LeakSanitizer (ASan builds) and valgrind (CI)
 * catch leaked memory; this program checks file descriptors and stray temporary files itself.
 *
 * The operations: opening (memory, copied memory, mapped file, read file, lenient), writing to
 * memory (as is, packed, in the other byte order), saving (plain and verified), updating in
 * place and by rewrite, linting, checksums, building a file from nothing, each edit, and two
 * tensors' values compared. */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
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

/* ---- the sweep ---- */

typedef struct ctx ctx;
/* run: the operation, started with injection armed; it calls end_injection() as soon as the
 * library call returns, then checks the result and frees it (with injection off). */
typedef int (*run_fn)(ctx *c, gguf_error *err);
typedef void (*prepare_fn)(ctx *c);

struct ctx {
    /* the fixture */
    const uint8_t *src;
    size_t src_n;
    char dir[64];        /* a private temporary directory */
    char path[128];      /* the fixture, on disk in dir */
    char out_path[128];  /* where saves go, in dir */
    unsigned flags;
    gguf_write_options opt;
    /* the reference run's results, compared with later successful runs */
    int have_ref;
    uint8_t *ref;
    size_t ref_n;
    int ref_count;
    size_t ref_kv, ref_tensors;
    uint32_t ref_crc;
    /* an edit's file, opened by prepare */
    gguf_file *f;
    /* allocations the last run made */
    long calls;
    const char *edit;    /* which edit (edit ops) */
};

static long end_injection(ctx *c) {
    c->calls = gguf_testing_alloc_calls();
    gguf_testing_fail_alloc_after(0);
    return c->calls;
}

static int count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

/* Entries in c->dir besides "." and "..": the fixture, plus whatever is left behind. */
static int dir_entries(const ctx *c) {
    DIR *d = opendir(c->dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    }
    closedir(d);
    return n;
}

static void ctx_init(ctx *c, const uint8_t *src, size_t n) {
    memset(c, 0, sizeof *c);
    c->src = src;
    c->src_n = n;
    snprintf(c->dir, sizeof c->dir, "/tmp/check_alloc.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(c->dir));
    snprintf(c->path, sizeof c->path, "%s/in.gguf", c->dir);
    snprintf(c->out_path, sizeof c->out_path, "%s/out.gguf", c->dir);
    ck_assert_int_eq(tu_write_file(c->path, src, n), 0);
    gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
    c->opt = o;
}

static void ctx_free(ctx *c) {
    free(c->ref);
    c->ref = NULL;
    unlink(c->path);
    unlink(c->out_path);
    ck_assert_msg(rmdir(c->dir) == 0, "%s: files left behind", c->dir);
}

typedef struct sweep_result {
    long allocations; /* in a run without failures */
    long failed;      /* runs refused with GGUF_ENOMEM */
    long tolerated;   /* runs that succeeded despite a failed allocation */
} sweep_result;

static sweep_result sweep(const char *name, ctx *c, prepare_fn prepare, run_fn run) {
    sweep_result r = {0, 0, 0};
    int fds = count_fds();
    int entries = dir_entries(c);
    gguf_error err;

    /* the reference run */
    c->have_ref = 0;
    if (prepare)
        prepare(c);
    gguf_error_clear(&err);
    gguf_testing_fail_alloc_after(0);
    int rc = run(c, &err);
    ck_assert_msg(rc == 0, "%s: fails without injected failures: %d %s", name, rc, err.message);
    c->have_ref = 1;
    r.allocations = c->calls;

    for (long n = 1; n <= r.allocations + 1; n++) {
        if (prepare)
            prepare(c);
        gguf_error_clear(&err);
        gguf_testing_fail_alloc_after(n);
        rc = run(c, &err);
        gguf_testing_fail_alloc_after(0); /* in case run returned early */
        if (rc == 0) {
            if (n <= r.allocations)
                r.tolerated++;
        } else {
            ck_assert_msg(rc == GGUF_ENOMEM,
                          "%s: allocation %ld of %ld failed, the call gave %d (%s): %s", name, n,
                          r.allocations, rc, gguf_strerror(rc), err.message);
            ck_assert_int_eq(err.code, rc);
            ck_assert_msg(err.message[0] != '\0', "%s: allocation %ld failed: no message", name,
                          n);
            ck_assert_msg(n <= r.allocations, "%s: failed with %ld allocations allowed", name, n);
            r.failed++;
        }
        ck_assert_msg(count_fds() == fds, "%s: allocation %ld failed: a file descriptor leaked",
                      name, n);
        ck_assert_msg(dir_entries(c) == entries, "%s: allocation %ld failed: files left behind",
                      name, n);
        if (n == r.allocations + 1)
            ck_assert_msg(rc == 0, "%s: fails with no allocation failing: %s", name, err.message);
    }
    gguf_testing_fail_alloc_after(0);
    printf("check_alloc: %-28s %3ld allocations, %3ld failures refused, %ld tolerated\n", name,
           r.allocations, r.failed, r.tolerated);
    /* every allocation point was reached: either refused or survived */
    ck_assert_int_eq(r.failed + r.tolerated, r.allocations);
    return r;
}

/* ---- fixtures ---- */

static gb sample_le, sample_be, dup_keys;

static void make_fixtures(void) {
    gb_sample(&sample_le, 3, 0);
    gb_sample(&sample_be, 3, 1);
    gb_begin(&dup_keys, 3, 0, 1, 3);
    gb_kv(&dup_keys, "k", GGUF_VTYPE_U8), gb_u8(&dup_keys, 1);
    gb_kv(&dup_keys, "k", GGUF_VTYPE_U8), gb_u8(&dup_keys, 2);
    gb_kv(&dup_keys, "s", GGUF_VTYPE_STRING), gb_str(&dup_keys, "x");
    gb_tensor(&dup_keys, "t", 1, (const uint64_t[]){8}, GGUF_DTYPE_F32, 0);
    gb_align(&dup_keys, 32);
    gb_pattern(&dup_keys, 32, 1);
}

static void free_fixtures(void) {
    gb_free(&sample_le);
    gb_free(&sample_be);
    gb_free(&dup_keys);
}

/* Reference checks shared by the open runs. */
static void check_opened(ctx *c, gguf_file *f) {
    if (!c->have_ref) {
        c->ref_kv = gguf_kv_count(f);
        c->ref_tensors = gguf_tensor_count(f);
        ck_assert_uint_gt(c->ref_kv, 0);
        ck_assert_uint_gt(c->ref_tensors, 0);
    }
    ck_assert_uint_eq(gguf_kv_count(f), c->ref_kv);
    ck_assert_uint_eq(gguf_tensor_count(f), c->ref_tensors);
    ck_assert_ptr_nonnull(gguf_tensor_data(f, 0));
}

/* Compares bytes with the reference run's (which it records). */
static void check_bytes(ctx *c, const void *p, size_t n) {
    if (!c->have_ref) {
        free(c->ref);
        c->ref = malloc(n ? n : 1);
        ck_assert_ptr_nonnull(c->ref);
        memcpy(c->ref, p, n);
        c->ref_n = n;
        return;
    }
    ck_assert_msg(n == c->ref_n && memcmp(p, c->ref, n) == 0,
                  "output differs from the run without failures");
}

/* ---- opening ---- */

static int run_open_memory(ctx *c, gguf_error *err) {
    gguf_file *f = (gguf_file *)c;
    int rc = gguf_file_open_memory(&f, c->src, c->src_n, 0, c->flags, err);
    end_injection(c);
    if (rc != 0) {
        ck_assert_ptr_eq(f, (gguf_file *)c);
        return rc;
    }
    check_opened(c, f);
    gguf_file_free(f);
    return 0;
}

static int run_open_memory_copy(ctx *c, gguf_error *err) {
    gguf_file *f = (gguf_file *)c;
    int rc = gguf_file_open_memory(&f, c->src, c->src_n, 1, c->flags, err);
    end_injection(c);
    if (rc != 0) {
        ck_assert_ptr_eq(f, (gguf_file *)c);
        return rc;
    }
    check_opened(c, f);
    gguf_file_free(f);
    return 0;
}

static int run_open_file(ctx *c, gguf_error *err) {
    gguf_file *f = (gguf_file *)c;
    int rc = gguf_file_open(&f, c->path, c->flags, err);
    end_injection(c);
    if (rc != 0) {
        ck_assert_ptr_eq(f, (gguf_file *)c);
        return rc;
    }
    check_opened(c, f);
    gguf_file_free(f);
    return 0;
}

START_TEST(test_open) {
    make_fixtures();
    static const struct {
        const gb *fx;
        unsigned flags;
        const char *name;
    } cases[] = {
        {&sample_le, 0, "sample LE"},
        {&sample_be, 0, "sample BE"},
        {&dup_keys, GGUF_OPEN_LENIENT, "duplicates, lenient"},
        {&sample_le, GGUF_OPEN_LENIENT, "sample LE, lenient"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ctx c;
        ctx_init(&c, cases[i].fx->p, cases[i].fx->len);
        c.flags = cases[i].flags;
        char name[96];
        snprintf(name, sizeof name, "open memory (%s)", cases[i].name);
        ck_assert_int_gt(sweep(name, &c, NULL, run_open_memory).failed, 0);
        snprintf(name, sizeof name, "open copy (%s)", cases[i].name);
        ck_assert_int_gt(sweep(name, &c, NULL, run_open_memory_copy).failed, 0);
        snprintf(name, sizeof name, "open mmap (%s)", cases[i].name);
        ck_assert_int_gt(sweep(name, &c, NULL, run_open_file).failed, 0);
        c.flags |= GGUF_OPEN_NO_MMAP;
        snprintf(name, sizeof name, "open read (%s)", cases[i].name);
        sweep_result r = sweep(name, &c, NULL, run_open_file);
        ck_assert_int_gt(r.failed, 0);
        ctx_free(&c);
    }
    free_fixtures();
}
END_TEST

START_TEST(test_open_corpus) {
    if (!tu_have_corpus())
        tu_skip("no ../shared/corpus");
    static const char *const files[] = {"synth/tensors_mixed.gguf", "synth/kv_all_types.gguf",
                                        "be/tensors_q4_0.be.gguf", "v1v2/v1_tensors.gguf"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t n;
        uint8_t *p = tu_read_file(tu_corpus(files[i]), &n);
        ck_assert_ptr_nonnull(p);
        ctx c;
        ctx_init(&c, p, n);
        /* kv_all_types has no tensors; check_opened wants some */
        if (strstr(files[i], "kv_all_types") == NULL) {
            ck_assert_int_gt(sweep(files[i], &c, NULL, run_open_file).failed, 0);
        } else {
            gguf_file *f = NULL;
            ck_assert_int_eq(gguf_file_open_memory(&f, p, n, 0, 0, NULL), 0);
            gguf_file_free(f);
        }
        ctx_free(&c);
        free(p);
    }
}
END_TEST

/* ---- writing ---- */

static void finish_file(ctx *c) {
    gguf_file_free(c->f);
    c->f = NULL;
}

/* prepare: open the fixture (no failures injected). */
static void prepare_open(ctx *c) {
    gguf_file_free(c->f);
    c->f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open(&c->f, c->path, c->flags, &err) == 0, "%s", err.message);
}

static int run_write_memory(ctx *c, gguf_error *err) {
    void *out = (void *)c;
    size_t n = 12345;
    int rc = gguf_file_write_memory(&out, &n, c->f, &c->opt, err);
    end_injection(c);
    if (rc != 0) {
        ck_assert_ptr_eq(out, (void *)c);
        ck_assert_uint_eq(n, 12345);
        finish_file(c);
        return rc;
    }
    check_bytes(c, out, n);
    /* and the output reads back */
    gguf_file *g = NULL;
    gguf_error e2;
    gguf_error_clear(&e2);
    ck_assert_msg(gguf_file_open_memory(&g, out, n, 0, 0, &e2) == 0, "%s", e2.message);
    ck_assert_uint_eq(gguf_kv_count(g), gguf_kv_count(c->f));
    gguf_file_free(g);
    free(out);
    finish_file(c);
    return 0;
}

static int run_save(ctx *c, gguf_error *err) {
    struct stat st;
    ck_assert_int_ne(stat(c->out_path, &st), 0); /* not there before */
    int rc = gguf_file_save(c->f, c->out_path, &c->opt, err);
    end_injection(c);
    finish_file(c);
    if (rc != 0) {
        ck_assert_msg(stat(c->out_path, &st) != 0, "a failed save left %s", c->out_path);
        return rc;
    }
    size_t n;
    uint8_t *p = tu_read_file(c->out_path, &n);
    ck_assert_ptr_nonnull(p);
    check_bytes(c, p, n);
    free(p);
    ck_assert_int_eq(unlink(c->out_path), 0);
    return 0;
}

START_TEST(test_write) {
    make_fixtures();
    static const struct {
        const gb *fx;
        int layout;
        int endian;
        unsigned threads;
        int verify;
        const char *name;
    } cases[] = {
        {&sample_le, GGUF_LAYOUT_KEEP, -1, 0, 0, "LE as is"},
        {&sample_be, GGUF_LAYOUT_KEEP, -1, 0, 0, "BE as is"},
        {&sample_le, GGUF_LAYOUT_PACKED, -1, 0, 0, "LE packed"},
        {&sample_le, GGUF_LAYOUT_KEEP, GGUF_ENDIAN_BIG, 0, 0, "LE to BE"},
        {&sample_be, GGUF_LAYOUT_KEEP, GGUF_ENDIAN_LITTLE, 2, 0, "BE to LE, 2 threads"},
        {&sample_le, GGUF_LAYOUT_KEEP, -1, 0, 1, "LE verified"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ctx c;
        ctx_init(&c, cases[i].fx->p, cases[i].fx->len);
        c.opt.layout = cases[i].layout;
        c.opt.endian = cases[i].endian;
        c.opt.threads = cases[i].threads;
        c.opt.verify = cases[i].verify;
        char name[96];
        snprintf(name, sizeof name, "write memory (%s)", cases[i].name);
        ck_assert_int_gt(sweep(name, &c, prepare_open, run_write_memory).failed, 0);
        if (i == 0)
            ck_assert(c.ref_n == c.src_n && memcmp(c.ref, c.src, c.src_n) == 0);
        snprintf(name, sizeof name, "save (%s)", cases[i].name);
        ck_assert_int_gt(sweep(name, &c, prepare_open, run_save).failed, 0);
        if (i == 0)
            ck_assert(c.ref_n == c.src_n && memcmp(c.ref, c.src, c.src_n) == 0);
        finish_file(&c);
        ctx_free(&c);
    }
    free_fixtures();
}
END_TEST

/* ---- linting and checksums ---- */

static int run_lint(ctx *c, gguf_error *err) {
    int n = gguf_file_lint(c->f, NULL, NULL, err);
    end_injection(c);
    finish_file(c);
    if (n < 0)
        return n;
    if (!c->have_ref)
        c->ref_count = n;
    ck_assert_int_eq(n, c->ref_count);
    return 0;
}

static int run_crc(ctx *c, gguf_error *err) {
    uint32_t crc = 0x12345678, h = 0x9abcdef0;
    int rc = gguf_crc_tensor(&crc, c->f, 1, err);
    if (rc == 0)
        rc = gguf_crc_header(&h, c->f, err);
    end_injection(c);
    finish_file(c);
    if (rc != 0)
        return rc;
    if (!c->have_ref)
        c->ref_crc = crc ^ h;
    ck_assert_uint_eq(crc ^ h, c->ref_crc);
    return 0;
}

/* Tensor 0 against tensor 1 on the caller's thread: every allocation is made in the same order
 * in every run (on threads, which thread grows its buffers first is up to the scheduler). */
static int run_compare(ctx *c, gguf_error *err) {
    gguf_quant_comparison cmp;
    int rc = gguf_quant_compare(&cmp, c->f, 0, c->f, 1, 1, err);
    end_injection(c);
    finish_file(c);
    if (rc != 0)
        return rc;
    if (!c->have_ref) {
        free(c->ref);
        c->ref = malloc(sizeof cmp);
        ck_assert_ptr_nonnull(c->ref);
        memcpy(c->ref, &cmp, sizeof cmp);
    }
    ck_assert(memcmp(&cmp, c->ref, sizeof cmp) == 0);
    return 0;
}

START_TEST(test_compare) {
    /* two F32 tensors of 1024 x 1025 values: two pieces of rows */
    static const uint64_t dims[2] = {1024, 1025};
    size_t bytes = 1024 * 1025 * 4;
    gb b;
    gb_begin(&b, 3, 0, 2, 0);
    gb_tensor(&b, "x", 2, dims, GGUF_DTYPE_F32, 0);
    gb_tensor(&b, "y", 2, dims, GGUF_DTYPE_F32, bytes);
    gb_align(&b, 32);
    gb_pattern(&b, bytes, 1);
    gb_pattern(&b, bytes, 2);
    ctx c;
    ctx_init(&c, b.p, b.len);
    ck_assert_int_gt(sweep("compare", &c, prepare_open, run_compare).failed, 0);
    /* on threads: the pool and the job's arrays, made before any thread starts, refused */
    for (long n = 1; n <= 5; n++) {
        prepare_open(&c);
        gguf_quant_comparison cmp = {.n = 77};
        gguf_error err;
        gguf_error_clear(&err);
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_quant_compare(&cmp, c.f, 0, c.f, 1, 4, &err);
        gguf_testing_fail_alloc_after(0);
        ck_assert_msg(rc == GGUF_ENOMEM && err.code == rc, "allocation %ld: %d", n, rc);
        ck_assert_uint_eq(cmp.n, 77);
        finish_file(&c);
    }
    ctx_free(&c);
    gb_free(&b);
}
END_TEST

START_TEST(test_lint_and_crc) {
    make_fixtures();
    ctx c;
    ctx_init(&c, sample_le.p, sample_le.len);
    sweep_result r = sweep("lint", &c, prepare_open, run_lint);
    ck_assert_int_eq(c.ref_count, 1); /* the sample's nested array */
    (void)r;
    sweep("crc", &c, prepare_open, run_crc);
    c.flags = GGUF_OPEN_NO_MMAP;
    sweep("crc (read)", &c, prepare_open, run_crc);
    finish_file(&c);
    ctx_free(&c);
    free_fixtures();
}
END_TEST

/* ---- updating a file in place ---- */

static void prepare_update(ctx *c) {
    ck_assert_int_eq(tu_write_file(c->path, c->src, c->src_n), 0); /* a fresh copy each run */
    prepare_open(c);
    gguf_error err;
    gguf_error_clear(&err);
    uint8_t v = 99; /* same size: fits in place */
    ck_assert_int_eq(gguf_kv_set_scalar(c->f, "test.u8", GGUF_VTYPE_U8, &v, &err), 0);
}

static int run_update(ctx *c, gguf_error *err) {
    gguf_update_result res;
    memset(&res, 0xAB, sizeof res);
    int rc = gguf_file_update(c->f, c->path, &c->opt, &res, err);
    end_injection(c);
    gguf_file_free(c->f);
    c->f = NULL;
    size_t n;
    uint8_t *p = tu_read_file(c->path, &n);
    ck_assert_ptr_nonnull(p);
    if (rc != 0) {
        ck_assert_msg(n == c->src_n && memcmp(p, c->src, n) == 0,
                      "a failed update changed the file");
        free(p);
        return rc;
    }
    /* the file now holds the new value */
    gguf_file *g = NULL;
    ck_assert_int_eq(gguf_file_open_memory(&g, p, n, 0, 0, NULL), 0);
    uint64_t u = 0;
    ck_assert_int_eq(gguf_value_get_u64(&u, gguf_kv_value(g, (size_t)gguf_kv_find(g, "test.u8")),
                                        NULL), 0);
    ck_assert_uint_eq(u, 99);
    gguf_file_free(g);
    check_bytes(c, p, n);
    free(p);
    return 0;
}

START_TEST(test_update) {
    make_fixtures();
    ctx c;
    ctx_init(&c, sample_le.p, sample_le.len);
    ck_assert_int_gt(sweep("update in place", &c, prepare_update, run_update).failed, 0);
    c.opt.no_in_place = 1;
    ck_assert_int_gt(sweep("update by rewrite", &c, prepare_update, run_update).failed, 0);
    finish_file(&c);
    ctx_free(&c);
    free_fixtures();
}
END_TEST

/* ---- edits: a failed edit leaves the file as it was ---- */

static int do_edit(ctx *c, gguf_error *err) {
    const char *e = c->edit;
    gguf_file *f = c->f;
    if (strcmp(e, "set_str new") == 0)
        return gguf_kv_set_str(f, "new.key", "value", 5, err);
    if (strcmp(e, "set_str existing") == 0)
        return gguf_kv_set_str(f, "general.architecture", "llama", 5, err);
    if (strcmp(e, "set_scalar") == 0) {
        uint64_t v = 1234567;
        return gguf_kv_set_scalar(f, "new.u64", GGUF_VTYPE_U64, &v, err);
    }
    if (strcmp(e, "set_array") == 0) {
        static const int16_t a[] = {1, -2, 3};
        return gguf_kv_set_array(f, "new.arr", GGUF_VTYPE_I16, a, 3, err);
    }
    if (strcmp(e, "set_str_array") == 0) {
        static const char *const s[] = {"a", "bc", ""};
        static const size_t l[] = {1, 2, 0};
        return gguf_kv_set_str_array(f, "test.arr.str", s, l, 3, err);
    }
    if (strcmp(e, "set_value") == 0)
        return gguf_kv_set_value(f, "copy.nested",
                                 gguf_kv_value(f, (size_t)gguf_kv_find(f, "test.arr.nested")),
                                 err);
    if (strcmp(e, "set_text") == 0)
        return gguf_kv_set_text(f, "new.text", GGUF_VTYPE_ARRAY, GGUF_VTYPE_COUNT,
                                "[\"x\", \"y\"]", 10, err);
    if (strcmp(e, "set alignment") == 0) {
        uint32_t a = 64;
        return gguf_kv_set_scalar(f, "general.alignment", GGUF_VTYPE_U32, &a, err);
    }
    if (strcmp(e, "rename") == 0)
        return gguf_kv_rename(f, "test.u8", "test.renamed", err);
    if (strcmp(e, "remove") == 0)
        return gguf_kv_remove(f, "test.str", err);
    if (strcmp(e, "tensor rename") == 0)
        return gguf_tensor_rename(f, "b", "b.renamed", err);
    if (strcmp(e, "tensor remove") == 0)
        return gguf_tensor_remove(f, "a", err);
    ck_abort_msg("unknown edit %s", e);
    return 0;
}

static int run_edit(ctx *c, gguf_error *err) {
    int rc = do_edit(c, err);
    end_injection(c);
    void *out = NULL;
    size_t n = 0;
    gguf_error e2;
    gguf_error_clear(&e2);
    ck_assert_msg(gguf_file_write_memory(&out, &n, c->f, &c->opt, &e2) == 0, "%s", e2.message);
    if (rc != 0) {
        ck_assert_msg(n == c->src_n && memcmp(out, c->src, n) == 0,
                      "%s: a failed edit changed the file", c->edit);
    } else {
        ck_assert_msg(n != c->src_n || memcmp(out, c->src, n) != 0, "%s: nothing changed",
                      c->edit);
        check_bytes(c, out, n);
    }
    free(out);
    gguf_file_free(c->f);
    c->f = NULL;
    return rc;
}

START_TEST(test_edits) {
    make_fixtures();
    static const char *const edits[] = {
        "set_str new", "set_str existing", "set_scalar", "set_array", "set_str_array",
        "set_value", "set_text", "set alignment", "rename", "remove", "tensor rename",
        "tensor remove",
    };
    long total_failed = 0;
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        ctx c;
        ctx_init(&c, sample_le.p, sample_le.len);
        c.edit = edits[i];
        char name[96];
        snprintf(name, sizeof name, "edit %s", edits[i]);
        total_failed += sweep(name, &c, prepare_open, run_edit).failed;
        finish_file(&c);
        ctx_free(&c);
    }
    ck_assert_int_gt(total_failed, 0);
    free_fixtures();
}
END_TEST

/* ---- building a file from nothing ---- */

static int fill_pattern(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                        gguf_error *err) {
    (void)user;
    (void)err;
    for (size_t i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = (uint8_t)(tensor * 31 + offset + i);
    return 0;
}

static int run_build(ctx *c, gguf_error *err) {
    gguf_file *f = NULL;
    void *out = NULL;
    size_t n = 0;
    int rc = gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, err);
    if (rc == 0)
        rc = gguf_kv_set_str(f, "general.architecture", "test", 4, err);
    if (rc == 0) {
        uint32_t v = 7;
        rc = gguf_kv_set_scalar(f, "test.count", GGUF_VTYPE_U32, &v, err);
    }
    if (rc == 0)
        rc = gguf_tensor_add(f, "w", GGUF_DTYPE_F32, (const uint64_t[]){8, 2}, 2, err);
    if (rc == 0)
        rc = gguf_tensor_add(f, "q", GGUF_DTYPE_Q8_0, (const uint64_t[]){64}, 1, err);
    if (rc == 0) {
        gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
        o.fill = fill_pattern;
        rc = gguf_file_write_memory(&out, &n, f, &o, err);
    }
    end_injection(c);
    gguf_file_free(f);
    if (rc != 0)
        return rc;
    check_bytes(c, out, n);
    gguf_file *g = NULL;
    ck_assert_int_eq(gguf_file_open_memory(&g, out, n, 0, 0, NULL), 0);
    ck_assert_uint_eq(gguf_tensor_count(g), 2);
    ck_assert_uint_eq(gguf_kv_count(g), 2);
    gguf_file_free(g);
    free(out);
    return 0;
}

START_TEST(test_build) {
    make_fixtures();
    ctx c;
    ctx_init(&c, sample_le.p, sample_le.len);
    ck_assert_int_gt(sweep("build from nothing", &c, NULL, run_build).failed, 0);
    ctx_free(&c);
    free_fixtures();
}
END_TEST

static Suite *alloc_suite(void) {
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("sweeps");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_open);
    tcase_add_test(tc, test_open_corpus);
    tcase_add_test(tc, test_write);
    tcase_add_test(tc, test_lint_and_crc);
    tcase_add_test(tc, test_compare);
    tcase_add_test(tc, test_update);
    tcase_add_test(tc, test_edits);
    tcase_add_test(tc, test_build);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return tu_run_suite(alloc_suite());
}
