"""Metadata values as Python values, and the names of their types.

Scalars become int, float, bool or str; arrays of strings a list of str; arrays of numbers and
bools a numpy array (a copy, in the host's byte order); arrays of arrays a list. Strings that
are not UTF-8 keep their bytes as surrogate escapes (str.encode("utf-8", "surrogateescape")
gives them back).
"""
import ctypes
import json
import re

import numpy as np

from . import _lib

VALUE_TYPES = [_lib.gguf_vtype_name(i).decode() for i in range(_lib.VTYPE_COUNT)]

# numpy dtypes of the numeric value types, in little-endian order
_NP = {0: "u1", 1: "i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "u1",
       10: "<u8", 11: "<i8", 12: "<f8"}
_FLOATS = (6, 12)
_BOOL = 7

# In the library's JSON, a byte that is not UTF-8 is written \u0080..\u00ff while valid
# characters are written as themselves: such an escape means the fast path cannot be trusted
# (it may also be a literal backslash before "u00.."; the slow path is right either way).
_NOT_UTF8 = re.compile(rb"\\u00[89a-fA-F]")


def np_dtype(vtype, big_endian=False):
    """The numpy dtype of a numeric value type in the given byte order."""
    dt = np.dtype(_NP[vtype])
    return dt.newbyteorder(">") if big_endian and dt.itemsize > 1 else dt


def _string(v):
    s = ctypes.c_void_p()
    n = ctypes.c_uint64()
    _lib.gguf_value_get_str(ctypes.byref(s), ctypes.byref(n), v, None)
    return ctypes.string_at(s.value, n.value).decode("utf-8", "surrogateescape") if n.value else ""


def _scalar(v, vtype):
    if vtype == _lib.VTYPE_STRING:
        return _string(v)
    if vtype in _FLOATS:
        d = ctypes.c_double()
        _lib.gguf_value_get_f64(ctypes.byref(d), v, None)
        return d.value
    if vtype == _BOOL:
        b = ctypes.c_uint8()
        _lib.gguf_value_get_bool_byte(ctypes.byref(b), v, None)
        return b.value != 0
    u, i, signed = ctypes.c_uint64(), ctypes.c_int64(), ctypes.c_int()
    _lib.gguf_value_get_int(ctypes.byref(u), ctypes.byref(i), ctypes.byref(signed), v, None)
    return i.value if signed.value else u.value


def array_bytes(v, elem, count):
    """The packed element bytes of an array of numbers (a copy), and whether big-endian."""
    if count == 0:
        return b"", False
    it = _lib.gguf_value_iter()
    e = _lib.gguf_value()
    _lib.gguf_value_iter_init(ctypes.byref(it), v)
    _lib.gguf_value_iter_next(ctypes.byref(it), ctypes.byref(e))
    return ctypes.string_at(e.raw, count * _lib.gguf_vtype_size(elem)), bool(e.big_endian)


def _strings_json(v):
    t = _lib.gguf_text()
    try:
        if _lib.gguf_json_value(ctypes.byref(t), v) != 0:
            raise MemoryError("libgguf: out of memory writing a value as JSON")
        text = ctypes.string_at(t.data, t.len) if t.len else b"[]"
    finally:
        _lib.gguf_text_free(ctypes.byref(t))
    return None if _NOT_UTF8.search(text) else json.loads(text)


def elements(v):
    """Views of an array's elements, in order (valid while the file is)."""
    it = _lib.gguf_value_iter()
    _lib.gguf_value_iter_init(ctypes.byref(it), v)
    while True:
        e = _lib.gguf_value()
        if not _lib.gguf_value_iter_next(ctypes.byref(it), ctypes.byref(e)):
            return
        yield e


def to_python(v):
    """The Python value of a gguf_value (a pointer or a gguf_value)."""
    vtype = _lib.gguf_value_type(v)
    if vtype != _lib.VTYPE_ARRAY:
        return _scalar(v, vtype)
    elem = _lib.gguf_value_elem_type(v)
    count = _lib.gguf_value_count(v)
    if elem == _lib.VTYPE_STRING:
        fast = _strings_json(v)
        if fast is not None:
            return fast
        return [_string(e) for e in elements(v)]
    if elem == _lib.VTYPE_ARRAY:
        return [to_python(e) for e in elements(v)]
    raw, big = array_bytes(v, elem, count)
    a = np.frombuffer(raw, dtype=np_dtype(elem, big))
    if elem == _BOOL:
        return a != 0
    return a.astype(a.dtype.newbyteorder("=")) if big else a.copy()


def type_name(v):
    """The spec's name of a value's type; for arrays "ARRAY[ELEM]" (nested: ARRAY[ARRAY[...]])."""
    vtype = _lib.gguf_value_type(v)
    if vtype != _lib.VTYPE_ARRAY:
        return VALUE_TYPES[vtype]
    elem = _lib.gguf_value_elem_type(v)
    if elem == _lib.VTYPE_ARRAY and _lib.gguf_value_count(v) > 0:
        return "ARRAY[%s]" % type_name(next(elements(v)))
    return "ARRAY[%s]" % VALUE_TYPES[elem]


def array_bytes_of_scalar(v):
    """The stored bytes of a numeric scalar (in its file's byte order)."""
    if not isinstance(v, _lib.gguf_value):
        v = v.contents
    return ctypes.string_at(v.raw, _lib.gguf_vtype_size(v.type))
