/* Changing a file in place, safely. When the edited header still rounds up to the unchanged
 * data offset, only the header is rewritten, through a journal beside the file:
 *
 *   1. the new header region (header + zero padding up to the data offset) and its crc32 go to
 *      ".NAME.gguf-journal" in the file's directory, which is fsync'd (file and directory);
 *   2. the region is written over the start of the file, which is fsync'd;
 *   3. the journal is removed.
 *
 * Opening a file with a valid journal beside it finishes the edit (step 2 again, then 3); an
 * incomplete journal (a crash during step 1) is discarded, since the file was not touched yet.
 * Otherwise the whole file is written to a temporary file beside it and renamed over it.
 * Either way, a check before anything is replaced proves that every tensor keeps its bytes. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define JOURNAL_MAGIC "GGUFJRNL"
#define JOURNAL_VERSION 1
/* magic, version u32, file size u64, region length u64, region crc u32; then the region; then
 * a crc32 of everything before it */
#define JOURNAL_HEAD (8 + 4 + 8 + 8 + 4)

static char *journal_path(const char *path) {
    char *dir = strdup(path), *base = strdup(path);
    size_t need = strlen(path) + 32;
    char *j = gguf__malloc(need);
    if (dir != NULL && base != NULL && j != NULL)
        snprintf(j, need, "%s/.%s.gguf-journal", dirname(dir), basename(base));
    else {
        gguf__free(j);
        j = NULL;
    }
    free(dir);
    free(base);
    return j;
}

/* Writes the region over the start of the file at path and syncs it. */
static int apply_region(const char *path, const uint8_t *region, size_t len, uint64_t size,
                        gguf_error *err) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot open for writing: %s",
                          path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != size)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "%s: the file's size changed under the edit; nothing written", path);
    else if (gguf__io_pwrite(fd, region, len, 0) != 0 || gguf__io_fsync(fd) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: writing the header failed: %s",
                        path, gguf__io_strerror(errno));
    close(fd);
    return rc;
}

int gguf_file_recover(const char *path, int *recovered, gguf_error *err) {
    if (recovered != NULL)
        *recovered = 0;
    char *jpath = journal_path(path);
    if (jpath == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int jfd = open(jpath, O_RDONLY | O_CLOEXEC);
    if (jfd < 0) {
        gguf__free(jpath);
        return 0; /* no journal: nothing to finish */
    }
    struct stat st;
    uint8_t *buf = NULL;
    int rc = 0;
    bool valid = false;
    if (fstat(jfd, &st) == 0 && st.st_size >= JOURNAL_HEAD + 4 && st.st_size < (1ll << 40)) {
        buf = gguf__malloc((size_t)st.st_size);
        if (buf == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        else if (gguf__io_pread(jfd, buf, (size_t)st.st_size, 0) == 0) {
            size_t n = (size_t)st.st_size;
            uint64_t len = gguf__load64(buf + 20, false);
            valid = memcmp(buf, JOURNAL_MAGIC, 8) == 0 &&
                    gguf__load32(buf + 8, false) == JOURNAL_VERSION &&
                    len == n - JOURNAL_HEAD - 4 &&
                    crc32_z(0, buf, n - 4) == gguf__load32(buf + n - 4, false) &&
                    crc32_z(0, buf + JOURNAL_HEAD, (size_t)len) == gguf__load32(buf + 28, false);
        }
    }
    close(jfd);
    if (rc == 0 && valid) {
        size_t len = (size_t)gguf__load64(buf + 20, false);
        rc = apply_region(path, buf + JOURNAL_HEAD, len, gguf__load64(buf + 12, false), err);
        if (rc == 0 && recovered != NULL)
            *recovered = 1;
    }
    /* a journal that is not valid was cut short before the file was touched: drop it. The edit
     * is complete either way: a failed directory sync only means a crash may bring the journal
     * back, and replaying it again is harmless. */
    if (rc == 0 && unlink(jpath) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot remove the journal: %s",
                        jpath, strerror(errno));
    if (rc == 0)
        (void)gguf__io_sync_dir(path);
    gguf__free(buf);
    gguf__free(jpath);
    return rc;
}

/* Writes the journal for `region`, applies it, removes it. */
static int journaled_write(const char *path, const uint8_t *region, size_t len, uint64_t size,
                           gguf_error *err) {
    char *jpath = journal_path(path);
    uint8_t *j = gguf__malloc(JOURNAL_HEAD + len + 4);
    if (jpath == NULL || j == NULL) {
        gguf__free(jpath);
        gguf__free(j);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    memcpy(j, JOURNAL_MAGIC, 8);
    gguf__store32(j + 8, JOURNAL_VERSION, false);
    gguf__store64(j + 12, size, false);
    gguf__store64(j + 20, len, false);
    gguf__store32(j + 28, (uint32_t)crc32_z(0, region, len), false);
    memcpy(j + JOURNAL_HEAD, region, len);
    gguf__store32(j + JOURNAL_HEAD + len, (uint32_t)crc32_z(0, j, JOURNAL_HEAD + len), false);
    int rc = 0;
    int jfd = open(jpath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (jfd < 0) {
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot create the journal %s: %s",
                        path, jpath, errno == EEXIST ? "it exists (an unfinished edit?)" : strerror(errno));
    } else {
        if (gguf__io_pwrite(jfd, j, JOURNAL_HEAD + len + 4, 0) != 0 || gguf__io_fsync(jfd) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: writing the journal failed: %s",
                            jpath, gguf__io_strerror(errno));
        close(jfd);
        if (rc == 0 && gguf__io_sync_dir(path) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: directory sync failed", path);
        if (rc != 0)
            unlink(jpath); /* the file was not touched */
    }
    if (rc == 0)
        rc = apply_region(path, region, len, size, err);
    if (rc == 0 && unlink(jpath) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot remove the journal: %s",
                        jpath, strerror(errno));
    if (rc == 0)
        (void)gguf__io_sync_dir(path); /* as in gguf_file_recover: replaying again is harmless */
    gguf__free(j);
    gguf__free(jpath);
    return rc;
}

/* ---- checks before anything is replaced ---- */

/* crc32 of every tensor of one file (tensors without comparable bytes are skipped). */
typedef struct crc_job {
    const gguf_file *f;
    const gguf_file *like; /* the source: which tensors to skip */
    uint32_t *crcs;
    int rc;
    gguf_error err;
} crc_job;

static void *crc_all(void *arg) {
    crc_job *j = arg;
    for (size_t i = 0; j->rc == 0 && i < j->f->n_tensors; i++) {
        const gguf__tensor *s = &j->like->tensors[i], *t = &j->f->tensors[i];
        if (s->nbytes == UINT64_MAX || s->src_offset == GGUF__NO_SOURCE)
            continue; /* unknown size, or new bytes: nothing to compare with */
        j->rc = gguf__crc_range(&j->crcs[i], j->f, t->src_offset, t->nbytes, &j->err);
    }
    return NULL;
}

int gguf__verify_output(const gguf_file *src, const gguf_file *out, gguf_error *err) {
    if (gguf_tensor_count(out) != src->n_tensors)
        return gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                          "check failed: the output has %zu tensors, not %zu",
                          gguf_tensor_count(out), src->n_tensors);
    char q[96];
    for (size_t i = 0; i < src->n_tensors; i++) {
        const gguf__tensor *a = &src->tensors[i], *b = &out->tensors[i];
        if (a->name_len != b->name_len || memcmp(a->name, b->name, (size_t)a->name_len) != 0 ||
            a->type != b->type || a->nbytes != b->nbytes)
            return gguf__fail(err, GGUF_ECORRUPT, b->info_offset,
                              "check failed: tensor %zu ('%s') changed name, type or size", i,
                              gguf__quote(q, sizeof q, a->name, (size_t)a->name_len));
    }
    /* both files' crcs at once: the input's here, the output's on a second thread */
    size_t n = src->n_tensors ? src->n_tensors : 1;
    crc_job in = {src, src, gguf__calloc(n, sizeof(uint32_t)), 0, {0}};
    crc_job outj = {out, src, gguf__calloc(n, sizeof(uint32_t)), 0, {0}};
    int rc = 0;
    if (in.crcs == NULL || outj.crcs == NULL) {
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    } else {
        pthread_t tid;
        bool threaded = pthread_create(&tid, NULL, crc_all, &outj) == 0;
        crc_all(&in);
        if (threaded)
            pthread_join(tid, NULL);
        else
            crc_all(&outj);
        if (in.rc != 0 || outj.rc != 0)
            rc = gguf__fail(err, in.rc ? in.rc : outj.rc, GGUF_ERROR_NO_OFFSET, "check failed: %s",
                            in.rc ? in.err.message : outj.err.message);
    }
    for (size_t i = 0; rc == 0 && i < src->n_tensors; i++) {
        if (in.crcs[i] != outj.crcs[i]) {
            const gguf__tensor *a = &src->tensors[i];
            rc = gguf__fail(err, GGUF_ECORRUPT, out->tensors[i].src_offset,
                            "check failed: tensor '%s' has crc32 %08x in the output, %08x in the input",
                            gguf__quote(q, sizeof q, a->name, (size_t)a->name_len), outj.crcs[i],
                            in.crcs[i]);
        }
    }
    gguf__free(in.crcs);
    gguf__free(outj.crcs);
    return rc;
}

/* In place, the tensor bytes are not written at all: the check is that the new header, read
 * back, puts every tensor at the same bytes, with the same name, type and size. */
static int verify_header(const gguf_file *src, const uint8_t *region, size_t len,
                         gguf_error *err) {
    gguf_file *out;
    int rc = gguf__open_header(&out, region, len, src->size, src->flags, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; rc == 0 && i < src->n_tensors; i++) {
        if (out->data_offset + out->tensors[i].offset != src->tensors[i].src_offset)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "check failed: tensor %zu would move in place", i);
    }
    if (rc == 0 && (out->n_tensors != src->n_tensors || out->data_offset != src->data_offset))
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "check failed: the new header changes the data offset");
    for (size_t i = 0; rc == 0 && i < src->n_tensors; i++) {
        const gguf__tensor *a = &src->tensors[i], *b = &out->tensors[i];
        if (a->name_len != b->name_len || memcmp(a->name, b->name, (size_t)a->name_len) != 0 ||
            a->type != b->type || a->nbytes != b->nbytes)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "check failed: tensor %zu changes name, type or size", i);
    }
    gguf_file_free(out);
    return rc;
}

/* ---- the update ---- */

/* Removes temporary files an interrupted rewrite of path left beside it (".NAME.tmp-XXXXXX").
 * Called with the edit lock held, so no other update is writing one. */
static void remove_stale_temps(const char *path) {
    char *dir = strdup(path), *base = strdup(path);
    DIR *d = dir && base ? opendir(dirname(dir)) : NULL;
    if (d != NULL) {
        const char *name = basename(base);
        size_t n = strlen(name);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            const char *s = e->d_name;
            if (s[0] == '.' && strncmp(s + 1, name, n) == 0 && strncmp(s + 1 + n, ".tmp-", 5) == 0 &&
                strlen(s + 1 + n + 5) == 6)
                unlinkat(dirfd(d), s, 0);
        }
        closedir(d);
    }
    free(dir);
    free(base);
}

/* Is path the file f was opened from? */
static bool same_file(const gguf_file *f, const struct stat *st) {
    struct stat a;
    return f->fd >= 0 && fstat(f->fd, &a) == 0 && a.st_dev == st->st_dev && a.st_ino == st->st_ino;
}

static bool changed_since_open(const gguf_file *f, const struct stat *st) {
    return (uint64_t)st->st_size != f->size || (int64_t)st->st_mtim.tv_sec != f->mtime_sec ||
           (int64_t)st->st_mtim.tv_nsec != f->mtime_nsec;
}

int gguf_file_update(const gguf_file *f, const char *path, const gguf_write_options *opt,
                     gguf_update_result *res, gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to update");
    gguf_update_result r = {0};
    /* edit the file a symbolic link points to, and keep the link */
    char *real = realpath(path, NULL);
    if (real == NULL)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: %s", path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (stat(real, &st) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: %s", path, strerror(errno));
    else if (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) || access(real, W_OK) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "%s is read-only: nothing changed", path);
    /* one editor at a time: a second one fails at once instead of interleaving */
    int lock = rc == 0 ? open(real, O_RDONLY | O_CLOEXEC) : -1;
    if (rc == 0 && (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "%s is being edited by another process: nothing changed", path);
    if (rc == 0)
        remove_stale_temps(real);
    r.hard_links = rc == 0 ? (unsigned)st.st_nlink : 0;
    bool same = rc == 0 && same_file(f, &st);
    if (rc == 0 && f->fd >= 0 && (!same || changed_since_open(f, &st)))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "%s changed since it was opened: nothing changed, open it again", path);

    bool keep_format = (opt == NULL || ((opt->version == 0 || opt->version == f->version) &&
                                        (opt->endian < 0 || (opt->endian == GGUF_ENDIAN_BIG) == f->big) &&
                                        opt->layout == GGUF_LAYOUT_KEEP));
    bool try_in_place = rc == 0 && keep_format && !f->must_pack && f->n_tensors > 0 &&
                        !(opt != NULL && opt->no_in_place) && same;
    if (try_in_place) {
        gguf__sink h = {0};
        rc = gguf__header_serialize(&h, f, f->version, f->big, NULL, err);
        uint64_t end;
        if (rc == 0 && gguf__align_up(&end, h.b.len, f->alignment) && end == f->data_offset) {
            gguf__buf_zeros(&h.b, (size_t)(f->data_offset - h.b.len));
            if (h.b.failed)
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            if (rc == 0)
                rc = verify_header(f, h.b.data, h.b.len, err);
            if (rc == 0)
                rc = journaled_write(real, h.b.data, h.b.len, f->size, err);
            if (rc == 0) {
                r.in_place = 1;
                r.tensors_checked = f->n_tensors;
            }
            try_in_place = true;
        } else {
            try_in_place = false;
        }
        gguf__buf_free(&h.b);
    }
    if (rc == 0 && !try_in_place) {
        gguf_write_options o = GGUF_WRITE_OPTIONS_INIT;
        if (opt != NULL)
            o = *opt;
        o.verify = 1;
        rc = gguf_file_save(f, real, &o, err);
        if (rc == 0)
            r.tensors_checked = f->n_tensors;
    }
    if (lock >= 0)
        close(lock);
    free(real);
    if (rc == 0 && res != NULL)
        *res = r;
    return rc;
}
