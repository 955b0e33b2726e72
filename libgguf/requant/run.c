/* Requantizing the data: the write's fill callback. Each call is asked for whole rows of one
 * tensor; it cuts them into batches (never across an expert's rows, whose importance weights
 * differ) and runs the batches on the thread pool (gguf__pool: the caller's thread takes part),
 * each worker with its own scratch: the rows' source bytes are read (pread, never through a
 * mapping), dequantized to f32, and quantized into the caller's buffer. Memory stays at a few
 * batches per thread. */
#include "requant/requant.h"

#include <stdatomic.h>
#include <string.h>

#define RQ_MAX_THREADS 256
#define RQ_BATCH_BYTES ((size_t)256 << 10) /* f32 values per batch of rows */

typedef struct scratch {
    uint8_t *src;
    float *f32;
    size_t src_cap, f32_cap; /* bytes */
} scratch;

struct gguf_requant {
    const gguf_file *f;
    gguf__requant_job *t;
    size_t n;
    bool big;            /* tensor data is big-endian */
    const uint8_t *mem;  /* the source's bytes when they are all in memory, else NULL: read */
    unsigned threads;
    scratch *scratch;    /* [threads] */
    gguf__pool *pool;    /* made on the first fill with rows for several threads */
    bool pool_tried;

    /* the current fill call */
    const gguf__requant_job *job;
    uint8_t *job_dst;
    int64_t job_row0, job_nrows, job_batch;
    atomic_int failed; /* a batch failed: the others skip */
    int job_rc;        /* the first failure's */
    gguf_error job_err;
};

gguf_requant *gguf__requant_new(const gguf_file *f, size_t n_tensors, unsigned threads) {
    if (threads < 1)
        threads = 1;
    if (threads > RQ_MAX_THREADS)
        threads = RQ_MAX_THREADS;
    gguf_requant *rq = gguf__calloc(1, sizeof *rq);
    if (rq == NULL)
        return NULL;
    rq->t = gguf__calloc(n_tensors ? n_tensors : 1, sizeof *rq->t);
    rq->scratch = gguf__calloc(threads, sizeof *rq->scratch);
    rq->threads = threads;
    if (rq->t == NULL || rq->scratch == NULL) {
        gguf_requant_free(rq);
        return NULL;
    }
    rq->f = f;
    rq->n = n_tensors;
    rq->big = f->big;
    rq->mem = f->src != NULL ? f->src->mem : NULL;
    atomic_init(&rq->failed, 0);
    return rq;
}

gguf__requant_job *gguf__requant_jobs(gguf_requant *rq) {
    return rq->t;
}

void gguf__requant_keep(gguf_requant *rq, size_t n) {
    if (n < rq->n)
        rq->n = n;
}

void gguf_requant_free(gguf_requant *rq) {
    if (rq == NULL)
        return;
    gguf__pool_free(rq->pool);
    for (unsigned w = 0; rq->scratch && w < rq->threads; w++) {
        gguf__free(rq->scratch[w].src);
        gguf__free(rq->scratch[w].f32);
    }
    gguf__free(rq->scratch);
    gguf__free(rq->t);
    gguf__free(rq);
}

/* Rows [row, row + k) of the job (within one expert) into the job's buffer. */
static int convert_rows(gguf_requant *rq, scratch *sc, int64_t row, int64_t k,
                        gguf_error *err) {
    const gguf__requant_job *t = rq->job;
    const gguf_file *f = rq->f;
    int64_t g = rq->job_row0 + row; /* row in the tensor */
    size_t src_bytes = (size_t)k * t->src_row;
    uint64_t at = t->src_offset + (uint64_t)g * t->src_row;
    size_t nvals = (size_t)k * (size_t)t->n_per_row;
    const float *vals;
    bool direct_f32 = t->src_type == GGUF_DTYPE_F32 && !rq->big && !gguf__host_is_big();
    if (direct_f32 && rq->mem == NULL) {
        int rc = gguf__file_read(f, sc->f32, src_bytes, at, err);
        if (rc != 0)
            return gguf__wrap(err, rc, "tensor '%s'", t->name);
        vals = sc->f32;
    } else if (direct_f32 && ((uintptr_t)(rq->mem + at) % sizeof(float)) == 0) {
        vals = (const float *)(const void *)(rq->mem + at);
    } else {
        const uint8_t *src;
        if (rq->mem == NULL) {
            int rc = gguf__file_read(f, sc->src, src_bytes, at, err);
            if (rc != 0)
                return gguf__wrap(err, rc, "tensor '%s'", t->name);
            src = sc->src;
        } else {
            src = rq->mem + at;
        }
        if (rq->big) {
            if (src != sc->src)
                memcpy(sc->src, src, src_bytes);
            gguf__byteswap_blocks(t->src_type, sc->src, src_bytes);
            src = sc->src;
        }
        int rc = gguf_quant_dequantize(sc->f32, t->src_type, src, src_bytes, (int64_t)nvals, err);
        if (rc != 0)
            return rc;
        vals = sc->f32;
    }
    const float *im = NULL;
    if (t->imatrix)
        im = t->imatrix + (g / t->rows_per_expert) * t->n_per_row;
    uint8_t *dst = rq->job_dst + (size_t)row * t->dst_row;
    size_t dst_bytes = (size_t)k * t->dst_row;
    int rc = gguf_quant_quantize(dst, dst_bytes, t->dst_type, vals, k, t->n_per_row, im, err);
    if (rc == 0 && rq->big)
        gguf__byteswap_blocks(t->dst_type, dst, dst_bytes);
    return rc;
}

/* Task `task` of the fill call: one batch of rows, cut at expert boundaries. */
static void run_batch(void *ctx, size_t task, unsigned worker) {
    gguf_requant *rq = ctx;
    if (atomic_load(&rq->failed))
        return;
    const gguf__requant_job *t = rq->job;
    int64_t r = (int64_t)task * rq->job_batch;
    int64_t end = r + rq->job_batch < rq->job_nrows ? r + rq->job_batch : rq->job_nrows;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = 0;
    while (rc == 0 && r < end) {
        int64_t g = rq->job_row0 + r, k = end - r;
        if (t->imatrix && k > t->rows_per_expert - g % t->rows_per_expert)
            k = t->rows_per_expert - g % t->rows_per_expert;
        rc = convert_rows(rq, &rq->scratch[worker], r, k, &err);
        r += k;
    }
    int none = 0;
    if (rc != 0 && atomic_compare_exchange_strong(&rq->failed, &none, 1)) {
        rq->job_rc = rc; /* read after the batch: the pool's join orders it */
        rq->job_err = err;
    }
}

/* Scratch of every worker, big enough for a batch of this tensor. */
static int scratch_reserve(gguf_requant *rq, const gguf__requant_job *t, int64_t batch,
                           gguf_error *err) {
    size_t f32 = (size_t)batch * (size_t)t->n_per_row * sizeof(float);
    size_t src = t->src_type == GGUF_DTYPE_F32 && !rq->big ? 0 : (size_t)batch * t->src_row;
    for (unsigned w = 0; w < rq->threads; w++) {
        scratch *sc = &rq->scratch[w];
        if (sc->f32_cap < f32) {
            float *p = gguf__realloc(sc->f32, f32);
            if (p == NULL)
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            sc->f32 = p;
            sc->f32_cap = f32;
        }
        if (sc->src_cap < src) {
            uint8_t *p = gguf__realloc(sc->src, src);
            if (p == NULL)
                return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            sc->src = p;
            sc->src_cap = src;
        }
    }
    return 0;
}

int gguf_requant_fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                      gguf_error *err) {
    gguf_requant *rq = user;
    if (rq == NULL || tensor >= rq->n || !rq->t[tensor].convert)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "requant: tensor %zu is not one this requantization fills", tensor);
    const gguf__requant_job *t = &rq->t[tensor];
    if (offset % t->dst_row != 0 || len % t->dst_row != 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "requant: tensor '%s': asked for bytes that are not whole rows",
                          t->name);
    int64_t nrows = (int64_t)(len / t->dst_row);
    int64_t batch = (int64_t)(RQ_BATCH_BYTES / sizeof(float) / (size_t)t->n_per_row);
    if (batch < 1)
        batch = 1;
    /* enough batches for every thread */
    while (batch > 1 && nrows / batch < (int64_t)rq->threads * 4)
        batch /= 2;
    int rc = scratch_reserve(rq, t, batch, err);
    if (rc != 0)
        return rc;
    size_t n_tasks = (size_t)((nrows + batch - 1) / batch);
    if (n_tasks > 1 && rq->threads > 1 && !rq->pool_tried) {
        rq->pool_tried = true;
        if (gguf__pool_new(&rq->pool, rq->threads) != 0)
            rq->pool = NULL; /* no threads to spare: the caller's does it all */
    }
    rq->job = t;
    rq->job_dst = buf;
    rq->job_row0 = (int64_t)(offset / t->dst_row);
    rq->job_nrows = nrows;
    rq->job_batch = batch;
    rq->job_rc = 0;
    gguf_error_clear(&rq->job_err);
    atomic_store(&rq->failed, 0);
    gguf__pool_run(rq->pool, n_tasks, run_batch, rq);
    if (rq->job_rc != 0) {
        if (err && err->code == 0)
            *err = rq->job_err;
        return rq->job_rc;
    }
    return 0;
}
