/*
 * libgguf — read, write and edit GGUF files (the model format of llama.cpp/ggml).
 *
 * A GGUF file is laid out as
 *
 *   "GGUF" | version u32 | tensor_count | kv_count | kv[kv_count] | tensor_info[tensor_count]
 *   | padding to ALIGN | tensor data (tensor i at data_offset + offset_i)
 *
 * Version 1 stores counts, string and array lengths and dims as u32; versions 2 and 3 as u64.
 * A big-endian file stores every multi-byte number big-endian; nothing in the file says so,
 * the reader sees it from the byte-swapped version field.  ALIGN is `general.alignment` (u32,
 * default 32).  With at least one tensor, data_offset is the end of the tensor infos rounded up
 * to ALIGN; with none, it is the end of the tensor infos (as ggml computes it).
 *
 * Conventions of this library:
 *  - Every public name starts with gguf_<module>_ or GGUF_<MODULE>_, so a program can link both
 *    this library and ggml (which exports gguf_init_*, gguf_get_*, ...).
 *  - Fallible calls return 0 or a negative GGUF_E* code and fill a caller-supplied gguf_error
 *    (which may be NULL): the first error wins, and a failed call leaves its outputs untouched.
 *  - Outputs come first in the argument list, then the object, then inputs, then the error.
 *  - Pointers returned by getters are borrowed from the gguf_file: they stay valid until the
 *    file is freed or the value they belong to is changed or removed.
 *  - The library never prints, never exits and never aborts on bad input.
 */
#ifndef LIBGGUF_GGUF_H
#define LIBGGUF_GGUF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GGUF_API __attribute__((visibility("default")))
#else
#define GGUF_API
#endif

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

enum gguf_errcode {
    GGUF_OK = 0,
    GGUF_EINVAL = -1,    /* bad argument from the caller (not from the file) */
    GGUF_ENOMEM = -2,    /* an allocation failed */
    GGUF_EIO = -3,       /* the operating system refused a read, write, open, sync or rename */
    GGUF_ETRUNC = -4,    /* the file ends before a structure it declares */
    GGUF_ECORRUPT = -5,  /* the bytes break a rule of the format */
    GGUF_ELIMIT = -6,    /* a structure exceeds one of this library's limits (nesting depth) */
    GGUF_ENOTFOUND = -7, /* no such key or tensor */
    GGUF_ETYPE = -8,     /* a value or tensor has another type than the one asked for */
    GGUF_EUNSUPPORTED = -9, /* valid, but this build cannot do it (unknown tensor type, ...) */
    GGUF_EEXIST = -10    /* the key or tensor name is already taken */
};

#define GGUF_ERROR_MESSAGE_MAX 512
#define GGUF_ERROR_PATH_MAX 4096
#define GGUF_ERROR_NO_OFFSET UINT64_MAX

typedef struct gguf_error {
    int code;             /* a gguf_errcode; 0 while no error was recorded */
    uint64_t offset;      /* byte offset in the input the error is about, or GGUF_ERROR_NO_OFFSET */
    char message[GGUF_ERROR_MESSAGE_MAX]; /* what and why, naming the key or tensor */
    char path[GGUF_ERROR_PATH_MAX]; /* the file (or URL) it is about, or "" when none is; a
                                       name too long to fit keeps its end, after "..." */
} gguf_error;

/* Resets *err to "no error". */
GGUF_API void gguf_error_clear(gguf_error *err);
/* A short, static description of a gguf_errcode ("truncated file", ...). */
GGUF_API const char *gguf_strerror(int code);

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
    GGUF_OPEN_PARTIAL = 1 << 6
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

/* Options of gguf_file_open_ex and gguf_file_open_fd. Zero is the default of every field:
 * start from GGUF_OPEN_OPTIONS_INIT and set fields by name. */
typedef struct gguf_open_options {
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
#define GGUF_OPEN_OPTIONS_INIT {.flags = 0}

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
 * type's list of such fields (its recipe, in libgguf/byteswap.c) says which. Converting swaps
 * the bytes of those fields, so the same call converts little -> big and big -> little, and
 * two calls give the input back. Every type of enum gguf_dtype has a recipe.
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

typedef struct gguf_write_options {
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
#define GGUF_WRITE_OPTIONS_INIT {.version = 0, .endian = -1, .layout = GGUF_LAYOUT_KEEP}

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
 * (gguf-edit does this: tools/cli.c, cli_signals_start.) */

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

/* ------------------------------------------------------------------------------------------ */
/* Writing split sets and merging them (libgguf/split/)                                        */
/*
 * The same bytes as llama.cpp's llama-gguf-split for the same options (one difference: a model
 * whose general.alignment is not 32 keeps it in the first shard, which llama-gguf-split lays
 * out at 32 anyway, making a file ggml refuses). */

enum gguf_split_mode {
    GGUF_SPLIT_BY_TENSORS = 0, /* a new shard every max_tensors tensors */
    GGUF_SPLIT_BY_SIZE = 1,    /* a new shard before a tensor that would take the shard's tensor
                                  bytes (each padded to 32) past max_bytes */
    GGUF_SPLIT_BY_SHARD = 2    /* each tensor to the shard gguf_tensor_shard says (a split set
                                  written again with its own split, as llama-quantize's
                                  --keep-split does); shards must be in order; their count is
                                  the last tensor's shard + 1 */
};

typedef struct gguf_split_options {
    int mode;                 /* a gguf_split_mode */
    uint64_t max_tensors;     /* GGUF_SPLIT_BY_TENSORS: tensors per shard (llama's default 128) */
    uint64_t max_bytes;       /* GGUF_SPLIT_BY_SIZE: tensor bytes per shard (llama-gguf-split's
                                 --split-max-size 4G is 4000000000) */
    int no_tensor_first;      /* the first shard holds the metadata only */
    gguf_progress_fn progress; /* tensor bytes written, over all shards; may be NULL */
    void *progress_user;
    int quantize_keys;        /* the split keys in llama-quantize's order (split.no, split.count,
                                 split.tensors.count), not llama-gguf-split's (split.no,
                                 split.tensors.count, split.count) */
    gguf_fill_fn fill;        /* bytes of tensors added or retyped in f (tensor: f's index), as
                                 gguf_write_options.fill */
    void *fill_user;
} gguf_split_options;

/* Every field not named is 0 / NULL. */
#define GGUF_SPLIT_OPTIONS_INIT {.mode = GGUF_SPLIT_BY_TENSORS, .max_tensors = 128}

/* Plans the split of f without writing: shard_of[i] (f has gguf_tensor_count(f) tensors) is
 * the shard (from 0) of tensor i, *n_shards the count. Fails with GGUF_EINVAL (a limit of 0, a
 * tensor alone larger than max_bytes where it would leave a shard empty), GGUF_EUNSUPPORTED (a
 * tensor of unknown size), GGUF_ELIMIT (more than 65535 shards). */
GGUF_API int gguf_split_plan(uint32_t *shard_of, uint32_t *n_shards, const gguf_file *f,
                             const gguf_split_options *opt, gguf_error *err);

/* Writes f (a file or a split set's view) as the split set PREFIX-00001-of-0000N.gguf ...:
 * each shard to a temporary file beside it, fsync'd, renamed into place; tensor bytes copied by
 * the kernel where it can. Existing files of those names are replaced, except files f is read
 * from and special files (gguf_output_check: GGUF_EINVAL, nothing written). *n_shards (may be NULL) gets N. On failure, shards
 * already written stay. */
GGUF_API int gguf_split_save(uint32_t *n_shards, const gguf_file *f, const char *prefix,
                             const gguf_split_options *opt, gguf_error *err);

/* Merges a split set (its view, opened with GGUF_OPEN_SPLIT_SET) into the file out, written
 * atomically: the first shard's keys with split.count moved to the end and set to 0, the
 * tensors of every shard, GGUF v3, packed. An existing out is replaced as gguf_file_save
 * replaces it (never a shard of the set). Refuses (GGUF_EINVAL) a file without split.count. */
GGUF_API int gguf_split_merge_save(const gguf_file *set, const char *out,
                                   gguf_progress_fn progress, void *progress_user,
                                   gguf_error *err);

typedef struct gguf_split_merge_result {
    int resumed;             /* 1: an interrupted merge was found and finished */
    uint32_t shards;         /* shards in the set */
    uint32_t shards_merged;  /* shards whose tensors this run moved into the merged file */
} gguf_split_merge_result;

/* Merges the split set `shard` belongs to (any shard's path) into out, deleting the shards as
 * it goes, with the disk use of one shard (plus the header's changed bytes, in the journal)
 * beyond the set's: the merged file grows in place of the first shard, each shard's tensor
 * bytes appended and its header rewritten through a journal, then the shard replaced by one
 * with no tensors; at the end it is renamed to out and the emptied shards removed (see
 * libgguf/split/merge.c). A crash at any moment leaves the whole model, in the shards or in
 * the merged file, and calling this again finishes the merge. The bytes of out are those of
 * gguf_split_merge_save. Fails with GGUF_EEXIST when out exists (unless a merge of this set
 * produced it and only cleaning up is left), GGUF_EINVAL when out is on another filesystem
 * or the name is not a shard's, GGUF_ELIMIT when the merged header leaves no room for the
 * merge's reserve key, GGUF_EIO when another merge runs in the same folder, and as
 * gguf_file_open for a broken set. res may be NULL. */
GGUF_API int gguf_split_merge_delete(gguf_split_merge_result *res, const char *shard,
                                     const char *out, gguf_progress_fn progress,
                                     void *progress_user, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Catalog                                                                                     */
/*
 * A SQLite database describing many GGUF files: one row per file, per key/value and per
 * tensor, read from headers only (plus, on request, each tensor's crc32), and queried with SQL.
 * The catalog is built when configure finds SQLite; without it every gguf_catalog_* call that
 * needs the database fails with GGUF_EUNSUPPORTED ("catalog not built").
 *
 * Schema version GGUF_CATALOG_SCHEMA_VERSION, kept in PRAGMA user_version (application_id is
 * 0x47475546, "GGUF"). Opening an older catalog read-write migrates it; a newer one is refused.
 *
 *   files     id, path (absolute, or a URL), dev, ino, size, mtime_ns, version, endian
 *             ('little'|'big'),
 *             alignment, data_offset, n_kv, n_tensors, header_crc32, open_flags, has_crc
 *             (1 when tensor crc32s were stored), indexed_at (unix seconds), and facts derived
 *             from the header: n_params (sum over tensors of the product of their dims),
 *             tensor_bytes, dominant_type (the known tensor type holding the most elements;
 *             ties go to the lower type id), split_no, split_count (split.no, split.count),
 *             split_set (for split files: the path without its "-00001-of-00003.gguf" tail),
 *             indexed_run (the run that last read the file), changed_run (the run that last
 *             found it new or changed: another header, size or tensor crc32s, or a new
 *             device, inode or mtime without stored crc32s that prove its bytes the same),
 *             journal (NULL; 'pending': an interrupted in-place edit's journal lies beside the
 *             file, which gguf_file_recover would finish; 'refused': one it would refuse).
 *             Index and verify only look at journals: they never apply or remove one.
 *             model (the path of the model the file belongs to: its own, or for a shard of a
 *             split set the set's first shard's, PREFIX-00001-of-N.gguf), etag and
 *             last_modified (a URL's ETag and Last-Modified, sent back as If-None-Match or
 *             If-Modified-Since when it is indexed again; a URL has no dev and ino, and its
 *             mtime_ns is its Last-Modified date, 0 when the server gave none), missing_bytes
 *             (0, or for a file cut short inside its tensor data, such as a download that
 *             stopped, the bytes its tensors lack: its header is catalogued, read with
 *             GGUF_OPEN_PARTIAL (in open_flags, so that verify reads it so), without tensor
 *             crc32s; a file cut inside its header is an errors row), kv_bytes_token and
 *             kv_bytes_token_swa (the f16 KV cache's bytes per token of context of the
 *             full-attention and the sliding-window layers, gguf_llama_summary's),
 *             swa_window (the sliding window, 0 without one) and state_bytes (the recurrent
 *             state per sequence, 0 without one): NULL where the estimate does not
 *             know the architecture, and for files stored before version 8 until read again
 *   kv        file, position, key, type (the spec's name: 'UINT32', 'STRING', 'ARRAY', ...),
 *             elem_type and array_len (arrays), int (integers and bools), real (floats; NULL
 *             for NaN), text (strings; for a UINT64 above INT64_MAX and non-finite floats their
 *             decimal form or 'nan'/'inf'/'-inf'; for arrays of at most array_max elements the
 *             elements as JSON). Keys and strings that are not UTF-8 are stored as BLOBs.
 *   tensors   file, position, name, type (ggml's name, 'TYPE_<id>' when unknown), type_id,
 *             n_dims, ne0..ne3 (1 beyond n_dims), offset (relative to data_offset), nbytes
 *             (NULL when unknown), crc32 (NULL unless indexed with GGUF_CATALOG_CRC)
 *   errors    path, dev, ino, size, mtime_ns, code (a gguf_errcode), error (its
 *             gguf_strerror), offset (NULL: none), message, indexed_at, run, journal, scope,
 *             shard: with scope 'file', a file (or URL) that could not be read, with the
 *             reader's message (for a URL: the HTTP status or the network error); with scope
 *             'set', a split set whose first shard is path and that does not open as one model
 *             (a shard missing, refused, or from another set), shard naming the shard at fault
 *             (from 1), as gguf_file_open with GGUF_OPEN_SPLIT_SET would say
 *   runs      id, kind ('index' or 'prune'), started_at, finished_at (unix seconds; NULL
 *             while running or when the run failed), paths (a JSON array of the absolute
 *             paths indexed), seen, indexed, unchanged, broken, skipped, walk_errors, removed,
 *             broken_sets (its gguf_catalog_stats). Rows stored before version 4 have NULL
 *             runs. The tensors that changed in the last index run:
 *               SELECT f.path, t.* FROM tensors t JOIN files f ON f.id = t.file WHERE
 *               f.changed_run = (SELECT max(id) FROM runs WHERE kind = 'index')
 *   file_types  id, name: llama.cpp's general.file_type ids (15 'Q4_K_M', 32 'BF16', ...)
 *   models    (view) one row per model: a file on its own, or a split set (the row of its
 *             first shard, with the set's totals): file, path, architecture, name, size_label,
 *             file_type, quant (the dominant type), context_length, embedding_length,
 *             block_count, n_params, bytes, tensor_bytes, n_tensors (sums over the set's
 *             shards), split_no, split_count, shards (the files catalogued for the model),
 *             split_complete (1 when every shard of the set is catalogued and the set opens as
 *             one model, 0 when not, NULL when not split), missing_bytes (summed over the
 *             set's shards), partial (1 when the model's files lack bytes, else 0),
 *             kv_bytes_per_token, kv_bytes_per_token_swa, sliding_window,
 *             state_bytes_per_sequence (the files row's figures) and bits_per_weight
 *             (tensor_bytes * 8 / n_params, as llama.cpp prints it). A set whose first shard is
 *             missing or refused has no row: its errors row says why. The models that fit in 24 GiB with 32k tokens of context (weights and
 *             KV cache, one sequence; sliding-window layers keep their window and a batch of
 *             512, in blocks of 256):
 *               SELECT path FROM models WHERE tensor_bytes + 32768 * kv_bytes_per_token +
 *               min(32768, (sliding_window + 767) / 256 * 256) * kv_bytes_per_token_swa +
 *               state_bytes_per_sequence <= 24 * 1073741824
 *
 * The database runs in WAL mode with a busy timeout, so several processes may index, prune,
 * verify and query one catalog at once. A gguf_catalog handle is for one thread at a time.
 */

#define GGUF_CATALOG_SCHEMA_VERSION 8

typedef struct gguf_catalog gguf_catalog;

/* 1 when this build has the catalog (SQLite), 0 when not. */
GGUF_API int gguf_catalog_available(void);

/* The default database path, $XDG_DATA_HOME/gguf/catalog.db, or ~/.local/share/gguf/catalog.db
 * when XDG_DATA_HOME is unset, empty or relative. Fails with GGUF_EINVAL when HOME is needed
 * and unset, or when the path does not fit in size bytes. Works without SQLite too. */
GGUF_API int gguf_catalog_default_path(char *buf, size_t size, gguf_error *err);

enum gguf_catalog_open_flags {
    GGUF_CATALOG_OPEN_DEFAULT = 0,
    /* Fail with GGUF_ENOTFOUND when the database does not exist, instead of creating it. */
    GGUF_CATALOG_OPEN_NOCREATE = 1 << 0,
    /* Open read-only (implies NOCREATE): index and prune are refused, and a catalog with an
     * older schema is refused instead of migrated. */
    GGUF_CATALOG_OPEN_READONLY = 1 << 1
};

/* Opens (or creates, with its folders when path is NULL) the catalog at path, or at the
 * default path when path is NULL, and migrates an older schema. Errors: GGUF_EUNSUPPORTED (no
 * SQLite in this build, or a schema newer than this library), GGUF_ENOTFOUND (NOCREATE and no
 * database), GGUF_ECORRUPT (not a catalog), GGUF_EIO (SQLite failed). */
GGUF_API int gguf_catalog_open(gguf_catalog **out, const char *path, unsigned flags,
                               gguf_error *err);
/* Closes the catalog. NULL is allowed. */
GGUF_API void gguf_catalog_close(gguf_catalog *cat);
/* The database path; valid until the catalog is closed. */
GGUF_API const char *gguf_catalog_path(const gguf_catalog *cat);

enum gguf_catalog_index_flags {
    GGUF_CATALOG_CRC = 1 << 0,             /* also store each tensor's crc32 (reads all bytes) */
    GGUF_CATALOG_FOLLOW_SYMLINKS = 1 << 1, /* follow symbolic links found in folders */
    GGUF_CATALOG_ALL_FILES = 1 << 2,       /* take every file in folders, not just *.gguf */
    GGUF_CATALOG_FORCE = 1 << 3            /* re-read unchanged files too */
};

/* What gguf_catalog_index and gguf_catalog_prune tell their caller as they go. */
enum gguf_catalog_event_kind {
    GGUF_CATALOG_EV_INDEXED = 1,  /* the file was read and stored */
    GGUF_CATALOG_EV_UNCHANGED,    /* same device, inode, size and mtime: skipped */
    GGUF_CATALOG_EV_BROKEN,       /* not GGUF, or refused by the reader: stored in errors */
    GGUF_CATALOG_EV_SKIPPED,      /* a symbolic link not followed, or a special file */
    GGUF_CATALOG_EV_WALK_ERROR,   /* an argument or folder that cannot be read (not stored) */
    GGUF_CATALOG_EV_REMOVED,      /* prune: the file no longer exists; its rows were dropped */
    GGUF_CATALOG_EV_SET_BROKEN    /* a split set does not open as one model (path: its first
                                     shard; error: why, naming the shard): stored in errors */
};

typedef struct gguf_catalog_event {
    int kind;                /* a gguf_catalog_event_kind */
    const char *path;        /* valid during the call only */
    const gguf_error *error; /* BROKEN and WALK_ERROR: why; INDEXED: NULL, or for a file cut
                                short inside its tensor data (catalogued partial: its header,
                                files.missing_bytes), what it lacks; else NULL */
} gguf_catalog_event;

typedef void (*gguf_catalog_event_fn)(const gguf_catalog_event *ev, void *user);

typedef struct gguf_catalog_index_options {
    unsigned flags;                 /* gguf_catalog_index_flags */
    unsigned open_flags;            /* gguf_open_flags for gguf_file_open (kept per file) */
    uint64_t array_max;             /* arrays of at most this many elements go in kv.text */
    gguf_catalog_event_fn on_event; /* may be NULL */
    void *user;
    unsigned jobs;                  /* URLs: transfers at a time (0: 16) */
} gguf_catalog_index_options;

#define GGUF_CATALOG_INDEX_OPTIONS_INIT {.flags = 0, .open_flags = 0, .array_max = 1024}

typedef struct gguf_catalog_stats {
    uint64_t seen;        /* candidate files met */
    uint64_t indexed;     /* read and stored */
    uint64_t unchanged;   /* skipped as unchanged */
    uint64_t broken;      /* stored in errors */
    uint64_t skipped;     /* symbolic links not followed, special files */
    uint64_t walk_errors; /* arguments or folders that could not be read */
    uint64_t removed;     /* rows of vanished files dropped (prune) */
    uint64_t broken_sets; /* split sets that do not open as one model (in errors) */
} gguf_catalog_stats;

/* Adds or refreshes files: each path is a file (taken whatever its name), a folder, walked
 * recursively for *.gguf files (every file with GGUF_CATALOG_ALL_FILES), or an http:// or
 * https:// URL. Only headers are read, unless GGUF_CATALOG_CRC. A file whose device, inode,
 * size and mtime match its row is skipped (with CRC, only when its crc32s are stored). Files
 * the reader refuses go to the errors table with its message and never stop the run; nor do
 * unreadable folders (reported as WALK_ERROR). Each file's rows change in one transaction.
 * Fails (GGUF_EIO, GGUF_ENOMEM) only when the catalog itself cannot be updated; files stored
 * before the failure stay stored. Every run leaves a row in runs (finished_at set when it
 * succeeds). Special files (FIFOs, devices) are skipped without being opened. A journal beside
 * a file is recorded in files.journal, never applied or removed.
 *
 * A file named like a shard of a split set (PREFIX-00002-of-00003.gguf) brings its whole set:
 * every shard is stored as a file of its own, and the set is checked as gguf_file_open with
 * GGUF_OPEN_SPLIT_SET checks it; a set that does not open as one model (a shard missing,
 * refused, or from another set) gets an errors row of scope 'set' naming the shard (and a
 * SET_BROKEN event), which goes once the set opens. The set is read again when any of its
 * shards changed (or appeared, or vanished).
 *
 * URLs are read as gguf_file_open_many reads them: at most opt->jobs transfers at a time over
 * one pool of connections, with the options of gguf_catalog_set_url_options. A URL stored
 * with an ETag or Last-Modified is asked for again with one conditional request
 * (If-None-Match, else If-Modified-Since): an answer 304 Not Modified skips it (UNCHANGED)
 * without reading its header again. A URL that fails (HTTP 404, a 5xx after the retries, a
 * network error) goes to the errors table with the message naming the URL and the HTTP
 * status; a shard URL brings the URLs of its siblings (the same URL with the shard number
 * changed; a sibling the server does not have is a missing shard). With the offline option
 * URLs are not touched: each is SKIPPED and its rows stay as they are.
 * opt may be NULL (GGUF_CATALOG_INDEX_OPTIONS_INIT). stats (may be NULL) is filled on success. */
GGUF_API int gguf_catalog_index(gguf_catalog_stats *stats, gguf_catalog *cat,
                                const char *const *paths, size_t n_paths,
                                const gguf_catalog_index_options *opt, gguf_error *err);

/* How URLs are reached by later gguf_catalog_index and gguf_catalog_verify calls on cat: the
 * headers (an Authorization for gated models), offline, timeout, retries and whole_limit of
 * opt (its flags, progress and keep_bytes are not used). opt and the strings it points to are
 * borrowed until the next call or gguf_catalog_close; NULL: the defaults. Fails with
 * GGUF_EINVAL for a NULL catalog. */
GGUF_API int gguf_catalog_set_url_options(gguf_catalog *cat, const gguf_open_options *opt,
                                          gguf_error *err);

/* Drops the rows (files, kv, tensors, errors) of files that no longer exist. stats->removed
 * counts them. on_event (may be NULL) hears a REMOVED event for each. The run leaves a row in
 * runs (kind 'prune'). URLs are left alone (index them again: one the server has no longer
 * goes to errors). An errors row of a split set goes when no shard of the set is left. */
GGUF_API int gguf_catalog_prune(gguf_catalog_stats *stats, gguf_catalog *cat,
                                gguf_catalog_event_fn on_event, void *user, gguf_error *err);

/* Copies every row of the catalog src (files, kv, array_items, tensors, errors, runs; ids
 * kept) into dst, replacing dst's rows, in one transaction of dst: a SQLite catalog into
 * PostgreSQL or back. src may be read-only; *rows (may be NULL) receives the rows copied. A
 * string PostgreSQL's text cannot hold (not UTF-8, or with a NUL) arrives there with U+FFFD
 * in place of its bad bytes. */
GGUF_API int gguf_catalog_copy(gguf_catalog *dst, gguf_catalog *src, uint64_t *rows,
                               gguf_error *err);

/* Query results. Each cell has a SQLite type; text holds the TEXT or BLOB bytes, and for
 * INTEGER and REAL cells SQLite's own text rendering (NUL-terminated, valid until the callback
 * returns). */
enum gguf_catalog_ctype {
    GGUF_CATALOG_NULL = 0,
    GGUF_CATALOG_INTEGER = 1,
    GGUF_CATALOG_REAL = 2,
    GGUF_CATALOG_TEXT = 3,
    GGUF_CATALOG_BLOB = 4
};

typedef struct gguf_catalog_cell {
    int type;         /* a gguf_catalog_ctype */
    int64_t i;        /* INTEGER */
    double r;         /* REAL (and INTEGER, converted) */
    const char *text; /* NULL for NULL cells */
    size_t len;       /* bytes in text */
} gguf_catalog_cell;

/* Called once per statement with cells NULL (the column names), then once per row. Return 0 to
 * go on, non-zero to stop the query (gguf_catalog_query then returns 0). */
typedef int (*gguf_catalog_row_fn)(size_t n_cols, const char *const *names,
                                   const gguf_catalog_cell *cells, void *user);

/* Runs the SQL text (one or more statements) on a read-only connection: a statement that would
 * change anything (INSERT, CREATE, ATTACH, VACUUM, PRAGMAs that set something, ...) is refused
 * with GGUF_EINVAL before it runs, as are syntax errors (the message is SQLite's). Only
 * functions SQLite marks innocuous or deterministic may be called (not fts3_tokenizer or
 * load_extension); PRAGMAs that report run, also as table-valued functions
 * (SELECT name FROM pragma_table_info('models')). A query that runs past its time limit or
 * needs more memory than its memory limit is stopped with GGUF_ELIMIT, naming the limit; see
 * gguf_catalog_set_query_limits. */
GGUF_API int gguf_catalog_query(gguf_catalog *cat, const char *sql, gguf_catalog_row_fn fn,
                                void *user, gguf_error *err);

/* The limits of later gguf_catalog_query calls on cat: timeout_ms of running time, and
 * max_memory bytes that SQLite may hold while the query runs (temporary tables and sorts
 * included: they are kept in memory), 0 for no limit. A new catalog has 60000 ms and 1 GiB.
 * The memory limit is SQLite's hard heap limit, which is process-wide: it applies to every
 * SQLite connection of the process while the query runs, and the previous limit is put back
 * after it. Fails with GGUF_EINVAL for a NULL catalog or limits beyond INT64_MAX. */
GGUF_API int gguf_catalog_set_query_limits(gguf_catalog *cat, uint64_t timeout_ms,
                                           uint64_t max_memory, gguf_error *err);

/* What gguf_catalog_verify finds. */
enum gguf_catalog_problem {
    GGUF_CATALOG_MISSING = 1, /* the file no longer exists */
    GGUF_CATALOG_UNREADABLE,  /* it exists but cannot be read (permissions, I/O error) */
    GGUF_CATALOG_CHANGED,     /* size, mtime or inode changed since indexing, and its bytes too */
    GGUF_CATALOG_CORRUPT      /* same size and mtime, but the bytes differ: they rotted */
};

typedef struct gguf_catalog_finding {
    int problem;          /* a gguf_catalog_problem */
    const char *path;
    const char *tensor;   /* the tensor whose crc32 no longer matches, or NULL */
    int has_crc;          /* 1: expected_crc and actual_crc are set */
    uint32_t expected_crc; /* the catalog's */
    uint32_t actual_crc;  /* the file's now */
    const char *message;  /* the whole finding, for people */
} gguf_catalog_finding;

typedef void (*gguf_catalog_finding_fn)(const gguf_catalog_finding *finding, void *user);

typedef struct gguf_catalog_verify_stats {
    uint64_t files;          /* files checked */
    uint64_t files_with_crc; /* of which with tensor crc32s */
    uint64_t tensors;        /* tensor crc32s compared */
    uint64_t bytes;          /* tensor bytes read */
    uint64_t missing, unreadable, changed, corrupt; /* files per problem (one each) */
} gguf_catalog_verify_stats;

/* Re-reads catalogued files (all, or those at or below the given paths) and compares them with
 * their rows: the header's crc32 always, each tensor's crc32 for files indexed with
 * GGUF_CATALOG_CRC, reading in large sequential chunks. A path that is no longer a regular
 * file (a FIFO, a folder) is reported CHANGED from its stat, without being opened. Every
 * problem goes to fn (may be NULL) and is counted in stats (may be NULL). Returns 0 when the
 * check ran, whatever it found. Journals beside files are left alone. A path selects the
 * models at or below it with all their shards: every shard of a split set is checked, and a
 * shard the catalog lacks is reported (MISSING when it is not there, CHANGED when it is but
 * was never indexed). A URL is read again with the options of gguf_catalog_set_url_options
 * (CHANGED when its size, ETag or Last-Modified differ; MISSING on HTTP 404); offline, URLs
 * are not checked. */
GGUF_API int gguf_catalog_verify(gguf_catalog_verify_stats *stats, gguf_catalog *cat,
                                 const char *const *paths, size_t n_paths,
                                 gguf_catalog_finding_fn fn, void *user, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Tensor data conversion                                                                      */

/* Quantization and dequantization of tensor data (libgguf/quant/).
 *
 * Every conversion is bit-identical to ggml's for the same input: gguf_quant_quantize writes
 * the bytes ggml_quantize_chunk(type, src, dst, 0, nrows, n_per_row, imatrix) writes, and
 * gguf_quant_dequantize the floats of ggml's type_traits[type].to_float (libggml-base). The
 * portable scalar code is the definition; SIMD variants chosen at run time give the same
 * results and can be switched off with gguf_quant_set_simd(0).
 *
 * Quantized data is a sequence of rows; each row of n_per_row elements is n_per_row / B blocks
 * of S bytes (B = gguf_dtype_block_elems, S = gguf_dtype_block_bytes), stored little-endian.
 * The functions never allocate and are safe to call from several threads at once (on distinct
 * outputs).
 */

/* Quantizes nrows rows of n_per_row floats from src into dst (dst_size bytes available) as
 * tensor type dtype. imatrix, when not NULL, holds n_per_row importance weights (one per
 * column, as llama.cpp's imatrix files store them) that steer the k-quants, the legacy
 * 4/5-bit types and the i-quants; types that need one (gguf_quant_needs_imatrix) refuse NULL.
 * F32 is a copy; F16 and BF16 round to nearest even.
 * Returns 0, or
 *   GGUF_EUNSUPPORTED  the type cannot be quantized (Q8_K's bsums, integer types, unknown ids
 *                      are dequantize-only or unknown),
 *   GGUF_EINVAL        nrows or n_per_row negative, n_per_row not a multiple of the block
 *                      size, dst_size too small, src or dst NULL with data to convert, or a
 *                      required imatrix missing,
 *   GGUF_ELIMIT        the output size does not fit in size_t.
 * On error dst is untouched. */
GGUF_API int gguf_quant_quantize(void *dst, size_t dst_size, uint32_t dtype, const float *src,
                                 int64_t nrows, int64_t n_per_row, const float *imatrix,
                                 gguf_error *err);

/* Converts n elements (a multiple of the block size) of type dtype at src (src_size bytes, at
 * least the n elements' size) to floats in dst. Integer types (I8, I16, I32, I64) and F64 are
 * converted by value (rounded to the nearest float); F32 is a copy.
 * Returns 0, or GGUF_EUNSUPPORTED (unknown type), GGUF_EINVAL (n negative or not a multiple
 * of the block size, src_size too small, NULL pointers with data to convert). */
GGUF_API int gguf_quant_dequantize(float *dst, uint32_t dtype, const void *src, size_t src_size,
                                   int64_t n, gguf_error *err);

/* Bytes of one row of n_per_row elements of type dtype, or 0 when the type is unknown, when
 * n_per_row is negative or not a multiple of the block size, or on overflow. */
GGUF_API size_t gguf_quant_row_size(uint32_t dtype, int64_t n_per_row);

/* 1 when gguf_quant_quantize / gguf_quant_dequantize support the type, else 0. */
GGUF_API int gguf_quant_can_quantize(uint32_t dtype);
GGUF_API int gguf_quant_can_dequantize(uint32_t dtype);

/* 1 when quantizing to the type requires an importance matrix (IQ2_XXS, IQ2_XS, IQ1_S), as in
 * ggml_quantize_requires_imatrix. */
GGUF_API int gguf_quant_needs_imatrix(uint32_t dtype);

/* SIMD levels of the x86-64 kernels. */
enum gguf_quant_simd {
    GGUF_QUANT_SIMD_AUTO = -1,  /* the best the CPU supports (the default) */
    GGUF_QUANT_SIMD_SCALAR = 0, /* portable C only */
    GGUF_QUANT_SIMD_SSE41 = 1,
    GGUF_QUANT_SIMD_AVX2 = 2,   /* AVX2 and F16C */
    GGUF_QUANT_SIMD_AVX512 = 3  /* AVX-512 F, BW and VL */
};

/* Selects the highest SIMD level the kernels may use (process-wide; results do not depend on
 * it, only speed). A level above what the CPU supports is lowered to the supported one.
 * Returns the level now in force. */
GGUF_API int gguf_quant_set_simd(int level);

/* The level in force, and the best level this CPU supports. */
GGUF_API int gguf_quant_simd(void);
GGUF_API int gguf_quant_simd_supported(void);

/* A short name of a level ("scalar", "sse4.1", "avx2", "avx512"), or NULL. */
GGUF_API const char *gguf_quant_simd_name(int level);

/* ------------------------------------------------------------------------------------------ */
/* Requantization                                                                              */
/*
 * Requantizes a model the way llama.cpp's quantizer (llama_model_quantize) does: for a preset
 * ("Q4_K_M"), each tensor gets the type llama.cpp would give it (from its name, shape, layer,
 * the model's architecture and head counts, and the preset: 1-D tensors and norms keep their
 * type, Q4_K_M gives half of attn_v and ffn_down Q6_K, a row length the type's block does not
 * divide falls back to another type, ...), and its values are dequantized to f32 and quantized
 * again, row by row, while the file is written. The result is the file llama.cpp writes:
 * general.quantization_version and general.file_type set (moved to the end of the keys, as
 * llama.cpp does), split.* keys removed, then the caller's key overrides, quantize.imatrix.*
 * keys when an importance matrix is used, {arch}.block_count when layers are pruned; tensors in
 * llama.cpp's order (by "blk.N." layer, those without first, then by name) unless kept in the
 * source's, the source's alignment kept. Like llama.cpp, it refuses to requantize tensors that
 * are quantized already unless allowed (opt->allow_requantize).
 *
 * Use: gguf_requant_prepare(&rq, f, &opt, &err), then write f with
 *   gguf_write_options w = {.endian = -1, .layout = GGUF_LAYOUT_PACKED,
 *                           .fill = gguf_requant_fill, .fill_user = rq};
 *   gguf_file_save(f, out, &w, &err);
 * then gguf_requant_free(rq) -- or gguf_requant_save, which does the three.
 */

/* llama.cpp's presets, by their general.file_type value (llama_ftype). */
enum gguf_requant_ftype {
    GGUF_REQUANT_F32 = 0,
    GGUF_REQUANT_F16 = 1,
    GGUF_REQUANT_Q4_0 = 2,
    GGUF_REQUANT_Q4_1 = 3,
    /* 4-6 were removed from llama.cpp */
    GGUF_REQUANT_Q8_0 = 7,
    GGUF_REQUANT_Q5_0 = 8,
    GGUF_REQUANT_Q5_1 = 9,
    GGUF_REQUANT_Q2_K = 10,
    GGUF_REQUANT_Q3_K_S = 11,
    GGUF_REQUANT_Q3_K_M = 12,
    GGUF_REQUANT_Q3_K_L = 13,
    GGUF_REQUANT_Q4_K_S = 14,
    GGUF_REQUANT_Q4_K_M = 15,
    GGUF_REQUANT_Q5_K_S = 16,
    GGUF_REQUANT_Q5_K_M = 17,
    GGUF_REQUANT_Q6_K = 18,
    GGUF_REQUANT_IQ2_XXS = 19,
    GGUF_REQUANT_IQ2_XS = 20,
    GGUF_REQUANT_Q2_K_S = 21,
    GGUF_REQUANT_IQ3_XS = 22,
    GGUF_REQUANT_IQ3_XXS = 23,
    GGUF_REQUANT_IQ1_S = 24,
    GGUF_REQUANT_IQ4_NL = 25,
    GGUF_REQUANT_IQ3_S = 26,
    GGUF_REQUANT_IQ3_M = 27,
    GGUF_REQUANT_IQ2_S = 28,
    GGUF_REQUANT_IQ2_M = 29,
    GGUF_REQUANT_IQ4_XS = 30,
    GGUF_REQUANT_IQ1_M = 31,
    GGUF_REQUANT_BF16 = 32,
    /* 33-35 (Q4_0_4_4, Q4_0_4_8, Q4_0_8_8) were removed */
    GGUF_REQUANT_TQ1_0 = 36,
    GGUF_REQUANT_TQ2_0 = 37,
    GGUF_REQUANT_MXFP4_MOE = 38,
    GGUF_REQUANT_NVFP4 = 39,
    GGUF_REQUANT_Q1_0 = 40,
    GGUF_REQUANT_Q2_0 = 41,
    GGUF_REQUANT_FTYPE_COUNT = 42
};

/* A preset's name as llama-quantize spells it ("Q4_K_M", "F32"), a line about it, and the type
 * most of its tensors get (-1 / NULL for values that are no preset). */
GGUF_API const char *gguf_requant_ftype_name(uint32_t ftype);
GGUF_API const char *gguf_requant_ftype_about(uint32_t ftype);
GGUF_API int gguf_requant_ftype_dtype(uint32_t ftype);

/* An importance matrix (llama-imatrix's output). Opaque. */
typedef struct gguf_requant_imatrix gguf_requant_imatrix;

/* Loads an importance matrix: llama-imatrix's GGUF format (tensors NAME.in_sum2 and
 * NAME.counts, keys imatrix.datasets, imatrix.chunk_count, imatrix.chunk_size) or its older
 * binary format. Each tensor's weights are computed as llama-quantize does (sums / count per
 * expert, 1 where the count is 0). Fails with GGUF_EIO, GGUF_ECORRUPT or GGUF_ETRUNC (not an
 * imatrix file, sums without counts, ...), GGUF_ETYPE (sums or counts not F32), GGUF_ENOMEM. */
GGUF_API int gguf_requant_imatrix_load(gguf_requant_imatrix **out, const char *path,
                                       gguf_error *err);
/* Entries (tensors with weights). */
GGUF_API size_t gguf_requant_imatrix_count(const gguf_requant_imatrix *im);
/* A tensor's weights and their count, or NULL; valid until the imatrix is freed. */
GGUF_API const float *gguf_requant_imatrix_find(const gguf_requant_imatrix *im,
                                                const char *name, size_t *n);
/* Keeps only the entries whose name contains one of names[0..n-1] (exclude 0:
 * --include-weights), or drops them (exclude 1: --exclude-weights), as llama-quantize does
 * before it starts. Returns 0, or GGUF_EINVAL without an imatrix, or GGUF_ENOMEM. */
GGUF_API int gguf_requant_imatrix_filter(gguf_requant_imatrix *im, const char *const *names,
                                         size_t n, int exclude, gguf_error *err);
/* NULL is allowed. */
GGUF_API void gguf_requant_imatrix_free(gguf_requant_imatrix *im);

/* --tensor-type REGEX=TYPE: tensors whose name the POSIX extended regular expression matches
 * (anywhere) get the type; the first matching override wins. */
typedef struct gguf_requant_override {
    const char *pattern;
    uint32_t type; /* a gguf_dtype */
} gguf_requant_override;

/* --override-kv KEY=TYPE:VALUE: a key the output gets after llama.cpp's own keys (moved to the
 * end when the file has it), written as llama-quantize writes it: INT as a UINT32 holding the
 * absolute value, FLOAT as a FLOAT32, BOOL, STR. As with llama.cpp's loader, the rules see the
 * first override of general.architecture (STR) and of {arch}.block_count, expert_count,
 * nextn_predict_layers and (when the file holds them as scalars) attention.head_count and
 * head_count_kv (INT) instead of the file's value. */
enum gguf_requant_kv_type {
    GGUF_REQUANT_KV_INT = 0,
    GGUF_REQUANT_KV_FLOAT = 1,
    GGUF_REQUANT_KV_BOOL = 2,
    GGUF_REQUANT_KV_STR = 3
};

typedef struct gguf_requant_kv {
    char key[128];  /* at most 127 bytes */
    int type;       /* a gguf_requant_kv_type */
    int64_t i;      /* INT */
    double f;       /* FLOAT */
    int b;          /* BOOL */
    char s[128];    /* STR: at most 127 bytes */
} gguf_requant_kv;

/* Parses llama-quantize's KEY=TYPE:VALUE: KEY of 1 to 127 bytes, TYPE int (a decimal integer),
 * float (a decimal number), bool (true or false) or str (at most 127 bytes). Unlike
 * llama-quantize, a number with other text after it is refused rather than read up to the
 * text. Returns 0 or GGUF_EINVAL (the message says what is wrong). */
GGUF_API int gguf_requant_kv_parse(gguf_requant_kv *out, const char *text, gguf_error *err);

typedef struct gguf_requant_options {
    uint32_t ftype;          /* the preset: a gguf_requant_ftype */
    int copy;                /* COPY: no tensor changes; general.file_type keeps the source's */
    int pure;                /* no mixture: every tensor that may change gets the preset's type
                                (still falling back when its rows do not fit) */
    int leave_output;        /* output.weight keeps its type */
    int output_type;         /* -1, or the type of output.weight (and of tied embeddings) */
    int token_embd_type;     /* -1, or the type of the token embeddings */
    const gguf_requant_override *overrides;
    size_t n_overrides;
    const gguf_requant_imatrix *imatrix; /* NULL: none */
    int keep_order;          /* 1: tensors in the source's order; 0: llama.cpp's */
    unsigned threads;        /* threads converting tensor data (0 or 1: the writing thread) */
    int allow_requantize;    /* 0: a tensor already quantized (Q4_K, Q8_0, ...; not F16 or BF16)
                                that would change type is refused, as llama.cpp refuses it */
    const gguf_requant_kv *kv_overrides; /* written in order; see gguf_requant_kv */
    size_t n_kv_overrides;
    /* --prune-layers: the tensors of these layers ("blk.N.") are left out, the layers after
     * the first pruned one are numbered again from there in llama.cpp's tensor order, and
     * {arch}.block_count becomes the number of layers kept (the last key). The rules still
     * see the model's own block_count, as llama.cpp's do. Any order; repeats are allowed. */
    const int32_t *prune_layers;
    size_t n_prune_layers;
} gguf_requant_options;

#define GGUF_REQUANT_OPTIONS_INIT                                                               \
    {.ftype = GGUF_REQUANT_Q8_0, .output_type = -1, .token_embd_type = -1, .threads = 1}

/* Sets opt->ftype (and opt->copy, opt->pure) from a name, in any case: a preset ("Q4_K_M",
 * "COPY"), a preset's number as llama-quantize takes it ("15" is Q4_K_M, "0" F32), or a plain
 * tensor type ("Q4_K", "q8_0" when no preset has that name, ...), which then means opt->pure
 * and the preset llama.cpp would report for a file of that type. Returns 0 or GGUF_EINVAL. */
GGUF_API int gguf_requant_parse_type(gguf_requant_options *opt, const char *name,
                                     gguf_error *err);

/* What the policy chose for one tensor. */
typedef struct gguf_requant_choice {
    uint32_t type;     /* its type in the output */
    int allowed;       /* the tensor may change type at all (2-D+, a weight, not a norm, ...) */
    int convert;       /* type differs from the source's: its values are converted */
    int fallback;      /* the wanted type did not fit its rows; type is the fallback */
    int override;      /* 0, or 1 + the index of the --tensor-type override that chose it */
    int imatrix;       /* converted with importance weights */
    size_t position;   /* its place in llama.cpp's tensor order (pruned tensors after the rest) */
    int pruned;        /* left out by opt->prune_layers */
    char name[GGUF_TENSOR_NAME_MAX + 16]; /* its name in the output: the source's, or with its
                                             layer numbered again by opt->prune_layers */
} gguf_requant_choice;

/* Fills out[i] for each tensor i of f (in f's order) without changing anything. Fails with
 * GGUF_EINVAL (bad options or pattern, a type that needs an importance matrix without one, an
 * importance matrix of the wrong size, a row length no fallback fits, a model with experts
 * whose ffn tensor names carry no layer, a quantized tensor that would change type without
 * opt->allow_requantize, a layer number to prune or renumber that is out of range, a name
 * longer than 64 bytes after renumbering) or GGUF_EUNSUPPORTED (a type this build cannot read
 * or quantize). */
GGUF_API int gguf_requant_plan(gguf_requant_choice *out, const gguf_file *f,
                               const gguf_requant_options *opt, gguf_error *err);

/* A requantization in progress: the tensors' sources and a thread pool. Opaque. */
typedef struct gguf_requant gguf_requant;

/* Plans, then edits f: metadata as llama.cpp writes it, the new tensor types, llama.cpp's
 * tensor order (unless opt->keep_order). f must then be written (packed, in its own byte
 * order) with .fill = gguf_requant_fill and .fill_user = *out, without further edits; f, its
 * source and opt->imatrix must outlive *out. On failure f may have been partly edited. */
GGUF_API int gguf_requant_prepare(gguf_requant **out, gguf_file *f,
                                  const gguf_requant_options *opt, gguf_error *err);
/* The fill callback (a gguf_fill_fn; user is the gguf_requant): reads the rows' source bytes
 * (with pread, so memory stays at a few rows per thread), dequantizes them to f32 and quantizes
 * them, spread over opt->threads threads. */
GGUF_API int gguf_requant_fill(void *user, size_t tensor, uint64_t offset, void *buf, size_t len,
                               gguf_error *err);
/* Stops the threads and frees. NULL is allowed. */
GGUF_API void gguf_requant_free(gguf_requant *rq);

/* prepare + gguf_file_save(f, path) + free; progress as in gguf_write_options. */
GGUF_API int gguf_requant_save(gguf_file *f, const char *path, const gguf_requant_options *opt,
                               gguf_progress_fn progress, void *progress_user, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* Verification                                                                                */

/* What llama.cpp would refuse in a file this library accepts: each finding is passed to
 * `report` (user data, message, byte offset or GGUF_ERROR_NO_OFFSET). Returns the number of
 * warnings, or a negative code. */
typedef void (*gguf_warn_fn)(void *user, const char *message, uint64_t offset);
GGUF_API int gguf_file_lint(const gguf_file *f, gguf_warn_fn report, void *user, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* llama.cpp's loader rules                                                                    */
/*
 * What llama.cpp's model loader (llama_model_load_from_file, in the release this library was
 * checked against: ggml 0.23.0) demands of a model, checked from the header alone, without
 * reading tensor data:
 *  - the container: what ggml's reader refuses (v1 files, the other byte order, nested arrays,
 *    duplicate names, data not packed in tensor-info order, ...) and what only the spec asks;
 *  - the architecture (general.architecture) is one llama.cpp knows;
 *  - every key llama.cpp reads has the type it reads it as ({arch}.context_length UINT32, an
 *    epsilon FLOAT32, token ids UINT32, split.count UINT16, ...): llama.cpp refuses another;
 *  - for the architectures covered fully (gguf_llama_arch_support), the required
 *    hyperparameters are present and consistent (block_count in range, head counts and the
 *    rope dimension against the embedding, expert counts against each other), every tensor the
 *    loader creates is present with the shape the hyperparameters give, and no other tensor
 *    is in the file (llama.cpp refuses tensors it does not use);
 *  - the tokenizer: a known tokenizer.ggml.model and pre-tokenizer, merges where BPE needs
 *    them, scores and token types of the right types and at least one per token, no token twice,
 *    special token ids inside the vocabulary (a warning: llama.cpp loads such a file and ignores
 *    the id), a chat template that is a string (a warning);
 *  - general.file_type consistent with the tensor types (a warning).
 * The rules are tables (libgguf/llama/llama_arch.c, llama_vocab.c), one per architecture,
 * written from llama.cpp's names and shapes.
 */

/* How bad a finding is. */
enum gguf_llama_severity {
    GGUF_LLAMA_NOTE = 0,    /* information: something this library does not check, ... */
    GGUF_LLAMA_WARNING = 1, /* llama.cpp loads the file, but something in it is wrong */
    GGUF_LLAMA_ERROR = 2    /* llama.cpp refuses the file (or aborts on it) */
};

typedef struct gguf_llama_finding {
    int severity;        /* a gguf_llama_severity */
    const char *key;     /* the key at fault, or NULL */
    const char *tensor;  /* the tensor at fault, or NULL */
    const char *message; /* what is wrong and what llama.cpp expects, naming the key or tensor */
    size_t shard;        /* the shard (from 0) of a split set the finding is about */
    uint64_t offset;     /* byte offset in that shard, or GGUF_ERROR_NO_OFFSET */
} gguf_llama_finding;

/* Receives each finding; the strings are valid during the call only. */
typedef void (*gguf_llama_finding_fn)(void *user, const gguf_llama_finding *finding);

enum gguf_llama_check_flags {
    /* Check the file as llama.cpp loads it with vocab_only: the container, the architecture's
     * name, general.* and split.* keys and the tokenizer, no hyperparameters or tensors. A
     * model without any tensor is checked this way anyway (with a warning). */
    GGUF_LLAMA_CHECK_VOCAB_ONLY = 1 << 0
};

typedef struct gguf_llama_check_stats {
    unsigned errors, warnings, notes; /* findings by severity */
    int arch_support;                 /* gguf_llama_arch_support of the file's architecture */
} gguf_llama_check_stats;

/* Checks a model: one file, or a split set's view (gguf_file_open with GGUF_OPEN_SPLIT_SET:
 * the first shard's metadata, every shard's tensors, as llama.cpp reads a set). A shard of a set
 * opened alone gets every check but the tensor set's, with a note. A file whose general.type is
 * anything but "model" (an adapter, an mmproj, an imatrix) gets the container checks and a note
 * only. Each finding goes to fn (may be NULL), its shard set to the shard of the tensor it is
 * about (0 otherwise); stats (may be NULL) counts them. Returns 0 when the check ran, whatever
 * it found, or GGUF_EINVAL (f NULL) or GGUF_ENOMEM. */
GGUF_API int gguf_llama_check(gguf_llama_check_stats *stats, const gguf_file *f, unsigned flags,
                              gguf_llama_finding_fn fn, void *user, gguf_error *err);

/* How far the checks go for an architecture name (general.architecture). */
enum gguf_llama_arch_support {
    GGUF_LLAMA_ARCH_UNKNOWN = 0, /* llama.cpp does not know it: it refuses the model */
    GGUF_LLAMA_ARCH_KEYS = 1,    /* known: key types, required keys and the tokenizer checked */
    GGUF_LLAMA_ARCH_FULL = 2     /* also hyperparameter consistency, tensor set and shapes */
};
GGUF_API int gguf_llama_arch_support(const char *arch);
/* Why llama.cpp cannot run a model of this architecture on its own, in a sentence ("a draft
 * head for speculative decoding: ..."), for the architectures it names but refuses (clip, gptj)
 * and those it loads only as a part of something else (draft heads, vocoders, text-to-speech
 * stages); NULL for the others. */
GGUF_API const char *gguf_llama_arch_not_a_model(const char *arch);
/* The architectures llama.cpp knows, by index (0 .. count-1), in its order; NULL past the end. */
GGUF_API const char *gguf_llama_arch_name(size_t i);

/* ------------------------------------------------------------------------------------------ */
/* llama.cpp's memory for a model and a context                                                */
/*
 * The bytes llama.cpp (the release of gguf_llama_check) allocates on its CPU backend to run a
 * model with a context, known from the header alone:
 *  - weights: the tensors it loads (llama_model_size), by token embedding, output and layer;
 *  - context: the KV cache, per layer: K and V rows of the layer's head count and head sizes
 *    in the cache types, for the context padded as llama.cpp pads it (to 256, per sequence
 *    unless unified), sliding-window layers in a cache of their window (unless swa_full), the
 *    latent cache of multi-head latent attention (K only); or the recurrent state of every
 *    sequence (mamba2, rwkv7: r and s rows in f32, per layer);
 *  - compute: the scheduler's buffer for the largest batch (a model of ggml's allocator over
 *    the layer graph: within 10% of llama.cpp's);
 *  - total: their sum.
 * Architectures whose memory this does not know (hybrid models, shared caches) are refused
 * with GGUF_EUNSUPPORTED rather than given a wrong number.
 */

#define GGUF_LLAMA_MAX_LAYERS 512 /* llama.cpp refuses models with more */

enum gguf_llama_flash_attn {
    GGUF_LLAMA_FLASH_ATTN_AUTO = -1, /* on where the backend has it (the CPU has) */
    GGUF_LLAMA_FLASH_ATTN_OFF = 0,
    GGUF_LLAMA_FLASH_ATTN_ON = 1
};

/* The context, with llama-server's option names. */
typedef struct gguf_llama_estimate_params {
    uint32_t n_ctx;          /* -c: tokens of context, 0: the model's training context */
    uint32_t type_k, type_v; /* -ctk, -ctv: cache types (gguf_dtype) */
    uint32_t n_seq;          /* -np: sequences decoded in parallel (1 to 256) */
    uint32_t n_batch;        /* -b: logical batch */
    uint32_t n_ubatch;       /* -ub: physical batch, 0: n_batch */
    int flash_attn;          /* -fa: a gguf_llama_flash_attn */
    int swa_full;            /* --swa-full: sliding-window layers keep the whole context */
    int kv_unified;          /* -kvu: one cache for every sequence */
} gguf_llama_estimate_params;

/* llama-server's defaults: context 0, f16 caches, 4 sequences in a unified cache (its automatic
 * -np), batch 2048, ubatch 512, flash attention auto, no swa_full. */
GGUF_API void gguf_llama_estimate_defaults(gguf_llama_estimate_params *p);

typedef struct gguf_llama_estimate_layer {
    uint64_t weights; /* its blk.N.* tensors */
    uint64_t k, v;    /* its KV cache (V 0 with a latent cache) */
    uint64_t r, s;    /* its recurrent state for every sequence (mamba's conv and ssm
                         states, rwkv's token shift and wkv states), 0 for attention */
    uint32_t cells;   /* KV cells per stream, 0 when the layer keeps no cache */
    int swa;          /* 1: a sliding-window layer */
} gguf_llama_estimate_layer;

typedef struct gguf_llama_estimate {
    /* the parameters as llama.cpp resolves them: n_ctx padded (and the training context for
     * 0), n_batch and n_ubatch clamped to it; flash_attn as given (AUTO stays AUTO) */
    gguf_llama_estimate_params params;
    int flash_attn_used;     /* 1 when attention runs flash (AUTO on the CPU) */
    uint32_t n_ctx_seq;      /* cells per sequence (n_ctx when unified) */
    uint32_t n_ctx_train;
    uint32_t n_swa_cells;    /* cells of the sliding-window cache, 0 without one */
    uint64_t weights, weights_token_embd, weights_output, weights_other;
    uint64_t context, compute, total;
    uint32_t n_layer;        /* layers in layer[] (block_count) */
    gguf_llama_estimate_layer layer[GGUF_LLAMA_MAX_LAYERS];
} gguf_llama_estimate;

/* Estimates f (a model, or a split set's view) with the context p (NULL: the defaults). Returns
 * 0, GGUF_EINVAL (f NULL, or parameters llama.cpp refuses for this model: a quantized V cache
 * without flash attention, a cache type whose block does not divide a head, ...),
 * GGUF_EUNSUPPORTED (an architecture whose memory this does not know), or GGUF_ECORRUPT (the
 * hyperparameters it needs are missing or out of range). */
GGUF_API int gguf_llama_estimate_run(gguf_llama_estimate *out, const gguf_file *f,
                                     const gguf_llama_estimate_params *p, gguf_error *err);

/* ------------------------------------------------------------------------------------------ */
/* A model in one line                                                                          */

/* What people look for first in a model, as llama.cpp counts it. */
typedef struct gguf_llama_summary {
    char arch[64];           /* general.architecture ("" when absent) */
    uint64_t n_params;       /* llama_model_n_params: the elements of every tensor (UINT64_MAX:
                                past 64 bits) */
    uint64_t weight_bytes;   /* llama_model_size: the bytes of every tensor (UINT64_MAX: a
                                tensor of an unknown type) */
    uint32_t file_type;      /* general.file_type, or the loader's guess from the most common
                                tensor type when absent */
    int file_type_guessed;   /* 1: guessed (llama.cpp shows "(guessed)") */
    const char *file_type_name; /* llama-quantize's name ("Q4_K_M"), NULL: not one of
                                   llama.cpp's */
    uint32_t n_ctx_train;    /* {arch}.context_length, 0 when absent */
    int has_kv;              /* 1: the KV figures are known (the estimate knows the
                                architecture's memory) */
    uint64_t kv_bytes_token;     /* the f16 KV cache's bytes per token, full-attention layers */
    uint64_t kv_bytes_token_swa; /* ... sliding-window layers (they keep at most their window) */
    uint32_t n_swa;              /* the window, 0 without sliding-window layers */
    uint64_t state_bytes;        /* the recurrent state per sequence (mamba, rwkv), 0 without */
} gguf_llama_summary;

/* Fills s from f's header (a model, a split set's view, a vocabulary). Returns 0 or
 * GGUF_EINVAL (s or f NULL) / GGUF_ENOMEM; what it cannot know is marked as such in s. */
GGUF_API int gguf_llama_summary_read(gguf_llama_summary *s, const gguf_file *f, gguf_error *err);

/* bits per weight as llama.cpp prints them: weight_bytes * 8 / n_params (0 without tensors). */
GGUF_API double gguf_llama_summary_bpw(const gguf_llama_summary *s);

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_H */
