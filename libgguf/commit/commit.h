/* The commit layer: atomic saves, proofs before replacing, the journal. Stands on write/. Not
 * installed. */
#ifndef LIBGGUF_COMMIT_H
#define LIBGGUF_COMMIT_H

#include "write/write.h"

/* update.c: checks that out holds src's tensors with the same names, types, sizes and crc32s. */
GGUF_HIDDEN int gguf__verify_output(const gguf_file *src, const gguf_file *out, gguf_error *err);

#endif /* LIBGGUF_COMMIT_H */
