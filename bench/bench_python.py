"""The Python package's figures for bench_python.sh, one job per call:

    bench_python.py gen OUT.gguf            a model with a 4096 x 14336 Q4_K and Q6_K tensor
    bench_python.py dequant libgguf|gguf-py FILE NAME   one tensor to float32, 1 thread
    bench_python.py kv libgguf|gguf-py FILE open the file and read every key's value

Each measuring call prints the seconds its work took inside the process (the interpreter's
start and imports left out; for dequant, the faster of two conversions); bench_python.sh also
times whole processes with best().
"""
import ctypes
import os
import sys
import time

import numpy as np

GGUF_PY_DIR = os.environ.get("GGUF_PY_DIR", "/tmp/ggml-oracle/src/gguf-py")


def ggufpy():
    sys.path.insert(0, GGUF_PY_DIR)
    import gguf
    return gguf


def gen(out):
    import libgguf
    from libgguf import _lib
    gguf = ggufpy()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((14336, 4096), dtype=np.float32)
    w = gguf.GGUFWriter(out, "bench")
    for name in ("Q4_K", "Q6_K"):
        t = libgguf.dtype_id(name)
        q = np.empty(14336 * _lib.gguf_quant_row_size(t, 4096), dtype=np.uint8)
        err = _lib.new_error()
        assert _lib.gguf_quant_quantize(q.ctypes.data, q.nbytes, t, x.ctypes.data, 14336, 4096,
                                        None, ctypes.byref(err)) == 0, err.message
        w.add_tensor(name.lower(), q.reshape(14336, -1),
                     raw_dtype=gguf.GGMLQuantizationType[name])
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def dequant(impl, path, name):
    """The faster of two conversions in this process: the first one in a process also pays
    for the kernel's first mapping of that much fresh memory, which says nothing of either
    implementation."""
    best = None
    for _ in range(2):
        if impl == "libgguf":
            import libgguf
            start = time.perf_counter()
            with libgguf.open(path) as m:
                a = m.tensors[name].numpy(threads=1)
        else:
            gguf = ggufpy()
            start = time.perf_counter()
            r = gguf.GGUFReader(path)
            t = [t for t in r.tensors if t.name == name][0]
            a = gguf.quants.dequantize(t.data, t.tensor_type)
        took = time.perf_counter() - start
        assert a.size == 4096 * 14336
        del a
        best = took if best is None else min(best, took)
    return best


def kv(impl, path):
    if impl == "libgguf":
        import libgguf
        start = time.perf_counter()
        with libgguf.open(path) as m:
            values = [m.kv[k] for k in m.kv]
    else:
        gguf = ggufpy()
        start = time.perf_counter()
        r = gguf.GGUFReader(path)
        values = [f.contents() for f in r.fields.values()]
    took = time.perf_counter() - start
    assert values
    return took


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "gen":
        gen(sys.argv[2])
    else:
        print("%.6f" % (dequant(*sys.argv[2:5]) if what == "dequant" else kv(*sys.argv[2:4])))
