/* Writing an edited file back over itself. When the edited header still rounds up to the
 * file's data offset, only the header region is rewritten, through the journal (journal.c);
 * otherwise the file is saved whole to a temporary file and renamed over itself (save.c).
 * Either way a proof runs before anything is replaced, the editor holds an exclusive flock on
 * the file, and the file must still be the one that was read, checked at the start and again
 * just before the rename or the in-place write. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* Writes the header region in place through the journal. */
static int update_in_place(const gguf_file *f, const char *real, int fd, const struct stat *st,
                           const gguf__identity *expect, const uint8_t *region, size_t len,
                           gguf_error *err) {
    char *jpath = gguf__journal_path(real);
    if (jpath == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = gguf__verify_header(f, region, len, err);
    if (rc == 0)
        rc = gguf__journal_create(real, st, f->head, region, len, err);
    if (rc != 0) {
        gguf__free(jpath);
        return rc;
    }
    gguf__journal j;
    bool touched = false;
    rc = gguf__journal_load(&j, real, st, err);
    if (rc == 0)
        rc = gguf__identity_check(real, expect, err);
    if (rc == 0)
        rc = gguf__journal_apply(&j, fd, real, &touched, err);
    gguf__journal_free(&j);
    /* done, or never begun (the file changed, a check failed): the journal goes, so that it
     * cannot finish an edit that did not happen; the write began and failed: it stays, for
     * recover to finish the edit */
    int rm = 0;
    if (rc == 0 || !touched)
        rm = gguf__journal_remove(jpath, rc == 0 ? err : NULL);
    gguf__free(jpath);
    return rc != 0 ? rc : rm;
}

/* The header region for an in-place write (header + zero padding up to the data offset), or
 * NULL in *region when the edited header does not round up to the same data offset. */
static int in_place_region(gguf__buf *region, const gguf_file *f, gguf_error *err) {
    gguf__sink h = {.big = f->big, .wide = f->version >= 2};
    int rc = gguf__header_serialize(&h, f, f->version, f->big, NULL, err);
    uint64_t end;
    if (rc == 0 && gguf__align_up(&end, h.b.len, f->alignment) && end == f->data_offset) {
        gguf__buf_zeros(&h.b, (size_t)(f->data_offset - h.b.len));
        if (h.b.failed)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        if (rc == 0) {
            *region = h.b;
            return 0;
        }
    }
    gguf__buf_free(&h.b);
    return rc;
}

int gguf_file_update(const gguf_file *f, const char *path, const gguf_write_options *opt,
                     gguf_update_result *res, gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to update");
    gguf_update_result r = {0};
    /* edit the file a symbolic link points to, and keep the link */
    char *real = realpath(path, NULL);
    if (real == NULL) {
        gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s", strerror(errno));
        gguf__fail_path(err, path);
        return GGUF_EIO;
    }
    struct stat st;
    int rc = 0;
    int fd = open(real, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "read-only: nothing changed");
    else if (fd < 0 || fstat(fd, &st) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot open for writing: %s",
                        strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "not a regular file: refused");
    else if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "read-only: nothing changed");
    /* one editor at a time: a second one fails at once instead of interleaving */
    else if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "being edited by another process: nothing changed");
    if (rc == 0)
        gguf__temp_sweep(real); /* what killed edits left beside it */
    gguf__identity expect;
    gguf__identity_of_file(&expect, f);
    if (rc == 0 && expect.set)
        rc = gguf__identity_check(real, &expect, err);
    if (rc == 0) {
        /* an interrupted edit must be finished (gguf_file_recover) before another starts */
        char *jpath = gguf__journal_path(real);
        struct stat js;
        if (jpath == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        else if (lstat(jpath, &js) == 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "an interrupted edit is pending (%s): run `gguf-edit recover` first",
                            jpath);
        gguf__free(jpath);
    }
    r.hard_links = rc == 0 ? (unsigned)st.st_nlink : 0;
    bool keep_format = opt == NULL ||
                       ((opt->version == 0 || opt->version == f->version) &&
                        (opt->endian < 0 || (opt->endian == GGUF_ENDIAN_BIG) == f->big) &&
                        opt->layout == GGUF_LAYOUT_KEEP);
    bool in_place = false;
    if (rc == 0 && keep_format && expect.set && !f->must_pack && f->n_tensors > 0 &&
        !(opt != NULL && opt->no_in_place)) {
        gguf__buf region = {0};
        rc = in_place_region(&region, f, err);
        if (rc == 0 && region.data != NULL) {
            in_place = true;
            rc = update_in_place(f, real, fd, &st, &expect, region.data, region.len, err);
            if (rc == 0) {
                r.in_place = 1;
                r.tensors_checked = f->n_tensors;
            }
        }
        gguf__buf_free(&region);
    }
    if (rc == 0 && !in_place) {
        gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
        if (opt != NULL)
            o = *opt;
        o.verify = 1;
        rc = gguf__save(f, real, &o, expect.set ? &expect : NULL, err);
        if (rc == 0)
            r.tensors_checked = f->n_tensors;
    }
    if (fd >= 0)
        close(fd);
    free(real);
    gguf__fail_path(err, path);
    if (rc == 0 && res != NULL)
        *res = r;
    return rc;
}
