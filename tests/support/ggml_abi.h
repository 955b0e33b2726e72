/* ggml's reference kernels in process: the part of ggml's ABI we call (ggml.h of ggml 0.23),
 * loaded from libggml-base.so with dlopen: ggml_quantize_chunk (what llama-quantize runs) and
 * each type's to_float. tests/lib/quant/check_quant_ggml.c holds our kernels to them and
 * bench/bench_quant.c times ours beside them. */
#ifndef GGUF_TEST_GGML_ABI_H
#define GGUF_TEST_GGML_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*ggml_to_float_fn)(const void *x, float *y, int64_t k);
struct ggml_type_traits_abi {
    const char *type_name;
    int64_t blck_size;
    int64_t blck_size_interleave;
    size_t type_size;
    bool is_quantized;
    ggml_to_float_fn to_float;
    void *from_float_ref;
};

/* The loaded library and its functions (all NULL until ggml_abi_load succeeds). */
struct ggml_abi {
    void *handle;
    size_t (*quantize_chunk)(int type, const float *src, void *dst, int64_t start, int64_t nrows,
                             int64_t n_per_row, const float *imatrix);
    const struct ggml_type_traits_abi *(*get_type_traits)(int type);
    void (*quantize_init)(int type);
    bool (*requires_imatrix)(int type);
};
extern struct ggml_abi ggml;

/* Where libggml-base.so is: GGML_BASE_LIB, else the copy that ggml-oracle's build put beside it
 * (ROOT/npm/... for the oracle ROOT/bin/ggml-oracle that GGML_ORACLE names, or
 * /tmp/ggml-oracle/bin/ggml-oracle when GGML_ORACLE is unset). NULL when there is no oracle
 * (GGML_ORACLE empty) or its path does not have that shape. The string is static storage. */
const char *ggml_abi_path(void);

/* Opens path and finds every function of struct ggml_abi; false when the library does not
 * load (dlerror() says why) or lacks one of them. */
bool ggml_abi_load(const char *path);

/* Closes the library ggml_abi_load opened (nothing when none is open). */
void ggml_abi_unload(void);

/* The types ggml_quantize_chunk handles (ggml.c of ggml 0.23); it aborts on the others. */
bool ggml_abi_quantizes(uint32_t dtype);

#endif
