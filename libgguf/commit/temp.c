/* Temporary files beside a target. A writer holds an exclusive flock on its temporary file for
 * as long as it lives; the lock dies with the process, so a sweep that can take the lock knows
 * the writer is gone and the file is litter, and a sweep that cannot leaves a live file alone
 * (an edit must never delete a copy that another command is still writing).
 *
 * Every live temporary file is also listed in a registry, so that an interrupted program can
 * remove them on its way out (gguf_interrupt_cleanup): a program that dies by a signal never
 * runs its cleanup code, and a sweep only happens at the next write beside the same target.
 * The registry's lock orders the cleanup against the renames that put temporary files in
 * place (each happens wholly before or after it), and against the in-place windows
 * (gguf__interrupt_hold): a cleanup waits for the window to close, and no new window opens
 * once a cleanup is waiting. After the cleanup, a rename or a new window never happens: the
 * thread that asks waits for the end of the process. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* ---- the registry of live temporary files ---- */

#define LIVE_MAX 64

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const char *paths[LIVE_MAX]; /* borrowed from their writers until released */
    unsigned holds;              /* in-place windows open */
    bool waiting;                /* a cleanup waits for the windows to close */
    bool closed;                 /* the cleanup ran: the process is on its way out */
} live = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static _Thread_local unsigned hold_depth;

/* Called with live.lock held: after a cleanup, the caller waits for the end of the process. */
static void wait_unless_open(void) {
    while (live.closed)
        pthread_cond_wait(&live.changed, &live.lock);
}

static int live_add(const char *path) {
    pthread_mutex_lock(&live.lock);
    wait_unless_open();
    int rc = -1;
    for (size_t i = 0; rc != 0 && i < LIVE_MAX; i++) {
        if (live.paths[i] == NULL) {
            live.paths[i] = path;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&live.lock);
    return rc;
}

/* Called with live.lock held. */
static void live_drop(const char *path) {
    for (size_t i = 0; i < LIVE_MAX; i++) {
        if (live.paths[i] == path)
            live.paths[i] = NULL;
    }
}

void gguf__interrupt_hold(void) {
    if (hold_depth++ > 0)
        return;
    pthread_mutex_lock(&live.lock);
    while (live.waiting || live.closed)
        pthread_cond_wait(&live.changed, &live.lock);
    live.holds++;
    pthread_mutex_unlock(&live.lock);
    gguf__test_window(1);
}

void gguf__interrupt_release(void) {
    if (--hold_depth > 0)
        return;
    gguf__test_window(-1);
    pthread_mutex_lock(&live.lock);
    live.holds--;
    pthread_cond_broadcast(&live.changed);
    /* an interrupt came during the window: the edit is whole, and the process ends by the
     * signal rather than run on to an ordinary exit */
    if (live.waiting || gguf__test_interrupting()) {
        for (;;)
            pthread_cond_wait(&live.changed, &live.lock);
    }
    pthread_mutex_unlock(&live.lock);
}

int gguf_interrupt_cleanup(void) {
    pthread_mutex_lock(&live.lock);
    live.waiting = true;
    while (live.holds > 0)
        pthread_cond_wait(&live.changed, &live.lock);
    live.closed = true;
    int removed = 0;
    for (size_t i = 0; i < LIVE_MAX; i++) {
        if (live.paths[i] != NULL && unlink(live.paths[i]) == 0)
            removed++;
        live.paths[i] = NULL;
    }
    pthread_mutex_unlock(&live.lock);
    return removed;
}

int gguf__temp_rename(const char *tmp, const char *target) {
    pthread_mutex_lock(&live.lock);
    wait_unless_open();
    int rc = gguf__io_rename(tmp, target);
    int e = errno;
    if (rc == 0)
        live_drop(tmp);
    pthread_mutex_unlock(&live.lock);
    errno = e;
    return rc;
}

void gguf__temp_discard(const char *tmp) {
    pthread_mutex_lock(&live.lock);
    unlink(tmp);
    live_drop(tmp);
    pthread_mutex_unlock(&live.lock);
}

int gguf__temp_track(const char *path) {
    return live_add(path);
}

void gguf__temp_untrack(const char *path) {
    pthread_mutex_lock(&live.lock);
    live_drop(path);
    pthread_mutex_unlock(&live.lock);
}

/* ---- what may be an output ---- */

/* Is the file st describes one that f reads (f's file, or a shard of its set)? */
static bool reads(const gguf_file *f, const struct stat *st) {
    const gguf__source *s = f != NULL ? f->src : NULL;
    for (size_t k = 0; s != NULL; k++) {
        const gguf__source *part = gguf__source_part(s, k);
        if (part == NULL)
            break;
        if (part->fd >= 0 && part->dev == (uint64_t)st->st_dev &&
            part->ino == (uint64_t)st->st_ino)
            return true;
    }
    return false;
}

int gguf_output_check(const char *target, const gguf_file *input, gguf_error *err) {
    struct stat st;
    if (target == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no output named");
    if (gguf__source_is_url(target)) {
        gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                   "a URL cannot be written: save to a local path");
        gguf__fail_path(err, target);
        return GGUF_EINVAL;
    }
    if (stat(target, &st) != 0)
        return 0; /* absent: to be created */
    const char *kind = S_ISREG(st.st_mode) ? NULL
                       : S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) ? "a character device"
                       : S_ISBLK(st.st_mode) ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
    if (kind != NULL)
        gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                   "the output is %s: refused (an output must be a regular file or a new name)",
                   kind);
    else if (reads(input, &st))
        gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                   "the output is a file of the input (the same file, a link to it or a shard "
                   "of its set): refused, nothing written (choose another output)");
    else
        return 0;
    gguf__fail_path(err, target);
    return GGUF_EINVAL;
}

/* Mode for a new file at target: target's own (it is being replaced), else 0666 less umask. */
static void copy_mode_and_owner(int fd, const char *target) {
    struct stat st;
    mode_t mode;
    if (stat(target, &st) == 0) {
        mode = st.st_mode & 07777;
        /* keep the owner and group too, where we may (root, or a group we belong to) */
        if (fchown(fd, st.st_uid, st.st_gid) != 0 && fchown(fd, (uid_t)-1, st.st_gid) != 0) {
            /* not allowed: the new file belongs to us, as any rewrite by us would */
        }
    } else {
        mode_t mask = umask(022);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
}

int gguf__temp_create(char **path_out, const char *target, const char *tag, gguf_error *err) {
    char suffix[64];
    snprintf(suffix, sizeof suffix, "%s-XXXXXX", tag);
    for (int attempt = 0; attempt < 100; attempt++) {
        char *tmp = gguf__path_beside(target, ".", suffix);
        if (tmp == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            gguf__free(tmp);
            gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                       "cannot create a temporary file beside it: %s", strerror(e));
            gguf__fail_path(err, target);
            return GGUF_EIO;
        }
        /* a sweep may have taken the file between mkostemp and the lock: then it is gone
         * (no links left) and another name is tried */
        struct stat st;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) {
            if (live_add(tmp) != 0) {
                unlink(tmp);
                close(fd);
                gguf__free(tmp);
                gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                           "cannot create a temporary file beside it: %d are open already",
                           LIVE_MAX);
                gguf__fail_path(err, target);
                return GGUF_ELIMIT;
            }
            copy_mode_and_owner(fd, target);
            *path_out = tmp;
            return fd;
        }
        close(fd);
        gguf__free(tmp);
    }
    gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
               "cannot create a temporary file beside it: every name was taken away");
    gguf__fail_path(err, target);
    return GGUF_EIO;
}

/* Is `name` one of target's temporary files: "." BASE tag "-" and six characters? */
static bool is_temp_of(const char *name, const char *base, size_t base_len) {
    static const char *const tags[] = {".tmp-", ".gguf-journal.tmp-"};
    if (name[0] != '.' || strncmp(name + 1, base, base_len) != 0)
        return false;
    const char *rest = name + 1 + base_len;
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        size_t n = strlen(tags[i]);
        if (strncmp(rest, tags[i], n) == 0 && strlen(rest + n) == 6)
            return true;
    }
    return false;
}

void gguf__temp_sweep(const char *target) {
    struct stat ts;
    if (stat(target, &ts) != 0)
        return;
    char *dir = gguf__path_dir(target);
    char *beside = gguf__path_beside(target, "", "");
    DIR *d = dir != NULL ? opendir(dir) : NULL;
    if (d != NULL && beside != NULL) {
        const char *base = strrchr(beside, '/');
        base = base != NULL ? base + 1 : beside;
        size_t base_len = strlen(base);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!is_temp_of(e->d_name, base, base_len))
                continue;
            /* never follow a link, never block on a FIFO someone named like ours */
            int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
            if (fd < 0)
                continue;
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ts.st_uid &&
                flock(fd, LOCK_EX | LOCK_NB) == 0)
                unlinkat(dirfd(d), e->d_name, 0); /* its writer is gone */
            close(fd);
        }
    }
    if (d != NULL)
        closedir(d);
    gguf__free(dir);
    gguf__free(beside);
}
