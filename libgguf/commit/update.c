/* Writing an edited file back over itself. In order of preference:
 *   1. in place: the edited header still rounds up to the file's data offset (the padding key,
 *      when the file has one, is sized to make it so): only the header region is rewritten,
 *      through the journal (journal.c);
 *   2. in place, growing: the file has the padding key (or the caller asks for room) and the
 *      header outgrew it: whole filesystem blocks are inserted before the data
 *      (FALLOC_FL_INSERT_RANGE, on ext4 and XFS: no data is copied), through the journal too;
 *   3. a rewrite: the file is saved whole to a temporary file and renamed over itself (save.c);
 *      with the padding key the data moves by whole blocks, so that the kernel can clone it
 *      (reflinks on XFS and btrfs) instead of copying it.
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

/* Writes the header region in place through the journal (inserting blocks first when j asks):
 * region is the new one, f->head the old one as the open read it, the only read of it. The
 * file is known to hold those bytes still by its identity, checked under the edit lock just
 * before the write. Returns GGUF_EUNSUPPORTED, the file untouched and no journal left, when the
 * filesystem cannot insert blocks. */
static int update_in_place(const gguf_file *f, const char *real, int fd,
                           const gguf__identity *expect, gguf__journal *j,
                           const uint8_t *region, gguf_error *err) {
    char *jpath = gguf__journal_path(real);
    if (jpath == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = gguf__verify_header(f, region, (size_t)(j->len + j->insert_len), j->insert_len,
                                 false, err);
    /* from the journal's creation to its removal: an interrupt waits for the end */
    gguf__interrupt_hold();
    if (rc == 0)
        rc = gguf__journal_measure(j, fd, err);
    if (rc == 0)
        rc = gguf__journal_build(j, f->head, region, err);
    if (rc == 0 && j->n_ranges == 0 && j->insert_len == 0) {
        /* the file holds the new region already: nothing to write */
        gguf__interrupt_release();
        gguf__free(jpath);
        return 0;
    }
    if (rc == 0)
        rc = gguf__journal_create(real, j, err);
    if (rc == 0)
        gguf__test_pause("journal-created");
    if (rc != 0) {
        gguf__interrupt_release();
        gguf__free(jpath);
        return rc;
    }
    bool touched = false;
    rc = gguf__identity_check(real, expect, err);
    if (rc == 0)
        rc = gguf__journal_apply(j, fd, region, real, &touched, err);
    if (rc == 0)
        gguf__test_pause("journal-applied");
    /* done, or never begun (the file changed, a check failed, no block insertion here): the
     * journal goes, so that it cannot finish an edit that did not happen; the write began and
     * failed: it stays, for recover to finish the edit */
    int rm = 0;
    if (rc == 0 || !touched)
        rm = gguf__journal_remove(jpath, rc == 0 ? err : NULL);
    if (rc == 0 && rm == 0)
        gguf__test_pause("journal-removed");
    gguf__interrupt_release();
    gguf__free(jpath);
    return rc != 0 ? rc : rm;
}

/* The smallest header region D' = D + k * step (k >= 1) that holds f's header with `room`
 * bytes of padding; its bytes in *region. */
static int grown_region(gguf__buf *region, int64_t *padding, const gguf_file *f, uint64_t step,
                        uint64_t room, gguf_error *err) {
    gguf__sink h = {0};
    int rc = gguf__header_serialize(&h, f, f->version, f->big, NULL, GGUF__PAD_DROP, err);
    uint64_t need = h.b.len + gguf__padding_overhead(f->version >= 2) + room;
    gguf__buf_free(&h.b);
    if (rc != 0)
        return rc;
    uint64_t k = need > f->data_offset ? (need - f->data_offset + step - 1) / step : 1;
    uint64_t end;
    if (!gguf__mul_u64(&end, k, step) || !gguf__add_u64(&end, end, f->data_offset))
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "the header is too large");
    rc = gguf__header_fit(region, padding, f, end, room, true, err);
    if (rc == GGUF_ELIMIT) /* cannot happen: end was sized for it */
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "the header does not fit");
    return rc;
}

/* Opens the file for the edit and takes the editor's lock: fd, st filled. */
static int lock_file(int *fd_out, struct stat *st, const char *real, gguf_error *err) {
    int fd = open(real, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    int rc = 0;
    if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "read-only: nothing changed");
    else if (fd < 0 || fstat(fd, st) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot open for writing: %s",
                        strerror(errno));
    else if (!S_ISREG(st->st_mode))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "not a regular file: refused");
    else if (!(st->st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "read-only: nothing changed");
    /* one editor at a time: a second one fails at once instead of interleaving */
    else if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "being edited by another process: nothing changed");
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
    if (rc != 0 && fd >= 0) {
        close(fd);
        fd = -1;
    }
    *fd_out = fd;
    return rc;
}

int gguf_file_update(const gguf_file *f, const char *path, const gguf_write_options *opt,
                     gguf_update_result *res, gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to update");
    gguf_write_options given;
    int rc = GGUF__OPTIONS_READ(given, gguf_write_options, GGUF_WRITE_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    opt = &given;
    if (f->n_shards > 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "a split set cannot be written over one file: edit its first shard "
                          "alone, or save the set to a new file");
    int complete = gguf__file_complete(f, err);
    if (complete != 0)
        return complete;
    if (gguf__source_is_url(path) || (f->src != NULL && f->src->kind == GGUF__SOURCE_HTTP)) {
        gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                   "a file read from a URL cannot be edited in place: save the edited file "
                   "to a local path");
        gguf__fail_path(err, path);
        return GGUF_EINVAL;
    }
    gguf_update_result r = {0};
    /* edit the file a symbolic link points to, and keep the link */
    char *real = realpath(path, NULL);
    if (real == NULL) {
        gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s", strerror(errno));
        gguf__fail_path(err, path);
        return GGUF_EIO;
    }
    struct stat st;
    int fd;
    rc = lock_file(&fd, &st, real, err);
    if (rc == 0)
        gguf__temp_sweep(real); /* what killed edits left beside it */
    gguf__identity expect;
    gguf__identity_of_file(&expect, f);
    if (rc == 0 && expect.set)
        rc = gguf__identity_check(real, &expect, err);
    r.hard_links = rc == 0 ? (unsigned)st.st_nlink : 0;
    bool keep_format = opt == NULL ||
                       ((opt->version == 0 || opt->version == f->version) &&
                        (opt->endian < 0 || (opt->endian == GGUF_ENDIAN_BIG) == f->big) &&
                        opt->layout == GGUF_LAYOUT_KEEP);
    uint64_t room = opt != NULL ? opt->reserve : 0;
    bool padded = room > 0 || gguf_kv_find(f, GGUF_PADDING_KEY) >= 0;
    int64_t padding = GGUF__PAD_KEEP;
    bool done = false;
    if (rc == 0 && keep_format && expect.set && !f->must_pack && f->n_tensors > 0 &&
        !(opt != NULL && opt->no_in_place)) {
        gguf__journal j = {.dev = expect.dev, .ino = expect.ino, .size = f->size,
                           .len = f->data_offset};
        gguf__buf region = {0};
        rc = gguf__header_fit(&region, &padding, f, f->data_offset, room, room > 0, err);
        r.outgrew = rc == GGUF_ELIMIT;
        if (rc == GGUF_ELIMIT && padded) {
            /* the header outgrew its room: whole blocks before the data */
            uint64_t block = st.st_blksize > 4096 ? (uint64_t)st.st_blksize : 4096;
            uint64_t step = gguf__grow_step(f->alignment, block);
            rc = grown_region(&region, &padding, f, step, room, err);
            j.insert_at = f->data_offset - f->data_offset % block;
            j.insert_len = region.len - f->data_offset;
        }
        /* the journal judges the file in 4 KiB blocks: an insertion of other units (a
         * filesystem block size that is no multiple of 4 KiB) goes by the rewrite */
        bool whole_blocks = j.insert_at % 4096 == 0 && j.insert_len % 4096 == 0;
        if (rc == 0 && whole_blocks) {
            rc = update_in_place(f, real, fd, &expect, &j, region.data, err);
            gguf__journal_free(&j);
            if (rc == 0) {
                done = true;
                r.in_place = 1;
                r.inserted = j.insert_len;
                r.tensors_checked = f->n_tensors;
            } else if (rc == GGUF_EUNSUPPORTED && j.insert_len > 0) {
                gguf_error_clear(err); /* no insertion here: the rewrite moves the data */
                rc = 0;
            }
        } else if (rc == GGUF_ELIMIT) {
            rc = 0; /* no room and no padding: the rewrite lays the header out again */
            padding = GGUF__PAD_KEEP;
        }
        gguf__buf_free(&region);
    }
    if (rc == 0 && !done) {
        gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
        if (opt != NULL)
            o = *opt;
        o.verify = 1;
        rc = gguf__save(f, real, &o, padding, expect.set ? &expect : NULL, &r.cloned, err);
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
