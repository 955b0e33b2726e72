/* The write layer: a gguf_file serialized to bytes. Stands on format/. Not installed. */
#ifndef LIBGGUF_WRITE_H
#define LIBGGUF_WRITE_H

#include "format/format.h"

/* write.c: serializes the header (magic .. end of tensor infos) for the given output format,
 * with the tensor offsets given (NULL: the tensors' own). */
GGUF_HIDDEN int gguf__header_serialize(gguf__sink *s, const gguf_file *f, uint32_t version,
                                       bool big, const uint64_t *offsets, gguf_error *err);

/* Writes f to fd (at its current position) as the options say; path names the output in
 * messages. *header_crc (may be NULL) gets the crc32 of the header region written: bytes 0 to
 * the data offset, padding included. */
GGUF_HIDDEN int gguf__write_fd(int fd, const char *path, const gguf_file *f,
                               const gguf_write_options *opt, uint32_t *header_crc,
                               gguf_error *err);

#endif /* LIBGGUF_WRITE_H */
