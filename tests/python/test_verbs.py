"""convert, requant, split, merge and the catalog: the same bytes (and rows) as gguf-edit and
gguf-catalog give."""
import json
import os

import pytest

import libgguf
from conftest import CORPUS, need_corpus, run, tool

MODEL = os.path.join(CORPUS, "models", "tiny-llama-e256-Q4_K_M.gguf")
F16_MODEL = os.path.join(CORPUS, "synth", "tiny_llama.gguf")


def need(path):
    need_corpus(path if os.path.exists(path) else None)


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def test_convert(gguf_edit, tmp_path):
    need(MODEL)
    run(gguf_edit, "convert", MODEL, tmp_path / "a.gguf", "--endian", "big")
    libgguf.convert(MODEL, tmp_path / "b.gguf", endian="big", threads=2)
    assert same_bytes(tmp_path / "a.gguf", tmp_path / "b.gguf")
    with libgguf.open(tmp_path / "b.gguf") as m:
        assert m.endian == "big"


def test_requant(gguf_edit, tmp_path):
    need(F16_MODEL)
    run(gguf_edit, "requant", F16_MODEL, tmp_path / "a.gguf", "Q4_K_M", "-q")
    libgguf.requant(F16_MODEL, tmp_path / "b.gguf", "Q4_K_M", threads=2)
    assert same_bytes(tmp_path / "a.gguf", tmp_path / "b.gguf")
    with pytest.raises(libgguf.InvalidArgumentError):
        libgguf.requant(F16_MODEL, tmp_path / "c.gguf", "Q4_KX")


def test_split_and_merge(gguf_edit, tmp_path):
    need(MODEL)
    run(gguf_edit, "split", MODEL, tmp_path / "a", "--max-size", "7M")
    shards = libgguf.split(MODEL, tmp_path / "b", max_size=7000000)
    assert len(shards) > 1
    for s in shards:
        assert same_bytes(s, s.replace("/b-", "/a-"))
    run(gguf_edit, "merge", shards[0].replace("/b-", "/a-"), tmp_path / "a.gguf")
    libgguf.merge(shards[-1], tmp_path / "b.gguf")
    assert same_bytes(tmp_path / "a.gguf", tmp_path / "b.gguf")


def test_catalog(tmp_path):
    need(MODEL)
    if not libgguf._lib.gguf_catalog_available():
        with pytest.raises(libgguf.UnsupportedError):
            libgguf.Catalog(tmp_path / "c.db")
        return
    sql = "SELECT path, n_params, quant, file_type FROM models ORDER BY path"
    with libgguf.Catalog(tmp_path / "c.db") as c:
        stats = c.index([os.path.dirname(MODEL)])
        assert stats["indexed"] >= 1
        names, rows = c.query(sql, columns=True)
        with pytest.raises(libgguf.InvalidArgumentError):
            c.query("DELETE FROM files")
    assert names == ["path", "n_params", "quant", "file_type"]
    out = run(tool("gguf-catalog"), "--db", tmp_path / "c.db", "query", "--format", "json", sql)
    want = json.loads(out.stdout)
    assert [list(r) for r in rows] == [[r[k] for k in names] for r in want]
