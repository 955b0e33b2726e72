"""Shared by the Python package's tests (run by tests/python/pytest.sh in `make check`).

The references are found where `make check` finds them: the corpus at ../shared/corpus beside
the source tree, gguf-py in $GGUF_PY_DIR (default /tmp/ggml-oracle/src/gguf-py), ggml-oracle at
$GGML_ORACLE (default /tmp/ggml-oracle/bin/ggml-oracle; empty: none), the built tools in
$top_builddir/tools (or $GGUF_BINDIR). A missing reference skips the tests that need it; the
missing reference fails instead under GGUF_TEST_NO_SKIP=1.

Each test's result is also written, one line each, to $GGUF_PYTEST_RESULTS (for the wrapper's
TAP lines).
"""
import os
import subprocess
import sys

import pytest

TOP_SRCDIR = os.environ.get("top_srcdir") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
TOP_BUILDDIR = os.environ.get("top_builddir") or TOP_SRCDIR
CORPUS = os.path.join(TOP_SRCDIR, "..", "shared", "corpus")
GOLDEN = os.path.join(TOP_SRCDIR, "golden")
GGUF_PY_DIR = os.environ.get("GGUF_PY_DIR", "/tmp/ggml-oracle/src/gguf-py")
ORACLE = os.environ.get("GGML_ORACLE", "/tmp/ggml-oracle/bin/ggml-oracle")
BINDIR = os.environ.get("GGUF_BINDIR") or os.path.join(TOP_BUILDDIR, "tools")


def corpus_files(*folders):
    """The corpus's .gguf files in these folders (all when none), sorted; [] without it."""
    if not os.path.isdir(CORPUS):
        return []
    out = []
    for d in folders or sorted(os.listdir(CORPUS)):
        p = os.path.join(CORPUS, d)
        if os.path.isdir(p):
            out += [os.path.join(p, f) for f in sorted(os.listdir(p)) if f.endswith(".gguf")]
    return out


def corpus_params(*folders, where=None):
    """pytest parameters for corpus files (ids relative to the corpus), or one that skips;
    where(model) (a libgguf.Model) keeps only the files libgguf reads and it accepts."""
    files = corpus_files(*folders)
    if where is not None:
        import libgguf
        kept = []
        for f in files:
            try:
                with libgguf.open(f) as m:
                    if where(m):
                        kept.append(f)
            except libgguf.Error:
                pass
        files = kept
    if not files:
        return [pytest.param(None, id="corpus-absent")]
    return [pytest.param(f, id=os.path.relpath(f, CORPUS)) for f in files]


def missing(why):
    """A reference is missing: a skip, or a failure under GGUF_TEST_NO_SKIP=1 (CI)."""
    if os.environ.get("GGUF_TEST_NO_SKIP", "0") not in ("", "0"):
        pytest.fail("%s, and GGUF_TEST_NO_SKIP is set" % why)
    pytest.skip(why)


def need_corpus(path):
    if path is None:
        missing("../shared/corpus absent")


def expected_refused():
    """bad/ files that EXPECTED.tsv says must be refused."""
    p = os.path.join(CORPUS, "bad", "EXPECTED.tsv")
    if not os.path.exists(p):
        return set()
    with open(p) as f:
        rows = [line.rstrip("\n").split("\t") for line in f if "\t" in line]
    return {r[0] for r in rows[1:] if len(r) > 1 and r[1] == "refuse"}


@pytest.fixture(scope="session")
def ggufpy():
    """gguf-py (llama.cpp's gguf package), imported from GGUF_PY_DIR."""
    if not os.path.isdir(os.path.join(GGUF_PY_DIR, "gguf")):
        missing("gguf-py absent (%s)" % GGUF_PY_DIR)
    if GGUF_PY_DIR not in sys.path:
        sys.path.insert(0, GGUF_PY_DIR)
    import gguf
    return gguf


@pytest.fixture(scope="session")
def oracle():
    if not ORACLE or not os.access(ORACLE, os.X_OK):
        missing("ggml-oracle absent (%r)" % ORACLE)
    return ORACLE


def tool(name):
    """Path of a built (or, with GGUF_BINDIR, installed) tool."""
    return os.path.join(BINDIR, name)


@pytest.fixture(scope="session")
def gguf_edit():
    p = tool("gguf-edit")
    if not os.access(p, os.X_OK):
        pytest.fail("gguf-edit not built at %s" % p)
    return p


def run(*args, check=True):
    return subprocess.run([str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=check)


def pytest_runtest_logreport(report):
    path = os.environ.get("GGUF_PYTEST_RESULTS")
    if not path:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed) or (
            report.when == "teardown" and report.failed):
        status = "pass" if report.passed else "skip" if report.skipped else "fail"
        why = ""
        if report.skipped and isinstance(report.longrepr, tuple):
            why = report.longrepr[2].replace("Skipped: ", "")
        with open(path, "a") as f:
            f.write("%s\t%s\t%s\n" % (status, report.nodeid.replace("\t", " "),
                                       why.replace("\n", " ")))
