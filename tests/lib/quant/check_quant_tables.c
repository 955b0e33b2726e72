/* Check suite of the i-quant and FP4 tables (libgguf/quant/iq_tables.h).
 *
 *  - grids: each grid's codes are strictly increasing, use only the levels its type has, and
 *    expand (coordinate j = byte j, little-endian) to exactly ggml's table: the FNV-1a 64
 *    checksums below were computed from ggml-common.h by libgguf/quant/gen/iq_grids.py
 *    --checksums, independently of our code. Every expanded byte is one of the grid's values.
 *  - values: IQ4_NL's levels (stored), E2M1 (built from the format rule in fp4.c) against the
 *    OCP MX definition decoded here, the IQ sign patterns (built from parity) against ggml's
 *    ksigns table by checksum and by rule.
 *  - search: the candidate lists built on first use equal, list for list, what ggml's
 *    iq2xs_init_impl/iq3xs_init_impl compute: a full sort of (distance, index) pairs, done
 *    here the slow way, for every code a quantizer can produce. Several threads asking for
 *    the tables at once get the same, complete tables.
 *  - quirks: ggml behaviours our kernels must copy that the golden vectors do not exercise
 *    (IQ3_S shifts the data of the sub-blocks after an all-zero one).
 * Nothing outside the build tree is read.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>

#include "libgguf/quant/iq_tables.h"
#include "libgguf/quant/quant.h"
#include "tests/support/testutil.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 0xCBF29CE484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3u;
    return h;
}

/* ------------------------------------------------------------------------------------------ */
/* Grids                                                                                       */

struct grid_case {
    const char *name;
    enum gguf__iq_grid grid;
    const uint16_t *codes;
    int n;
    int bits;                 /* per coordinate */
    int (*value)(unsigned l); /* level -> stored byte value (as a signed int) */
    unsigned nlevels;         /* levels the type uses: 3, or 8 */
    uint64_t ggml_fnv;        /* of ggml's expanded table */
};

static int iq2_value(unsigned l) { return gguf__iq2_value(l); }
static int iq1_value(unsigned l) { return gguf__iq1_value(l); }
static int iq3xxs_value(unsigned l) { return gguf__iq3xxs_value(l); }
static int iq3s_value(unsigned l) { return gguf__iq3s_value(l); }

static const struct grid_case grids[] = {
    {"iq2xxs", GGUF__IQ_GRID_IQ2XXS, gguf__iq2xxs_codes, 256, 2, iq2_value, 3,
     0xBB4EE025B5AC6E8Eu},
    {"iq2xs", GGUF__IQ_GRID_IQ2XS, gguf__iq2xs_codes, 512, 2, iq2_value, 3, 0xC9B1EE61E79909BDu},
    {"iq2s", GGUF__IQ_GRID_IQ2S, gguf__iq2s_codes, 1024, 2, iq2_value, 3, 0x123EDD38A3B62B90u},
    {"iq1s", GGUF__IQ_GRID_IQ1S, gguf__iq1s_codes, 2048, 2, iq1_value, 3, 0x6703ED863501AE2Eu},
    {"iq3xxs", GGUF__IQ_GRID_IQ3XXS, gguf__iq3xxs_codes, 256, 3, iq3xxs_value, 8,
     0xDFA5DC83D6A155D5u},
    {"iq3s", GGUF__IQ_GRID_IQ3S, gguf__iq3s_codes, 512, 3, iq3s_value, 8, 0xFA37020C25B44829u},
};
#define NGRIDS ((int)(sizeof grids / sizeof grids[0]))

static int ncoords(int bits) { return bits == 2 ? 8 : 4; }
static unsigned level(int bits, unsigned code, int j) {
    return (code >> (bits * j)) & ((1u << bits) - 1);
}

START_TEST(test_grid_codes) {
    const struct grid_case *g = &grids[_i];
    for (int i = 0; i < g->n; i++) {
        unsigned c = g->codes[i];
        ck_assert_msg(c >> (g->bits * ncoords(g->bits)) == 0, "%s[%d]: stray bits", g->name, i);
        if (i > 0)
            ck_assert_msg(g->codes[i - 1] < c, "%s[%d]: codes not strictly increasing", g->name,
                          i);
        for (int j = 0; j < ncoords(g->bits); j++)
            ck_assert_msg(level(g->bits, c, j) < g->nlevels, "%s[%d]: level out of range",
                          g->name, i);
    }
}
END_TEST

START_TEST(test_grid_checksum) {
    const struct grid_case *g = &grids[_i];
    const int nc = ncoords(g->bits);
    uint8_t *bytes = malloc((size_t)g->n * (size_t)nc);
    ck_assert_ptr_nonnull(bytes);
    for (int i = 0; i < g->n; i++)
        for (int j = 0; j < nc; j++)
            bytes[i * nc + j] = (uint8_t)g->value(level(g->bits, g->codes[i], j));
    ck_assert_msg(fnv1a64(bytes, (size_t)g->n * (size_t)nc) == g->ggml_fnv,
                  "%s: expanded grid differs from ggml's", g->name);
    free(bytes);
}
END_TEST

/* The byte values each grid may hold (what a reader of ggml-common.h sees). */
START_TEST(test_grid_values) {
    static const int iq2[] = {0x08, 0x19, 0x2b};
    static const int iq1[] = {-1, 0, 1};
    static const int iq3xxs[] = {4, 12, 20, 28, 36, 44, 52, 62};
    static const int iq3s[] = {1, 3, 5, 7, 9, 11, 13, 15};
    const struct grid_case *g = &grids[_i];
    const int *allowed = g->value == iq2_value   ? iq2
                         : g->value == iq1_value ? iq1
                         : g->value == iq3xxs_value ? iq3xxs
                                                    : iq3s;
    for (unsigned l = 0; l < g->nlevels; l++)
        ck_assert_int_eq(g->value(l), allowed[l]);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Value tables                                                                                */

START_TEST(test_iq4nl_values) {
    const int8_t *v = gguf__iq4nl_values;
    for (int i = 1; i < 16; i++)
        ck_assert_int_lt(v[i - 1], v[i]);
    ck_assert_int_eq(v[0], -127);
    ck_assert_int_eq(v[15], 113);
    ck_assert(fnv1a64((const uint8_t *)v, 16) == 0x055D06D2D8FA0F75u);
}
END_TEST

/* E2M1 (OCP MX v1.0): sign, 2 exponent bits (bias 1), 1 mantissa bit; subnormal at e = 0. */
START_TEST(test_e2m1_values) {
    for (int i = 0; i < 16; i++) {
        int s = i >> 3, e = (i >> 1) & 3, m = i & 1;
        double mag = e == 0 ? m * 0.5 : (1 + m * 0.5) * ldexp(1.0, e - 1);
        double want = (s ? -2 : 2) * mag;
        ck_assert_msg(gguf__e2m1_values[i] == (int)want, "nibble %d: %d, want %g", i,
                      gguf__e2m1_values[i], want);
    }
    ck_assert(fnv1a64((const uint8_t *)gguf__e2m1_values, 16) == 0x3F0E3C08AF1E5EB5u);
}
END_TEST

START_TEST(test_sign_patterns) {
    uint8_t table[128];
    for (unsigned i = 0; i < 128; i++) {
        unsigned s = gguf__iq_signs7(i);
        ck_assert_uint_eq(s & 127, i);
        ck_assert_uint_lt(s, 256);
        int minus = 0;
        for (int k = 0; k < 8; k++)
            minus += (s >> k) & 1;
        ck_assert_int_eq(minus % 2, 0);
        table[i] = (uint8_t)s;
    }
    ck_assert(fnv1a64(table, sizeof table) == 0xF19BA8F8C3292BA5u);
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Search tables                                                                               */

static int cmp_pair(const void *a, const void *b) {
    const int *l = a, *r = b;
    if (l[0] != r[0])
        return l[0] < r[0] ? -1 : 1;
    return (l[1] > r[1]) - (l[1] < r[1]);
}

static int nwant_of(enum gguf__iq_grid g) {
    switch (g) {
    case GGUF__IQ_GRID_IQ2S:
        return 1;
    case GGUF__IQ_GRID_IQ1S:
    case GGUF__IQ_GRID_IQ3S:
        return 3;
    default:
        return 2;
    }
}

START_TEST(test_search_tables) {
    const struct grid_case *g = &grids[_i];
    const gguf__iq_search *s = gguf__iq_search_get(g->grid);
    ck_assert_ptr_eq(s->codes, g->codes);
    ck_assert_int_eq(s->ngrid, g->n);
    ck_assert_int_eq(s->bits, g->bits);

    const int nc = ncoords(g->bits), nwant = nwant_of(g->grid);
    /* every code a quantizer produces: 2-bit levels 0..2, 3-bit levels 0..7 */
    const unsigned maxl = g->bits == 2 ? 2 : 7;
    const unsigned ncodes = 1u << (g->bits * nc);
    int *pairs = malloc(2 * sizeof(int) * (size_t)g->n);
    ck_assert_ptr_nonnull(pairs);
    int off_grid = 0;
    for (unsigned code = 0; code < ncodes; code++) {
        int reachable = 1;
        for (int j = 0; j < nc; j++)
            reachable &= level(g->bits, code, j) <= maxl;
        if (!reachable)
            continue;
        int on = -1;
        for (int i = 0; i < g->n; i++)
            if (g->codes[i] == code)
                on = i;
        int32_t m = gguf__iq_map(s, code);
        if (on >= 0) {
            ck_assert_msg(m == on, "%s: code 0x%x maps to %d, not grid point %d", g->name, code,
                          (int)m, on);
            continue;
        }
        ck_assert_msg(m < 0, "%s: off-grid code 0x%x maps to grid point %d", g->name, code,
                      (int)m);
        off_grid++;
        for (int i = 0; i < g->n; i++) {
            int d2 = 0;
            for (int j = 0; j < nc; j++) {
                int a = 2 * (int)level(g->bits, code, j) + 1;
                int b = 2 * (int)level(g->bits, g->codes[i], j) + 1;
                d2 += (a - b) * (a - b);
            }
            pairs[2 * i] = d2;
            pairs[2 * i + 1] = i;
        }
        qsort(pairs, (size_t)g->n, 2 * sizeof(int), cmp_pair);
        const uint16_t *list = gguf__iq_candidates(s, m);
        int n = 0, nhave = 1, d2 = pairs[0];
        for (int i = 0; i < g->n; i++) {
            if (pairs[2 * i] > d2) {
                if (nhave == nwant)
                    break;
                d2 = pairs[2 * i];
                nhave++;
            }
            n++;
            ck_assert_msg(n <= list[0] && list[n] == pairs[2 * i + 1],
                          "%s: code 0x%x: candidate %d differs", g->name, code, n);
        }
        ck_assert_msg(list[0] == n, "%s: code 0x%x: %d candidates, want %d", g->name, code,
                      list[0], n);
    }
    ck_assert_int_eq(off_grid, (g->bits == 2 ? 6561 : 4096) - g->n);
    free(pairs);
}
END_TEST

struct race {
    enum gguf__iq_grid grid;
    const gguf__iq_search *got;
    uint64_t sum;
};

static void *race_thread(void *arg) {
    struct race *r = arg;
    const gguf__iq_search *s = gguf__iq_search_get(r->grid);
    uint64_t sum = 0;
    int nmap = s->bits == 2 ? 6561 : 4096;
    for (int i = 0; i < nmap; i++) {
        int32_t m = s->map[i];
        sum = sum * 31 + (uint32_t)m;
        if (m < 0) {
            const uint16_t *list = gguf__iq_candidates(s, m);
            for (int j = 0; j <= list[0]; j++)
                sum = sum * 31 + list[j];
        }
    }
    r->got = s;
    r->sum = sum;
    return NULL;
}

/* Threads that ask for the same tables at once all get them complete (run under TSan or
 * helgrind to see the once-initialisation itself). Grids not yet built by other tests in this
 * process are the interesting ones, so this test runs in its own process (CK_FORK). */
START_TEST(test_concurrent_first_use) {
    enum { NT = 6 };
    for (int g = 0; g < GGUF__IQ_GRID_COUNT; g++) {
        struct race r[NT];
        pthread_t t[NT];
        for (int i = 0; i < NT; i++) {
            r[i].grid = (enum gguf__iq_grid)g;
            ck_assert_int_eq(pthread_create(&t[i], NULL, race_thread, &r[i]), 0);
        }
        for (int i = 0; i < NT; i++)
            ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        for (int i = 1; i < NT; i++) {
            ck_assert_ptr_eq(r[i].got, r[0].got);
            ck_assert(r[i].sum == r[0].sum);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------------------------------ */
/* Quirks                                                                                      */

/* ggml's IQ3_S quantizer moves its qs and signs pointers on only after a non-zero 32-element
 * sub-block, while it indexes qh and the scales by sub-block number: after an all-zero
 * sub-block the later sub-blocks' indices and signs sit one slot early and the last slot stays
 * zero. Files made by llama.cpp contain such blocks, so we write them the same way. */
START_TEST(test_iq3_s_zero_sub_block) {
    float x[256];
    for (int i = 0; i < 256; i++)
        x[i] = i < 32 ? 0.0f : sinf(0.37f * (float)i) + 0.25f;
    uint8_t b[110];
    memset(b, 0xAA, sizeof b);
    gguf__kernels_iq3_s.quant(b, x, 1, 256, NULL);
    const uint8_t *qs = b + 2, *qh = b + 66, *signs = b + 74, *sc = b + 106;
    int nonzero = 0;
    for (int i = 0; i < 8; i++)
        nonzero += qs[i] != 0;
    ck_assert_int_gt(nonzero, 0); /* sub-block 1's indices, in sub-block 0's slot */
    for (int i = 56; i < 64; i++)
        ck_assert_int_eq(qs[i], 0);
    for (int i = 28; i < 32; i++)
        ck_assert_int_eq(signs[i], 0);
    ck_assert_int_eq(qh[0], 0);      /* qh keeps its own numbering: sub-block 0 has none */
    ck_assert_int_eq(sc[0] & 15, 0); /* and so do the scales */

    /* Dequantizing reads the shifted data as ggml's reader does: sub-block 0 comes out
     * non-zero and sub-block 7 uses the zeroed last slot. */
    float y[256];
    gguf__kernels_iq3_s.dequant(y, b, 256);
    float sum0 = 0;
    for (int i = 0; i < 32; i++)
        sum0 += fabsf(y[i]);
    ck_assert(sum0 > 0);
}
END_TEST

static Suite *tables_suite(void) {
    Suite *s = suite_create("quant_tables");
    TCase *tc = tcase_create("grids");
    tcase_add_loop_test(tc, test_grid_codes, 0, NGRIDS);
    tcase_add_loop_test(tc, test_grid_checksum, 0, NGRIDS);
    tcase_add_loop_test(tc, test_grid_values, 0, NGRIDS);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    tcase_add_test(tc, test_iq4nl_values);
    tcase_add_test(tc, test_e2m1_values);
    tcase_add_test(tc, test_sign_patterns);
    suite_add_tcase(s, tc);

    tc = tcase_create("search");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_concurrent_first_use);
    tcase_add_loop_test(tc, test_search_tables, 0, NGRIDS);
    suite_add_tcase(s, tc);

    tc = tcase_create("quirks");
    tcase_add_test(tc, test_iq3_s_zero_sub_block);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return tu_run_suite(tables_suite());
}
