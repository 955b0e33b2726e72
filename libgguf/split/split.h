/* The split layer: a model written as a split set, and a split set merged into one file, as
 * llama.cpp's llama-gguf-split does (same bytes). Stands on commit/ (each file is saved
 * atomically; the merge that deletes its shards goes through the journal). Not installed. */
#ifndef LIBGGUF_SPLIT_H
#define LIBGGUF_SPLIT_H

#include "commit/commit.h"

/* The split keys, as llama.cpp names them. */
#define GGUF__KEY_SPLIT_NO "split.no"
#define GGUF__KEY_SPLIT_COUNT "split.count"
#define GGUF__KEY_SPLIT_TENSORS "split.tensors.count"

/* llama-gguf-split pads every tensor to ggml's default alignment, whatever the file says. */
#define GGUF__SPLIT_ALIGN 32

/* split.c: sets the split keys on f (each removed, then added at the end, as ggml's setters
 * do): llama-gguf-split's order split.no (UINT16), split.tensors.count (INT32), split.count
 * (UINT16), or with quantize_order llama-quantize's: split.no, split.count,
 * split.tensors.count. */
GGUF_HIDDEN int gguf__split_set_keys(gguf_file *f, uint32_t no, uint32_t count,
                                     uint64_t tensors, bool quantize_order, gguf_error *err);

/* merge.c: the view of a set that is its merge: the set's keys with split.count moved to the
 * end and set to 0 (as llama-gguf-split leaves them), every tensor with ggml's n_dims, GGUF v3.
 * Borrows set. merge_delete.c's merge writes it too. */
GGUF_HIDDEN int gguf__merge_view(gguf_file **out, const gguf_file *set, gguf_error *err);

#endif /* LIBGGUF_SPLIT_H */
