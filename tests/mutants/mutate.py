#!/usr/bin/env python3
"""Mutation testing: measures whether the suite catches planted bugs.

Every mutant of tests/mutants/mutants.txt (a file, an original snippet that must occur exactly
once, its replacement, and the tests that should catch it: its own `tests:` line, else those that
its `map:` lines give its file) is applied in turn to one scratch copy of the source tree,
configured and built once; per mutant only what changed is rebuilt (make), the
tests it names run (the quickest first, by the baseline's times, until one fails), and the
file is put back. A test failure (or a timeout) means the mutant
was caught. The user's tree is never touched. Prints per mutant the tests it ran, its verdict
and its time, then the survivors and the score: caught / (mutants - equivalent ones - ones
that did not build).

    make mutate                                     (in a build directory; MUTATE_ARGS=...)
    python3 tests/mutants/mutate.py --srcdir . [--only NAME,...] [--keep] [--no-baseline]

The scratch copy lives in $TMPDIR/gguf-mutate.XXXXXX/src, with ../shared linked beside it, so
the corpus-based tests run as they do in the source tree. GGML_ORACLE passes through.
Exit status 0 when every mutant not marked equivalent was caught.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
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
        self.ran = []  # the tests that ran: the quickest first, up to the first failure
        self.env = {}  # its env: line, for tests that sample (GGUF_ARCHS=phi2 GGUF_ARCH_ALL=1)


def parse_mutants(path):
    """The block format of tests/mutants/mutants.txt (described at its top). Returns the mutants and
    the map [(file or folder prefix, tests)] for mutants without a tests: line."""
    mutants = []
    test_map = []
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
            m = re.match(r"^map:\s*(\S+)\s+(.+)$", line)
            if m:
                test_map.append((m.group(1), m.group(2).split()))
                continue
            m = re.match(r"^\[([A-Za-z0-9_.-]+)\]\s*$", line)
            if m:
                cur = Mutant(m.group(1), no)
                mutants.append(cur)
                continue
            m = re.match(r"^(file|tests|env|why|equivalent):\s*(.*)$", line)
            if not m or cur is None:
                sys.exit("%s:%d: cannot read: %s" % (path, no, line))
            key, value = m.group(1), m.group(2).strip()
            if key == "file":
                cur.file = value
            elif key == "env":
                cur.env = dict(kv.split("=", 1) for kv in value.split())
            elif key == "tests":
                cur.tests = value.split()
            elif key == "why":
                cur.why = value
            else:
                cur.equivalent = value
    close_hunk()
    names = set()
    for mu in mutants:
        if not mu.tests and mu.file is not None:
            mu.tests = mapped_tests(test_map, mu.file)
        if mu.file is None or not mu.hunks or not mu.tests:
            sys.exit("%s:%d: mutant %s needs file:, a change, and tests: (or a map: line for "
                     "its file)" % (path, mu.line, mu.name))
        if mu.name in names:
            sys.exit("%s: mutant %s twice" % (path, mu.name))
        names.add(mu.name)
    return mutants, test_map


def mapped_tests(test_map, path):
    """The tests of the longest map: prefix (a file, or a folder ending in /) that is path's."""
    best = None
    for prefix, tests in test_map:
        if (path == prefix or (prefix.endswith("/") and path.startswith(prefix))) and \
                (best is None or len(prefix) > len(best[0])):
            best = (prefix, tests)
    return list(best[1]) if best else []


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


class Build:
    """The scratch build: per test, what to build before it runs, and one test run."""

    def __init__(self, build, log, jobs):
        self.build, self.log, self.jobs = build, log, jobs
        probe = "print-check-programs:\n\t@echo $(check_PROGRAMS)\n"
        out = subprocess.run(["make", "-s", "-f", "Makefile", "-f", "-", "print-check-programs"],
                             cwd=build, input=probe.encode(), capture_output=True, check=True)
        self.check_programs = out.stdout.decode().split()
        self.srcdir = None

    def needs(self, tests):
        """make targets for tests: a C test program builds itself (its .log rule depends on
        it); a shell test needs the tools (all) and the test programs its script names."""
        targets = []
        for t in tests:
            if not t.endswith(".sh"):
                continue
            if "all" not in targets:
                targets.append("all")
            script = open(os.path.join(self.srcdir, t), encoding="utf-8").read()
            for prog in self.check_programs:
                if re.search(r"\b%s\b" % re.escape(os.path.basename(prog)), script) and \
                        prog not in targets:
                    targets.append(prog)
        return targets

    def make(self, targets, timeout):
        """Builds targets: "all" alone first, since automake's "all" runs a sub-make, and that
        sub-make and a test program named beside it in one make -j compile the same objects at
        once (their dependency files collide, and the build fails for no fault of the mutant)."""
        if not targets:
            return 0
        rest = [t for t in targets if t != "all"]
        for group in (["all"] if "all" in targets else []) + ([" ".join(rest)] if rest else []):
            st, _ = run("make -j%s %s" % (self.jobs, group), self.build, self.log,
                        timeout=timeout)
            if st != 0:
                return st
        return 0

    def run_test(self, test, timeout, env=None):
        """Runs one test through its automake .log rule; returns (verdict, seconds, first
        failing line): verdict PASS, FAIL (a check failed, or the test errored) or TIMEOUT."""
        base = os.path.join(self.build, test[:-3] if test.endswith(".sh") else test)
        for ext in (".log", ".trs"):
            if os.path.exists(base + ext):
                os.unlink(base + ext)
        st, secs = run("make %s.log" % (test[:-3] if test.endswith(".sh") else test),
                       self.build, self.log, timeout=timeout,
                       env=dict(os.environ, **env) if env else None)
        if st is None:
            return "TIMEOUT", secs, "timeout after %d s" % timeout
        trs = ""
        if os.path.exists(base + ".trs"):
            trs = open(base + ".trs", encoding="utf-8", errors="replace").read()
        m = re.search(r"^:global-test-result: (\S+)", trs, re.M)
        if st != 0 or m is None or m.group(1) in ("FAIL", "ERROR"):
            first = ""
            if os.path.exists(base + ".log"):
                for line in open(base + ".log", encoding="utf-8", errors="replace"):
                    if re.match(r"^(not ok|Bail out!)", line):
                        first = line.strip()
                        break
            return "FAIL", secs, "%s: %s" % (test, first or "status %s" % st)
        return "PASS", secs, ""

    def run_tests(self, tests, timeouts, stop_at_failure=False, env=None):
        """Runs tests, --jobs at a time; returns [(test, verdict, seconds, detail)] for those
        that ran. With stop_at_failure no test starts once one has failed (a mutant is caught
        by its first failure: the rest would only cost time)."""
        failed = threading.Event()

        def one(t):
            if stop_at_failure and failed.is_set():
                return None
            r = self.run_test(t, timeouts.get(t, 600), env)
            if r[0] != "PASS":
                failed.set()
            return (t,) + r

        with concurrent.futures.ThreadPoolExecutor(max_workers=int(self.jobs)) as pool:
            results = list(pool.map(one, tests))
        return [r for r in results if r is not None]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--srcdir", default=os.path.dirname(here), help="the source tree to copy")
    ap.add_argument("--list", default=None, help="the mutants (default tests/mutants/mutants.txt)")
    ap.add_argument("--only", default=None, help="comma-separated mutant names")
    ap.add_argument("--work", default=None, help="scratch folder (default: a new temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    ap.add_argument("--no-baseline", action="store_true",
                    help="do not first run the tests on the unchanged tree (their timeouts "
                    "are then --timeout)")
    ap.add_argument("--jobs", default="2", help="make -j, and tests run at once (default 2)")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds per test without a baseline time (default 600); with one, "
                    "5 times its baseline time and at least 60 s")
    ap.add_argument("--configure-flags", default="", help="extra configure arguments")
    ap.add_argument("--check", action="store_true",
                    help="only check that every mutant applies to the source tree")
    a = ap.parse_args()

    srcdir = os.path.abspath(a.srcdir)
    mutants, _ = parse_mutants(a.list or os.path.join(srcdir, "tests", "mutants", "mutants.txt"))
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
            for t in m.tests:
                if t != "all" and not os.path.exists(os.path.join(srcdir, t if t.endswith(".sh")
                                                                  else t + ".c")):
                    print("mutant %s: no test %s" % (m.name, t))
                    bad += 1
        print("mutate: %d mutants, %d bad" % (len(mutants), bad))
        return 1 if bad else 0

    # Check's per-test timeouts guard against hangs; on a loaded machine a slow pass must not
    # count as a caught mutant (a hang is still caught, by --timeout)
    os.environ.setdefault("CK_TIMEOUT_MULTIPLIER", "10")
    start = time.time()
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

    if not os.path.exists(os.path.join(src, "configure")):
        st, _ = run("autoreconf -fi", src, log)
        if st != 0:
            sys.exit("mutate: autoreconf failed (see %s)" % log)
    os.makedirs(build, exist_ok=True)
    if not os.path.exists(os.path.join(build, "Makefile")):
        st, _ = run("%s/configure -q %s" % (src, a.configure_flags), build, log)
        if st != 0:
            sys.exit("mutate: configure failed (see %s)" % log)
    b = Build(build, log, a.jobs)
    b.srcdir = src
    alltests = None
    for m in mutants:
        if m.tests == ["all"]:
            if alltests is None:
                out = subprocess.run(["make", "-s", "-f", "Makefile", "-f", "-", "print-tests"],
                                     cwd=build, input=b"print-tests:\n\t@echo $(TESTS)\n",
                                     capture_output=True, check=True)
                alltests = out.stdout.decode().split()
            m.tests = list(alltests)
    wanted = []
    for m in mutants:
        for t in m.tests:
            if t not in wanted:
                wanted.append(t)
    st = b.make(["all"] + [t for t in wanted if not t.endswith(".sh")] + b.needs(wanted), None)
    if st != 0:
        sys.exit("mutate: the unchanged tree does not build (see %s)" % log)

    timeouts = {}
    if not a.no_baseline:
        print("mutate: baseline: %d tests on the unchanged tree" % len(wanted), flush=True)
        t0 = time.time()
        for t, verdict, secs, detail in b.run_tests(wanted, {}):
            if verdict != "PASS":
                sys.exit("mutate: the unchanged tree fails %s (%s); nothing to measure (see %s)"
                         % (t, detail, log))
            timeouts[t] = max(60, int(5 * secs))
        print("mutate: baseline passes (%.0f s)" % (time.time() - t0), flush=True)

    for i, m in enumerate(mutants, 1):
        path = os.path.join(src, m.file)
        original = open(path, encoding="utf-8").read()
        text = original
        for old, new in m.hunks:
            text = text.replace(old, new, 1)
        t0 = time.time()
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            progs = [t for t in m.tests if not t.endswith(".sh")]
            if b.make(b.needs(m.tests) + progs, 1800) != 0:
                m.result, m.detail = "no-build", "does not build"
            else:
                # the quickest tests first (by the baseline's times), up to the first failure
                order = sorted(m.tests, key=lambda t: timeouts.get(t, a.timeout))
                results = b.run_tests(order, {t: timeouts.get(t, a.timeout) for t in order},
                                      stop_at_failure=True, env=m.env)
                m.ran = [r[0] for r in results]
                failed = [r for r in results if r[1] != "PASS"]
                m.result = "caught" if failed else "survived"
                if failed:
                    m.detail = failed[0][3] + (" (+%d more)" % (len(failed) - 1)
                                               if len(failed) > 1 else "")
        finally:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(original)
        m.seconds = time.time() - t0
        # a planted bug runs the tools as root with their safety checks gone: one that renamed an
        # output over /dev/null would spoil every later verdict (and the machine) unseen
        if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
            sys.exit("mutate: after mutant %s, /dev/null is no longer a device: a test let the "
                     "mutant write over it; restore it (rm /dev/null; mknod -m 666 /dev/null c 1 3)"
                     " and fix that test" % m.name)
        tag = m.result.upper()
        if m.equivalent is not None:
            tag += " (marked equivalent)"
        print("[%d/%d] %-28s %-10s %4.0f s  ran: %s%s" % (
            i, len(mutants), m.name, tag, m.seconds, " ".join(m.ran) or "-",
            "\n        " + m.detail if m.detail else ""), flush=True)

    judged = [m for m in mutants if m.equivalent is None and m.result != "no-build"]
    caught = [m for m in judged if m.result == "caught"]
    survived = [m for m in judged if m.result == "survived"]
    equivalent = [m for m in mutants if m.equivalent is not None]
    nobuild = [m for m in mutants if m.equivalent is None and m.result == "no-build"]
    print()
    for m in survived:
        print("  SURVIVED %s (%s:%d): %s [tests: %s]" % (m.name, "mutants.txt", m.line, m.why,
                                                          " ".join(m.tests)))
    for m in equivalent:
        print("  EQUIVALENT %s (%s): %s -- %s" % (m.name, m.result, m.why, m.equivalent))
        if m.result == "caught":
            print("    ... but it was caught: it is not equivalent")
    for m in nobuild:
        print("  NO-BUILD %s: fix its replacement" % m.name)
    print("mutation score: %d / %d caught (%d equivalent, %d did not build), %.0f min"
          % (len(caught), len(judged), len(equivalent), len(nobuild), (time.time() - start) / 60))
    if a.keep:
        print("mutate: scratch copy kept in %s" % work)
    else:
        shutil.copy(log, "mutate.log")
        print("mutate: the builds' and tests' output is in mutate.log")
        shutil.rmtree(work, ignore_errors=True)
    return 0 if not survived and not nobuild else 1


if __name__ == "__main__":
    sys.exit(main())
