/* The format layer: GGUF's types, values, the parsed file, parsing, tensor infos, lint. Stands
 * on source/ and base/. Not installed. */
#ifndef LIBGGUF_FORMAT_H
#define LIBGGUF_FORMAT_H

#include "source/source.h"

/* Maximum nesting of arrays inside arrays. ggml allows none, the spec any; this bounds the
 * recursion of every walker. */
#define GGUF__MAX_DEPTH 64

/* ---- the parsed file ---- */

typedef struct gguf__kv {
    const char *key;
    uint64_t key_len;
    gguf_value value;
    uint64_t src_offset; /* where the entry starts in the source, or GGUF_ERROR_NO_OFFSET */
    bool key_owned;
} gguf__kv;

typedef struct gguf__tensor {
    const char *name;
    uint64_t name_len;
    uint32_t n_dims;
    uint32_t type;
    uint64_t dims[GGUF_MAX_DIMS];
    uint64_t offset;      /* relative to the data offset */
    uint64_t nbytes;      /* UINT64_MAX: unknown type */
    uint64_t src_offset;  /* absolute offset of the bytes in the source, or GGUF__NO_SOURCE for
                             a tensor added or retyped by an edit (its bytes come from the
                             write's fill callback) */
    uint64_t info_offset; /* where the tensor info starts in the source (its shard's file) */
    uint32_t shard;       /* the shard of a split set that holds it (0 for a single file) */
    bool name_owned;
} gguf__tensor;

#define GGUF__NO_SOURCE UINT64_MAX

struct gguf_file {
    /* where the bytes come from: NULL for a file built in memory or a header region parsed on
     * its own (a proof before a write) */
    gguf__source *src;
    bool src_borrowed;      /* a view's: the source belongs to the file it views */
    uint64_t size;          /* the source's size (the whole file's, when only a header is held) */
    /* the header bytes the parse points into: the first head_len bytes of the source */
    const uint8_t *head;
    uint64_t head_len;
    uint8_t *head_owned;    /* head, when it is a copy this file owns */

    uint32_t version;
    bool big;
    uint32_t alignment;
    uint64_t header_end;  /* end of the tensor infos in the source */
    uint64_t data_offset; /* start of tensor data in the source */

    gguf__kv *kv;
    size_t n_kv;
    size_t cap_kv;
    gguf__tensor *tensors;
    size_t n_tensors;
    size_t cap_tensors;
    /* names -> index, for lookups in constant time; empty sets (slots NULL) mean "scan" */
    gguf__hashset kv_index;
    gguf__hashset tensor_index;
    unsigned flags;
    bool must_pack; /* an edit moved tensor data (removal, realignment): write packed */
    bool partial;   /* GGUF_OPEN_PARTIAL, and tensor data runs past the end of the source */
    uint64_t head_need; /* set by a parse that ran out of header bytes: how many it needs */
    /* and where the header ends at least, from what the parse read (>= head_need): a reader
     * can fetch up to there without ever reading tensor data */
    uint64_t head_floor;
    /* and where it ends if a vocabulary cut off by the held bytes goes on as it began (0: no
     * such guess): how far the reader's next read goes */
    uint64_t head_guess;
    /* during the steps of one open (gguf__open_step; walking set while it parses): the large
     * arrays a parse that ran out of header bytes walked whole, as pairs (where the value
     * begins, where it ends), so that the next parse, of the same bytes and more, jumps over
     * them instead of walking a vocabulary again at every step */
    bool walking;
    size_t n_walked;
    uint64_t walked[2 * 8];
    /* a split set opened as one model (shards.c): each shard parsed as a file of its own (the
     * view borrows the metadata of shards[0], and src reads all of them as one), and the files
     * beside them named like shards of the set that do not belong to it (for lint) */
    gguf_file **shards;
    size_t n_shards;        /* 0 for a single file */
    char **strays;
    size_t n_strays;
};

/* file.c: parses a header region on its own: the first len bytes of a file of file_size bytes
 * (tensor bounds are checked against file_size). region must outlive *out. */
GGUF_HIDDEN int gguf__open_header(gguf_file **out, const uint8_t *region, size_t len,
                                  uint64_t file_size, unsigned flags, gguf_error *err);
/* file.c: one step of reading a header from f->src in growing pieces (f->size set, f->head_len
 * bytes held): holds `want` bytes and parses; 0 parsed, 1 with *next the bytes to hold next,
 * or an error. gguf__file_new makes an empty gguf_file with flags. */
GGUF_HIDDEN int gguf__open_step(gguf_file *f, uint64_t want, uint64_t *next, gguf_error *err);
GGUF_HIDDEN gguf_file *gguf__file_new(unsigned flags);
/* What a server said of a file: its size, ETag and Last-Modified (NULL: none). */
typedef struct gguf__fetch_said {
    uint64_t size;
    const char *etag, *last_modified;
} gguf__fetch_said;
/* many.c: opens many URLs at once (gguf__source_fetch_many), each parsed as its bytes arrive:
 * done gets each file (the callee's) or NULL with unchanged (a 304 for an item's validators)
 * or err; said (NULL when nothing was said) is what the server said of the file, also when
 * the reader refused it, so that a caller can ask again conditionally. Every item is a URL
 * (gguf__source_name_kind): a caller with local paths among its names opens those itself. */
typedef void (*gguf__open_many_fn)(void *user, size_t i, gguf_file *f, bool unchanged,
                                   const gguf_error *err, const gguf__fetch_said *said);
GGUF_HIDDEN int gguf__open_many(const gguf__fetch *items, size_t n, const gguf_open_options *opt,
                                unsigned max_parallel, gguf__open_many_fn done, void *user,
                                gguf_error *err);
/* file.c: parses the file a source holds; takes the source (freed on failure too). */
GGUF_HIDDEN int gguf__open_source(gguf_file **out, gguf__source *src, unsigned flags,
                                  gguf_error *err);
/* open.c: gguf_file_open_ex of a name whose kind the caller knows (it asked where the name
 * entered): the name is not looked at again. */
GGUF_HIDDEN int gguf__file_open_as(gguf_file **out, enum gguf__name_kind kind, const char *name,
                                   const gguf_open_options *opt, gguf_error *err);
/* shards.c: the model f (opened without GGUF_OPEN_SPLIT_SET from path, a name of that kind;
 * taken: freed on failure too) as gguf_file_open with GGUF_OPEN_SPLIT_SET gives it: f itself
 * when its split keys say it is a file of its own, else the view of the set it is a shard of,
 * its sibling shards opened with opt as names of the same kind. */
GGUF_HIDDEN int gguf__split_open(gguf_file **out, gguf_file *f, enum gguf__name_kind kind,
                                 const char *path, const gguf_open_options *opt,
                                 gguf_error *err);
/* shards.c: the view of a split set from its shards opened one by one (each without
 * GGUF_OPEN_SPLIT_SET): files[k] is shard k, NULL when it is missing, paths[k] its path or URL.
 * The checks and errors of gguf_file_open with GGUF_OPEN_SPLIT_SET (the missing shards named
 * in one error, then split.no, split.count and split.tensors.count, tensors in two shards),
 * with err->path naming the shard at fault; no strays are looked for. On success the view owns
 * the files (files[k] set to NULL); on failure they stay the caller's. */
GGUF_HIDDEN int gguf__split_assemble(gguf_file **out, gguf_file **files, char *const *paths,
                                     uint32_t count, unsigned flags, gguf_error *err);
/* kv_get.c: the value of key as an integer of at least min (any integer type, not BOOL).
 * Returns 0, 1 when f has no such key (out untouched), GGUF_ETYPE when its value is not an
 * integer, GGUF_ECORRUPT when it is below min or above INT64_MAX (the error names the key,
 * at its offset). */
GGUF_HIDDEN int gguf__kv_int(int64_t *out, const gguf_file *f, const char *key, int64_t min,
                             gguf_error *err);
/* shards.c: the split keys of a file: split.no, split.count, split.tensors.count (each -1
 * when absent). Fails with GGUF_ETYPE when one is not an integer. */
GGUF_HIDDEN int gguf__split_keys(const gguf_file *f, int64_t *no, int64_t *count,
                                 int64_t *tensors, gguf_error *err);
/* view.c: a file reading f's source (borrowed: f must outlive it): f's format, a copy of f's
 * key list when with_kv (else no keys, and alignment 32), tensors first..first+n-1 of f. It is
 * written packed; its keys and tensors can be edited without touching f. */
GGUF_HIDDEN int gguf__file_view(gguf_file **out, const gguf_file *f, size_t first, size_t n,
                                bool with_kv, gguf_error *err);
/* tensor.c: each tensor's n_dims as ggml writes it: trailing dims of 1 dropped (at least 1). */
GGUF_HIDDEN void gguf__tensor_ggml_dims(gguf_file *f);
/* The name of f's source for messages ("memory" for files built in memory). */
GGUF_HIDDEN const char *gguf__file_name(const gguf_file *f);
/* index.c: the keys of the name indexes (gguf__hashset_key_fn over a gguf_file). */
GGUF_HIDDEN const void *gguf__kv_key(const void *file, size_t i, size_t *n);
GGUF_HIDDEN const void *gguf__tensor_name(const void *file, size_t i, size_t *n);
/* index.c: rebuilds the name indexes after an edit changed the key or tensor list (on failure
 * the index is dropped and lookups scan). */
GGUF_HIDDEN void gguf__index_kv(gguf_file *f);
GGUF_HIDDEN void gguf__index_tensors(gguf_file *f);
/* Adds entry i (just appended) to its index. */
GGUF_HIDDEN void gguf__index_add_kv(gguf_file *f, size_t i);
GGUF_HIDDEN void gguf__index_add_tensor(gguf_file *f, size_t i);
/* Reads tensor bytes [off, off+len) of the source (absolute offsets). */
GGUF_HIDDEN int gguf__file_read(const gguf_file *f, void *buf, size_t len, uint64_t off,
                                gguf_error *err);
/* parse.c: parses f->head (head_len bytes of a file of f->size bytes) into the header fields,
 * kv and tensors of f. When the header runs past head_len but not past size, fails with
 * f->head_need set to the bytes it needs. */
GGUF_HIDDEN int gguf__parse(gguf_file *f, gguf_error *err);
/* tensor.c: *n = the product of t's dimensions; false (and *n untouched) when it overflows
 * 64 bits, which a parsed or built file never has but a hand-made gguf_tensor_info may. */
GGUF_HIDDEN bool gguf__tensor_elements(const gguf_tensor_info *t, uint64_t *n);
/* tensor.c: 0 when every tensor's bytes are in the source; GGUF_ETRUNC naming the first tensor
 * cut short when f was opened with GGUF_OPEN_PARTIAL from a file cut inside its data (what
 * writes and updates check before they start). */
GGUF_HIDDEN int gguf__file_complete(const gguf_file *f, gguf_error *err);
/* tensor.c: 0 when tensor i's bytes [offset, offset+len) are in the source; GGUF_ETRUNC when
 * they lie past the end of a partial file. */
GGUF_HIDDEN int gguf__tensor_present(const gguf_file *f, size_t i, uint64_t offset, uint64_t len,
                                     gguf_error *err);
/* Releases what parse and edits allocated inside f (not the source). */
GGUF_HIDDEN void gguf__file_clear(gguf_file *f);

/* value.c: walks one encoded value of `type` at the cursor, checking it and its nested values
 * (depth counts array levels). On success the cursor is past the value. `path` names the
 * value for messages. */
typedef struct gguf__path {
    const struct gguf__path *parent;
    const char *key; /* set on the root only */
    size_t key_len;
    uint64_t index;  /* element index below the parent */
} gguf__path;
GGUF_HIDDEN int gguf__value_skip(gguf__cursor *c, uint32_t type, int depth, const gguf__path *path,
                                 gguf_error *err);
/* Formats a path as key[i][j] into buf. */
GGUF_HIDDEN const char *gguf__path_format(char *buf, size_t bufsize, const gguf__path *path);

/* byteswap.c: converts whole blocks of a tensor type between byte orders, in place (nbytes a
 * multiple of the block size). Returns 0, or GGUF_EUNSUPPORTED for a type without a recipe. */
GGUF_HIDDEN int gguf__byteswap_blocks(uint32_t dtype, void *buf, size_t nbytes);

/* lint.c: gguf_file_lint, telling for each finding whether ggml's reader refuses the file for
 * it (refused 1) or only the spec is broken (0). Returns the number of findings. */
typedef void (*gguf__lint_fn)(void *user, int refused, const char *message, uint64_t offset);
GGUF_HIDDEN int gguf__lint(const gguf_file *f, gguf__lint_fn report, void *user, gguf_error *err);

/* crc.c: crc32 (zlib) of source bytes [start, start+len). */
GGUF_HIDDEN int gguf__crc_range(uint32_t *crc, const gguf_file *f, uint64_t start, uint64_t len,
                                gguf_error *err);

/* json.c: appends v as JSON; with limit non-zero, stops adding array elements once the buffer
 * holds more than limit bytes (the result is then cut, not valid JSON: the caller checks). */
GGUF_HIDDEN void gguf__value_json(gguf__buf *b, const gguf_value *v, size_t limit);

/* ---- encoding numbers and values in a file's byte order (encode.c) ---- */

typedef struct gguf__sink {
    gguf__buf b;
    bool big;  /* numbers big-endian */
    bool wide; /* lengths and counts u64 (v2+), else u32 (v1) */
} gguf__sink;

GGUF_HIDDEN void gguf__sink_u32(gguf__sink *s, uint32_t v);
GGUF_HIDDEN void gguf__sink_u64(gguf__sink *s, uint64_t v);
GGUF_HIDDEN void gguf__sink_len(gguf__sink *s, uint64_t v);
/* Appends a scalar of value type `type` given in host byte order (any alignment). */
GGUF_HIDDEN void gguf__sink_scalar(gguf__sink *s, uint32_t type, const void *host);

/* Writes an encoded value, transcoding it from its own encoding to the sink's. */
GGUF_HIDDEN void gguf__value_emit(gguf__sink *s, const gguf_value *v);

#endif /* LIBGGUF_FORMAT_H */
