"""libgguf.compat.GGUFReader against gguf-py's GGUFReader: gguf-py's own gguf_dump.py, loaded
with its `gguf` import given libgguf.compat's reader (gguf-py itself is not changed), prints
the same on every corpus file gguf-py reads, in its default, --json, --json --json-array and
--markdown modes."""
import contextlib
import io
import os
import runpy
import sys
import types

import pytest

import libgguf
import libgguf.compat as compat
from conftest import CORPUS, GGUF_PY_DIR, corpus_params, expected_refused, missing, need_corpus

MODES = ([], ["--json"], ["--json", "--json-array"], ["--markdown"])


def dump_script():
    for p in ("gguf/scripts/gguf_dump.py", "scripts/gguf_dump.py", "gguf/gguf_dump.py"):
        if os.path.exists(os.path.join(GGUF_PY_DIR, p)):
            return os.path.join(GGUF_PY_DIR, p)
    missing("gguf_dump.py not found in %s" % GGUF_PY_DIR)


def run_dump(gguf, script, path, args, reader):
    """gguf_dump.py's output for a file, its `from gguf import GGUFReader` getting `reader`."""
    patched = types.ModuleType("gguf")
    patched.__dict__.update(gguf.__dict__)
    patched.GGUFReader = lambda p, mode="r": reader
    saved, argv = sys.modules["gguf"], sys.argv
    sys.modules["gguf"] = patched
    sys.argv = [script, path] + args
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(script, run_name="__main__")
    finally:
        sys.modules["gguf"], sys.argv = saved, argv
    return out.getvalue()


@pytest.mark.parametrize("path", corpus_params())
def test_gguf_dump(path, ggufpy):
    need_corpus(path)
    script = dump_script()
    try:
        theirs = ggufpy.GGUFReader(path)
    except Exception as e:  # gguf-py refuses v1 files and some bad ones: nothing to compare
        assert "/v1v2/v1_" in path or "/bad/" in path, "gguf-py refuses %s: %s" % (path, e)
        return
    try:
        ours = compat.GGUFReader(path)
    except libgguf.Error as e:
        # a file gguf-py reads but libgguf refuses must be one the corpus says to refuse
        assert os.path.basename(path) in expected_refused(), "refused: %s" % e
        return
    for args in MODES:
        want = outcome(ggufpy, script, path, args, theirs)
        got = outcome(ggufpy, script, path, args, ours)
        assert got == want, "gguf_dump.py %s differs" % " ".join(args or ["(default)"])


def outcome(gguf, script, path, args, reader):
    """The output, or the exception gguf_dump.py ends with (a string that is not UTF-8)."""
    try:
        return run_dump(gguf, script, path, args, reader)
    except Exception as e:
        return type(e).__name__


def test_fields_and_tensors(ggufpy):
    """The parts gguf-py's scripts index by hand (field.parts[field.data[i]]) and the tensors'
    data are the same arrays as gguf-py's."""
    path = os.path.join(CORPUS, "models", "tiny-llama-e256-Q4_K_M.gguf")
    need_corpus(path if os.path.exists(path) else None)
    theirs, ours = ggufpy.GGUFReader(path), compat.GGUFReader(path)
    assert list(ours.fields) == list(theirs.fields)
    for name, f in theirs.fields.items():
        g = ours.fields[name]
        assert (g.offset, g.types, g.data) == (f.offset, f.types, f.data), name
        assert len(g.parts) == len(f.parts), name
        for a, b in zip(g.parts, f.parts):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name
    assert (ours.alignment, ours.data_offset, ours.byte_order) == (
        theirs.alignment, theirs.data_offset, theirs.byte_order)
    for a, b in zip(ours.tensors, theirs.tensors):
        assert (a.name, a.tensor_type, a.shape.tolist(), a.n_elements, a.n_bytes,
                a.data_offset, a.field.offset) == (b.name, b.tensor_type, b.shape.tolist(),
                                                   b.n_elements, b.n_bytes, b.data_offset,
                                                   b.field.offset)
        assert a.data.shape == b.data.shape and a.data.dtype == b.data.dtype
        assert a.data.tobytes() == b.data.tobytes()


def test_refused_file_names_offset():
    path = os.path.join(CORPUS, "bad", "alignment_7.gguf")
    need_corpus(path if os.path.exists(path) else None)
    with pytest.raises(libgguf.CorruptError) as e:
        compat.GGUFReader(path)
    assert e.value.path == path and e.value.offset is not None
    assert e.value.key == "general.alignment"
