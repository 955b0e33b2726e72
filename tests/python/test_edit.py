"""libgguf.edit(): the same bytes as gguf-edit for the same edits (in place and to -o OUT),
nothing written when an edit fails, the block raises or the lint refuses."""
import os
import shutil

import numpy as np
import pytest

import libgguf
from conftest import CORPUS, need_corpus, run

MODEL = os.path.join(CORPUS, "models", "tiny-llama-e256-Q4_K_M.gguf")


@pytest.fixture
def two(tmp_path):
    """Two copies of the corpus model: one for gguf-edit, one for libgguf.edit."""
    need_corpus(MODEL if os.path.exists(MODEL) else None)
    a, b = tmp_path / "a.gguf", tmp_path / "b.gguf"
    shutil.copyfile(MODEL, a)
    shutil.copyfile(MODEL, b)
    return str(a), str(b)


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def test_edits_as_gguf_edit(two, gguf_edit):
    a, b = two
    run(gguf_edit, "edit", a, "--set", "general.name=A new name", "--set",
        "llama.context_length=4096", "--set", "test.flag=true", "--set", "test.big=5000000000",
        "--set", "test.ratio=0.25", "--set-json", "test.list=[1, 2, 3]", "--rm",
        "general.file_type", "--rename", "general.name=general.title", "--rename-tensor",
        "output.weight=lm_head.weight")
    with libgguf.edit(b) as e:
        e.set("general.name", "A new name")
        e.set("llama.context_length", 4096)
        e.set("test.flag", True)
        e.set("test.big", 5000000000)
        e.set("test.ratio", 0.25)
        e.set("test.list", [1, 2, 3])
        e.rm("general.file_type")
        e.rename("general.name", "general.title")
        e.rename_tensor("output.weight", "lm_head.weight")
        assert e.kv["general.title"] == "A new name"
    assert same_bytes(a, b)
    assert isinstance(e.result, libgguf.CommitResult) and e.result.tensors_checked == 21
    with libgguf.open(b) as m:
        assert m.kv.type("test.big") == "INT64" and m.kv.type("test.ratio") == "FLOAT32"
        assert m.kv.type("llama.context_length") == "UINT32"
        assert m.kv["test.list"].tolist() == [1, 2, 3] and "lm_head.weight" in m.tensors


def test_realign_and_rm_tensor_as_gguf_edit(two, gguf_edit):
    a, b = two
    run(gguf_edit, "edit", a, "--realign", "64", "--rm-tensor", "blk.0.attn_k.weight")
    with libgguf.edit(b) as e:
        e.realign(64).rm_tensor("blk.0.attn_k.weight")
    assert same_bytes(a, b)
    assert not e.result.in_place


def test_output_as_gguf_edit(two, gguf_edit, tmp_path):
    a, b = two
    run(gguf_edit, "set", a, "general.name", "out", "-o", tmp_path / "a-out.gguf")
    with libgguf.edit(b, output=tmp_path / "b-out.gguf") as e:
        e.set("general.name", "out")
    assert same_bytes(tmp_path / "a-out.gguf", tmp_path / "b-out.gguf")
    assert same_bytes(b, MODEL)


def test_arrays_from_numpy_and_lists(two):
    _, b = two
    with libgguf.edit(b) as e:
        e.set("test.f32", np.array([0.5, -1.25, 3.0], dtype=np.float32))
        e.set("test.u16", np.array([1, 65535], dtype=np.uint16))
        e.set("test.words", ["a", "bé", ""])
        e.set("test.u8", 7, type="u8")
        e.set("test.bytes", [b"\xff\x00a", "\\u00ff", "ok"])
    with libgguf.open(b) as m:
        # bytes that are not UTF-8 come back as surrogate escapes, whatever surrounds them
        got = m.kv["test.bytes"]
        assert [s.encode("utf-8", "surrogateescape") for s in got] == [b"\xff\x00a",
                                                                        b"\\u00ff", b"ok"]
        assert m.kv.type("test.f32") == "ARRAY[FLOAT32]"
        assert m.kv["test.f32"].tolist() == [0.5, -1.25, 3.0]
        assert m.kv.type("test.u16") == "ARRAY[UINT16]" and m.kv["test.u16"].tolist() == [1, 65535]
        assert m.kv["test.words"] == ["a", "bé", ""] and m.kv.type("test.u8") == "UINT8"


def test_failed_edit_writes_nothing(two):
    _, b = two
    with pytest.raises(libgguf.InvalidArgumentError) as e:
        with libgguf.edit(b) as ed:
            ed.set("general.name", "changed")
            ed.set("test.byte", 300, type="u8")
    assert e.value.key == "test.byte" and "300" in e.value.message
    with pytest.raises(libgguf.NotFoundError) as e:
        with libgguf.edit(b) as ed:
            ed.rm("no.such.key")
    assert e.value.key == "no.such.key"
    with pytest.raises(RuntimeError):
        with libgguf.edit(b) as ed:
            ed.set("general.name", "changed")
            raise RuntimeError("the caller's own failure")
    assert same_bytes(b, MODEL)


def test_lint_refusal_and_force(two, gguf_edit):
    """Alignment 48 is what ggml refuses: refused as gguf-edit refuses it, written with force."""
    a, b = two
    with pytest.raises(libgguf.InvalidArgumentError) as e:
        with libgguf.edit(b) as ed:
            ed.realign(48)
    assert "nothing written" in str(e.value) and e.value.path == b
    assert same_bytes(b, MODEL)
    run(gguf_edit, "realign", a, "48", "--force")
    with libgguf.edit(b, force=True) as ed:
        ed.realign(48)
    assert same_bytes(a, b)
