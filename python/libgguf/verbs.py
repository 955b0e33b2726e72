"""Whole-file writes: convert, requant, split and merge, each as gguf-edit's command does it.

Each opens its input as gguf-edit does (a shard of a split set opens the whole set), writes
atomically (a temporary file beside the output, fsync'd and renamed), and raises a
libgguf.Error when the library refuses.
"""
import ctypes
import os

from . import _lib
from .errors import check
from .model import _fspath, dtype_id, open as _open


def _err():
    return _lib.new_error()


def convert(src, out, endian=None, version=None, threads=0):
    """Writes src as GGUF `version` (2 or 3) in byte order `endian` ("little" or "big") to out
    (gguf-edit convert). threads: for the byte-order conversion of tensor data (0: one per
    CPU). A split set is written as one file."""
    if endian is None and version is None:
        raise ValueError("nothing to change: give endian and/or version")
    if threads == 0:
        threads = os.cpu_count() or 1
    opt = _lib.gguf_write_options(version=version or 0, threads=threads)
    if endian is not None:
        opt.endian = {"little": 0, "big": 1}[endian]
    with _open(src) as m:
        err = _err()
        check(_lib.gguf_file_save(m._ptr, _fspath(out), ctypes.byref(opt), ctypes.byref(err)),
              err)


def requant(src, out, type="Q8_0", threads=1, pure=False, leave_output=False,
            output_type=None, token_embd_type=None, keep_order=False, allow_requantize=False):
    """Requantizes src to out as llama.cpp's llama-quantize does (gguf-edit requant): type is
    a preset ("Q4_K_M", "COPY"), its number, or a tensor type ("Q4_K"); threads convert the
    tensor data. The output is the file llama.cpp writes."""
    opt = _lib.gguf_requant_options()
    err = _err()
    check(_lib.gguf_requant_parse_type(ctypes.byref(opt), str(type).encode(), ctypes.byref(err)),
          err)
    opt.threads = threads
    opt.pure = int(bool(pure) or opt.pure)
    opt.leave_output = int(bool(leave_output))
    opt.output_type = -1 if output_type is None else dtype_id(output_type)
    opt.token_embd_type = -1 if token_embd_type is None else dtype_id(token_embd_type)
    opt.keep_order = int(bool(keep_order))
    opt.allow_requantize = int(bool(allow_requantize))
    with _open(src) as m:
        err = _err()
        check(_lib.gguf_requant_save(m._ptr, _fspath(out), ctypes.byref(opt), None, None,
                                     ctypes.byref(err)), err)


def split(src, prefix, max_tensors=None, max_size=None, no_tensor_first=False):
    """Writes src as the split set PREFIX-00001-of-0000N.gguf ... as llama-gguf-split --split
    does: max_tensors per shard (default 128), or max_size bytes of tensor data per shard.
    Returns the paths of the shards."""
    if max_tensors is not None and max_size is not None:
        raise ValueError("give max_tensors or max_size, not both")
    opt = _lib.gguf_split_options(mode=0, max_tensors=max_tensors or 128,
                                  no_tensor_first=int(bool(no_tensor_first)))
    if max_size is not None:
        opt.mode = 1
        opt.max_bytes = int(max_size)
    n = ctypes.c_uint32()
    with _open(src) as m:
        err = _err()
        check(_lib.gguf_split_save(ctypes.byref(n), m._ptr, _fspath(prefix), ctypes.byref(opt),
                                   ctypes.byref(err)), err)
    prefix = os.fspath(prefix)
    return ["%s-%05d-of-%05d.gguf" % (prefix, k + 1, n.value) for k in range(n.value)]


def merge(shard, out):
    """Merges the split set `shard` belongs to (any shard's path) into the file out, as
    llama-gguf-split --merge does."""
    with _open(shard, split_set=True) as m:
        err = _err()
        check(_lib.gguf_split_merge_save(m._ptr, _fspath(out), None, None, ctypes.byref(err)),
              err)
