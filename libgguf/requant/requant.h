/* The requant layer: requantization the way llama.cpp's quantizer (llama_model_quantize) does
 * it. Stands on commit/ (and quant/ for the kernels). Not installed.
 *
 *   presets.c         the presets (llama/'s llama_ftype table): parsing a TYPE argument
 *   category.c        what a tensor is from its name: category, layer, may it change type at all
 *   kv_override.c     --override-kv: parsing, writing, what the model's reading sees
 *   model.c           the model as far as the rules look at it (architecture, layers, heads)
 *   prune.c           --prune-layers: which tensors go, how the layers after them are renamed
 *   rules.c           the mixture rules as tables, and their evaluation for one tensor
 *   imatrix.c         the importance matrix: its entries, found by name through a hash set
 *   imatrix_gguf.c    llama-imatrix's GGUF format          imatrix_legacy.c  its older format
 *   imatrix_load.c    which of the two a file is
 *   plan.c            every tensor's type, in llama.cpp's tensor order
 *   run.c             the data: the fill callback, per-thread scratch, the thread pool
 *   prepare.c         the output's metadata and tensor infos; prepare + save
 */
#ifndef LIBGGUF_REQUANT_H
#define LIBGGUF_REQUANT_H

#include "commit/commit.h"
#include "llama/llama.h"

#define GGUF__QNT_VERSION 2         /* ggml's GGML_QNT_VERSION: general.quantization_version */

/* ---- presets (presets.c) ---- */

/* Whether ftype is a preset, and the type most of its tensors get. */
GGUF_HIDDEN bool gguf__requant_preset_valid(uint32_t ftype);
GGUF_HIDDEN uint32_t gguf__requant_preset_dtype(uint32_t ftype);

/* ---- tensor categories (category.c) ---- */

enum gguf__requant_cat {
    GGUF__CAT_OTHER,
    GGUF__CAT_TOKEN_EMBD,      /* token_embd.weight, per_layer_token_embd.weight */
    GGUF__CAT_TOKEN_EMBD_TIED, /* the same, in a model without output.weight (tied to it) */
    GGUF__CAT_OUTPUT,          /* output.weight */
    GGUF__CAT_ATTN_Q,
    GGUF__CAT_ATTN_K,
    GGUF__CAT_ATTN_V,
    GGUF__CAT_ATTN_QKV,
    GGUF__CAT_ATTN_KV_B,
    GGUF__CAT_ATTN_OUTPUT,
    GGUF__CAT_FFN_UP,
    GGUF__CAT_FFN_GATE,
    GGUF__CAT_FFN_DOWN,
    GGUF__CAT_COUNT
};

/* Categories counted as attn_v (llama.cpp's n_attention_wv). */
#define GGUF__CATS_ATTN_V_LIKE                                                                 \
    ((1u << GGUF__CAT_ATTN_V) | (1u << GGUF__CAT_ATTN_QKV) | (1u << GGUF__CAT_ATTN_KV_B))

GGUF_HIDDEN enum gguf__requant_cat gguf__requant_category(const char *name);
/* Whether a tensor may change type at all (2-D+, a weight, not a norm, ...). */
GGUF_HIDDEN bool gguf__requant_allowed(const char *name, const gguf_tensor_info *ti,
                                       const gguf_requant_options *opt);
/* Whether the tensor's new type needs an importance matrix (llama.cpp's list). */
GGUF_HIDDEN bool gguf__requant_needs_imatrix(const char *name, uint32_t dtype, uint32_t ftype);
/* "blk.%d." as sscanf reads it at the start of name: the number (false when there is none). */
GGUF_HIDDEN bool gguf__requant_blk_number(const char *name, int *out);

/* ---- the model (model.c) ---- */

typedef struct gguf__requant_model {
    char arch[64];
    bool falcon, bailingmoe3;
    bool is_70b;       /* llama.cpp's LLM_TYPE_70B (its attn_v gets more bits) */
    uint32_t n_layer;  /* {arch}.block_count */
    uint32_t n_gqa;    /* head_count / head_count_kv of layer 0 (0 without heads) */
    uint32_t n_expert; /* {arch}.expert_count */
} gguf__requant_model;

/* Reads the model from f's keys, or from the first override of a key of the type llama.cpp's
 * loader expects for it. */
GGUF_HIDDEN void gguf__requant_read_model(gguf__requant_model *m, const gguf_file *f,
                                          const gguf_requant_options *opt);

/* ---- key overrides (kv_override.c) ---- */

/* Writes opt's key overrides into f, in order. */
GGUF_HIDDEN int gguf__requant_kv_write(gguf_file *f, const gguf_requant_options *opt,
                                       gguf_error *err);
/* The first override of key, if it has this type (a gguf_requant_kv_type); else NULL. */
GGUF_HIDDEN const gguf_requant_kv *gguf__requant_kv_find(const gguf_requant_options *opt,
                                                         const char *key, int type);

/* ---- layer pruning (prune.c) ---- */

/* For the n tensors named names[] (taken in llama.cpp's order[]), sets out[i] to tensor i's
 * name in the output (an allocation) or NULL when its layer is pruned, and *n_layers to the
 * layers kept. Fails with GGUF_EINVAL (a negative layer to prune, a layer number past INT_MAX,
 * a new name over 64 bytes) or GGUF_ENOMEM; out[] is then the caller's to free. */
GGUF_HIDDEN int gguf__requant_prune(char **out, uint32_t *n_layers, char *const *names,
                                    const size_t *order, size_t n,
                                    const gguf_requant_options *opt, gguf_error *err);

/* ---- the mixture rules (rules.c) ---- */

/* Counters llama.cpp advances in its tensor order (some rules depend on them). */
enum gguf__requant_counter {
    GGUF__CNT_NONE, GGUF__CNT_WV, GGUF__CNT_DOWN, GGUF__CNT_GATE, GGUF__CNT_UP, GGUF__CNT_COUNT
};

/* What the rules read besides the tensor; the counters change as tensors are evaluated. */
typedef struct gguf__requant_policy {
    const gguf_requant_options *opt;
    gguf__requant_model m;
    uint32_t def;     /* the preset's default type */
    bool tied;        /* no output.weight: the token embeddings are the output too */
    bool has_imatrix;
    int n_wv;         /* attn_v-like tensors */
    int cnt[GGUF__CNT_COUNT];
} gguf__requant_policy;

/* The tensor being evaluated. */
typedef struct gguf__requant_tensor {
    const char *name;
    const gguf_tensor_info *ti;
    enum gguf__requant_cat cat;
    int i_layer, n_layer;
    int count;    /* the group's counter before this tensor */
    uint32_t cur; /* the type chosen so far */
} gguf__requant_tensor;

/* The mixture for one tensor: s->cur becomes its type. Fails (GGUF_EINVAL) only for a model
 * with experts whose ffn tensor names carry no layer. */
GGUF_HIDDEN int gguf__requant_mixture(gguf__requant_policy *p, gguf__requant_tensor *s,
                                      gguf_error *err);
/* A type whose block does not divide the row length falls back to another (*fell set). */
GGUF_HIDDEN int gguf__requant_fallback(uint32_t *type, const char *name, uint64_t ncols,
                                       bool *fell, gguf_error *err);

/* ---- importance matrices (imatrix*.c) ---- */

typedef struct gguf__imatrix_entry {
    char *name;
    size_t name_len;
    float *w; /* per column (and per expert) weights, as llama-quantize computes them */
    size_t n;
} gguf__imatrix_entry;

struct gguf_requant_imatrix {
    gguf__imatrix_entry *e; /* in the order of the file */
    size_t n, cap;
    gguf__hashset by_name; /* indices into e */
    char *path;            /* as given */
    char *dataset;         /* the first dataset name, or NULL */
    uint32_t chunk_count;
};

/* An empty matrix named after path. Returns 0 or GGUF_ENOMEM. */
GGUF_HIDDEN int gguf__imatrix_new(gguf_requant_imatrix **out, const char *path,
                                  gguf_error *err);
/* Room for n entries (a hint from the file, bounded by its size by the caller): no growing
 * while they are put. Only before the first put. */
GGUF_HIDDEN int gguf__imatrix_reserve(gguf_requant_imatrix *im, size_t n, gguf_error *err);
/* Adds an entry, or for a name seen before replaces its weights; takes w (freed on failure). */
GGUF_HIDDEN int gguf__imatrix_put(gguf_requant_imatrix *im, const char *name, size_t name_len,
                                  float *w, size_t n, gguf_error *err);
GGUF_HIDDEN const gguf__imatrix_entry *gguf__imatrix_lookup(const gguf_requant_imatrix *im,
                                                            const char *name);
GGUF_HIDDEN int gguf__imatrix_set_dataset(gguf_requant_imatrix *im, const char *s, size_t len,
                                          gguf_error *err);
/* The two formats' loaders, filling an empty matrix. */
GGUF_HIDDEN int gguf__imatrix_load_gguf(gguf_requant_imatrix *im, const char *path,
                                        gguf_error *err);
GGUF_HIDDEN int gguf__imatrix_load_legacy(gguf_requant_imatrix *im, const uint8_t *p,
                                          size_t size, const char *path, gguf_error *err);

/* ---- the plan (plan.c) ---- */

/* What the plan learnt besides the choices. */
typedef struct gguf__requant_plan_info {
    char arch[64];          /* the architecture the rules saw */
    uint32_t n_layers_kept; /* with layers to prune: the layers left */
} gguf__requant_plan_info;

/* gguf_requant_plan, and what it learnt (info may be NULL). */
GGUF_HIDDEN int gguf__requant_plan(gguf_requant_choice *out, gguf__requant_plan_info *info,
                                   const gguf_file *f, const gguf_requant_options *opt,
                                   gguf_error *err);

/* ---- the data (run.c) ---- */

/* One tensor of the output, as the fill callback needs it. */
typedef struct gguf__requant_job {
    bool convert;            /* bytes come from fill */
    uint32_t src_type, dst_type;
    uint64_t src_offset;     /* absolute, in the source */
    int64_t n_per_row;
    int64_t rows_per_expert; /* dims[1] */
    size_t src_row, dst_row; /* bytes per row */
    const float *imatrix;    /* dims[0] * dims[2] weights, or NULL */
    char name[72];
} gguf__requant_job;

/* A requantization in progress: one job per output tensor (in the output's order), a pool
 * made on first use, and each worker's scratch. */
GGUF_HIDDEN gguf_requant *gguf__requant_new(const gguf_file *f, size_t n_tensors,
                                            unsigned threads);
/* The job of output tensor i (i < n_tensors). */
GGUF_HIDDEN gguf__requant_job *gguf__requant_jobs(gguf_requant *rq);
/* Only the first n jobs are the output's (the rest were pruned). */
GGUF_HIDDEN void gguf__requant_keep(gguf_requant *rq, size_t n);

#endif /* LIBGGUF_REQUANT_H */
