/* The proofs that run before anything is replaced. A rewrite is read back and each tensor's
 * name, type, size and crc32 compared with the source's (both files' crc32s computed side by
 * side, one on each thread); an in-place header is parsed on its own and must put every tensor
 * at the bytes it already has. A failed proof leaves the original untouched. */
#include "commit/commit.h"

#include <string.h>

/* Same name, type and size? */
static bool same_tensor(const gguf__tensor *a, const gguf__tensor *b) {
    return a->name_len == b->name_len && memcmp(a->name, b->name, (size_t)a->name_len) == 0 &&
           a->type == b->type && a->nbytes == b->nbytes;
}

/* crc32s of every comparable tensor of one file; task 0 the source, task 1 the output */
typedef struct crc_side {
    const gguf_file *f;
    uint32_t *crcs;
    int rc;
    gguf_error err;
} crc_side;

typedef struct crc_job {
    const gguf_file *src; /* decides which tensors have bytes to compare */
    crc_side side[2];
} crc_job;

static void crc_all(void *ctx, size_t task, unsigned worker) {
    (void)worker;
    crc_job *j = ctx;
    crc_side *s = &j->side[task];
    for (size_t i = 0; s->rc == 0 && i < j->src->n_tensors; i++) {
        const gguf__tensor *t = &j->src->tensors[i];
        if (t->nbytes == GGUF_NBYTES_UNKNOWN || t->src_offset == GGUF__NO_SOURCE)
            continue; /* unknown size, or new bytes: nothing to compare with */
        const gguf__tensor *mine = &s->f->tensors[i];
        s->rc = gguf__crc_range(&s->crcs[i], s->f, mine->src_offset, mine->nbytes, &s->err);
    }
}

int gguf__verify_output(const gguf_file *src, const gguf_file *out, bool check_bytes,
                        gguf_error *err) {
    if (out->n_tensors != src->n_tensors)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "check failed: the output has %zu tensors, not %zu", out->n_tensors,
                          src->n_tensors);
    char q[96];
    for (size_t i = 0; i < src->n_tensors; i++) {
        const gguf__tensor *a = &src->tensors[i];
        if (!same_tensor(a, &out->tensors[i]))
            return gguf__fail(err, GGUF_ECORRUPT, out->tensors[i].info_offset,
                              "check failed: tensor %zu ('%s') changed name, type or size", i,
                              gguf__quote(q, sizeof q, a->name, (size_t)a->name_len));
    }
    if (!check_bytes)
        return 0;
    size_t n = src->n_tensors ? src->n_tensors : 1;
    crc_job job = {.src = src};
    job.side[0] = (crc_side){.f = src, .crcs = gguf__calloc(n, sizeof(uint32_t))};
    job.side[1] = (crc_side){.f = out, .crcs = gguf__calloc(n, sizeof(uint32_t))};
    gguf_error_clear(&job.side[0].err);
    gguf_error_clear(&job.side[1].err);
    gguf__pool *pool = NULL;
    int rc = 0;
    if (job.side[0].crcs == NULL || job.side[1].crcs == NULL ||
        gguf__pool_new(&pool, 2) != 0) {
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    } else {
        gguf__pool_run(pool, 2, crc_all, &job);
        for (int s = 0; s < 2 && rc == 0; s++) {
            if (job.side[s].rc != 0)
                rc = gguf__fail(err, job.side[s].rc, job.side[s].err.offset,
                                "check failed: reading the %s: %s", s == 0 ? "input" : "output",
                                job.side[s].err.message);
        }
    }
    for (size_t i = 0; rc == 0 && i < src->n_tensors; i++) {
        if (job.side[0].crcs[i] != job.side[1].crcs[i]) {
            const gguf__tensor *a = &src->tensors[i];
            rc = gguf__fail(err, GGUF_ECORRUPT, out->tensors[i].src_offset,
                            "check failed: tensor '%s' has crc32 %08x in the output, %08x in the input",
                            gguf__quote(q, sizeof q, a->name, (size_t)a->name_len),
                            job.side[1].crcs[i], job.side[0].crcs[i]);
        }
    }
    gguf__pool_free(pool);
    gguf__free(job.side[0].crcs);
    gguf__free(job.side[1].crcs);
    return rc;
}

int gguf__verify_header(const gguf_file *src, const uint8_t *region, size_t len,
                        uint64_t shift, bool may_add, gguf_error *err) {
    gguf_file *out;
    int rc = gguf__open_header(&out, region, len, src->size + shift,
                               src->flags & (GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES |
                                             GGUF_OPEN_FORCE_BIG | GGUF_OPEN_FORCE_LITTLE),
                               err);
    if (rc != 0)
        return rc;
    bool count_ok = may_add ? out->n_tensors >= src->n_tensors : out->n_tensors == src->n_tensors;
    if (!count_ok || out->data_offset != src->data_offset + shift || out->data_offset != len)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "check failed: the new header changes the data offset or the tensor count");
    for (size_t i = 0; rc == 0 && i < src->n_tensors; i++) {
        const gguf__tensor *a = &src->tensors[i], *b = &out->tensors[i];
        if (b->src_offset != a->src_offset + shift)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "check failed: tensor %zu would move in place", i);
        else if (!same_tensor(a, b))
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "check failed: tensor %zu changes name, type or size", i);
    }
    gguf_file_free(out);
    return rc;
}
