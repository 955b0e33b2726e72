"""Model.verify(): llama.cpp's loader rules as findings (gguf_llama_check)."""
import ctypes
from typing import NamedTuple, Optional

from . import _lib
from .errors import check

SEVERITIES = ("note", "warning", "error")


class Finding(NamedTuple):
    """One finding: severity "error" (llama.cpp refuses the file), "warning" (it loads it, but
    something is wrong) or "note"; the key or tensor at fault (or None); the message; the shard
    of a split set and the byte offset in it (None when it has none)."""
    severity: str
    message: str
    key: Optional[str]
    tensor: Optional[str]
    shard: int
    offset: Optional[int]


def _s(b):
    return b.decode("utf-8", "surrogateescape") if b is not None else None


def verify(model, vocab_only=False):
    """gguf_llama_check of the model (a file, or a split set's view) as gguf-edit verify runs
    it; vocab_only checks it as llama.cpp loads it with vocab_only."""
    found = []

    def on_finding(user, f):
        f = f.contents
        found.append(Finding(SEVERITIES[f.severity], _s(f.message), _s(f.key), _s(f.tensor),
                             f.shard, None if f.offset == _lib.ERROR_NO_OFFSET else f.offset))

    cb = _lib.llama_finding_fn(on_finding)
    err = _lib.new_error()
    check(_lib.gguf_llama_check(None, model._ptr, 1 if vocab_only else 0, cb, None,
                                ctypes.byref(err)), err)
    return found
