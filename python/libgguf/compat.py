"""gguf-py's reading interface over libgguf: GGUFReader, ReaderField, ReaderTensor.

Code written for gguf-py's reader runs with one import changed:

    from libgguf.compat import GGUFReader      # instead of: from gguf import GGUFReader

The file is parsed and checked by libgguf (errors are libgguf.Error, naming the byte offset and
the key or tensor). Fields give what gguf-py's give: .offset, .name, .types, .data, .parts and
.contents(); tensors .name, .tensor_type, .shape (ggml's dims), .n_elements, .n_bytes,
.data_offset, .data and .field. .parts are numpy arrays holding the bytes of the file's parts
(copies, in the file's byte order), built on first use; .contents() and .data (the indexes
into .parts) are computed without building them. Only reading is offered (mode 'r').
"""
import enum
import sys
from collections import OrderedDict

import numpy as np

from . import _lib, values
from .model import DTYPE_COUNT, open as _open

GGUFValueType = enum.IntEnum("GGUFValueType", [(values.VALUE_TYPES[i], i)
                                               for i in range(_lib.VTYPE_COUNT)])
GGMLQuantizationType = enum.IntEnum("GGMLQuantizationType", [
    (_lib.gguf_dtype_name(i).decode(), i) for i in range(DTYPE_COUNT) if _lib.gguf_dtype_name(i)])


class GGUFEndian(enum.IntEnum):
    LITTLE = 0
    BIG = 1


_SCALAR_NP = {GGUFValueType.UINT8: np.uint8, GGUFValueType.INT8: np.int8,
              GGUFValueType.UINT16: np.uint16, GGUFValueType.INT16: np.int16,
              GGUFValueType.UINT32: np.uint32, GGUFValueType.INT32: np.int32,
              GGUFValueType.FLOAT32: np.float32, GGUFValueType.UINT64: np.uint64,
              GGUFValueType.INT64: np.int64, GGUFValueType.FLOAT64: np.float64,
              GGUFValueType.BOOL: np.bool_}


def _one(value, dtype, big):
    dt = np.dtype(dtype)
    return np.array([value], dtype=dt.newbyteorder(">") if big and dt.itemsize > 1 else dt)


def _bytes_array(b):
    return np.frombuffer(b, dtype=np.uint8).copy()


def _value_parts(v, big, wide):
    """(parts, data, types) of a value, exactly as gguf-py's _get_field_parts builds them."""
    vtype = _lib.gguf_value_type(v)
    lw = np.uint64 if wide else np.uint32
    if vtype == _lib.VTYPE_STRING:
        s = values._string(v).encode("utf-8", "surrogateescape")
        return [_one(len(s), lw, big), _bytes_array(s)], [1], [GGUFValueType.STRING]
    if vtype != _lib.VTYPE_ARRAY:
        dt = values.np_dtype(vtype, big)
        raw = values.array_bytes_of_scalar(v)
        a = np.frombuffer(raw, dtype=dt).copy()
        if vtype == 7:
            a = a.view(np.bool_)
        return [a], [0], [GGUFValueType(vtype)]
    elem = _lib.gguf_value_elem_type(v)
    count = _lib.gguf_value_count(v)
    parts = [_one(elem, np.uint32, big), _one(count, lw, big)]
    data, types = [], [GGUFValueType.ARRAY]
    for i, e in enumerate(values.elements(v)):
        p, d, t = _value_parts(e, big, wide)
        if i == 0:
            types += t
        base = len(parts)
        parts += p
        data += [base + k for k in d]
    return parts, data, types


class ReaderField:
    """A metadata entry (or one of the header's GGUF.* pseudo-fields), as gguf-py's."""

    def __init__(self, offset, name, parts=None, data=None, types=None, _reader=None,
                 _index=None):
        self.offset = offset
        self.name = name
        self._parts = parts
        self._data = data
        self._types = types
        self._r = _reader
        self._i = _index

    def _value(self):
        return _lib.gguf_kv_value(self._r._m._ptr, self._i)

    def _flat(self):
        """For a flat array: (element type, count); else None."""
        v = self._value()
        if _lib.gguf_value_type(v) != _lib.VTYPE_ARRAY:
            return None
        elem = _lib.gguf_value_elem_type(v)
        return None if elem == _lib.VTYPE_ARRAY else (elem, _lib.gguf_value_count(v))

    def _build(self):
        v = self._value()
        key = self.name.encode("utf-8", "surrogateescape")
        big, wide = self._r._big, self._r._wide
        parts = [_one(len(key), np.uint64 if wide else np.uint32, big), _bytes_array(key),
                 _one(_lib.gguf_value_type(v), np.uint32, big)]
        p, d, t = _value_parts(v, big, wide)
        self._parts = parts + p
        self._data = [3 + k for k in d]
        self._types = t

    @property
    def parts(self):
        if self._parts is None:
            self._build()
        return self._parts

    @property
    def data(self):
        if self._data is None:
            flat = self._flat() if self._r is not None else None
            if flat is None:
                vtype = _lib.gguf_value_type(self._value())
                if vtype == _lib.VTYPE_ARRAY:
                    self._build()
                else:
                    self._data = [4 if vtype == _lib.VTYPE_STRING else 3]
            else:
                elem, n = flat
                self._data = (list(range(6, 6 + 2 * n, 2)) if elem == _lib.VTYPE_STRING
                              else list(range(5, 5 + n)))
        return self._data

    @property
    def types(self):
        if self._types is None:
            v = self._value()
            vtype = _lib.gguf_value_type(v)
            flat = self._flat()
            if vtype != _lib.VTYPE_ARRAY:
                self._types = [GGUFValueType(vtype)]
            elif flat is not None:
                self._types = [GGUFValueType.ARRAY] + ([GGUFValueType(flat[0])] if flat[1] else [])
            else:
                self._build()
        return self._types

    def contents(self, index_or_slice=slice(None)):
        """The value: a scalar, a str, or for arrays the list of their (flattened) elements,
        index_or_slice selecting among them, as gguf-py's ReaderField.contents."""
        if self._r is None or (self._parts is not None and self._flat() is None):
            return self._contents_from_parts(index_or_slice)
        v = self._value()
        vtype = _lib.gguf_value_type(v)
        if vtype == _lib.VTYPE_STRING:
            return values._string(v).encode("utf-8", "surrogateescape").decode("utf-8")
        if vtype != _lib.VTYPE_ARRAY:
            return values.to_python(v)
        if self._flat() is None:
            return self._contents_from_parts(index_or_slice)
        elem, _ = self._flat()
        if elem == _lib.VTYPE_STRING:
            items = [s.encode("utf-8", "surrogateescape").decode("utf-8")
                     for s in values.to_python(v)]
        else:
            items = values.to_python(v).tolist()
        return items[index_or_slice]

    def _contents_from_parts(self, index_or_slice):
        types, parts, data = self.types, self.parts, self.data
        if not types:
            return None
        to_string = lambda x: str(x.tobytes(), encoding="utf-8")  # noqa: E731
        if types[0] == GGUFValueType.ARRAY:
            if types[-1] == GGUFValueType.STRING:
                idx = data[index_or_slice]
                if isinstance(index_or_slice, int):
                    return to_string(parts[idx])
                return [to_string(parts[i]) for i in idx]
            if isinstance(index_or_slice, int):
                return parts[data[index_or_slice]].tolist()[0]
            return [pv for i in data[index_or_slice] for pv in parts[i].tolist()]
        if types[0] == GGUFValueType.STRING:
            return to_string(parts[-1])
        return parts[-1].tolist()[0]


class ReaderTensor:
    """A tensor, as gguf-py's: name, tensor_type, shape (ggml's dims), n_elements, n_bytes,
    data_offset (from the start of the file), data, field (its tensor info)."""

    __slots__ = ("name", "tensor_type", "shape", "n_elements", "n_bytes", "data_offset",
                 "_t", "_data", "field")

    def __init__(self, t, data_start, field, big):
        self._t = t
        self._data = None
        self.name = t.name
        self.tensor_type = GGMLQuantizationType(t.type_id)
        self.shape = _one(0, np.uint64, big)[:0] if not t.dims else np.array(
            t.dims, dtype=np.dtype(np.uint64).newbyteorder(">" if big else "<"))
        self.n_elements = t.n_elements
        self.n_bytes = t.nbytes
        self.data_offset = data_start + t.offset
        self.field = field

    @property
    def data(self):
        if self._data is None:
            self._data = self._t.data
        return self._data


class GGUFReader:
    """gguf-py's GGUFReader over libgguf (read-only: mode 'r')."""

    gguf_scalar_to_np = _SCALAR_NP

    def __init__(self, path, mode="r"):
        if mode != "r":
            raise NotImplementedError("libgguf.compat.GGUFReader only reads (mode 'r'); edit "
                                      "with libgguf.edit()")
        self._path = path
        self._m = _open(path, split_set=False)
        m = self._m
        self._big = m.endian == "big"
        self._wide = m.version >= 2
        self.endianess = GGUFEndian.BIG if self._big else GGUFEndian.LITTLE
        host_big = sys.byteorder == "big"
        self.byte_order = "S" if self._big != host_big else "I"
        self.alignment = m.alignment
        self.data_offset = m.data_offset
        self._memmap = None
        self.fields = OrderedDict()
        cw = np.uint64 if self._wide else np.uint32
        csize = 8 if self._wide else 4
        n_kv, n_t = len(m.kv), len(m.tensors)
        self._push(ReaderField(4, "GGUF.version", [_one(m.version, np.uint32, self._big)], [0],
                               [GGUFValueType.UINT32]))
        self._push(ReaderField(8, "GGUF.tensor_count", [_one(n_t, cw, self._big)], [0],
                               [GGUFValueType(10 if self._wide else 4)]))
        self._push(ReaderField(8 + csize, "GGUF.kv_count", [_one(n_kv, cw, self._big)], [0],
                               [GGUFValueType(10 if self._wide else 4)]))
        ptr = m._ptr
        end = 8 + 2 * csize
        kv = m.kv
        for i in range(n_kv):
            off = _lib.gguf_kv_source_offset(ptr, i)
            name = kv._key(i)
            self._push(ReaderField(off, name, _reader=self, _index=i))
            v = _lib.gguf_kv_value(ptr, i)
            end = off + csize + len(name.encode("utf-8", "surrogateescape")) + 4 + \
                v.contents.raw_len
        self.tensors = []
        for t in m.tensors.values():
            key = t.name.encode("utf-8", "surrogateescape")
            parts = [_one(len(key), cw, self._big), _bytes_array(key),
                     _one(len(t.dims), np.uint32, self._big),
                     np.array(t.dims, dtype=np.dtype(cw).newbyteorder(">" if self._big else "<")),
                     _one(t.type_id, np.uint32, self._big), _one(t.offset, np.uint64, self._big)]
            field = ReaderField(end, t.name, parts, [1, 3, 4, 5], [])
            end += sum(int(p.nbytes) for p in parts)
            self.tensors.append(ReaderTensor(t, self.data_offset, field, self._big))

    def _push(self, field):
        if field.name in self.fields:
            raise KeyError("Duplicate %s already in list at offset %d" % (field.name,
                                                                        field.offset))
        self.fields[field.name] = field

    @property
    def data(self):
        """The whole file as a read-only numpy memmap (as gguf-py's reader.data)."""
        if self._memmap is None:
            self._memmap = np.memmap(self._path, mode="r")
        return self._memmap

    def get_field(self, key):
        return self.fields.get(key, None)

    def get_tensor(self, idx):
        return self.tensors[idx]
