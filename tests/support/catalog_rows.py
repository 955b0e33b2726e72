#!/usr/bin/env python3
"""The rows of a catalog, for comparing two catalogs of the same files read from other places
(by path and by URL): every row of files, models, kv, tensors and errors, one line each,
sorted, with the paths' common start PREFIX written as '@' and without the columns that say
where or when a file was read (id, dev, ino, mtime_ns, indexed_at, etag, last_modified,
journal, the runs).

usage: catalog_rows.py DB PREFIX"""
import sqlite3
import sys

WHERE_OR_WHEN = {'id', 'file', 'dev', 'ino', 'mtime_ns', 'indexed_at', 'etag', 'last_modified',
                 'journal', 'indexed_run', 'changed_run', 'run'}


def main():
    db, prefix = sys.argv[1], sys.argv[2]
    con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)

    def columns(table):
        return [r[1] for r in con.execute('PRAGMA table_info(%s)' % table)
                if r[1] not in WHERE_OR_WHEN]

    queries = {
        'files': 'SELECT %s FROM files' % ', '.join(columns('files')),
        'models': 'SELECT %s FROM models' % ', '.join(columns('models')),
        'kv': 'SELECT f.path, %s FROM kv JOIN files f ON f.id = kv.file'
              % ', '.join('kv.' + c for c in columns('kv')),
        'tensors': 'SELECT f.path, %s FROM tensors t JOIN files f ON f.id = t.file'
                   % ', '.join('t.' + c for c in columns('tensors')),
        'errors': 'SELECT %s FROM errors' % ', '.join(columns('errors')),
    }
    out = sys.stdout
    for table, sql in queries.items():
        lines = []
        for row in con.execute(sql):
            cells = [c.replace(prefix, '@') if isinstance(c, str) else repr(c) for c in row]
            lines.append(table + '\t' + '\t'.join(cells))
        lines.sort()
        out.write('%s: %d rows\n' % (table, len(lines)))
        for line in lines:
            out.write(line + '\n')


if __name__ == '__main__':
    main()
