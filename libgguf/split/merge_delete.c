/* The merge that deletes its shards: the bytes of merge.c's gguf_split_merge_save (its header
 * from the same view, gguf__merge_view), written with the extra disk of one shard.
 *
 * gguf_split_merge_delete merges with bounded disk, deleting the shards as it goes, so that a
 * crash at any moment leaves the model whole, in shards or merged, and running it again
 * finishes the job. The merged file grows in place of the first shard:
 *
 *   start    The merged header H (keys, every tensor info) is computed; its size rounded up to
 *            the alignment, D, is where tensor data will start. A new first shard is written
 *            (temporary file, fsync, rename over the first shard): header H1 (the first shard's
 *            keys and tensor infos, padded to exactly D bytes by the key libgguf.merge.reserve,
 *            a string of spaces this tool owns), then the first shard's tensor data, at the
 *            offsets they have in the merged file. The set is still a split set llama.cpp
 *            loads: shard 1 is just laid out for the merge.
 *   shard k  (k = 2..N) Any bytes after the tensors the first shard lists are cut off (an
 *            append a crash interrupted), shard k's tensor data is appended at its merged
 *            offsets and synced, its emptied replacement (a shard with no tensors that keeps
 *            its split keys) is written to a temporary file and synced, the journal of the
 *            header rewrite is written (commit/journal.c; the new header may add tensor
 *            infos), then the bytes of the header region [0, D) that change are rewritten in
 *            place to make Hk (the infos of shards 1..k, the reserve shrunk to keep exactly D
 *            bytes) and synced, and at once the emptied shard is renamed over shard k, which
 *            frees its bytes; once the rename is synced, the journal goes.
 *            The last shard that holds tensors gets H itself (split.count 0, no reserve): the
 *            first shard is then the merged file (shards after it hold no tensors).
 *   finish   The merged file is renamed to OUT and the emptied shards are removed.
 *
 * Every moment is one of these states, each recognised from the files alone: the original
 * set; a split set whose first shard has the reserve (shards 2..k emptied, maybe bytes after
 * the listed tensors, maybe a journal pending); inside the header's rewrite, the first
 * shard's header torn (a kill between two pages of a write, or a power loss), which no reader
 * accepts, and its journal beside it; between the header's write and the rename of the
 * emptied shard, shard k's tensors listed both in the first shard and in shard k, with the
 * same bytes (llama.cpp refuses that set until the rerun empties shard k); the merged file
 * under the first shard's name, or under OUT, with emptied shards left. A rerun (or gguf-edit
 * recover) finishes a pending journal, the rerun then finds the state and goes on. A shard is only emptied or
 * removed after the merged file lists its tensors (synced, or through the journal), and (when
 * found full after a crash) after their bytes are compared by crc32.
 *
 * The reserve is a key of its own, not GGUF_PADDING_KEY: its presence says "a merge is under
 * way", while a first shard may hold GGUF_PADDING_KEY from an earlier `reserve`, which the
 * merged file keeps as llama-gguf-split does.
 *
 * Extra disk at the peak: the shard being appended (its bytes are in two places until it is
 * emptied), plus the journal (the header's changed bytes) and a small emptied shard per shard.
 * The first step copies the first shard (the merged file's header is larger than its own). */
#define _GNU_SOURCE
#include "split/split.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define RESERVE_KEY "libgguf.merge.reserve"

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

typedef struct bmerge {
    const char *out;
    uint32_t count;
    char **paths;          /* the shards' names */
    gguf_progress_fn progress;
    void *progress_user;
    uint64_t done, total;  /* tensor bytes moved, for progress (total 0: unknown, after a crash) */
    bool started;          /* this run began the merge */
    gguf_split_merge_result res;
} bmerge;

/* Serializes v's header with its tensors packed (offsets at v's alignment). */
static int serialize(gguf__sink *h, const gguf_file *v, gguf_error *err) {
    uint64_t *offsets, end;
    int rc = gguf__packed_offsets(&offsets, &end, v, err);
    *h = (gguf__sink){0};
    if (rc == 0)
        rc = gguf__header_serialize(h, v, 3, v->big, offsets, GGUF__PAD_KEEP, err);
    gguf__free(offsets);
    if (rc != 0)
        gguf__buf_free(&h->b);
    return rc;
}

/* Sets the reserve key on v (a string of spaces) so that v's header is exactly size bytes.
 * GGUF_ELIMIT when even an empty reserve does not fit. */
static int fit_reserve(gguf_file *v, uint64_t size, gguf_error *err) {
    if (gguf_kv_find(v, RESERVE_KEY) >= 0)
        gguf_kv_remove(v, RESERVE_KEY, NULL);
    gguf__sink h;
    int rc = serialize(&h, v, err);
    if (rc != 0)
        return rc;
    uint64_t len = h.b.len;
    gguf__buf_free(&h.b);
    /* a STRING entry: key length, key, type, string length, then the string */
    uint64_t over = 8 + strlen(RESERVE_KEY) + 4 + 8;
    if (len + over > size)
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "a header of %llu bytes and its reserve do not fit in %llu bytes",
                          (unsigned long long)len, (unsigned long long)size);
    size_t n = (size_t)(size - len - over);
    char *spaces = gguf__malloc(n ? n : 1);
    if (spaces == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    memset(spaces, ' ', n);
    rc = gguf_kv_set_str(v, RESERVE_KEY, spaces, n, err);
    gguf__free(spaces);
    return rc;
}

/* The header region [0, size): v's header, padded with zeros. */
static int header_region(gguf__buf *region, const gguf_file *v, uint64_t size,
                         gguf_error *err) {
    gguf__sink h;
    int rc = serialize(&h, v, err);
    if (rc == 0 && h.b.len > size)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "a header of %zu bytes where %llu are reserved", h.b.len,
                        (unsigned long long)size);
    if (rc == 0) {
        gguf__buf_zeros(&h.b, (size_t)(size - h.b.len));
        if (h.b.failed)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    if (rc != 0) {
        gguf__buf_free(&h.b);
        return rc;
    }
    *region = h.b;
    return 0;
}

/* Opens one file of the set alone. */
static int open_one(gguf_file **out, const char *path, gguf_error *err) {
    return gguf_file_open(out, path, GGUF_OPEN_DEFAULT, err);
}

/* An emptied shard: no tensors, shard k's split keys. Written to a temporary file beside
 * shard k, fsync'd; *tmp (and the returned descriptor, which holds the temporary file's lock)
 * until it is renamed over the shard. */
static int prepare_empty_shard(char **tmp, bmerge *m, uint32_t k, uint64_t tensors, bool big,
                               gguf_error *err) {
    gguf_file *z;
    int rc = gguf_file_new(&z, 3, big ? GGUF_ENDIAN_BIG : GGUF_ENDIAN_LITTLE, err);
    if (rc != 0)
        return rc;
    rc = gguf__split_set_keys(z, k, m->count, tensors, false, err);
    int fd = rc == 0 ? gguf__temp_create(tmp, m->paths[k], ".tmp", err) : rc;
    if (fd >= 0) {
        rc = gguf__write_fd(fd, *tmp, z, NULL, NULL, err);
        if (rc == 0 && gguf__io_fsync(fd) != 0)
            rc = gguf__io_fail(err, *tmp, "fsync");
        if (rc != 0) {
            gguf__temp_discard(*tmp);
            close(fd);
            gguf__free(*tmp);
            *tmp = NULL;
        }
    }
    gguf_file_free(z);
    return rc != 0 ? rc : fd;
}

/* Puts a prepared emptied shard in place of shard k (its bytes go). */
static int empty_shard(bmerge *m, uint32_t k, char *tmp, int fd, gguf_error *err) {
    int rc = 0;
    if (gguf__temp_rename(tmp, m->paths[k]) != 0) {
        rc = gguf__io_fail(err, m->paths[k], "replacing the shard by an emptied one");
        gguf__temp_discard(tmp);
    } else {
        (void)gguf__io_sync_dir(m->paths[k]);
    }
    close(fd);
    gguf__free(tmp);
    return rc;
}

static int write_empty_shard(bmerge *m, uint32_t k, uint64_t tensors, bool big,
                             gguf_error *err) {
    char *tmp = NULL;
    int fd = prepare_empty_shard(&tmp, m, k, tensors, big, err);
    return fd < 0 ? fd : empty_shard(m, k, tmp, fd, err);
}

/* An emptied shard k: no tensors, split.no k of this set. */
static bool is_emptied(const gguf_file *s, uint32_t k, uint32_t count) {
    int64_t no, cnt;
    return s->n_tensors == 0 && gguf__split_keys(s, &no, &cnt, NULL, NULL) == 0 && no == k &&
           cnt == count;
}

/* How many of s's tensors `merged` lists (by name). */
static size_t listed_in(const gguf_file *merged, const gguf_file *s) {
    size_t n = 0;
    char name[128];
    for (size_t i = 0; i < s->n_tensors; i++) {
        const gguf__tensor *t = &s->tensors[i];
        if (t->name_len >= sizeof name)
            continue;
        memcpy(name, t->name, (size_t)t->name_len);
        name[t->name_len] = '\0';
        n += gguf_tensor_find(merged, name) >= 0;
    }
    return n;
}

/* Every tensor of s is in merged with the same type, shape, size and crc32. */
static int same_tensors(const gguf_file *merged, const gguf_file *s, gguf_error *err) {
    char name[128], q[96];
    for (size_t i = 0; i < s->n_tensors; i++) {
        const gguf__tensor *t = &s->tensors[i];
        if (t->name_len >= sizeof name)
            return gguf__fail(err, GGUF_ECORRUPT, t->info_offset, "tensor name too long");
        memcpy(name, t->name, (size_t)t->name_len);
        name[t->name_len] = '\0';
        int64_t j = gguf_tensor_find(merged, name);
        const gguf__tensor *u = j >= 0 ? &merged->tensors[j] : NULL;
        bool same = u != NULL && u->type == t->type && u->nbytes == t->nbytes &&
                    memcmp(u->dims, t->dims, sizeof u->dims) == 0;
        uint32_t a = 0, b = 0;
        int rc = same ? gguf_crc_tensor(&a, merged, (size_t)j, err) : 0;
        if (rc == 0 && same)
            rc = gguf_crc_tensor(&b, s, i, err);
        if (rc != 0)
            return rc;
        if (!same || a != b)
            return gguf__fail(err, GGUF_ECORRUPT, t->info_offset,
                              "tensor '%s' differs from the merged file's: left as it is",
                              gguf__quote(q, sizeof q, t->name, (size_t)t->name_len));
    }
    return 0;
}

/* A shard found full after a crash whose tensors the merged file lists: proven equal, then
 * emptied (or, at the end, removed). */
static int check_duplicate(const gguf_file *merged, uint32_t k, const char *path,
                           gguf_error *err) {
    gguf_file *s = NULL;
    int rc = open_one(&s, path, err);
    if (rc == 0 && listed_in(merged, s) != s->n_tensors)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "shard %u holds tensors the merged file does not: left as it is", k + 1);
    if (rc == 0)
        rc = same_tensors(merged, s, err);
    gguf__fail_path(err, path);
    gguf_file_free(s);
    return rc;
}

static void moved(bmerge *m, uint64_t n) {
    m->done += n;
    if (m->progress != NULL && m->total > 0)
        m->progress(m->progress_user, m->done, m->total);
}

/* The fresh start: the set checked whole, room for every header, the new first shard. */
static int start(bmerge *m, gguf_error *err) {
    gguf_file *set = NULL, *mv = NULL, *h = NULL;
    int rc = gguf_file_open(&set, m->paths[0], GGUF_OPEN_SPLIT_SET, err);
    if (rc == 0 && gguf_file_shard_count(set) != m->count)
        rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "not a split set of %u shards",
                        m->count);
    if (rc == 0)
        rc = gguf__merge_view(&mv, set, err);
    uint64_t size = 0;
    if (rc == 0) {
        gguf__sink s;
        rc = serialize(&s, mv, err);
        if (rc == 0 && !gguf__align_up(&size, s.b.len, mv->alignment))
            rc = gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "header too large");
        gguf__buf_free(&s.b);
    }
    for (size_t i = 0; rc == 0 && i < set->n_tensors; i++)
        m->total += set->tensors[i].nbytes;
    /* the last shard with tensors: its merge writes the final header (shards after it hold
     * none: they are as good as emptied) */
    uint32_t last = 0;
    for (uint32_t k = 0; rc == 0 && k < m->count; k++) {
        if (gguf_file_shard(set, k)->n_tensors > 0)
            last = k;
    }
    /* the fullest intermediate header (every shard before the last) must fit with its
     * reserve */
    if (rc == 0 && last > 0) {
        size_t n_last = gguf_file_shard(set, last)->n_tensors;
        rc = gguf__file_view(&h, set, 0, set->n_tensors - n_last, true, err);
        if (rc == 0) {
            h->version = 3;
            gguf__tensor_ggml_dims(h);
            rc = fit_reserve(h, size, err);
            if (rc == GGUF_ELIMIT)
                gguf__wrap(err, rc, "no room in the merged header for the merge's reserve key "
                           "(merge without deleting the shards)");
        }
        gguf_file_free(h);
        h = NULL;
    }
    /* the new first shard: its tensors at their merged offsets behind a header of exactly
     * `size` bytes; when no other shard holds tensors, the merged file itself */
    if (rc == 0 && last > 0) {
        rc = gguf__file_view(&h, set, 0, gguf_file_shard(set, 0)->n_tensors, true, err);
        if (rc == 0) {
            h->version = 3;
            gguf__tensor_ggml_dims(h);
            rc = fit_reserve(h, size, err);
        }
    }
    if (rc == 0) {
        gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
        w.version = 3;
        w.layout = GGUF_LAYOUT_PACKED;
        const gguf_file *first = last > 0 ? h : mv;
        /* written over the shard it is read from, on purpose (an output of its own input,
         * which gguf_file_save refuses): the bytes are read before the rename */
        const gguf__identity over_itself = {.set = false};
        rc = gguf__save(first, m->paths[0], &w, GGUF__PAD_KEEP, &over_itself, NULL, err);
        for (size_t i = 0; rc == 0 && i < first->n_tensors; i++)
            moved(m, first->tensors[i].nbytes);
        if (rc == 0)
            m->res.shards_merged = 1 + (last > 0 ? 0 : m->count - 1);
    }
    gguf_file_free(h);
    gguf_file_free(mv);
    gguf_file_free(set);
    return rc;
}

typedef struct append_job {
    bmerge *m;
    const gguf_file *merged, *s;
    uint64_t end;
    gguf_error *err;
} append_job;

/* Shard s's tensors, each padded to the merged file's alignment (base/copy.c's engine). */
static int append_tensors(gguf__copier *c, void *ctx) {
    append_job *j = ctx;
    uint64_t at = j->end;
    for (size_t i = 0; i < j->s->n_tensors; i++) {
        const gguf__tensor *t = &j->s->tensors[i];
        uint64_t next;
        if (gguf__copier_copy(c, j->s->src->fd, t->src_offset, t->nbytes, t->src_offset) != 0)
            return gguf__io_fail(j->err, gguf__copier_write_failed(c) ? j->m->paths[0] : j->s->src->name,
                           "appending a tensor");
        if (!gguf__align_up(&next, at + t->nbytes, j->merged->alignment))
            return gguf__fail(j->err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET, "file too large");
        if (gguf__copier_bytes(c, NULL, next - at - t->nbytes) != 0)
            return gguf__io_fail(j->err, j->m->paths[0], "writing padding");
        at = next;
        moved(j->m, t->nbytes);
    }
    return 0;
}

/* Appends shard k's tensor data to the merged file (fd, whose listed tensors end at `end`,
 * relative to its data offset) at their merged offsets, and fsyncs it. */
static int append_shard(bmerge *m, int fd, const gguf_file *merged, uint64_t end,
                        const gguf_file *s, gguf_error *err) {
    uint64_t pos = merged->data_offset + end;
    if (lseek(fd, (off_t)pos, SEEK_SET) < 0)
        return gguf__io_fail(err, m->paths[0], "seek");
    append_job job = {m, merged, s, end, err};
    int werr = 0;
    int rc = gguf__copier_run(&werr, fd, pos, NULL, NULL, append_tensors, &job);
    if (rc == GGUF_ENOMEM && (err == NULL || err->code == 0))
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0 && werr != 0) {
        errno = werr;
        rc = gguf__io_fail(err, m->paths[0], "appending a tensor");
    }
    if (rc == 0 && gguf__io_fdatasync(fd) != 0)
        return gguf__io_fail(err, m->paths[0], "fsync");
    return rc;
}

/* The header after shard k: the merged file's keys and tensors, then shard k's; the final one
 * (k the last shard) is the merge's header, the others keep the reserve. */
static int next_header(gguf__buf *region, const gguf_file *merged, const gguf_file *s,
                       bool final, gguf_error *err) {
    gguf_file *v;
    int rc = gguf__file_view(&v, merged, 0, merged->n_tensors, true, err);
    if (rc != 0)
        return rc;
    v->version = 3;
    if (gguf_kv_find(v, RESERVE_KEY) >= 0)
        rc = gguf_kv_remove(v, RESERVE_KEY, err);
    char name[128];
    for (size_t i = 0; rc == 0 && i < s->n_tensors; i++) {
        const gguf__tensor *t = &s->tensors[i];
        if (t->name_len >= sizeof name)
            rc = gguf__fail(err, GGUF_ECORRUPT, t->info_offset, "tensor name too long");
        else {
            memcpy(name, t->name, (size_t)t->name_len);
            name[t->name_len] = '\0';
            rc = gguf_tensor_add(v, name, t->type, t->dims, t->n_dims, err);
        }
    }
    gguf__tensor_ggml_dims(v);
    if (rc == 0 && final) {
        uint16_t zero = 0;
        rc = gguf_kv_remove(v, GGUF__KEY_SPLIT_COUNT, err);
        if (rc == 0)
            rc = gguf_kv_set_scalar(v, GGUF__KEY_SPLIT_COUNT, GGUF_VTYPE_U16, &zero, err);
    } else if (rc == 0) {
        rc = fit_reserve(v, merged->data_offset, err);
    }
    if (rc == 0)
        rc = header_region(region, v, merged->data_offset, err);
    gguf_file_free(v);
    return rc;
}

/* Shard k into the merged file (the first shard, opened as `merged`), then shard k emptied. */
static int merge_shard(bmerge *m, const gguf_file *merged, uint32_t k, uint64_t tensors,
                       bool final, gguf_error *err) {
    gguf_file *s;
    int rc = open_one(&s, m->paths[k], err);
    if (rc != 0)
        return rc;
    uint64_t *offsets = NULL, end = 0;
    rc = gguf__packed_offsets(&offsets, &end, merged, err);
    for (size_t i = 0; rc == 0 && i < merged->n_tensors; i++) {
        if (merged->tensors[i].offset != offsets[i])
            rc = gguf__fail(err, GGUF_ECORRUPT, merged->tensors[i].info_offset,
                            "the merged file's tensors are not packed: not a merge of ours");
    }
    gguf__free(offsets);
    int fd = -1;
    struct stat st;
    if (rc == 0) {
        fd = open(m->paths[0], O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || fstat(fd, &st) != 0)
            rc = gguf__io_fail(err, m->paths[0], "open for writing");
        else if (flock(fd, LOCK_EX | LOCK_NB) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "being edited by another process: nothing changed");
    }
    gguf__identity expect;
    gguf__identity_of_file(&expect, merged);
    if (rc == 0)
        rc = gguf__identity_check(m->paths[0], &expect, err);
    uint64_t listed = merged->data_offset + end;
    /* bytes after the listed tensors: an append that a crash cut short */
    if (rc == 0 && (uint64_t)st.st_size > listed &&
        (gguf__io_truncate(fd, listed) != 0 || gguf__io_fdatasync(fd) != 0))
        rc = gguf__io_fail(err, m->paths[0], "cutting off an interrupted append");
    if (rc == 0)
        rc = append_shard(m, fd, merged, end, s, err);
    gguf__buf region = {0};
    if (rc == 0)
        rc = next_header(&region, merged, s, final, err);
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = gguf__io_fail(err, m->paths[0], "stat");
    /* the emptied shard, ready (fsync'd) before the header changes */
    char *ztmp = NULL;
    int zfd = -1;
    if (rc == 0 && (zfd = prepare_empty_shard(&ztmp, m, k, tensors, s->big, err)) < 0)
        rc = zfd;
    /* the header through the journal: a crash leaves the old header, or a torn one with the
     * journal that finishes it (recover, or the rerun); an interrupt waits for the journal
     * to go */
    gguf__interrupt_hold();
    if (rc == 0) {
        gguf__journal jw = {.dev = (uint64_t)st.st_dev, .ino = (uint64_t)st.st_ino,
                            .size = (uint64_t)st.st_size, .len = merged->data_offset};
        rc = gguf__journal_build(&jw, merged->head, region.data, err);
        if (rc == 0)
            rc = gguf__journal_create(m->paths[0], &jw, err);
        gguf__journal_free(&jw);
    }
    if (rc == 0) {
        gguf__journal j;
        bool touched = false;
        uint8_t *header = NULL;
        char *jpath = gguf__journal_path(m->paths[0]);
        rc = jpath == NULL ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory")
                           : gguf__journal_load(&j, m->paths[0], &st, err);
        bool loaded = rc == 0;
        /* the header as the journal on disk gives it, over the file it was made on */
        if (rc == 0)
            rc = gguf__journal_matches(&j, fd, &header, err);
        /* only the ranges that change, the infos appended and the reserve, not the keys and
         * vocabulary before them */
        if (rc == 0)
            rc = gguf__journal_apply(&j, fd, header, m->paths[0], &touched, err);
        gguf__free(header);
        if (loaded)
            gguf__journal_free(&j);
        /* the header (synced by the apply), then at once the emptied shard: a kill between
         * the two finds shard k's tensors in both files (the rerun empties it); the journal
         * is kept until the rename is durable too */
        if (rc == 0) {
            rc = empty_shard(m, k, ztmp, zfd, err);
            ztmp = NULL;
            zfd = -1;
        }
        if (jpath != NULL && (rc == 0 || !touched)) {
            int rm = gguf__journal_remove(jpath, rc == 0 ? err : NULL);
            rc = rc != 0 ? rc : rm;
        }
        gguf__free(jpath);
    }
    gguf__interrupt_release();
    if (ztmp != NULL) {
        gguf__temp_discard(ztmp);
        close(zfd);
        gguf__free(ztmp);
    }
    gguf__buf_free(&region);
    if (fd >= 0)
        close(fd);
    gguf_file_free(s);
    if (rc == 0) {
        m->res.shards_merged++;
        gguf__test_pause("merge-shard-emptied"); /* the set in shards, one of them emptied */
    }
    return rc;
}

/* The merged file is under the first shard's name: the shards left are emptied or proven
 * duplicates; it goes to OUT, they go. */
static int finish(bmerge *m, const gguf_file *merged, bool renamed, gguf_error *err) {
    int64_t tensors;
    int rc = gguf__split_keys(merged, NULL, NULL, &tensors, err);
    if (rc == 0 && tensors >= 0 && (uint64_t)tensors != merged->n_tensors)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "the merged file holds %zu tensors, split.tensors.count says %lld",
                        merged->n_tensors, (long long)tensors);
    bool *gone = gguf__calloc(m->count, sizeof *gone);
    if (rc == 0 && gone == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    for (uint32_t k = 1; rc == 0 && k < m->count; k++) {
        if (!exists(m->paths[k])) {
            gone[k] = true;
            continue;
        }
        gguf_file *s = NULL;
        rc = open_one(&s, m->paths[k], err);
        if (rc == 0 && !is_emptied(s, k, m->count))
            rc = check_duplicate(merged, k, m->paths[k], err);
        gguf_file_free(s);
    }
    if (rc == 0 && !renamed) {
        if (gguf__io_rename(m->paths[0], m->out) != 0)
            rc = gguf__io_fail(err, m->out, "renaming the merged file into place");
        else {
            (void)gguf__io_sync_dir(m->out);
            (void)gguf__io_sync_dir(m->paths[0]);
            gguf__test_pause("merge-renamed"); /* merged into OUT, emptied shards left */
        }
    }
    for (uint32_t k = 1; rc == 0 && k < m->count; k++) {
        if (!gone[k] && gguf__io_unlink(m->paths[k]) != 0)
            rc = gguf__io_fail(err, m->paths[k], "removing an emptied shard");
    }
    if (rc == 0)
        (void)gguf__io_sync_dir(m->paths[0]);
    gguf__free(gone);
    return rc;
}

/* One step from the state the files are in. Returns 1 when done, 0 to go on, or an error. */
static int advance(bmerge *m, gguf_error *err) {
    if (!exists(m->paths[0])) {
        if (!exists(m->out)) {
            gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET,
                       "no first shard and no merged file");
            gguf__fail_path(err, m->paths[0]);
            return GGUF_ENOTFOUND;
        }
        gguf_file *out = NULL;
        int rc = open_one(&out, m->out, err);
        int64_t count = -1;
        if (rc == 0)
            rc = gguf__split_keys(out, NULL, &count, NULL, err);
        if (rc == 0 && count != 0)
            rc = gguf__fail(err, GGUF_EEXIST, GGUF_ERROR_NO_OFFSET,
                            "the output exists and is not a merged file: nothing changed");
        if (rc == 0)
            rc = finish(m, out, true, err);
        gguf__fail_path(err, m->out);
        gguf_file_free(out);
        return rc != 0 ? rc : 1;
    }
    if (exists(m->out)) {
        gguf__fail(err, GGUF_EEXIST, GGUF_ERROR_NO_OFFSET, "the output exists: nothing changed");
        gguf__fail_path(err, m->out);
        return GGUF_EEXIST;
    }
    int recovered = 0;
    int rc = gguf_file_recover(m->paths[0], &recovered, err);
    if (rc != 0)
        return rc;
    gguf_file *first;
    rc = open_one(&first, m->paths[0], err);
    if (rc != 0)
        return rc;
    int64_t no, count, tensors;
    rc = gguf__split_keys(first, &no, &count, &tensors, err);
    bool reserve = gguf_kv_find(first, RESERVE_KEY) >= 0;
    if (rc == 0 && !reserve && count == 0) {
        rc = finish(m, first, false, err); /* merged, not yet renamed */
        gguf_file_free(first);
        return rc != 0 ? rc : 1;
    }
    if (rc == 0 && !reserve) {
        gguf_file_free(first);
        m->started = true;
        return start(m, err); /* the set as llama-gguf-split wrote it (start checks it) */
    }
    if (rc == 0 && (no != 0 || count != m->count || tensors < 0))
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "a merge in progress, but the first shard's split keys are not those "
                        "of a set of %u shards: nothing changed", m->count);
    if (!m->started)
        m->res.resumed = 1; /* a run before this one began the merge */
    /* which shard is next: the first one with tensors the merged file does not list; its
     * merge is the last (it writes the final header) when no other such shard follows */
    uint32_t next = 0;
    bool final = true;
    for (uint32_t k = 1; rc == 0 && final && k < m->count; k++) {
        gguf_file *s = NULL;
        rc = open_one(&s, m->paths[k], err);
        if (rc == 0 && !is_emptied(s, k, m->count)) {
            size_t listed = listed_in(first, s);
            if (listed == 0 && next == 0) {
                next = k;
            } else if (listed == 0) {
                final = false;
            } else if (next == 0 && listed == s->n_tensors) {
                /* a crash after the header, before the shard was emptied */
                rc = check_duplicate(first, k, m->paths[k], err);
                if (rc == 0)
                    rc = write_empty_shard(m, k, (uint64_t)tensors, s->big, err);
            } else {
                rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                                "shard %u has %zu of its %zu tensors in the merged file: "
                                "nothing changed", k + 1, listed, s->n_tensors);
                gguf__fail_path(err, m->paths[k]);
            }
        }
        gguf_file_free(s);
    }
    if (rc == 0 && next == 0)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "the first shard is being merged, but no shard is left to merge");
    if (rc == 0)
        rc = merge_shard(m, first, next, (uint64_t)tensors, final, err);
    gguf_file_free(first);
    return rc;
}

int gguf_split_merge_delete(gguf_split_merge_result *res, const char *shard, const char *out,
                            gguf_progress_fn progress, void *progress_user, gguf_error *err) {
    size_t prefix_len;
    uint32_t count;
    if (shard == NULL || out == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to merge");
    if (!gguf_split_parse_name(&prefix_len, NULL, &count, shard)) {
        gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                   "not named as a shard (PREFIX-00001-of-0000N.gguf)");
        gguf__fail_path(err, shard);
        return GGUF_EINVAL;
    }
    bmerge m = {.out = out, .count = count, .progress = progress,
                .progress_user = progress_user};
    char *prefix = gguf__strndup(shard, prefix_len);
    m.paths = gguf__calloc(count, sizeof *m.paths);
    int rc = prefix == NULL || m.paths == NULL
                 ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory")
                 : 0;
    for (uint32_t k = 0; rc == 0 && k < count; k++) {
        m.paths[k] = gguf__malloc(prefix_len + 32);
        if (m.paths[k] == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        else
            gguf_split_name(m.paths[k], prefix_len + 32, prefix, k, count);
    }
    /* the merged file is renamed to OUT: same filesystem */
    if (rc == 0) {
        char *odir = gguf__path_dir(out);
        struct stat a, b;
        if (odir == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        else if (stat(odir, &a) != 0)
            rc = gguf__io_fail(err, out, "finding the output's folder");
        else if ((stat(m.paths[0], &b) == 0 || stat(out, &b) == 0) && a.st_dev != b.st_dev)
            rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                            "the output is on another filesystem than the shards: the merge that "
                            "deletes them renames the merged file, so it must be on the same one");
        gguf__free(odir);
    }
    /* one merge of this folder at a time */
    int dfd = -1;
    if (rc == 0) {
        char *dir = gguf__path_dir(shard);
        dfd = dir != NULL ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (dfd < 0)
            rc = gguf__io_fail(err, shard, "opening its folder");
        else if (flock(dfd, LOCK_EX | LOCK_NB) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "another merge is running in this folder: nothing changed");
        gguf__free(dir);
    }
    /* what killed runs left beside the files (temporary files whose writer is gone) */
    for (uint32_t k = 0; rc == 0 && k < count; k++)
        gguf__temp_sweep(m.paths[k]);
    if (rc == 0)
        gguf__temp_sweep(out);
    while (rc == 0) {
        rc = advance(&m, err);
        if (rc == 1) {
            rc = 0;
            break;
        }
    }
    if (dfd >= 0)
        close(dfd);
    for (uint32_t k = 0; m.paths != NULL && k < count; k++)
        gguf__free(m.paths[k]);
    gguf__free(m.paths);
    gguf__free(prefix);
    if (rc == 0 && res != NULL) {
        m.res.shards = count;
        *res = m.res;
    }
    return rc;
}
