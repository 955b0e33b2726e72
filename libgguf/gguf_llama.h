/*
 * libgguf: llama.cpp's loader rules, memory estimates and model summaries.
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_LLAMA_H
#define LIBGGUF_GGUF_LLAMA_H

#include "gguf_format.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 *    latent cache of multi-head latent attention (K only), deepseek4's compressed caches;
 *    or the recurrent state of every sequence (mamba2, rwkv7: r and s rows in f32, per
 *    layer);
 *  - compute: the scheduler's buffer for the largest batch: for llama, qwen2, qwen3, qwen3moe,
 *    gemma3, phimoe, gemma4, plamo2 and bailingmoe3 a replay of ggml's allocator over a model
 *    of llama.cpp's graph (equal to llama.cpp's), for the others a model of the tensors the
 *    allocator keeps alive at once (within 10% of llama.cpp's);
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

/* The context, with llama-server's option names (see "Options structs" in gguf_base.h). */
typedef struct gguf_llama_estimate_params {
    size_t size;             /* sizeof as the caller was built: set by the _INIT macro */
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
#define GGUF_LLAMA_ESTIMATE_PARAMS_INIT                                                        \
    {.size = sizeof(gguf_llama_estimate_params), .n_ctx = 0, .type_k = GGUF_DTYPE_F16,        \
     .type_v = GGUF_DTYPE_F16, .n_seq = 4, .n_batch = 2048, .n_ubatch = 512,                  \
     .flash_attn = GGUF_LLAMA_FLASH_ATTN_AUTO, .swa_full = 0, .kv_unified = 1}

/* Sets the fields p->size covers to GGUF_LLAMA_ESTIMATE_PARAMS_INIT's (for bindings, which
 * cannot use the macro), keeping p->size. Returns 0, or GGUF_EINVAL for a size no
 * gguf_llama_estimate_params has (see "Options structs" in gguf_base.h). */
GGUF_API int gguf_llama_estimate_defaults(gguf_llama_estimate_params *p, gguf_error *err);

typedef struct gguf_llama_estimate_layer {
    uint64_t weights; /* its blk.N.* tensors */
    uint64_t k, v;    /* its KV cache (V 0 with a latent cache; K includes a sparse-attention
                         indexer's key cache, and deepseek4's compressed keys) */
    uint64_t r, s;    /* its recurrent state for every sequence (mamba's conv and ssm
                         states, rwkv's token shift and wkv states; deepseek4's compressor
                         states in s), 0 for attention */
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

#endif /* LIBGGUF_GGUF_LLAMA_H */
