"""libgguf: read, edit and write GGUF files (llama.cpp's model format) at C speed.

A ctypes package over the libgguf shared library:

    import libgguf
    with libgguf.open("model.gguf") as m:          # a path, a URL, or a shard of a split set
        print(m.kv["general.architecture"])
        t = m.tensors["blk.0.attn_q.weight"]
        w = t.numpy(threads=4)                     # float32, by the library's kernels
    with libgguf.edit("model.gguf") as e:          # written back as gguf-edit writes edits
        e.set("general.name", "My model")
    libgguf.requant("model.gguf", "model-q4.gguf", "Q4_K_M", threads=4)

Errors raise subclasses of libgguf.Error, with .path, .offset, .key and .tensor.
`python3 -m libgguf show FILE` prints a file. libgguf.compat.GGUFReader reads like gguf-py's.
"""
from .errors import (Error, InvalidArgumentError, OutOfMemoryError, FileIOError,
                     TruncatedError, CorruptError, LimitError, NotFoundError, TypeMismatchError,
                     UnsupportedError, ExistsError)
from .model import Model, Tensor, open, dtype_name, dtype_id
from .edit import edit, Editor, CommitResult
from .verify import Finding
from .estimate import Estimate
from .verbs import convert, requant, split, merge
from .catalog import Catalog
from . import _lib
from .errors import check as _check
from .model import _fspath
import ctypes as _ctypes


def recover(path):
    """Finishes an interrupted in-place edit of path (gguf-edit recover): True when one was
    finished, False when there was none."""
    done = _ctypes.c_int()
    err = _lib.new_error()
    _check(_lib.gguf_file_recover(_fspath(path), _ctypes.byref(done), _ctypes.byref(err)), err)
    return bool(done.value)


def library_version():
    """The version of the libgguf shared library in use ("0.1.0")."""
    return _lib.gguf_version_string().decode()


__all__ = ["open", "edit", "recover", "library_version", "convert", "requant", "split", "merge", "Catalog",
           "Model", "Tensor", "Editor", "CommitResult", "Finding", "Estimate", "dtype_name",
           "dtype_id", "Error", "InvalidArgumentError", "OutOfMemoryError", "FileIOError",
           "TruncatedError", "CorruptError", "LimitError", "NotFoundError",
           "TypeMismatchError", "UnsupportedError", "ExistsError"]
