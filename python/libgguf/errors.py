"""The exceptions: one class per gguf_errcode, all subclasses of libgguf.Error.

Each carries what the library's gguf_error said: the message (naming the key or tensor), the
path (or URL) it is about, and the byte offset in that file (None when the error has none). The
key and the tensor are those the call was about when the package knows them, else the ones the
message names ("tensor 'x': ...", "key 'x': ...", "general.name: ..."), else None.
"""
import re

from . import _lib


class Error(Exception):
    """An error of libgguf: .code (a negative GGUF_E* code), .message, .path, .offset,
    .key and .tensor (None when unknown)."""

    code = 0

    def __init__(self, message, path=None, offset=None, key=None, tensor=None, code=None):
        self.message = message
        self.path = path or None
        self.offset = offset
        self.key = key
        self.tensor = tensor
        if code is not None:
            self.code = code
        super().__init__(self._text())

    def _text(self):
        where = self.path or ""
        if self.offset is not None:
            where += "%soffset %d" % (": " if where else "", self.offset)
        return "%s: %s" % (where, self.message) if where else self.message


class InvalidArgumentError(Error, ValueError):
    code = -1


class OutOfMemoryError(Error, MemoryError):
    code = -2


class FileIOError(Error, OSError):
    code = -3

    def __str__(self):  # OSError's own formatting would drop the message
        return self._text()


class TruncatedError(Error):
    code = -4


class CorruptError(Error):
    code = -5


class LimitError(Error):
    code = -6


class NotFoundError(Error, LookupError):
    code = -7


class TypeMismatchError(Error, TypeError):
    code = -8


class UnsupportedError(Error):
    code = -9


class ExistsError(Error):
    code = -10


_BY_CODE = {c.code: c for c in (InvalidArgumentError, OutOfMemoryError, FileIOError,
                                TruncatedError, CorruptError, LimitError, NotFoundError,
                                TypeMismatchError, UnsupportedError, ExistsError)}

_TENSOR_RE = re.compile(r"tensor '([^']*)'")
_KEY_RE = re.compile(r"key '([^']*)'")
_LEADING_KEY_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*\.[A-Za-z0-9_.\-]+)(?:\[\d+\])?: ")


def from_gguf(err, code, key=None, tensor=None):
    """The exception for a failed call: code is its return value, err its gguf_error."""
    message = err.message.decode("utf-8", "replace") or _lib.gguf_strerror(code).decode()
    path = err.path.decode("utf-8", "surrogateescape") or None
    offset = None if err.offset == _lib.ERROR_NO_OFFSET else err.offset
    if tensor is None:
        m = _TENSOR_RE.search(message)
        tensor = m.group(1) if m else None
    if key is None and tensor is None:
        m = _KEY_RE.search(message) or _LEADING_KEY_RE.match(message)
        key = m.group(1) if m else None
    cls = _BY_CODE.get(code, Error)
    return cls(message, path=path, offset=offset, key=key, tensor=tensor, code=code)


def check(rc, err, key=None, tensor=None):
    """Raises the exception of a failed call (rc < 0)."""
    if rc < 0:
        raise from_gguf(err, rc, key=key, tensor=tensor)
    return rc
