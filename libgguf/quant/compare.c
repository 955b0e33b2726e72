/* gguf_quant_compare: two tensors' values side by side, what a quantization cost.
 *
 * Both tensors are cut into rows of the narrower first dimension (so that each side's blocks
 * fit whole rows) and the rows into pieces of about PIECE_ELEMS elements. The pool's threads
 * take pieces in turn; each piece reads its bytes with gguf_tensor_read (never a mapping, so a
 * file that shrinks meanwhile is an error, not a crash), puts them in little-endian order,
 * dequantizes both sides and leaves its sums in its own slot. The slots are added up in piece
 * order afterwards: the result is the same whatever the number of threads. */
#include "quant/quant.h"

#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#define PIECE_ELEMS ((int64_t)1 << 20)

/* One side of the comparison. */
typedef struct side {
    const gguf_file *f;
    size_t i;
    uint32_t type;
    bool big;
    size_t row_bytes;
} side;

/* A thread's buffers, kept from piece to piece: raw bytes and floats of each side. */
typedef struct scratch {
    void *raw[2];
    float *val[2];
    size_t raw_cap[2], val_cap[2];
} scratch;

typedef struct job {
    side s[2];
    int64_t row_elems, rows, rows_per_piece;
    size_t n_pieces;
    gguf_quant_comparison *piece; /* each piece's sums */
    scratch *scratch;             /* one per worker */
    gguf_error *errs;             /* one per worker: its first failure */
    size_t *failed_piece;         /* one per worker: the piece that failed, or SIZE_MAX */
    atomic_bool failed;           /* a piece failed: the others stop */
} job;

static int grow(void **p, size_t *cap, size_t n) {
    if (*cap >= n)
        return 0;
    void *q = gguf__realloc(*p, n);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Side k's values of rows [r0, r0 + nr) into sc->val[k]. Returns 0 or an error code. */
static int side_values(job *j, int k, scratch *sc, int64_t r0, int64_t nr, gguf_error *err) {
    const side *s = &j->s[k];
    size_t len = s->row_bytes * (size_t)nr, ne = (size_t)(nr * j->row_elems);
    if (grow(&sc->raw[k], &sc->raw_cap[k], len) != 0 ||
        grow((void **)&sc->val[k], &sc->val_cap[k], ne * sizeof(float)) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = gguf_tensor_read(sc->raw[k], s->f, s->i, (uint64_t)r0 * s->row_bytes, len, err);
    if (rc == 0 && s->big)
        rc = gguf_dtype_byteswap(sc->raw[k], len, s->type, err);
    if (rc == 0)
        rc = gguf_quant_dequantize(sc->val[k], s->type, sc->raw[k], len, (int64_t)ne, err);
    if (rc != 0)
        gguf__fail_path(err, gguf_file_path(s->f));
    return rc;
}

static void run_piece(void *ctx, size_t p, unsigned worker) {
    job *j = ctx;
    if (atomic_load(&j->failed))
        return;
    int64_t r0 = (int64_t)p * j->rows_per_piece;
    int64_t nr = j->rows - r0 < j->rows_per_piece ? j->rows - r0 : j->rows_per_piece;
    scratch *sc = &j->scratch[worker];
    gguf_error *err = &j->errs[worker];
    if (side_values(j, 0, sc, r0, nr, err) != 0 || side_values(j, 1, sc, r0, nr, err) != 0) {
        if (p < j->failed_piece[worker])
            j->failed_piece[worker] = p;
        atomic_store(&j->failed, true);
        return;
    }
    size_t ne = (size_t)(nr * j->row_elems);
    const float *fa = sc->val[0], *fb = sc->val[1];
    gguf_quant_comparison s = {.n = ne};
    for (size_t k = 0; k < ne; k++) {
        double x = fa[k], y = fb[k], d = x - y;
        s.sum_d2 += d * d;
        s.sum_a2 += x * x;
        s.sum_b2 += y * y;
        s.sum_ab += x * y;
        double ad = fabs(d);
        if (ad > s.max_abs || isnan(ad))
            s.max_abs = ad;
    }
    j->piece[p] = s;
}

/* Fills j's sides and rows from the two tensors; 0, or the code of why they do not compare. */
static int plan(job *j, const gguf_file *a, size_t ia, const gguf_file *b, size_t ib,
                gguf_error *err) {
    const gguf_file *f[2] = {a, b};
    size_t idx[2] = {ia, ib};
    gguf_tensor_info t[2];
    uint64_t ne[2];
    char q[2][96];
    for (int k = 0; k < 2; k++) {
        if (f[k] == NULL || idx[k] >= gguf_tensor_count(f[k]))
            return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "compare: no tensor %zu in %s", idx[k], k ? "b" : "a");
        gguf_tensor_get(&t[k], f[k], idx[k]);
        gguf__quote(q[k], sizeof q[k], t[k].name, t[k].name_len);
        if (!gguf_quant_can_dequantize(t[k].type) || t[k].nbytes == GGUF_NBYTES_UNKNOWN)
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "compare: tensor '%s' is of a type that cannot be dequantized",
                              q[k]);
        ne[k] = 1;
        for (uint32_t d = 0; d < t[k].n_dims; d++)
            ne[k] *= t[k].dims[d]; /* fits: the parser checked the tensor's byte count */
        j->s[k] = (side){f[k], idx[k], t[k].type, gguf_file_endian(f[k]) == GGUF_ENDIAN_BIG, 0};
    }
    /* rows of the narrower row length, so that both sides' blocks fit whole rows */
    j->row_elems = (int64_t)(t[0].dims[0] < t[1].dims[0] ? t[0].dims[0] : t[1].dims[0]);
    for (int k = 0; k < 2; k++)
        j->s[k].row_bytes = j->row_elems > 0 ? gguf_quant_row_size(t[k].type, j->row_elems) : 0;
    if (ne[0] != ne[1] || j->row_elems <= 0 || ne[0] % (uint64_t)j->row_elems != 0 ||
        j->s[0].row_bytes == 0 || j->s[1].row_bytes == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "compare: the values of tensors '%s' and '%s' do not line up (%" PRIu64
                          " and %" PRIu64 " elements, rows of %" PRIu64 " and %" PRIu64 ")",
                          q[0], q[1], ne[0], ne[1], t[0].dims[0], t[1].dims[0]);
    j->rows = (int64_t)ne[0] / j->row_elems;
    j->rows_per_piece = PIECE_ELEMS / j->row_elems > 0 ? PIECE_ELEMS / j->row_elems : 1;
    j->n_pieces = (size_t)((j->rows + j->rows_per_piece - 1) / j->rows_per_piece);
    return 0;
}

int gguf_quant_compare(gguf_quant_comparison *out, const gguf_file *a, size_t ia,
                       const gguf_file *b, size_t ib, unsigned threads, gguf_error *err) {
    job j;
    memset(&j, 0, sizeof j);
    int rc = plan(&j, a, ia, b, ib, err);
    if (rc != 0)
        return rc;
    gguf__pool *pool = NULL;
    if (threads > 1 && j.n_pieces > 1 && gguf__pool_new(&pool, threads) != 0)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    unsigned workers = gguf__pool_threads(pool);
    atomic_init(&j.failed, false);
    j.piece = gguf__calloc(j.n_pieces ? j.n_pieces : 1, sizeof *j.piece);
    j.scratch = gguf__calloc(workers, sizeof *j.scratch);
    j.errs = gguf__calloc(workers, sizeof *j.errs);
    j.failed_piece = gguf__calloc(workers, sizeof *j.failed_piece);
    if (j.piece == NULL || j.scratch == NULL || j.errs == NULL || j.failed_piece == NULL) {
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    } else {
        for (unsigned w = 0; w < workers; w++) {
            gguf_error_clear(&j.errs[w]);
            j.failed_piece[w] = SIZE_MAX;
        }
        gguf__pool_run(pool, j.n_pieces, run_piece, &j);
        /* the failure of the earliest piece that failed (the others stop at the next piece) */
        unsigned first = 0;
        for (unsigned w = 1; w < workers; w++) {
            if (j.failed_piece[w] < j.failed_piece[first])
                first = w;
        }
        if (j.failed_piece[first] != SIZE_MAX) {
            rc = j.errs[first].code;
            if (err != NULL && err->code == 0)
                *err = j.errs[first];
        } else {
            gguf_quant_comparison s = {.cos = 1};
            for (size_t p = 0; p < j.n_pieces; p++)
                gguf_quant_comparison_add(&s, &j.piece[p]);
            *out = s;
        }
    }
    gguf__pool_free(pool);
    for (unsigned w = 0; j.scratch != NULL && w < workers; w++) {
        for (int k = 0; k < 2; k++) {
            gguf__free(j.scratch[w].raw[k]);
            gguf__free(j.scratch[w].val[k]);
        }
    }
    gguf__free(j.scratch);
    gguf__free(j.errs);
    gguf__free(j.failed_piece);
    gguf__free(j.piece);
    return rc;
}

/* The figures people read, from the sums. */
static void figures(gguf_quant_comparison *c) {
    c->rmse = c->n ? sqrt(c->sum_d2 / (double)c->n) : 0;
    c->rel = c->sum_d2 == 0 ? 0 : c->sum_a2 > 0 ? sqrt(c->sum_d2 / c->sum_a2) : INFINITY;
    if (c->sum_a2 == 0 && c->sum_b2 == 0)
        c->cos = 1;
    else if (c->sum_a2 == 0 || c->sum_b2 == 0)
        c->cos = 0;
    else
        c->cos = c->sum_ab / sqrt(c->sum_a2 * c->sum_b2);
}

void gguf_quant_comparison_add(gguf_quant_comparison *sum, const gguf_quant_comparison *c) {
    sum->n += c->n;
    sum->sum_d2 += c->sum_d2;
    sum->sum_a2 += c->sum_a2;
    sum->sum_b2 += c->sum_b2;
    sum->sum_ab += c->sum_ab;
    if (c->max_abs > sum->max_abs || isnan(c->max_abs))
        sum->max_abs = c->max_abs;
    figures(sum);
}
