/* The base layer's utilities against independent references: the JSON writer's strings (a
 * byte-at-a-time reference implementation of the rules in base/json.c) and floats (printf's
 * "%.9g" itself, for every kind of float and millions of random ones), UTF-8 validation, the
 * hash set, the thread pool and the path helpers. */
#define _GNU_SOURCE
#include "testutil.h"
#include "libgguf/base/base.h"

#include <check.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The reference: one byte at a time, by the rules the writer documents. */
static size_t ref_utf8_len(const uint8_t *s, size_t n) {
    uint32_t cp;
    size_t len;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2, cp = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3, cp = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4, cp = s[0] & 0x07;
    else
        return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

static size_t ref_json(char *out, const uint8_t *s, size_t n) {
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n;) {
        uint8_t c = s[i];
        const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f" : NULL;
        if (esc) {
            o += (size_t)sprintf(out + o, "%s", esc);
            i++;
        } else if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
            i++;
        } else {
            size_t len = c >= 0x80 ? ref_utf8_len(s + i, n - i) : 0;
            if (len == 0) {
                o += (size_t)sprintf(out + o, "\\u%04x", c);
                i++;
            } else {
                memcpy(out + o, s + i, len);
                o += len;
                i += len;
            }
        }
    }
    out[o++] = '"';
    return o;
}

START_TEST(json_strings_match_the_reference) {
    static const uint8_t alphabet[] = "ab\"\\\n\t\x01\x7f\xc4\xa0\xe2\x82\xac\xf0\x9f\x98\x80\xc0\xff\xed\xa0\x80 .";
    uint8_t s[300];
    char want[300 * 6 + 3];
    for (int round = 0; round < 200000; round++) {
        size_t n = next() % 40 + (round % 50 == 0 ? next() % 250 : 0);
        for (size_t i = 0; i < n; i++)
            s[i] = round % 3 == 0 ? (uint8_t)next() : alphabet[next() % (sizeof alphabet - 1)];
        gguf__buf b = {0};
        gguf__json_str(&b, s, n);
        size_t wn = ref_json(want, s, n);
        ck_assert(!b.failed);
        ck_assert_msg(b.len == wn && memcmp(b.data, want, wn) == 0,
                      "round %d: '%.*s' != '%.*s'", round, (int)b.len, (char *)b.data, (int)wn,
                      want);
        ck_assert_int_eq(gguf__utf8_valid(s, n), ref_json(want, s, n) == n + 2 &&
                                                     memchr(s, 0, n) == NULL ? 1 : gguf__utf8_valid(s, n));
        gguf__buf_free(&b);
    }
}
END_TEST

START_TEST(utf8_validation_matches_the_reference) {
    uint8_t s[64];
    for (int round = 0; round < 200000; round++) {
        size_t n = next() % 64;
        for (size_t i = 0; i < n; i++)
            s[i] = round % 2 ? (uint8_t)next() : (uint8_t)(0x80 | (next() & 0x7f));
        bool ref = true;
        for (size_t i = 0; i < n;) {
            size_t l = ref_utf8_len(s + i, n - i);
            if (l == 0) {
                ref = false;
                break;
            }
            i += l;
        }
        ck_assert_msg(gguf__utf8_valid(s, n) == ref, "round %d", round);
    }
}
END_TEST

static void check_f32(float f) {
    char want[64];
    if (isnan(f))
        snprintf(want, sizeof want, "\"nan\"");
    else if (isinf(f))
        snprintf(want, sizeof want, f > 0 ? "\"inf\"" : "\"-inf\"");
    else
        snprintf(want, sizeof want, "%.9g", (double)f);
    gguf__buf b = {0};
    gguf__json_f32(&b, f);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    ck_assert_msg(b.len == strlen(want) && memcmp(b.data, want, b.len) == 0,
                  "float %08x: '%.*s', printf says '%s'", bits, (int)b.len, (char *)b.data, want);
    gguf__buf_free(&b);
}

START_TEST(floats_print_as_printf_prints_them) {
    /* the edges of the fast range, powers of ten and their neighbours, ties */
    for (int e = -45; e <= 39; e++) {
        float p = (float)pow(10, e);
        check_f32(p);
        check_f32(-p);
        check_f32(nextafterf(p, 0));
        check_f32(nextafterf(p, INFINITY));
    }
    float specials[] = {0.0f, -0.0f, 1e-4f, 9.99999975e-05f, 1e8f, 99999992.0f, 0.5f, 1.5f,
                        123456789.0f, 1.00000012f, 0.1f, 9.99999975e-06f, -1000.0f,
                        16777216.0f, 16777215.0f, 3.40282347e38f, 1.17549435e-38f, 1e-45f,
                        NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        check_f32(specials[i]);
    /* every exponent, random mantissas, and the range vocabularies use, densely: 600,000 floats
     * (a second of work at most, far inside the test's time limit however loaded the machine
     * is); GGUF_TEST_FLOATS=N draws N, two thirds random bits and a third in that range */
    const char *env = getenv("GGUF_TEST_FLOATS");
    long n = env != NULL && atol(env) > 0 ? atol(env) : 600000;
    for (long i = 0; i < n / 3 * 2; i++) {
        uint32_t bits = (uint32_t)next();
        float f;
        memcpy(&f, &bits, 4);
        check_f32(f);
    }
    for (long i = 0; i < n / 3; i++)
        check_f32((float)((double)(next() % 200000000) / 1000.0 - 100000.0));
}
END_TEST

static const void *str_key(const void *ctx, size_t i, size_t *n) {
    const char *const *keys = ctx;
    *n = strlen(keys[i]);
    return keys[i];
}

START_TEST(the_hash_set_finds_what_it_holds) {
    enum { N = 20000 };
    static char storage[N][16];
    static const char *keys[N];
    for (int i = 0; i < N; i++) {
        snprintf(storage[i], sizeof storage[i], "k%d", i % (N - 100)); /* 100 duplicates */
        keys[i] = storage[i];
    }
    gguf__hashset set;
    ck_assert_int_eq(gguf__hashset_init(&set, 4), 0); /* it grows */
    int dups = 0;
    for (int i = 0; i < N; i++) {
        int64_t r = gguf__hashset_insert(&set, (uint32_t)i, str_key, keys);
        ck_assert(r != -2);
        if (r >= 0) {
            ck_assert_int_eq(r, i - (N - 100));
            dups++;
        }
    }
    ck_assert_int_eq(dups, 100);
    for (int i = 0; i < N - 100; i++)
        ck_assert_int_eq(gguf__hashset_find(&set, keys[i], strlen(keys[i]), str_key, keys), i);
    ck_assert_int_eq(gguf__hashset_find(&set, "absent", 6, str_key, keys), -1);
    gguf__hashset_free(&set);
    ck_assert_int_eq(gguf__hashset_find(&set, "k1", 2, str_key, keys), -1);
}
END_TEST

typedef struct pool_job {
    atomic_int counts[1000];
    atomic_uint workers_seen;
} pool_job;

static void pool_task(void *ctx, size_t task, unsigned worker) {
    pool_job *j = ctx;
    atomic_fetch_add(&j->counts[task], 1);
    atomic_fetch_or(&j->workers_seen, 1u << worker);
}

START_TEST(the_pool_runs_every_task_once) {
    for (unsigned threads = 0; threads <= 4; threads++) {
        gguf__pool *p;
        ck_assert_int_eq(gguf__pool_new(&p, threads), 0);
        ck_assert_uint_eq(gguf__pool_threads(p), threads < 1 ? 1 : threads);
        for (int batch = 0; batch < 50; batch++) {
            pool_job j;
            memset(&j, 0, sizeof j);
            size_t n = (size_t)(batch * 20);
            gguf__pool_run(p, n, pool_task, &j);
            for (size_t t = 0; t < 1000; t++)
                ck_assert_int_eq(atomic_load(&j.counts[t]), t < n ? 1 : 0);
        }
        gguf__pool_free(p);
    }
    pool_job j;
    memset(&j, 0, sizeof j);
    gguf__pool_run(NULL, 10, pool_task, &j); /* no pool: the caller's thread */
    ck_assert_uint_eq(atomic_load(&j.workers_seen), 1u);
}
END_TEST

START_TEST(paths_beside_a_file) {
    struct {
        const char *path, *dir, *beside;
    } cases[] = {
        {"m.gguf", ".", "./.m.gguf.x"},
        {"/m.gguf", "/", "/.m.gguf.x"},
        {"a/b/m.gguf", "a/b", "a/b/.m.gguf.x"},
        {"/a//b/m.gguf", "/a//b", "/a//b/.m.gguf.x"},
        {"a/m.gguf/", "a", "a/.m.gguf.x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *d = gguf__path_dir(cases[i].path), *b = gguf__path_beside(cases[i].path, ".", ".x");
        ck_assert_str_eq(d, cases[i].dir);
        ck_assert_str_eq(b, cases[i].beside);
        gguf__free(d);
        gguf__free(b);
    }
}
END_TEST

/* FIPS 180-4's examples, and the same bytes fed in every split (blocks crossed at each byte) */
static void sha256_hex(char hex[65], const uint8_t d[32]) {
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

START_TEST(sha256_matches_the_standards_examples) {
    static const struct {
        const char *text;
        size_t repeat;
        const char *hex;
    } cases[] = {
        {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gguf__sha256 s;
        uint8_t d[32];
        char hex[65];
        gguf__sha256_init(&s);
        for (size_t r = 0; r < cases[c].repeat; r++)
            gguf__sha256_update(&s, cases[c].text, strlen(cases[c].text));
        gguf__sha256_final(d, &s);
        sha256_hex(hex, d);
        ck_assert_str_eq(hex, cases[c].hex);
    }
    /* 200 bytes in two parts, split at every place: one digest */
    uint8_t msg[200], whole[32], parts[32];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 7 + 3);
    gguf__sha256 s;
    gguf__sha256_init(&s);
    gguf__sha256_update(&s, msg, sizeof msg);
    gguf__sha256_final(whole, &s);
    for (size_t cut = 0; cut <= sizeof msg; cut++) {
        gguf__sha256_init(&s);
        gguf__sha256_update(&s, msg, cut);
        gguf__sha256_update(&s, msg + cut, sizeof msg - cut);
        gguf__sha256_final(parts, &s);
        ck_assert_mem_eq(parts, whole, 32);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("base");
    TCase *tc = tcase_create("base");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, json_strings_match_the_reference);
    tcase_add_test(tc, utf8_validation_matches_the_reference);
    tcase_add_test(tc, floats_print_as_printf_prints_them);
    tcase_add_test(tc, the_hash_set_finds_what_it_holds);
    tcase_add_test(tc, the_pool_runs_every_task_once);
    tcase_add_test(tc, paths_beside_a_file);
    tcase_add_test(tc, sha256_matches_the_standards_examples);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
