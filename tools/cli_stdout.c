/* Standard output, checked once at exit: a write that failed (a full disk, a closed
 * descriptor) is said, and the exit status says it too. */
#define _GNU_SOURCE /* __fpending */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

int cli_stdout_status = CLI_BAD;
static int stdout_errno;

int cli_flush_stdout(void) {
    if (fflush(stdout) == 0)
        return 0;
    if (stdout_errno == 0)
        stdout_errno = errno;
    return -1;
}

void cli_close_stdout(void) {
    int before = errno; /* the last failure's reason, when a write failed and nothing since */
    int pending = __fpending(stdout) != 0;
    int earlier = ferror(stdout);
    int closed = fclose(stdout) == 0;
    int e = errno;
    /* a closed descriptor is no error when nothing was written to it (gguf-edit set ... >&-) */
    if (!earlier && (closed || (!pending && e == EBADF)))
        return;
    if (closed)
        e = stdout_errno != 0 ? stdout_errno : before;
    fprintf(stderr, "%s: standard output: %s\n", cli_prog, e != 0 ? strerror(e) : "write error");
    _exit(cli_stdout_status);
}
