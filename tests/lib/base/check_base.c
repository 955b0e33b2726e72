/* The base layer's utilities against independent references: the JSON writer's strings (a
 * byte-at-a-time reference implementation of the rules in base/json.c) and floats (printf's
 * "%.9g" itself, for every kind of float and millions of random ones), UTF-8 validation, the
 * hash set, the thread pool and the path helpers; the version, and errors of bounded size. */
#define _GNU_SOURCE
#include "config.h"
#include "tests/support/testutil.h"
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
        size_t wn = ref_json(want, s, n);
        for (int level = 0; level < 3; level++) { /* each writer the CPU has */
            if (gguf__json_set_level(level) != level)
                continue;
            gguf__buf b = {0};
            gguf__json_str(&b, s, n);
            if (b.failed)
                ck_abort_msg("out of memory");
            if (!(b.len == wn && memcmp(b.data, want, wn) == 0))
                ck_abort_msg("round %d, writer %d: '%.*s' != '%.*s'", round, level,
                             (int)b.len, (char *)b.data, (int)wn, want);
            gguf__buf_free(&b);
        }
        gguf__json_set_level(-1);
        ck_assert_int_eq(gguf__utf8_valid(s, n), ref_json(want, s, n) == n + 2 &&
                                                     memchr(s, 0, n) == NULL ? 1 : gguf__utf8_valid(s, n));
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
        if (!(gguf__utf8_valid(s, n) == ref))
            ck_abort_msg("round %d", round);
    }
}
END_TEST

/* ---- the SIMD string writers against the scalar one ---- */

/* The string s[0..n) (readable up to s + readable) written by every writer the CPU has, into
 * exactly the room they may use, compared with the scalar writer's bytes. Returns how many
 * SIMD writers ran. */
static int writers_agree(const uint8_t *s, size_t n, size_t readable, const char *what) {
    size_t room = 6 * n + 2 + GGUF__JSON_SLACK;
    uint8_t *want = malloc(room), *got = malloc(room);
    if (!(want != NULL && got != NULL))
        ck_abort_msg("out of memory");
    gguf__json_set_level(GGUF__JSON_SCALAR);
    size_t wn = (size_t)(gguf__json_str_at(want, s, n, s + readable) - want);
    int ran = 0;
    for (int level = GGUF__JSON_SSE2; level <= GGUF__JSON_AVX2; level++) {
        if (gguf__json_set_level(level) != level)
            continue;
        size_t gn = (size_t)(gguf__json_str_at(got, s, n, s + readable) - got);
        if (!(gn == wn && memcmp(got, want, wn) == 0))
            ck_abort_msg("%s: writer %d wrote '%.*s', the scalar one '%.*s'", what, level,
                         (int)gn, (char *)got, (int)wn, (char *)want);
        ran++;
    }
    gguf__json_set_level(-1);
    free(want);
    free(got);
    return ran;
}

/* Copies the n bytes to the end of a block of their own, so that a read past s + readable is
 * caught by the sanitizer build. */
static int writers_agree_at_end(const uint8_t *s, size_t n, size_t readable, const char *what) {
    uint8_t *copy = malloc(readable ? readable : 1);
    if (!(copy != NULL))
        ck_abort_msg("out of memory");
    memcpy(copy, s, readable);
    int ran = writers_agree(copy, n, readable, what);
    free(copy);
    return ran;
}

/* Every case by default; GGUF_TEST_SIMD_STRIDE=N tries every Nth byte value (each value still
 * in some places) and 1/N of the random rounds (CI's valgrind pass, 30-50 times slower). */
static int simd_stride(void) {
    const char *env = getenv("GGUF_TEST_SIMD_STRIDE");
    int n = env ? atoi(env) : 1;
    return n >= 1 && n <= 255 ? n : 1;
}

START_TEST(simd_writers_agree_on_every_byte_in_every_place) {
    /* blocks of 16 and 32 bytes: strings of up to three blocks plus a few bytes, with every byte
     * value in every place, in plain ASCII and in two-byte characters (one shifted by a byte),
     * ending where the string ends and inside bytes that may be read */
    static const char *const fills[] = {
        "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ+-*/=",
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
        "\xc3\xa9",
        "x\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81"
        "\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81"
        "\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81\xe2\x96\x81"
        "\xe2\x96\x81\xe2\x96\x81\xe2\x96"};
    static const size_t lens[] = {16, 31, 32, 33, 48, 64, 67};
    uint8_t s[80];
    char what[96];
    int ran = 0, stride = simd_stride();
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            size_t n = lens[l];
            for (size_t at = 0; at < n; at++) {
                for (int c = (int)(at % (size_t)stride); c < 256; c += stride) {
                    memcpy(s, fills[f], n);
                    s[at] = (uint8_t)c;
                    snprintf(what, sizeof what, "fill %zu, %zu bytes, 0x%02x at %zu", f, n, c, at);
                    ran += writers_agree_at_end(s, n, n, what);
                    ran += writers_agree(s, n, sizeof s, what);
                }
            }
        }
    }
    if (!(ran > 0 || gguf__json_set_level(-1) == GGUF__JSON_SCALAR))
        ck_abort_msg("no SIMD writer ran");
}
END_TEST

START_TEST(simd_writers_agree_on_utf8_across_block_edges) {
    /* every lead byte (and every other byte) followed by every second byte, and three- and
     * four-byte sequences with every last byte after the edge cases of the others, each
     * starting one, two and three bytes before a 16- or 32-byte boundary, the string ending
     * inside, right after, or well after the sequence */
    static const uint8_t mids[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90,
                                   0x9f, 0xa0, 0xbf, 0xc0, 0xff};
    static const size_t starts[] = {13, 14, 15, 29, 30, 31, 45, 46, 47};
    uint8_t s[96];
    char what[96];
    int ran = 0, stride = simd_stride();
    for (int b0 = 0x80; b0 < 0x100; b0++) {
        for (int b1 = b0 % stride; b1 < 0x100; b1 += stride) {
            for (size_t j = 0; j < sizeof starts / sizeof starts[0]; j++) {
                size_t at = starts[j], cut = ((size_t)b1 + j) % 6;
                size_t n = at + (cut == 5 ? 24 : cut + 1);
                memset(s, 'a', sizeof s);
                s[at] = (uint8_t)b0, s[at + 1] = (uint8_t)b1, s[at + 2] = 0x80, s[at + 3] = 0x80;
                snprintf(what, sizeof what, "%02x %02x 80 80 at %zu of %zu", b0, b1, at, n);
                ran += writers_agree(s, n, j % 2 ? n : sizeof s, what);
            }
        }
    }
    for (int b0 = 0xe0; b0 <= 0xf4; b0++) {
        for (size_t m1 = 0; m1 < sizeof mids; m1++) {
            for (size_t m2 = 0; m2 < sizeof mids; m2++) {
                for (int last = (int)((m1 + m2) % (size_t)stride); last < 0x100;
                     last += stride) {
                    size_t at = starts[(m1 + m2 + (size_t)last) % 9];
                    memset(s, 'a', sizeof s);
                    bool four = b0 >= 0xf0;
                    s[at] = (uint8_t)b0, s[at + 1] = mids[m1];
                    s[at + 2] = four ? mids[m2] : (uint8_t)last;
                    s[at + 3] = four ? (uint8_t)last : mids[m2];
                    size_t n = at + 2 + (size_t)last % 4 + (last % 7 == 0 ? 20 : 0);
                    snprintf(what, sizeof what, "%02x %02x %02x %02x at %zu of %zu", s[at],
                             s[at + 1], s[at + 2], s[at + 3], at, n);
                    ran += writers_agree(s, n, n, what);
                }
            }
        }
    }
    if (!(ran > 0 || gguf__json_set_level(-1) == GGUF__JSON_SCALAR))
        ck_abort_msg("no SIMD writer ran");
}
END_TEST

START_TEST(simd_writers_agree_on_random_strings_and_lists) {
    /* strings up to 300 bytes drawn from characters of every length, escapes and broken
     * sequences, alone and as the encoded lists of a vocabulary (ending where the block ends) */
    static const char *const pieces[] = {"a", "bc", " ", "\"", "\\", "\n", "\t", "\x01", "\x7f",
                                          "\xc4\xa0", "\xe2\x96\x81", "\xf0\x9f\x98\x80", "\xc0",
                                          "\xff", "\xed\xa0\x80", "\xe0\x80", "\xf4\x90\x80\x80",
                                          "\xe2\x82", "\x80", "abcdefghijklmnopq"};
    uint8_t s[400], list[4096];
    int rounds = 20000 / simd_stride();
    for (int round = 0; round < rounds; round++) {
        size_t target = next() % 40 + (round % 10 == 0 ? next() % 260 : 0), n = 0;
        while (n < target) {
            const char *p = pieces[next() % (sizeof pieces / sizeof pieces[0])];
            size_t k = strlen(p);
            memcpy(s + n, p, k);
            n += k;
        }
        char what[32];
        snprintf(what, sizeof what, "round %d", round);
        writers_agree_at_end(s, n, n, what);
        /* the same bytes cut into a list of strings, written at every level */
        size_t used = 0, count = 0;
        for (size_t at = 0; at < n && used + 8 + n < sizeof list; count++) {
            size_t k = next() % 12;
            if (k > n - at)
                k = n - at;
            uint64_t len = k;
            memcpy(list + used, &len, 8);
            memcpy(list + used + 8, s + at, k);
            used += 8 + k;
            at += k;
        }
        uint8_t *enc = malloc(used ? used : 1);
        if (!(enc != NULL))
            ck_abort_msg("out of memory");
        memcpy(enc, list, used);
        size_t room = used * 7 + 2 + GGUF__JSON_SLACK;
        uint8_t *want = malloc(room), *got = malloc(room);
        if (!(want != NULL && got != NULL))
            ck_abort_msg("out of memory");
        gguf__json_set_level(GGUF__JSON_SCALAR);
        bool big = false;
        const uint8_t *p = enc;
        uint64_t left = count;
        size_t wn = (size_t)(gguf__json_str_list(want, want + room - 3 - GGUF__JSON_SLACK, &p,
                                                 &left, true, true, big, enc + used) - want);
        if (!(left == 0 && p == enc + used))
            ck_abort_msg("round %d: %llu of %zu strings left", round, (unsigned long long)left,
                         count);
        for (int level = GGUF__JSON_SCALAR; level <= GGUF__JSON_AVX2; level++) {
            if (gguf__json_set_level(level) != level)
                continue;
            /* in calls with room for a few strings or none (every other one for at least one:
             * the strings are at most 11 bytes), as a caller writing in pieces calls it */
            uint8_t *o = got;
            p = enc;
            left = count;
            for (int calls = 0; left > 0; calls++) {
                size_t lim = calls % 2 ? next() % 80 : 66 + next() % 60;
                uint64_t before = left;
                uint8_t *from = o;
                o = gguf__json_str_list(o, o + lim, &p, &left, left == count, true, big,
                                        enc + used);
                if (!(calls < 2 * (int)count + 2 && left <= before))
                    ck_abort_msg("round %d: no progress", round);
                if (!((size_t)(o - from) <= lim + 3))
                    ck_abort_msg("round %d: %zu bytes written in a room of %zu", round,
                                 (size_t)(o - from), lim);
            }
            size_t gn = (size_t)(o - got);
            if (!(gn == wn && memcmp(got, want, wn) == 0))
                ck_abort_msg("round %d: a list of %zu strings at level %d", round, count, level);
        }
        gguf__json_set_level(-1);
        free(enc);
        free(want);
        free(got);
    }
}
END_TEST

START_TEST(integers_print_as_printf_prints_them) {
    char want[32];
    uint8_t got[GGUF__JSON_NUM_ROOM];
    int rounds = 200000 / simd_stride();
    for (int round = 0; round < rounds; round++) {
        uint64_t v = round < 2000 ? (uint64_t)round : next() >> (next() % 64);
        if (round % 1000 == 1)
            v = UINT64_MAX - (uint64_t)round;
        snprintf(want, sizeof want, "%llu", (unsigned long long)v);
        size_t n = (size_t)(gguf__json_u64_to(got, v) - got);
        if (!(n == strlen(want) && memcmp(got, want, n) == 0))
            ck_abort_msg("%s", want);
        int64_t i = (int64_t)v;
        snprintf(want, sizeof want, "%lld", (long long)i);
        n = (size_t)(gguf__json_i64_to(got, i) - got);
        if (!(n == strlen(want) && memcmp(got, want, n) == 0))
            ck_abort_msg("%s", want);
    }
    snprintf(want, sizeof want, "%lld", (long long)INT64_MIN);
    size_t n = (size_t)(gguf__json_i64_to(got, INT64_MIN) - got);
    if (!(n == strlen(want) && memcmp(got, want, n) == 0))
        ck_abort_msg("%s", want);
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
    /* whole numbers, printed as integers below 1e9 (scores such as -1000) */
    for (int i = -2000; i <= 2000; i++)
        check_f32((float)i);
    for (long i = 0; i < n / 6; i++)
        check_f32((float)((double)(next() % 2200000000u) - 1100000000.0));
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

/* configure's version is the header's, and the library says it. */
START_TEST(the_version_is_written_once) {
    ck_assert_str_eq(GGUF_VERSION_STRING, PACKAGE_VERSION);
    ck_assert_str_eq(gguf_version_string(), GGUF_VERSION_STRING);
    ck_assert_uint_eq(gguf_version(), GGUF_VERSION_NUMBER);
    char parts[32];
    snprintf(parts, sizeof parts, "%d.%d.%d", GGUF_VERSION_MAJOR, GGUF_VERSION_MINOR,
             GGUF_VERSION_PATCH);
    ck_assert_str_eq(parts, GGUF_VERSION_STRING);
}
END_TEST

/* A few hundred bytes, and what does not fit is cut where it says least, visibly. */
START_TEST(errors_too_long_keep_their_reason) {
    ck_assert_uint_le(sizeof(gguf_error), 512);
    gguf_error err;
    char name[600];
    memset(name, 'k', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    /* one message too long: cut at its end, with "..." */
    gguf_error_clear(&err);
    gguf__fail(&err, GGUF_EINVAL, 5, "key '%s' is bad", name);
    ck_assert_uint_eq(strlen(err.message), GGUF_ERROR_MESSAGE_MAX - 1);
    ck_assert_str_eq(err.message + GGUF_ERROR_MESSAGE_MAX - 4, "...");
    /* context around a reason: the context is cut, the reason stays whole */
    const char *why = "arrays nested deeper than 64 levels at byte 857";
    gguf_error_clear(&err);
    gguf__fail(&err, GGUF_ELIMIT, 857, "%s", why);
    gguf__wrap(&err, GGUF_ELIMIT, "key 'test.deep'%.300s", name);
    size_t n = strlen(err.message);
    ck_assert_uint_eq(n, GGUF_ERROR_MESSAGE_MAX - 1);
    ck_assert(strncmp(err.message, "key 'test.deep'kkk", 18) == 0);
    ck_assert_str_eq(err.message + n - strlen(why) - 5,
                     "...: arrays nested deeper than 64 levels at byte 857");
    ck_assert_int_eq(err.code, GGUF_ELIMIT);
    ck_assert_uint_eq(err.offset, 857);
    /* what fits is joined as it is */
    gguf_error_clear(&err);
    gguf__fail(&err, GGUF_ELIMIT, 857, "%s", why);
    gguf__wrap(&err, GGUF_EINVAL, "element %d", 3);
    ck_assert_str_eq(err.message, "element 3: arrays nested deeper than 64 levels at byte 857");
    /* a path too long keeps its end, which names the file */
    char path[400];
    memset(path, 'd', sizeof path);
    memcpy(path + sizeof path - 12, "/model.gguf", 12);
    gguf__fail_path(&err, path);
    ck_assert_uint_eq(strlen(err.path), GGUF_ERROR_PATH_MAX - 1);
    ck_assert(strncmp(err.path, "...ddd", 6) == 0);
    ck_assert_str_eq(err.path + strlen(err.path) - 11, "/model.gguf");
}
END_TEST

int main(void) {
    Suite *s = suite_create("base");
    TCase *tc = tcase_create("base");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, json_strings_match_the_reference);
    tcase_add_test(tc, utf8_validation_matches_the_reference);
    tcase_add_test(tc, simd_writers_agree_on_every_byte_in_every_place);
    tcase_add_test(tc, simd_writers_agree_on_utf8_across_block_edges);
    tcase_add_test(tc, simd_writers_agree_on_random_strings_and_lists);
    tcase_add_test(tc, integers_print_as_printf_prints_them);
    tcase_add_test(tc, floats_print_as_printf_prints_them);
    tcase_add_test(tc, the_hash_set_finds_what_it_holds);
    tcase_add_test(tc, the_pool_runs_every_task_once);
    tcase_add_test(tc, paths_beside_a_file);
    tcase_add_test(tc, sha256_matches_the_standards_examples);
    tcase_add_test(tc, the_version_is_written_once);
    tcase_add_test(tc, errors_too_long_keep_their_reason);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
