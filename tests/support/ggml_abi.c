/* ggml's reference kernels loaded with dlopen: see ggml_abi.h. */
#define _GNU_SOURCE
#include "ggml_abi.h"
#include "testutil.h"

#include <libgguf/gguf.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* where the oracle's build (../shared/oracle/build.sh ROOT, ROOT/bin/ggml-oracle) puts ggml */
#define ORACLE_GGML_BASE "npm/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so"

struct ggml_abi ggml;

const char *ggml_abi_path(void) {
    static char path[4096];
    const char *lib = getenv("GGML_BASE_LIB");
    if (lib != NULL && *lib != '\0')
        return lib;
    const char *oracle = tu_oracle_path();
    const char *bin = strstr(oracle, "/bin/ggml-oracle");
    if (*oracle == '\0' || bin == NULL || bin[strlen("/bin/ggml-oracle")] != '\0')
        return NULL;
    int n = snprintf(path, sizeof path, "%.*s/%s", (int)(bin - oracle), oracle, ORACLE_GGML_BASE);
    return n > 0 && (size_t)n < sizeof path ? path : NULL;
}

bool ggml_abi_load(const char *path) {
    ggml.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!ggml.handle)
        return false;
    *(void **)&ggml.quantize_chunk = dlsym(ggml.handle, "ggml_quantize_chunk");
    *(void **)&ggml.get_type_traits = dlsym(ggml.handle, "ggml_get_type_traits");
    *(void **)&ggml.quantize_init = dlsym(ggml.handle, "ggml_quantize_init");
    *(void **)&ggml.requires_imatrix = dlsym(ggml.handle, "ggml_quantize_requires_imatrix");
    return ggml.quantize_chunk && ggml.get_type_traits && ggml.quantize_init &&
           ggml.requires_imatrix;
}

void ggml_abi_unload(void) {
    if (ggml.handle != NULL)
        dlclose(ggml.handle);
    memset(&ggml, 0, sizeof ggml);
}

bool ggml_abi_quantizes(uint32_t dtype) {
    switch (dtype) {
    case GGUF_DTYPE_Q8_1: case GGUF_DTYPE_Q8_K:
    case GGUF_DTYPE_I8: case GGUF_DTYPE_I16: case GGUF_DTYPE_I32: case GGUF_DTYPE_I64:
    case GGUF_DTYPE_F64:
        return false;
    default:
        return true;
    }
}
