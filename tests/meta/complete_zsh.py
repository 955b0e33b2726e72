#!/usr/bin/env python3
"""complete_zsh.py FPATH_DIR WORKDIR LINE WANT... : types LINE and TAB in an interactive zsh
(compinit with FPATH_DIR first in fpath), and checks that each WANT shows among what zsh
completes or lists. Exit 0 when all do, 1 (naming what was shown) when not."""
import os
import pty
import select
import sys
import time

fpath, workdir, line, want = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
pid, fd = pty.fork()
if pid == 0:
    os.chdir(workdir)
    os.environ['TERM'] = 'dumb'
    os.execvp('zsh', ['zsh', '-f', '-i'])


def read_until(pred, timeout):
    out = ''
    end = time.time() + timeout
    while time.time() < end and not pred(out):
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 65536).decode(errors='replace')
            except OSError:
                break
    return out


os.write(fd, b'PS1="READY> "; fpath=(%s $fpath); autoload -U compinit; compinit -u -D; '
             b'unsetopt beep\n' % fpath.encode())
read_until(lambda o: o.count('READY> ') >= 2, 10)
os.write(fd, line.encode() + b'\t')
shown = read_until(lambda o: False, 0.5)
os.write(fd, b'\t')  # a second TAB lists what the first could not insert
shown += read_until(lambda o: all(w in shown + o for w in want), 10)
os.write(fd, b'\x03exit\n')
read_until(lambda o: False, 0.3)
missing = [w for w in want if w not in shown]
if missing:
    print(f'{line!r}<TAB>: no {missing} in {shown!r}')
    sys.exit(1)
