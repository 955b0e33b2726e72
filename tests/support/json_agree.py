#!/usr/bin/env python3
"""Checks that `gguf-edit show --json FILE` agrees with ggml's reading of FILE (*.ggml.json).

usage: json_agree.py OURS.json GGML.json [--ignore-endian]
ggml spells tensor types in lower case and drops trailing 1-dims; both are normalised here.
Floats are compared as the numbers they denote (both sides print %.9g / %.17g)."""
import json
import math
import sys


def same_number(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b  # "nan", "inf", "-inf"
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, float) or isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def same_value(a, b):
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str):
        # ggml hands strings out as C strings: it shows them cut at the first NUL byte
        return a == b or (len(a) > len(b) and a.startswith(b) and a[len(b)] == "\0")
    return same_number(a, b)


def trim_dims(dims):
    dims = list(dims)
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return dims or [1]


def main():
    ours = json.load(open(sys.argv[1], encoding="utf-8"))
    ggml = json.load(open(sys.argv[2], encoding="utf-8"))
    problems = []
    for field in ("version", "alignment", "data_offset"):
        if ours[field] != ggml[field]:
            problems.append(f"{field}: ours {ours[field]} ggml {ggml[field]}")
    if len(ours["kv"]) != ggml["n_kv"] or len(ours["tensors"]) != ggml["n_tensors"]:
        problems.append("counts differ")
    for a, b in zip(ours["kv"], ggml["kv"]):
        for field in ("key", "type"):
            if a[field] != b[field]:
                problems.append(f"kv {b['key']!r}: {field} ours {a[field]!r} ggml {b[field]!r}")
        if b["type"] == "ARRAY" and (a["elem_type"] != b["elem_type"] or a["count"] != b["n"]):
            problems.append(f"kv {b['key']!r}: array type/count differ")
        if not same_value(a["value"], b["value"]):
            problems.append(f"kv {b['key']!r}: values differ")
    for a, b in zip(ours["tensors"], ggml["tensors"]):
        want = {"name": b["name"], "type": b["type"].upper(), "type_id": b["type_id"],
                "dims": b["ne"], "offset": b["offset"], "size": b["size"]}
        got = dict(a, dims=trim_dims(a["dims"]))
        for field, value in want.items():
            if got[field] != value:
                problems.append(f"tensor {b['name']!r}: {field} ours {got[field]!r} ggml {value!r}")
    for p in problems[:20]:
        print(f"{sys.argv[1]}: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
