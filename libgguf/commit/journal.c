/* The journal of an in-place header edit. When an edited header still rounds up to the file's
 * data offset, or when the header region grows by whole filesystem blocks inserted in place
 * (fallocate's FALLOC_FL_INSERT_RANGE, which shifts the data without copying it), only the
 * bytes of the header region that change are rewritten, in three steps:
 *
 *   1. the journal (below) is written to a temporary file, fsync'd, renamed to
 *      ".NAME.gguf-journal" beside the file, and the folder fsync'd: a journal under that name
 *      is always whole;
 *   2. the blocks are inserted (when the region grows), the changed ranges are written over the
 *      file (the write stops once at the split point S, inside the bytes that change: the crash
 *      tests stop the writer there, on a header torn for sure), and the file fsync'd;
 *   3. the journal is removed. The folder is not fsync'd again: a journal that comes back after
 *      a crash finds the file already holding its new region, and applying it again changes
 *      nothing; the next rename in the folder (any later edit) makes the removal durable.
 *
 * The editor reads the header once, when it opens the file; it writes the journal from those
 * bytes and, under the edit lock, once the file's identity (device, inode, size, mtime, ctime)
 * shows that nobody wrote it since, writes in place without reading it again, nor back.
 *
 * A crash before step 1 completes leaves the file and no journal (and maybe the journal's
 * temporary file, which the next editor, recover included, removes once its writer is gone);
 * after it, the journal finishes the edit when an editor asks (gguf-edit recover, or any edit
 * of the file): reading never does.
 *
 * What the journal holds is what recovery needs and nothing more: the new bytes of the ranges
 * the edit changes (not the whole new header: the bytes it leaves alone are in the file,
 * whatever state the crash left), and the old header's identity, not its bytes: its crc32 and
 * the crc32 of each 4 KiB block ("block" below: 4 KiB of the region, from its start).
 *
 * Recovery reads the file's region once and makes, in memory, the region the roll-forward
 * leaves: the file's bytes with the changed ranges written over them. That region must have
 * the new region's crc32, which proves every byte the edit does not change (those bytes are
 * the same in the old and the new header, and the edit never wrote them); then writing the
 * ranges makes the file exactly the new one, whatever the crash left inside them. The proof
 * comes before any write, so a refusal writes nothing. Writing first would not be safe: the
 * file may hold the old header whole, a valid file, plus a change nobody explains, and the
 * ranges written over it would make a header that is neither the old one nor the new one.
 * Each block is judged too, to tell the old header from the others and to name what is
 * refused:
 *   - old: its crc32 is the old block's (after an insertion, the inserted blocks' old state is
 *     zero bytes, and the old blocks after B are L bytes further);
 *   - new: it holds changed bytes, and the journal's bytes in every changed range it has;
 *   - torn: anything else. A kill leaves at most the block holding S torn (new bytes before S,
 *     old ones from S): each range (ranges that share a block are written as one) is written
 *     by one pwrite, or two split at S, and the kernel copies a write into the page cache a
 *     page (4 KiB or a multiple, aligned) at a time, checking for a fatal signal between pages
 *     only. A power loss on a device that writes less than 4 KiB atomically (512-byte sectors)
 *     can leave any block the write reached torn, each of its sectors old or new. Either way a
 *     torn block's bytes outside the changed ranges were never written, so the proof covers
 *     them, and its bytes inside them are rewritten: rolled forward.
 * When the proof fails, a byte the edit never wrote has changed, which no interrupted write
 * explains: refused, naming the blocks that are neither old nor new (such a byte lies in one of
 * them, unless it lies outside the ranges of a block whose ranges are all new, where the one
 * crc32 of the new region cannot place it), the file and the journal left as they are. What
 * the journal cannot tell: the bytes inside the changed ranges are judged by the old blocks'
 * crc32s alone, so anything there, a tear or a change by someone else, is overwritten with the
 * new bytes, and the file is the new one.
 *
 * Recovery refuses every journal that is not exactly this file's: another file's (device,
 * inode, size), one whose old blocks' crc32s do not make its old region's crc32, one whose
 * new region the file's bytes outside the changed ranges do not prove (its crc32), one whose
 * changed ranges do not lie in order inside the new region, one whose new region is not a
 * header with the file's data offset (shifted by the insertion) or, while the file still holds
 * the old header, one whose new region does not put every tensor of that header at the same
 * bytes with the same name, type and size; a journal that is a link, not a regular file, or
 * owned by someone else than the file's owner. Refused journals are left in place with the
 * reason. The new region may also list more tensors after the old one's, whose bytes lie in
 * the file (a merge appending a shard's tensors: split/merge_delete.c).
 *
 * Whether the blocks were inserted is not taken from the file's size alone: the journal holds
 * the crc32 of the data bytes that followed the old region, which an insertion moves by L. The
 * file must hold them right after the old region (not inserted yet) or L bytes further (inserted);
 * an insertion at the region's end (B = D) leaves no old header bytes to compare, and zero
 * bytes of data there look like the inserted hole, so without this a journal could claim an
 * insertion that never happened and shift every tensor. Before the insertion nothing was
 * written: the region must be the old one whole.
 *
 * The head is read and checked first (magic, version, its lengths against the journal's own
 * size and the file's), then its crc32 in bounded pieces: a journal that is sparse, cut, or
 * bigger than its head says costs no more memory than the head allows, and no read past it.
 *
 *   offset  size  field (little-endian)
 *        0     8  "GGUFJRNL"
 *        8     4  version (4)
 *       12     8  device of the file     }
 *       20     8  inode of the file      } which file it is
 *       28     8  size of the file before the edit
 *       36     8  old region length D (the file's data offset)
 *       44     8  where blocks are inserted, B (a multiple of 4096, at most D)
 *       52     8  bytes inserted, L (0: none; else a multiple of 4096; the new region is D + L)
 *       60     4  crc32 of the old region (the header it replaces)
 *       64     4  crc32 of the file's bytes [D, D + M) before the edit, M = min(L, size - D):
 *                 the data an insertion moves to [D + L, D + L + M) (0 when L is 0)
 *       68     4  crc32 of the new region
 *       72     8  the split point S (in the new region)
 *       80     4  crc32 of the block holding S with new bytes before S and old ones from S
 *                 (recovery does not rely on it: the new region's crc32 proves that state as
 *                 it proves any tear)
 *       84     8  R, the number of changed ranges
 *       92     8  T, their total length
 *      100  4*NB  crc32 of each block of the old region, NB = ceil(D / 4096)
 *           16*R  the ranges: offset in the new region, length (ascending, apart, not empty;
 *                 the writer makes one range of changes that no aligned 64-byte piece of equal
 *                 bytes separates)
 *              T  their bytes in the new region, one range after the other
 *      end-4   4  crc32 of every byte before: the journal is whole and unchanged
 *
 * The trailing crc32 is the only check of the ranges' bytes (the header parse catches some
 * damage, not a changed character in a string).
 *
 * Format 3, which earlier versions wrote, is still read: a crash under one of them leaves such a
 * journal until the next editor comes, which may be this version. It held both regions whole
 * (its head is this one's first 68 bytes, then the old region, the new one, the crc32), and is
 * turned on loading into this format's terms: its regions give the changed ranges, the block
 * crc32s and the split point, which is where its writer stopped too (between two writes split
 * inside the changed bytes), so its crashes leave the states judged above. Other formats are
 * refused.
 */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define PIECE ((size_t)64 << 10) /* journals and data are checked in pieces of this size */

#define MAGIC "GGUFJRNL"
#define VERSION 4
#define HEAD 100
#define HEAD3 68 /* format 3's head: its old region and new region follow */
#define BLOCK ((uint64_t)4096) /* the unit in which recovery judges the file's region */
/* changes that no aligned piece of this many equal bytes separates are one range (a range's
 * offset and length cost 16 bytes) */
#define GAP 64
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

static uint64_t n_blocks(uint64_t len) {
    return (len + BLOCK - 1) / BLOCK;
}

/* Where a and b first differ from i on (n when they agree to the end). */
static uint64_t skip_equal(const uint8_t *a, const uint8_t *b, uint64_t i, uint64_t n) {
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            break;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* The changed ranges of the new region (y) against the file before the write (x), both n
 * bytes, each from its first changed byte to its last: changes that no whole aligned piece of
 * GAP equal bytes separates are one range (a piece is compared at once). Appends (start, end)
 * pairs to out. */
static void find_ranges(gguf__buf *out, const uint8_t *x, const uint8_t *y, uint64_t n) {
    uint64_t i = skip_equal(x, y, 0, n);
    while (i < n) {
        uint64_t pair[2] = {i, 0};
        uint64_t c = (i / GAP + 1) * GAP; /* the pieces after the one holding i */
        while (c < n && memcmp(x + c, y + c, (size_t)(n - c < GAP ? n - c : GAP)) != 0)
            c += GAP;
        uint64_t end = c < n ? c : n;
        while (x[end - 1] == y[end - 1])
            end--;
        pair[1] = end;
        gguf__buf_add(out, pair, sizeof pair);
        i = c < n ? skip_equal(x, y, c, n) : n;
    }
}

int gguf__journal_build(gguf__journal *j, const uint8_t *old, const uint8_t *new_region,
                        gguf_error *err) {
    uint64_t n = j->len + j->insert_len, nb = n_blocks(j->len);
    /* the file before the write: the old region, with the inserted zero bytes at B */
    const uint8_t *before = old;
    uint8_t *grown = NULL;
    if (j->insert_len > 0) {
        if ((grown = gguf__calloc(1, (size_t)n)) == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        memcpy(grown, old, (size_t)j->insert_at);
        memcpy(grown + j->insert_at + j->insert_len, old + j->insert_at,
               (size_t)(j->len - j->insert_at));
        before = grown;
    }
    gguf__buf found = {0};
    find_ranges(&found, before, new_region, n);
    const uint64_t *pairs = (const uint64_t *)(const void *)found.data;
    j->n_ranges = found.len / 16;
    j->range_bytes = 0;
    for (uint64_t r = 0; r < j->n_ranges; r++)
        j->range_bytes += pairs[2 * r + 1] - pairs[2 * r];
    size_t total = HEAD + 4 * nb + 16 * j->n_ranges + j->range_bytes + 4;
    uint8_t *p = found.failed ? NULL : gguf__malloc(total);
    if (p == NULL) {
        gguf__buf_free(&found);
        gguf__free(grown);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    uint64_t first = j->n_ranges ? pairs[0] : 0;
    uint64_t last = j->n_ranges ? pairs[2 * j->n_ranges - 1] : 0;
    j->split = first + (last - first) / 2;
    /* the block holding S as the stop there leaves it: new bytes before S, old ones after */
    uint64_t bs = j->split - j->split % BLOCK, be = bs + BLOCK < n ? bs + BLOCK : n;
    uLong sc = crc32_z(0, new_region + bs, (size_t)(j->split - bs));
    j->split_crc = (uint32_t)crc32_z(sc, before + j->split, (size_t)(be - j->split));
    j->new_crc = crc(new_region, (size_t)n);
    memcpy(p, MAGIC, 8);
    gguf__store32(p + 8, VERSION, false);
    gguf__store64(p + 12, j->dev, false);
    gguf__store64(p + 20, j->ino, false);
    gguf__store64(p + 28, j->size, false);
    gguf__store64(p + 36, j->len, false);
    gguf__store64(p + 44, j->insert_at, false);
    gguf__store64(p + 52, j->insert_len, false);
    gguf__store32(p + 64, j->moved_crc, false);
    gguf__store32(p + 68, j->new_crc, false);
    gguf__store64(p + 72, j->split, false);
    gguf__store32(p + 80, j->split_crc, false);
    gguf__store64(p + 84, j->n_ranges, false);
    gguf__store64(p + 92, j->range_bytes, false);
    /* the blocks' crc32s, and the old region's made of them */
    uint8_t *q = p + HEAD;
    uLong whole = crc32_z(0, NULL, 0);
    for (uint64_t k = 0; k < nb; k++, q += 4) {
        uint64_t off = k * BLOCK, m = j->len - off < BLOCK ? j->len - off : BLOCK;
        uint32_t c = crc(old + off, (size_t)m);
        gguf__store32(q, c, false);
        whole = crc32_combine(whole, c, (z_off_t)m);
    }
    j->old_crc = (uint32_t)whole;
    gguf__store32(p + 60, j->old_crc, false);
    uint8_t *bytes = q + 16 * j->n_ranges;
    for (uint64_t r = 0; r < j->n_ranges; r++, q += 16) {
        uint64_t a = pairs[2 * r], b = pairs[2 * r + 1];
        gguf__store64(q, a, false);
        gguf__store64(q + 8, b - a, false);
        memcpy(bytes, new_region + a, (size_t)(b - a));
        bytes += b - a;
    }
    gguf__store32(p + total - 4, crc(p, total - 4), false);
    gguf__buf_free(&found);
    gguf__free(grown);
    gguf__free(j->bytes);
    j->bytes = p;
    j->n_bytes = total;
    j->block_crcs = p + HEAD;
    j->ranges = p + HEAD + 4 * nb;
    j->changed = j->ranges + 16 * j->n_ranges;
    return 0;
}

int gguf__journal_create(const char *path, const gguf__journal *j, gguf_error *err) {
    char *jpath = gguf__journal_path(path);
    char *tmp = NULL;
    if (jpath == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = 0;
    int fd = gguf__temp_create(&tmp, path, ".gguf-journal.tmp", err);
    if (fd < 0) {
        rc = fd;
    } else {
        if (fchmod(fd, 0600) != 0 || gguf__io_write(fd, j->bytes, j->n_bytes) != 0 ||
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

/* The head's size for the journal's version (the first 12 bytes read), or 0 for a version this
 * library does not read. */
static size_t head_size(const uint8_t *h) {
    uint32_t v = gguf__load32(h + 8, false);
    return memcmp(h, MAGIC, 8) != 0 ? 0 : v == VERSION ? HEAD : v == 3 ? HEAD3 : 0;
}

/* Why the journal's head does not describe an edit of the file st by a journal of jsize bytes,
 * or NULL when it does. Nothing past the head is read before this passes. */
static const char *check_head(const uint8_t *h, uint64_t jsize, const struct stat *st) {
    uint64_t len = gguf__load64(h + 36, false), at = gguf__load64(h + 44, false);
    uint64_t ins = gguf__load64(h + 52, false), size = gguf__load64(h + 28, false);
    bool v3 = gguf__load32(h + 8, false) == 3;
    if (gguf__load64(h + 12, false) != (uint64_t)st->st_dev ||
        gguf__load64(h + 20, false) != (uint64_t)st->st_ino ||
        ((uint64_t)st->st_size != size &&
         (ins == 0 || ins > (uint64_t)st->st_size || (uint64_t)st->st_size - ins != size)))
        return "it belongs to another file (device, inode or size differ)";
    /* the old region is the file's header: no longer than the file was */
    if (len > size || len > REGION_MAX)
        return "its old region is longer than the file";
    if (ins > REGION_MAX)
        return "its size is not the one its head gives (cut, extended or not a journal)";
    if (v3 && jsize != HEAD3 + 2 * len + ins + 4)
        return "its size is not the one its head gives (cut, extended or not a journal)";
    if (!v3) {
        uint64_t split = gguf__load64(h + 72, false), r = gguf__load64(h + 84, false);
        uint64_t t = gguf__load64(h + 92, false);
        if (t > len + ins || r > t || split > len + ins ||
            jsize != HEAD + 4 * n_blocks(len) + 16 * r + t + 4)
            return "its size is not the one its head gives (cut, extended or not a journal)";
    }
    if (at > len || (ins > 0 && (at % BLOCK != 0 || ins % BLOCK != 0)))
        return "its region or insertion does not lie inside the file's header";
    return NULL;
}

/* A journal of format 3 (b, its head and crc32 checked) as one of this format: j's bytes. */
static int from_v3(gguf__journal *j, const uint8_t *b, const char **why, gguf_error *err) {
    *j = (gguf__journal){
        .dev = gguf__load64(b + 12, false),
        .ino = gguf__load64(b + 20, false),
        .size = gguf__load64(b + 28, false),
        .len = gguf__load64(b + 36, false),
        .insert_at = gguf__load64(b + 44, false),
        .insert_len = gguf__load64(b + 52, false),
        .moved_crc = gguf__load32(b + 64, false),
    };
    const uint8_t *old = b + HEAD3;
    if (crc(old, (size_t)j->len) != gguf__load32(b + 60, false)) {
        *why = "the crc32 of the header it replaces does not match that header";
        return 0;
    }
    return gguf__journal_build(j, old, old + j->len, err);
}

/* Why the journal's ranges (its head and crc32 checked) do not lie in order inside the new
 * region and add up to their bytes, or NULL. */
static const char *check_ranges(const gguf__journal *j) {
    uint64_t end = 0, sum = 0, n = j->len + j->insert_len;
    for (uint64_t r = 0; r < j->n_ranges; r++) {
        uint64_t at = gguf__load64(j->ranges + 16 * r, false);
        uint64_t len = gguf__load64(j->ranges + 16 * r + 8, false);
        if (len == 0 || at < end || (r > 0 && at == end) || at > n || len > n - at)
            return "its changed ranges do not lie in order inside the header";
        end = at + len;
        sum += len;
    }
    if (sum != j->range_bytes)
        return "its changed ranges do not add up to their bytes";
    return NULL;
}

/* Why the crc32s of the journal's old blocks do not make its old region's crc32, or NULL: a
 * journal whose old header's identity disagrees with itself. */
static const char *check_blocks(const gguf__journal *j) {
    uLong c = crc32_z(0, NULL, 0);
    for (uint64_t k = 0; k < n_blocks(j->len); k++) {
        uint64_t m = j->len - k * BLOCK < BLOCK ? j->len - k * BLOCK : BLOCK;
        c = crc32_combine(c, gguf__load32(j->block_crcs + 4 * k, false), (z_off_t)m);
    }
    return (uint32_t)c == j->old_crc ? NULL
                                     : "the crc32s of its old header's blocks do not make the "
                                       "crc32 of the old header";
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
    size_t hs = 0;
    *why = NULL;
    if (n < 12 + 4)
        *why = "it is shorter than a journal's head";
    else if (gguf__io_pread(fd, head, 12, 0) != 0)
        rc = journal_fail(err, GGUF_EIO, jpath, "reading the journal failed",
                          gguf__io_strerror(errno));
    else if ((hs = head_size(head)) == 0)
        *why = memcmp(head, MAGIC, 8) != 0 ? "not a journal"
                                           : "a journal of a format this version of libgguf "
                                             "does not read";
    else if (n < hs + 4)
        *why = "it is shorter than a journal's head";
    else if (gguf__io_pread(fd, head, hs, 0) != 0)
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
    if (rc == 0 && *why == NULL && crc(bytes, (size_t)n - 4) != gguf__load32(bytes + n - 4, false))
        *why = "its crc32 does not match its bytes";
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
    if (rc == 0 && why == NULL && gguf__load32(b + 8, false) == 3) {
        rc = from_v3(&jj, b, &why, err);
        gguf__free(b);
        b = NULL;
    } else if (rc == 0 && why == NULL) {
        jj = (gguf__journal){
            .dev = gguf__load64(b + 12, false),
            .ino = gguf__load64(b + 20, false),
            .size = gguf__load64(b + 28, false),
            .len = gguf__load64(b + 36, false),
            .insert_at = gguf__load64(b + 44, false),
            .insert_len = gguf__load64(b + 52, false),
            .old_crc = gguf__load32(b + 60, false),
            .moved_crc = gguf__load32(b + 64, false),
            .new_crc = gguf__load32(b + 68, false),
            .split = gguf__load64(b + 72, false),
            .split_crc = gguf__load32(b + 80, false),
            .n_ranges = gguf__load64(b + 84, false),
            .range_bytes = gguf__load64(b + 92, false),
            .bytes = b,
            .n_bytes = n,
        };
        jj.block_crcs = b + HEAD;
        jj.ranges = jj.block_crcs + 4 * n_blocks(jj.len);
        jj.changed = jj.ranges + 16 * jj.n_ranges;
        why = check_ranges(&jj);
        if (why == NULL)
            why = check_blocks(&jj);
    }
    if (rc == 0 && why != NULL)
        rc = journal_fail(err, GGUF_ECORRUPT, jpath, "refused, left in place", why);
    else if (rc != 0 && rc != GGUF_ENOTFOUND)
        gguf__fail_path(err, jpath);
    gguf__free(jpath);
    if (rc != 0) {
        if (jj.bytes != b)
            gguf__free(b);
        gguf__journal_free(&jj);
        return rc;
    }
    *j = jj;
    return 0;
}

/* The crc32 the file's block k (of the region as it is once the blocks are inserted) had
 * before the write: an old block, or a block of the inserted zero bytes. */
static uint32_t old_block_crc(const gguf__journal *j, uint64_t k) {
    static const uint8_t zeros[BLOCK];
    uint64_t p = k * BLOCK;
    if (p >= j->insert_at && p < j->insert_at + j->insert_len)
        return crc(zeros, BLOCK);
    if (p >= j->insert_at + j->insert_len)
        k -= j->insert_len / BLOCK;
    return gguf__load32(j->block_crcs + 4 * k, false);
}

/* The journal does not match the file: the reason, refused and left in place. */
static int mismatch(gguf_error *err, uint64_t offset, const char *why) {
    return gguf__fail(err, GGUF_ECORRUPT, offset,
                      "the journal does not match the file: %s; refused, left in place", why);
}

/* The new region is a header with the data offset after the edit; while the file holds the old
 * header (old, not NULL), one that keeps every tensor of it at the same bytes. */
static int check_headers(const gguf__journal *j, const uint8_t *old, const uint8_t *region,
                         gguf_error *err) {
    uint64_t n = j->len + j->insert_len;
    gguf_error sub;
    gguf_error_clear(&sub);
    gguf_file *h = NULL;
    unsigned flags = GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES;
    int rc;
    const char *why = NULL;
    if (old != NULL) {
        rc = gguf__open_header(&h, old, (size_t)j->len, j->size, flags, &sub);
        if (rc == 0 && h->data_offset != j->len)
            rc = GGUF_ECORRUPT;
        if (rc != 0)
            why = "the file's header region is not a header ending at the journal's data offset";
        else if ((rc = gguf__verify_header(h, region, (size_t)n, j->insert_len, true, &sub)) != 0)
            why = "its new region is not a header that keeps every tensor in place";
    } else {
        rc = gguf__open_header(&h, region, (size_t)n, j->size + j->insert_len, flags, &sub);
        if (rc == 0 && h->data_offset != n)
            rc = GGUF_ECORRUPT;
        if (rc != 0)
            why = "its new region is not a header ending where the file's data starts";
    }
    gguf_file_free(h);
    if (rc == GGUF_ENOMEM)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    return why != NULL ? mismatch(err, GGUF_ERROR_NO_OFFSET, why) : 0;
}

/* Judges the file's region x (n bytes, the blocks inserted or none to insert) block by block
 * against y, the region a roll-forward would leave (x with the changed ranges written over
 * it): *all_old tells whether every block is the old one; the blocks that are neither old nor
 * new ("torn": at most ODD_NAMED of their offsets kept, all counted) go to *odd. A block the
 * edit changes no byte of is new only as the old one: old and new are the same bytes there. */
#define ODD_NAMED 4
typedef struct odd_blocks {
    uint64_t at[ODD_NAMED], count;
} odd_blocks;

static void judge_blocks(const gguf__journal *j, const uint8_t *x, const uint8_t *y,
                         bool *all_old, odd_blocks *odd) {
    uint64_t n = j->len + j->insert_len, r = 0;
    *all_old = true;
    for (uint64_t k = 0; k < n_blocks(n); k++) {
        uint64_t p = k * BLOCK, m = n - p < BLOCK ? n - p : BLOCK;
        if (crc(x + p, (size_t)m) == old_block_crc(j, k))
            continue;
        *all_old = false;
        /* the first range that ends after p: the block holds changed bytes when it starts
         * before the block's end */
        while (r < j->n_ranges && gguf__load64(j->ranges + 16 * r, false) +
                                          gguf__load64(j->ranges + 16 * r + 8, false) <= p)
            r++;
        bool changes = r < j->n_ranges && gguf__load64(j->ranges + 16 * r, false) < p + m;
        if (changes && memcmp(x + p, y + p, (size_t)m) == 0)
            continue; /* new */
        if (odd->count < ODD_NAMED)
            odd->at[odd->count] = p;
        odd->count++;
    }
}

/* The refusal when the region a roll-forward would leave is not the new one: a byte the edit
 * never wrote has changed. Names the blocks that are neither old nor new (where such a byte
 * lies, unless it lies outside the ranges of a block the edit finished, which the new region's
 * crc32 alone cannot place). */
static int unproven(gguf_error *err, uint64_t n, const odd_blocks *odd) {
    char why[GGUF_ERROR_MESSAGE_MAX / 2];
    int k = snprintf(why, sizeof why, "the bytes the edit leaves alone are not the ones it was "
                     "made on, which no interrupted write explains");
    for (uint64_t i = 0; i < odd->count && i < ODD_NAMED && k > 0 && (size_t)k < sizeof why;
         i++) {
        uint64_t p = odd->at[i], e = n - p < BLOCK ? n : p + BLOCK;
        k += snprintf(why + k, sizeof why - (size_t)k, "%s%llu..%llu",
                      i == 0 ? (odd->count == 1 ? "; its block at bytes "
                                                : "; its blocks at bytes ")
                             : ", ",
                      (unsigned long long)p, (unsigned long long)e);
    }
    if (odd->count > ODD_NAMED && k > 0 && (size_t)k < sizeof why)
        k += snprintf(why + k, sizeof why - (size_t)k, " and %llu more",
                      (unsigned long long)(odd->count - ODD_NAMED));
    if (odd->count > 0 && k > 0 && (size_t)k < sizeof why)
        snprintf(why + k, sizeof why - (size_t)k, " %s neither the one before the edit nor the "
                 "one after it", odd->count == 1 ? "is" : "are");
    return mismatch(err, odd->count > 0 ? odd->at[0] : GGUF_ERROR_NO_OFFSET, why);
}

int gguf__journal_matches(const gguf__journal *j, int fd, uint8_t **region, gguf_error *err) {
    if (region != NULL)
        *region = NULL;
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
            return mismatch(err, inserted ? j->len + j->insert_len : j->len,
                            "the data after the header is not where its insertion puts it");
    }
    uint64_t n = j->len + j->insert_len, have = inserted || j->insert_len == 0 ? n : j->len;
    uint8_t *x = gguf__malloc((size_t)n), *y = gguf__malloc((size_t)n);
    int rc = 0;
    if (x == NULL || y == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    else if (gguf__io_pread(fd, x, (size_t)have, 0) != 0)
        rc = gguf__fail(err, GGUF_EIO, 0, "reading the header failed: %s",
                        gguf__io_strerror(errno));
    bool all_old = true;
    if (rc == 0 && have < n) {
        /* before the insertion nothing was written yet: the old header, whole */
        if (crc(x, (size_t)have) != j->old_crc)
            rc = mismatch(err, 0, "its header is not the one before the edit, and the blocks "
                                  "the edit inserts are not there yet");
        /* the region as the insertion will leave it */
        uint64_t b = j->insert_at;
        memmove(x + b + j->insert_len, x + b, (size_t)(j->len - b));
        memset(x + b, 0, (size_t)j->insert_len);
    }
    if (rc == 0) {
        memcpy(y, x, (size_t)n);
        const uint8_t *src = j->changed;
        for (uint64_t r = 0; r < j->n_ranges; r++) {
            uint64_t at = gguf__load64(j->ranges + 16 * r, false);
            uint64_t len = gguf__load64(j->ranges + 16 * r + 8, false);
            memcpy(y + at, src, (size_t)len);
            src += len;
        }
    }
    odd_blocks odd = {{0}, 0};
    if (rc == 0 && have == n)
        judge_blocks(j, x, y, &all_old, &odd);
    /* the proof, before anything is written: every byte the edit leaves alone is the new
     * region's, so y, old, new or torn blocks rolled forward, is the new region */
    if (rc == 0 && crc(y, (size_t)n) != j->new_crc)
        rc = unproven(err, n, &odd);
    if (rc == 0 && all_old && j->insert_len > 0) {
        /* the old header: the region without the inserted zero bytes */
        memmove(x + j->insert_at, x + j->insert_at + j->insert_len,
                (size_t)(j->len - j->insert_at));
    }
    if (rc == 0)
        rc = check_headers(j, all_old ? x : NULL, y, err);
    gguf__free(x);
    if (rc == 0 && region != NULL)
        *region = y;
    else
        gguf__free(y);
    return rc;
}

/* Writes the changed ranges of region (ranges sharing a block as one write, so that a kill
 * leaves each block old or new), stopping once at S: 0, or -1 with errno. */
static int write_ranges(const gguf__journal *j, int fd, const uint8_t *region) {
    bool stopped = false;
    uint64_t r = 0;
    while (r < j->n_ranges) {
        uint64_t a = gguf__load64(j->ranges + 16 * r, false);
        uint64_t b = a + gguf__load64(j->ranges + 16 * r + 8, false);
        for (r++; r < j->n_ranges; r++) {
            uint64_t next = gguf__load64(j->ranges + 16 * r, false);
            if (next / BLOCK > (b - 1) / BLOCK)
                break;
            b = next + gguf__load64(j->ranges + 16 * r + 8, false);
        }
        uint64_t s = stopped || j->split <= a || j->split >= b ? a : j->split;
        if (s > a && gguf__io_pwrite(fd, region + a, (size_t)(s - a), a) != 0)
            return -1;
        if (!stopped && j->split < b) {
            /* a torn header on disk: the crash tests kill the editor here on purpose */
            gguf__test_pause("journal-half-written");
            stopped = true;
        }
        if (gguf__io_pwrite(fd, region + s, (size_t)(b - s), s) != 0)
            return -1;
    }
    return 0;
}

int gguf__journal_apply(const gguf__journal *j, int fd, const uint8_t *region, const char *path,
                        bool *touched, gguf_error *err) {
    *touched = false;
    int rc = 0;
    struct stat st;
    if (fstat(fd, &st) != 0)
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
    if (rc == 0 && (write_ranges(j, fd, region) != 0 || gguf__io_fdatasync(fd) != 0))
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "writing the header failed: %s",
                        gguf__io_strerror(errno));
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
