/*
 * libgguf: writing split sets and merging them.
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_SPLIT_H
#define LIBGGUF_GGUF_SPLIT_H

#include "gguf_write.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* Options of a split (see "Options structs" in gguf_base.h). */
typedef struct gguf_split_options {
    size_t size;              /* sizeof as the caller was built: set by the _INIT macro */
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
#define GGUF_SPLIT_OPTIONS_INIT                                                                \
    {.size = sizeof(gguf_split_options), .mode = GGUF_SPLIT_BY_TENSORS, .max_tensors = 128}

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
 * libgguf/split/merge_delete.c). A crash at any moment leaves the whole model, in the shards or in
 * the merged file, and calling this again finishes the merge. The bytes of out are those of
 * gguf_split_merge_save. Fails with GGUF_EEXIST when out exists (unless a merge of this set
 * produced it and only cleaning up is left), GGUF_EINVAL when out is on another filesystem
 * or the name is not a shard's, GGUF_ELIMIT when the merged header leaves no room for the
 * merge's reserve key, GGUF_EIO when another merge runs in the same folder, and as
 * gguf_file_open for a broken set. res may be NULL. */
GGUF_API int gguf_split_merge_delete(gguf_split_merge_result *res, const char *shard,
                                     const char *out, gguf_progress_fn progress,
                                     void *progress_user, gguf_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_SPLIT_H */
