/* The source layer: where a file's bytes come from. A local file (read with pread, mapped for
 * gguf_tensor_data), a memory buffer, a pipe read once (stream.c), an HTTP(S) URL read with
 * range requests (http.c, http_many.c for many at once, http_request.c for the steps of a
 * request both take: the only files that know libcurl); the reader asks a source for byte
 * ranges and never writes through it. Stands on base/. Not installed. */
#ifndef LIBGGUF_SOURCE_H
#define LIBGGUF_SOURCE_H

#include "base/base.h"

typedef struct gguf__source gguf__source;

typedef struct gguf__source_ops {
    /* Reads exactly len bytes at off into buf. Returns 0, or a GGUF_E* code with err filled:
     * GGUF_EIO when the source ended early (a file truncated since it was opened) or failed. */
    int (*read)(gguf__source *s, void *buf, size_t len, uint64_t off, gguf_error *err);
    /* Releases what the source holds (not the struct). */
    void (*close)(gguf__source *s);
    /* Optional: the caller will read [off, off+len) next, in order, in several reads (certain:
     * all of it; else only perhaps), so a source that pays per request may fetch it in one. */
    void (*will_read)(gguf__source *s, uint64_t off, uint64_t len, bool certain);
} gguf__source_ops;

enum gguf__source_kind {
    GGUF__SOURCE_LOCAL = 0,
    GGUF__SOURCE_MEMORY = 1,
    GGUF__SOURCE_STREAM = 2, /* a pipe, read once */
    GGUF__SOURCE_HTTP = 3
};

struct gguf__source {
    const gguf__source_ops *ops;
    char *name;          /* the path (or URL) given, for messages */
    uint64_t size;       /* bytes in the source when opened */
    uint64_t first_read; /* how many bytes the reader asks for first (0: its default) */
    /* a source that pays per byte: how far past the least end of the header (as the parse
     * knows it) the reader may read while it grows its reads; 0: no limit, reads double */
    uint64_t read_ahead;
    /* a pipe that kept only its first bytes: how far the reader's growing reads may go before
     * the header itself asks for more (0: no such limit) */
    uint64_t readable;
    enum gguf__source_kind kind;
    /* a URL: what the server said the file is, for a catalog's cheap re-check ("" if not) */
    char *etag, *last_modified;
    /* every byte in memory that cannot change or vanish (the caller's buffer, a copy), or NULL */
    const uint8_t *mem;
    /* a local file: its descriptor (for copies), its mapping (or NULL), and what it was
     * when opened, so that an edit notices a file changed under it */
    int fd;
    const uint8_t *map;
    uint64_t dev, ino;
    int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
    unsigned owner;      /* uid */
    void *impl;
};

/* Opens a local file read-only. Refuses, without blocking, anything that is not a regular
 * file (a FIFO, a device, a socket, a folder). Maps it unless GGUF_OPEN_NO_MMAP, which reads it
 * into memory instead. */
GGUF_HIDDEN int gguf__source_open_path(gguf__source **out, const char *path, unsigned flags,
                                       gguf_error *err);
/* Wraps bytes in memory (copied when copy is set). name may be NULL. */
GGUF_HIDDEN int gguf__source_open_memory(gguf__source **out, const void *data, size_t size,
                                         bool copy, const char *name, gguf_error *err);
/* Opens an http:// or https:// URL (http.c): one request for its first bytes tells its size.
 * Fails with GGUF_EUNSUPPORTED in a build without libcurl. opt may be NULL. */
GGUF_HIDDEN int gguf__source_open_url(gguf__source **out, const char *url,
                                      const gguf_open_options *opt, gguf_error *err);
/* Many URLs at once (http_many.c), for a catalog of a hub's files: each item goes through what
 * gguf__source_open_url does, then through the ranges its consumer asks for, with at most
 * max_conns transfers at a time over one libcurl multi handle, so that thousands of headers
 * are fetched in parallel without a thread each. */
typedef struct gguf__fetch {
    const char *url;
    /* what the caller knew of the file (NULL or "": nothing): the first request is then
     * conditional, and an answer 304 Not Modified finishes the item at once (unchanged) */
    const char *etag, *last_modified;
} gguf__fetch;
/* The consumer of item i's bytes: the source has [0, have) read and kept; *next is set to the
 * end of the bytes it needs next (0 or <= have: it has enough). Returns 0 or a GGUF_E* code
 * (err filled), which finishes the item with that error. */
typedef int (*gguf__fetch_more_fn)(void *user, size_t i, gguf__source *src, uint64_t have,
                                   uint64_t *next, gguf_error *err);
/* Called once per item, in the order items finish: src (now the callee's) when its bytes are
 * in; src NULL with unchanged set for a 304; src NULL with err (naming the URL) on failure. */
typedef void (*gguf__fetch_done_fn)(void *user, size_t i, gguf__source *src, bool unchanged,
                                    const gguf_error *err);
/* Returns 0 once every item is finished, or an error of the batch itself (libcurl cannot start,
 * out of memory) after which items not yet finished are never reported. Without libcurl every
 * item finishes with GGUF_EUNSUPPORTED. */
GGUF_HIDDEN int gguf__source_fetch_many(const gguf__fetch *items, size_t n,
                                        const gguf_open_options *opt, unsigned max_conns,
                                        gguf__fetch_more_fn more, gguf__fetch_done_fn done,
                                        void *user, gguf_error *err);
/* What a name stands for (name.c). A layer above asks once, where a name enters the library,
 * and passes the kind down with the name, so that no layer looks at the name again. */
enum gguf__name_kind {
    GGUF__NAME_PATH = 0, /* a local file */
    GGUF__NAME_URL = 1   /* gguf__source_is_url */
};
GGUF_HIDDEN enum gguf__name_kind gguf__source_name_kind(const char *name);
/* Opens name as kind says it is: a URL as gguf__source_open_url does, a path as
 * gguf__source_open_path does (with opt->flags). opt may be NULL. The error names name. */
GGUF_HIDDEN int gguf__source_open_as(gguf__source **out, enum gguf__name_kind kind,
                                     const char *name, const gguf_open_options *opt,
                                     gguf_error *err);
/* 1 when name is an http:// or https:// URL, or an hf://ORG/REPO/FILE[@REVISION] name. */
GGUF_HIDDEN bool gguf__source_is_url(const char *name);
/* The URL a remote name is read from (malloc'd): an hf:// name's resolve URL on the Hub
 * ($GGUF_HF_ENDPOINT, default https://huggingface.co, then /ORG/REPO/resolve/REVISION/FILE,
 * REVISION main when not given), any other name as it is. NULL with err filled when an hf://
 * name is malformed or memory ran out. */
GGUF_HIDDEN char *gguf__source_url_of(const char *name, gguf_error *err);
GGUF_HIDDEN bool gguf__source_http_built(void);

/* Opens what fd reads (stream.c): a regular file as gguf__source_open_path would (on a
 * duplicate of fd), anything else read once to its end, keeping its first `keep` bytes (0:
 * all). */
GGUF_HIDDEN int gguf__source_open_fd(gguf__source **out, int fd, const char *name,
                                     unsigned flags, uint64_t keep, gguf_error *err);
/* local.c: a local source over an open descriptor of a regular file (taken over: closed on
 * failure too), named name. */
GGUF_HIDDEN int gguf__source_adopt_fd(gguf__source **out, int fd, const char *name,
                                      unsigned flags, gguf_error *err);

/* Tells the source what the caller reads next (see gguf__source_ops.will_read). */
GGUF_HIDDEN void gguf__source_will_read(gguf__source *s, uint64_t off, uint64_t len,
                                        bool certain);

/* Reads [off, off+len) into buf; fails with GGUF_EIO (naming the source and the range) when
 * the bytes are not all there. */
GGUF_HIDDEN int gguf__source_read(gguf__source *s, void *buf, size_t len, uint64_t off,
                                  gguf_error *err);
GGUF_HIDDEN void gguf__source_free(gguf__source *s);
/* Whether the local file s has an in-place edit under way, by its journal (".NAME.gguf-journal",
 * commit/journal.c) beside it: GGUF__EDIT_NONE without one (and for other sources);
 * GGUF__EDIT_RUNNING when an exclusive flock is held on the file too (editors, commit/, hold
 * one for the whole edit); GGUF__EDIT_INTERRUPTED when nobody holds it (the editor was killed,
 * or the machine stopped). A file only locked (a temporary file being written and read back by
 * its own writer) is NONE. */
enum { GGUF__EDIT_NONE, GGUF__EDIT_RUNNING, GGUF__EDIT_INTERRUPTED };
GGUF_HIDDEN int gguf__source_edit_state(const gguf__source *s);

/* set.c: the shards of a split set read as one source: part k's bytes at the sum of the sizes
 * of the parts before it. The parts are borrowed (their owner frees them after this source);
 * reads that would span two parts fail. */
GGUF_HIDDEN int gguf__source_open_set(gguf__source **out, gguf__source *const *parts, size_t n,
                                      gguf_error *err);
GGUF_HIDDEN bool gguf__source_is_set(const gguf__source *s);
/* Where part k starts in a set (0 for any other source). */
GGUF_HIDDEN uint64_t gguf__source_part_base(const gguf__source *s, size_t k);
/* Part k of a set, s itself for k 0 of any other source, NULL past the last part. */
GGUF_HIDDEN const gguf__source *gguf__source_part(const gguf__source *s, size_t k);
/* The source that holds [off, off+len) of s, and the offset there: a set's part, or s itself.
 * False when the range lies outside s or spans two parts. */
GGUF_HIDDEN bool gguf__source_locate(const gguf__source *s, uint64_t off, uint64_t len,
                                     const gguf__source **leaf, uint64_t *leaf_off);

#endif /* LIBGGUF_SOURCE_H */
