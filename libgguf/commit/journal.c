/* The journal of an in-place header edit. When an edited header still rounds up to the file's
 * data offset, or when the header region grows by whole filesystem blocks inserted in place
 * (fallocate's FALLOC_FL_INSERT_RANGE, which shifts the data without copying it), only the
 * header region is rewritten, in three steps:
 *
 *   1. the journal (below) is written to a temporary file, fsync'd, renamed to
 *      ".NAME.gguf-journal" beside the file, and the folder fsync'd: a journal under that name
 *      is always whole;
 *   2. the blocks are inserted (when the region grows), the new region is written over the
 *      start of the file (in two writes split inside the bytes that change: the crash tests
 *      stop the writer between them, on a header torn for sure), the file fsync'd and the
 *      region read back;
 *   3. the journal is removed. The folder is not fsync'd again: a journal that comes back after
 *      a crash finds the file already holding its new region, and applying it again changes
 *      nothing; the next rename in the folder (any later edit) makes the removal durable.
 *
 * A crash before step 1 completes leaves the file and no journal (and maybe the journal's
 * temporary file, which the next editor, recover included, removes once its writer is gone);
 * after it, the journal finishes the edit when an editor asks (gguf-edit recover, or any edit
 * of the file): reading never does. The journal names the file it belongs to and holds both
 * regions, so that recovery refuses every journal that is not exactly this file's: another
 * file's (device, inode, size), one whose old region is not what the file holds (unless the
 * new one is, or a mix of both from a torn write), one whose regions are not headers with the
 * file's data offset (and the new one's shifted by the insertion), a journal that is a link,
 * not a regular file, or owned by someone else than the file's owner. Refused journals are left
 * in place with the reason. The new region may also list more tensors after the old one's,
 * whose bytes lie in the file (a merge appending a shard's tensors: split/merge.c).
 *
 * Whether the blocks were inserted is not taken from the file's size alone: the journal holds
 * the crc32 of the data bytes that followed the old region, which an insertion moves by L. The
 * file must hold them right after the old region (not inserted yet) or L bytes further (inserted);
 * an insertion at the region's end (B = D) leaves no old header bytes to compare, and zero
 * bytes of data there look like the inserted hole, so without this a journal could claim an
 * insertion that never happened and shift every tensor.
 *
 * The head is read and checked first (magic, version, its lengths against the journal's own
 * size and the file's), then its crc32 in bounded pieces: a journal that is sparse, cut, or
 * bigger than its head says costs no more memory than the head allows, and no read past it.
 *
 *   offset  size  field (little-endian)
 *        0     8  "GGUFJRNL"
 *        8     4  version (3)
 *       12     8  device of the file     }
 *       20     8  inode of the file      } which file it is
 *       28     8  size of the file before the edit
 *       36     8  old region length D (the file's data offset)
 *       44     8  where blocks are inserted, B (a multiple of the block size, at most D)
 *       52     8  bytes inserted, L (0: none; the new region is D + L bytes)
 *       60     4  crc32 of the old region (the header it replaces)
 *       64     4  crc32 of the file's bytes [D, D + M) before the edit, M = min(L, size - D):
 *                 the data an insertion moves to [D + L, D + L + M) (0 when L is 0)
 *       68     D  the old region
 *     68+D   D+L  the new region
 *   68+2D+L    4  crc32 of every byte before: the journal is whole and unchanged
 *
 * The trailing crc32 is the only check of the new region's bytes (the header parse catches
 * some damage, not a changed character in a string).
 */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define PIECE ((size_t)64 << 10) /* journals and data are checked in pieces of this size */

#define MAGIC "GGUFJRNL"
#define VERSION 3
#define HEAD 68
/* a header region larger than this is no header of ours: refused before it is read */
#define REGION_MAX ((uint64_t)1 << 32)

char *gguf__journal_path(const char *path) {
    return gguf__path_beside(path, ".", ".gguf-journal");
}

static uint32_t crc(const uint8_t *p, size_t n) {
    return (uint32_t)crc32_z(0, p, n);
}

/* The crc32 of fd's bytes [off, off + n), read in pieces: 0, or -1 with errno. */
static int crc_of_range(uint32_t *out, int fd, uint64_t off, uint64_t n) {
    uint8_t *buf = gguf__malloc(PIECE);
    if (buf == NULL) {
        errno = ENOMEM;
        return -1;
    }
    uLong c = crc32_z(0, NULL, 0);
    int rc = 0;
    while (rc == 0 && n > 0) {
        size_t k = n < PIECE ? (size_t)n : PIECE;
        rc = gguf__io_pread(fd, buf, k, off);
        if (rc != 0)
            break; /* buf holds no bytes of the file */
        c = crc32_z(c, buf, k);
        off += k;
        n -= k;
    }
    int saved = errno;
    gguf__free(buf);
    errno = saved;
    *out = (uint32_t)c;
    return rc;
}

/* How many data bytes the insertion's proof covers: min(L, size - D). */
static uint64_t moved_len(const gguf__journal *j) {
    return j->size - j->len < j->insert_len ? j->size - j->len : j->insert_len;
}

int gguf__journal_measure(gguf__journal *j, int fd, gguf_error *err) {
    j->moved_crc = 0;
    if (j->insert_len == 0)
        return 0;
    if (crc_of_range(&j->moved_crc, fd, j->len, moved_len(j)) != 0)
        return gguf__fail(err, errno == ENOMEM ? GGUF_ENOMEM : GGUF_EIO, j->len,
                          "reading the data after the header failed: %s",
                          gguf__io_strerror(errno));
    return 0;
}

/* Records "what: detail" about the journal at jpath. */
static int journal_fail(gguf_error *err, int code, const char *jpath, const char *what,
                        const char *detail) {
    if (detail != NULL)
        gguf__fail(err, code, GGUF_ERROR_NO_OFFSET, "%s: %s", what, detail);
    else
        gguf__fail(err, code, GGUF_ERROR_NO_OFFSET, "%s", what);
    gguf__fail_path(err, jpath);
    return code;
}

int gguf__journal_create(const char *path, const gguf__journal *j, gguf_error *err) {
    size_t len = (size_t)j->len, new_len = (size_t)(j->len + j->insert_len);
    size_t total = HEAD + len + new_len + 4;
    uint8_t *b = gguf__malloc(total);
    char *jpath = gguf__journal_path(path);
    char *tmp = NULL;
    if (b == NULL || jpath == NULL) {
        gguf__free(b);
        gguf__free(jpath);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    memcpy(b, MAGIC, 8);
    gguf__store32(b + 8, VERSION, false);
    gguf__store64(b + 12, j->dev, false);
    gguf__store64(b + 20, j->ino, false);
    gguf__store64(b + 28, j->size, false);
    gguf__store64(b + 36, j->len, false);
    gguf__store64(b + 44, j->insert_at, false);
    gguf__store64(b + 52, j->insert_len, false);
    gguf__store32(b + 60, crc(j->old_region, len), false);
    gguf__store32(b + 64, j->moved_crc, false);
    memcpy(b + HEAD, j->old_region, len);
    memcpy(b + HEAD + len, j->new_region, new_len);
    gguf__store32(b + total - 4, crc(b, total - 4), false);
    int rc = 0;
    int fd = gguf__temp_create(&tmp, path, ".gguf-journal.tmp", err);
    if (fd < 0) {
        rc = fd;
    } else {
        if (fchmod(fd, 0600) != 0 || gguf__io_write(fd, b, total) != 0 ||
            gguf__io_fdatasync(fd) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "writing the journal failed: %s",
                            gguf__io_strerror(errno));
        else if (gguf__temp_rename(tmp, jpath) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "cannot put the journal in place: %s", gguf__io_strerror(errno));
        else if (gguf__io_sync_dir(jpath) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "syncing the folder of the journal failed: %s",
                            gguf__io_strerror(errno));
        if (rc != 0) {
            /* the file was not touched: take the journal back, wherever it got */
            gguf__temp_discard(tmp);
            if (access(jpath, F_OK) == 0)
                unlink(jpath);
            gguf__fail_path(err, jpath);
        }
        close(fd);
    }
    gguf__free(tmp);
    gguf__free(jpath);
    gguf__free(b);
    return rc;
}

void gguf__journal_free(gguf__journal *j) {
    gguf__free(j->bytes);
    j->bytes = NULL;
}

/* Opens the journal at jpath, refusing what is not a plain file of the file's owner: the
 * descriptor, and its stat in *js. */
static int open_journal(int *fd_out, struct stat *js, const char *jpath, const struct stat *st,
                        gguf_error *err) {
    int fd = open(jpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT)
            return GGUF_ENOTFOUND;
        if (errno == ELOOP)
            return journal_fail(err, GGUF_ECORRUPT, jpath,
                                "the journal is a symbolic link: refused, left in place", NULL);
        return journal_fail(err, GGUF_EIO, jpath, "cannot open the journal", strerror(errno));
    }
    int rc = 0;
    if (fstat(fd, js) != 0)
        rc = journal_fail(err, GGUF_EIO, jpath, "cannot stat the journal", strerror(errno));
    else if (!S_ISREG(js->st_mode))
        rc = journal_fail(err, GGUF_ECORRUPT, jpath,
                          "the journal is not a regular file: refused, left in place", NULL);
    else if (js->st_uid != st->st_uid)
        rc = journal_fail(err, GGUF_ECORRUPT, jpath,
                          "the journal belongs to another user than the file: refused, left in place",
                          NULL);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    *fd_out = fd;
    return 0;
}

/* Why the journal's head does not describe an edit of the file st by a journal of jsize bytes,
 * or NULL when it does. Nothing past the head is read before this passes. */
static const char *check_head(const uint8_t *h, uint64_t jsize, const struct stat *st) {
    uint64_t len = gguf__load64(h + 36, false), at = gguf__load64(h + 44, false);
    uint64_t ins = gguf__load64(h + 52, false), size = gguf__load64(h + 28, false);
    if (memcmp(h, MAGIC, 8) != 0 || gguf__load32(h + 8, false) != VERSION)
        return "not a journal of this version";
    if (gguf__load64(h + 12, false) != (uint64_t)st->st_dev ||
        gguf__load64(h + 20, false) != (uint64_t)st->st_ino ||
        ((uint64_t)st->st_size != size &&
         (ins == 0 || ins > (uint64_t)st->st_size || (uint64_t)st->st_size - ins != size)))
        return "it belongs to another file (device, inode or size differ)";
    /* the old region is the file's header: no longer than the file was */
    if (len > size || len > REGION_MAX)
        return "its old region is longer than the file";
    if (ins > REGION_MAX || jsize != HEAD + 2 * len + ins + 4)
        return "its size is not the one its head gives (cut, extended or not a journal)";
    if (at > len || (ins > 0 && (at % 512 != 0 || ins % 512 != 0)))
        return "its region or insertion does not lie inside the file's header";
    return NULL;
}

/* Why the journal's body (b, n bytes, its head checked) is not whole, or NULL. */
static const char *check_body(const uint8_t *b, size_t n) {
    uint64_t len = gguf__load64(b + 36, false);
    if (crc(b, n - 4) != gguf__load32(b + n - 4, false))
        return "its crc32 does not match its bytes";
    if (crc(b + HEAD, (size_t)len) != gguf__load32(b + 60, false))
        return "the crc32 of the header it replaces does not match that header";
    return NULL;
}

/* Reads the journal at jpath for the file st: its head, checked; then its crc32, computed in
 * pieces; only then its bytes, into memory (*out, *n_out). *why says why it is refused. */
static int read_journal(uint8_t **out, size_t *n_out, const char **why, const char *jpath,
                        const struct stat *st, gguf_error *err) {
    int fd;
    struct stat js;
    int rc = open_journal(&fd, &js, jpath, st, err);
    if (rc != 0)
        return rc;
    uint8_t head[HEAD];
    uint64_t n = (uint64_t)js.st_size;
    uint32_t sum = 0;
    uint8_t tail[4];
    *why = NULL;
    if (n < HEAD + 4)
        *why = "it is shorter than a journal's head";
    else if (gguf__io_pread(fd, head, HEAD, 0) != 0)
        rc = journal_fail(err, GGUF_EIO, jpath, "reading the journal failed",
                          gguf__io_strerror(errno));
    else
        *why = check_head(head, n, st);
    /* the whole journal's crc32 before it is held in memory: a cut or damaged one costs a
     * piece of memory, not its size */
    if (rc == 0 && *why == NULL) {
        if (crc_of_range(&sum, fd, 0, n - 4) != 0 || gguf__io_pread(fd, tail, 4, n - 4) != 0)
            rc = journal_fail(err, errno == ENOMEM ? GGUF_ENOMEM : GGUF_EIO, jpath,
                              "reading the journal failed", gguf__io_strerror(errno));
        else if (sum != gguf__load32(tail, false))
            *why = "its crc32 does not match its bytes";
    }
    uint8_t *bytes = NULL;
    if (rc == 0 && *why == NULL && (bytes = gguf__malloc((size_t)n)) == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for the journal");
    if (rc == 0 && *why == NULL && gguf__io_pread(fd, bytes, (size_t)n, 0) != 0)
        rc = journal_fail(err, GGUF_EIO, jpath, "reading the journal failed",
                          gguf__io_strerror(errno));
    /* read again: it is these bytes that must be whole */
    if (rc == 0 && *why == NULL)
        *why = check_body(bytes, (size_t)n);
    close(fd);
    if (rc != 0 || *why != NULL) {
        gguf__free(bytes);
        return rc;
    }
    *out = bytes;
    *n_out = (size_t)n;
    return 0;
}

int gguf__journal_load(gguf__journal *j, const char *path, const struct stat *st,
                       gguf_error *err) {
    memset(j, 0, sizeof *j);
    char *jpath = gguf__journal_path(path);
    if (jpath == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    uint8_t *b = NULL;
    size_t n = 0;
    const char *why = NULL;
    int rc = read_journal(&b, &n, &why, jpath, st, err);
    gguf__journal jj = {0};
    if (rc == 0 && why == NULL) {
        jj = (gguf__journal){
            .dev = gguf__load64(b + 12, false),
            .ino = gguf__load64(b + 20, false),
            .size = gguf__load64(b + 28, false),
            .len = gguf__load64(b + 36, false),
            .insert_at = gguf__load64(b + 44, false),
            .insert_len = gguf__load64(b + 52, false),
            .moved_crc = gguf__load32(b + 64, false),
        };
        jj.old_region = b + HEAD;
        jj.new_region = b + HEAD + jj.len;
        /* both regions must be whole headers: the old one of the file with its data offset at
         * the region's end, the new one putting every tensor at the same bytes (shifted by the
         * insertion), so the write stays inside the old header and the inserted blocks */
        gguf_file *old = NULL;
        gguf_error sub;
        gguf_error_clear(&sub);
        int hr = gguf__open_header(&old, jj.old_region, (size_t)jj.len, jj.size,
                                   GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES, &sub);
        if (hr == 0 && old->data_offset != jj.len)
            hr = GGUF_ECORRUPT;
        if (hr != 0)
            why = "its old region is not the file's header";
        else if ((hr = gguf__verify_header(old, jj.new_region, (size_t)(jj.len + jj.insert_len),
                                           jj.insert_len, true, &sub)) != 0)
            why = "its new region is not a header that keeps every tensor in place";
        if (hr == GGUF_ENOMEM)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        gguf_file_free(old);
    }
    if (rc == 0 && why != NULL)
        rc = journal_fail(err, GGUF_ECORRUPT, jpath, "refused, left in place", why);
    else if (rc != 0 && rc != GGUF_ENOTFOUND)
        gguf__fail_path(err, jpath);
    gguf__free(jpath);
    if (rc != 0) {
        gguf__free(b);
        return rc;
    }
    jj.bytes = b;
    *j = jj;
    return 0;
}

/* The byte the file holds at i before the new region is written: the old header, or, once the
 * blocks are inserted, the old header with L zero bytes at B. */
static uint8_t before_write(const gguf__journal *j, bool inserted, uint64_t i) {
    if (!inserted || i < j->insert_at)
        return j->old_region[i];
    if (i < j->insert_at + j->insert_len)
        return 0;
    return j->old_region[i - j->insert_len];
}

int gguf__journal_matches(const gguf__journal *j, int fd, gguf_error *err) {
    struct stat st;
    if (fstat(fd, &st) != 0)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot stat: %s",
                          strerror(errno));
    bool inserted = j->insert_len > 0 && (uint64_t)st.st_size == j->size + j->insert_len;
    if (j->insert_len > 0) {
        /* the data that followed the old region: still there, or moved by the insertion */
        uint32_t moved;
        if (crc_of_range(&moved, fd, inserted ? j->len + j->insert_len : j->len,
                         moved_len(j)) != 0)
            return gguf__fail(err, errno == ENOMEM ? GGUF_ENOMEM : GGUF_EIO, j->len,
                              "reading the data after the header failed: %s",
                              gguf__io_strerror(errno));
        if (moved != j->moved_crc)
            return gguf__fail(err, GGUF_ECORRUPT, inserted ? j->len + j->insert_len : j->len,
                              "the journal does not match the file: the data after the header "
                              "is not where its insertion of %llu bytes puts it; refused, left "
                              "in place", (unsigned long long)j->insert_len);
    }
    uint64_t n = inserted || j->insert_len == 0 ? j->len + j->insert_len : j->len;
    uint8_t *now = gguf__malloc(n ? (size_t)n : 1);
    if (now == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = 0;
    if (gguf__io_pread(fd, now, (size_t)n, 0) != 0)
        rc = gguf__fail(err, GGUF_EIO, 0, "reading the header failed: %s",
                        gguf__io_strerror(errno));
    /* before the insertion nothing was written yet: the old header, exactly */
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        bool is_new = (inserted || j->insert_len == 0) && now[i] == j->new_region[i];
        if (now[i] != before_write(j, inserted, i) && !is_new)
            rc = gguf__fail(err, GGUF_ECORRUPT, i,
                            "the journal does not match the file: its byte %llu is neither the "
                            "one before the edit nor the one after it; refused, left in place",
                            (unsigned long long)i);
    }
    gguf__free(now);
    return rc;
}

/* Writes the new region, syncs, and reads it back: 0, 1 when the bytes read back differ, or -1
 * with errno. */
static int write_region(const gguf__journal *j, int fd, uint8_t *back) {
    size_t n = (size_t)(j->len + j->insert_len);
    /* split between the first and the last byte that change, so that the header between the
     * two writes is neither the old one nor the new one */
    size_t first = 0, last = n;
    bool inserted = j->insert_len > 0;
    while (first < n && j->new_region[first] == before_write(j, inserted, first))
        first++;
    while (last > first && j->new_region[last - 1] == before_write(j, inserted, last - 1))
        last--;
    size_t half = first + (last - first) / 2;
    if (gguf__io_pwrite(fd, j->new_region, half, 0) != 0)
        return -1;
    /* a torn header on disk: the crash tests kill the editor here on purpose */
    gguf__test_pause("journal-half-written");
    if (gguf__io_pwrite(fd, j->new_region + half, n - half, half) != 0 ||
        gguf__io_fdatasync(fd) != 0 || gguf__io_pread(fd, back, n, 0) != 0)
        return -1;
    return memcmp(back, j->new_region, n) != 0;
}

int gguf__journal_apply(const gguf__journal *j, int fd, const char *path, bool *touched,
                        gguf_error *err) {
    *touched = false;
    uint64_t n = j->len + j->insert_len;
    uint8_t *back = gguf__malloc(n ? (size_t)n : 1);
    int rc = back == NULL ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory")
                          : gguf__journal_matches(j, fd, err);
    struct stat st;
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot stat: %s", strerror(errno));
    if (rc == 0 && j->insert_len > 0 && (uint64_t)st.st_size == j->size) {
        /* the blocks are not in yet: insert them (all or nothing, in the filesystem's journal) */
        if (gguf__io_insert_range(fd, j->insert_at, j->insert_len) != 0)
            rc = gguf__fail(err, errno == EOPNOTSUPP || errno == EINVAL ? GGUF_EUNSUPPORTED
                                                                         : GGUF_EIO,
                            GGUF_ERROR_NO_OFFSET,
                            "inserting %llu bytes at byte %llu failed: %s",
                            (unsigned long long)j->insert_len, (unsigned long long)j->insert_at,
                            gguf__io_strerror(errno));
    }
    *touched = rc == 0;
    int w = rc == 0 ? write_region(j, fd, back) : 0;
    if (w == 1) /* the header read back is not the one written: write it once more */
        w = write_region(j, fd, back);
    if (w < 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "writing the header failed: %s",
                        gguf__io_strerror(errno));
    else if (w == 1)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                        "the header read back differs from the one written, twice: the journal "
                        "stays for `gguf-edit recover`");
    gguf__free(back);
    gguf__fail_path(err, path);
    return rc;
}

int gguf__journal_remove(const char *jpath, gguf_error *err) {
    /* nothing here allocates: the edit may be done already, and must not be reported failed
     * for want of memory */
    if (gguf__io_unlink(jpath) != 0)
        return journal_fail(err, GGUF_EIO, jpath, "cannot remove the journal",
                            gguf__io_strerror(errno));
    return 0;
}
