/* The options structs as a program built against an older header has them: each is today's
 * struct as it was before its latest fields were added (gguf_open_options before deadline_s,
 * gguf_write_options before reserve, gguf_split_options before fill and fill_user,
 * gguf_catalog_index_options before jobs, gguf_requant_options before prune_layers; and
 * gguf_llama_estimate_params without kv_unified, which stands for a field it may gain). Frozen:
 * never edit these to follow the header; tests/lib/base/check_abi.c holds the library to them. */
#ifndef GGUF_ABI_OLDER_OPTIONS_H
#define GGUF_ABI_OLDER_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

typedef struct older_open_options {
    size_t size;
    unsigned flags;
    const char *const *headers;
    int offline;
    unsigned timeout_s;
    int retries;
    unsigned retry_delay_ms;
    uint64_t whole_limit;
    void (*progress)(void *user, uint64_t fetched, uint64_t size);
    void *progress_user;
    uint64_t keep_bytes;
} older_open_options;

typedef struct older_write_options {
    size_t size;
    uint32_t version;
    int endian;
    int layout;
    unsigned threads;
    void (*progress)(void *user, uint64_t done, uint64_t total);
    void *progress_user;
    int verify;
    int no_in_place;
    void *fill; /* a gguf_fill_fn */
    void *fill_user;
} older_write_options;

typedef struct older_split_options {
    size_t size;
    int mode;
    uint64_t max_tensors;
    uint64_t max_bytes;
    int no_tensor_first;
    void (*progress)(void *user, uint64_t done, uint64_t total);
    void *progress_user;
    int quantize_keys;
} older_split_options;

typedef struct older_catalog_index_options {
    size_t size;
    unsigned flags;
    unsigned open_flags;
    uint64_t array_max;
    void *on_event; /* a gguf_catalog_event_fn */
    void *user;
} older_catalog_index_options;

typedef struct older_requant_options {
    size_t size;
    uint32_t ftype;
    int copy;
    int pure;
    int leave_output;
    int output_type;
    int token_embd_type;
    const void *overrides;
    size_t n_overrides;
    const void *imatrix;
    int keep_order;
    unsigned threads;
    int allow_requantize;
    const void *kv_overrides;
    size_t n_kv_overrides;
} older_requant_options;

typedef struct older_llama_estimate_params {
    size_t size;
    uint32_t n_ctx;
    uint32_t type_k, type_v;
    uint32_t n_seq;
    uint32_t n_batch;
    uint32_t n_ubatch;
    int flash_attn;
    int swa_full;
} older_llama_estimate_params;

#endif
