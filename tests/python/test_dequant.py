"""Tensor.numpy() against the references: gguf-py's gguf.quants.dequantize bit for bit for
every type gguf-py converts, ggml's own conversion (ggml-oracle dequant) for the other types,
on the corpus, golden/types and a generated model of every type the library quantizes."""
import ctypes
import os

import numpy as np
import pytest

import libgguf
from libgguf import _lib
from conftest import CORPUS, GOLDEN, corpus_params, need_corpus, run

ALL_TYPES = os.path.join(GOLDEN, "types", "all_types.gguf")
ALL_TYPES_BE = os.path.join(GOLDEN, "types", "all_types.be.gguf")


def assert_bits_equal(got, want, what):
    got = np.ascontiguousarray(got, dtype=np.float32)
    want = np.ascontiguousarray(want, dtype=np.float32).reshape(got.shape)
    diff = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
    assert diff.size == 0, "%s: %d of %d values differ, first at %d: %r != %r" % (
        what, diff.size, got.size, diff[0], got.flat[diff[0]], want.flat[diff[0]])


def ggufpy_can(gguf, type_id):
    t = gguf.GGMLQuantizationType(type_id)
    return t in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16) or \
        t in gguf.quants._type_traits


def ggml_values(oracle, t, tmp_path):
    """ggml's floats for a tensor's bytes (ggml-oracle dequant), or None when ggml has no
    conversion for the type."""
    src, dst = tmp_path / ("%s.bin" % t.type), tmp_path / ("%s.f32" % t.type)
    src.write_bytes(t.data.tobytes())
    r = run(oracle, "dequant", t.type.lower(), src, t.n_elements, dst, check=False)
    if r.returncode == 2 and b"no to_float" in r.stderr:
        return None
    assert r.returncode == 0, r.stderr.decode()
    return np.fromfile(dst, dtype=np.float32)


def by_definition(t):
    """The values of the types ggml keeps no to_float for: integers and F64 by value (rounded
    to float32, gguf.h), Q8_1 (f16 d, f16 s, 32 int8) and Q8_K (f32 d, 256 int8, 16 int16
    sums) as d * q, the formula of ggml's quantize_row_q8_1/q8_K_ref."""
    if t.type in ("Q8_1", "Q8_K"):
        n, dsize = (32, 2) if t.type == "Q8_1" else (256, 4)
        blocks = t.data.reshape(-1, _lib.gguf_dtype_block_bytes(t.type_id))
        d = blocks[:, :dsize].copy().view("<f2" if dsize == 2 else "<f4")
        q = blocks[:, 4:4 + n].view(np.int8)
        return (d.astype(np.float32) * q.astype(np.float32)).ravel()
    with np.errstate(over="ignore"):  # I64 and F64 values past float32's range become inf
        return t.data.astype(np.float64).astype(np.float32)


def check_file(path, gguf, oracle, tmp_path):
    """Every tensor of a little-endian file; returns the types checked against each reference."""
    checked = {"gguf-py": set(), "ggml": set(), "by definition": set()}
    reader = gguf.GGUFReader(path)
    with libgguf.open(path) as m:
        for rt in reader.tensors:
            t = m.tensors[rt.name]
            got = t.numpy()
            if ggufpy_can(gguf, t.type_id):
                want = gguf.quants.dequantize(rt.data, rt.tensor_type)
                assert_bits_equal(got, want, "%s: %s (%s) against gguf-py" % (path, t.name, t.type))
                checked["gguf-py"].add(t.type)
                continue
            want = ggml_values(oracle, t, tmp_path)
            if want is None:  # ggml has no conversion for the type: its definition
                want = by_definition(t)
                checked["by definition"].add(t.type)
            else:
                checked["ggml"].add(t.type)
            assert_bits_equal(got, want, "%s: %s (%s) against ggml" % (path, t.name, t.type))
    return checked


def test_all_types(ggufpy, oracle, tmp_path):
    """golden/types/all_types.gguf: one tensor of every type ggml defines."""
    checked = check_file(ALL_TYPES, ggufpy, oracle, tmp_path)
    with libgguf.open(ALL_TYPES) as m:
        every = {t.type for t in m.tensors.values()}
    assert set().union(*checked.values()) == every
    assert {"Q4_K", "Q6_K", "IQ2_XXS", "IQ1_M", "TQ1_0", "MXFP4", "BF16"} <= checked["gguf-py"]
    assert {"Q1_0", "Q2_0"} <= checked["ggml"]
    assert {"Q8_K", "Q8_1", "I8", "I16", "I32", "I64", "F64"} == checked["by definition"]


def test_big_endian_twin():
    """A big-endian file gives the values of its little-endian twin (gguf-py's dequantize
    cannot be the reference there: it reads the blocks in host order)."""
    with libgguf.open(ALL_TYPES) as le, libgguf.open(ALL_TYPES_BE) as be:
        assert be.endian == "big"
        for t in le.tensors.values():
            assert_bits_equal(be.tensors[t.name].numpy(), t.numpy(), t.name)


@pytest.mark.parametrize("path", corpus_params(
    "synth", "models", "v1v2", where=lambda m: len(m.tensors) and m.version >= 2))
def test_corpus(path, ggufpy, oracle, tmp_path):
    """Every file with tensors that gguf-py reads (it refuses GGUF v1)."""
    need_corpus(path)
    check_file(path, ggufpy, oracle, tmp_path)


@pytest.mark.parametrize("path", corpus_params("be", where=lambda m: len(m.tensors)))
def test_corpus_big_endian(path):
    need_corpus(path)
    name = os.path.basename(path).replace(".writer-be.", ".").replace(".be.", ".")
    twin = [p for p in (os.path.join(CORPUS, d, name) for d in ("synth", "real"))
            if os.path.exists(p)][0]
    with libgguf.open(path) as be, libgguf.open(twin) as le:
        for t in le.tensors.values():
            assert_bits_equal(be.tensors[t.name].numpy(), t.numpy(), t.name)


def quantize(type_id, x):
    """x (rows x n) quantized by the library (an importance matrix of ones for the types that
    need one)."""
    rows, n = x.shape
    out = np.empty(rows * _lib.gguf_quant_row_size(type_id, n), dtype=np.uint8)
    im = np.ones(n, dtype=np.float32)
    err = _lib.new_error()
    rc = _lib.gguf_quant_quantize(out.ctypes.data, out.nbytes, type_id, x.ctypes.data, rows, n,
                                  im.ctypes.data, ctypes.byref(err))
    assert rc == 0, err.message
    return out.reshape(rows, -1)


@pytest.fixture(scope="module")
def generated(ggufpy, tmp_path_factory):
    """A model with a tensor of every type the library quantizes, written by gguf-py's writer
    from the library's quantized bytes: values of several scales, zeros, a spike per row."""
    path = str(tmp_path_factory.mktemp("gen") / "every_type.gguf")
    rng = np.random.default_rng(20240611)
    x = rng.standard_normal((24, 512)).astype(np.float32)
    x *= np.logspace(-4, 3, 24, dtype=np.float32)[:, None]
    x[3] = 0
    x[5, ::37] = 900.0
    w = ggufpy.GGUFWriter(path, "test")
    types = []
    for type_id in range(libgguf.model.DTYPE_COUNT):
        if type_id == 0 or not _lib.gguf_quant_can_quantize(type_id):
            continue
        name = libgguf.dtype_name(type_id)
        try:
            qt = ggufpy.GGMLQuantizationType(type_id)
        except ValueError:
            continue
        if ggufpy.GGML_QUANT_SIZES[qt] != (_lib.gguf_dtype_block_elems(type_id),
                                           _lib.gguf_dtype_block_bytes(type_id)):
            continue  # gguf-py's table has another block size (its Q8_1): it cannot write it
        w.add_tensor("t." + name, quantize(type_id, x), raw_dtype=qt)
        types.append(name)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path, types


def test_generated(generated, ggufpy, oracle, tmp_path):
    path, types = generated
    assert {"Q4_K", "Q6_K", "IQ2_XXS", "IQ4_XS", "TQ2_0", "MXFP4"} <= set(types)
    checked = check_file(path, ggufpy, oracle, tmp_path)
    assert set().union(*checked.values()) == set(types)


def test_threads_same_values(generated):
    path, _ = generated
    with libgguf.open(path) as m:
        for t in m.tensors.values():
            assert_bits_equal(t.numpy(threads=3), t.numpy(threads=1), t.name)


def test_refused_type():
    with libgguf.open(ALL_TYPES) as m:
        t = m.tensors["t.q4_K"]
        assert t.numpy().shape == t.shape == (2, 256)
        assert t.data.shape == (2, 144) and t.data.dtype == np.uint8
