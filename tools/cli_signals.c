/* Interrupts (SIGINT, SIGTERM, SIGHUP) taken by a thread of their own, which removes the
 * library's temporary files before the process ends by the same signal; and SIGBUS, raised by
 * a mapped file cut short while a reader reads it. */
#define _GNU_SOURCE /* strsignal */
#include "cli.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sigset_t interrupts;

/* Waits for an interrupt; then removes the library's temporary files (an in-place edit under
 * way finishes first), says so, and ends the process by the same signal with its default
 * action, so that the caller sees it (a shell: exit status 128 + N). */
static void *interrupt_thread(void *unused) {
    (void)unused;
    int sig = 0;
    while (sigwait(&interrupts, &sig) != 0) {
    }
    int removed = gguf_interrupt_cleanup();
    char msg[160];
    int n = snprintf(msg, sizeof msg, "%s%s: interrupted (%s): %d temporary file%s removed, "
                     "every output left as it was or whole\n",
                     cli_progress_on_screen() ? "\n" : "", cli_prog,
                     strsignal(sig), removed, removed == 1 ? "" : "s");
    if (n > 0)
        (void)!write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached: the default action of these signals ends the process */
}

void cli_signals_start(void) {
    sigemptyset(&interrupts);
    sigaddset(&interrupts, SIGINT);
    sigaddset(&interrupts, SIGTERM);
    sigaddset(&interrupts, SIGHUP);
    pthread_t t;
    if (pthread_sigmask(SIG_BLOCK, &interrupts, NULL) != 0)
        return;
    if (pthread_create(&t, NULL, interrupt_thread, NULL) != 0)
        pthread_sigmask(SIG_UNBLOCK, &interrupts, NULL); /* no thread: the default actions */
    else
        pthread_detach(t);
}

/* A mapped file cut short under a reader: the command ends as an unreadable file's does
 * (status 1), without a crash or a core; what it printed so far stays a prefix. */
static void mapped_file_cut(int sig) {
    (void)sig;
    static const char msg[] = ": a file was cut short while it was read (SIGBUS)\n";
    (void)!write(STDERR_FILENO, cli_prog, strlen(cli_prog));
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(CLI_BAD);
}

unsigned cli_read_mapped(unsigned flags) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = mapped_file_cut;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
    return flags | GGUF_OPEN_MAPPED_HEADER;
}
