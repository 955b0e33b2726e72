#!/usr/bin/env python3
"""Mutation testing: measures whether the suite catches planted bugs.

Every mutant of tests/mutants.txt (a file, an original snippet that must occur exactly once,
its replacement, the tests that should catch it) is applied in turn to a scratch copy of the
source tree, built, and the listed tests run; a test failure (or a timeout) means the mutant
was caught. The user's tree is never touched. Prints each result, the mutants that survived,
and the score: caught / (mutants - equivalent ones - ones that did not build).

    make mutate                                     (in a build directory; MUTATE_ARGS=...)
    python3 tests/mutate.py --srcdir . [--only NAME,...] [--keep] [--no-baseline]

The scratch copy lives in $TMPDIR/gguf-mutate.XXXXXX/src, with ../shared linked beside it, so
the corpus-based tests run as they do in the source tree. GGML_ORACLE passes through.
Exit status 0 when every mutant not marked equivalent was caught.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


class Mutant:
    def __init__(self, name, line):
        self.name = name
        self.line = line
        self.file = None
        self.tests = []
        self.why = ""
        self.equivalent = None
        self.hunks = []  # [(original, replacement)]
        self.result = None
        self.detail = ""
        self.seconds = 0.0


def parse_mutants(path):
    """The block format of tests/mutants.txt (described at its top)."""
    mutants = []
    cur = None
    old, new, mode = [], [], None

    def close_hunk():
        nonlocal old, new, mode
        if cur is not None and (old or new):
            if not old:
                sys.exit("%s: mutant %s: a '+' hunk without '-' lines" % (path, cur.name))
            cur.hunks.append(("\n".join(old) + "\n", "\n".join(new) + ("\n" if new else "")))
        old, new, mode = [], [], None

    with open(path, encoding="utf-8") as fh:
        for no, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            if line.startswith("-") or line.startswith("+"):
                if cur is None:
                    sys.exit("%s:%d: a change outside a mutant" % (path, no))
                text = line[2:] if len(line) > 1 and line[1] == " " else line[1:]
                if line[0] == "-":
                    if mode == "+":
                        close_hunk()
                    old.append(text)
                    mode = "-"
                else:
                    new.append(text)
                    mode = "+"
                continue
            close_hunk()
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = re.match(r"^\[([A-Za-z0-9_.-]+)\]\s*$", line)
            if m:
                cur = Mutant(m.group(1), no)
                mutants.append(cur)
                continue
            m = re.match(r"^(file|tests|why|equivalent):\s*(.*)$", line)
            if not m or cur is None:
                sys.exit("%s:%d: cannot read: %s" % (path, no, line))
            key, value = m.group(1), m.group(2).strip()
            if key == "file":
                cur.file = value
            elif key == "tests":
                cur.tests = value.split()
            elif key == "why":
                cur.why = value
            else:
                cur.equivalent = value
    close_hunk()
    names = set()
    for mu in mutants:
        if mu.file is None or not mu.hunks or not mu.tests:
            sys.exit("%s:%d: mutant %s needs file:, tests: and a change" % (path, mu.line, mu.name))
        if mu.name in names:
            sys.exit("%s: mutant %s twice" % (path, mu.name))
        names.add(mu.name)
    return mutants


def run(cmd, cwd, log, timeout=None, env=None):
    """Runs cmd (a shell command) in its own process group; returns (status, seconds);
    status None on a timeout (the group is killed)."""
    start = time.time()
    with open(log, "ab") as out:
        out.write(("\n$ %s\n" % cmd).encode())
        out.flush()
        p = subprocess.Popen(cmd, shell=True, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True, env=env)
        try:
            status = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            status = None
    return status, time.time() - start


def copy_tree(srcdir, dest):
    """The source files: git's list (tracked and new, not ignored) when srcdir is a checkout,
    else everything but build products."""
    files = None
    try:
        out = subprocess.run(["git", "-C", srcdir, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        pass
    if files is None:
        ignore = shutil.ignore_patterns(".git", "autom4te.cache", "*.o", "*.lo", "*.la", ".libs",
                                        ".deps", "*.log", "*.trs")
        shutil.copytree(srcdir, dest, symlinks=True, ignore=ignore)
        return
    for f in files:
        s, d = os.path.join(srcdir, f), os.path.join(dest, f)
        if not os.path.lexists(s):
            continue  # deleted in the work tree
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.islink(s):
            os.symlink(os.readlink(s), d)
        else:
            shutil.copy2(s, d)


def failing_lines(log, since):
    with open(log, "rb") as fh:
        fh.seek(since)
        text = fh.read().decode(errors="replace")
    lines = [l for l in text.splitlines() if re.match(r"^(FAIL|ERROR):", l)]
    return lines


def failing_tests(lines):
    """The tests named by automake's FAIL:/ERROR: lines."""
    names = []
    for l in lines:
        m = re.match(r"^(?:FAIL|ERROR): (\S+)", l)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--srcdir", default=os.path.dirname(here), help="the source tree to copy")
    ap.add_argument("--list", default=None, help="the mutants (default tests/mutants.txt)")
    ap.add_argument("--only", default=None, help="comma-separated mutant names")
    ap.add_argument("--work", default=None, help="scratch folder (default: a new temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--no-baseline", action="store_true",
                    help="do not first run the listed tests on the unchanged tree")
    ap.add_argument("--jobs", default="2", help="make -j (default 2)")
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per mutant's tests")
    ap.add_argument("--configure-flags", default="", help="extra configure arguments")
    ap.add_argument("--check", action="store_true",
                    help="only check that every mutant applies to the source tree")
    a = ap.parse_args()

    srcdir = os.path.abspath(a.srcdir)
    mutants = parse_mutants(a.list or os.path.join(srcdir, "tests", "mutants.txt"))
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {m.name for m in mutants}
        if unknown:
            sys.exit("no mutant named %s" % ", ".join(sorted(unknown)))
        mutants = [m for m in mutants if m.name in want]

    if a.check:
        bad = 0
        for m in mutants:
            text = open(os.path.join(srcdir, m.file), encoding="utf-8").read()
            for old, _ in m.hunks:
                if text.count(old) != 1:
                    print("mutant %s: the original text occurs %d times in %s:\n%s"
                          % (m.name, text.count(old), m.file, old))
                    bad += 1
        print("mutate: %d mutants, %d bad" % (len(mutants), bad))
        return 1 if bad else 0

    work = a.work or tempfile.mkdtemp(prefix="gguf-mutate.", dir=os.environ.get("TMPDIR", "/tmp"))
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    log = os.path.join(work, "mutate.log")
    print("mutate: %d mutants, scratch copy in %s (log: %s)" % (len(mutants), work, log), flush=True)
    if not os.path.exists(src):
        copy_tree(srcdir, src)
    shared = os.path.realpath(os.path.join(srcdir, "..", "shared"))
    if os.path.isdir(shared) and not os.path.lexists(os.path.join(work, "shared")):
        os.symlink(shared, os.path.join(work, "shared"))

    # every mutant's original text is there, once, before anything is built
    for m in mutants:
        path = os.path.join(src, m.file)
        if not os.path.isfile(path):
            sys.exit("mutant %s: no file %s" % (m.name, m.file))
        text = open(path, encoding="utf-8").read()
        for old, _ in m.hunks:
            n = text.count(old)
            if n != 1:
                sys.exit("mutant %s: the original text occurs %d times in %s (must be once):\n%s"
                         % (m.name, n, m.file, old))

    jobs = "-j" + a.jobs
    if not os.path.exists(os.path.join(src, "configure")):
        st, _ = run("autoreconf -fi", src, log)
        if st != 0:
            sys.exit("mutate: autoreconf failed (see %s)" % log)
    os.makedirs(build, exist_ok=True)
    if not os.path.exists(os.path.join(build, "Makefile")):
        st, _ = run("%s/configure -q %s" % (src, a.configure_flags), build, log)
        if st != 0:
            sys.exit("mutate: configure failed (see %s)" % log)
    st, _ = run("make %s" % jobs, build, log)
    if st != 0:
        sys.exit("mutate: the unchanged tree does not build (see %s)" % log)

    def tests_cmd(tests):
        if tests == ["all"]:
            return "make %s check" % jobs
        return "make %s check TESTS='%s'" % (jobs, " ".join(tests))

    flaky = set()
    if not a.no_baseline:
        wanted = []
        for m in mutants:
            for t in m.tests:
                if t not in wanted:
                    wanted.append(t)
        tests = ["all"] if "all" in wanted else wanted
        print("mutate: baseline: %s" % tests_cmd(tests), flush=True)
        since = os.path.getsize(log)
        st, secs = run(tests_cmd(tests), build, log, timeout=a.timeout)
        if st != 0:
            # a test that fails on the unchanged tree and passes when run again is flaky: it
            # still runs, but a mutant it alone catches is run again to confirm
            lines = failing_lines(log, since)
            print("\n".join(lines))
            for t in failing_tests(lines):
                for attempt in range(2):
                    st, _ = run(tests_cmd([t]), build, log, timeout=a.timeout)
                    if st == 0:
                        break
                if st != 0:
                    sys.exit("mutate: the unchanged tree fails %s (%s); nothing to measure"
                             % (t, log))
                flaky.add(t)
            print("mutate: flaky on the unchanged tree, passed when run again: %s"
                  % " ".join(sorted(flaky)), flush=True)
        print("mutate: baseline passes (%.0f s)" % secs, flush=True)

    for i, m in enumerate(mutants, 1):
        path = os.path.join(src, m.file)
        original = open(path, encoding="utf-8").read()
        text = original
        for old, new in m.hunks:
            text = text.replace(old, new, 1)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            since = os.path.getsize(log)
            st, secs = run("make %s" % jobs, build, log, timeout=a.timeout)
            if st != 0:
                m.result, m.detail = "no-build", "does not build"
            else:
                since = os.path.getsize(log)
                st, secs = run(tests_cmd(m.tests), build, log, timeout=a.timeout)
                m.seconds = secs
                if st is None:
                    m.result, m.detail = "caught", "timeout after %d s" % a.timeout
                elif st != 0:
                    lines = failing_lines(log, since)
                    failed = failing_tests(lines)
                    m.result = "caught"
                    m.detail = lines[0] if lines else "make check failed (status %d)" % st
                    if len(lines) > 1:
                        m.detail += " (+%d more)" % (len(lines) - 1)
                    if failed and all(t in flaky for t in failed):
                        st2, _ = run(tests_cmd(failed), build, log, timeout=a.timeout)
                        if st2 == 0:
                            m.result = "survived"
                            m.detail = "caught once by a flaky test only, not when run again"
                        else:
                            m.detail += " (again when run again)"
                else:
                    m.result = "survived"
        finally:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(original)
        tag = m.result.upper()
        if m.equivalent is not None:
            tag += " (marked equivalent)"
        print("[%d/%d] %-28s %-10s %4.0f s  %s" % (i, len(mutants), m.name, tag, m.seconds,
                                                   m.detail), flush=True)

    judged = [m for m in mutants if m.equivalent is None and m.result != "no-build"]
    caught = [m for m in judged if m.result == "caught"]
    survived = [m for m in judged if m.result == "survived"]
    equivalent = [m for m in mutants if m.equivalent is not None]
    nobuild = [m for m in mutants if m.equivalent is None and m.result == "no-build"]
    print()
    print("mutation score: %d / %d caught (%d equivalent, %d did not build)"
          % (len(caught), len(judged), len(equivalent), len(nobuild)))
    if flaky:
        print("  flaky tests (failed once on the unchanged tree): %s" % " ".join(sorted(flaky)))
    for m in survived:
        print("  SURVIVED %s (%s:%d): %s [tests: %s]" % (m.name, "mutants.txt", m.line, m.why,
                                                          " ".join(m.tests)))
    for m in equivalent:
        print("  EQUIVALENT %s (%s): %s -- %s" % (m.name, m.result, m.why, m.equivalent))
        if m.result == "caught":
            print("    ... but it was caught: it is not equivalent")
    for m in nobuild:
        print("  NO-BUILD %s: fix its replacement" % m.name)
    if a.keep:
        print("mutate: scratch copy kept in %s" % work)
    else:
        shutil.copy(log, "mutate.log")
        print("mutate: the builds' and tests' output is in mutate.log")
        shutil.rmtree(work, ignore_errors=True)
    return 0 if not survived and not nobuild else 1


if __name__ == "__main__":
    sys.exit(main())
