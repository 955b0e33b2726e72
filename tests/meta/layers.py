#!/usr/bin/env python3
"""The library's layers only point down, and no two of its files need each other.

usage: layers.py BUILDDIR

From the object files of the library (nm), every file's undefined symbols are matched with the
file that defines them. Each folder of libgguf/ is a layer with a rank; a file may use files of
its own folder or of folders of a lower rank, never of a higher rank or of another folder of
the same rank, and the files must form no circle. Prints each violation and exits 1, else
prints the layers with their files and edges counted."""
import os
import subprocess
import sys

# the order of DESIGN.md section 2, bottom up; folders of one rank must not use each other
RANKS = {"base": 0, "source": 1, "format": 2, "llama": 3, "quant": 3, "write": 3, "commit": 4,
         "requant": 5, "catalog": 5, "split": 5}


def objects(builddir):
    """libgguf's object files (the shared library's build), one per source file."""
    found = {}
    root = os.path.join(builddir, "libgguf")
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not (name.startswith("libgguf_la-") and name.endswith(".o")):
                continue
            rel = os.path.relpath(dirpath, root).split(os.sep)
            folder = rel[0]
            if folder in (".", ".libs"):
                continue  # every source file lives in a layer's folder
            src = folder + "/" + name[len("libgguf_la-"):-2] + ".c"
            found.setdefault(src, os.path.join(dirpath, name))
    return found


def nm(path, *flags):
    out = subprocess.run(["nm", *flags, path], check=True, capture_output=True, text=True).stdout
    return out.splitlines()


def main():
    objs = objects(sys.argv[1])
    if not objs:
        print("layers: no object files of the library under", sys.argv[1])
        return 1
    defined = {}
    for src, path in objs.items():
        for line in nm(path, "--defined-only"):
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRtdbr" and not parts[1].islower():
                defined[parts[2]] = src
    edges = {}
    for src, path in objs.items():
        uses = set()
        for line in nm(path, "-u"):
            sym = line.split()[-1]
            if sym in defined and defined[sym] != src:
                uses.add(defined[sym])
        edges[src] = uses
    bad = []
    for a, uses in sorted(edges.items()):
        fa = a.split("/")[0]
        if fa not in RANKS:
            bad.append(f"{a}: folder '{fa}' has no rank "
                       "(add it to tests/meta/layers.py and DESIGN.md)")
            continue
        # a file named after a layer (llama_check.c) belongs in that layer's folder
        prefix = a.split("/")[1].split("_")[0]
        if prefix in RANKS and prefix != fa:
            bad.append(f"{a}: named after the layer '{prefix}' but lives in {fa}/")
        for b in sorted(uses):
            fb = b.split("/")[0]
            if fb == fa:
                continue
            if RANKS.get(fb, 99) >= RANKS[fa]:
                bad.append(f"{a} ({fa}) calls {b} ({fb}): a call upward or sideways")
    # circles among files: depth-first search with colours
    colour = {}

    def visit(node, stack):
        colour[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if colour.get(nxt) == 1:
                bad.append("circle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif colour.get(nxt) is None:
                visit(nxt, stack)
        stack.pop()
        colour[node] = 2

    for node in sorted(edges):
        if colour.get(node) is None:
            visit(node, [])
    for b in bad:
        print("FAIL:", b)
    n_edges = sum(len(u) for u in edges.values())
    by_folder = {}
    for src in objs:
        by_folder.setdefault(src.split("/")[0], []).append(src.split("/")[1])
    for folder in sorted(by_folder, key=lambda f: (RANKS.get(f, 99), f)):
        print(f"layers: {RANKS.get(folder, '?')} {folder}/: {' '.join(sorted(by_folder[folder]))}")
    print(f"layers: {len(objs)} files, {n_edges} uses between files, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
