/*
 * libgguf: reading files (local, remote, split sets): types, metadata, tensors, edits.
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_FORMAT_H
#define LIBGGUF_GGUF_FORMAT_H

#include "gguf_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Metadata value types (the spec's ids)                                                       */

enum gguf_vtype {
    GGUF_VTYPE_U8 = 0,
    GGUF_VTYPE_I8 = 1,
    GGUF_VTYPE_U16 = 2,
    GGUF_VTYPE_I16 = 3,
    GGUF_VTYPE_U32 = 4,
    GGUF_VTYPE_I32 = 5,
    GGUF_VTYPE_F32 = 6,
    GGUF_VTYPE_BOOL = 7,
    GGUF_VTYPE_STRING = 8,
    GGUF_VTYPE_ARRAY = 9,
    GGUF_VTYPE_U64 = 10,
    GGUF_VTYPE_I64 = 11,
    GGUF_VTYPE_F64 = 12,
    GGUF_VTYPE_COUNT = 13
};

/* The spec's name of a value type ("UINT32", "STRING", ...), or NULL for an unknown id. */
GGUF_API const char *gguf_vtype_name(uint32_t vtype);
/* Parses a type name: the spec's ("UINT32") or the short one ("u32", "str", "bool", "f32").
 * Returns the id, or -1. */
GGUF_API int gguf_vtype_parse(const char *name);
/* Size in bytes of a scalar of this type in a file, or 0 for STRING, ARRAY and unknown ids. */
GGUF_API size_t gguf_vtype_size(uint32_t vtype);

/* ------------------------------------------------------------------------------------------ */
/* Tensor data types (ggml's ids)                                                              */

enum gguf_dtype {
    GGUF_DTYPE_F32 = 0,
    GGUF_DTYPE_F16 = 1,
    GGUF_DTYPE_Q4_0 = 2,
    GGUF_DTYPE_Q4_1 = 3,
    /* 4 (Q4_2) and 5 (Q4_3) were removed from ggml */
    GGUF_DTYPE_Q5_0 = 6,
    GGUF_DTYPE_Q5_1 = 7,
    GGUF_DTYPE_Q8_0 = 8,
    GGUF_DTYPE_Q8_1 = 9,
    GGUF_DTYPE_Q2_K = 10,
    GGUF_DTYPE_Q3_K = 11,
    GGUF_DTYPE_Q4_K = 12,
    GGUF_DTYPE_Q5_K = 13,
    GGUF_DTYPE_Q6_K = 14,
    GGUF_DTYPE_Q8_K = 15,
    GGUF_DTYPE_IQ2_XXS = 16,
    GGUF_DTYPE_IQ2_XS = 17,
    GGUF_DTYPE_IQ3_XXS = 18,
    GGUF_DTYPE_IQ1_S = 19,
    GGUF_DTYPE_IQ4_NL = 20,
    GGUF_DTYPE_IQ3_S = 21,
    GGUF_DTYPE_IQ2_S = 22,
    GGUF_DTYPE_IQ4_XS = 23,
    GGUF_DTYPE_I8 = 24,
    GGUF_DTYPE_I16 = 25,
    GGUF_DTYPE_I32 = 26,
    GGUF_DTYPE_I64 = 27,
    GGUF_DTYPE_F64 = 28,
    GGUF_DTYPE_IQ1_M = 29,
    GGUF_DTYPE_BF16 = 30,
    /* 31-33 (Q4_0_4_4, Q4_0_4_8, Q4_0_8_8) were removed from files */
    GGUF_DTYPE_TQ1_0 = 34,
    GGUF_DTYPE_TQ2_0 = 35,
    /* 36-38 (IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8) were removed from files */
    GGUF_DTYPE_MXFP4 = 39,
    GGUF_DTYPE_NVFP4 = 40,
    GGUF_DTYPE_Q1_0 = 41,
    GGUF_DTYPE_Q2_0 = 42,
    GGUF_DTYPE_COUNT = 43
};

/* ggml's upper-case name of a tensor type ("Q4_K", "BF16"), or NULL for an id this library
 * does not know (removed ids included). */
GGUF_API const char *gguf_dtype_name(uint32_t dtype);
/* 1 for an id ggml removed from files (4-5, 31-33, 36-38: readers must refuse them), else 0. */
GGUF_API int gguf_dtype_removed(uint32_t dtype);
/* Parses a tensor type name, in any case ("q4_k", "Q4_K"). Returns the id, or -1. */
GGUF_API int gguf_dtype_parse(const char *name);
/* Elements per block (1 for plain types), or 0 for an unknown id. */
GGUF_API uint32_t gguf_dtype_block_elems(uint32_t dtype);
/* Bytes per block, or 0 for an unknown id. */
GGUF_API uint32_t gguf_dtype_block_bytes(uint32_t dtype);
/* Bytes of a tensor of this type and shape (rows of dims[0] elements packed in blocks) into
 * *nbytes. Fails with GGUF_EUNSUPPORTED for an unknown type, GGUF_ECORRUPT when dims[0] is not
 * a multiple of the block size and GGUF_ELIMIT on overflow. */
GGUF_API int gguf_dtype_nbytes(uint64_t *nbytes, uint32_t dtype, const uint64_t *dims,
                               uint32_t n_dims, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Opening and freeing                                                                         */

typedef struct gguf_file gguf_file;

enum gguf_endian { GGUF_ENDIAN_LITTLE = 0, GGUF_ENDIAN_BIG = 1 };

/* Flags for gguf_file_open and gguf_file_open_memory. */
enum gguf_open_flags {
    GGUF_OPEN_DEFAULT = 0,
    /* Accept duplicate keys and duplicate tensor names, so that an edit can repair them. */
    GGUF_OPEN_LENIENT = 1 << 0,
    /* Read the file as little-endian or as big-endian instead of detecting the byte order. */
    GGUF_OPEN_FORCE_LITTLE = 1 << 1,
    GGUF_OPEN_FORCE_BIG = 1 << 2,
    /* Read the whole file into memory instead of mapping it. */
    GGUF_OPEN_NO_MMAP = 1 << 3,
    /* Accept tensor type ids this library does not know; their size is then unknown, their
     * bytes are only checked to start inside the file, and they pass through writes untouched. */
    GGUF_OPEN_UNKNOWN_TYPES = 1 << 4,
    /* When the file is a shard of a split set (split.count > 1; see "Split sets"), open the
     * whole set as one model. Without it, a shard opens as the one file it is. */
    GGUF_OPEN_SPLIT_SET = 1 << 5,
    /* Accept a file cut short inside its tensor data (a truncated download): the header is read
     * as usual; tensors whose bytes run past the end are kept, marked by
     * gguf_tensor_bytes_present < nbytes. Reading such a tensor's missing bytes (gguf_tensor_read,
     * gguf_crc_tensor) fails with GGUF_ETRUNC, gguf_tensor_data gives NULL for it, and the file
     * cannot be written (GGUF_ETRUNC). gguf_file_data_end tells how long the file should be. A
     * file cut inside its header is refused as ever. */
    GGUF_OPEN_PARTIAL = 1 << 6,
    /* A local file's header is parsed where the file is mapped, not read into a copy first:
     * no copy of a large vocabulary is made. Without it the header is read with pread, so that
     * a file cut short by another process while it is read is an error (GGUF_EIO); with it,
     * such a file raises SIGBUS in the caller, as any mapping does. For readers that handle or
     * accept SIGBUS (a tool that exits on it). Ignored with GGUF_OPEN_NO_MMAP and for sources
     * that are not local files. */
    GGUF_OPEN_MAPPED_HEADER = 1 << 7
};

/* Opens and parses a file, read-only. The header is parsed and checked at once; tensor bytes
 * are reached through the mapping (or the in-memory copy) on demand. With GGUF_OPEN_SPLIT_SET
 * and a shard of a split set, every shard is opened and checked, and *out is the set's view
 * (see "Split sets"): GGUF_ENOTFOUND names the missing shards, GGUF_ECORRUPT a duplicated
 * shard, shards of two different sets, a tensor in two shards, or split.no / split.count
 * disagreeing with the names; GGUF_EINVAL a file with split.count > 1 that is not named as a
 * shard. An http:// or https:// URL is read as gguf_file_open_ex reads it with default options
 * (a shard's siblings are then URLs too).
 * Returns 0 and sets *out, or an error naming the file, the byte offset and the key or tensor. */
GGUF_API int gguf_file_open(gguf_file **out, const char *path, unsigned flags, gguf_error *err);

/* Parses bytes in memory. The bytes are copied when copy is non-zero; otherwise they must stay
 * valid and unchanged until gguf_file_free. */
GGUF_API int gguf_file_open_memory(gguf_file **out, const void *data, size_t size, int copy,
                                   unsigned flags, gguf_error *err);

/* Makes an empty file to build: version 3 (or 2), in the given byte order, no keys, no tensors,
 * alignment 32. Tensors added to it get their bytes from the write's fill callback. */
GGUF_API int gguf_file_new(gguf_file **out, uint32_t version, enum gguf_endian endian,
                           gguf_error *err);

/* Releases a file and everything borrowed from it. NULL is allowed. */
GGUF_API void gguf_file_free(gguf_file *f);

/* ------------------------------------------------------------------------------------------ */
/* Remote files and standard input                                                            */
/*
 * gguf_file_open_ex opens a local path or an http:// or https:// URL. A URL is read with HTTP
 * range requests (libcurl; see gguf_http_available): the first asks for 64 KiB, each later one
 * only for bytes not yet read, growing geometrically but never past where the header ends at
 * least (as far as the bytes read so far tell) plus 64 KiB, so opening a 40 GB model fetches
 * its header and a little more, never its tensor data. Tensor reads then fetch exactly the
 * bytes asked for (a tensor read in order is streamed in one request); small reads are kept
 * for the life of the gguf_file. Redirects are followed (up to 10, http and https only); the
 * caller's headers go to the URL's own origin (scheme, host and port), never to another one a
 * redirect leads to. A 5xx or 429 answer, a dropped connection or a stalled transfer is
 * retried with a growing delay (a transfer cut short resumes where it stopped); each read
 * ends by its deadline (deadline_s). Every response must be the same file: when
 * its ETag (or Last-Modified) changes while it is read, the read fails with GGUF_EIO. A server
 * that ignores Range (it answers 200 with the whole file) is read whole only up to
 * whole_limit bytes, else refused. Errors name the URL (gguf_error.path), the HTTP status and
 * the byte range. A gguf_file read from a URL cannot be saved or updated over its URL.
 */

/* Called now and then while a URL is read: bytes fetched so far in this open, and the size of
 * the file. */
typedef void (*gguf_fetch_progress_fn)(void *user, uint64_t fetched, uint64_t size);

/* Options of gguf_file_open_ex and gguf_file_open_fd. Zero is the default of every field but
 * size: start from GGUF_OPEN_OPTIONS_INIT and set fields by name (see "Options structs" in
 * gguf_base.h). */
typedef struct gguf_open_options {
    size_t size;               /* sizeof as the caller was built: set by the _INIT macro */
    unsigned flags;            /* gguf_open_flags */
    /* "Name: value" lines sent with each request to the URL's host, e.g. "Authorization:
     * Bearer TOKEN" for a gated model; a NULL-terminated array, or NULL */
    const char *const *headers;
    int offline;               /* non-zero: never touch the network (a URL fails, GGUF_EIO) */
    unsigned timeout_s;        /* give up connecting, or a transfer slower than 1 KiB/s, after
                                  this many seconds (0: 30) */
    int retries;               /* attempts after the first one of a request that failed in a
                                  way worth retrying, counted per request: bytes a failed
                                  attempt brought do not reset the count (0: 4; negative:
                                  none) */
    unsigned retry_delay_ms;   /* delay before the first retry, doubled for each next one (0:
                                  500); a Retry-After from the server (up to 60 s) wins */
    uint64_t whole_limit;      /* a server that ignores Range: read the whole file if it has
                                  at most this many bytes (0: 64 MiB), else GGUF_EUNSUPPORTED */
    gguf_fetch_progress_fn progress;
    void *progress_user;
    uint64_t keep_bytes;       /* gguf_file_open_fd on a pipe: bytes kept in memory (0: all) */
    unsigned deadline_s;       /* a URL: give up one read (the open's first request, each
                                  later read) that has not finished after this many seconds
                                  in all, retries, redirects and waits included (0: 300) */
} gguf_open_options;

/* Every field not named is 0 / NULL: the defaults. */
#define GGUF_OPEN_OPTIONS_INIT {.size = sizeof(gguf_open_options), .flags = 0}

/* 1 when s is an http:// or https:// URL (the scheme in any case), else 0. */
GGUF_API int gguf_path_is_url(const char *s);
/* 1 when this build reads URLs (configure found libcurl), 0 when not: a URL then fails with
 * GGUF_EUNSUPPORTED ("built without HTTP support"). */
GGUF_API int gguf_http_available(void);

/* gguf_file_open with options (opt NULL: the defaults), for a path or a URL. Besides the
 * errors of gguf_file_open: GGUF_EIO for a URL that cannot be fetched (the message names the
 * HTTP status or the network error), GGUF_ENOTFOUND for a URL the server has not (404, 410), GGUF_EUNSUPPORTED for a URL in a build without libcurl
 * or from a server that ignores Range (see whole_limit), GGUF_EIO with opt->offline. */
GGUF_API int gguf_file_open_ex(gguf_file **out, const char *path_or_url,
                               const gguf_open_options *opt, gguf_error *err);

/* Opens what a file descriptor reads (the caller keeps fd: it is not closed). A regular file is
 * read as gguf_file_open reads a path. A pipe, socket or terminal is read once, in order, to
 * its end (so that its size is known): its first opt->keep_bytes bytes are kept in memory (all
 * when 0), and a later read of a byte past them fails with GGUF_EIO. name (NULL: "standard
 * input") is the name errors give. */
GGUF_API int gguf_file_open_fd(gguf_file **out, int fd, const char *name,
                               const gguf_open_options *opt, gguf_error *err);

/* Called by gguf_file_open_many once per path, in the order they finish: f is the caller's
 * (free it with gguf_file_free), or NULL and err says why (err->path names the path). */
typedef void (*gguf_open_many_fn)(void *user, size_t i, gguf_file *f, const gguf_error *err);

/* Opens many paths and URLs: the URLs all at once, with at most max_parallel transfers in
 * flight (0: 16) over one pool of connections, each read as gguf_file_open_ex reads one (the
 * same requests, retries and checks); the local paths one after the other, first. Returns 0
 * once every path was reported to done, or an error of the whole call (libcurl cannot start,
 * out of memory), after which paths not reported yet never are. */
GGUF_API int gguf_file_open_many(const char *const *paths, size_t n,
                                 const gguf_open_options *opt, unsigned max_parallel,
                                 gguf_open_many_fn done, void *user, gguf_error *err);

/* 1 when f reads its bytes from a URL, else 0. */
GGUF_API int gguf_file_is_remote(const gguf_file *f);

/* ------------------------------------------------------------------------------------------ */
/* The header                                                                                  */

GGUF_API uint32_t gguf_file_version(const gguf_file *f);
GGUF_API enum gguf_endian gguf_file_endian(const gguf_file *f);
/* The alignment in force (general.alignment, or 32). */
GGUF_API uint32_t gguf_file_alignment(const gguf_file *f);
/* Where tensor data starts in the source file. */
GGUF_API uint64_t gguf_file_data_offset(const gguf_file *f);
/* Size of the source bytes. */
GGUF_API uint64_t gguf_file_size(const gguf_file *f);
/* Where the source's tensor data ends: the end of the tensor that ends last (the data offset
 * when there are none; tensors of unknown size count from their start). A file opened with
 * GGUF_OPEN_PARTIAL is cut short when this is past gguf_file_size. */
GGUF_API uint64_t gguf_file_data_end(const gguf_file *f);

/* ------------------------------------------------------------------------------------------ */
/* Split sets                                                                                  */
/*
 * llama.cpp publishes large models as split sets (made by llama-gguf-split): files named
 * PREFIX-00001-of-0000N.gguf .. PREFIX-0000N-of-0000N.gguf, each a GGUF file of its own holding
 * split.no (UINT16, the shard's number from 0), split.count (UINT16, N) and split.tensors.count
 * (INT32, the tensors of all shards); the first shard holds all other metadata, and each tensor
 * lives in exactly one shard.
 *
 * Opened with GGUF_OPEN_SPLIT_SET, any shard gives the set's view: one gguf_file whose metadata
 * is the first shard's (split.* keys included) and whose tensors are those of every shard, in
 * shard order. Reads of tensor bytes (gguf_tensor_read, gguf_tensor_data, gguf_crc_tensor,
 * writes) go to the tensor's shard; gguf_tensor_info.offset is relative to its shard's data
 * offset; gguf_file_data_offset and gguf_crc_header are the first shard's, gguf_file_size the
 * sum of the shards'. Edits of the view change the view only; it is written packed, with
 * gguf_file_save (to one file) or gguf_split_save (to a new split set); gguf_file_update
 * refuses it (edit the first shard alone instead). For a single file the calls below answer as
 * for a set of one shard.
 */

/* Shards in the set (1 for a single file). */
GGUF_API size_t gguf_file_shard_count(const gguf_file *f);
/* Shard k (from 0) as the file it is, or NULL when there is no such shard. For a single file,
 * shard 0 is f itself. Borrowed: valid until f is freed. */
GGUF_API const gguf_file *gguf_file_shard(const gguf_file *f, size_t k);
/* The path or URL a file was opened from (a set's: its first shard's), or NULL for bytes in
 * memory or read from a pipe. Borrowed: valid until f is freed. */
GGUF_API const char *gguf_file_path(const gguf_file *f);
/* The shard that holds tensor i (0 for a single file, and for tensors added by an edit). */
GGUF_API uint32_t gguf_tensor_shard(const gguf_file *f, size_t i);

/* The name of shard `shard` (from 0) of `count` as llama.cpp writes it: PREFIX-%05d-of-%05d.gguf
 * with the shard numbered from 1. Returns the length, or -1 when it does not fit in size bytes
 * or shard >= count or count > 99999. */
GGUF_API int gguf_split_name(char *buf, size_t size, const char *prefix, uint32_t shard,
                             uint32_t count);
/* Whether path is named like a shard (ends with -NNNNN-of-MMMMM.gguf, 1 <= NNNNN <= MMMMM,
 * something before it): returns 1 and sets the outputs (each may be NULL: the prefix's length,
 * the shard from 0, the count), else 0. */
GGUF_API int gguf_split_parse_name(size_t *prefix_len, uint32_t *shard, uint32_t *count,
                                   const char *path);

/* ------------------------------------------------------------------------------------------ */
/* Metadata                                                                                    */

/* A metadata value, possibly an array (of scalars, strings or arrays). Borrowed from its file. */
typedef struct gguf_value gguf_value;

GGUF_API size_t gguf_kv_count(const gguf_file *f);
/* Index of a key, or -1. */
GGUF_API int64_t gguf_kv_find(const gguf_file *f, const char *key);
/* Index of the key made of the len bytes at key, which need no NUL after them (a slice of a
 * longer string; a name with a NUL byte inside), or -1. key may be NULL when len is 0. */
GGUF_API int64_t gguf_kv_find_n(const gguf_file *f, const char *key, size_t len);
/* The key at index i (not NUL-terminated: its length goes to *len). */
GGUF_API const char *gguf_kv_key(const gguf_file *f, size_t i, size_t *len);
/* The value at index i. */
GGUF_API const gguf_value *gguf_kv_value(const gguf_file *f, size_t i);
/* Byte offset of entry i (its key length field) in the source, or GGUF_ERROR_NO_OFFSET for an
 * entry added by an edit. */
GGUF_API uint64_t gguf_kv_source_offset(const gguf_file *f, size_t i);

GGUF_API uint32_t gguf_value_type(const gguf_value *v);
/* For arrays: element type and element count. */
GGUF_API uint32_t gguf_value_elem_type(const gguf_value *v);
GGUF_API uint64_t gguf_value_count(const gguf_value *v);

/* Scalar getters: u64 takes any unsigned integer type (widened), i64 any signed one, f64 FLOAT32
 * or FLOAT64; another type gives GGUF_ETYPE (BOOL is not an integer here). */
GGUF_API int gguf_value_get_u64(uint64_t *out, const gguf_value *v, gguf_error *err);
GGUF_API int gguf_value_get_i64(int64_t *out, const gguf_value *v, gguf_error *err);
GGUF_API int gguf_value_get_f64(double *out, const gguf_value *v, gguf_error *err);
/* For any integer or bool value: its value widened (unsigned types in *u, signed in *i, with
 * *is_signed telling which). */
GGUF_API int gguf_value_get_int(uint64_t *u, int64_t *i, int *is_signed, const gguf_value *v,
                                gguf_error *err);
/* For a STRING value: the bytes (not NUL-terminated) and their length. */
GGUF_API int gguf_value_get_str(const char **s, uint64_t *len, const gguf_value *v,
                                gguf_error *err);
/* For a BOOL value: the stored byte (0 and 1 are valid; other bytes are kept as read). */
GGUF_API int gguf_value_get_bool_byte(uint8_t *out, const gguf_value *v, gguf_error *err);

/* ---- typed reads by key ----
 * A key's value as the C type asked for, when its value is of a type that converts and the
 * target holds it: u64 and i64 take every integer type (UINT8 ... INT64, not BOOL), f64
 * FLOAT32 or FLOAT64, str a STRING (its bytes, not NUL-terminated, and their count; borrowed
 * as gguf_kv_value's). With duplicate keys (GGUF_OPEN_LENIENT), the first one is read.
 * Errors, which leave *out untouched:
 *   GGUF_ENOTFOUND  f has no such key ("key 'x' not found");
 *   GGUF_ETYPE      the value has another type ("key 'x' has type ARRAY of UINT32, not an
 *                   integer"), or a number the target cannot hold ("key 'x' (INT32) holds
 *                   -1, out of range for uint64"); the offset is the key's entry;
 *   GGUF_EINVAL     f or key NULL. */
GGUF_API int gguf_kv_get_u64(uint64_t *out, const gguf_file *f, const char *key, gguf_error *err);
GGUF_API int gguf_kv_get_i64(int64_t *out, const gguf_file *f, const char *key, gguf_error *err);
GGUF_API int gguf_kv_get_f64(double *out, const gguf_file *f, const char *key, gguf_error *err);
GGUF_API int gguf_kv_get_str(const char **s, size_t *len, const gguf_file *f, const char *key,
                             gguf_error *err);

/* 1 when both values have the same type and contents (whatever their files' byte orders and
 * versions), 0 when not, -1 when memory ran out. */
GGUF_API int gguf_value_equal(const gguf_value *a, const gguf_value *b);

/* Array elements, walked in order with an iterator (cheap: no index is built). */
typedef struct gguf_value_iter {
    const gguf_value *array;
    uint64_t index;     /* index of the next element */
    const uint8_t *pos; /* internal */
    uint64_t remain;    /* internal */
} gguf_value_iter;

GGUF_API void gguf_value_iter_init(gguf_value_iter *it, const gguf_value *array);
/* Moves to the next element and fills *elem with a view of it. Returns 1 while there is an
 * element, 0 at the end. The view is valid as long as the array is. */
GGUF_API int gguf_value_iter_next(gguf_value_iter *it, gguf_value *elem);

/* ---- edits ----
 * Setters copy their inputs. An existing key keeps its place in the key order and takes the new
 * value and type; a new key goes at the end. Setting general.alignment to another valid value
 * (a UINT32 that is a power of two or a multiple of 8) makes the next write lay tensor data out
 * again; any other value for it fails with GGUF_ETYPE or GGUF_EINVAL. New values are encoded in
 * the file's byte order and length width. Values and keys previously borrowed from the edited
 * entry become invalid. */

/* A scalar (not STRING or ARRAY) given in host byte order. */
GGUF_API int gguf_kv_set_scalar(gguf_file *f, const char *key, uint32_t vtype, const void *value,
                                gguf_error *err);
GGUF_API int gguf_kv_set_str(gguf_file *f, const char *key, const char *s, size_t len,
                             gguf_error *err);
/* An array of count scalars of elem_type, packed in host byte order. */
GGUF_API int gguf_kv_set_array(gguf_file *f, const char *key, uint32_t elem_type,
                               const void *elems, uint64_t count, gguf_error *err);
GGUF_API int gguf_kv_set_str_array(gguf_file *f, const char *key, const char *const *strs,
                                   const size_t *lens, uint64_t count, gguf_error *err);
/* A copy of any value (from this file or another one, in any byte order or version). */
GGUF_API int gguf_kv_set_value(gguf_file *f, const char *key, const gguf_value *value,
                               gguf_error *err);
/* A value parsed from text: for scalars a number (decimal, or 0x hex for integers; range-checked:
 * 300 does not fit UINT8), true/false/1/0 for BOOL, the text itself for STRING; for ARRAY a JSON
 * array of numbers, bools or strings, of elem_type, or of the type the JSON implies when
 * elem_type is GGUF_VTYPE_COUNT (strings, bools, INT32 or INT64, FLOAT32 if any number has a
 * fraction). Fails with GGUF_EINVAL and a message naming the value and the type. */
GGUF_API int gguf_kv_set_text(gguf_file *f, const char *key, uint32_t vtype, uint32_t elem_type,
                              const char *text, size_t len, gguf_error *err);
/* The chat templates of a tokenizer_config.json (its text: json, len bytes), set as gguf-py's
 * gguf_new_metadata.py --chat-template-config sets them. Every key starting with
 * tokenizer.chat_template is removed first. A chat_template string becomes
 * tokenizer.chat_template; a list of {"name": N, "template": T} becomes
 * tokenizer.chat_template.N for each (N with characters other than ASCII letters and digits
 * made '_'), with the names in tokenizer.chat_templates, and the one named "default" becomes
 * tokenizer.chat_template. The whole text is read before anything changes. GGUF_EINVAL when it
 * is not a JSON object (the message gives the byte where it stops being one), GGUF_ENOTFOUND
 * when it has no chat_template member or that member is null; then f is unchanged. It is
 * several edits: when one of them fails (GGUF_ENOMEM, or a template too long for the file's
 * version), the earlier ones stay, so discard f, as gguf-edit discards a failed edit. */
GGUF_API int gguf_kv_set_chat_templates_json(gguf_file *f, const char *json, size_t len,
                                             gguf_error *err);
/* Removes the first entry with this key (GGUF_ENOTFOUND when there is none). */
GGUF_API int gguf_kv_remove(gguf_file *f, const char *key, gguf_error *err);
/* Removes entry i: with GGUF_OPEN_LENIENT, the way to drop one of two duplicate keys. */
GGUF_API int gguf_kv_remove_at(gguf_file *f, size_t i, gguf_error *err);
/* Renames a key, keeping its value, type and place. GGUF_ENOTFOUND when `from` does not exist,
 * GGUF_EEXIST when `to` does. */
GGUF_API int gguf_kv_rename(gguf_file *f, const char *from, const char *to, gguf_error *err);

/* ---- values as JSON ----
 * Text is appended to a gguf_text the caller owns: zero-initialize it, reuse it, free it with
 * gguf_text_free. data is NUL-free and not NUL-terminated; len counts its bytes. */
typedef struct gguf_text {
    char *data;
    size_t len;
    size_t cap;
} gguf_text;

/* Appends v as JSON: BOOL as true/false, integers exactly, FLOAT32 with 9 and FLOAT64 with 17
 * significant digits (non-finite ones as the strings "nan", "inf", "-inf"), strings as JSON
 * strings, arrays (nested too) as JSON arrays. Strings are always valid UTF-8 JSON: a byte that
 * is not part of valid UTF-8 is written as \u00XX, its Latin-1 code point. Returns 0, or
 * GGUF_ENOMEM with t->len unchanged. */
GGUF_API int gguf_json_value(gguf_text *t, const gguf_value *v);
/* Where gguf_json_value_write hands its text: len bytes at data (not NUL-terminated), to be
 * written out or kept. Returns 0 to go on; anything else stops the writing. */
typedef int (*gguf_json_write_fn)(void *user, const char *data, size_t len);
/* v as JSON, exactly as gguf_json_value renders it, handed to write in pieces of about 64 KiB
 * (or one long string) as it is rendered: the text of a vocabulary is never held whole, so
 * that printing it costs no memory beyond a piece. Returns 0, GGUF_ENOMEM, or the first value
 * other than 0 that write returned (nothing more is handed over then). */
GGUF_API int gguf_json_value_write(const gguf_value *v, gguf_json_write_fn write, void *user);
/* Appends n bytes as a JSON string literal, by the same rules. */
GGUF_API int gguf_json_string(gguf_text *t, const void *s, size_t n);
/* Frees the text's bytes; the gguf_text is empty and usable again. NULL is allowed. */
GGUF_API void gguf_text_free(gguf_text *t);
/* The length (1 to 4) of the UTF-8 sequence that starts s[0..n-1], or 0 when those bytes are not
 * UTF-8 (an overlong form, a surrogate, a code point above U+10FFFF, a cut sequence). n >= 1.
 * For printers that escape what is not text. */
GGUF_API size_t gguf_text_utf8_len(const void *s, size_t n);

/* gguf_value is exposed only so that iterators can fill one on the stack; treat it as opaque. */
struct gguf_value {
    const uint8_t *raw;  /* the encoded value, without its type tag */
    uint64_t raw_len;
    uint32_t type;
    uint8_t big_endian;  /* encoding of raw */
    uint8_t wide;        /* 1: u64 lengths and counts (v2+), 0: u32 (v1) */
    uint8_t owned;       /* raw was allocated by the library */
    uint8_t reserved_;
};

/* ------------------------------------------------------------------------------------------ */
/* Tensors                                                                                     */

#define GGUF_MAX_DIMS 4
/* Tensor names are at most this many bytes (the spec's limit; ggml wants fewer). */
#define GGUF_TENSOR_NAME_MAX 64
/* gguf_tensor_info.nbytes of a tensor whose type this library does not know. */
#define GGUF_NBYTES_UNKNOWN UINT64_MAX

typedef struct gguf_tensor_info {
    const char *name;      /* not NUL-terminated */
    size_t name_len;
    uint32_t n_dims;
    uint64_t dims[GGUF_MAX_DIMS]; /* dims beyond n_dims are 1 */
    uint32_t type;         /* a gguf_dtype (or an unknown id with GGUF_OPEN_UNKNOWN_TYPES) */
    uint64_t offset;       /* relative to the data offset */
    uint64_t nbytes;       /* GGUF_NBYTES_UNKNOWN when the type is unknown */
} gguf_tensor_info;

GGUF_API size_t gguf_tensor_count(const gguf_file *f);
/* Index of the tensor with this name, or -1. */
GGUF_API int64_t gguf_tensor_find(const gguf_file *f, const char *name);
/* Index of the tensor named by the len bytes at name (no NUL needed after them), or -1. name
 * may be NULL when len is 0. */
GGUF_API int64_t gguf_tensor_find_n(const gguf_file *f, const char *name, size_t len);
/* Fills *out with a borrowed view of tensor i. */
GGUF_API void gguf_tensor_get(gguf_tensor_info *out, const gguf_file *f, size_t i);
/* The tensor's bytes as they are in the source file (in the source byte order), or NULL when
 * the size is unknown or the bytes are not all there (GGUF_OPEN_PARTIAL). Valid until the file
 * is freed. */
GGUF_API const void *gguf_tensor_data(const gguf_file *f, size_t i);

/* How many of tensor i's bytes the source holds: its nbytes, less what lies past the end of a
 * file opened with GGUF_OPEN_PARTIAL (0 for a tensor added by an edit or of unknown size). */
GGUF_API uint64_t gguf_tensor_bytes_present(const gguf_file *f, size_t i);

/* Reads len bytes of tensor i's data, from byte `offset` of the tensor, into buf (as stored: in
 * the file's byte order). Reads the file with pread, so a file truncated since it was opened gives
 * GGUF_EIO, never a crash (gguf_tensor_data's pointer into the mapping cannot promise that).
 * Bytes past the end of a file opened with GGUF_OPEN_PARTIAL give GGUF_ETRUNC. */
GGUF_API int gguf_tensor_read(void *buf, const gguf_file *f, size_t i, uint64_t offset, size_t len,
                              gguf_error *err);

/* Adds a tensor at the end of the tensor list. Its bytes do not exist yet: the write that
 * outputs the file asks the options' fill callback for them (in the output's byte order). */
GGUF_API int gguf_tensor_add(gguf_file *f, const char *name, uint32_t dtype, const uint64_t *dims,
                             uint32_t n_dims, gguf_error *err);
/* Changes tensor i's type (requantization): its bytes, of the new size, come from the fill
 * callback of the next write. Fails when dims[0] is not a multiple of the type's block. */
GGUF_API int gguf_tensor_set_type(gguf_file *f, size_t i, uint32_t dtype, gguf_error *err);
/* Puts the tensors in a new order: order[k] is the index of the tensor that goes k-th (a
 * permutation of 0..n-1, n the tensor count, else GGUF_EINVAL). The next write lays the data
 * out packed in the new order. */
GGUF_API int gguf_tensor_reorder(gguf_file *f, const size_t *order, size_t n, gguf_error *err);
/* Renames a tensor (at most 64 bytes; GGUF_EEXIST when the name is taken). */
GGUF_API int gguf_tensor_rename(gguf_file *f, const char *from, const char *to, gguf_error *err);
/* Removes a tensor; the next write lays the remaining tensor data out packed. */
GGUF_API int gguf_tensor_remove(gguf_file *f, const char *name, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Checksums (zlib crc32, SHA-256)                                                             */

/* crc32 of tensor i's bytes as they are in the source. Reads the source file with pread in large
 * chunks; a file that shrank since it was opened gives GGUF_EIO, never a crash; a tensor cut
 * short in a file opened with GGUF_OPEN_PARTIAL gives GGUF_ETRUNC. */
GGUF_API int gguf_crc_tensor(uint32_t *crc, const gguf_file *f, size_t i, gguf_error *err);
/* crc32 of the source header: from the magic to the end of the tensor infos. */
GGUF_API int gguf_crc_header(uint32_t *crc, const gguf_file *f, gguf_error *err);
/* SHA-256 of tensor i's bytes as they are in the source (what llama.cpp's llama-gguf-hash
 * prints per tensor), read as gguf_crc_tensor reads them, with the same errors. */
GGUF_API int gguf_sha256_tensor(uint8_t digest[32], const gguf_file *f, size_t i, gguf_error *err);
/* SHA-256 of the whole source file, every byte from 0 to gguf_file_size (what sha256sum prints,
 * and what the Hugging Face Hub publishes for the file). GGUF_EINVAL for a split set opened as
 * one model: hash each shard (gguf_file_shard). */
GGUF_API int gguf_sha256_file(uint8_t digest[32], const gguf_file *f, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Byte order                                                                                  */

/* In a big-endian file, every multi-byte number inside a tensor's blocks is big-endian too:
 * f16/f32 scales, integers, and the bit fields ggml reads through 16-, 32- or 64-bit loads
 * (Q5_0's qh is one 32-bit field, IQ2_XS's qs are 16-bit fields, ...); byte arrays stay. Each
 * type's list of such fields (its recipe, in libgguf/format/byteswap.c) says which. Converting
 * swaps the bytes of those fields, so the same call converts little -> big and big -> little,
 * and two calls give the input back. Every type of enum gguf_dtype has a recipe.
 *
 * Converts nbytes of tensor data of type dtype between byte orders, in place. nbytes must be a
 * whole number of blocks (gguf_dtype_block_bytes); with nbytes 0 the call only checks that the
 * type can be converted.
 * Returns 0, or GGUF_EUNSUPPORTED (a type id without a recipe: unknown or removed ids; the
 * message names the id) or GGUF_EINVAL (nbytes not a multiple of the block size, data NULL
 * with nbytes > 0). On error the data is untouched. Safe to call from several threads on
 * distinct data. */
GGUF_API int gguf_dtype_byteswap(void *data, size_t nbytes, uint32_t dtype, gguf_error *err);

/* The same, from src into dst (nbytes each). dst == src converts in place; other overlaps are
 * refused with GGUF_EINVAL. On error dst is untouched. */
GGUF_API int gguf_dtype_byteswap_copy(void *dst, const void *src, size_t nbytes, uint32_t dtype,
                                      gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Verification                                                                                */

/* What llama.cpp would refuse in a file this library accepts: each finding is passed to
 * `report` (user data, message, byte offset or GGUF_ERROR_NO_OFFSET). Returns the number of
 * warnings, or a negative code. */
typedef void (*gguf_warn_fn)(void *user, const char *message, uint64_t offset);
GGUF_API int gguf_file_lint(const gguf_file *f, gguf_warn_fn report, void *user, gguf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_FORMAT_H */
