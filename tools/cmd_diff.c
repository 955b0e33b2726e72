/* gguf-edit diff: what changed between two files. Keys added, removed and changed (for arrays,
 * the indices that differ with their old and new values); tensors added, removed, retyped or
 * reshaped (only what changed is shown), or with other bytes. With --values, tensors in both
 * files are dequantized and compared (RMSE, max abs error, relative error, cosine similarity):
 * what a quantization cost. Tensor bytes are read with pread in bounded chunks, never through a
 * mapping, so a file that shrinks under diff is an error, not a crash; names are looked up
 * through the library's index. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (4u << 20)     /* byte comparison: read in pieces of this size */
#define CHUNK_ELEMS ((int64_t)1 << 20) /* --values: about this many elements per piece */
#define DEFAULT_MAX_ELEMS 10

typedef struct diff_values {
    int quiet, json, values;
    uint64_t threads, max_elems;
} diff_values;

static const opt_spec options[] = {
    OPT_FLAG_("quiet", 'q', "only say whether the files differ", diff_values, quiet, 1),
    OPT_FLAG_("json", 0, "one JSON document", diff_values, json, 1),
    OPT_FLAG_("values", 0,
              "dequantize tensors in both files and compare their values: RMSE, max\n"
              "abs error, relative error (|A-B|/|A|), cosine similarity",
              diff_values, values, 1),
    OPT_COUNT_("threads", 0, "N", "threads for --values (default: 2)", diff_values, threads, 1,
               256),
    OPT_COUNT_("max-elems", 0, "N", "array elements listed per changed key (default 10; 0: all)",
               diff_values, max_elems, 0, UINT64_MAX),
    OPT_TEXT_("Exit status (as diff's): 0 no differences, 1 differences, 2 trouble."),
    {0}};

static int diff_run(int argc, char **argv);

const opt_command cmd_diff = {
    .name = "diff",
    .run = diff_run,
    .line = "diff A B                              metadata and tensor differences",
    .synopsis = "usage: gguf-edit diff A B [-q] [--json] [--values] [--threads N] [--max-elems N]\n",
    .summary =
    "Lists what differs: '-' only in A, '+' only in B, '~' changed (A's -> B's). Arrays show the\n"
    "indices that differ with both values; tensors what changed (type, shape, bytes).\n",
    .options = options,
    .groups = opt_open_groups,
};

typedef struct opts {
    int quiet, json, values;
    unsigned threads;
    uint64_t max_elems;
} opts;

typedef struct dctx {
    const char *path_a, *path_b;
    const gguf_file *a, *b;
    opts o;
    uint64_t n;     /* differences found */
    int trouble;    /* an error was printed */
    int first_json; /* no JSON element written yet in the current list */
    uint8_t *pa, *pb; /* byte comparison buffers */
    int headers_only; /* tensor bytes are not compared (a URL) */
} dctx;

/* ---- lookups: the library's index (a name with a NUL byte cannot use it) ---- */

static int64_t find_key(const gguf_file *f, const char *key, size_t len) {
    char buf[256];
    char *name = len < sizeof buf ? buf : malloc(len + 1);
    int64_t i = -1;
    if (name != NULL && memchr(key, '\0', len) == NULL) {
        memcpy(name, key, len);
        name[len] = '\0';
        i = gguf_kv_find(f, name);
    } else if (name != NULL) {
        for (size_t j = 0; j < gguf_kv_count(f) && i < 0; j++) {
            size_t n;
            const char *k = gguf_kv_key(f, j, &n);
            if (n == len && memcmp(k, key, len) == 0)
                i = (int64_t)j;
        }
    }
    if (name != buf)
        free(name);
    return i;
}

static int64_t find_tensor(const gguf_file *f, const char *s, size_t len) {
    char name[256];
    if (len < sizeof name && memchr(s, '\0', len) == NULL) {
        memcpy(name, s, len);
        name[len] = '\0';
        return gguf_tensor_find(f, name);
    }
    for (size_t j = 0; j < gguf_tensor_count(f); j++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, j);
        if (t.name_len == len && memcmp(t.name, s, len) == 0)
            return (int64_t)j;
    }
    return -1;
}

/* ---- output helpers ---- */

static void json_sep(dctx *d) {
    fputs(d->first_json ? "\n" : ",\n", stdout);
    d->first_json = 0;
}

static void type_text(FILE *out, const gguf_value *v) {
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
        fprintf(out, "%s[%" PRIu64 "]", cli_vtype_name(gguf_value_elem_type(v)), gguf_value_count(v));
    else
        fputs(cli_vtype_name(gguf_value_type(v)), out);
}

static void json_value_info(const gguf_value *v, int with_value) {
    printf("{\"type\":\"%s\"", cli_vtype_name(gguf_value_type(v)));
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
        printf(",\"elem_type\":\"%s\",\"count\":%" PRIu64, cli_vtype_name(gguf_value_elem_type(v)),
               gguf_value_count(v));
    if (with_value) {
        fputs(",\"value\":", stdout);
        cli_json_value(stdout, v);
    }
    putchar('}');
}

static void dims_text(FILE *out, const gguf_tensor_info *t) {
    putc('[', out);
    for (uint32_t d = 0; d < t->n_dims; d++)
        fprintf(out, "%s%" PRIu64, d ? ", " : "", t->dims[d]);
    putc(']', out);
}

static void dims_json(const gguf_tensor_info *t) {
    putchar('[');
    for (uint32_t d = 0; d < t->n_dims; d++)
        printf("%s%" PRIu64, d ? "," : "", t->dims[d]);
    putchar(']');
}

static void tensor_json(const gguf_tensor_info *t) {
    char tb[32];
    printf("{\"type\":\"%s\",\"dims\":", cli_dtype_name(t->type, tb, sizeof tb));
    dims_json(t);
    putchar('}');
}

/* ---- keys ---- */

/* Prints one key added or removed. */
static void key_one(dctx *d, char sign, const gguf_file *f, size_t i) {
    size_t len;
    const char *k = gguf_kv_key(f, i, &len);
    const gguf_value *v = gguf_kv_value(f, i);
    if (d->o.json) {
        json_sep(d);
        fputs("{\"key\":", stdout);
        cli_json_str(stdout, k, len);
        printf(",\"change\":\"%s\",\"%s\":", sign == '-' ? "removed" : "added",
               sign == '-' ? "a" : "b");
        json_value_info(v, gguf_value_type(v) != GGUF_VTYPE_ARRAY);
        putchar('}');
        return;
    }
    printf("%c ", sign);
    cli_text_escape(stdout, k, len, 0);
    fputs(" [", stdout);
    type_text(stdout, v);
    fputs("] ", stdout);
    cli_text_value(stdout, v, DEFAULT_MAX_ELEMS);
    putchar('\n');
}

/* Two arrays of the same element type: the indices that differ. */
static void key_array_change(dctx *d, const char *k, size_t len, const gguf_value *va,
                             const gguf_value *vb) {
    uint64_t na = gguf_value_count(va), nb = gguf_value_count(vb);
    uint64_t common = na < nb ? na : nb, differing = 0, shown = 0;
    uint64_t max = d->o.max_elems;
    gguf_value_iter ia, ib;
    gguf_value ea, eb;
    gguf_value_iter_init(&ia, va);
    gguf_value_iter_init(&ib, vb);
    if (d->o.json) {
        json_sep(d);
        fputs("{\"key\":", stdout);
        cli_json_str(stdout, k, len);
        fputs(",\"change\":\"changed\",\"a\":", stdout);
        json_value_info(va, 0);
        fputs(",\"b\":", stdout);
        json_value_info(vb, 0);
        fputs(",\"elements\":[", stdout);
    } else {
        fputs("~ ", stdout);
        cli_text_escape(stdout, k, len, 0);
        fputs(" [", stdout);
        type_text(stdout, va);
        if (na != nb) {
            fputs(" -> ", stdout);
            type_text(stdout, vb);
        }
        fputs("]\n", stdout);
    }
    for (uint64_t i = 0; i < common; i++) {
        if (!gguf_value_iter_next(&ia, &ea) || !gguf_value_iter_next(&ib, &eb))
            break;
        if (gguf_value_equal(&ea, &eb) == 1)
            continue;
        differing++;
        if (max != 0 && shown >= max)
            continue;
        if (d->o.json) {
            printf("%s{\"index\":%" PRIu64 ",\"a\":", shown ? "," : "", i);
            cli_json_value(stdout, &ea);
            fputs(",\"b\":", stdout);
            cli_json_value(stdout, &eb);
            putchar('}');
        } else {
            printf("    [%" PRIu64 "] ", i);
            cli_text_value(stdout, &ea, DEFAULT_MAX_ELEMS);
            fputs(" -> ", stdout);
            cli_text_value(stdout, &eb, DEFAULT_MAX_ELEMS);
            putchar('\n');
        }
        shown++;
    }
    /* the elements only one side has */
    gguf_value_iter *rest = na > nb ? &ia : &ib;
    gguf_value e;
    for (uint64_t i = common; i < (na > nb ? na : nb) && gguf_value_iter_next(rest, &e); i++) {
        if (max != 0 && shown >= max)
            break;
        if (d->o.json) {
            printf("%s{\"index\":%" PRIu64 ",\"%s\":", shown ? "," : "", i, na > nb ? "a" : "b");
            cli_json_value(stdout, &e);
            putchar('}');
        } else {
            printf("    [%" PRIu64 "] %c ", i, na > nb ? '-' : '+');
            cli_text_value(stdout, &e, DEFAULT_MAX_ELEMS);
            putchar('\n');
        }
        shown++;
    }
    uint64_t extra = na > nb ? na - nb : nb - na;
    if (d->o.json) {
        printf("],\"differing\":%" PRIu64 ",\"%s\":%" PRIu64 ",\"shown\":%" PRIu64 "}", differing,
               na > nb ? "removed" : "added", extra, shown);
        return;
    }
    if (differing + extra > shown) {
        fputs("    ...", stdout);
        if (differing)
            printf(" %" PRIu64 " of %" PRIu64 " elements differ", differing, common);
        if (extra)
            printf("%s%" PRIu64 " %s", differing ? ", " : " ", extra, na > nb ? "removed" : "added");
        printf(" (%" PRIu64 " shown; --max-elems N for more)\n", shown);
    }
}

static void key_change(dctx *d, const char *k, size_t len, const gguf_value *va,
                       const gguf_value *vb) {
    if (gguf_value_type(va) == GGUF_VTYPE_ARRAY && gguf_value_type(vb) == GGUF_VTYPE_ARRAY &&
        gguf_value_elem_type(va) == gguf_value_elem_type(vb)) {
        key_array_change(d, k, len, va, vb);
        return;
    }
    if (d->o.json) {
        json_sep(d);
        fputs("{\"key\":", stdout);
        cli_json_str(stdout, k, len);
        fputs(",\"change\":\"changed\",\"a\":", stdout);
        json_value_info(va, gguf_value_type(va) != GGUF_VTYPE_ARRAY);
        fputs(",\"b\":", stdout);
        json_value_info(vb, gguf_value_type(vb) != GGUF_VTYPE_ARRAY);
        putchar('}');
        return;
    }
    int same_type = gguf_value_type(va) == gguf_value_type(vb);
    fputs("~ ", stdout);
    cli_text_escape(stdout, k, len, 0);
    fputs(" [", stdout);
    type_text(stdout, va);
    fputs("] ", stdout);
    cli_text_value(stdout, va, DEFAULT_MAX_ELEMS);
    fputs(" -> ", stdout);
    if (!same_type) {
        putchar('[');
        type_text(stdout, vb);
        fputs("] ", stdout);
    }
    cli_text_value(stdout, vb, DEFAULT_MAX_ELEMS);
    putchar('\n');
}

static void diff_kv(dctx *d) {
    const gguf_file *a = d->a, *b = d->b;
    if (d->o.json)
        fputs(",\"kv\":[", stdout);
    d->first_json = 1;
    for (size_t i = 0; i < gguf_kv_count(a); i++) {
        size_t len;
        const char *k = gguf_kv_key(a, i, &len);
        int64_t j = find_key(b, k, len);
        const gguf_value *va = gguf_kv_value(a, i);
        if (j < 0) {
            d->n++;
            if (!d->o.quiet)
                key_one(d, '-', a, i);
            continue;
        }
        const gguf_value *vb = gguf_kv_value(b, (size_t)j);
        if (gguf_value_equal(va, vb) == 1)
            continue;
        d->n++;
        if (!d->o.quiet)
            key_change(d, k, len, va, vb);
    }
    for (size_t j = 0; j < gguf_kv_count(b); j++) {
        size_t len;
        const char *k = gguf_kv_key(b, j, &len);
        if (find_key(a, k, len) >= 0)
            continue;
        d->n++;
        if (!d->o.quiet)
            key_one(d, '+', b, j);
    }
    if (d->o.json)
        fputs("]", stdout);
}

/* ---- tensor bytes, read with pread ---- */

/* Offset of the first byte where tensor ia of a and ib of b differ (same size), their size
 * when equal, or UINT64_MAX after an error (printed). */
static uint64_t first_difference(dctx *d, size_t ia, size_t ib, uint64_t nbytes) {
    if (d->pa == NULL) {
        d->pa = malloc(CHUNK_BYTES);
        d->pb = malloc(CHUNK_BYTES);
        if (d->pa == NULL || d->pb == NULL) {
            cli_errorf("out of memory");
            d->trouble = 1;
            return UINT64_MAX;
        }
    }
    uint8_t *pa = d->pa, *pb = d->pb;
    for (uint64_t at = 0; at < nbytes;) {
        size_t n = nbytes - at < CHUNK_BYTES ? (size_t)(nbytes - at) : CHUNK_BYTES;
        gguf_error err;
        gguf_error_clear(&err);
        if (gguf_tensor_read(pa, d->a, ia, at, n, &err) != 0) {
            cli_report(d->path_a, &err);
            d->trouble = 1;
            return UINT64_MAX;
        }
        if (gguf_tensor_read(pb, d->b, ib, at, n, &err) != 0) {
            cli_report(d->path_b, &err);
            d->trouble = 1;
            return UINT64_MAX;
        }
        if (memcmp(pa, pb, n) != 0) {
            size_t k = 0;
            while (pa[k] == pb[k])
                k++;
            return at + k;
        }
        at += n;
    }
    return nbytes;
}

/* ---- --values: dequantize both sides chunk by chunk and compare ---- */

typedef struct stats {
    uint64_t n;
    double sum_d2, sum_a2, sum_b2, sum_ab, max_abs;
} stats;

static void stats_add(stats *s, const stats *t) {
    s->n += t->n;
    s->sum_d2 += t->sum_d2;
    s->sum_a2 += t->sum_a2;
    s->sum_b2 += t->sum_b2;
    s->sum_ab += t->sum_ab;
    if (t->max_abs > s->max_abs || isnan(t->max_abs))
        s->max_abs = t->max_abs;
}

static double stat_rmse(const stats *s) { return s->n ? sqrt(s->sum_d2 / (double)s->n) : 0; }
static double stat_rel(const stats *s) {
    if (s->sum_d2 == 0)
        return 0;
    return s->sum_a2 > 0 ? sqrt(s->sum_d2 / s->sum_a2) : INFINITY;
}
static double stat_cos(const stats *s) {
    if (s->sum_a2 == 0 && s->sum_b2 == 0)
        return 1;
    if (s->sum_a2 == 0 || s->sum_b2 == 0)
        return 0;
    return s->sum_ab / sqrt(s->sum_a2 * s->sum_b2);
}

/* One tensor's comparison, shared by the threads: they take pieces (rows) in turn and leave
 * each piece's sums in its own slot, added up in order afterwards (the same result whatever
 * the number of threads). */
typedef struct vjob {
    const gguf_file *a, *b;
    size_t ia, ib;
    uint32_t ta, tb;
    int big_a, big_b;
    int64_t row_elems, rows, rows_per_piece, n_pieces;
    size_t row_a, row_b; /* bytes per row */
    int64_t next;        /* next piece to take (under the lock) */
    stats *piece;
    int failed;
    gguf_error err;
    const char *failed_path;
} vjob;

typedef struct vpool {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    vjob *job;
    unsigned n_threads, busy;
    uint64_t generation;
    int stop;
    pthread_t *threads;
} vpool;

typedef struct vbufs {
    void *ra, *rb, *fa, *fb;
    size_t cap_ra, cap_rb, cap_fa, cap_fb;
} vbufs;

static int grow(void **p, size_t *cap, size_t n) {
    if (*cap >= n)
        return 0;
    void *q = realloc(*p, n);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static void fail_job(vjob *j, const gguf_error *err, const char *path) {
    if (!j->failed) {
        j->failed = 1;
        j->err = *err;
        j->failed_path = path;
    }
}

/* Compares piece p of the job; returns 0, or -1 after recording the failure. */
static int run_piece(vjob *j, int64_t p, vbufs *b, const char *path_a, const char *path_b) {
    int64_t r0 = p * j->rows_per_piece;
    int64_t nr = j->rows - r0 < j->rows_per_piece ? j->rows - r0 : j->rows_per_piece;
    size_t la = j->row_a * (size_t)nr, lb = j->row_b * (size_t)nr;
    size_t ne = (size_t)(nr * j->row_elems);
    gguf_error err;
    gguf_error_clear(&err);
    if (grow(&b->ra, &b->cap_ra, la) || grow(&b->rb, &b->cap_rb, lb) ||
        grow(&b->fa, &b->cap_fa, ne * sizeof(float)) ||
        grow(&b->fb, &b->cap_fb, ne * sizeof(float))) {
        err.code = GGUF_ENOMEM;
        snprintf(err.message, sizeof err.message, "out of memory");
        fail_job(j, &err, path_a);
        return -1;
    }
    const float *fa = b->fa, *fb = b->fb;
    if (gguf_tensor_read(b->ra, j->a, j->ia, (uint64_t)r0 * j->row_a, la, &err) != 0) {
        fail_job(j, &err, path_a);
        return -1;
    }
    if (gguf_tensor_read(b->rb, j->b, j->ib, (uint64_t)r0 * j->row_b, lb, &err) != 0) {
        fail_job(j, &err, path_b);
        return -1;
    }
    if ((j->big_a && gguf_dtype_byteswap(b->ra, la, j->ta, &err) != 0) ||
        gguf_quant_dequantize(b->fa, j->ta, b->ra, la, (int64_t)ne, &err) != 0) {
        fail_job(j, &err, path_a);
        return -1;
    }
    if ((j->big_b && gguf_dtype_byteswap(b->rb, lb, j->tb, &err) != 0) ||
        gguf_quant_dequantize(b->fb, j->tb, b->rb, lb, (int64_t)ne, &err) != 0) {
        fail_job(j, &err, path_b);
        return -1;
    }
    stats s = {ne, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < ne; k++) {
        double x = fa[k], y = fb[k], dd = x - y;
        s.sum_d2 += dd * dd;
        s.sum_a2 += x * x;
        s.sum_b2 += y * y;
        s.sum_ab += x * y;
        double ad = fabs(dd);
        if (ad > s.max_abs || isnan(ad))
            s.max_abs = ad;
    }
    j->piece[p] = s;
    return 0;
}

typedef struct worker_arg {
    vpool *pool;
    const char *path_a, *path_b;
} worker_arg;

static worker_arg g_worker_arg;

/* Takes pieces of the current job until none is left. */
static void drain(vpool *pool, vjob *j, vbufs *b, const char *pa, const char *pb) {
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        int64_t p = j->failed ? j->n_pieces : j->next++;
        pthread_mutex_unlock(&pool->lock);
        if (p >= j->n_pieces)
            return;
        if (run_piece(j, p, b, pa, pb) != 0) {
            pthread_mutex_lock(&pool->lock);
            j->next = j->n_pieces;
            pthread_mutex_unlock(&pool->lock);
            return;
        }
    }
}

static void *worker(void *arg) {
    worker_arg *w = arg;
    vpool *pool = w->pool;
    vbufs b = {NULL, NULL, NULL, NULL, 0, 0, 0, 0};
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->stop && pool->generation == seen)
            pthread_cond_wait(&pool->work, &pool->lock);
        if (pool->stop)
            break;
        seen = pool->generation;
        vjob *j = pool->job;
        pthread_mutex_unlock(&pool->lock);
        drain(pool, j, &b, w->path_a, w->path_b);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    free(b.ra);
    free(b.rb);
    free(b.fa);
    free(b.fb);
    return NULL;
}

static vpool g_pool;
static vbufs g_main_bufs;
static int g_pool_started;

static int pool_start(unsigned n_threads, const char *pa, const char *pb) {
    vpool *p = &g_pool;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->n_threads = n_threads > 1 ? n_threads - 1 : 0; /* the main thread works too */
    p->threads = calloc(p->n_threads ? p->n_threads : 1, sizeof *p->threads);
    if (p->threads == NULL)
        return -1;
    g_worker_arg = (worker_arg){p, pa, pb};
    for (unsigned i = 0; i < p->n_threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, &g_worker_arg) != 0) {
            p->n_threads = i;
            break;
        }
    }
    g_pool_started = 1;
    return 0;
}

static void pool_stop(void) {
    if (!g_pool_started)
        return;
    vpool *p = &g_pool;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->n_threads; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    free(g_main_bufs.ra);
    free(g_main_bufs.rb);
    free(g_main_bufs.fa);
    free(g_main_bufs.fb);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
}

/* Compares the values of tensor ia of a and ib of b (same element count). Returns 0 and fills
 * *out, 1 when the types cannot be dequantized, -1 after an error (printed). */
static int compare_values(dctx *d, size_t ia, size_t ib, stats *out) {
    gguf_tensor_info x, y;
    gguf_tensor_get(&x, d->a, ia);
    gguf_tensor_get(&y, d->b, ib);
    if (!gguf_quant_can_dequantize(x.type) || !gguf_quant_can_dequantize(y.type) ||
        x.nbytes == GGUF_NBYTES_UNKNOWN || y.nbytes == GGUF_NBYTES_UNKNOWN)
        return 1;
    if (!g_pool_started && pool_start(d->o.threads, d->path_a, d->path_b) != 0) {
        cli_errorf("out of memory");
        return -1;
    }
    vjob j;
    memset(&j, 0, sizeof j);
    j.a = d->a;
    j.b = d->b;
    j.ia = ia;
    j.ib = ib;
    j.ta = x.type;
    j.tb = y.type;
    j.big_a = gguf_file_endian(d->a) == GGUF_ENDIAN_BIG;
    j.big_b = gguf_file_endian(d->b) == GGUF_ENDIAN_BIG;
    /* rows of the narrower row length, so that both sides' blocks fit whole rows */
    int64_t ne = 1;
    for (uint32_t k = 0; k < x.n_dims; k++)
        ne *= (int64_t)x.dims[k];
    j.row_elems = (int64_t)(x.dims[0] < y.dims[0] ? x.dims[0] : y.dims[0]);
    if (j.row_elems <= 0 || ne % j.row_elems != 0)
        return 1;
    j.row_a = gguf_quant_row_size(x.type, j.row_elems);
    j.row_b = gguf_quant_row_size(y.type, j.row_elems);
    if (j.row_a == 0 || j.row_b == 0)
        return 1; /* a row length one side's blocks do not divide: another shape */
    j.rows = ne / j.row_elems;
    j.rows_per_piece = CHUNK_ELEMS / j.row_elems > 0 ? CHUNK_ELEMS / j.row_elems : 1;
    j.n_pieces = (j.rows + j.rows_per_piece - 1) / j.rows_per_piece;
    j.piece = calloc((size_t)(j.n_pieces ? j.n_pieces : 1), sizeof *j.piece);
    if (j.piece == NULL) {
        cli_errorf("out of memory");
        return -1;
    }
    vpool *p = &g_pool;
    pthread_mutex_lock(&p->lock);
    p->job = &j;
    p->busy = p->n_threads;
    p->generation++;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    drain(p, &j, &g_main_bufs, d->path_a, d->path_b);
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
    int rc = 0;
    if (j.failed) {
        cli_report(j.failed_path, &j.err);
        rc = -1;
    } else {
        stats s = {0, 0, 0, 0, 0, 0};
        for (int64_t k = 0; k < j.n_pieces; k++)
            stats_add(&s, &j.piece[k]);
        *out = s;
    }
    free(j.piece);
    return rc;
}

/* ---- tensors ---- */

typedef struct vsummary {
    stats all;           /* over every tensor compared, equal ones included */
    uint64_t compared, differing, not_comparable;
    double worst_cos;
    char worst_cos_name[128];
    double worst_abs;
    char worst_abs_name[128];
} vsummary;

static void name_copy(char *dst, size_t size, const gguf_tensor_info *t) {
    size_t n = t->name_len < size - 1 ? t->name_len : size - 1;
    memcpy(dst, t->name, n);
    dst[n] = '\0';
}

static void print_values_text(const stats *s) {
    printf("rmse %.6g, max abs %.6g, rel %.6g, cos %.9f", stat_rmse(s), s->max_abs, stat_rel(s),
           stat_cos(s));
}

static void print_values_json(const stats *s) {
    printf("{\"elements\":%" PRIu64 ",\"rmse\":", s->n);
    cli_json_double(stdout, stat_rmse(s), 9);
    fputs(",\"max_abs\":", stdout);
    cli_json_double(stdout, s->max_abs, 9);
    fputs(",\"rel\":", stdout);
    cli_json_double(stdout, stat_rel(s), 9);
    fputs(",\"cos\":", stdout);
    cli_json_double(stdout, stat_cos(s), 12);
    putchar('}');
}

static void tensor_one(dctx *d, char sign, const gguf_tensor_info *t) {
    char tb[32];
    if (d->o.json) {
        json_sep(d);
        fputs("{\"name\":", stdout);
        cli_json_str(stdout, t->name, t->name_len);
        printf(",\"change\":\"%s\",\"%s\":", sign == '-' ? "removed" : "added",
               sign == '-' ? "a" : "b");
        tensor_json(t);
        putchar('}');
        return;
    }
    printf("%c tensor ", sign);
    cli_text_escape(stdout, t->name, t->name_len, 0);
    printf(" %s ", cli_dtype_name(t->type, tb, sizeof tb));
    dims_text(stdout, t);
    putchar('\n');
}

static int dims_equal(const gguf_tensor_info *x, const gguf_tensor_info *y) {
    if (x->n_dims != y->n_dims)
        return 0;
    for (int k = 0; k < GGUF_MAX_DIMS; k++) {
        if (x->dims[k] != y->dims[k])
            return 0;
    }
    return 1;
}

static uint64_t elements(const gguf_tensor_info *t) {
    uint64_t n = 1;
    for (uint32_t k = 0; k < t->n_dims; k++)
        n *= t->dims[k];
    return n;
}

/* One tensor in both files that differs: what changed, and its values' comparison. */
static void tensor_change(dctx *d, const gguf_tensor_info *x, const gguf_tensor_info *y,
                          uint64_t first_diff, const stats *vs, int values_state) {
    char ta[32], tb[32];
    int retyped = x->type != y->type, reshaped = !dims_equal(x, y);
    if (d->o.json) {
        json_sep(d);
        fputs("{\"name\":", stdout);
        cli_json_str(stdout, x->name, x->name_len);
        fputs(",\"change\":\"changed\",\"a\":", stdout);
        tensor_json(x);
        fputs(",\"b\":", stdout);
        tensor_json(y);
        if (!retyped && !reshaped)
            printf(",\"first_difference\":%" PRIu64, first_diff);
        if (values_state == 0) {
            fputs(",\"values\":", stdout);
            print_values_json(vs);
        } else if (values_state == 1) {
            fputs(",\"values\":null", stdout);
        }
        putchar('}');
        return;
    }
    fputs("~ tensor ", stdout);
    cli_text_escape(stdout, x->name, x->name_len, 0);
    fputs(":", stdout);
    const char *sep = " ";
    if (retyped) {
        printf("%stype %s -> %s", sep, cli_dtype_name(x->type, ta, sizeof ta),
               cli_dtype_name(y->type, tb, sizeof tb));
        sep = ", ";
    }
    if (reshaped) {
        printf("%sshape ", sep);
        dims_text(stdout, x);
        fputs(" -> ", stdout);
        dims_text(stdout, y);
        sep = ", ";
    }
    if (!retyped && !reshaped) {
        uint32_t block = gguf_dtype_block_bytes(x->type);
        printf("%sbytes differ from byte %" PRIu64 " of %" PRIu64, sep, first_diff, x->nbytes);
        if (block > 1)
            printf(" (%s %" PRIu64 ")",
                   gguf_dtype_block_elems(x->type) > 1 ? "block" : "element", first_diff / block);
        sep = ", ";
    }
    if (values_state == 0) {
        fputs(sep, stdout);
        print_values_text(vs);
    } else if (values_state == 1) {
        printf("%svalues not comparable", sep);
    }
    putchar('\n');
}

static void values_note(vsummary *v, const gguf_tensor_info *x, const stats *s) {
    stats_add(&v->all, s);
    v->compared++;
    double c = stat_cos(s);
    if (v->compared == 1 || c < v->worst_cos) {
        v->worst_cos = c;
        name_copy(v->worst_cos_name, sizeof v->worst_cos_name, x);
    }
    if (v->compared == 1 || s->max_abs > v->worst_abs) {
        v->worst_abs = s->max_abs;
        name_copy(v->worst_abs_name, sizeof v->worst_abs_name, x);
    }
}

static void diff_tensors(dctx *d, vsummary *vsum) {
    const gguf_file *a = d->a, *b = d->b;
    if (d->o.json)
        fputs(",\"tensors\":[", stdout);
    d->first_json = 1;
    for (size_t i = 0; i < gguf_tensor_count(a) && !d->trouble; i++) {
        gguf_tensor_info x, y;
        gguf_tensor_get(&x, a, i);
        int64_t j = find_tensor(b, x.name, x.name_len);
        if (j < 0) {
            d->n++;
            if (!d->o.quiet)
                tensor_one(d, '-', &x);
            continue;
        }
        gguf_tensor_get(&y, b, (size_t)j);
        int same_layout = x.type == y.type && dims_equal(&x, &y);
        uint64_t first = 0;
        if (same_layout) {
            if (x.nbytes == GGUF_NBYTES_UNKNOWN || y.nbytes == GGUF_NBYTES_UNKNOWN)
                continue; /* unknown type: sizes unknown, nothing to compare */
            if ((d->o.quiet && d->n > 0) || d->headers_only)
                continue; /* the answer is known, or the bytes are not read */
            first = first_difference(d, i, (size_t)j, x.nbytes);
            if (first == UINT64_MAX)
                break;
            if (first == x.nbytes) {
                if (d->o.values && gguf_quant_can_dequantize(x.type)) {
                    stats zero = {elements(&x), 0, 0, 0, 0, 0};
                    vsum->all.n += zero.n; /* equal values: no error, counted */
                    vsum->compared++;
                }
                continue;
            }
        }
        d->n++;
        if (d->o.quiet)
            continue;
        stats vs = {0, 0, 0, 0, 0, 0};
        int state = 2; /* 0 compared, 1 not comparable, 2 not asked */
        if (d->o.values) {
            state = 1;
            if (elements(&x) == elements(&y)) {
                int rc = compare_values(d, i, (size_t)j, &vs);
                if (rc < 0) {
                    d->trouble = 1;
                    break;
                }
                state = rc == 0 ? 0 : 1;
            }
            if (state == 0) {
                values_note(vsum, &x, &vs);
                vsum->differing++;
            } else {
                vsum->not_comparable++;
            }
        }
        tensor_change(d, &x, &y, first, &vs, state);
    }
    for (size_t j = 0; j < gguf_tensor_count(b) && !d->trouble; j++) {
        gguf_tensor_info y;
        gguf_tensor_get(&y, b, j);
        if (find_tensor(a, y.name, y.name_len) >= 0)
            continue;
        d->n++;
        if (!d->o.quiet)
            tensor_one(d, '+', &y);
    }
    if (d->o.json)
        fputs("]", stdout);
}

static void header_diff(dctx *d) {
    const gguf_file *a = d->a, *b = d->b;
    if (d->o.json)
        fputs("\"header\":[", stdout);
    d->first_json = 1;
    struct {
        const char *field;
        uint64_t va, vb;
    } h[] = {{"version", gguf_file_version(a), gguf_file_version(b)},
             {"endian", gguf_file_endian(a), gguf_file_endian(b)},
             {"alignment", gguf_file_alignment(a), gguf_file_alignment(b)}};
    for (size_t k = 0; k < sizeof h / sizeof h[0]; k++) {
        if (h[k].va == h[k].vb)
            continue;
        d->n++;
        if (d->o.quiet)
            continue;
        int endian = k == 1;
        if (d->o.json) {
            json_sep(d);
            if (endian)
                printf("{\"field\":\"endian\",\"a\":\"%s\",\"b\":\"%s\"}", h[k].va ? "big" : "little",
                       h[k].vb ? "big" : "little");
            else
                printf("{\"field\":\"%s\",\"a\":%" PRIu64 ",\"b\":%" PRIu64 "}", h[k].field, h[k].va,
                       h[k].vb);
        } else if (endian) {
            printf("~ byte order %s -> %s (tensor bytes compared as stored)\n",
                   h[k].va ? "big" : "little", h[k].vb ? "big" : "little");
        } else {
            printf("~ %s %" PRIu64 " -> %" PRIu64 "\n", h[k].field, h[k].va, h[k].vb);
        }
    }
    if (d->o.json)
        fputs("]", stdout);
}

static int diff_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS; /* a shard: the whole split set */
    diff_values v = {0, 0, 0, 2, DEFAULT_MAX_ELEMS};
    cli_stdout_status = 2; /* a write error is trouble, as diff's */
    int status = opt_parse(&cmd_diff, argc, argv, &v, &flags);
    if (status >= 0)
        return status;
    opts o = {v.quiet, v.json, v.values, (unsigned)v.threads, v.max_elems};
    if (cli_operands(argc, 2, cmd_diff.synopsis) != 0)
        return 2;
    if (o.quiet)
        o.json = o.values = 0;
    dctx d = {argv[optind], argv[optind + 1], NULL, NULL, o, 0, 0, 1, NULL, NULL, 0};
    gguf_file *a = cli_open(d.path_a, flags);
    gguf_file *b = a ? cli_open(d.path_b, flags) : NULL;
    if (b == NULL) {
        gguf_file_free(a);
        return 2;
    }
    d.a = a;
    d.b = b;
    /* a URL is read for its header only: its tensor bytes would be the whole download */
    d.headers_only = gguf_file_is_remote(a) || gguf_file_is_remote(b);
    if (d.headers_only)
        cli_errorf("note: tensor bytes are not compared with a URL (only the headers are read)");
    vsummary vsum;
    memset(&vsum, 0, sizeof vsum);
    if (o.json) {
        fputs("{\"a\":", stdout);
        cli_json_str(stdout, d.path_a, strlen(d.path_a));
        fputs(",\"b\":", stdout);
        cli_json_str(stdout, d.path_b, strlen(d.path_b));
        putchar(',');
    }
    header_diff(&d);
    diff_kv(&d);
    diff_tensors(&d, &vsum);
    pool_stop();
    free(d.pa);
    free(d.pb);
    if (o.json && d.trouble) {
        printf(",\n\"summary\":{\"differences\":%" PRIu64 ",\"error\":true}}\n", d.n);
    } else if (o.json) {
        printf(",\n\"summary\":{\"differences\":%" PRIu64 ",\"values\":", d.n);
        if (o.values) {
            printf("{\"compared\":%" PRIu64 ",\"differing\":%" PRIu64 ",\"not_comparable\":%" PRIu64
                   ",\"all\":", vsum.compared, vsum.differing, vsum.not_comparable);
            print_values_json(&vsum.all);
            fputs(",\"worst_cos\":", stdout);
            if (vsum.differing) {
                fputs("{\"tensor\":", stdout);
                cli_json_str(stdout, vsum.worst_cos_name, strlen(vsum.worst_cos_name));
                fputs(",\"cos\":", stdout);
                cli_json_double(stdout, vsum.worst_cos, 12);
                putchar('}');
            } else {
                fputs("null", stdout);
            }
            putchar('}');
        } else {
            fputs("null", stdout);
        }
        fputs("}}\n", stdout);
    } else if (o.quiet && d.n > 0 && !d.trouble) {
        printf("Files ");
        cli_text_escape(stdout, d.path_a, strlen(d.path_a), 0);
        printf(" and ");
        cli_text_escape(stdout, d.path_b, strlen(d.path_b), 0);
        printf(" differ\n");
    } else if (o.values && !d.trouble && vsum.compared > 0) {
        printf("= values: %" PRIu64 " tensors in both files, %" PRIu64 " with other values",
               vsum.compared, vsum.differing);
        if (vsum.not_comparable)
            printf(", %" PRIu64 " not comparable", vsum.not_comparable);
        printf("; over all %" PRIu64 " elements: ", vsum.all.n);
        print_values_text(&vsum.all);
        if (vsum.differing) {
            printf("; worst cos %.9f (", vsum.worst_cos);
            cli_text_escape(stdout, vsum.worst_cos_name, strlen(vsum.worst_cos_name), 0);
            printf("), largest error %.6g (", vsum.worst_abs);
            cli_text_escape(stdout, vsum.worst_abs_name, strlen(vsum.worst_abs_name), 0);
            putchar(')');
        }
        putchar('\n');
    }
    gguf_file_free(a);
    gguf_file_free(b);
    if (fflush(stdout) != 0 || d.trouble)
        return 2;
    return d.n > 0 ? 1 : 0;
}
