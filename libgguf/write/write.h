/* The write layer: a gguf_file serialized to bytes. Stands on format/. Not installed. */
#ifndef LIBGGUF_WRITE_H
#define LIBGGUF_WRITE_H

#include "format/format.h"

/* write.c: serializes the header (magic .. end of tensor infos) for the given output format,
 * with the tensor offsets given (NULL: the tensors' own). */
/* The padding key's length when serializing: keep it as stored, drop the key, or (n >= 0) n
 * zero bytes (the key added at the end when the file has none). */
#define GGUF__PAD_KEEP (-1)
#define GGUF__PAD_DROP (-2)
GGUF_HIDDEN int gguf__header_serialize(gguf__sink *s, const gguf_file *f, uint32_t version,
                                       bool big, const uint64_t *offsets, int64_t padding,
                                       gguf_error *err);
/* Bytes of the padding entry besides its payload. */
GGUF_HIDDEN uint64_t gguf__padding_overhead(bool wide);
/* The header region [0, data_offset) of f in its own format: the header, its padding key sized
 * so that the header ends exactly at data_offset with at least `room` bytes of payload (when the
 * file has the key, or use_padding), else zero bytes after the header. Returns 0 (*out filled,
 * *padding_out the payload length or GGUF__PAD_KEEP), or GGUF_ELIMIT without a message when the
 * header does not fit, or another error. */
GGUF_HIDDEN int gguf__header_fit(gguf__buf *out, int64_t *padding_out, const gguf_file *f,
                                 uint64_t data_offset, uint64_t room, bool use_padding,
                                 gguf_error *err);

/* What the commit layer asks of, and learns from, a write to a file. */
typedef struct gguf__write_ctl {
    int64_t padding;          /* in: GGUF__PAD_KEEP (as stored, or as opt->reserve asks) or n */
    gguf__piece_fn piece;     /* in: told of each range of source bytes copied (with its two
                                 checksums: base/copy.c) or cloned (.cloned), or NULL; src is
                                 the offset in f's source */
    void *piece_user;
    bool replaces_source;     /* in: the output replaces the source file: the source's pages
                                 are dropped from the cache as they are copied */
    uint32_t header_crc;      /* out: crc32 of the header region written, [0, data offset) */
    uint64_t data_offset;     /* out: the output's data offset */
    bool all_copied;          /* out: every source byte went through `piece` */
} gguf__write_ctl;

/* Writes f to fd (at its current position) as the options say; path names the output in
 * messages; ctl may be NULL. */
GGUF_HIDDEN int gguf__write_fd(int fd, const char *path, const gguf_file *f,
                               const gguf_write_options *opt, gguf__write_ctl *ctl,
                               gguf_error *err);
/* The offsets (from the data offset) of f's tensors laid out packed in order at f's alignment,
 * in a new array *out (gguf__free), and in *end where the last one's padding ends; refused for
 * a tensor of unknown size. */
GGUF_HIDDEN int gguf__packed_offsets(uint64_t **out, uint64_t *end, const gguf_file *f,
                                     gguf_error *err);
/* The step by which a header region grows so that the data moves by whole filesystem blocks
 * and stays aligned: lcm(block, alignment). */
GGUF_HIDDEN uint64_t gguf__grow_step(uint32_t alignment, uint64_t block);

#endif /* LIBGGUF_WRITE_H */
