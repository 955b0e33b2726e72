/* The option parser of the tools. Each command is described once, by a table of its options
 * (long name, short letter, argument name, help, and how the value is taken); the getopt_long
 * call, the --help text, the option list of `--list options COMMAND` of either tool (which
 * shell completion and the man page check read) and the value checks are all made from it.
 * Sizes and counts are read by one parser each, with limits, whose messages name the option. */
#ifndef GGUF_TOOLS_OPT_H
#define GGUF_TOOLS_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum opt_kind {
    OPT_END = 0, /* ends a table */
    OPT_TEXT,    /* no option: a line of prose in --help between options (help); with a value,
                  * the help of the options after it in its group starts at that column */
    OPT_FLAG,    /* int at `at` set to `value` */
    OPT_STRING,  /* const char * at `at` set to the argument */
    OPT_SIZE,    /* uint64_t at `at`: opt_parse_size within min..max (size_flags) */
    OPT_COUNT,   /* uint64_t at `at`: opt_parse_count within min..max */
    OPT_CHOICE,  /* int at `at`: the argument's index in choices */
    OPT_OPEN,    /* one of cli_open_option's (value: its CLI_OPT_*), into the open flags */
    OPT_HANDLER  /* handler(o, arg, values): the rest */
} opt_kind;

/* OPT_SIZE: N followed by M (10^6) or G (10^9), as llama-gguf-split reads --split-max-size. */
#define OPT_SIZE_DECIMAL 1u

typedef struct opt_spec opt_spec;
/* Takes arg (NULL for an option without one) into values. Returns 0, or -1 after printing
 * why (opt_error; the parser then prints the usage lines, and the exit status is 2), or 1
 * when the option did all there was to do (--version): the parse ends with exit status 0. */
typedef int (*opt_handler)(const opt_spec *o, const char *arg, void *values);

struct opt_spec {
    opt_kind kind;
    const char *name;   /* without "--" */
    int letter;         /* the short option, or 0 */
    const char *arg;    /* its argument's name in --help ("OUT"), or NULL: it takes none */
    const char *help;   /* lines; NULL: a hidden alias, in no help or list */
    size_t at;          /* where the value goes: offsetof in the command's values */
    int value;          /* OPT_FLAG: the value set; OPT_OPEN: its CLI_OPT_*; OPT_HANDLER: any */
    uint64_t min, max;  /* OPT_SIZE, OPT_COUNT */
    unsigned size_flags;
    const char *what;   /* OPT_COUNT: what the number is, in messages ("seconds"; "a number") */
    const char *const *choices; /* OPT_CHOICE (and listed for OPT_OPEN): NULL-terminated */
    opt_handler handler;
};

#define OPT_FLAG_(NAME, LETTER, HELP, T, FIELD, VALUE)                                          \
    {.kind = OPT_FLAG, .name = NAME, .letter = LETTER, .help = HELP, .at = offsetof(T, FIELD), \
     .value = VALUE}
#define OPT_STRING_(NAME, LETTER, ARG, HELP, T, FIELD)                                          \
    {.kind = OPT_STRING, .name = NAME, .letter = LETTER, .arg = ARG, .help = HELP,            \
     .at = offsetof(T, FIELD)}
#define OPT_COUNT_(NAME, LETTER, ARG, HELP, T, FIELD, MIN, MAX)                                 \
    {.kind = OPT_COUNT, .name = NAME, .letter = LETTER, .arg = ARG, .help = HELP,             \
     .at = offsetof(T, FIELD), .min = MIN, .max = MAX}
#define OPT_SIZE_(NAME, ARG, HELP, T, FIELD, MIN, MAX)                                          \
    {.kind = OPT_SIZE, .name = NAME, .arg = ARG, .help = HELP, .at = offsetof(T, FIELD),      \
     .min = MIN, .max = MAX}
#define OPT_CHOICE_(NAME, ARG, HELP, T, FIELD, CHOICES)                                         \
    {.kind = OPT_CHOICE, .name = NAME, .arg = ARG, .help = HELP, .at = offsetof(T, FIELD),    \
     .choices = CHOICES}
#define OPT_HANDLER_(NAME, LETTER, ARG, HELP, FN, VALUE)                                        \
    {.kind = OPT_HANDLER, .name = NAME, .letter = LETTER, .arg = ARG, .help = HELP,           \
     .handler = FN, .value = VALUE}
#define OPT_OPEN_(NAME, ARG, HELP, ID) {.kind = OPT_OPEN, .name = NAME, .arg = ARG, .help = HELP, .value = ID}
#define OPT_TEXT_(HELP) {.kind = OPT_TEXT, .help = HELP}
/* The URL options every command that reads URLs describes alike (gguf-edit's reading options,
 * gguf-catalog's index and verify). */
#define OPT_URL_TIMEOUT_RETRIES_                                                                 \
    OPT_OPEN_("timeout", "SECS",                                                                 \
              "give up connecting, or a transfer slower than 1 KiB/s, after SECS\n(default 30)", \
              CLI_OPT_TIMEOUT),                                                                  \
    OPT_OPEN_("retries", "N",                                                                    \
              "retry a failed request (5xx, dropped connection) N times (default 4)",            \
              CLI_OPT_RETRIES)
#define OPT_URL_WHOLE_LIMIT_                                                                     \
    OPT_OPEN_("whole-limit", "SIZE",                                                             \
              "a server that ignores Range: download the file whole only up to\n"                \
              "SIZE bytes (K, M, G suffixes; default 64M)",                                      \
              CLI_OPT_WHOLE_LIMIT)
/* Where option help starts in --help unless a command or a heading says. */
#define OPT_HELP_COLUMN 21
#define OPT_HEADING_(HELP, COLUMN) {.kind = OPT_TEXT, .help = HELP, .value = COLUMN}

/* Shared groups, after a command's own options in its --help: the reading options but
 * --one-file, --one-file, and the URL options (with the line that introduces them). */
extern const opt_spec opt_open_read[];
extern const opt_spec opt_open_one_file[];
extern const opt_spec opt_open_url[];
/* All three, what a command that reads a model takes. */
extern const opt_spec *const opt_open_groups[];

typedef struct opt_command opt_command;
struct opt_command {
    const char *name;     /* "copy" */
    int (*run)(int argc, char **argv);
    const char *line;     /* its line in gguf-edit --help: "copy FILE OUT    read and ..." */
    const char *synopsis; /* the usage line(s): "usage: gguf-edit copy FILE OUT [OPTIONS]\n" */
    const char *summary;  /* what it does, before the options in --help */
    const opt_spec *options;
    const opt_spec *const *groups; /* NULL-terminated, or NULL */
    int column; /* where the help of its own options starts in --help (0: OPT_HELP_COLUMN) */
    /* Groups of other commands whose options it recognises only to refuse them: refuse says
     * why (opt_error) and returns -1. */
    const opt_spec *const *foreign;
    int (*refuse)(const opt_command *c, const opt_spec *o);
    /* Options only before the first operand, which ends them (a program's own options,
     * before its command and the command's options). */
    int options_first;
};

/* Parses argv (argv[0] the command's name) by the command's table: each option's value goes
 * into values, the open options into *flags (NULL: it takes none of the reading ones). --help
 * prints the help text. Returns -1 with optind at the first operand, or the exit status to
 * end with: 0 after --help, 2 after a usage error (printed: what is wrong, the usage lines,
 * where to find more). */
int opt_parse(const opt_command *c, int argc, char **argv, void *values, unsigned *flags);

/* For a handler of an option of two words (NAME TEXT): the argument after the option's,
 * taken, or NULL when there is none. */
const char *opt_take_next(void);

/* The --help text. */
void opt_help(FILE *out, const opt_command *c);

/* One line per option --help shows: "-o, --output OUT", "--endian little|big" (a choice's
 * values), "--json"; for scripts, completion and the man page check. */
void opt_list(FILE *out, const opt_command *c);

/* A size: bytes, or a number with K, M, G or T (powers of 1024; "Ki", "KiB", "KB" and lower
 * case too), or with OPT_SIZE_DECIMAL a number followed by M (10^6) or G (10^9). Decimal
 * digits, after blanks and a '+' as strtoull reads them; without OPT_SIZE_DECIMAL also any
 * number strtod reads ("1.5G", "0.25", "1e3K"), rounded to the nearest byte. name (the
 * option, "--fit") and the limits are in the message printed when text is no such size or
 * out of min..max. Returns 0 or -1. */
int opt_parse_size(uint64_t *out, const char *text, const char *name, uint64_t min,
                   uint64_t max, unsigned size_flags);
/* A count: decimal digits (a '+' first allowed), within min..max. what: the message's noun
 * ("a number" when NULL). Returns 0 or -1 after printing why, naming name. */
int opt_parse_count(uint64_t *out, const char *text, const char *name, uint64_t min,
                    uint64_t max, const char *what);

/* "PROG: VERB: message" on stderr, for a bad option value. Returns -1. */
int opt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
