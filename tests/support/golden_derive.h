/* How the derived golden files are made from the hand-assembled ones: shared by the generator
 * (make golden) and by the test that re-derives them and compares byte for byte. */
#ifndef GGUF_GOLDEN_DERIVE_H
#define GGUF_GOLDEN_DERIVE_H

#include <libgguf/gguf.h>

typedef struct golden_derivation {
    const char *output; /* relative to the source tree */
    const char *input;  /* relative to the source tree */
    uint32_t version;   /* 0: keep */
    int endian;         /* -1: keep */
} golden_derivation;

static const golden_derivation golden_derivations[] = {
    {"golden/derived/v1_one_tensor.v3.gguf", "golden/hand/v1_one_tensor.gguf", 3, -1},
    {"golden/derived/v1_one_tensor.v2.gguf", "golden/hand/v1_one_tensor.gguf", 2, -1},
    {"golden/derived/le_v3_two_tensors.v2.gguf", "golden/hand/le_v3_two_tensors.gguf", 2, -1},
    {"golden/derived/gaps_and_trailer.v2.gguf", "golden/hand/gaps_and_trailer.gguf", 2, -1},
};

#define GOLDEN_N_DERIVATIONS (sizeof golden_derivations / sizeof golden_derivations[0])

#endif
