/*
 * libgguf: writing files: serializing, atomic saves, in-place updates, journals.
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_WRITE_H
#define LIBGGUF_GGUF_WRITE_H

#include "gguf_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Writing                                                                                     */

/* How tensor data is placed in the output. */
enum gguf_layout {
    /* Keep the source's: same relative offsets, and the bytes between the tensor infos and the
     * data, between tensors and after the last one copied as they are. */
    GGUF_LAYOUT_KEEP = 0,
    /* ggml's: tensors in tensor-info order, each at the next multiple of the alignment, zero
     * padding between them, nothing after the last one's padding. */
    GGUF_LAYOUT_PACKED = 1
};

/* Fills buf with `len` bytes of tensor i's data, starting at byte `offset` of the tensor, for
 * tensors that were added or retyped. Calls cover whole rows (dims[0] elements): offset and len
 * are multiples of the row size, in calls of about 16 MiB (or one row, if a row is larger).
 * Returns 0, or a negative GGUF_E* code (and fills err). */
typedef int (*gguf_fill_fn)(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                            gguf_error *err);

/* Called from time to time while tensor data is written: bytes of tensor data done so far, and
 * in all. */
typedef void (*gguf_progress_fn)(void *user, uint64_t done, uint64_t total);

/* Options of the writes (see "Options structs" in gguf_base.h). */
typedef struct gguf_write_options {
    size_t size;          /* sizeof as the caller was built: set by the _INIT macro */
    uint32_t version;     /* 0: keep the source's */
    int endian;           /* -1: keep the source's; else a gguf_endian */
    int layout;           /* a gguf_layout; files whose tensors were removed or whose alignment
                             changed are always written packed */
    unsigned threads;     /* threads for byte-order conversion of tensor data; 0 or 1: one */
    gguf_progress_fn progress;
    void *progress_user;
    int verify;           /* gguf_file_save: before the rename, read the output back and check
                             that every tensor has its name, type, size and crc32 (unless the
                             byte order changes); gguf_file_update always checks */
    int no_in_place;      /* gguf_file_update: always rewrite the whole file */
    gguf_fill_fn fill;    /* bytes of added or retyped tensors */
    void *fill_user;
    uint64_t reserve;     /* > 0: keep at least this many bytes of room in the header for later
                             edits (the GGUF_PADDING_KEY), the data placed after it; for
                             gguf_file_update, growing the header by whole filesystem blocks when
                             the room runs out. 0: the file's padding, if any, is kept */
} gguf_write_options;

/* Every field not named is 0 / NULL, so a field added later cannot shift the others. */
#define GGUF_WRITE_OPTIONS_INIT                                                                \
    {.size = sizeof(gguf_write_options), .version = 0, .endian = -1, .layout = GGUF_LAYOUT_KEEP}

/* The key whose value (an array of zero bytes) an editor keeps as room in the header, so that
 * later edits fit in place: gguf_write_options.reserve creates it, gguf_file_update sizes it
 * so that an edited header ends where the data starts (consuming it as the header grows), and
 * grows the header by whole filesystem blocks when it runs out. Readers ignore it (llama.cpp
 * loads such files). */
#define GGUF_PADDING_KEY "libgguf.padding"

/* Serializes f to `path` atomically: into a temporary file in the same directory, fsync'd, then
 * renamed over path (the directory is fsync'd too). With nothing changed and default options,
 * the result is byte-identical to the source: same key order, layout, padding bytes, gaps and
 * trailing bytes. On failure the temporary file is removed and path is left as it was. An
 * existing path is replaced (atomically) when gguf_output_check(path, f) allows it: never one
 * of f's own files (to write an edit back, gguf_file_update), never a special file. */
GGUF_API int gguf_file_save(const gguf_file *f, const char *path, const gguf_write_options *opt,
                            gguf_error *err);

/* ---- outputs ----
 * Every output of the library (gguf_file_save, gguf_split_save, gguf_split_merge_save) and of
 * a caller that writes its own bytes (gguf_output_open) follows one rule: an existing output is
 * replaced atomically (the old bytes stay until the new ones are whole and synced), but an
 * output is never a file being read, and never a special file. */

/* 0 when path may be written as an output of a command reading `input` (may be NULL): a new
 * name, or an existing regular file (symbolic links followed) that is none of input's files,
 * compared by device and inode, so that a link, a hard link or another spelling of an input's
 * path is refused too; input's files are the one it was opened from or every shard of its
 * split set. Fails with GGUF_EINVAL, naming path: a URL; a folder, FIFO, device or socket (an
 * output never blocks on or replaces one); a file of the input. */
GGUF_API int gguf_output_check(const char *path, const gguf_file *input, gguf_error *err);

/* An output a caller writes itself, byte by byte, atomically. */
typedef struct gguf_output gguf_output;
/* Checks path (gguf_output_check against input, may be NULL) and creates a temporary file
 * beside it (".NAME.tmp-XXXXXX", path's mode when it exists). Returns 0 and *out, or a
 * negative GGUF_E* code (nothing created). */
GGUF_API int gguf_output_open(gguf_output **out, const char *path, const gguf_file *input,
                              gguf_error *err);
/* The temporary file's descriptor, open for writing: write the output's bytes to it. Valid
 * until gguf_output_commit or gguf_output_abort. */
GGUF_API int gguf_output_fd(const gguf_output *o);
/* fsyncs the temporary file, renames it over path and fsyncs the folder. On failure
 * (GGUF_EIO, naming path) the temporary file is removed and path is as it was. Frees o either
 * way. */
GGUF_API int gguf_output_commit(gguf_output *o, gguf_error *err);
/* Removes the temporary file and frees o (NULL-safe): path is as it was. */
GGUF_API void gguf_output_abort(gguf_output *o);

/* ---- interrupts ----
 * Every write of the library goes through temporary files beside its target, which the
 * library lists while they live. A program that ends on a signal calls gguf_interrupt_cleanup
 * on its way out, so that nothing is left behind and every target holds its old bytes (or its
 * new bytes, when the rename came first). It is not async-signal-safe: call it from a thread
 * that waits for the signals (sigwait) while every other thread blocks them, the way POSIX
 * recommends for threaded programs:
 *
 *     sigset_t set;  sigemptyset(&set);  sigaddset(&set, SIGINT);  (SIGTERM, SIGHUP ...)
 *     pthread_sigmask(SIG_BLOCK, &set, NULL);          before any other thread starts
 *     ... in a thread of its own:
 *     int sig;  sigwait(&set, &sig);
 *     gguf_interrupt_cleanup();
 *     signal(sig, SIG_DFL);  pthread_sigmask(SIG_UNBLOCK, <sig>, NULL);  raise(sig);
 *
 * (gguf-edit does this: tools/cli_signals.c, cli_signals_start.) */

/* Waits until no in-place edit is between its journal and the journal's removal (an edit that
 * began finishes: the file is whole, with no journal pending), then removes every temporary
 * file the library has open. From then on this process's writes never rename, begin an
 * in-place edit or return from one: the threads that get there wait for the end of the
 * process, so call it only on the way out. Returns how many files it removed. */
GGUF_API int gguf_interrupt_cleanup(void);

/* What gguf_file_update did. */
typedef struct gguf_update_result {
    int in_place;           /* 1: only the header was rewritten (through a journal) */
    uint64_t inserted;      /* bytes inserted in place before the data (a growing header, on a
                               filesystem that can insert blocks), else 0 */
    uint64_t cloned;        /* a rewrite: bytes the new file shares with the old one (cloned by
                               the filesystem, not copied: btrfs, XFS), else 0 */
    size_t tensors_checked; /* tensors proven to keep their bytes before anything was replaced */
    unsigned hard_links;    /* links to the file; after a rewrite, the others keep the old file */
    int outgrew;            /* 1: the edited header no longer fit before the data (blocks were
                               inserted, or the file rewritten for it); 0 when a rewrite had
                               other reasons (tensors removed or moved, no tensors, -o, ...) */
} gguf_update_result;

/* Writes an edited f back over `path`, the file it was opened from (a symbolic link is followed
 * and kept). When the new header rounds up to the same data offset, only the header region is
 * rewritten, crash-safely through a journal file beside it; otherwise the file is rewritten to a
 * temporary file and renamed over it, tensor bytes copied through a buffer (or cloned where the
 * filesystem can). Before anything is replaced, every tensor is checked: in place, that the new
 * header, parsed on its own, points every tensor at its unchanged bytes; rewritten, that the
 * header read back from the disk is the one written, that each tensor was copied from its own
 * bytes with the same checksum as read and as written, and that a sample of the copy read back
 * from the disk (all of it up to 64 MiB) equals the source; bytes not copied (converted,
 * filled) by their crc32s. The file must still be the one that was read (device, inode, size,
 * mtime, ctime), checked when the update starts and again just before the rename or the
 * in-place write, so a concurrent write by another process is never silently lost. Refuses
 * (GGUF_EIO, nothing changed) a read-only file, a file another gguf_file_update holds, a file
 * changed since it was opened, and a file with a pending journal (see gguf_file_recover). */
GGUF_API int gguf_file_update(const gguf_file *f, const char *path, const gguf_write_options *opt,
                              gguf_update_result *res, gguf_error *err);

/* An in-place edit writes a journal beside the file first (".NAME.gguf-journal": the bytes of
 * the header that change, the crc32s of the header before and after, and the file's device,
 * inode and size), so that a crash leaves the old file or the journal to finish it. Reading never applies or removes a journal: opening a file
 * is a pure function of its bytes. An editor finishes it with gguf_file_recover; a reader may
 * ask gguf_file_journal whether one is pending, to tell its user. */
enum gguf_journal_state {
    GGUF_JOURNAL_NONE = 0,    /* no journal beside the file */
    GGUF_JOURNAL_PENDING = 1, /* a valid journal: an interrupted edit that recover will finish */
    GGUF_JOURNAL_REFUSED = 2  /* a journal recover will refuse (and leave in place): why says why */
};

/* Tells whether a journal lies beside path, and whether gguf_file_recover would apply it, by
 * reading only. Returns 0 and sets *state (and, for GGUF_JOURNAL_REFUSED, fills why with the
 * reason), or GGUF_EINVAL/GGUF_ENOMEM. */
GGUF_API int gguf_file_journal(int *state, const char *path, gguf_error *why);

/* Finishes an interrupted in-place edit of path (a symbolic link is followed): under the edit
 * lock, the journal is applied when it belongs to this file (device, inode and size match, and
 * the header's bytes that the edit does not write are the ones it was made on, whatever a torn
 * write left in the bytes it writes: those are overwritten, so the file becomes exactly the
 * new one), the header after the edit keeps every tensor in place, and the journal is a
 * regular file, not a link, owned by the file's owner; then it is removed. Nothing is written
 * before all of this is proven. *recovered is 1 when an edit was
 * finished, 0 when there was no journal. Any other journal is refused (GGUF_ECORRUPT, naming
 * the reason) and left in place, as is the file. Temporary files that killed edits left beside
 * path (named as ours, of path's owner, their writer gone) are removed, journal or not. gguf_file_update refuses to start while a
 * journal is pending, so an editor calls this before opening the file it edits. */
GGUF_API int gguf_file_recover(const char *path, int *recovered, gguf_error *err);

/* Serializes f into a new buffer (*out, *size), which the caller releases with free(). */
GGUF_API int gguf_file_write_memory(void **out, size_t *size, const gguf_file *f,
                                    const gguf_write_options *opt, gguf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_WRITE_H */
