"""A GGUF file opened for reading: libgguf.open() and the Model, its metadata and its tensors."""
import collections.abc
import ctypes
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _lib, values
from .errors import check

DTYPE_COUNT = 43
# numpy dtypes of tensor types stored as plain numbers (the others are bytes of blocks)
_PLAIN = {0: "<f4", 1: "<f2", 24: "i1", 25: "<i2", 26: "<i4", 27: "<i8", 28: "<f8"}


def dtype_name(dtype):
    """ggml's name of a tensor type id ("Q4_K"), or "TYPE_<id>" for one the library lacks."""
    n = _lib.gguf_dtype_name(dtype)
    return n.decode() if n else "TYPE_%d" % dtype


def dtype_id(name):
    """The id of a tensor type name (any case); raises ValueError for an unknown name."""
    if isinstance(name, int):
        return name
    i = _lib.gguf_dtype_parse(name.encode())
    if i < 0:
        raise ValueError("unknown tensor type %r" % (name,))
    return i


class _Handle:
    """Owns a gguf_file*: freed when the last owner (a Model, an array view) lets it go."""

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        if self.ptr:
            _lib.gguf_file_free(self.ptr)
            self.ptr = None


class _Bytes:
    """Read-only memory of a handle, as a numpy array base that keeps the handle alive."""

    def __init__(self, handle, address, n):
        self._handle = handle
        self.__array_interface__ = {"version": 3, "shape": (n,), "typestr": "|u1",
                                    "data": (address, True)}


def _fspath(path):
    path = os.fspath(path)
    return path.encode("utf-8", "surrogateescape") if isinstance(path, str) else path


def open(path_or_url, *, split_set=True, lenient=False, endian=None, mmap=True,
         unknown_types=False, partial=False, headers=None, offline=False, timeout=0,
         retries=0, deadline=0, whole_limit=0):
    """Opens a GGUF file (a path or an http(s):// URL) for reading and returns a Model.

    split_set: a shard of a split set opens the whole set as one model (as gguf-edit does);
    lenient: accept duplicate keys and tensor names; endian: "little" or "big" to override the
    detection; mmap=False reads the file instead of mapping it; unknown_types: accept tensor
    types the library does not know; partial: accept a file cut short inside its tensor data.
    For URLs: headers (a list of "Name: value"), offline, timeout, retries, deadline (seconds)
    and whole_limit (bytes), as gguf_open_options. Raises a libgguf.Error naming the path, the
    byte offset and the key or tensor when the file is refused.
    """
    flags = ((_lib.OPEN_SPLIT_SET if split_set else 0) | (_lib.OPEN_LENIENT if lenient else 0) |
             (0 if mmap else _lib.OPEN_NO_MMAP) |
             (_lib.OPEN_UNKNOWN_TYPES if unknown_types else 0) |
             (_lib.OPEN_PARTIAL if partial else 0))
    if endian == "little":
        flags |= _lib.OPEN_FORCE_LITTLE
    elif endian == "big":
        flags |= _lib.OPEN_FORCE_BIG
    elif endian is not None:
        raise ValueError("endian must be 'little', 'big' or None, not %r" % (endian,))
    opt = _lib.gguf_open_options(flags=flags, offline=int(bool(offline)), timeout_s=timeout,
                                 retries=retries, deadline_s=deadline, whole_limit=whole_limit)
    if headers:
        hdrs = (ctypes.c_char_p * (len(headers) + 1))(*[h.encode() for h in headers], None)
        opt.headers = hdrs
    ptr = ctypes.c_void_p()
    err = _lib.new_error()
    check(_lib.gguf_file_open_ex(ctypes.byref(ptr), _fspath(path_or_url), ctypes.byref(opt),
                                 ctypes.byref(err)), err)
    return Model(_Handle(ptr.value))


class Model:
    """A parsed GGUF file (or split set): header facts, .kv, .tensors. A context manager.

    Tensor objects and the arrays of Tensor.data stay valid after close(): the file is released
    when the last of them is gone (so a view never points at unmapped memory).
    """

    def __init__(self, handle):
        self._h = handle

    @property
    def _ptr(self):
        if self._h is None:
            raise ValueError("the model is closed")
        return self._h.ptr

    def close(self):
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def closed(self):
        return self._h is None

    @property
    def path(self):
        p = _lib.gguf_file_path(self._ptr)
        return p.decode("utf-8", "surrogateescape") if p else None

    version = property(lambda self: _lib.gguf_file_version(self._ptr), doc="GGUF version")
    endian = property(lambda self: ("little", "big")[_lib.gguf_file_endian(self._ptr)],
                      doc="'little' or 'big'")
    alignment = property(lambda self: _lib.gguf_file_alignment(self._ptr))
    data_offset = property(lambda self: _lib.gguf_file_data_offset(self._ptr),
                           doc="where tensor data starts (in the first shard)")
    size = property(lambda self: _lib.gguf_file_size(self._ptr), doc="bytes (of every shard)")
    shard_count = property(lambda self: _lib.gguf_file_shard_count(self._ptr))

    @property
    def kv(self):
        """The metadata: a read-only Mapping of key -> Python value, in file order."""
        self._ptr  # raises when closed
        return KV(self)

    @property
    def tensors(self):
        """The tensors: a read-only Mapping of name -> Tensor, in file order."""
        self._ptr  # raises when closed
        return Tensors(self)

    def verify(self, vocab_only=False):
        """What llama.cpp's loader would refuse or warn about (gguf_llama_check, as gguf-edit
        verify checks): a list of Finding, errors first as the library reports them."""
        from .verify import verify
        return verify(self, vocab_only)

    def estimate(self, **params):
        """The memory llama.cpp allocates for this model and a context (gguf_llama_estimate_run;
        parameters as in libgguf.estimate.estimate)."""
        from .estimate import estimate
        return estimate(self, **params)

    def __repr__(self):
        if self._h is None:
            return "<libgguf.Model closed>"
        return "<libgguf.Model %r v%d %s, %d keys, %d tensors>" % (
            self.path, self.version, self.endian, len(self.kv), len(self.tensors))


class KV(collections.abc.Mapping):
    """Key -> value (values converted on each access; see libgguf.values)."""

    def __init__(self, model):
        self._m = model

    def __len__(self):
        return _lib.gguf_kv_count(self._m._ptr)

    def _key(self, i):
        n = ctypes.c_size_t()
        p = _lib.gguf_kv_key(self._m._ptr, i, ctypes.byref(n))
        return ctypes.string_at(p, n.value).decode("utf-8", "surrogateescape")

    def __iter__(self):
        for i in range(len(self)):
            yield self._key(i)

    def _index(self, key):
        i = _lib.gguf_kv_find(self._m._ptr, key.encode("utf-8", "surrogateescape"))
        if i < 0:
            raise KeyError(key)
        return i

    def __getitem__(self, key):
        return values.to_python(_lib.gguf_kv_value(self._m._ptr, self._index(key)))

    def __contains__(self, key):
        return isinstance(key, str) and _lib.gguf_kv_find(
            self._m._ptr, key.encode("utf-8", "surrogateescape")) >= 0

    def type(self, key):
        """The value's type: "UINT32", "STRING", "ARRAY[FLOAT32]", ..."""
        return values.type_name(_lib.gguf_kv_value(self._m._ptr, self._index(key)))

    def offset(self, key):
        """Byte offset of the entry in the file, or None for one added by an edit."""
        o = _lib.gguf_kv_source_offset(self._m._ptr, self._index(key))
        return None if o == _lib.ERROR_NO_OFFSET else o


class Tensors(collections.abc.Mapping):
    """Tensor name -> Tensor, in file order."""

    def __init__(self, model):
        self._m = model

    def __len__(self):
        return _lib.gguf_tensor_count(self._m._ptr)

    def __iter__(self):
        for i in range(len(self)):
            yield Tensor(self._m, i).name

    def __getitem__(self, name):
        i = _lib.gguf_tensor_find(self._m._ptr, name.encode("utf-8", "surrogateescape"))
        if i < 0:
            raise KeyError(name)
        return Tensor(self._m, i)

    def __contains__(self, name):
        return isinstance(name, str) and _lib.gguf_tensor_find(
            self._m._ptr, name.encode("utf-8", "surrogateescape")) >= 0

    def values(self):
        return [Tensor(self._m, i) for i in range(len(self))]

    def items(self):
        return [(t.name, t) for t in self.values()]


class Tensor:
    """One tensor: .name, .type ("Q4_K"), .type_id, .shape (numpy order: ggml's dims
    reversed), .dims (ggml order), .n_elements, .nbytes, .offset (from the data offset),
    .shard, .data (a zero-copy view of the stored bytes) and .numpy() (values as float32)."""

    def __init__(self, model, index):
        self._m = model
        self._h = model._h
        self.index = index
        info = _lib.gguf_tensor_info()
        _lib.gguf_tensor_get(ctypes.byref(info), model._ptr, index)
        self.name = ctypes.string_at(info.name, info.name_len).decode("utf-8", "surrogateescape")
        self.type_id = info.type
        self.type = dtype_name(info.type)
        self.dims = tuple(info.dims[:info.n_dims])
        self.shape = tuple(reversed(self.dims))
        self.offset = info.offset
        self.nbytes = None if info.nbytes == _lib.NBYTES_UNKNOWN else info.nbytes
        self.n_elements = int(np.prod(self.dims, dtype=object)) if self.dims else 1

    def __repr__(self):
        return "<libgguf.Tensor %r %s %s>" % (self.name, self.type, self.shape)

    @property
    def shard(self):
        return _lib.gguf_tensor_shard(self._h.ptr, self.index)

    def _raw(self):
        """The stored bytes as a flat uint8 array: a view of the mapping, or a copy read."""
        if self.nbytes is None:
            raise ValueError("tensor %r: type %s has no known size" % (self.name, self.type))
        p = _lib.gguf_tensor_data(self._h.ptr, self.index)
        if p:
            return np.asarray(_Bytes(self._h, p, self.nbytes))
        buf = np.empty(self.nbytes, dtype=np.uint8)
        err = _lib.new_error()
        check(_lib.gguf_tensor_read(buf.ctypes.data, self._h.ptr, self.index, 0, self.nbytes,
                                    ctypes.byref(err)), err, tensor=self.name)
        return buf

    @property
    def big_endian(self):
        return _lib.gguf_file_endian(self._h.ptr) == 1

    @property
    def data(self):
        """The stored bytes, without a copy where the file is mapped: plain types (F32, F16,
        I8..I64, F64) as numbers of their type in the file's byte order, shaped as .shape;
        block types as uint8, one row of bytes per row of the tensor (as gguf-py gives them)."""
        raw = self._raw()
        plain = _PLAIN.get(self.type_id)
        if plain is not None:
            dt = np.dtype(plain)
            if self.big_endian and dt.itemsize > 1:
                dt = dt.newbyteorder(">")
            return raw.view(dt).reshape(self.shape)
        if not self.dims:
            return raw
        row = self.nbytes // max(1, self.n_elements // self.dims[0]) if self.n_elements else 0
        return raw.reshape(self.shape[:-1] + (row,))

    def numpy(self, threads=1):
        """The values as a float32 array of .shape, converted by the library's kernels
        (bit-identical to ggml's), on `threads` threads."""
        if not _lib.gguf_quant_can_dequantize(self.type_id):
            raise ValueError("tensor %r: type %s cannot be converted to float" %
                             (self.name, self.type))
        src = self._raw()
        if self.big_endian:
            le = np.empty_like(src)
            err = _lib.new_error()
            check(_lib.gguf_dtype_byteswap_copy(le.ctypes.data, src.ctypes.data, src.nbytes,
                                                self.type_id, ctypes.byref(err)),
                  err, tensor=self.name)
            src = le
        out = np.empty(self.n_elements, dtype=np.float32)
        block = _lib.gguf_dtype_block_elems(self.type_id)
        block_bytes = _lib.gguf_dtype_block_bytes(self.type_id)
        n_blocks = self.n_elements // block
        threads = max(1, min(int(threads), n_blocks or 1))
        step = -(-n_blocks // threads)

        def run(first):
            count = min(step, n_blocks - first)
            err = _lib.new_error()
            check(_lib.gguf_quant_dequantize(out.ctypes.data + first * block * 4, self.type_id,
                                             src.ctypes.data + first * block_bytes,
                                             count * block_bytes, count * block,
                                             ctypes.byref(err)), err, tensor=self.name)

        starts = range(0, n_blocks, step) if n_blocks else []
        if threads == 1:
            for s in starts:
                run(s)
        else:  # ctypes lets the GIL go during each call: the chunks run in parallel
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(run, starts))
        return out.reshape(self.shape)

    def crc32(self):
        """zlib crc32 of the stored bytes."""
        c = ctypes.c_uint32()
        err = _lib.new_error()
        check(_lib.gguf_crc_tensor(ctypes.byref(c), self._h.ptr, self.index, ctypes.byref(err)),
              err, tensor=self.name)
        return c.value
