"""libgguf.edit(): a transaction of metadata and tensor edits, written back as gguf-edit does.

The steps are gguf-edit's (tools/cmd_edit.c): an interrupted earlier edit is finished first
(gguf_file_recover), the file is opened alone (not as a split set), the edits are applied to it
in memory, the result is refused when it has more of llama.cpp's structural warnings than the
original (gguf_file_lint) unless force, and it is written back with gguf_file_update (in place
through a journal when the header fits, else a verified rewrite renamed over the file), or to
`output` with gguf_file_save and its read-back check. Nothing is written when the block raises.
"""
import ctypes
import json
import os
from typing import NamedTuple

import numpy as np

from . import _lib
from .errors import InvalidArgumentError, check
from .model import Model, _Handle, _fspath

_NP_VTYPE = {"u1": 0, "i1": 1, "u2": 2, "i2": 3, "u4": 4, "i4": 5, "f4": 6, "b1": 7, "u8": 10,
             "i8": 11, "f8": 12}
_VTYPE_NP = {v: k for k, v in _NP_VTYPE.items()}


class CommitResult(NamedTuple):
    """How the edit was written: in_place (only the header rewritten, through a journal),
    inserted (bytes inserted before the data in place), cloned (bytes of a rewrite shared with
    the old file), tensors_checked (tensors proven to keep their bytes), hard_links, outgrew
    (the header no longer fit before the data); for output= files, in_place is False and
    tensors_checked counts the tensors read back."""
    in_place: bool
    inserted: int
    cloned: int
    tensors_checked: int
    hard_links: int
    outgrew: bool


def vtype_id(t):
    """A value type id from a name ("u32", "UINT32", "str", ...) or an id."""
    if isinstance(t, int):
        return t
    i = _lib.gguf_vtype_parse(t.encode())
    if i < 0:
        raise ValueError("unknown value type %r" % (t,))
    return i


def _infer_scalar(value):
    if isinstance(value, (bool, np.bool_)):
        return 7
    if isinstance(value, (int, np.integer)):
        v = int(value)
        return 5 if -2**31 <= v < 2**31 else 11 if -2**63 <= v < 2**63 else 10
    if isinstance(value, (float, np.floating)):
        return 6
    if isinstance(value, (str, bytes)):
        return _lib.VTYPE_STRING
    raise TypeError("no GGUF type for a value of type %s: give type=" % type(value).__name__)


def _text(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def edit(path, output=None, force=False, in_place=True, reserve=0, lenient=False,
         unknown_types=False):
    """Starts an edit of the GGUF file at path, to be used as a context manager:

        with libgguf.edit("model.gguf") as e:
            e.set("general.name", "My model")
            e.rm("general.url")

    The edits are written when the block ends without an exception (or by commit()); see the
    module's docstring for how. output: write the result there instead; force: write what the
    lint would refuse; in_place=False: always rewrite the whole file; reserve: keep that many
    bytes of room in the header for later edits."""
    return Editor(path, output, force, in_place, reserve, lenient, unknown_types)


class Editor:
    """An edit in progress. .kv and .tensors show the edited state."""

    def __init__(self, path, output=None, force=False, in_place=True, reserve=0, lenient=False,
                 unknown_types=False):
        self.path = os.fspath(path)
        self.output = os.fspath(output) if output is not None else None
        self.force = force
        self.in_place = in_place
        self.reserve = reserve
        self.result = None
        bpath = _fspath(self.path)
        if self._same_file():
            recovered = ctypes.c_int()
            err = _lib.new_error()
            check(_lib.gguf_file_recover(bpath, ctypes.byref(recovered), ctypes.byref(err)), err)
        flags = (_lib.OPEN_LENIENT if lenient else 0) | (
            _lib.OPEN_UNKNOWN_TYPES if unknown_types else 0)
        ptr = ctypes.c_void_p()
        err = _lib.new_error()
        opt = _lib.gguf_open_options(flags=flags)
        check(_lib.gguf_file_open_ex(ctypes.byref(ptr), bpath, ctypes.byref(opt),
                                     ctypes.byref(err)), err)
        self._h = _Handle(ptr.value)
        self._model = Model(self._h)
        self._warnings_before = len(self._lint())

    def _same_file(self):
        if self.output is None:
            return True
        try:
            a, b = os.stat(self.path), os.stat(self.output)
        except OSError:
            return False
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)

    @property
    def _ptr(self):
        if self._h is None:
            raise ValueError("the edit is finished")
        return self._h.ptr

    def _lint(self):
        found = []
        cb = _lib.warn_fn(lambda user, msg, off: found.append(msg.decode("utf-8", "replace")))
        _lib.gguf_file_lint(self._ptr, cb, None, None)
        return found

    @property
    def kv(self):
        return self._model.kv

    @property
    def tensors(self):
        return self._model.tensors

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self._h is not None:
            self.commit()
        else:
            self.abort()

    # ---- the operations ----

    def _call(self, fn, *args, key=None, tensor=None):
        err = _lib.new_error()
        check(fn(self._ptr, *args, ctypes.byref(err)), err, key=key, tensor=tensor)
        return self

    def set(self, key, value, type=None, elem_type=None):
        """Sets key to value. An existing key keeps its place and its type unless type (or, for
        arrays, elem_type) says otherwise; a new key goes at the end, typed from the Python
        value (bool: BOOL, int: INT32 or INT64, float: FLOAT32, str: STRING, a list or numpy
        array: ARRAY of the type its elements imply). Numbers are range-checked by the library:
        set("k", 300, type="u8") raises InvalidArgumentError."""
        bkey = key.encode("utf-8", "surrogateescape")
        at = _lib.gguf_kv_find(self._ptr, bkey)
        old = _lib.gguf_kv_value(self._ptr, at) if at >= 0 else None
        old_type = _lib.gguf_value_type(old) if old else None
        vtype = vtype_id(type) if type is not None else None
        if isinstance(value, (list, tuple, np.ndarray)) or vtype == _lib.VTYPE_ARRAY:
            elem = vtype_id(elem_type) if elem_type is not None else (
                vtype if vtype not in (None, _lib.VTYPE_ARRAY) else None)
            if elem is None and old_type == _lib.VTYPE_ARRAY:
                elem = _lib.gguf_value_elem_type(old)
            return self._set_array(key, bkey, value, elem)
        if vtype is None:
            vtype = old_type if old_type is not None else _infer_scalar(value)
        if vtype == _lib.VTYPE_STRING:
            b = value if isinstance(value, bytes) else str(value).encode("utf-8",
                                                                          "surrogateescape")
            return self._call(_lib.gguf_kv_set_str, bkey, b, len(b), key=key)
        text = _text(value).encode()
        return self._call(_lib.gguf_kv_set_text, bkey, vtype, _lib.VTYPE_COUNT, text, len(text),
                          key=key)

    def _set_array(self, key, bkey, value, elem):
        if isinstance(value, np.ndarray):
            code = value.dtype.kind + str(value.dtype.itemsize) if value.dtype.kind != "b" else "b1"
            want = _VTYPE_NP.get(elem) if elem is not None else code
            if want == code and code in _NP_VTYPE:
                a = np.ascontiguousarray(value.ravel(), dtype=value.dtype.newbyteorder("="))
                return self._call(_lib.gguf_kv_set_array, bkey, _NP_VTYPE[code], a.ctypes.data,
                                  a.size, key=key)
            value = value.tolist()
        value = list(value)
        if (elem in (None, _lib.VTYPE_STRING) and value and
                all(isinstance(s, (str, bytes)) for s in value)):
            bs = [s if isinstance(s, bytes) else s.encode("utf-8", "surrogateescape")
                  for s in value]
            strs = (ctypes.c_char_p * len(bs))(*bs)
            lens = (ctypes.c_size_t * len(bs))(*map(len, bs))
            return self._call(_lib.gguf_kv_set_str_array, bkey, strs, lens, len(bs), key=key)
        text = json.dumps([x.item() if isinstance(x, np.generic) else x for x in value]).encode()
        return self._call(_lib.gguf_kv_set_text, bkey, _lib.VTYPE_ARRAY,
                          _lib.VTYPE_COUNT if elem is None else elem, text, len(text), key=key)

    def rm(self, key):
        """Removes a key (NotFoundError when there is none)."""
        return self._call(_lib.gguf_kv_remove, key.encode("utf-8", "surrogateescape"), key=key)

    def rename(self, old, new):
        """Renames a key, keeping its value, type and place."""
        return self._call(_lib.gguf_kv_rename, old.encode("utf-8", "surrogateescape"),
                          new.encode("utf-8", "surrogateescape"), key=old)

    def rename_tensor(self, old, new):
        """Renames a tensor (at most 64 bytes; ExistsError when the name is taken)."""
        return self._call(_lib.gguf_tensor_rename, old.encode("utf-8", "surrogateescape"),
                          new.encode("utf-8", "surrogateescape"), tensor=old)

    def rm_tensor(self, name):
        """Removes a tensor; the data is then laid out packed."""
        return self._call(_lib.gguf_tensor_remove, name.encode("utf-8", "surrogateescape"),
                          tensor=name)

    def realign(self, alignment):
        """Sets general.alignment (UINT32) and lays the tensor data out again."""
        return self.set("general.alignment", int(alignment), type="u32")

    # ---- the end ----

    def commit(self):
        """Writes the edits (see the module's docstring) and ends the edit. Returns a
        CommitResult; raises a libgguf.Error (nothing written) when the lint or the write
        refuses."""
        try:
            after = self._lint()
            if len(after) > self._warnings_before and not self.force:
                raise InvalidArgumentError(
                    "the edit would make a file llama.cpp refuses (%s); nothing written "
                    "(force=True writes it anyway)" % "; ".join(after), path=self.path)
            opt = _lib.gguf_write_options(no_in_place=int(not self.in_place),
                                          reserve=self.reserve)
            err = _lib.new_error()
            if self._same_file():
                res = _lib.gguf_update_result()
                check(_lib.gguf_file_update(self._ptr, _fspath(self.path), ctypes.byref(opt),
                                            ctypes.byref(res), ctypes.byref(err)), err)
                self.result = CommitResult(bool(res.in_place), res.inserted, res.cloned,
                                           res.tensors_checked, res.hard_links,
                                           bool(res.outgrew))
            else:
                opt.verify = 1
                check(_lib.gguf_file_save(self._ptr, _fspath(self.output), ctypes.byref(opt),
                                          ctypes.byref(err)), err)
                self.result = CommitResult(False, 0, 0, _lib.gguf_tensor_count(self._ptr), 1,
                                           False)
            return self.result
        finally:
            self.abort()

    def abort(self):
        """Ends the edit without writing anything."""
        self._model.close()
        self._h = None
