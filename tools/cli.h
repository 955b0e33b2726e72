/* Glue shared by the command-line tools, one job per file: errors and usage errors on stderr
 * with "did you mean" (cli_report.c), every command's command line (cli_args.c), opening files
 * and URLs with the open options (cli_open.c), text output of names and values (cli_text.c),
 * the one progress bar (cli_progress.c), interrupts (cli_signals.c), standard output checked
 * at exit (cli_stdout.c). The tools never parse GGUF bytes themselves: they use the library. */
#ifndef GGUF_TOOLS_CLI_H
#define GGUF_TOOLS_CLI_H

#include <libgguf/gguf.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

#include "json_emit.h"

enum { CLI_OK = 0, CLI_BAD = 1, CLI_USAGE = 2, CLI_WARN = 3 };

extern const char *cli_prog; /* "gguf-edit" */

/* For the valid UTF-8 sequence of len bytes at s: its code point when a terminal acts on it or
 * it reorders the text around it, else -1. Those are the C0 controls and DEL, the C1 controls
 * (CSI, OSC, ...), and the bidirectional controls: the marks U+061C, U+200E and U+200F, the
 * embeddings and overrides U+202A..U+202E and the isolates U+2066..U+2069, which make text read
 * in another order than it is stored. Every escaper of the tools follows this rule. */
static inline long cli_text_control(const unsigned char *s, size_t len) {
    long cp;
    if (len == 1)
        cp = s[0];
    else if (len == 2)
        cp = (long)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
    else if (len == 3)
        cp = (long)(s[0] & 0x0f) << 12 | (long)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
    else
        return -1;
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c || cp == 0x200e ||
        cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
        return cp;
    return -1;
}

/* Prints "PROG: PATH: offset N: message" on stderr. */
void cli_report(const char *path, const gguf_error *err);
/* The file an error is about: the library's err->path, or path when the error names none or
 * kept only path's end (a name longer than gguf_error holds). */
const char *cli_error_path(const char *path, const gguf_error *err);
/* Prints "PROG: message" on stderr. */
void cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Options every command that opens a file accepts: --lenient, --endian little|big,
 * --unknown-types, --no-mmap, --one-file (the FILE ones), and for URLs --header, --offline,
 * --timeout, --retries, --deadline, --whole-limit (the URL ones, kept for cli_open; not for a
 * command that reads local files only, such as gguf-catalog index). Returns 1 if `opt` was
 * one of them (flags updated), 0 if not, and -1 on a bad value. */
enum {
    CLI_OPT_LENIENT = 1000, CLI_OPT_ENDIAN, CLI_OPT_UNKNOWN_TYPES, CLI_OPT_NO_MMAP,
    CLI_OPT_ONE_FILE, CLI_OPT_HEADER, CLI_OPT_OFFLINE, CLI_OPT_TIMEOUT, CLI_OPT_RETRIES,
    CLI_OPT_WHOLE_LIMIT, CLI_OPT_DEADLINE
};
/* Commands that read a model start from these flags: a shard opens its whole split set
 * (--one-file clears GGUF_OPEN_SPLIT_SET). */
#define CLI_READ_FLAGS ((unsigned)GGUF_OPEN_SPLIT_SET)
int cli_open_option(int opt, const char *arg, unsigned *flags);

/* getopt_long for every command: handles --help/-h (which longopts and shortopts must list) and
 * the open options itself, and returns each of the command's own options in turn (optarg set),
 * then -1 with optind at the first operand. argv[0] is the command's name (cli_verb is set to
 * it). `help` is the command's --help text, which starts with its usage line(s). CLI_DONE
 * means stop: --help printed that text (*status 0), or a bad option printed a short usage
 * error to stderr (*status 2): the option, "did you mean" the closest of longopts' names, the
 * usage line and where to find more. */
#define CLI_DONE (-2)
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *help, unsigned *flags, int *status);
/* 0 when exactly n operands follow the options; else prints a short usage error (usage: the
 * --help text or a usage line) and returns CLI_USAGE. */
int cli_operands(int argc, int n, const char *usage);
/* The same for at least n operands. */
int cli_operands_min(int argc, int n, const char *usage);

/* The command being run ("show"; NULL before one is chosen), for messages. */
extern const char *cli_verb;
/* A usage error: prints "PROG: VERB: message" (when fmt is not NULL), the usage line(s) of
 * `usage` for the verb (its lines that start with "usage:", or continue them, and name the
 * verb), and "Try 'PROG VERB --help' for more information." Returns CLI_USAGE. */
int cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "PROG: VERB: message" (no VERB before one is chosen) on stderr. */
void cli_verb_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* The name in names[0..n-1] a mistyped word most likely meant (edit distance, a transposition
 * counting one; or the one name it begins), or NULL when none is close. */
const char *cli_suggest(const char *word, const char *const *names, size_t n);
/* The key (tensors: 0) or tensor name (1) of f a mistyped word most likely meant, or NULL.
 * The name lives until the next call. */
const char *cli_suggest_name(const gguf_file *f, int tensors, const char *word);
/* "PROG: PATH: no key 'KEY'" (or tensor) on stderr, with "did you mean" the closest name f has. */
void cli_no_key(const gguf_file *f, const char *path, const char *key);
void cli_no_tensor(const gguf_file *f, const char *path, const char *name);
/* --version: "PROG (libgguf) VERSION" on standard output. */
void cli_print_version(void);

/* Standard output is checked once, at exit: each tool's main registers cli_close_stdout with
 * atexit. When anything written to it failed (a full disk, a closed descriptor), it
 * says so ("gguf-edit: standard output: No space left on device") and exits with
 * cli_stdout_status (1; diff sets 2). Commands need not flush stdout themselves; when they do,
 * cli_flush_stdout keeps the reason for that message. */
extern int cli_stdout_status;
void cli_close_stdout(void);
/* fflush(stdout), remembering why it failed. Returns 0 or -1. */
int cli_flush_stdout(void);

/* One progress bar for long writes (convert, requant, copy, rewrites): on a terminal only
 * (stderr), silent when stderr is piped or redirected. cli_progress_attach sets opt->progress
 * when stderr is a terminal; the bar shows the label, a bar, the percentage, the tensor being
 * written (of f's tensors, counted by their sizes when the write starts), bytes and seconds;
 * "syncing" instead of 100% once every byte is written (the fsync, the proof and the rename
 * follow). cli_progress_end clears it. */
typedef struct cli_progress {
    const char *label;
    const gguf_file *f;
    uint64_t *ends; /* cumulative tensor sizes, made at the first report */
    size_t n;
    int last_permille;
    int shown;
    double start;
    double drawn; /* when the bar was last drawn */
} cli_progress;
void cli_progress_attach(cli_progress *p, const char *label, const gguf_file *f,
                         gguf_write_options *opt);
/* The same bar for calls that take a progress callback of their own (split, merge): returns
 * the callback to pass with p as its user pointer, or NULL when stderr is not a terminal. f may
 * be NULL (no tensor count in the bar). */
gguf_progress_fn cli_progress_fn(cli_progress *p, const char *label, const gguf_file *f);
void cli_progress_end(cli_progress *p);
/* Whether a bar is on the terminal now (an interrupt's message ends its line first). */
int cli_progress_on_screen(void);
/* The same bar for long reads of a URL: the progress callback cli_open_options gives the
 * library (user: the URL, the bar's label), silent for the first 4 MiB. cli_fetch_progress_end
 * clears it (once a file is open, and at exit). */
void cli_fetch_progress(void *user, uint64_t fetched, uint64_t size);
void cli_fetch_progress_end(void);
/* Seconds on a monotonic clock. */
double cli_now(void);

/* Interrupts: called first in main, before any thread starts. SIGINT, SIGTERM and SIGHUP are
 * then taken by a thread of their own, which removes the library's temporary files
 * (gguf_interrupt_cleanup: an in-place edit under way finishes first, every output keeps its
 * old bytes or has its new ones whole), says so on stderr and ends the process by the same
 * signal (exit status 128 + N in a shell). */
void cli_signals_start(void);
/* Open flags for a command that only reads, then ends: headers parsed where they are mapped
 * (GGUF_OPEN_MAPPED_HEADER: no copy of a vocabulary), and from here on a file cut short under
 * a mapping ends the command with status 1 and a message, not a crash (SIGBUS). */
unsigned cli_read_mapped(unsigned flags);

/* Opens path with the flags and the URL options given, printing the error. Returns NULL on
 * failure. Reading never changes anything: a journal of an interrupted edit beside the file
 * is only reported. path may be a URL, or "-" for standard input (kept whole in memory, for
 * commands that read tensor data). */
gguf_file *cli_open(const char *path, unsigned flags);
/* cli_open for commands that show what a file holds: a file cut short inside its tensor data
 * (a truncated download) opens too (GGUF_OPEN_PARTIAL), with a warning on stderr saying where
 * it ends and how many tensors lack bytes. header_only: as cli_open_header for standard input. */
gguf_file *cli_open_partial(const char *path, unsigned flags, int header_only);
/* The same for commands that read the header only: of a pipe on standard input only the first
 * 256 MiB are kept (the rest is read to learn the size, and dropped). */
gguf_file *cli_open_header(const char *path, unsigned flags);
/* cli_open without printing: the library's code and error, for commands that report a file
 * they cannot read in their own output (verify). */
int cli_open_err(gguf_file **out, const char *path, unsigned flags, int header_only,
                 gguf_error *err);
/* The options cli_open gives the library for path (headers from --header, $GGUF_HTTP_HEADER,
 * and $HF_TOKEN for a huggingface.co URL without an Authorization header of its own). The
 * returned struct and its header array live until the next call. */
const gguf_open_options *cli_open_options(const char *path, unsigned flags);
/* Refuses (message printed, CLI_BAD) an output path that is a URL; CLI_OK otherwise. */
int cli_refuse_url_output(const char *path);
/* Says on stderr when a journal lies beside path (pending, or one recover would refuse). */
void cli_note_journal(const char *path);
/* An editor's first step: finishes an interrupted edit of path (gguf_file_recover), saying so.
 * Returns CLI_OK, or CLI_BAD after printing why a journal was refused. */
int cli_recover(const char *path);

/* Text output for people. Every name or string from a file goes through cli_text_escape, so that
 * a key or tensor name cannot drive the terminal: bytes 0x20-0x7e and valid UTF-8 are printed as
 * they are, except the C1 controls U+0080-U+009F; newline, tab and return print as \n \t \r, ESC
 * as \e, backslash as \\, every other control byte, DEL and bytes that are not UTF-8 as \xNN.
 * With `quoted`, the text is put in double quotes and '"' printed as \". */
void cli_text_escape(FILE *out, const char *s, size_t len, int quoted);

/* Text output for people: a value on one line, arrays cut after `max_elems` elements; strings
 * quoted by cli_text_escape. */
void cli_text_value(FILE *out, const gguf_value *v, unsigned max_elems);

/* The plural ending of a count's noun in messages: "1 tensor", "2 tensors". */
#define CLI_S(n) ((n) == 1 ? "" : "s")

/* Names for messages and listings. */
const char *cli_vtype_name(uint32_t vtype);
const char *cli_dtype_name(uint32_t dtype, char *buf, size_t bufsize);

#endif
