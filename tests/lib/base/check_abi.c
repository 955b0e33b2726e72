/* The options structs grow without breaking programs built against an older header: a
 * program compiled with the older layouts of tests/lib/base/abi_older_options.h (and passing their
 * sizes) runs correctly against this library, which reads only the bytes the size covers (a
 * read past them faults: each struct sits at the end of a page whose next page is unmapped)
 * and takes the defaults for the rest; a program built against a newer header passes a larger
 * size, served while its unknown fields are 0 and refused, naming the struct, when one is set;
 * and a size no struct has is refused. Links the shared library, as such a program would. */
#define _GNU_SOURCE
#include "abi_older_options.h"
#include "tests/support/testutil.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Each older layout ends where the struct's later fields begin (the rule for adding one). */
_Static_assert(offsetof(gguf_open_options, deadline_s) >= sizeof(older_open_options), "");
_Static_assert(offsetof(gguf_write_options, reserve) >= sizeof(older_write_options), "");
_Static_assert(offsetof(gguf_split_options, fill) >= sizeof(older_split_options), "");
_Static_assert(offsetof(gguf_catalog_index_options, jobs) >= sizeof(older_catalog_index_options),
               "");
_Static_assert(offsetof(gguf_requant_options, prune_layers) >= sizeof(older_requant_options), "");
_Static_assert(offsetof(gguf_llama_estimate_params, kv_unified) >=
                   sizeof(older_llama_estimate_params),
               "");

#define GOLDEN "golden/hand/le_v3_two_tensors.gguf"

/* A copy of n bytes (a multiple of 8) that ends where an unmapped page begins. */
static void *at_page_end(const void *src, size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(p != MAP_FAILED);
    ck_assert(mprotect(p + page, page, PROT_NONE) == 0);
    memcpy(p + page - n, src, n);
    return p + page - n;
}

static void page_free(void *at, size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap((uint8_t *)at + n - page, 2 * page);
}

static gguf_file *open_golden(void) {
    gguf_file *f;
    ck_assert(gguf_file_open(&f, tu_src(GOLDEN), 0, NULL) == 0);
    return f;
}

static int zero_fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                     gguf_error *err) {
    (void)user, (void)tensor, (void)offset, (void)err;
    memset(buf, 0, len);
    return 0;
}

static void set_u32(gguf_file *f, const char *key, uint32_t v) {
    ck_assert(gguf_kv_set_scalar(f, key, GGUF_VTYPE_U32, &v, NULL) == 0);
}

static void add(gguf_file *f, const char *name, uint64_t d0, uint64_t d1) {
    uint64_t dims[2] = {d0, d1};
    ck_assert(gguf_tensor_add(f, name, GGUF_DTYPE_F32, dims, d1 ? 2 : 1, NULL) == 0);
}

/* A one-layer llama model, read back from its bytes. */
static gguf_file *tiny_llama(void) {
    gguf_file *f, *g;
    ck_assert(gguf_file_new(&f, 3, GGUF_ENDIAN_LITTLE, NULL) == 0);
    ck_assert(gguf_kv_set_str(f, "general.architecture", "llama", 5, NULL) == 0);
    set_u32(f, "llama.context_length", 256);
    set_u32(f, "llama.embedding_length", 64);
    set_u32(f, "llama.block_count", 1);
    set_u32(f, "llama.feed_forward_length", 128);
    set_u32(f, "llama.attention.head_count", 4);
    set_u32(f, "llama.attention.head_count_kv", 2);
    float eps = 1e-5f;
    ck_assert(gguf_kv_set_scalar(f, "llama.attention.layer_norm_rms_epsilon", GGUF_VTYPE_F32,
                                 &eps, NULL) == 0);
    add(f, "token_embd.weight", 64, 32);
    add(f, "output_norm.weight", 64, 0);
    add(f, "output.weight", 64, 32);
    add(f, "blk.0.attn_norm.weight", 64, 0);
    add(f, "blk.0.attn_q.weight", 64, 64);
    add(f, "blk.0.attn_k.weight", 64, 32);
    add(f, "blk.0.attn_v.weight", 64, 32);
    add(f, "blk.0.attn_output.weight", 64, 64);
    add(f, "blk.0.ffn_norm.weight", 64, 0);
    add(f, "blk.0.ffn_gate.weight", 64, 128);
    add(f, "blk.0.ffn_up.weight", 64, 128);
    add(f, "blk.0.ffn_down.weight", 128, 64);
    gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
    w.layout = GGUF_LAYOUT_PACKED;
    w.fill = zero_fill;
    void *bytes;
    size_t n;
    ck_assert(gguf_file_write_memory(&bytes, &n, f, &w, NULL) == 0);
    gguf_file_free(f);
    ck_assert(gguf_file_open_memory(&g, bytes, n, 1, 0, NULL) == 0);
    free(bytes);
    return g;
}

/* ---- a program built against an older header ---- */

START_TEST(older_open_options_open_files) {
    older_open_options o = {.size = sizeof o, .flags = GGUF_OPEN_NO_MMAP};
    const gguf_open_options *g = at_page_end(&o, sizeof o);
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open_ex(&f, tu_src(GOLDEN), g, &err) == 0, "%s", err.message);
    ck_assert_uint_eq(gguf_tensor_count(f), 2);
    gguf_file_free(f);
    int fd = open(tu_src(GOLDEN), O_RDONLY);
    ck_assert(fd >= 0);
    ck_assert_msg(gguf_file_open_fd(&f, fd, NULL, g, &err) == 0, "%s", err.message);
    ck_assert_uint_eq(gguf_tensor_count(f), 2);
    gguf_file_free(f);
    close(fd);
    page_free((void *)g, sizeof o);
}
END_TEST

START_TEST(older_write_options_write_as_before) {
    gguf_file *f = open_golden();
    older_write_options o = {.size = sizeof o, .endian = GGUF_ENDIAN_BIG};
    const gguf_write_options *g = at_page_end(&o, sizeof o);
    gguf_write_options now = GGUF_WRITE_OPTIONS_INIT;
    now.endian = GGUF_ENDIAN_BIG;
    void *a, *b;
    size_t na, nb;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_write_memory(&a, &na, f, g, &err) == 0, "%s", err.message);
    ck_assert(gguf_file_write_memory(&b, &nb, f, &now, NULL) == 0);
    ck_assert(na == nb && memcmp(a, b, na) == 0);
    gguf_file *back;
    ck_assert(gguf_file_open_memory(&back, a, na, 0, 0, NULL) == 0);
    ck_assert_int_eq(gguf_file_endian(back), GGUF_ENDIAN_BIG);
    ck_assert_int_lt(gguf_kv_find(back, GGUF_PADDING_KEY), 0); /* reserve: its default, 0 */
    gguf_file_free(back);
    free(a);
    free(b);
    page_free((void *)g, sizeof o);
    gguf_file_free(f);
}
END_TEST

START_TEST(older_split_options_plan_as_before) {
    gguf_file *f = open_golden();
    older_split_options o = {.size = sizeof o, .mode = GGUF_SPLIT_BY_TENSORS, .max_tensors = 1};
    const gguf_split_options *g = at_page_end(&o, sizeof o);
    uint32_t shard_of[2], n = 0;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_split_plan(shard_of, &n, f, g, &err) == 0, "%s", err.message);
    ck_assert_uint_eq(n, 2);
    ck_assert(shard_of[0] == 0 && shard_of[1] == 1);
    page_free((void *)g, sizeof o);
    gguf_file_free(f);
}
END_TEST

START_TEST(older_catalog_index_options_index) {
    if (!gguf_catalog_available())
        tu_skip("the catalog is not built (no SQLite)");
    char dir[] = "/tmp/check_abi.XXXXXX", db[64];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(db, sizeof db, "%s/c.db", dir);
    gguf_catalog *cat;
    ck_assert(gguf_catalog_open(&cat, db, 0, NULL) == 0);
    older_catalog_index_options o = {.size = sizeof o, .array_max = 1024};
    const gguf_catalog_index_options *g = at_page_end(&o, sizeof o);
    const char *paths[] = {tu_src(GOLDEN)};
    gguf_catalog_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_catalog_index(&st, cat, paths, 1, g, &err) == 0, "%s", err.message);
    ck_assert_uint_eq(st.indexed, 1);
    gguf_catalog_close(cat);
    page_free((void *)g, sizeof o);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert(system(cmd) == 0);
}
END_TEST

START_TEST(older_requant_options_plan_as_before) {
    gguf_file *f = tiny_llama();
    older_requant_options o = {.size = sizeof o, .ftype = GGUF_REQUANT_Q8_0, .output_type = -1,
                               .token_embd_type = -1, .threads = 1};
    const gguf_requant_options *g = at_page_end(&o, sizeof o);
    gguf_requant_options now = GGUF_REQUANT_OPTIONS_INIT;
    size_t n = gguf_tensor_count(f);
    gguf_requant_choice *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_msg(gguf_requant_plan(a, f, g, &err) == 0, "%s", err.message);
    ck_assert(gguf_requant_plan(b, f, &now, NULL) == 0);
    ck_assert(memcmp(a, b, n * sizeof *a) == 0);
    int converted = 0;
    for (size_t i = 0; i < n; i++)
        converted += a[i].convert && a[i].type == GGUF_DTYPE_Q8_0 && !a[i].pruned;
    ck_assert_int_gt(converted, 0);
    free(a);
    free(b);
    page_free((void *)g, sizeof o);
    gguf_file_free(f);
}
END_TEST

START_TEST(older_estimate_params_get_defaults_and_estimate) {
    older_llama_estimate_params o = {.size = sizeof o};
    gguf_llama_estimate_params *g = at_page_end(&o, sizeof o);
    gguf_error err;
    gguf_error_clear(&err);
    /* writes the 40 bytes the older struct has, and no more (the next page would fault) */
    ck_assert_msg(gguf_llama_estimate_defaults(g, &err) == 0, "%s", err.message);
    const older_llama_estimate_params *p = (const void *)g;
    ck_assert(p->size == sizeof o && p->type_k == GGUF_DTYPE_F16 && p->n_seq == 4 &&
              p->n_batch == 2048 && p->n_ubatch == 512 &&
              p->flash_attn == GGUF_LLAMA_FLASH_ATTN_AUTO);
    gguf_file *f = tiny_llama();
    gguf_llama_estimate *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ck_assert_msg(gguf_llama_estimate_run(a, f, g, &err) == 0, "%s", err.message);
    ck_assert(gguf_llama_estimate_run(b, f, NULL, NULL) == 0);
    ck_assert_int_eq(a->params.kv_unified, 1); /* not in the older struct: its default */
    ck_assert(a->total > 0 && a->total == b->total && a->context == b->context);
    free(a);
    free(b);
    gguf_file_free(f);
    page_free(g, sizeof o);
}
END_TEST

/* ---- every options struct, through one of its functions ---- */

typedef struct kind {
    const char *name;
    size_t size;
    const void *init; /* the struct's _INIT */
    int (*call)(const void *opt, gguf_error *err);
} kind;

static gguf_file *golden, *model;
static gguf_catalog *cat;
static char cat_dir[32];

static int call_open(const void *opt, gguf_error *err) {
    gguf_file *f;
    int rc = gguf_file_open_ex(&f, tu_src(GOLDEN), opt, err);
    if (rc == 0)
        gguf_file_free(f);
    return rc;
}

static int call_write(const void *opt, gguf_error *err) {
    void *out = NULL;
    size_t n;
    int rc = gguf_file_write_memory(&out, &n, golden, opt, err);
    free(out);
    return rc;
}

static int call_split(const void *opt, gguf_error *err) {
    uint32_t shard_of[2], n;
    return gguf_split_plan(shard_of, &n, golden, opt, err);
}

static int call_index(const void *opt, gguf_error *err) {
    const char *paths[] = {tu_src(GOLDEN)};
    return gguf_catalog_index(NULL, cat, paths, 1, opt, err);
}

static int call_requant(const void *opt, gguf_error *err) {
    gguf_requant_choice ch[16];
    ck_assert(gguf_tensor_count(model) <= 16);
    return gguf_requant_plan(ch, model, opt, err);
}

static int call_estimate(const void *opt, gguf_error *err) {
    static gguf_llama_estimate e;
    return gguf_llama_estimate_run(&e, model, opt, err);
}

static const gguf_open_options open_init = GGUF_OPEN_OPTIONS_INIT;
static const gguf_write_options write_init = GGUF_WRITE_OPTIONS_INIT;
static const gguf_split_options split_init = GGUF_SPLIT_OPTIONS_INIT;
static const gguf_catalog_index_options index_init = GGUF_CATALOG_INDEX_OPTIONS_INIT;
static const gguf_requant_options requant_init = GGUF_REQUANT_OPTIONS_INIT;
static const gguf_llama_estimate_params estimate_init = GGUF_LLAMA_ESTIMATE_PARAMS_INIT;

static const kind kinds[] = {
    {"gguf_open_options", sizeof open_init, &open_init, call_open},
    {"gguf_write_options", sizeof write_init, &write_init, call_write},
    {"gguf_split_options", sizeof split_init, &split_init, call_split},
    {"gguf_catalog_index_options", sizeof index_init, &index_init, call_index},
    {"gguf_requant_options", sizeof requant_init, &requant_init, call_requant},
    {"gguf_llama_estimate_params", sizeof estimate_init, &estimate_init, call_estimate},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

static void fixtures(void) {
    golden = open_golden();
    model = tiny_llama();
    cat = NULL;
    if (gguf_catalog_available()) {
        strcpy(cat_dir, "/tmp/check_abi.XXXXXX");
        ck_assert(mkdtemp(cat_dir) != NULL);
        char db[64];
        snprintf(db, sizeof db, "%s/c.db", cat_dir);
        ck_assert(gguf_catalog_open(&cat, db, 0, NULL) == 0);
    }
}

static void fixtures_free(void) {
    gguf_file_free(golden);
    gguf_file_free(model);
    if (cat != NULL) {
        gguf_catalog_close(cat);
        char cmd[64];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", cat_dir);
        ck_assert(system(cmd) == 0);
    }
}

/* The struct of a newer header: this one and 16 more bytes, size set to match. */
static uint64_t *newer(const kind *k) {
    uint64_t *buf = calloc(1, k->size + 16);
    memcpy(buf, k->init, k->size);
    size_t size = k->size + 16;
    memcpy(buf, &size, sizeof size);
    return buf;
}

START_TEST(newer_callers_served_while_unknown_fields_are_zero) {
    fixtures();
    const kind *k = &kinds[_i];
    if (k->call == call_index && cat == NULL) {
        fixtures_free();
        tu_skip_iter(_i, "the catalog is not built (no SQLite)");
    }
    gguf_error err;
    gguf_error_clear(&err);
    int want = k->call(k->init, &err); /* what this header's caller gets */
    ck_assert_msg(want == 0 || k->call == call_estimate, "%s: %s", k->name, err.message);
    uint64_t *buf = newer(k);
    gguf_error_clear(&err);
    ck_assert_msg(k->call(buf, &err) == want, "%s: %s", k->name, err.message);
    /* a field this library does not know, set */
    ((uint8_t *)buf)[k->size + 3] = 1;
    gguf_error_clear(&err);
    ck_assert_int_eq(k->call(buf, &err), GGUF_EUNSUPPORTED);
    char byte[32];
    snprintf(byte, sizeof byte, "sets byte %zu", k->size + 3);
    ck_assert_msg(strstr(err.message, k->name) != NULL && strstr(err.message, byte) != NULL,
                  "%s", err.message);
    free(buf);
    fixtures_free();
}
END_TEST

START_TEST(sizes_no_struct_has_are_refused) {
    fixtures();
    const kind *k = &kinds[_i];
    if (k->call == call_index && cat == NULL) {
        fixtures_free();
        tu_skip_iter(_i, "the catalog is not built (no SQLite)");
    }
    uint64_t *buf = newer(k);
    const size_t bad[] = {0, sizeof(size_t) - 1, GGUF_OPTIONS_SIZE_MAX + 1, SIZE_MAX};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        memcpy(buf, &bad[b], sizeof bad[b]);
        gguf_error err;
        gguf_error_clear(&err);
        ck_assert_int_eq(k->call(buf, &err), GGUF_EINVAL);
        ck_assert_msg(strstr(err.message, k->name) != NULL && strstr(err.message, "_INIT") != NULL,
                      "%s", err.message);
    }
    free(buf);
    fixtures_free();
}
END_TEST

/* A failed call leaves its outputs as they were. */
START_TEST(refused_options_change_nothing) {
    gguf_file *f = open_golden();
    uint64_t *buf = newer(&kinds[1]);
    ((uint8_t *)buf)[kinds[1].size] = 1;
    void *out = (void *)buf;
    size_t n = 7;
    ck_assert_int_eq(gguf_file_write_memory(&out, &n, f, (const void *)buf, NULL),
                     GGUF_EUNSUPPORTED);
    ck_assert(out == (void *)buf && n == 7);
    free(buf);
    gguf_file_free(f);
}
END_TEST

static Suite *abi_suite(void) {
    Suite *s = suite_create("abi");
    TCase *tc = tcase_create("abi");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, older_open_options_open_files);
    tcase_add_test(tc, older_write_options_write_as_before);
    tcase_add_test(tc, older_split_options_plan_as_before);
    tcase_add_test(tc, older_catalog_index_options_index);
    tcase_add_test(tc, older_requant_options_plan_as_before);
    tcase_add_test(tc, older_estimate_params_get_defaults_and_estimate);
    tcase_add_loop_test(tc, newer_callers_served_while_unknown_fields_are_zero, 0, (int)N_KINDS);
    tcase_add_loop_test(tc, sizes_no_struct_has_are_refused, 0, (int)N_KINDS);
    tcase_add_test(tc, refused_options_change_nothing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return tu_run_suite(abi_suite());
}
