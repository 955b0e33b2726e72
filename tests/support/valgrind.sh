#!/bin/sh
# LOG_COMPILER for the Check programs in CI's valgrind pass: any memory error or definite leak
# fails the test. Programs the tests start through system() (sh, cp, grep) are not traced:
# Debian's coreutils leave blocks at exit that valgrind counts as definitely lost. No gdb
# server: the FIFOs it makes in /tmp stay behind a process a test kills.
exec "${LIBTOOL:-libtool}" --mode=execute valgrind -q --vgdb=no --error-exitcode=99 \
    --leak-check=full --errors-for-leak-kinds=definite --trace-children=yes \
    --trace-children-skip='/bin/*,/usr/bin/*,/usr/sbin/*,/sbin/*' "$@"
