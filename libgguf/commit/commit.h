/* The commit layer: putting bytes in place of a file without ever losing it. Atomic saves
 * through temporary files, the proofs that run before anything is replaced, the journal of
 * in-place header edits and its recovery, the editor's lock. Stands on write/. Not installed. */
#ifndef LIBGGUF_COMMIT_H
#define LIBGGUF_COMMIT_H

#include "write/write.h"

#include <sys/stat.h>

/* ---- what a file was when it was read (identity.c) ---- */

typedef struct gguf__identity {
    bool set;
    uint64_t dev, ino, size;
    int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
} gguf__identity;

/* The identity of the local file f was read from (id->set false for other sources). */
GGUF_HIDDEN void gguf__identity_of_file(gguf__identity *id, const gguf_file *f);
GGUF_HIDDEN void gguf__identity_of_stat(gguf__identity *id, const struct stat *st);
/* Fails (GGUF_EIO, naming path and what changed) unless path is still the file id describes:
 * same device, inode, size, mtime and ctime. Another process's write, append or truncation, or
 * a replaced file, changes one of them. */
GGUF_HIDDEN int gguf__identity_check(const char *path, const gguf__identity *id,
                                     gguf_error *err);

/* ---- temporary files beside a target (temp.c) ---- */

/* Creates ".NAME" tag "-XXXXXX" beside target (tag: ".tmp" for files, ".gguf-journal.tmp" for
 * journals), with target's mode and, where allowed, owner; the returned descriptor holds an
 * exclusive flock for the file's life, which is how sweeps tell a live temporary file from one
 * whose writer died. Returns the descriptor and sets *path_out, or a negative GGUF_E* code. */
GGUF_HIDDEN int gguf__temp_create(char **path_out, const char *target, const char *tag,
                                  gguf_error *err);
/* Removes temporary files beside target whose writer is gone (their flock can be taken):
 * regular files named as ours, of target's owner; never a link. */
GGUF_HIDDEN void gguf__temp_sweep(const char *target);
/* Renames the temporary file tmp (from gguf__temp_create) to target and takes it off the list
 * gguf_interrupt_cleanup removes; after a cleanup it waits for the end of the process instead.
 * Returns gguf__io_rename's result (errno set on failure; tmp then stays listed). */
GGUF_HIDDEN int gguf__temp_rename(const char *tmp, const char *target);
/* Removes the temporary file tmp and takes it off the list. */
GGUF_HIDDEN void gguf__temp_discard(const char *tmp);
/* Lists (or takes off the list) a file another library makes beside a temporary file (SQLite's
 * "-wal" of a catalog being written), so that gguf_interrupt_cleanup removes it too; path is
 * borrowed until taken off. gguf__temp_track fails (-1) when the list is full. */
GGUF_HIDDEN int gguf__temp_track(const char *path);
GGUF_HIDDEN void gguf__temp_untrack(const char *path);
/* An in-place window (a journal written, the file rewritten in place, the journal removed):
 * gguf_interrupt_cleanup waits until it is released, and once a cleanup waits, no window
 * opens and the released one does not return (the caller waits for the end of the process,
 * which ends by the signal, not by an ordinary exit). Windows nest within a thread. */
GGUF_HIDDEN void gguf__interrupt_hold(void);
GGUF_HIDDEN void gguf__interrupt_release(void);

/* ---- proofs before replacing (proof.c) ---- */

/* out (the output read back) holds src's tensors with the same names, types and sizes, and
 * (with check_bytes) the same crc32s, the two files' computed side by side. */
GGUF_HIDDEN int gguf__verify_output(const gguf_file *src, const gguf_file *out, bool check_bytes,
                                    gguf_error *err);
/* A header region to be written in place over src's (after `shift` bytes were inserted at the
 * data, 0 for none), parsed on its own, puts every tensor at the same bytes (shifted) with the
 * same name, type and size, and ends where src's data then starts. With may_add, it may list
 * more tensors after src's (a merge appending a shard's tensors: split/merge_delete.c; the parse
 * checks that their bytes lie inside the file). */
GGUF_HIDDEN int gguf__verify_header(const gguf_file *src, const uint8_t *region, size_t len,
                                    uint64_t shift, bool may_add, gguf_error *err);

/* ---- saving (save.c) ---- */

/* gguf_file_save, with the padding key as `padding` says (GGUF__PAD_KEEP: as stored or as
 * opt->reserve asks). With expect (not NULL), path may be a file f reads (an edit writing
 * back over its file), and when expect->set the target's identity is checked just before the
 * rename. *cloned (may be NULL) gets the bytes the kernel
 * cloned instead of copying. */
GGUF_HIDDEN int gguf__save(const gguf_file *f, const char *path, const gguf_write_options *opt,
                           int64_t padding, const gguf__identity *expect, uint64_t *cloned,
                           gguf_error *err);

/* ---- the journal of in-place edits (journal.c) ---- */

/* A journal (its bytes and what they mean: journal.c): the file it belongs to, the identity of
 * the header region before the edit, and the bytes the edit changes in the region after it. */
typedef struct gguf__journal {
    uint64_t dev, ino, size; /* the file's identity and size before the edit */
    uint64_t len;            /* bytes of the old region: the file's data offset */
    uint64_t insert_at;      /* blocks inserted at insert_at (insert_len 0: none) */
    uint64_t insert_len;     /* the new region is len + insert_len bytes */
    uint32_t moved_crc;      /* crc32 of the data an insertion moves (gguf__journal_measure) */
    uint32_t old_crc;        /* crc32 of the old region */
    uint32_t new_crc;        /* crc32 of the new region */
    uint64_t split;          /* where the in-place write stops between its two halves */
    uint32_t split_crc;      /* crc32 of the block holding `split`, as that stop leaves it */
    uint64_t n_ranges;       /* the changed ranges of the new region */
    uint64_t range_bytes;    /* their total length */
    const uint8_t *block_crcs; /* crc32 of each 4 KiB block of the old region */
    const uint8_t *ranges;     /* n_ranges (offset, length) pairs, ascending */
    const uint8_t *changed;    /* the ranges' bytes, one after the other */
    uint8_t *bytes;          /* the journal's bytes (owned) */
    size_t n_bytes;
} gguf__journal;

/* ".NAME.gguf-journal" beside path. */
GGUF_HIDDEN char *gguf__journal_path(const char *path);
/* With blocks to insert: records in j the crc32 of the data bytes they will move (fd: the
 * file, open for reading), the proof recovery asks for that the insertion happened. */
GGUF_HIDDEN int gguf__journal_measure(gguf__journal *j, int fd, gguf_error *err);
/* Makes the journal's bytes from j's head fields (dev to moved_crc), the old region (len
 * bytes: the header as the editor read it) and the new one (len + insert_len bytes). */
GGUF_HIDDEN int gguf__journal_build(gguf__journal *j, const uint8_t *old_region,
                                    const uint8_t *new_region, gguf_error *err);
/* Writes journal j (built) for the file at path: to a temporary file, fsync'd, renamed into
 * place, folder fsync'd, so that a journal under its name is always whole. */
GGUF_HIDDEN int gguf__journal_create(const char *path, const gguf__journal *j, gguf_error *err);
/* Loads and checks the journal beside path against the file st describes. Returns 0 (valid),
 * GGUF_ENOTFOUND (none), or GGUF_ECORRUPT/GGUF_EIO with the reason it must not be applied. */
GGUF_HIDDEN int gguf__journal_load(gguf__journal *j, const char *path, const struct stat *st,
                                   gguf_error *err);
/* Reads the file's header region (fd, open for reading) and checks that the file is in a state
 * the journal describes: not yet written, written, or stopped part way, block by block; and
 * that the new region is a header that keeps every tensor in place. With region (not NULL), the
 * new region the file is to hold, as built from its bytes and the journal's, in *region
 * (gguf__malloc'd, len + insert_len bytes). */
GGUF_HIDDEN int gguf__journal_matches(const gguf__journal *j, int fd, uint8_t **region,
                                      gguf_error *err);
/* Inserts the blocks (when j has them and the file lacks them), writes the journal's changed
 * ranges of region (the whole new region, len + insert_len bytes) over the file fd (open for
 * writing) and fsyncs it. Nothing is read: the caller knows the file is in the journal's state
 * (gguf__journal_matches, or its own parse under the edit lock and the identity check).
 * *touched tells whether the file changed: after a failure with *touched set, the journal must
 * stay to finish the edit. */
GGUF_HIDDEN int gguf__journal_apply(const gguf__journal *j, int fd, const uint8_t *region,
                                    const char *path, bool *touched, gguf_error *err);
/* Removes the journal at jpath (gguf__journal_path) and fsyncs the folder, without
 * allocating. */
GGUF_HIDDEN int gguf__journal_remove(const char *jpath, gguf_error *err);
GGUF_HIDDEN void gguf__journal_free(gguf__journal *j);

/* ---- recovery (recover.c) ---- */

/* With the edit lock on the file real (fd open for writing, st its stat): applies a valid
 * journal (then removes it), refuses an invalid one, does nothing without one. */
GGUF_HIDDEN int gguf__recover_locked(const char *real, int fd, const struct stat *st,
                                     int *recovered, gguf_error *err);

#endif /* LIBGGUF_COMMIT_H */
