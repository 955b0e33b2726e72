/* The one thread pool: a fixed set of workers that run batches of tasks fork-join style. The
 * caller's thread takes part in every batch, so a pool of one thread (or one whose threads could
 * not be started) runs everything on the caller's thread, with the same results. */
#include "base/base.h"

#include <pthread.h>
#include <stdatomic.h>

#define POOL_MAX 256

typedef struct worker {
    struct gguf__pool *pool;
    unsigned id; /* 1.. ; the caller is worker 0 */
    pthread_t tid;
} worker;

struct gguf__pool {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a batch was posted, or stop */
    pthread_cond_t done; /* the last worker left the batch */
    worker workers[POOL_MAX];
    unsigned started;    /* threads running besides the caller */
    unsigned long batch; /* number of the current batch */
    unsigned busy;       /* threads still in the current batch */
    bool stop;
    gguf__pool_fn fn;
    void *ctx;
    size_t n_tasks;
    atomic_size_t next; /* the next task to hand out */
};

static void run_tasks(gguf__pool *p, unsigned id) {
    for (;;) {
        size_t t = atomic_fetch_add(&p->next, 1);
        if (t >= p->n_tasks)
            return;
        p->fn(p->ctx, t, id);
    }
}

static void *worker_main(void *arg) {
    worker *w = arg;
    gguf__pool *p = w->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->batch == seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        seen = p->batch;
        pthread_mutex_unlock(&p->lock);
        run_tasks(p, w->id);
        pthread_mutex_lock(&p->lock);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int gguf__pool_new(gguf__pool **out, unsigned threads) {
    gguf__pool *p = gguf__calloc(1, sizeof *p);
    if (p == NULL)
        return GGUF_ENOMEM;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        gguf__free(p);
        return GGUF_ENOMEM;
    }
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        gguf__free(p);
        return GGUF_ENOMEM;
    }
    if (pthread_cond_init(&p->done, NULL) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        gguf__free(p);
        return GGUF_ENOMEM;
    }
    atomic_init(&p->next, 0);
    if (threads > POOL_MAX)
        threads = POOL_MAX;
    /* threads that cannot be started leave their share to the others */
    for (unsigned i = 1; i < threads; i++) {
        worker *w = &p->workers[p->started];
        w->pool = p;
        w->id = p->started + 1;
        if (pthread_create(&w->tid, NULL, worker_main, w) != 0)
            break;
        p->started++;
    }
    *out = p;
    return 0;
}

unsigned gguf__pool_threads(const gguf__pool *p) {
    return p != NULL ? p->started + 1 : 1;
}

void gguf__pool_run(gguf__pool *p, size_t n_tasks, gguf__pool_fn fn, void *ctx) {
    if (p == NULL || p->started == 0 || n_tasks <= 1) {
        for (size_t t = 0; t < n_tasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->ctx = ctx;
    p->n_tasks = n_tasks;
    atomic_store(&p->next, 0);
    p->busy = p->started;
    p->batch++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    run_tasks(p, 0);
    pthread_mutex_lock(&p->lock);
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

void gguf__pool_free(gguf__pool *p) {
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->workers[i].tid, NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    gguf__free(p);
}
