"""ctypes bindings of libgguf.so: the structures and prototypes of libgguf/gguf.h.

This module only loads the shared library and declares what the package calls; the Pythonic
layer lives in the other modules. The library is found, in order, at $LIBGGUF_LIBRARY (a path to
libgguf.so), in the build tree the package sits in (python/libgguf beside libgguf/.libs, or
build/libgguf/.libs for a build in ./build), in the libdir `make install` recorded (_paths.py),
and by the dynamic linker's own search (libgguf.so.0).
"""
import ctypes
import os

from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_int, c_int32, c_int64,
                    c_size_t, c_uint, c_uint8, c_uint32, c_uint64, c_void_p, CFUNCTYPE)


def _candidates():
    env = os.environ.get("LIBGGUF_LIBRARY")
    if env:
        yield env
        return
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for sub in ("libgguf/.libs", "build/libgguf/.libs"):
        yield os.path.join(top, sub, "libgguf.so")
    try:
        from . import _paths
        yield os.path.join(_paths.LIBDIR, "libgguf.so.0")
    except ImportError:
        pass
    yield "libgguf.so.0"


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("libgguf: the shared library was not found; tried " + ", ".join(tried) +
                      " (set LIBGGUF_LIBRARY to the path of libgguf.so)")


lib, LIBRARY_PATH = _load()

ERROR_NO_OFFSET = (1 << 64) - 1
NBYTES_UNKNOWN = (1 << 64) - 1
MAX_DIMS = 4
VTYPE_STRING = 8
VTYPE_ARRAY = 9
VTYPE_COUNT = 13

OPEN_LENIENT = 1 << 0
OPEN_FORCE_LITTLE = 1 << 1
OPEN_FORCE_BIG = 1 << 2
OPEN_NO_MMAP = 1 << 3
OPEN_UNKNOWN_TYPES = 1 << 4
OPEN_SPLIT_SET = 1 << 5
OPEN_PARTIAL = 1 << 6


ERROR_MESSAGE_MAX = 320  # GGUF_ERROR_MESSAGE_MAX
ERROR_PATH_MAX = 160  # GGUF_ERROR_PATH_MAX


class gguf_error(Structure):
    _fields_ = [("code", c_int), ("offset", c_uint64), ("message", c_char * ERROR_MESSAGE_MAX),
                ("path", c_char * ERROR_PATH_MAX)]


class gguf_value(Structure):
    _fields_ = [("raw", c_void_p), ("raw_len", c_uint64), ("type", c_uint32),
                ("big_endian", c_uint8), ("wide", c_uint8), ("owned", c_uint8),
                ("reserved_", c_uint8)]


class gguf_value_iter(Structure):
    _fields_ = [("array", POINTER(gguf_value)), ("index", c_uint64), ("pos", c_void_p),
                ("remain", c_uint64)]


class gguf_tensor_info(Structure):
    _fields_ = [("name", c_void_p), ("name_len", c_size_t), ("n_dims", c_uint32),
                ("dims", c_uint64 * MAX_DIMS), ("type", c_uint32), ("offset", c_uint64),
                ("nbytes", c_uint64)]


class gguf_text(Structure):
    _fields_ = [("data", c_void_p), ("len", c_size_t), ("cap", c_size_t)]


class _Options(Structure):
    """An options struct: its leading size field says which fields the library may read (see
    "Options structs, and how they grow" in gguf_base.h); every options class sets it."""

    def __init__(self, **kw):
        super().__init__(size=ctypes.sizeof(self), **kw)


class gguf_open_options(_Options):
    _fields_ = [("size", c_size_t), ("flags", c_uint), ("headers", POINTER(c_char_p)),
                ("offline", c_int), ("timeout_s", c_uint), ("retries", c_int),
                ("retry_delay_ms", c_uint), ("whole_limit", c_uint64), ("progress", c_void_p),
                ("progress_user", c_void_p), ("keep_bytes", c_uint64), ("deadline_s", c_uint)]


class gguf_write_options(_Options):
    _fields_ = [("size", c_size_t), ("version", c_uint32), ("endian", c_int), ("layout", c_int),
                ("threads", c_uint), ("progress", c_void_p), ("progress_user", c_void_p),
                ("verify", c_int), ("no_in_place", c_int), ("fill", c_void_p),
                ("fill_user", c_void_p), ("reserve", c_uint64)]

    def __init__(self, **kw):
        # GGUF_WRITE_OPTIONS_INIT: endian -1 keeps the source's
        super().__init__(endian=-1, **kw)


class gguf_update_result(Structure):
    _fields_ = [("in_place", c_int), ("inserted", c_uint64), ("cloned", c_uint64),
                ("tensors_checked", c_size_t), ("hard_links", c_uint), ("outgrew", c_int)]


class gguf_split_options(_Options):
    _fields_ = [("size", c_size_t), ("mode", c_int), ("max_tensors", c_uint64),
                ("max_bytes", c_uint64), ("no_tensor_first", c_int), ("progress", c_void_p),
                ("progress_user", c_void_p), ("quantize_keys", c_int), ("fill", c_void_p),
                ("fill_user", c_void_p)]


class gguf_llama_finding(Structure):
    _fields_ = [("severity", c_int), ("key", c_char_p), ("tensor", c_char_p),
                ("message", c_char_p), ("shard", c_size_t), ("offset", c_uint64)]


class gguf_llama_check_stats(Structure):
    _fields_ = [("errors", c_uint), ("warnings", c_uint), ("notes", c_uint),
                ("arch_support", c_int)]


llama_finding_fn = CFUNCTYPE(None, c_void_p, POINTER(gguf_llama_finding))
warn_fn = CFUNCTYPE(None, c_void_p, c_char_p, c_uint64)

LLAMA_MAX_LAYERS = 512  # GGUF_LLAMA_MAX_LAYERS


class gguf_llama_estimate_params(_Options):
    _fields_ = [("size", c_size_t), ("n_ctx", c_uint32), ("type_k", c_uint32), ("type_v", c_uint32),
                ("n_seq", c_uint32), ("n_batch", c_uint32), ("n_ubatch", c_uint32),
                ("flash_attn", c_int), ("swa_full", c_int), ("kv_unified", c_int)]


class gguf_llama_estimate_layer(Structure):
    _fields_ = [("weights", c_uint64), ("k", c_uint64), ("v", c_uint64), ("r", c_uint64),
                ("s", c_uint64), ("cells", c_uint32), ("swa", c_int)]


class gguf_llama_estimate(Structure):
    _fields_ = [("params", gguf_llama_estimate_params), ("flash_attn_used", c_int),
                ("n_ctx_seq", c_uint32), ("n_ctx_train", c_uint32), ("n_swa_cells", c_uint32),
                ("weights", c_uint64), ("weights_token_embd", c_uint64),
                ("weights_output", c_uint64), ("weights_other", c_uint64),
                ("context", c_uint64), ("compute", c_uint64), ("total", c_uint64),
                ("n_layer", c_uint32),
                ("layer", gguf_llama_estimate_layer * LLAMA_MAX_LAYERS)]


class gguf_requant_options(_Options):
    _fields_ = [("size", c_size_t), ("ftype", c_uint32), ("copy", c_int), ("pure", c_int),
                ("leave_output", c_int), ("output_type", c_int), ("token_embd_type", c_int),
                ("overrides", c_void_p), ("n_overrides", c_size_t), ("imatrix", c_void_p),
                ("keep_order", c_int), ("threads", c_uint), ("allow_requantize", c_int),
                ("kv_overrides", c_void_p), ("n_kv_overrides", c_size_t),
                ("prune_layers", POINTER(c_int32)), ("n_prune_layers", c_size_t)]

    def __init__(self, **kw):
        # GGUF_REQUANT_OPTIONS_INIT
        kw.setdefault("ftype", 7)
        kw.setdefault("output_type", -1)
        kw.setdefault("token_embd_type", -1)
        kw.setdefault("threads", 1)
        super().__init__(**kw)


class gguf_catalog_cell(Structure):
    _fields_ = [("type", c_int), ("i", c_int64), ("r", c_double), ("text", c_void_p),
                ("len", c_size_t)]


catalog_row_fn = CFUNCTYPE(c_int, c_size_t, POINTER(c_char_p), POINTER(gguf_catalog_cell),
                           c_void_p)


class gguf_catalog_index_options(_Options):
    _fields_ = [("size", c_size_t), ("flags", c_uint), ("open_flags", c_uint),
                ("array_max", c_uint64), ("on_event", c_void_p), ("user", c_void_p),
                ("jobs", c_uint)]


class gguf_catalog_stats(Structure):
    _fields_ = [(n, c_uint64) for n in ("seen", "indexed", "unchanged", "broken", "skipped",
                                        "walk_errors", "removed", "broken_sets")]


file_p = c_void_p
E = POINTER(gguf_error)
V = POINTER(gguf_value)


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    globals()[name] = f


# errors and names
_proto("gguf_strerror", c_char_p, c_int)
_proto("gguf_vtype_name", c_char_p, c_uint32)
_proto("gguf_vtype_parse", c_int, c_char_p)
_proto("gguf_vtype_size", c_size_t, c_uint32)
_proto("gguf_dtype_name", c_char_p, c_uint32)
_proto("gguf_dtype_parse", c_int, c_char_p)
_proto("gguf_dtype_block_elems", c_uint32, c_uint32)
_proto("gguf_dtype_block_bytes", c_uint32, c_uint32)
_proto("gguf_dtype_byteswap_copy", c_int, c_void_p, c_void_p, c_size_t, c_uint32, E)
# files
_proto("gguf_file_open_ex", c_int, POINTER(file_p), c_char_p, POINTER(gguf_open_options), E)
_proto("gguf_file_free", None, file_p)
_proto("gguf_file_version", c_uint32, file_p)
_proto("gguf_file_endian", c_int, file_p)
_proto("gguf_file_alignment", c_uint32, file_p)
_proto("gguf_file_data_offset", c_uint64, file_p)
_proto("gguf_file_size", c_uint64, file_p)
_proto("gguf_file_path", c_char_p, file_p)
_proto("gguf_file_shard_count", c_size_t, file_p)
_proto("gguf_tensor_shard", c_uint32, file_p, c_size_t)
# metadata
_proto("gguf_kv_count", c_size_t, file_p)
_proto("gguf_kv_find", c_int64, file_p, c_char_p)
_proto("gguf_kv_key", c_void_p, file_p, c_size_t, POINTER(c_size_t))
_proto("gguf_kv_value", V, file_p, c_size_t)
_proto("gguf_kv_source_offset", c_uint64, file_p, c_size_t)
_proto("gguf_value_type", c_uint32, V)
_proto("gguf_value_elem_type", c_uint32, V)
_proto("gguf_value_count", c_uint64, V)
_proto("gguf_value_get_int", c_int, POINTER(c_uint64), POINTER(c_int64), POINTER(c_int), V, E)
_proto("gguf_value_get_f64", c_int, POINTER(c_double), V, E)
_proto("gguf_value_get_str", c_int, POINTER(c_void_p), POINTER(c_uint64), V, E)
_proto("gguf_value_get_bool_byte", c_int, POINTER(c_uint8), V, E)
_proto("gguf_value_iter_init", None, POINTER(gguf_value_iter), V)
_proto("gguf_value_iter_next", c_int, POINTER(gguf_value_iter), V)
_proto("gguf_json_value", c_int, POINTER(gguf_text), V)
_proto("gguf_text_free", None, POINTER(gguf_text))
# edits
_proto("gguf_kv_set_str", c_int, file_p, c_char_p, c_char_p, c_size_t, E)
_proto("gguf_kv_set_array", c_int, file_p, c_char_p, c_uint32, c_void_p, c_uint64, E)
_proto("gguf_kv_set_str_array", c_int, file_p, c_char_p, POINTER(c_char_p), POINTER(c_size_t),
       c_uint64, E)
_proto("gguf_kv_set_text", c_int, file_p, c_char_p, c_uint32, c_uint32, c_char_p, c_size_t, E)
_proto("gguf_kv_remove", c_int, file_p, c_char_p, E)
_proto("gguf_kv_rename", c_int, file_p, c_char_p, c_char_p, E)
_proto("gguf_tensor_rename", c_int, file_p, c_char_p, c_char_p, E)
_proto("gguf_tensor_remove", c_int, file_p, c_char_p, E)
# tensors
_proto("gguf_tensor_count", c_size_t, file_p)
_proto("gguf_tensor_find", c_int64, file_p, c_char_p)
_proto("gguf_tensor_get", None, POINTER(gguf_tensor_info), file_p, c_size_t)
_proto("gguf_tensor_data", c_void_p, file_p, c_size_t)
_proto("gguf_tensor_read", c_int, c_void_p, file_p, c_size_t, c_uint64, c_size_t, E)
_proto("gguf_crc_tensor", c_int, POINTER(c_uint32), file_p, c_size_t, E)
# writing
_proto("gguf_file_save", c_int, file_p, c_char_p, POINTER(gguf_write_options), E)
_proto("gguf_file_update", c_int, file_p, c_char_p, POINTER(gguf_write_options),
       POINTER(gguf_update_result), E)
_proto("gguf_file_recover", c_int, c_char_p, POINTER(c_int), E)
_proto("gguf_file_lint", c_int, file_p, warn_fn, c_void_p, E)
_proto("gguf_split_save", c_int, POINTER(c_uint32), file_p, c_char_p,
       POINTER(gguf_split_options), E)
_proto("gguf_split_merge_save", c_int, file_p, c_char_p, c_void_p, c_void_p, E)
# quantization
_proto("gguf_quant_dequantize", c_int, c_void_p, c_uint32, c_void_p, c_size_t, c_int64, E)
_proto("gguf_quant_quantize", c_int, c_void_p, c_size_t, c_uint32, c_void_p, c_int64, c_int64,
       c_void_p, E)
_proto("gguf_quant_can_dequantize", c_int, c_uint32)
_proto("gguf_quant_can_quantize", c_int, c_uint32)
_proto("gguf_quant_row_size", c_size_t, c_uint32, c_int64)
# requantization
_proto("gguf_requant_parse_type", c_int, POINTER(gguf_requant_options), c_char_p, E)
_proto("gguf_requant_save", c_int, file_p, c_char_p, POINTER(gguf_requant_options), c_void_p,
       c_void_p, E)
# llama.cpp's rules
_proto("gguf_llama_check", c_int, POINTER(gguf_llama_check_stats), file_p, c_uint,
       llama_finding_fn, c_void_p, E)
_proto("gguf_llama_estimate_defaults", c_int, POINTER(gguf_llama_estimate_params), E)
_proto("gguf_llama_estimate_run", c_int, POINTER(gguf_llama_estimate), file_p,
       POINTER(gguf_llama_estimate_params), E)
# catalog
_proto("gguf_catalog_available", c_int)
_proto("gguf_catalog_open", c_int, POINTER(c_void_p), c_char_p, c_uint, E)
_proto("gguf_catalog_close", None, c_void_p)
_proto("gguf_catalog_index", c_int, POINTER(gguf_catalog_stats), c_void_p, POINTER(c_char_p),
       c_size_t, POINTER(gguf_catalog_index_options), E)
_proto("gguf_catalog_query", c_int, c_void_p, c_char_p, catalog_row_fn, c_void_p, E)
_proto("gguf_error_clear", None, E)
_proto("gguf_version_string", c_char_p)


def new_error():
    """A cleared gguf_error (its offset "none", not 0)."""
    e = gguf_error()
    gguf_error_clear(ctypes.byref(e))
    return e
_proto("gguf_http_available", c_int)
