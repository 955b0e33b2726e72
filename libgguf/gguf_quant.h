/*
 * libgguf: quantization and dequantization kernels.
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_QUANT_H
#define LIBGGUF_GGUF_QUANT_H

#include "gguf_format.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- two tensors' values compared ---- */

/* What gguf_quant_compare finds over the elements of two tensors, A's x and B's y, each
 * dequantized to float; sums in double. */
typedef struct gguf_quant_comparison {
    uint64_t n;     /* elements compared */
    double sum_d2;  /* sum of (x - y)^2 */
    double sum_a2;  /* sum of x^2 */
    double sum_b2;  /* sum of y^2 */
    double sum_ab;  /* sum of x * y */
    double max_abs; /* largest |x - y| (NaN when a difference is NaN) */
    double rmse;    /* sqrt(sum_d2 / n); 0 for no elements */
    double rel;     /* relative error sqrt(sum_d2 / sum_a2): 0 when the values are equal,
                     * infinity when only A's are all zero */
    double cos;     /* cosine similarity sum_ab / sqrt(sum_a2 * sum_b2): 1 when both sides are
                     * all zero, 0 when one side is */
} gguf_quant_comparison;

/* Compares the values of tensor ia of a and tensor ib of b: both dequantized (in either byte
 * order), element by element, as what a quantization cost. The tensors may differ in type and
 * shape but must hold the same number of elements; they are read in rows of the narrower
 * first dimension, which both types' blocks must divide. Bytes are read with gguf_tensor_read
 * (no mapping: a file that shrinks meanwhile is an error, not a crash), in pieces of about a
 * million elements, on `threads` threads (0 or 1: the caller's only; the caller's thread takes
 * part). The result is the same whatever the number of threads.
 * Returns 0 with *out filled, or
 *   GGUF_EUNSUPPORTED  a type cannot be dequantized (gguf_quant_can_dequantize) or is unknown,
 *   GGUF_EINVAL        no tensor ia in a or ib in b, or values that do not line up (other
 *                      element counts, or a row length one side's blocks do not divide),
 *   GGUF_ENOMEM,
 *   or what gguf_tensor_read returns (GGUF_ETRUNC, GGUF_EIO, ...), with err->path naming the
 *   file.
 * On error *out is untouched. */
GGUF_API int gguf_quant_compare(gguf_quant_comparison *out, const gguf_file *a, size_t ia,
                                const gguf_file *b, size_t ib, unsigned threads,
                                gguf_error *err);

/* Adds comparison c to sum (counts and sums added, the larger max_abs kept) and sets sum's
 * rmse, rel and cos from the totals: the figures over several tensors. Start sum from
 * {.cos = 1}, the comparison of no elements. */
GGUF_API void gguf_quant_comparison_add(gguf_quant_comparison *sum,
                                        const gguf_quant_comparison *c);

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

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_QUANT_H */
