/* Search tables of the i-quant grids (see iq_tables.h), built once per grid on first use.
 *
 * For every code a quantizer can produce that is not a grid point, the candidate list holds
 * the grid points at the nwant smallest distinct squared distances, ordered by (distance,
 * index). Distances are sums over coordinates of (2a+1 - (2b+1))^2 = 4 (a - b)^2; we work in
 * level units (a - b)^2, which orders the same way. A list is found without sorting: the
 * distances to all grid points go into a small array (each as the sum of two half-code table
 * lookups), the nwant smallest distinct values are picked from a presence table, and the
 * points are emitted value by value in index order.
 */
#include "iq_tables.h"

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Map sizes: 3^8 base-3 codes for the 8-wide grids, 2^12 codes for the 4-wide ones. */
#define MAP8 6561
#define MAP4 4096

/* Lengths of the candidate storage (one count plus the candidates per off-grid code); fixed by
 * the grids, checked when a table is built and by tests/lib/quant/check_quant_tables.c. */
#define NB_IQ2XXS 119462
#define NB_IQ2XS 187770
#define NB_IQ2S 50253
#define NB_IQ1S 332234
#define NB_IQ3XXS 22825
#define NB_IQ3S 28317

static int32_t map_iq2xxs[MAP8], map_iq2xs[MAP8], map_iq2s[MAP8], map_iq1s[MAP8];
static int32_t map_iq3xxs[MAP4], map_iq3s[MAP4];
static uint16_t nb_iq2xxs[NB_IQ2XXS], nb_iq2xs[NB_IQ2XS], nb_iq2s[NB_IQ2S], nb_iq1s[NB_IQ1S];
static uint16_t nb_iq3xxs[NB_IQ3XXS], nb_iq3s[NB_IQ3S];
#define PAD 16 /* zero codes after each code list */
static uint16_t nc_iq2xxs[NB_IQ2XXS + PAD], nc_iq2xs[NB_IQ2XS + PAD], nc_iq2s[NB_IQ2S + PAD];
static uint16_t nc_iq1s[NB_IQ1S + PAD], nc_iq3xxs[NB_IQ3XXS + PAD], nc_iq3s[NB_IQ3S + PAD];

struct grid_spec {
    const uint16_t *codes;
    int ngrid;
    int bits;  /* per coordinate */
    int nwant; /* distinct distances kept */
    int32_t *map;
    int nmap;
    uint16_t *nb;
    size_t nb_len;
    uint16_t *nc; /* nb_len + PAD codes */
};

static const struct grid_spec specs[GGUF__IQ_GRID_COUNT] = {
    [GGUF__IQ_GRID_IQ2XXS] = {gguf__iq2xxs_codes, 256, 2, 2,
        map_iq2xxs, MAP8, nb_iq2xxs, NB_IQ2XXS, nc_iq2xxs},
    [GGUF__IQ_GRID_IQ2XS] = {gguf__iq2xs_codes, 512, 2, 2,
        map_iq2xs, MAP8, nb_iq2xs, NB_IQ2XS, nc_iq2xs},
    [GGUF__IQ_GRID_IQ2S] = {gguf__iq2s_codes, 1024, 2, 1,
        map_iq2s, MAP8, nb_iq2s, NB_IQ2S, nc_iq2s},
    [GGUF__IQ_GRID_IQ1S] = {gguf__iq1s_codes, 2048, 2, 3,
        map_iq1s, MAP8, nb_iq1s, NB_IQ1S, nc_iq1s},
    [GGUF__IQ_GRID_IQ3XXS] = {gguf__iq3xxs_codes, 256, 3, 2,
        map_iq3xxs, MAP4, nb_iq3xxs, NB_IQ3XXS, nc_iq3xxs},
    [GGUF__IQ_GRID_IQ3S] = {gguf__iq3s_codes, 512, 3, 3,
        map_iq3s, MAP4, nb_iq3s, NB_IQ3S, nc_iq3s},
};
_Static_assert(sizeof specs / sizeof specs[0] == GGUF__IQ_GRID_COUNT, "one spec per grid");

static gguf__iq_search tables[GGUF__IQ_GRID_COUNT];

/* The code stored at map index i (inverse of gguf__iq_map_index). */
static unsigned code_at(int bits, int i) {
    if (bits == 3)
        return (unsigned)i;
    unsigned code = 0;
    for (int j = 0; j < 8; j++) {
        code |= (unsigned)(i % 3) << (2 * j);
        i /= 3;
    }
    return code;
}

/* Squared level distance between the halves of two codes: ncoord/2 coordinates each. */
static int half_distance(unsigned a, unsigned b, int bits, int ncoord) {
    unsigned mask = (1u << bits) - 1;
    int d = 0;
    for (int j = 0; j < ncoord / 2; j++) {
        int la = (int)((a >> (bits * j)) & mask), lb = (int)((b >> (bits * j)) & mask);
        d += (la - lb) * (la - lb);
    }
    return d;
}

static void build(enum gguf__iq_grid g) {
    const struct grid_spec *s = &specs[g];
    const int ncoord = s->bits == 2 ? 8 : 4;
    const int half_bits = s->bits * ncoord / 2; /* 8 or 6 */
    const unsigned half_mask = (1u << half_bits) - 1;

    for (int i = 0; i < s->nmap; i++)
        s->map[i] = INT32_MIN;
    for (int j = 0; j < s->ngrid; j++)
        s->map[gguf__iq_map_index(s->bits, s->codes[j])] = j;

    uint8_t dist[2048];
    uint8_t lo[256], hi[256];
    size_t pos = 0;
    for (int i = 0; i < s->nmap; i++) {
        if (s->map[i] != INT32_MIN)
            continue;
        unsigned code = code_at(s->bits, i);
        for (unsigned h = 0; h <= half_mask; h++) {
            lo[h] = (uint8_t)half_distance(code & half_mask, h, s->bits, ncoord);
            hi[h] = (uint8_t)half_distance(code >> half_bits, h, s->bits, ncoord);
        }
        bool seen[256] = {false};
        for (int j = 0; j < s->ngrid; j++) {
            unsigned c = s->codes[j];
            dist[j] = (uint8_t)(lo[c & half_mask] + hi[c >> half_bits]);
            seen[dist[j]] = true;
        }
        /* The first nwant distances present, in increasing order. */
        int keep[3], nkeep = 0;
        for (int v = 0; v < 256 && nkeep < s->nwant; v++)
            if (seen[v])
                keep[nkeep++] = v;
        size_t start = pos++;
        assert(start < s->nb_len);
        int n = 0;
        for (int k = 0; k < nkeep; k++) {
            for (int j = 0; j < s->ngrid; j++) {
                if (dist[j] != keep[k])
                    continue;
                assert(pos < s->nb_len);
                if (pos < s->nb_len)
                    s->nb[pos++] = (uint16_t)j;
                n++;
            }
        }
        if (start < s->nb_len) {
            s->nb[start] = (uint16_t)n;
            for (size_t k = start + 1; k < pos; k++)
                s->nc[k] = s->codes[s->nb[k]];
        }
        s->map[i] = -1 - (int32_t)start;
    }
    assert(pos == s->nb_len);

    tables[g] = (gguf__iq_search){
        .codes = s->codes, .ngrid = s->ngrid, .bits = s->bits, .map = s->map, .neighbours = s->nb,
        .neighbour_codes = s->nc};
}

#define ONCE_FN(name, grid)                                                                        \
    static void name(void) { build(grid); }
ONCE_FN(build_iq2xxs, GGUF__IQ_GRID_IQ2XXS)
ONCE_FN(build_iq2xs, GGUF__IQ_GRID_IQ2XS)
ONCE_FN(build_iq2s, GGUF__IQ_GRID_IQ2S)
ONCE_FN(build_iq1s, GGUF__IQ_GRID_IQ1S)
ONCE_FN(build_iq3xxs, GGUF__IQ_GRID_IQ3XXS)
ONCE_FN(build_iq3s, GGUF__IQ_GRID_IQ3S)
#undef ONCE_FN

static pthread_once_t once[GGUF__IQ_GRID_COUNT] = {
    PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
    PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
};
static void (*const builders[GGUF__IQ_GRID_COUNT])(void) = {
    [GGUF__IQ_GRID_IQ2XXS] = build_iq2xxs, [GGUF__IQ_GRID_IQ2XS] = build_iq2xs,
    [GGUF__IQ_GRID_IQ2S] = build_iq2s,     [GGUF__IQ_GRID_IQ1S] = build_iq1s,
    [GGUF__IQ_GRID_IQ3XXS] = build_iq3xxs, [GGUF__IQ_GRID_IQ3S] = build_iq3s,
};

const gguf__iq_search *gguf__iq_search_get(enum gguf__iq_grid grid) {
    assert(grid >= 0 && grid < GGUF__IQ_GRID_COUNT);
    pthread_once(&once[grid], builders[grid]);
    return &tables[grid];
}
