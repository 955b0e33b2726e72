/* The journal of an in-place header edit. When an edited header still rounds up to the file's
 * data offset, only the header region [0, data offset) is rewritten, in three steps:
 *
 *   1. the journal (below) is written to a temporary file, fsync'd, renamed to
 *      ".NAME.gguf-journal" beside the file, and the folder fsync'd: a journal under that name
 *      is always whole;
 *   2. the new region is written over the start of the file, which is fsync'd;
 *   3. the journal is removed and the folder fsync'd.
 *
 * A crash before step 1 completes leaves the file and no journal; after it, the journal finishes
 * the edit when an editor asks (gguf-edit recover, or any edit of the file): reading never does.
 * The journal names the file it belongs to and holds both regions, so that recovery refuses
 * every journal that is not exactly this file's: another file's (device, inode, size), one whose
 * old region is not what the file holds (unless the new one is, or a mix of both from a torn
 * write), one whose regions are not headers with the file's data offset, a journal that is a
 * link, not a regular file, or owned by someone else than the file's owner. Refused journals are
 * left in place with the reason.
 *
 *   offset  size  field (little-endian)
 *        0     8  "GGUFJRNL"
 *        8     4  version (2)
 *       12     8  device of the file     }
 *       20     8  inode of the file      } which file it is
 *       28     8  size of the file       }
 *       36     8  region length L (the file's data offset)
 *       44     4  crc32 of the old region (the header it replaces)
 *       48     L  the old region
 *     48+L     L  the new region
 *    48+2L     4  crc32 of bytes 0 .. 48+2L: the journal is whole and unchanged
 *
 * The trailing crc32 is the only check of the new region's bytes (the header parse catches
 * some damage, not a changed character in a string).
 */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define MAGIC "GGUFJRNL"
#define VERSION 2
#define HEAD 48
/* a header region larger than this is no header of ours: refused before it is read */
#define REGION_MAX ((uint64_t)1 << 32)

char *gguf__journal_path(const char *path) {
    return gguf__path_beside(path, ".", ".gguf-journal");
}

static uint32_t crc(const uint8_t *p, size_t n) {
    return (uint32_t)crc32_z(0, p, n);
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

int gguf__journal_create(const char *path, const struct stat *st, const uint8_t *old_region,
                         const uint8_t *new_region, size_t len, gguf_error *err) {
    size_t total = HEAD + 2 * len + 4;
    uint8_t *j = gguf__malloc(total);
    char *jpath = gguf__journal_path(path);
    char *tmp = NULL;
    if (j == NULL || jpath == NULL) {
        gguf__free(j);
        gguf__free(jpath);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    memcpy(j, MAGIC, 8);
    gguf__store32(j + 8, VERSION, false);
    gguf__store64(j + 12, (uint64_t)st->st_dev, false);
    gguf__store64(j + 20, (uint64_t)st->st_ino, false);
    gguf__store64(j + 28, (uint64_t)st->st_size, false);
    gguf__store64(j + 36, len, false);
    gguf__store32(j + 44, crc(old_region, len), false);
    memcpy(j + HEAD, old_region, len);
    memcpy(j + HEAD + len, new_region, len);
    gguf__store32(j + HEAD + 2 * len, crc(j, HEAD + 2 * len), false);
    int rc = 0;
    int fd = gguf__temp_create(&tmp, path, ".gguf-journal.tmp", err);
    if (fd < 0) {
        rc = fd;
    } else {
        if (fchmod(fd, 0600) != 0 || gguf__io_write(fd, j, total) != 0 || gguf__io_fsync(fd) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "writing the journal failed: %s",
                            gguf__io_strerror(errno));
        else if (gguf__io_rename(tmp, jpath) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "cannot put the journal in place: %s", gguf__io_strerror(errno));
        else if (gguf__io_sync_dir(jpath) != 0)
            rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                            "syncing the folder of the journal failed: %s",
                            gguf__io_strerror(errno));
        if (rc != 0) {
            /* the file was not touched: take the journal back, wherever it got */
            unlink(tmp);
            if (access(jpath, F_OK) == 0)
                unlink(jpath);
            gguf__fail_path(err, jpath);
        }
        close(fd);
    }
    gguf__free(tmp);
    gguf__free(jpath);
    gguf__free(j);
    return rc;
}

void gguf__journal_free(gguf__journal *j) {
    gguf__free(j->bytes);
    j->bytes = NULL;
}

/* Reads the journal file at jpath, refusing what is not a plain file of the file's owner. */
static int read_journal(uint8_t **out, size_t *n_out, const char *jpath, const struct stat *st,
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
    struct stat js;
    int rc = 0;
    if (fstat(fd, &js) != 0)
        rc = journal_fail(err, GGUF_EIO, jpath, "cannot stat the journal", strerror(errno));
    else if (!S_ISREG(js.st_mode))
        rc = journal_fail(err, GGUF_ECORRUPT, jpath,
                          "the journal is not a regular file: refused, left in place", NULL);
    else if (js.st_uid != st->st_uid)
        rc = journal_fail(err, GGUF_ECORRUPT, jpath,
                          "the journal belongs to another user than the file: refused, left in place",
                          NULL);
    else if ((uint64_t)js.st_size < HEAD + 4 || (uint64_t)js.st_size > HEAD + 2 * REGION_MAX + 4)
        rc = journal_fail(err, GGUF_ECORRUPT, jpath,
                          "the journal's size is not one of a journal: refused, left in place", NULL);
    uint8_t *bytes = NULL;
    size_t n = rc == 0 ? (size_t)js.st_size : 0;
    if (rc == 0 && (bytes = gguf__malloc(n)) == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for the journal");
    if (rc == 0 && gguf__io_pread(fd, bytes, n, 0) != 0)
        rc = journal_fail(err, GGUF_EIO, jpath, "reading the journal failed",
                          gguf__io_strerror(errno));
    close(fd);
    if (rc != 0) {
        gguf__free(bytes);
        return rc;
    }
    *out = bytes;
    *n_out = n;
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
    int rc = read_journal(&b, &n, jpath, st, err);
    const char *why = NULL;
    uint64_t len = 0;
    if (rc == 0) {
        len = gguf__load64(b + 36, false);
        if (memcmp(b, MAGIC, 8) != 0 || gguf__load32(b + 8, false) != VERSION)
            why = "not a journal of this version";
        else if (len > REGION_MAX || n != HEAD + 2 * len + 4)
            why = "its length does not match its region length";
        else if (crc(b, n - 4) != gguf__load32(b + n - 4, false))
            why = "its crc32 does not match its bytes";
        else if (crc(b + HEAD, (size_t)len) != gguf__load32(b + 44, false))
            why = "the crc32 of the header it replaces does not match that header";
        else if (gguf__load64(b + 12, false) != (uint64_t)st->st_dev ||
                 gguf__load64(b + 20, false) != (uint64_t)st->st_ino ||
                 gguf__load64(b + 28, false) != (uint64_t)st->st_size)
            why = "it belongs to another file (device, inode or size differ)";
        else if (len > (uint64_t)st->st_size)
            why = "its region is larger than the file";
    }
    if (rc == 0 && why == NULL) {
        /* both regions must be whole headers of a file of this size, with the same data
         * offset, equal to the region's length: the write stays inside the old header */
        gguf_file *old = NULL;
        gguf_error sub;
        gguf_error_clear(&sub);
        int hr = gguf__open_header(&old, b + HEAD, (size_t)len, (uint64_t)st->st_size,
                                   GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES, &sub);
        if (hr == 0 && old->data_offset != len)
            hr = GGUF_ECORRUPT;
        if (hr != 0)
            why = "its old region is not the file's header";
        else if ((hr = gguf__verify_header(old, b + HEAD + len, (size_t)len, &sub)) != 0)
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
    *j = (gguf__journal){
        .dev = (uint64_t)st->st_dev,
        .ino = (uint64_t)st->st_ino,
        .size = (uint64_t)st->st_size,
        .len = len,
        .old_region = b + HEAD,
        .new_region = b + HEAD + len,
        .bytes = b,
    };
    return 0;
}

int gguf__journal_matches(const gguf__journal *j, int fd, gguf_error *err) {
    uint8_t *now = gguf__malloc(j->len ? (size_t)j->len : 1);
    if (now == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = 0;
    if (gguf__io_pread(fd, now, (size_t)j->len, 0) != 0)
        rc = gguf__fail(err, GGUF_EIO, 0, "reading the header failed: %s",
                        gguf__io_strerror(errno));
    for (uint64_t i = 0; rc == 0 && i < j->len; i++) {
        if (now[i] != j->old_region[i] && now[i] != j->new_region[i])
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
    if (gguf__io_pwrite(fd, j->new_region, (size_t)j->len, 0) != 0 || gguf__io_fsync(fd) != 0 ||
        gguf__io_pread(fd, back, (size_t)j->len, 0) != 0)
        return -1;
    return memcmp(back, j->new_region, (size_t)j->len) != 0;
}

int gguf__journal_apply(const gguf__journal *j, int fd, const char *path, bool *touched,
                        gguf_error *err) {
    *touched = false;
    uint8_t *back = gguf__malloc(j->len ? (size_t)j->len : 1);
    int rc = back == NULL ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory")
                          : gguf__journal_matches(j, fd, err);
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
    (void)gguf__io_sync_dir(jpath); /* a journal back after a crash replays harmlessly */
    return 0;
}
