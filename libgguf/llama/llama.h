/* llama.cpp's loader rules as data: the tables (llama_arch.c, llama_vocab.c, llama_ftype.c),
 * the small expression language their shapes and conditions are written in (llama_expr.c),
 * and the checker that applies them (llama_check.c). Private to the library. */
#ifndef LIBGGUF_LLAMA_LLAMA_H
#define LIBGGUF_LLAMA_LLAMA_H

#include "format/format.h"

/* ---- expressions (llama_expr.c) ----
 * Shapes, conditions and defaults are C-like integer expressions over named hyperparameters:
 * "E", "DK*H", "FFE ? FFE : FF/XU", "MOEN > 0 && i % MOEN == 1". Operators: ?: || && == != <
 * <= > >= + - * / % ! unary -, parentheses, decimal numbers, `i` (the layer), symbols (letters,
 * digits, '_'), and defined(SYM) (1 when the symbol's key is in the file). Arithmetic is int64
 * and checked: overflow, division by zero and a symbol without a value make the whole
 * expression undefined, and an undefined expression never produces a finding. */

/* Resolves a symbol: returns 0 and sets *v, 1 when the symbol has no value (undefined), -1 when
 * no symbol has that name (a bug in a table). `defined` asks whether the symbol's key is in the
 * file instead (its value is then 0 or 1). */
typedef int (*gguf__llama_sym_fn)(void *ctx, const char *name, size_t len, int defined,
                                  int64_t *v);

/* Evaluates expr at layer `layer`. Returns 0 and sets *out, 1 when undefined, -1 on a syntax
 * error or an unknown symbol. */
GGUF_HIDDEN int gguf__llama_eval(int64_t *out, const char *expr, int64_t layer,
                                 gguf__llama_sym_fn sym, void *ctx);

/* Writes expr into buf with each symbol replaced by name_of(symbol) when it gives one (so that
 * a message can say "[llama.embedding_length, head_size*llama.attention.head_count]"). */
typedef const char *(*gguf__llama_name_fn)(void *ctx, const char *name, size_t len);
GGUF_HIDDEN void gguf__llama_expr_explain(char *buf, size_t size, const char *expr,
                                          gguf__llama_name_fn name_of, void *ctx);

/* ---- keys ---- */

/* How llama.cpp reads a key. */
enum gguf__llama_form {
    GGUF__LK_SCALAR = 0,   /* get_key: exactly `type`, anything else is refused */
    GGUF__LK_PER_LAYER,    /* get_key_or_arr: a scalar of `type`, or an array of one element
                              per layer (block_count) of a type the element type accepts */
    GGUF__LK_ARRAY,        /* get_arr: an array of a type `type` accepts; a key that is not an
                              array is ignored unless required */
    GGUF__LK_SCALAR_OR_IGNORED /* a scalar of `type`; an array is ignored (a uint32 read
                                  through get_key_or_arr) */
};

enum gguf__llama_key_flags {
    GGUF__LK_REQUIRED = 1 << 0, /* llama.cpp refuses the model without it */
    GGUF__LK_GLOBAL = 1 << 1,   /* the name is the whole key, not "{arch}." + name */
    GGUF__LK_ANY_LENGTH = 1 << 2 /* PER_LAYER arrays of another length than block_count are
                                    not refused (read with another count) */
};

typedef struct gguf__llama_key {
    const char *name;  /* "attention.layer_norm_rms_epsilon" (after "{arch}.") */
    uint8_t type;      /* the GGUF type llama.cpp reads it as (element type for arrays) */
    uint8_t form;      /* a gguf__llama_form */
    uint8_t flags;     /* gguf__llama_key_flags */
    const char *sym;   /* the hyperparameter symbol it sets (layer 0's value), or NULL */
    const char *dflt;  /* the symbol's value when the key is absent (an expression), or NULL */
    const char *when;  /* read only when this holds (an expression), or NULL: always */
    const char *values; /* STRING keys: the values llama.cpp accepts, '|'-separated (another
                           makes it abort); the symbol is then the value's index */
} gguf__llama_key;

/* A symbol defined by an expression over others ("DK", "SWA0 ? DKS : DKF"). */
typedef struct gguf__llama_sym {
    const char *name;
    const char *expr;
    const char *about; /* how a message names it ("head size"), or NULL */
} gguf__llama_sym;

/* A condition on the hyperparameters that llama.cpp enforces. */
typedef struct gguf__llama_rule {
    const char *expr;    /* must hold (undefined: not judged) */
    const char *when;    /* checked only when this holds, or NULL */
    const char *key;     /* the key named at fault (after "{arch}." unless it has a dot
                            prefix of its own: "tokenizer.", "general.") */
    int severity;        /* a gguf_llama_severity */
    const char *message; /* what llama.cpp does */
    uint8_t layers;      /* 0: judged once; GGUF__LT_LAYER or GGUF__LT_ALL_LAYERS: at each layer
                            (below L, or NL), where the layer symbols (CR_i, ...) have values */
} gguf__llama_rule;

/* ---- tensors ---- */

enum gguf__llama_tensor_flags {
    GGUF__LT_OPTIONAL = 1 << 0, /* TENSOR_NOT_REQUIRED: may be absent (a wrong shape is still
                                   refused) */
    GGUF__LT_LAYER = 1 << 1,    /* one per layer: the name holds %d */
    GGUF__LT_ALL_LAYERS = 1 << 2, /* per layer over block_count including nextn layers */
    GGUF__LT_RESHAPE = 1 << 3     /* TENSOR_ALLOW_RESHAPE: any shape of as many elements */
};

typedef struct gguf__llama_tensor {
    const char *name;       /* "blk.%d.attn_q.weight" */
    const char *dims[4];    /* shape expressions, ggml order (ne0 first); NULL ends */
    uint8_t flags;          /* gguf__llama_tensor_flags */
    const char *when;       /* created only when this holds, or NULL */
    const char *if_present; /* created only when this tensor (same layer) is in the file */
    const char *if_absent;  /* created only when this tensor (same layer) is not */
    const char *alt_dims[4]; /* a second shape llama.cpp accepts (it retries with it when the
                                first is refused, or the graph takes either), or {NULL} */
} gguf__llama_tensor;

/* An architecture llama.cpp knows. */
typedef struct gguf__llama_arch {
    const char *name;                    /* general.architecture */
    const gguf__llama_key *keys;         /* its own keys (after the generic ones), or NULL */
    const gguf__llama_sym *syms;         /* its derived symbols (before the generic ones) */
    const gguf__llama_rule *rules;       /* its hyperparameter rules */
    const gguf__llama_tensor *tensors;   /* NULL: tensors not checked (keys only) */
    const char *mtp_probe;               /* nextn layers optional when this tensor (at layer
                                            n_layer) is absent, or NULL */
    int refused;                         /* llama.cpp knows the name but cannot load it as a
                                            model (clip) */
    const char *not_a_model;             /* why what it loads is no model on its own (a draft
                                            head, a vocoder, a text-to-speech part; clip and
                                            gptj, refused), or NULL */
} gguf__llama_arch;

/* llama_arch.c: the tables. */
GGUF_HIDDEN const gguf__llama_arch *gguf__llama_arch_find(const char *name, size_t len);
GGUF_HIDDEN extern const gguf__llama_arch gguf__llama_archs[];
GGUF_HIDDEN extern const size_t gguf__llama_n_archs;
/* Keys every architecture reads (load_hparams), symbols and rules every architecture has. */
GGUF_HIDDEN extern const gguf__llama_key gguf__llama_generic_keys[];
GGUF_HIDDEN extern const gguf__llama_sym gguf__llama_generic_syms[];
GGUF_HIDDEN extern const gguf__llama_rule gguf__llama_generic_rules[];
/* Tensors every fully covered architecture may have (per-tensor scales). */
GGUF_HIDDEN extern const gguf__llama_tensor gguf__llama_generic_tensors[];
/* Keys read whatever the load (the loader's constructor, general.name). */
GGUF_HIDDEN extern const gguf__llama_key gguf__llama_file_keys[];

/* ---- file types (llama_ftype.c) ---- */

/* A value of llama.cpp's enum llama_ftype (general.file_type). */
typedef struct gguf__llama_ftype {
    uint32_t id;
    const char *name;    /* llama-quantize's name ("Q4_K_M"); for the ids llama.cpp no longer
                            writes, the enum's name without LLAMA_FTYPE_MOSTLY_ */
    int dtype;           /* llama_model_quantize's default tensor type, or -1: llama.cpp cannot
                            write this file type */
    const char *display; /* llama_ftype_name ("Q4_K - Medium"), or NULL: llama.cpp shows
                            "unknown, may not work" */
} gguf__llama_ftype;
#define GGUF__LLAMA_FTYPE_GUESSED 1024u /* a flag: the loader guessed it from the tensors */
GGUF_HIDDEN extern const gguf__llama_ftype gguf__llama_ftypes[];
GGUF_HIDDEN extern const size_t gguf__llama_n_ftypes;
/* The row of a file type, or NULL when llama.cpp's enum has no such value. */
GGUF_HIDDEN const gguf__llama_ftype *gguf__llama_ftype_find(uint32_t id);
/* The file type the loader guesses from a file's most common tensor type (0, ALL_F32, for a
 * type it has no guess for). */
GGUF_HIDDEN uint32_t gguf__llama_ftype_guess(uint32_t dtype);

/* ---- hyperparameters (llama_hparams.c) ---- */

#define GGUF__LLAMA_MAX_LAYERS 512 /* LLAMA_MAX_LAYERS: llama.cpp refuses more */

/* What llama.cpp's loader reads into llama_hparams, for the checks and estimates that need
 * numbers rather than rules. Per-layer arrays hold block_count entries (a scalar key gives
 * every layer the same value). */
typedef struct gguf__llama_hparams {
    char arch[64];
    uint32_t n_ctx_train, n_embd;
    uint32_t n_layer_all;   /* block_count */
    uint32_t n_layer_nextn; /* nextn_predict_layers (next-token prediction layers at the end) */
    uint32_t n_layer;       /* the layers that run: n_layer_all - n_layer_nextn */
    uint32_t n_head[GGUF__LLAMA_MAX_LAYERS], n_head_kv[GGUF__LLAMA_MAX_LAYERS];
    uint32_t n_ff[GGUF__LLAMA_MAX_LAYERS];
    uint32_t n_embd_head_k, n_embd_head_v;         /* key_length, value_length (E/H) */
    uint32_t n_embd_head_k_swa, n_embd_head_v_swa; /* their _swa forms */
    /* experts */
    uint32_t n_expert, n_expert_used[GGUF__LLAMA_MAX_LAYERS], n_ff_exp[GGUF__LLAMA_MAX_LAYERS];
    uint32_t n_expert_shared, n_ff_shexp, n_expert_groups, n_group_used;
    uint32_t n_layer_dense_lead; /* leading_dense_block_count: the first layers have no experts */
    uint32_t moe_every_n_layers; /* moe_every_n_layers or interleave_moe_layer_step, 0: none */
    /* multi-head latent attention */
    uint32_t n_lora_q, n_lora_kv, n_embd_head_k_mla, n_embd_head_v_mla;
    /* sliding-window attention */
    uint32_t n_swa;      /* the window (the architecture's default when the key is absent) */
    uint32_t swa_period; /* the pattern's period, 0 when given per layer or absent */
    uint8_t is_swa[GGUF__LLAMA_MAX_LAYERS];
    /* the first layer that keeps no cache of its own (n_layer_all when every layer keeps one) */
    uint32_t n_layer_kv_from_start;
    /* recurrent layers (mamba's ssm, rwkv's wkv) */
    int is_recurrent_model; /* every layer recurrent (llm_arch_is_recurrent) */
    int is_hybrid;          /* some layers recurrent, some attention (llm_arch_is_hybrid) */
    uint8_t is_recr[GGUF__LLAMA_MAX_LAYERS];
    uint32_t ssm_d_conv, ssm_d_inner, ssm_d_state, ssm_dt_rank, ssm_n_group, wkv_head_size;
    uint32_t token_shift_count; /* rwkv: token_shift_count (default 2) */
    uint32_t shortconv_l_cache; /* lfm2's short convolutions: shortconv.l_cache */
    uint32_t kda_head_dim;      /* kimi's delta-attention heads: kda.head_dim */
    uint32_t indexer_head_size; /* a sparse-attention indexer's keys: indexer.key_length */
    uint32_t indexer_block_size; /* block-sparse attention's blocks of positions:
                                    indexer.block_size */
    uint32_t indexer_n_head;     /* the indexer's query heads: indexer.head_count */
    uint32_t indexer_top_k;     /* the cells it picks per token: indexer.top_k */
    uint32_t hc_count;          /* hyper_connection.count: streams of the residual (deepseek4) */
    /* attention.indexer.types (glm-dsa, dots3note) */
    uint8_t is_indexer_full[GGUF__LLAMA_MAX_LAYERS];
    /* qwen4exp's n-gram embeddings: the values of their convolution's history (0: none),
       kept in the recurrent state of the layer ple.layers names */
    uint64_t ple_conv_state;
    uint32_t ple_layer;
    /* deepseek4's attention.compress_ratios: each layer's key/value compression (0: none) */
    uint32_t compress_ratio[GGUF__LLAMA_MAX_LAYERS];
} gguf__llama_hparams;

/* An override of an integer key (llama.cpp's --override-kv): returns 1 and sets *v when `key`
 * is overridden. */
typedef int (*gguf__llama_override_fn)(void *user, const char *key, int64_t *v);

/* Reads f's hyperparameters as llama.cpp's loader does, for architecture `arch` (NULL: f's
 * general.architecture). A key that is absent or of a type llama.cpp would refuse reads as
 * absent (the checker reports it); the reader never fails. override may be NULL. */
GGUF_HIDDEN void gguf__llama_hparams_read(gguf__llama_hparams *hp, const gguf_file *f,
                                          const char *arch, gguf__llama_override_fn override,
                                          void *user);

/* A boolean key "{arch}.suffix" of f, or dflt when it is absent or not a bool (for the few
 * flags the estimate reads that llama_hparams does not keep). */
GGUF_HIDDEN int gguf__llama_arch_bool(const gguf_file *f, const char *arch, const char *suffix,
                                      int dflt);

/* ---- memory (llama_estimate.c) ---- */

/* The KV cache's bytes per token of context at f16 (flash attention's layout, one sequence):
 * full-attention layers and sliding-window layers apart, and the window; and the recurrent
 * state's bytes per sequence. */
typedef struct gguf__llama_kv_token {
    uint64_t full, swa;
    uint32_t n_swa; /* 0: no sliding-window layers */
    uint64_t state;
} gguf__llama_kv_token;
/* Returns 0, 1 when the estimate does not know the memory of hp's architecture (or its
 * hyperparameters are out of range), or GGUF_ENOMEM. */
GGUF_HIDDEN int gguf__llama_kv_per_token(gguf__llama_kv_token *out, const gguf__llama_hparams *hp);

/* ---- compute graphs (llama_graph.c) ---- */

/* What llama_context reserves its compute buffer for: the largest batch, every token an
 * output, over the KV cache as these parameters make it. */
typedef struct gguf__llama_graph_params {
    int64_t n_tokens; /* the batch: a multiple of n_seqs */
    int64_t n_seqs;   /* its sequences (every one llama.cpp decodes in parallel), of equal
                         length; also the recurrent states' rows */
    int64_t n_outputs; /* its outputs: the batch before it is made a multiple of n_seqs */
    int64_t n_kv;     /* the cells a full-attention layer attends to, per stream */
    int64_t n_kv_swa; /* a sliding layer's, 0 without sliding layers */
    int64_t n_stream; /* caches: 1 when unified, else one per sequence */
    int64_t n_vocab;
    int flash;        /* flash attention */
    uint32_t type_k, type_v; /* the cache's types (gguf dtypes) */
    /* per cache ([0] full attention's, [1] the sliding layers'): K rotated by a Hadamard
     * matrix (quantized; see llama_estimate.c), given as the head size its rotation divides
     * (0: not rotated), and V rotated */
    int64_t k_rot_head[2];
    int v_rot[2];
} gguf__llama_graph_params;

/* 1 when llama_graph.c models the graph of architecture arch. */
GGUF_HIDDEN int gguf__llama_graph_known(const char *arch);

/* The compute buffer ggml-alloc lays out for the graph llama.cpp builds for hp's model (f's
 * tensors tell which optional ones it has) and the parameters p. Returns 0 and sets *bytes, 1
 * when the architecture's graph is not modelled, GGUF_ELIMIT when a shape is negative (the
 * hyperparameters contradict) or passes 2^48 elements, or the experts pass llama.cpp's limit,
 * or GGUF_ENOMEM. */
GGUF_HIDDEN int gguf__llama_graph_compute(uint64_t *bytes, const gguf__llama_hparams *hp,
                                          const gguf_file *f, const gguf__llama_graph_params *p);

/* ---- tokenizer (llama_vocab.c) ---- */

enum gguf__llama_vocab_kind {
    GGUF__LV_NONE = 0, /* no_vocab, none */
    GGUF__LV_SPM,
    GGUF__LV_WPM,
    GGUF__LV_BPE,
    GGUF__LV_UGM,
    GGUF__LV_RWKV,
    GGUF__LV_PLAMO2
};
typedef struct gguf__llama_tokenizer {
    const char *model;  /* tokenizer.ggml.model */
    int kind;           /* a gguf__llama_vocab_kind */
    int needs_merges;   /* BPE merges required */
    int uses_pre;       /* tokenizer.ggml.pre is read (BPE) */
} gguf__llama_tokenizer;
GGUF_HIDDEN const gguf__llama_tokenizer *gguf__llama_tokenizer_find(const char *model, size_t len);
/* 1 when llama.cpp knows this pre-tokenizer name. */
GGUF_HIDDEN int gguf__llama_pre_known(const char *pre, size_t len);
/* The keys the vocabulary loader reads with a fixed type (special token ids, flags). */
GGUF_HIDDEN extern const gguf__llama_key gguf__llama_vocab_keys[];

/* The checker's report channel, shared by llama_check.c and llama_vocab.c. */
typedef struct gguf__llama_report {
    gguf_llama_finding_fn fn;
    void *user;
    gguf_llama_check_stats *stats;
} gguf__llama_report;
GGUF_HIDDEN void gguf__llama_emit(gguf__llama_report *r, int severity, const char *key,
                                  const char *tensor, size_t shard, uint64_t offset,
                                  const char *fmt, ...) GGUF_PRINTF(7, 8);

/* Checks the tokenizer of f (of architecture arch); n_tokens gets the vocabulary size (-1 when
 * unknown). Returns 0 or GGUF_ENOMEM. */
GGUF_HIDDEN int gguf__llama_check_vocab(gguf__llama_report *r, const gguf_file *f,
                                        const char *arch, int64_t *n_tokens, gguf_error *err);

/* llama_check.c: the i-th symbol the checker computes itself, or NULL after the last: those
 * whose value is that of the layer an expression is evaluated at (HKV_i: that layer's
 * head_count_kv; RECR_i: 1 when it is recurrent), and FULLN (how many layers have no sliding
 * window). Tables may use them in tensor rows (shapes and conditions) and per-layer rules
 * only. */
GGUF_HIDDEN const char *gguf__llama_layer_sym(size_t i);

/* llama_check.c: the tensors llama.cpp's loader creates for f's metadata, for tests that
 * build models: fn gets each name, shape and whether it is required (optional tensors that
 * depend on another's presence, and fused alternatives, are left out). Returns 0, or
 * GGUF_EINVAL / GGUF_EUNSUPPORTED (no architecture with a tensor table) / GGUF_ENOMEM. */
typedef void (*gguf__llama_plan_fn)(void *user, const char *name, const int64_t *dims, int n_dims,
                                    int required);
GGUF_HIDDEN int gguf__llama_plan(const gguf_file *f, gguf__llama_plan_fn fn, void *user,
                                 gguf_error *err);

#endif
