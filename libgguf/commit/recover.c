/* Finishing an interrupted in-place edit: an editor's explicit step (gguf-edit recover, and
 * every edit before it starts), never a reader's. Readers may ask whether a journal is
 * pending, which only reads. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int gguf_file_journal(int *state, const char *path, gguf_error *why) {
    if (state == NULL || path == NULL)
        return gguf__fail(why, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file given");
    *state = GGUF_JOURNAL_NONE;
    if (gguf__source_is_url(path))
        return 0; /* nothing is ever journaled beside a URL */
    struct stat st;
    char *jpath = gguf__journal_path(path);
    if (jpath == NULL)
        return gguf__fail(why, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    struct stat js;
    bool present = lstat(jpath, &js) == 0;
    gguf__free(jpath);
    if (!present)
        return 0;
    if (stat(path, &st) != 0) {
        *state = GGUF_JOURNAL_REFUSED;
        gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "a journal is there but the file is "
                   "not: %s", strerror(errno));
        gguf__fail_path(why, path);
        return 0;
    }
    gguf__journal j;
    gguf_error sub;
    gguf_error_clear(&sub);
    int rc = gguf__journal_load(&j, path, &st, &sub);
    if (rc == 0) {
        /* and the file is in a state the journal describes */
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        rc = fd < 0 ? gguf__fail(&sub, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot open: %s",
                                 strerror(errno))
                    : gguf__journal_matches(&j, fd, NULL, &sub);
        if (fd >= 0)
            close(fd);
        gguf__journal_free(&j);
    }
    if (rc == GGUF_ENOMEM) {
        if (why != NULL)
            *why = sub;
        return rc;
    }
    if (rc == 0) {
        *state = GGUF_JOURNAL_PENDING;
    } else if (rc != GGUF_ENOTFOUND) {
        *state = GGUF_JOURNAL_REFUSED;
        if (why != NULL)
            *why = sub;
    }
    return 0;
}

int gguf__recover_locked(const char *real, int fd, const struct stat *st, int *recovered,
                         gguf_error *err) {
    gguf__journal j;
    char *jpath = gguf__journal_path(real);
    if (jpath == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = gguf__journal_load(&j, real, st, err);
    if (rc == GGUF_ENOTFOUND) {
        gguf__free(jpath);
        return 0;
    }
    bool touched;
    uint8_t *region = NULL;
    gguf__interrupt_hold(); /* an interrupt waits for the journal to be applied and gone */
    if (rc == 0) {
        rc = gguf__journal_matches(&j, fd, &region, err);
        gguf__fail_path(err, real);
    }
    if (rc == 0)
        rc = gguf__journal_apply(&j, fd, region, real, &touched, err);
    gguf__free(region);
    gguf__journal_free(&j);
    if (rc == 0)
        rc = gguf__journal_remove(jpath, err);
    gguf__interrupt_release();
    gguf__free(jpath);
    if (rc == 0 && recovered != NULL)
        *recovered = 1;
    return rc;
}

int gguf_file_recover(const char *path, int *recovered, gguf_error *err) {
    if (recovered != NULL)
        *recovered = 0;
    if (path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file given");
    if (gguf__source_is_url(path)) {
        gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                   "a URL has no journal to recover: only local files are edited");
        gguf__fail_path(err, path);
        return GGUF_EINVAL;
    }
    /* the file a symbolic link names is the one edits change, and its journal is beside it */
    char *real = realpath(path, NULL);
    if (real == NULL) {
        gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s", strerror(errno));
        gguf__fail_path(err, path);
        return GGUF_EIO;
    }
    /* what killed edits left beside it (a journal or a copy half written: their writer is
     * gone); a live writer's file keeps its lock and stays */
    gguf__temp_sweep(real);
    char *jpath = gguf__journal_path(real);
    struct stat js;
    bool present = jpath != NULL && lstat(jpath, &js) == 0;
    gguf__free(jpath);
    if (!present) {
        free(real);
        return 0; /* nothing to finish */
    }
    int rc = 0;
    int fd = open(real, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot open for writing: %s",
                        strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "not a regular file: refused");
    else if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "being edited by another process: nothing changed");
    if (rc == 0)
        rc = gguf__recover_locked(real, fd, &st, recovered, err);
    if (fd >= 0)
        close(fd);
    gguf__fail_path(err, path);
    free(real);
    return rc;
}
