/* Test-only: holds the process at a named point so that a test can order a race by events,
 * never by sleeps. With GGUF_TEST_PAUSE_AT=POINT (or POINT#N: its Nth arrival) and
 * GGUF_TEST_PAUSE_FIFO=PATH (a FIFO the test made, with a second one named PATH.go) in the
 * environment, the arrival at POINT writes "POINT PID\n" into PATH, then waits for the test's
 * reply on PATH.go (until the test closes it); later arrivals run on. Meanwhile the test does
 * its part of the race (writes the file, runs another command, kills this process). Two FIFOs,
 * so that the process never reads back its own line. Without the two variables, as always
 * outside the tests, a call costs three getenvs, on paths that then do file I/O anyway. The
 * library prints nothing: the FIFO is the test's. The points:
 *   source-opened        a local file open (and mapped), not a byte of it read (source/local.c)
 *   file-opened          a file's header parsed, no tensor byte read (format/open.c)
 *   save-proven          a rewrite written, fsync'd and proven; the target not yet checked nor
 *                        replaced (commit/save.c)
 *   merge-shard-emptied  merge: a shard's tensors in the first shard, the shard emptied
 *   merge-renamed        merge: the merged file renamed to OUT, the emptied shards still there
 *   journal-half-written an in-place header between its two writes, neither old nor new
 *                        (commit/journal.c)
 *   catalog-file-stored  an index run: a file's rows written, their transaction not committed
 *                        (catalog/store.c)
 *   catalog-table-copied a catalog copy: a table's rows written, the transaction not committed
 *                        (catalog/copy.c)
 *   and the steps of a save, to interrupt it there (below): temp-created, header-written,
 *   data-written (each progress report: up to a tensor's end, or a chunk of one), written,
 *   synced, renaming (proven and checked, about to rename), renamed, folder-synced
 *   (commit/save.c, write/write.c); of an in-place edit: journal-created, journal-applied,
 *   journal-removed (commit/update.c).
 *
 * GGUF_TEST_INTERRUPT="SIGNAL N": the Nth arrival at any point, whatever its name, sends this
 * process SIGNAL (a number) and stops the thread there for good, so that a test interrupts a
 * write at a moment it chooses, without timing (the program's interrupt handling then ends the
 * process: gguf_interrupt_cleanup). Inside an in-place window, which the cleanup waits for,
 * the thread runs on to the window's end instead, and stops there (gguf__interrupt_release).
 * A run with N past the last arrival ends normally: a test counts the moments that way. */
#define _GNU_SOURCE
#include "base/base.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Thread_local unsigned window;
static atomic_bool interrupting;

void gguf__test_window(int delta) {
    window += (unsigned)delta;
}

bool gguf__test_interrupting(void) {
    return atomic_load(&interrupting);
}

/* Counts the arrival as a moment of GGUF_TEST_INTERRUPT and, at the Nth, interrupts. */
static void interrupt_moment(void) {
    static atomic_long moments;
    const char *hook = getenv("GGUF_TEST_INTERRUPT");
    int sig;
    long at;
    if (hook == NULL || sscanf(hook, "%d %ld", &sig, &at) != 2 || sig <= 0)
        return;
    if (atomic_fetch_add(&moments, 1) + 1 != at)
        return;
    atomic_store(&interrupting, true);
    kill(getpid(), sig);
    if (window > 0)
        return; /* the window ends first: its release stops this thread */
    for (;;)
        pause(); /* the program's interrupt thread ends the process */
}

void gguf__test_pause(const char *point) {
    interrupt_moment();
    static atomic_long arrivals;
    const char *at = getenv("GGUF_TEST_PAUSE_AT");
    const char *fifo = getenv("GGUF_TEST_PAUSE_FIFO");
    size_t len = strlen(point);
    if (at == NULL || fifo == NULL || strncmp(at, point, len) != 0 ||
        (at[len] != '\0' && at[len] != '#'))
        return;
    long nth = at[len] == '#' ? strtol(at + len + 1, NULL, 10) : 1;
    if (atomic_fetch_add(&arrivals, 1) + 1 != nth)
        return;
    char line[160];
    int n = snprintf(line, sizeof line, "%s %ld\n", point, (long)getpid());
    int fd = open(fifo, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t w = write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)w;
    close(fd);
    char go[4096];
    if ((size_t)snprintf(go, sizeof go, "%s.go", fifo) >= sizeof go)
        return;
    fd = open(go, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char reply[64];
    while (read(fd, reply, sizeof reply) > 0) {
    }
    close(fd);
}
