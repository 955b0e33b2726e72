"""libgguf.Catalog: the SQLite catalog of GGUF files (gguf-catalog's database)."""
import ctypes
import os

from . import _lib
from .errors import UnsupportedError, check
from .model import _fspath


class Catalog:
    """A catalog (default: $XDG_DATA_HOME/gguf/catalog.db). A context manager.

        with libgguf.Catalog("cat.db") as c:
            c.index(["models/"])
            for row in c.query("SELECT path, n_params FROM models"):
                ...
    """

    def __init__(self, path=None, readonly=False, create=True):
        if not _lib.gguf_catalog_available():
            raise UnsupportedError("catalog not built (libgguf was built without SQLite)",
                                   code=-9)
        flags = (2 if readonly else 0) | (0 if create else 1)
        h = ctypes.c_void_p()
        err = _lib.new_error()
        check(_lib.gguf_catalog_open(ctypes.byref(h), _fspath(path) if path else None, flags,
                                     ctypes.byref(err)), err)
        self._h = h.value

    def close(self):
        if self._h:
            _lib.gguf_catalog_close(self._h)
            self._h = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def index(self, paths, crc=False, force=False):
        """Adds or refreshes files, folders (walked for *.gguf) and URLs; returns the run's
        counts (seen, indexed, unchanged, broken, skipped, walk_errors, removed, broken_sets)."""
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        bs = [_fspath(p) for p in paths]
        arr = (ctypes.c_char_p * len(bs))(*bs)
        opt = _lib.gguf_catalog_index_options(flags=(1 if crc else 0) | (8 if force else 0),
                                              open_flags=0, array_max=1024)
        stats = _lib.gguf_catalog_stats()
        err = _lib.new_error()
        check(_lib.gguf_catalog_index(ctypes.byref(stats), self._h, arr, len(bs),
                                      ctypes.byref(opt), ctypes.byref(err)), err)
        return {name: getattr(stats, name) for name, _ in stats._fields_}

    def query(self, sql, columns=False):
        """Runs SQL on a read-only connection; returns the rows as tuples (int, float, str,
        bytes for BLOBs, None), or (column names, rows) with columns=True. Statements that
        would write are refused (InvalidArgumentError)."""
        names, rows = [], []

        def on_row(n, cols, cells, user):
            if not cells:
                names[:] = [cols[k].decode("utf-8", "replace") for k in range(n)]
                return 0
            row = []
            for k in range(n):
                c = cells[k]
                if c.type == 1:
                    row.append(c.i)
                elif c.type == 2:
                    row.append(c.r)
                elif c.type in (3, 4):
                    b = ctypes.string_at(c.text, c.len) if c.len else b""
                    row.append(b.decode("utf-8", "surrogateescape") if c.type == 3 else b)
                else:
                    row.append(None)
            rows.append(tuple(row))
            return 0

        cb = _lib.catalog_row_fn(on_row)
        err = _lib.new_error()
        check(_lib.gguf_catalog_query(self._h, sql.encode(), cb, None, ctypes.byref(err)), err)
        return (names, rows) if columns else rows
