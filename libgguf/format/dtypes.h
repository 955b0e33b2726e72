/* The ggml tensor types' blocks, one line a type: X(TYPE, elements per block, bytes per block),
 * TYPE the end of its GGUF_DTYPE_ name (and its name). The type table (dtype.c) is made from
 * this list and the kernels (quant/) take their block sizes from it, so that each size is
 * written once. Removed ids have no line. Private to the library. */
#ifndef LIBGGUF_FORMAT_DTYPES_H
#define LIBGGUF_FORMAT_DTYPES_H

#define GGUF__DTYPE_BLOCKS(X)                                                                    \
    X(F32, 1, 4)                                                                                 \
    X(F16, 1, 2)                                                                                 \
    X(Q4_0, 32, 18)                                                                              \
    X(Q4_1, 32, 20)                                                                              \
    X(Q5_0, 32, 22)                                                                              \
    X(Q5_1, 32, 24)                                                                              \
    X(Q8_0, 32, 34)                                                                              \
    X(Q8_1, 32, 36)                                                                              \
    X(Q2_K, 256, 84)                                                                             \
    X(Q3_K, 256, 110)                                                                            \
    X(Q4_K, 256, 144)                                                                            \
    X(Q5_K, 256, 176)                                                                            \
    X(Q6_K, 256, 210)                                                                            \
    X(Q8_K, 256, 292)                                                                            \
    X(IQ2_XXS, 256, 66)                                                                          \
    X(IQ2_XS, 256, 74)                                                                           \
    X(IQ3_XXS, 256, 98)                                                                          \
    X(IQ1_S, 256, 50)                                                                            \
    X(IQ4_NL, 32, 18)                                                                            \
    X(IQ3_S, 256, 110)                                                                           \
    X(IQ2_S, 256, 82)                                                                            \
    X(IQ4_XS, 256, 136)                                                                          \
    X(I8, 1, 1)                                                                                  \
    X(I16, 1, 2)                                                                                 \
    X(I32, 1, 4)                                                                                 \
    X(I64, 1, 8)                                                                                 \
    X(F64, 1, 8)                                                                                 \
    X(IQ1_M, 256, 56)                                                                            \
    X(BF16, 1, 2)                                                                                \
    X(TQ1_0, 256, 54)                                                                            \
    X(TQ2_0, 256, 66)                                                                            \
    X(MXFP4, 32, 17)                                                                             \
    X(NVFP4, 64, 36)                                                                             \
    X(Q1_0, 128, 18)                                                                             \
    X(Q2_0, 64, 18)

/* GGUF__BLOCK_ELEMS(Q4_K), GGUF__BLOCK_BYTES(Q4_K): a type's block as constant expressions,
 * for kernels whose loops step by them. */
#define GGUF__BLOCK_ELEMS(type) GGUF__BLOCK_ELEMS_##type
#define GGUF__BLOCK_BYTES(type) GGUF__BLOCK_BYTES_##type
#define GGUF__DTYPE_BLOCK_CONSTANTS(type, elems, bytes)                                          \
    GGUF__BLOCK_ELEMS_##type = elems, GGUF__BLOCK_BYTES_##type = bytes,
enum { GGUF__DTYPE_BLOCKS(GGUF__DTYPE_BLOCK_CONSTANTS) };
#undef GGUF__DTYPE_BLOCK_CONSTANTS

#endif /* LIBGGUF_FORMAT_DTYPES_H */
