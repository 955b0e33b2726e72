/*
 * libgguf: requantizing a model as llama.cpp's quantizer does.
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_REQUANT_H
#define LIBGGUF_GGUF_REQUANT_H

#include "gguf_write.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 *   gguf_write_options w = GGUF_WRITE_OPTIONS_INIT;
 *   w.layout = GGUF_LAYOUT_PACKED;  w.fill = gguf_requant_fill;  w.fill_user = rq;
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

/* Options of a requantization (see "Options structs" in gguf_base.h). */
typedef struct gguf_requant_options {
    size_t size;             /* sizeof as the caller was built: set by the _INIT macro */
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
    {.size = sizeof(gguf_requant_options), .ftype = GGUF_REQUANT_Q8_0, .output_type = -1,     \
     .token_embd_type = -1, .threads = 1}

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

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_REQUANT_H */
