/*
 * libgguf — read, write and edit GGUF files (the model format of llama.cpp/ggml).
 *
 * A GGUF file is laid out as
 *
 *   "GGUF" | version u32 | tensor_count | kv_count | kv[kv_count] | tensor_info[tensor_count]
 *   | padding to ALIGN | tensor data (tensor i at data_offset + offset_i)
 *
 * Version 1 stores counts, string and array lengths and dims as u32; versions 2 and 3 as u64.
 * A big-endian file stores every multi-byte number big-endian; nothing in the file says so,
 * the reader sees it from the byte-swapped version field.  ALIGN is `general.alignment` (u32,
 * default 32).  With at least one tensor, data_offset is the end of the tensor infos rounded up
 * to ALIGN; with none, it is the end of the tensor infos (as ggml computes it).
 *
 * Conventions of this library:
 *  - Every public name starts with gguf_<module>_ or GGUF_<MODULE>_, so a program can link both
 *    this library and ggml (which exports gguf_init_*, gguf_get_*, ...).
 *  - Fallible calls return 0 or a negative GGUF_E* code and fill a caller-supplied gguf_error
 *    (which may be NULL): the first error wins, and a failed call leaves its outputs untouched.
 *  - Outputs come first in the argument list, then the object, then inputs, then the error.
 *  - Pointers returned by getters are borrowed from the gguf_file: they stay valid until the
 *    file is freed or the value they belong to is changed or removed.
 *  - The library never prints, never exits and never aborts on bad input.
 *  - Options structs start with their size: start each from its _INIT macro and set fields by
 *    name, so that a program built against this header keeps working with later libraries
 *    (see "Options structs, and how they grow" in gguf_base.h).
 *
 * The manual goes on in parts, one per layer of the library, each a header of its own that
 * includes the parts below it (a program may include one part alone, or this header for all):
 *
 *   gguf_base.h     the export macro, the version, errors, how options structs grow
 *   gguf_format.h   value and tensor types; opening files (local, URLs, standard input, split
 *                   sets); the header, metadata and tensors, and edits of them; checksums;
 *                   byte order; lint
 *   gguf_write.h    writing: serializing, atomic saves, outputs, in-place updates, journals
 *   gguf_split.h    writing split sets and merging them
 *   gguf_catalog.h  the catalog of many files
 *   gguf_quant.h    quantizing and dequantizing tensor data; two tensors' values compared
 *   gguf_requant.h  requantizing a model as llama.cpp's quantizer does
 *   gguf_llama.h    llama.cpp's loader rules, memory estimates, a model's summary
 */
#ifndef LIBGGUF_GGUF_H
#define LIBGGUF_GGUF_H

#include "gguf_base.h"
#include "gguf_format.h"
#include "gguf_write.h"
#include "gguf_split.h"
#include "gguf_catalog.h"
#include "gguf_quant.h"
#include "gguf_requant.h"
#include "gguf_llama.h"

#endif /* LIBGGUF_GGUF_H */
