/* llama.cpp's file types (enum llama_ftype, stored as general.file_type): the one table that
 * requant's presets, the catalog's names and verify's general.file_type check read. Written
 * from llama.h (the ids), tools/quantize/quantize.cpp (llama-quantize's names),
 * llama-quant.cpp (llama_ftype_get_default_type) and llama-model-loader.cpp (llama_ftype_name,
 * and the type a file type is guessed from). */
#include "llama.h"

#include <stddef.h>

/* Rows name the fields they set; a file type llama.cpp no longer writes has no default type
 * and no display name. */
#define ROW(ID, NAME, DTYPE, DISPLAY)                                                            \
    {.id = (ID), .name = (NAME), .dtype = (DTYPE), .display = (DISPLAY)}
#define REMOVED(ID, NAME) {.id = (ID), .name = (NAME), .dtype = -1, .display = NULL}

const gguf__llama_ftype gguf__llama_ftypes[] = {
    ROW(0, "F32", GGUF_DTYPE_F32, "all F32"),
    ROW(1, "F16", GGUF_DTYPE_F16, "F16"),
    ROW(2, "Q4_0", GGUF_DTYPE_Q4_0, "Q4_0"),
    ROW(3, "Q4_1", GGUF_DTYPE_Q4_1, "Q4_1"),
    REMOVED(4, "Q4_1_SOME_F16"),
    REMOVED(5, "Q4_2"),
    REMOVED(6, "Q4_3"),
    ROW(7, "Q8_0", GGUF_DTYPE_Q8_0, "Q8_0"),
    ROW(8, "Q5_0", GGUF_DTYPE_Q5_0, "Q5_0"),
    ROW(9, "Q5_1", GGUF_DTYPE_Q5_1, "Q5_1"),
    ROW(10, "Q2_K", GGUF_DTYPE_Q2_K, "Q2_K - Medium"),
    ROW(11, "Q3_K_S", GGUF_DTYPE_Q3_K, "Q3_K - Small"),
    ROW(12, "Q3_K_M", GGUF_DTYPE_Q3_K, "Q3_K - Medium"),
    ROW(13, "Q3_K_L", GGUF_DTYPE_Q3_K, "Q3_K - Large"),
    ROW(14, "Q4_K_S", GGUF_DTYPE_Q4_K, "Q4_K - Small"),
    ROW(15, "Q4_K_M", GGUF_DTYPE_Q4_K, "Q4_K - Medium"),
    ROW(16, "Q5_K_S", GGUF_DTYPE_Q5_K, "Q5_K - Small"),
    ROW(17, "Q5_K_M", GGUF_DTYPE_Q5_K, "Q5_K - Medium"),
    ROW(18, "Q6_K", GGUF_DTYPE_Q6_K, "Q6_K"),
    ROW(19, "IQ2_XXS", GGUF_DTYPE_IQ2_XXS, "IQ2_XXS - 2.0625 bpw"),
    ROW(20, "IQ2_XS", GGUF_DTYPE_IQ2_XS, "IQ2_XS - 2.3125 bpw"),
    ROW(21, "Q2_K_S", GGUF_DTYPE_Q2_K, "Q2_K - Small"),
    ROW(22, "IQ3_XS", GGUF_DTYPE_IQ3_S, "IQ3_XS - 3.3 bpw"),
    ROW(23, "IQ3_XXS", GGUF_DTYPE_IQ3_XXS, "IQ3_XXS - 3.0625 bpw"),
    ROW(24, "IQ1_S", GGUF_DTYPE_IQ1_S, "IQ1_S - 1.5625 bpw"),
    ROW(25, "IQ4_NL", GGUF_DTYPE_IQ4_NL, "IQ4_NL - 4.5 bpw"),
    ROW(26, "IQ3_S", GGUF_DTYPE_IQ3_S, "IQ3_S - 3.4375 bpw"),
    ROW(27, "IQ3_M", GGUF_DTYPE_IQ3_S, "IQ3_S mix - 3.66 bpw"),
    /* the quantizer's default type of IQ2_S is IQ2_XS (its mixture raises some tensors) */
    ROW(28, "IQ2_S", GGUF_DTYPE_IQ2_XS, "IQ2_S - 2.5 bpw"),
    ROW(29, "IQ2_M", GGUF_DTYPE_IQ2_S, "IQ2_M - 2.7 bpw"),
    ROW(30, "IQ4_XS", GGUF_DTYPE_IQ4_XS, "IQ4_XS - 4.25 bpw"),
    ROW(31, "IQ1_M", GGUF_DTYPE_IQ1_M, "IQ1_M - 1.75 bpw"),
    ROW(32, "BF16", GGUF_DTYPE_BF16, "BF16"),
    /* removed from GGUF files: Q4_0 with run-time repacking replaces them */
    REMOVED(33, "Q4_0_4_4"),
    REMOVED(34, "Q4_0_4_8"),
    REMOVED(35, "Q4_0_8_8"),
    ROW(36, "TQ1_0", GGUF_DTYPE_TQ1_0, "TQ1_0 - 1.69 bpw ternary"),
    ROW(37, "TQ2_0", GGUF_DTYPE_TQ2_0, "TQ2_0 - 2.06 bpw ternary"),
    ROW(38, "MXFP4_MOE", GGUF_DTYPE_MXFP4, "MXFP4 MoE"),
    /* llama_model_quantize takes it; llama-quantize's list does not name it */
    ROW(39, "NVFP4", GGUF_DTYPE_NVFP4, "NVFP4"),
    ROW(40, "Q1_0", GGUF_DTYPE_Q1_0, "Q1_0"),
    ROW(41, "Q2_0", GGUF_DTYPE_Q2_0, "Q2_0"),
    /* a flag, not a file type: set when the loader guessed the type from the tensors */
    REMOVED(GGUF__LLAMA_FTYPE_GUESSED, "GUESSED"),
};
const size_t gguf__llama_n_ftypes = sizeof gguf__llama_ftypes / sizeof gguf__llama_ftypes[0];

const gguf__llama_ftype *gguf__llama_ftype_find(uint32_t id) {
    for (size_t i = 0; i < gguf__llama_n_ftypes; i++) {
        if (gguf__llama_ftypes[i].id == id)
            return &gguf__llama_ftypes[i];
    }
    return NULL;
}

/* The loader's guess from the most common tensor type (a file without general.file_type). */
static const uint8_t guessed[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_F32] = 0,        [GGUF_DTYPE_F16] = 1,      [GGUF_DTYPE_BF16] = 32,
    [GGUF_DTYPE_Q4_0] = 2,       [GGUF_DTYPE_Q4_1] = 3,     [GGUF_DTYPE_Q5_0] = 8,
    [GGUF_DTYPE_Q5_1] = 9,       [GGUF_DTYPE_Q8_0] = 7,     [GGUF_DTYPE_Q2_K] = 10,
    [GGUF_DTYPE_Q3_K] = 12,      [GGUF_DTYPE_Q4_K] = 15,    [GGUF_DTYPE_Q5_K] = 17,
    [GGUF_DTYPE_Q6_K] = 18,      [GGUF_DTYPE_TQ1_0] = 36,   [GGUF_DTYPE_TQ2_0] = 37,
    [GGUF_DTYPE_IQ2_XXS] = 19,   [GGUF_DTYPE_IQ2_XS] = 20,  [GGUF_DTYPE_IQ2_S] = 28,
    [GGUF_DTYPE_IQ3_XXS] = 23,   [GGUF_DTYPE_IQ1_S] = 24,   [GGUF_DTYPE_IQ1_M] = 31,
    [GGUF_DTYPE_IQ4_NL] = 25,    [GGUF_DTYPE_IQ4_XS] = 30,  [GGUF_DTYPE_IQ3_S] = 26,
    [GGUF_DTYPE_NVFP4] = 39,     [GGUF_DTYPE_Q1_0] = 40,    [GGUF_DTYPE_Q2_0] = 41,
};

uint32_t gguf__llama_ftype_guess(uint32_t dtype) {
    return dtype < GGUF_DTYPE_COUNT ? guessed[dtype] : 0;
}
