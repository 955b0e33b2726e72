/* Saving a file atomically: the bytes go to a temporary file beside the target, which is
 * fsync'd, proven, checked to be still the file that was read (for an edit), renamed over the
 * target, and the folder fsync'd. An interruption at any point leaves the old file.
 *
 * The proof: the header region read back from the output must be the one written (its crc32),
 * and every tensor must have the source's name, type, size and bytes. Blocks the kernel cloned
 * (a reflink: the two files share them) are the same bytes by construction. Bytes the kernel
 * copied are compared while the copy goes on: each range is read back from both files (from the page
 * cache, where the copy just put them) and compared on a second thread while the next range is
 * copied and while the output is fsync'd, so the proof costs little more than the copy. Tensor
 * bytes that came another way (a byte-order conversion, a fill callback) are compared by their
 * crc32s after the write. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* ---- comparing copied ranges on a second thread ---- */

#define QUEUE 16
#define PIECE ((size_t)4 << 20)

typedef struct range {
    uint64_t src, dst, n;
} range;

typedef struct comparer {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    range q[QUEUE];
    size_t head, count;
    bool closed;        /* no more ranges will come */
    uint64_t cloned;    /* bytes the kernel cloned (not compared: shared blocks) */
    int src_fd, dst_fd;
    uint8_t *a, *b;     /* PIECE bytes each */
    int rc;             /* 0, or the first failure: GGUF_ECORRUPT (different bytes) or GGUF_EIO */
    int errnum;
    uint64_t bad_at;    /* where, in the output */
} comparer;

static void comparer_push(void *user, uint64_t src, uint64_t dst, uint64_t n, bool cloned) {
    comparer *c = user;
    if (cloned) {
        c->cloned += n; /* the files share these blocks: the same bytes by construction */
        return;
    }
    pthread_mutex_lock(&c->lock);
    while (c->count == QUEUE)
        pthread_cond_wait(&c->changed, &c->lock);
    c->q[(c->head + c->count++) % QUEUE] = (range){src, dst, n};
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
}

static void comparer_close(comparer *c) {
    pthread_mutex_lock(&c->lock);
    c->closed = true;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
}

static void compare_range(comparer *c, range r) {
    for (uint64_t at = 0; c->rc == 0 && at < r.n;) {
        size_t k = r.n - at < PIECE ? (size_t)(r.n - at) : PIECE;
        if (gguf__io_pread(c->src_fd, c->a, k, r.src + at) != 0 ||
            gguf__io_pread(c->dst_fd, c->b, k, r.dst + at) != 0) {
            c->rc = GGUF_EIO;
            c->errnum = errno;
            c->bad_at = r.dst + at;
        } else if (memcmp(c->a, c->b, k) != 0) {
            size_t i = 0;
            while (c->a[i] == c->b[i])
                i++;
            c->rc = GGUF_ECORRUPT;
            c->bad_at = r.dst + at + i;
        }
        at += k;
    }
}

static void comparer_run(comparer *c) {
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (c->count == 0 && !c->closed)
            pthread_cond_wait(&c->changed, &c->lock);
        if (c->count == 0)
            break;
        range r = c->q[c->head];
        c->head = (c->head + 1) % QUEUE;
        c->count--;
        pthread_cond_broadcast(&c->changed);
        pthread_mutex_unlock(&c->lock);
        compare_range(c, r); /* after a failure it only drains the queue */
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
}

/* ---- the save ---- */

typedef struct save_job {
    const gguf_file *f;
    int fd;
    const char *tmp;
    const gguf_write_options *opt;
    gguf__write_ctl ctl;
    comparer *cmp;      /* NULL: no comparison alongside */
    int rc;
    gguf_error err;
} save_job;

/* Task 0 writes and syncs the output; task 1 compares what the kernel copied. */
static void save_task(void *ctx, size_t task, unsigned worker) {
    (void)worker;
    save_job *j = ctx;
    if (task == 1) {
        comparer_run(j->cmp);
        return;
    }
    j->rc = gguf__write_fd(j->fd, j->tmp, j->f, j->opt, &j->ctl, &j->err);
    if (j->rc == 0)
        gguf__test_pause("written");
    if (j->rc == 0 && gguf__io_fsync(j->fd) != 0)
        j->rc = gguf__fail(&j->err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "fsync of %s failed: %s",
                           j->tmp, gguf__io_strerror(errno));
    if (j->rc == 0)
        gguf__test_pause("synced");
    if (j->cmp != NULL)
        comparer_close(j->cmp);
}

/* Reads the output back: its header region must be the one written, and every tensor must have
 * the source's name, type and size, and its bytes (compared during the copy, or now by crc32). */
static int prove(const gguf_file *f, const char *tmp, const save_job *j, gguf_error *err) {
    if (j->cmp != NULL && j->cmp->rc == GGUF_ECORRUPT)
        return gguf__fail(err, GGUF_ECORRUPT, j->cmp->bad_at,
                          "check failed: byte %llu of the output differs from the source's",
                          (unsigned long long)j->cmp->bad_at);
    if (j->cmp != NULL && j->cmp->rc != 0)
        return gguf__fail(err, GGUF_EIO, j->cmp->bad_at, "check failed: reading back: %s",
                          gguf__io_strerror(j->cmp->errnum));
    gguf_file *back = NULL;
    int rc = gguf_file_open(&back, tmp, f->flags & (GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES),
                            err);
    uint32_t crc = 0;
    if (rc == 0)
        rc = gguf__crc_range(&crc, back, 0, back->data_offset, err);
    if (rc == 0 && crc != j->ctl.header_crc)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "check failed: the header read back has crc32 %08x, not the %08x written",
                        crc, j->ctl.header_crc);
    bool compared = j->cmp != NULL && j->ctl.all_copied;
    if (rc == 0)
        rc = gguf__verify_output(f, back, !compared, err);
    gguf_file_free(back);
    return rc;
}

int gguf__save(const gguf_file *f, const char *path, const gguf_write_options *opt,
               int64_t padding, const gguf__identity *expect, uint64_t *cloned,
               gguf_error *err) {
    /* an edit writes back over its own file (update.c); any other save never does */
    int rc = gguf_output_check(path, expect != NULL ? NULL : f, err);
    if (rc != 0)
        return rc;
    gguf__temp_sweep(path);
    char *tmp = NULL;
    int fd = gguf__temp_create(&tmp, path, ".tmp", err);
    if (fd < 0)
        return fd;
    gguf__test_pause("temp-created");
    bool swapped = opt != NULL && opt->endian >= 0 && (opt->endian == GGUF_ENDIAN_BIG) != f->big;
    bool verify = opt != NULL && opt->verify && !swapped;
    save_job job = {.f = f, .fd = fd, .tmp = tmp, .opt = opt, .ctl = {.padding = padding}};
    gguf_error_clear(&job.err);
    comparer cmp = {.src_fd = f->src != NULL ? f->src->fd : -1, .dst_fd = fd};
    gguf__pool *pool = NULL;
    /* the comparison alongside needs a second thread; without one the crc32s do it after */
    if (verify && cmp.src_fd >= 0 && gguf__pool_new(&pool, 2) == 0 &&
        gguf__pool_threads(pool) == 2 && (cmp.a = gguf__malloc(PIECE)) != NULL &&
        (cmp.b = gguf__malloc(PIECE)) != NULL && pthread_mutex_init(&cmp.lock, NULL) == 0) {
        if (pthread_cond_init(&cmp.changed, NULL) == 0) {
            job.cmp = &cmp;
            job.ctl.copied = comparer_push;
            job.ctl.copied_user = &cmp;
        } else {
            pthread_mutex_destroy(&cmp.lock);
        }
    }
    gguf__pool_run(job.cmp != NULL ? pool : NULL, job.cmp != NULL ? 2 : 1, save_task, &job);
    rc = job.rc;
    if (rc != 0 && err != NULL && err->code == 0)
        *err = job.err;
    if (rc == 0 && verify)
        rc = prove(f, tmp, &job, err);
    if (job.cmp != NULL) {
        pthread_cond_destroy(&cmp.changed);
        pthread_mutex_destroy(&cmp.lock);
    }
    gguf__free(cmp.a);
    gguf__free(cmp.b);
    gguf__pool_free(pool);
    /* the output is written and proven, the target not yet checked nor replaced */
    if (rc == 0)
        gguf__test_pause("save-proven");
    if (rc == 0 && expect != NULL && expect->set)
        rc = gguf__identity_check(path, expect, err);
    if (rc == 0)
        gguf__test_pause("renaming");
    if (rc == 0 && gguf__temp_rename(tmp, path) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot rename %s over it: %s", tmp,
                        gguf__io_strerror(errno));
    if (rc != 0) {
        gguf__temp_discard(tmp);
    } else {
        gguf__test_pause("renamed");
        (void)gguf__io_sync_dir(path); /* the rename is done; a failed folder sync cannot undo it */
        gguf__test_pause("folder-synced");
    }
    if (rc == 0 && cloned != NULL)
        *cloned = cmp.cloned;
    /* closed last: the lock on the temporary file keeps sweeps away until it has its name
     * (its bytes were fsync'd, so a failing close loses nothing) */
    close(fd);
    gguf__free(tmp);
    gguf__fail_path(err, path);
    return rc;
}

int gguf_file_save(const gguf_file *f, const char *path, const gguf_write_options *opt,
                   gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to save");
    gguf_write_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_write_options, GGUF_WRITE_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    return gguf__save(f, path, &o, GGUF__PAD_KEEP, NULL, NULL, err);
}
