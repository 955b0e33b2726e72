"""python3 -m libgguf show FILE [--json] [--kv|--tensors]: a GGUF file's header, metadata and
tensors (a path, a URL, or a shard of a split set). --json prints gguf-edit show --json's
document without its "model" summary: version, endian, alignment, data_offset, kv (values as
the library writes them in JSON), tensors. Exit status 0, 1 for a file refused (the message
names the offset), 2 for a usage error."""
import argparse
import ctypes
import json
import sys

from . import _lib, open as open_model
from .errors import Error

ARRAY_SHOWN = 8


def _json_value(v):
    t = _lib.gguf_text()
    try:
        if _lib.gguf_json_value(ctypes.byref(t), v) != 0:
            raise MemoryError("out of memory")
        return ctypes.string_at(t.data, t.len).decode("utf-8") if t.len else ""
    finally:
        _lib.gguf_text_free(ctypes.byref(t))


def _kv_json(m, i):
    v = _lib.gguf_kv_value(m._ptr, i)
    vtype = _lib.gguf_value_type(v)
    entry = {"key": m.kv._key(i), "type": _lib.gguf_vtype_name(vtype).decode()}
    if vtype == _lib.VTYPE_ARRAY:
        entry["elem_type"] = _lib.gguf_vtype_name(_lib.gguf_value_elem_type(v)).decode()
        entry["count"] = _lib.gguf_value_count(v)
    return entry, v


def show_json(m, out, kv=True, tensors=True):
    out.write('{"version":%d,"endian":"%s","alignment":%d,"data_offset":%d' %
              (m.version, m.endian, m.alignment, m.data_offset))
    if kv:
        out.write(',\n"kv":[')
        for i in range(len(m.kv)):
            entry, v = _kv_json(m, i)
            text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
            out.write("%s\n%s,\"value\":%s}" % ("," if i else "", text[:-1], _json_value(v)))
        out.write("]")
    if tensors:
        out.write(',\n"tensors":[')
        for i, t in enumerate(m.tensors.values()):
            d = {"name": t.name, "type": t.type, "type_id": t.type_id, "dims": list(t.dims),
                 "offset": t.offset, "size": t.nbytes}
            out.write(("," if i else "") + "\n" + json.dumps(d, ensure_ascii=False,
                                                             separators=(",", ":")))
        out.write("]")
    out.write("}\n")


def show_text(m, out, kv=True, tensors=True):
    out.write("%s: GGUF v%d, %s-endian, alignment %d, %d keys, %d tensors, data at byte %d\n" %
              (m.path, m.version, m.endian, m.alignment, len(m.kv), len(m.tensors),
               m.data_offset))
    if kv:
        for i in range(len(m.kv)):
            entry, v = _kv_json(m, i)
            if entry["type"] == "ARRAY":
                n = entry["count"]
                items = json.loads(_json_value(v))
                text = json.dumps(items[:ARRAY_SHOWN], ensure_ascii=False)
                if n > ARRAY_SHOWN:
                    text = text[:-1] + ", ... (%d in all)]" % n
                out.write("%s [ARRAY[%s]] %s\n" % (entry["key"], entry["elem_type"], text))
            else:
                out.write("%s [%s] %s\n" % (entry["key"], entry["type"], _json_value(v)))
    if tensors:
        for t in m.tensors.values():
            out.write("%-8s %s %s offset %d size %s\n" % (t.type, t.name, list(t.dims), t.offset,
                                                         "?" if t.nbytes is None else t.nbytes))


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m libgguf",
                                description="Show a GGUF file (libgguf's Python package).")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("show", help="header, metadata and tensors")
    s.add_argument("file")
    s.add_argument("--json", action="store_true", help="one JSON document")
    part = s.add_mutually_exclusive_group()
    part.add_argument("--kv", action="store_true", help="metadata only")
    part.add_argument("--tensors", action="store_true", help="tensors only")
    s.add_argument("--one-file", action="store_true",
                   help="a shard of a split set: this file alone, not the whole set")
    a = p.parse_args(argv)
    try:
        with open_model(a.file, split_set=not a.one_file) as m:
            (show_json if a.json else show_text)(m, sys.stdout, kv=not a.tensors,
                                                 tensors=not a.kv)
    except Error as e:
        print("python3 -m libgguf: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
