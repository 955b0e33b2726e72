"""Reading with libgguf.open(): metadata and tensors against gguf-py's reader, tensor bytes
without a copy, errors naming the path, offset and key, verify and estimate against gguf-edit,
split sets, and `python3 -m libgguf show` against gguf-edit show."""
import json
import os
import select
import struct
import subprocess
import sys

import numpy as np
import pytest

import libgguf
from conftest import CORPUS, GOLDEN, corpus_params, expected_refused, missing, need_corpus, run

MODEL = os.path.join(CORPUS, "models", "tiny-llama-e256-Q4_K_M.gguf")
ALL_TYPES = os.path.join(GOLDEN, "types", "all_types.gguf")


def need(path):
    need_corpus(path if os.path.exists(path) else None)


def flatten(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, list):
        return [x for e in v for x in (flatten(e) if isinstance(e, (list, np.ndarray)) else [e])]
    return v


def same(a, b):
    """Equal values of equal types, floats compared by their bits (NaN too)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("path", corpus_params(
    "synth", "be", "v1v2", "models", where=lambda m: m.version >= 2))
def test_against_ggufpy(path, ggufpy):
    """Every key's value and every tensor's facts and bytes, as gguf-py reads them (its
    nested arrays flattened, as gguf-py flattens them)."""
    need_corpus(path)
    r = ggufpy.GGUFReader(path)
    with libgguf.open(path) as m:
        fields = [f for f in r.fields.values() if not f.name.startswith("GGUF.")]
        assert list(m.kv) == [f.name for f in fields]
        for f in fields:
            want, got = f.contents(), m.kv[f.name]
            if f.types[0] == ggufpy.GGUFValueType.ARRAY:
                if ggufpy.GGUFValueType.ARRAY in f.types[1:]:
                    continue  # gguf-py flattens arrays of arrays (wrongly when mixed): below
                got = flatten(got)
            assert same(got, want), f.name
            assert m.kv.type(f.name).replace("ARRAY[", "").rstrip("]") == f.types[-1].name \
                or not f.data, f.name
            assert m.kv.offset(f.name) == f.offset
        assert [t.name for t in m.tensors.values()] == [t.name for t in r.tensors]
        for rt in r.tensors:
            t = m.tensors[rt.name]
            assert (t.type, list(t.dims), t.n_elements, t.nbytes,
                    m.data_offset + t.offset) == (rt.tensor_type.name, rt.shape.tolist(),
                                                  rt.n_elements, rt.n_bytes, rt.data_offset)
            assert t.data.dtype == rt.data.dtype and t.data.shape == rt.data.shape
            assert t.data.tobytes() == rt.data.tobytes()


@pytest.mark.parametrize("path", corpus_params("synth", "be", where=lambda m: any(
    m.kv.type(k).startswith("ARRAY[ARRAY") for k in m.kv)))
def test_nested_arrays(path, gguf_edit):
    """Arrays of arrays (gguf-py flattens them): nested lists of the values gguf-edit prints."""
    need_corpus(path)
    shown = json.loads(run(gguf_edit, "show", "--json", path).stdout)
    want = {e["key"]: e["value"] for e in shown["kv"]}
    with libgguf.open(path) as m:
        for k in m.kv:
            if m.kv.type(k).startswith("ARRAY[ARRAY"):
                got = json.loads(json.dumps(m.kv[k], default=lambda a: a.tolist()))
                assert nan_as_text(got) == want[k], k


def nan_as_text(v):
    """gguf-edit's JSON writes non-finite floats as "nan", "inf", "-inf"."""
    if isinstance(v, list):
        return [nan_as_text(x) for x in v]
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return v


def test_values_are_python():
    need(MODEL)
    with libgguf.open(MODEL) as m:
        kv = dict(m.kv)
        assert kv["general.architecture"] == "llama" and kv["llama.block_count"] == 2
        assert isinstance(kv["tokenizer.ggml.add_bos_token"], bool)
        assert isinstance(kv["llama.attention.layer_norm_rms_epsilon"], float)
        tokens = kv["tokenizer.ggml.tokens"]
        assert isinstance(tokens, list) and len(tokens) == 32000 and tokens[1] == "<s>"
        assert kv["tokenizer.ggml.scores"].dtype == np.float32
        assert kv["tokenizer.ggml.token_type"].dtype == np.int32
        assert m.kv.type("tokenizer.ggml.tokens") == "ARRAY[STRING]"
        assert "general.name" in m.kv and "no.such.key" not in m.kv
        with pytest.raises(KeyError):
            m.kv["no.such.key"]


def test_data_is_a_view_of_the_file():
    """Tensor.data maps the file's bytes, read-only, and stays valid after close()."""
    with libgguf.open(ALL_TYPES) as m:
        t = m.tensors["t.q4_K"]
        d = t.data
        start = m.data_offset + t.offset
    with open(ALL_TYPES, "rb") as f:
        f.seek(start)
        assert d.tobytes() == f.read(t.nbytes)
    assert not d.flags.writeable and not d.flags.owndata
    assert m.closed
    with pytest.raises(ValueError):
        m.tensors


def test_big_endian_plain_data():
    be = os.path.join(GOLDEN, "types", "all_types.be.gguf")
    with libgguf.open(ALL_TYPES) as le, libgguf.open(be) as b:
        assert b.tensors["t.f32"].data.dtype == np.dtype(">f4")
        assert np.array_equal(b.tensors["t.f32"].data, le.tensors["t.f32"].data)


@pytest.mark.parametrize("name", sorted(expected_refused()) or [None])
def test_refused_files_raise(name):
    """Every file the corpus says to refuse raises a libgguf.Error naming the path, with the
    message gguf-edit verify gives."""
    need_corpus(name)
    path = os.path.join(CORPUS, "bad", name)
    with pytest.raises(libgguf.Error) as e:
        libgguf.open(path)
    assert e.value.path == path
    assert e.value.message in run(libgguf_tool(), "verify", path, check=False).stderr.decode()


def libgguf_tool():
    from conftest import tool
    return tool("gguf-edit")


def test_error_fields():
    path = os.path.join(CORPUS, "bad", "alignment_7.gguf")
    need(path)
    with pytest.raises(libgguf.CorruptError) as e:
        libgguf.open(path)
    assert (e.value.path, e.value.offset, e.value.key, e.value.code) == (
        path, 68, "general.alignment", -5)
    assert "alignment 7" in str(e.value) and "offset 68" in str(e.value)
    with pytest.raises(libgguf.FileIOError) as e:
        libgguf.open("/nonexistent/x.gguf")
    assert e.value.path == "/nonexistent/x.gguf"


def test_verify_as_gguf_edit(gguf_edit):
    path = os.path.join(CORPUS, "bad", "alignment_48.gguf")
    need(path)
    with libgguf.open(path) as m:
        got = m.verify()
    want = json.loads(run(gguf_edit, "verify", "--json", path, check=False).stdout)
    want = want["files"][0]["findings"]
    assert [(f.severity, f.key, f.tensor, f.message, f.offset) for f in got] == [
        (f["severity"], f["key"], f["tensor"], f["message"], f["offset"]) for f in want]


def test_estimate_as_gguf_edit(gguf_edit):
    need(MODEL)
    for ctx in (0, 4096):
        with libgguf.open(MODEL) as m:
            e = m.estimate(n_ctx=ctx)
        want = json.loads(run(gguf_edit, "estimate", "--json", "-c", ctx, MODEL).stdout)
        assert (e.weights, e.context, e.compute, e.total, e.n_ctx) == (
            want["weights"], want["context"], want["compute"], want["total"],
            want["params"]["ctx"])
        assert [(L["weights"], L["k"], L["v"]) for L in e.layers] == [
            (L["weights"], L["k"], L["v"]) for L in want["layers"]]


def test_split_set_opens_as_one_model(tmp_path):
    need(MODEL)
    shards = libgguf.split(MODEL, tmp_path / "m", max_tensors=8)
    assert len(shards) == 3 and all(os.path.exists(s) for s in shards)
    with libgguf.open(MODEL) as whole, libgguf.open(shards[1]) as m:
        assert m.shard_count == 3 and list(m.tensors) == list(whole.tensors)
        t = m.tensors["blk.1.ffn_down.weight"]
        assert t.shard > 0
        assert np.array_equal(t.numpy(), whole.tensors[t.name].numpy())
    with libgguf.open(shards[1], split_set=False) as one:
        assert len(one.tensors) == 8


def test_show_as_gguf_edit(gguf_edit):
    """python3 -m libgguf show --json: gguf-edit show --json's document less its summary."""
    for path in (ALL_TYPES, MODEL):
        need(path)
        r = subprocess.run([sys.executable, "-m", "libgguf", "show", "--json", path],
                           stdout=subprocess.PIPE, check=True)
        want = json.loads(run(gguf_edit, "show", "--json", path).stdout)
        want.pop("model", None)
        assert json.loads(r.stdout) == want
        text = subprocess.run([sys.executable, "-m", "libgguf", "show", path],
                              stdout=subprocess.PIPE, check=True).stdout.decode()
        assert text.startswith("%s: GGUF v3, little-endian" % path)
    bad = os.path.join(CORPUS, "bad", "alignment_7.gguf")
    need(bad)
    r = subprocess.run([sys.executable, "-m", "libgguf", "show", bad], stderr=subprocess.PIPE)
    assert r.returncode == 1 and b"offset 68" in r.stderr


def test_url(tmp_path):
    """A model by URL (tests/support/http_server.py on 127.0.0.1): the local file's metadata and
    values; a missing one is NotFoundError naming the HTTP status."""
    need(MODEL)
    if not libgguf._lib.gguf_http_available():
        missing("this build has no libcurl")
    from conftest import TOP_SRCDIR
    port_file, log = tmp_path / "port", tmp_path / "log"
    server_py = os.path.join(TOP_SRCDIR, "tests", "support", "http_server.py")
    server = subprocess.Popen([sys.executable, server_py, os.path.dirname(MODEL), port_file, log])
    try:
        while not (port_file.exists() and port_file.read_text().strip()):
            if server.poll() is not None:
                pytest.fail("http_server.py ended (status %s)" % server.returncode)
            select.select([], [], [], 0.05)  # until the server has written its port
        url = "http://127.0.0.1:%s/ok/%s" % (port_file.read_text().strip(),
                                              os.path.basename(MODEL))
        with libgguf.open(url) as remote, libgguf.open(MODEL) as local:
            assert remote.path == url
            assert list(remote.kv) == list(local.kv)
            assert remote.kv["tokenizer.ggml.tokens"] == local.kv["tokenizer.ggml.tokens"]
            name = "blk.1.ffn_down.weight"
            assert np.array_equal(remote.tensors[name].numpy(), local.tensors[name].numpy())
        with pytest.raises(libgguf.NotFoundError) as e:
            libgguf.open(url + ".missing")
        assert "404" in e.value.message
    finally:
        server.terminate()
        server.wait()


def test_options_and_errors_mirror_the_header():
    """The ctypes layouts are the header's: an options struct's size covers every field the
    library has (the estimate's defaults reach its last one, kv_unified), and the library is the
    version it says."""
    from libgguf import _lib
    import ctypes
    p = _lib.gguf_llama_estimate_params()
    err = _lib.new_error()
    assert _lib.gguf_llama_estimate_defaults(ctypes.byref(p), ctypes.byref(err)) == 0
    assert (p.size, p.n_seq, p.n_batch, p.kv_unified) == (ctypes.sizeof(p), 4, 2048, 1)
    assert ctypes.sizeof(_lib.gguf_error) <= 512
    assert [int(x) for x in libgguf.library_version().split(".")] >= [0, 1, 0]
