"""Model.estimate(): the memory llama.cpp allocates for a model and a context."""
import ctypes
from typing import NamedTuple

from . import _lib
from .errors import check
from .model import dtype_id

_FLASH = {"auto": -1, "off": 0, "on": 1, None: -1, False: 0, True: 1}


class Estimate(NamedTuple):
    """Bytes llama.cpp allocates on its CPU backend (see gguf_llama_estimate in gguf.h)."""
    weights: int
    context: int
    compute: int
    total: int
    weights_token_embd: int
    weights_output: int
    weights_other: int
    n_ctx: int          # the context as llama.cpp resolves it (padded; training context for 0)
    n_ctx_train: int
    n_ctx_seq: int
    n_swa_cells: int
    flash_attn_used: bool
    layers: list        # per layer: dict of weights, k, v, r, s, cells, swa


def estimate(model, n_ctx=None, type_k=None, type_v=None, n_seq=None, n_batch=None,
             n_ubatch=None, flash_attn="auto", swa_full=None, kv_unified=None):
    """gguf_llama_estimate_run with llama-server's defaults for every parameter left None:
    n_ctx (-c; 0 the training context), type_k/type_v (-ctk/-ctv: "F16", "Q8_0", ...), n_seq
    (-np), n_batch (-b), n_ubatch (-ub), flash_attn ("auto", "on", "off"), swa_full, kv_unified."""
    p = _lib.gguf_llama_estimate_params()
    err = _lib.new_error()
    check(_lib.gguf_llama_estimate_defaults(ctypes.byref(p), ctypes.byref(err)), err)
    for name, v in (("n_ctx", n_ctx), ("n_seq", n_seq), ("n_batch", n_batch),
                    ("n_ubatch", n_ubatch)):
        if v is not None:
            setattr(p, name, v)
    if type_k is not None:
        p.type_k = dtype_id(type_k)
    if type_v is not None:
        p.type_v = dtype_id(type_v)
    p.flash_attn = _FLASH[flash_attn]
    if swa_full is not None:
        p.swa_full = int(bool(swa_full))
    if kv_unified is not None:
        p.kv_unified = int(bool(kv_unified))
    e = _lib.gguf_llama_estimate()
    check(_lib.gguf_llama_estimate_run(ctypes.byref(e), model._ptr, ctypes.byref(p),
                                       ctypes.byref(err)), err)
    layers = [{"weights": L.weights, "k": L.k, "v": L.v, "r": L.r, "s": L.s, "cells": L.cells,
               "swa": bool(L.swa)} for L in e.layer[:e.n_layer]]
    return Estimate(e.weights, e.context, e.compute, e.total, e.weights_token_embd,
                    e.weights_output, e.weights_other, e.params.n_ctx, e.n_ctx_train,
                    e.n_ctx_seq, e.n_swa_cells, bool(e.flash_attn_used), layers)
