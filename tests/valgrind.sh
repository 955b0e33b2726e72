#!/bin/sh
# LOG_COMPILER for the Check programs in CI's valgrind pass: any memory error or definite leak
# fails the test.
exec "${LIBTOOL:-libtool}" --mode=execute valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite --trace-children=yes "$@"
