/* gguf-catalog: a SQLite catalog of GGUF files on disk and on servers. `index` walks folders
 * and fetches URLs, storing every file's header (keys, values, tensors), `query` runs read-only
 * SQL on it (printed by query_output.c), `schema` shows its tables, `verify` re-reads files
 * against their stored crc32s, `prune` forgets files that are gone. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "cli.h"
#include "query_output.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_S 60
#define DEFAULT_MAX_MEMORY "1G"
#define SQL_MAX ((size_t)64 << 20) /* SQL read from standard input */

static const char usage_text[] =
    "usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n"
    "       gguf-catalog --help | --version\n"
    "\n"
    "commands:\n"
    "  index [--crc] [--follow-symlinks] [--all-files] [--force] PATH...\n"
    "                           add or refresh files (folders are walked for *.gguf;\n"
    "                           a PATH may be an http:// or https:// URL)\n"
    "  query [--format table|box|markdown|csv|json|line] [SQL|-]\n"
    "                           run read-only SQL (SQL from standard input with - or none)\n"
    "  schema                   the tables, their columns and the models view\n"
    "  verify [PATH...]         re-read files and compare them with their stored crc32s\n"
    "  prune                    drop the rows of files that no longer exist\n"
    "  export DEST              copy every row into the catalog DEST (a SQLite file or a\n"
    "                           postgresql:// URL), replacing its rows\n"
    "  path                     print the catalog's path\n"
    "\n"
    "  --db PATH                the catalog: a SQLite file, or a postgresql:// URL of a\n"
    "                           PostgreSQL database (default $GGUF_CATALOG_DB, else\n"
    "                           $XDG_DATA_HOME/gguf/catalog.db, else\n"
    "                           ~/.local/share/gguf/catalog.db)\n"
    "  --version                print the version\n"
    "\n"
    "'gguf-catalog COMMAND --help' describes each command.\n"
    "Exit status: 0 ok, 1 bad request, failed operation or problems found (verify), 2 usage.\n";

/* The reading options of index (kept per file; verify reads each file with its own). */
#define READING_HELP                                                                            \
    "Files are read with (each file keeps them):\n"                                              \
    "  --lenient          accept duplicate keys and tensor names\n"                               \
    "  --endian ORDER     read files as 'little' or 'big' endian instead of detecting it\n"       \
    "  --unknown-types    accept tensor types this tool does not know\n"                          \
    "  --no-mmap          read files into memory instead of mapping them\n"
/* The URL options (index and verify). */
#define URL_HELP                                                                                \
    "URLs are read with:\n"                                                                      \
    "  --header 'NAME: VALUE'  send this header to the URL's host (repeatable); also taken from\n" \
    "                     $GGUF_HTTP_HEADER (and by index from $HF_TOKEN when every URL\n"     \
    "                     given is on huggingface.co)\n"                                       \
    "  --offline          never touch the network (URLs are not checked)\n"                       \
    "  --timeout SECS     give up connecting, or a transfer slower than 1 KiB/s, after SECS\n"    \
    "                     (default 30)\n"                                                         \
    "  --retries N        retry a failed request (5xx, dropped connection) N times (default 4)\n" \
    "  --deadline SECS    give up one read of a URL after SECS in all, retries included\n"       \
    "                     (default 300)\n"                                                        \
    "  --whole-limit SIZE  a server that ignores Range: download the file whole only up to\n"     \
    "                     SIZE bytes (K, M, G suffixes; default 64M)\n"

static const char index_usage[] =
    "usage: gguf-catalog [--db PATH] index [OPTIONS] PATH...\n"
    "       gguf-catalog [--db PATH] index [OPTIONS] --urls FILE [PATH...]\n"
    "Adds or refreshes files. Folders are walked recursively for *.gguf files; files named on\n"
    "the command line are taken whatever their name. Only headers are read. Files whose device,\n"
    "inode, size and mtime are unchanged are skipped (rows another machine stored: size and\n"
    "mtime). Files that are not GGUF or are broken go\n"
    "to the errors table with the reader's message. Each run is recorded in the runs table;\n"
    "journals of interrupted edits beside files are recorded (files.journal), never applied.\n"
    "A shard of a split set brings its whole set, one model; a set that does not open as one\n"
    "(a shard missing or from another set) goes to the errors table naming the shard.\n"
    "A PATH may be an http:// or https:// URL: URLs are fetched in parallel (headers only, with\n"
    "range requests); one indexed before is asked for again with one conditional request (its\n"
    "ETag or date), and skipped when the server says it did not change.\n"
    "  --urls FILE        index the URLs (or paths) in FILE too, one a line ('#' comments;\n"
    "                     '-': standard input)\n"
    "  --jobs N           URLs: fetch at most N at a time (default 16)\n"
    "  --crc              also store each tensor's crc32 (reads every byte) for verify\n"
    "  --follow-symlinks  follow symbolic links inside folders (not followed by default)\n"
    "  --all-files        take every file in folders, not only *.gguf\n"
    "  --force            re-read unchanged files too\n"
    "  --array-max N      store arrays of at most N elements as JSON in kv.text (1024)\n"
    "  -q, --quiet        no per-file messages, no progress\n"
    "  --db PATH          the catalog\n" READING_HELP URL_HELP;

static const char query_usage[] =
    "usage: gguf-catalog [--db PATH] query [OPTIONS] [SQL|-]\n"
    "Runs SQL on a read-only connection: statements that would change the catalog, PRAGMAs\n"
    "that set something and functions that reach outside the catalog are refused. The SQL is\n"
    "read from standard input when it is '-', or when it is left out and standard input is not\n"
    "a terminal.\n"
    "  --format FORMAT    table (default: columns sized to their content), box (the same in\n"
    "                     lines), markdown, csv, json (one array of row objects) or line\n"
    "                     (column = value, one per line)\n"
    "  --max-width N      cut table, box and markdown cells to N columns (an ellipsis ends a\n"
    "                     cut cell)\n"
    "  --timeout SECONDS  stop a query that runs longer (default 60; 0: no limit)\n"
    "  --max-memory SIZE  stop a query whose SQLite memory would exceed SIZE (bytes, or with\n"
    "                     K, M, G; default " DEFAULT_MAX_MEMORY "; 0: no limit); tables hold at\n"
    "                     most SIZE of rows to size their columns, and print in pages past it\n"
    "  --db PATH          the catalog\n"
    "'gguf-catalog schema' lists the tables and columns. Examples:\n"
    "  gguf-catalog query \"SELECT path, context_length FROM models WHERE context_length >= 32768\"\n"
    "  gguf-catalog query \"SELECT f.path, t.name FROM tensors t JOIN files f ON f.id = t.file\n"
    "                      WHERE f.changed_run = (SELECT max(id) FROM runs WHERE kind = 'index')\"\n";

static const char schema_usage[] =
    "usage: gguf-catalog [--db PATH] schema\n"
    "Prints the catalog's tables and views with their columns and types.\n"
    "  --db PATH          the catalog\n";

static const char verify_usage[] =
    "usage: gguf-catalog [--db PATH] verify [PATH...]\n"
    "Re-reads catalogued files (all, or those at or below PATH) and reports files that are\n"
    "missing, changed, or corrupt, naming each tensor whose crc32 no longer matches (for files\n"
    "indexed with --crc; the header's crc32 is checked for every file). Every shard of a split\n"
    "set is checked, and shards the catalog lacks are reported. URLs are fetched again (a\n"
    "changed ETag, date or size is a change). Exit 1 if any.\n"
    "  --db PATH          the catalog\n" URL_HELP;

static const char prune_usage[] =
    "usage: gguf-catalog [--db PATH] prune [-q]\n"
    "Drops the rows of files (and of errors) whose path no longer exists.\n"
    "  -q, --quiet        do not list the dropped paths\n"
    "  --db PATH          the catalog\n";

static const char export_usage[] =
    "usage: gguf-catalog [--db PATH] export DEST\n"
    "Copies every row of the catalog (files, kv, array_items, tensors, errors, runs) into the\n"
    "catalog DEST, made if needed, its rows replaced, in one transaction: a SQLite file or a\n"
    "postgresql:// URL, either way.\n"
    "  --db PATH          the catalog to copy\n";

static const char path_usage[] =
    "usage: gguf-catalog [--db PATH] path\n"
    "Prints the catalog's path.\n";

static const char *db_path; /* --db, or NULL for the default */

enum {
    OPT_DB = 2000,
    OPT_CRC,
    OPT_FOLLOW,
    OPT_ALL,
    OPT_FORCE,
    OPT_ARRAY_MAX,
    OPT_FORMAT,
    OPT_TIMEOUT,
    OPT_MAX_MEMORY,
    OPT_MAX_WIDTH,
    OPT_VERSION,
    OPT_URLS,
    OPT_JOBS
};

/* The options every command takes: --db, --help. */
#define COMMON_LONG_OPTIONS                                                                     \
    {"db", required_argument, NULL, OPT_DB}, { "help", no_argument, NULL, 'h' }

/* Parses a command's options with getopt_long: --db and --help here, the reading options
 * into *open_flags (may be NULL when the command takes none) and the URL options for
 * cli_open_options, the others returned one by one (optarg set), -1 at the first operand;
 * CLI_DONE when --help printed the usage (*status 0) or an option was bad (*status 2). */
static int next_option(int argc, char **argv, const char *shortopts,
                       const struct option *longopts, const char *usage, unsigned *open_flags,
                       int *status) {
    unsigned none = 0;
    for (;;) {
        int c = cli_getopt(argc, argv, shortopts, longopts, usage,
                           open_flags != NULL ? open_flags : &none, status);
        if (c != OPT_DB)
            return c;
        db_path = optarg;
    }
}

static size_t n_headers(const gguf_open_options *o) {
    size_t n = 0;
    while (o->headers != NULL && o->headers[n] != NULL)
        n++;
    return n;
}

/* The options URLs are read with: cli_open_options's, with $HF_TOKEN only when every URL is
 * one it may go to (huggingface.co). Valid until the next cli_open_options. */
static const gguf_open_options *url_options(char *const *args, size_t n) {
    size_t plain = n_headers(cli_open_options("", 0));
    const char *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!gguf_path_is_url(args[i]))
            continue;
        if (n_headers(cli_open_options(args[i], 0)) == plain)
            return cli_open_options("", 0); /* a URL the token may not go to */
        if (first == NULL)
            first = args[i];
    }
    return cli_open_options(first != NULL ? first : "", 0);
}

static gguf_catalog *open_catalog(unsigned flags) {
    gguf_catalog *cat = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_catalog_open(&cat, db_path, flags, &err) != 0) {
        if (err.code == GGUF_ENOTFOUND)
            cli_errorf("%s (run 'gguf-catalog index PATH...' first)", err.message);
        else
            cli_errorf("%s", err.message[0] ? err.message : gguf_strerror(err.code));
        return NULL;
    }
    return cat;
}

/* "s" for a count that takes a plural noun. */
static const char *plural(uint64_t n) { return n == 1 ? "" : "s"; }

static int fail(const gguf_error *err) {
    cli_errorf("%s", err->message[0] ? err->message : gguf_strerror(err->code));
    return CLI_BAD;
}

/* ---- index ---- */

typedef struct progress {
    int quiet;
    int tty;
    uint64_t files, indexed, unchanged, broken, offline, partial;
    double last;
    int shown;
} progress;

static void progress_clear(progress *p) {
    if (p->shown) {
        fputs("\r\033[K", stderr);
        p->shown = 0;
    }
}

static void on_event(const gguf_catalog_event *ev, void *user) {
    progress *p = user;
    switch (ev->kind) {
    case GGUF_CATALOG_EV_INDEXED:
        p->indexed++, p->files++;
        p->partial += ev->error != NULL;
        if (ev->error != NULL && !p->quiet) { /* a file cut short, catalogued partial */
            progress_clear(p);
            cli_errorf("%s: %s", ev->path, ev->error->message);
        }
        break;
    case GGUF_CATALOG_EV_UNCHANGED: p->unchanged++, p->files++; break;
    case GGUF_CATALOG_EV_BROKEN:
        p->broken++, p->files++;
        /* fall through */
    case GGUF_CATALOG_EV_SET_BROKEN:
        if (!p->quiet) {
            progress_clear(p);
            cli_report(ev->path, ev->error);
        }
        break;
    case GGUF_CATALOG_EV_SKIPPED: p->offline += gguf_path_is_url(ev->path) != 0; break;
    case GGUF_CATALOG_EV_WALK_ERROR:
        progress_clear(p);
        cli_errorf("%s", ev->error->message);
        break;
    default: break;
    }
    if (p->tty && !p->quiet) {
        double t = cli_now();
        if (t - p->last >= 0.1) {
            p->last = t;
            p->shown = 1;
            fprintf(stderr, "\r%s: %" PRIu64 " file%s: %" PRIu64 " indexed, %" PRIu64
                            " unchanged, %" PRIu64 " refused",
                    cli_prog, p->files, plural(p->files), p->indexed, p->unchanged, p->broken);
        }
    }
}

/* The arguments of index: the operands, then the lines of --urls FILE. */
typedef struct arg_list {
    char **v;
    size_t n, cap;
    char **owned; /* the lines read (freed at the end) */
    size_t n_owned;
} arg_list;

static int arg_add(arg_list *a, char *s, int owned) {
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        char **p = realloc(a->v, cap * sizeof *p);
        char **q = realloc(a->owned, cap * sizeof *q);
        if (p != NULL)
            a->v = p;
        if (q != NULL)
            a->owned = q;
        if (p == NULL || q == NULL)
            return -1;
        a->cap = cap;
    }
    a->v[a->n++] = s;
    if (owned)
        a->owned[a->n_owned++] = s;
    return 0;
}

static void arg_free(arg_list *a) {
    for (size_t i = 0; i < a->n_owned; i++)
        free(a->owned[i]);
    free(a->owned);
    free(a->v);
}

/* One URL (or path) a line; blank lines and lines starting with '#' are skipped, and blanks
 * around each line dropped. */
static int read_url_list(arg_list *a, const char *file) {
    FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
    if (in == NULL) {
        cli_errorf("%s: %s", file, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, in)) >= 0) {
        char *b = line, *e = line + len;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (b == e || *b == '#')
            continue;
        char *copy = strndup(b, (size_t)(e - b));
        if (copy == NULL || arg_add(a, copy, 1) != 0) {
            free(copy);
            cli_errorf("out of memory");
            rc = -1;
        }
    }
    if (rc == 0 && ferror(in)) {
        cli_errorf("%s: %s", file, strerror(errno));
        rc = -1;
    }
    free(line);
    if (in != stdin)
        fclose(in);
    return rc;
}

static int cmd_index(int argc, char **argv) {
    static const struct option longopts[] = {
        {"crc", no_argument, NULL, OPT_CRC},
        {"follow-symlinks", no_argument, NULL, OPT_FOLLOW},
        {"all-files", no_argument, NULL, OPT_ALL},
        {"force", no_argument, NULL, OPT_FORCE},
        {"array-max", required_argument, NULL, OPT_ARRAY_MAX},
        {"urls", required_argument, NULL, OPT_URLS},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"quiet", no_argument, NULL, 'q'},
        COMMON_LONG_OPTIONS,
        CLI_OPEN_READ_LONG_OPTIONS,
        CLI_OPEN_URL_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    progress p;
    memset(&p, 0, sizeof p);
    arg_list args;
    memset(&args, 0, sizeof args);
    const char *url_file = NULL;
    int c, status;
    while ((c = next_option(argc, argv, "qh", longopts, index_usage, &opt.open_flags,
                            &status)) != -1) {
        switch (c) {
        case CLI_DONE: return status;
        case OPT_CRC: opt.flags |= GGUF_CATALOG_CRC; break;
        case OPT_FOLLOW: opt.flags |= GGUF_CATALOG_FOLLOW_SYMLINKS; break;
        case OPT_ALL: opt.flags |= GGUF_CATALOG_ALL_FILES; break;
        case OPT_FORCE: opt.flags |= GGUF_CATALOG_FORCE; break;
        case OPT_ARRAY_MAX: {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (end == optarg || *end != '\0' || optarg[0] == '-' || errno != 0) {
                return cli_usage_error(index_usage,
                                       "--array-max takes a number of elements, not '%s'", optarg);
            }
            opt.array_max = v;
            break;
        }
        case OPT_URLS: url_file = optarg; break;
        case OPT_JOBS: {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 1 || v > 1024) {
                return cli_usage_error(index_usage, "--jobs takes a number from 1 to 1024, not '%s'",
                                       optarg);
            }
            opt.jobs = (unsigned)v;
            break;
        }
        case 'q': p.quiet = 1; break;
        default: return cli_usage_error(index_usage, NULL);
        }
    }
    if (optind >= argc && url_file == NULL)
        return cli_usage_error(index_usage, "missing operand");
    int rc = CLI_OK;
    for (int i = optind; rc == CLI_OK && i < argc; i++) {
        if (arg_add(&args, argv[i], 0) != 0) {
            cli_errorf("out of memory");
            rc = CLI_BAD;
        }
    }
    if (rc == CLI_OK && url_file != NULL && read_url_list(&args, url_file) != 0)
        rc = CLI_BAD;
    gguf_catalog *cat = rc == CLI_OK ? open_catalog(GGUF_CATALOG_OPEN_DEFAULT) : NULL;
    if (cat == NULL) {
        arg_free(&args);
        return CLI_BAD;
    }
    p.tty = isatty(2);
    p.last = cli_now();
    opt.on_event = on_event;
    opt.user = &p;
    gguf_catalog_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    int lrc = gguf_catalog_set_url_options(cat, url_options(args.v, args.n), &err);
    if (lrc == 0)
        lrc = gguf_catalog_index(&st, cat, (const char *const *)args.v, args.n, &opt, &err);
    progress_clear(&p);
    gguf_catalog_close(cat);
    arg_free(&args);
    if (lrc != 0)
        return fail(&err);
    printf("%" PRIu64 " file%s: %" PRIu64 " indexed", st.seen, plural(st.seen), st.indexed);
    if (p.partial)
        printf(" (%" PRIu64 " partial: cut short)", p.partial);
    printf(", %" PRIu64 " unchanged, %" PRIu64 " refused (in the errors table)", st.unchanged,
           st.broken);
    if (st.broken_sets)
        printf(", %" PRIu64 " split set%s broken (in the errors table)", st.broken_sets,
               plural(st.broken_sets));
    if (st.skipped > p.offline)
        printf(", %" PRIu64 " %s skipped%s", st.skipped - p.offline,
               st.skipped - p.offline == 1 ? "link or special file" : "links or special files",
               opt.flags & GGUF_CATALOG_FOLLOW_SYMLINKS ? ""
                                                        : " (--follow-symlinks follows links)");
    if (p.offline)
        printf(", %" PRIu64 " URL%s not checked (--offline)", p.offline, plural(p.offline));
    putchar('\n');
    return st.walk_errors ? CLI_BAD : CLI_OK;
}

/* ---- query ---- */

/* "2", "0.5" seconds into milliseconds; -1 when it is not a number of seconds. */
static int64_t parse_seconds(const char *s) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !(v >= 0) || v > 1e9)
        return -1;
    return (int64_t)(v * 1000 + 0.5);
}

/* "1048576", "512K", "64M", "1G", "1T" into bytes; -1 when it is not a size. */
static int64_t parse_size(const char *s) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double unit = 1;
    if (end == s || errno != 0 || !(v >= 0))
        return -1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': unit = 1024.0; end++; break;
    case 'm': case 'M': unit = 1024.0 * 1024; end++; break;
    case 'g': case 'G': unit = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': unit = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: return -1;
    }
    if (unit > 1 && *end == 'i')
        end++; /* "64Mi" */
    if (unit > 1 && *end == 'B')
        end++; /* "64MB", "64MiB" */
    if (*end != '\0' || v * unit > 9e18)
        return -1;
    return (int64_t)(v * unit + 0.5);
}

/* All of standard input, NUL-terminated (malloc'd); NULL after saying why. */
static char *read_stdin(void) {
    size_t len = 0, cap = 4096;
    char *p = malloc(cap);
    while (p != NULL) {
        if (len + 1 == cap) {
            char *q = cap < SQL_MAX ? realloc(p, cap * 2) : NULL;
            if (q == NULL) {
                free(p);
                cli_errorf(cap < SQL_MAX ? "out of memory"
                                         : "standard input: the SQL is longer than 64 MiB");
                return NULL;
            }
            p = q;
            cap *= 2;
        }
        size_t n = fread(p + len, 1, cap - 1 - len, stdin);
        len += n;
        if (n == 0) {
            if (ferror(stdin)) {
                cli_errorf("standard input: %s", strerror(errno));
                free(p);
                return NULL;
            }
            p[len] = '\0';
            if (memchr(p, '\0', len) != NULL) {
                cli_errorf("standard input: the SQL holds a NUL byte");
                free(p);
                return NULL;
            }
            return p;
        }
    }
    cli_errorf("out of memory");
    return NULL;
}

/* The time limit's last resort. SQLite looks at the clock between the steps of a query, never
 * inside one: a function such as instr() on two long strings runs for hours in one step. A
 * thread waits for the query to end until its deadline plus a grace in which the library
 * stops it cleanly; past that it says what the library would have said and ends the process
 * (a query only reads: nothing is left half done). */
#define WATCHDOG_GRACE_MS 1000

typedef struct watchdog {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct timespec deadline; /* CLOCK_MONOTONIC */
    double seconds;           /* the time limit, for the message */
    int done, running;
} watchdog;

static void *watchdog_main(void *arg) {
    watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    int rc = 0;
    while (!w->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->cond, &w->lock, &w->deadline);
    if (!w->done) { /* the lock stays held: the query's own end waits for the exit */
        cli_errorf("query: stopped at the time limit of %g s", w->seconds);
        fprintf(stderr, "%s: --timeout SECONDS raises the limit (0: none)\n", cli_prog);
        _exit(CLI_BAD);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Starts the watchdog of a query limited to timeout_ms (0: none); 0, or -1 after saying why. */
static int watchdog_start(watchdog *w, int64_t timeout_ms) {
    memset(w, 0, sizeof *w);
    if (timeout_ms == 0)
        return 0;
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc == 0)
        rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&w->cond, &attr);
    pthread_condattr_destroy(&attr);
    if (rc == 0 && (rc = pthread_mutex_init(&w->lock, NULL)) != 0)
        pthread_cond_destroy(&w->cond);
    if (rc != 0) {
        cli_errorf("starting the query's watchdog: %s", strerror(rc));
        return -1;
    }
    clock_gettime(CLOCK_MONOTONIC, &w->deadline);
    int64_t ns = w->deadline.tv_nsec + (timeout_ms + WATCHDOG_GRACE_MS) % 1000 * 1000000;
    w->deadline.tv_sec += (time_t)((timeout_ms + WATCHDOG_GRACE_MS) / 1000 + ns / 1000000000);
    w->deadline.tv_nsec = (long)(ns % 1000000000);
    w->seconds = (double)timeout_ms / 1000;
    rc = pthread_create(&w->thread, NULL, watchdog_main, w);
    if (rc != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
        cli_errorf("starting the query's watchdog: %s", strerror(rc));
        return -1;
    }
    w->running = 1;
    return 0;
}

static void watchdog_stop(watchdog *w) {
    if (!w->running)
        return;
    pthread_mutex_lock(&w->lock);
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    w->running = 0;
}

static int cmd_query(int argc, char **argv) {
    static const struct option longopts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
        {"max-width", required_argument, NULL, OPT_MAX_WIDTH},
        COMMON_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    int format = QUERY_TABLE, c, status;
    long max_width = 0;
    int64_t timeout_ms = DEFAULT_TIMEOUT_S * 1000, max_memory = parse_size(DEFAULT_MAX_MEMORY);
    while ((c = next_option(argc, argv, "h", longopts, query_usage, NULL, &status)) != -1) {
        switch (c) {
        case CLI_DONE: return status;
        case OPT_FORMAT:
            format = query_format_parse(optarg);
            if (format < 0) {
                return cli_usage_error(query_usage,
                                       "--format takes table, box, markdown, csv, json or line, "
                                       "not '%s'", optarg);
            }
            break;
        case OPT_TIMEOUT:
            timeout_ms = parse_seconds(optarg);
            if (timeout_ms < 0) {
                return cli_usage_error(query_usage, "--timeout takes a number of seconds, not '%s'",
                                       optarg);
            }
            break;
        case OPT_MAX_MEMORY:
            max_memory = parse_size(optarg);
            if (max_memory < 0) {
                return cli_usage_error(query_usage,
                                       "--max-memory takes a size (like 512M or 2G), not '%s'",
                                       optarg);
            }
            break;
        case OPT_MAX_WIDTH: {
            char *end;
            errno = 0;
            max_width = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || errno != 0 || max_width < 1 || max_width > 1000000)
                return cli_usage_error(query_usage,
                                       "--max-width takes a number of columns (1 to 1000000), "
                                       "not '%s'", optarg);
            break;
        }
        default: return cli_usage_error(query_usage, NULL);
        }
    }
    int from_stdin = optind == argc - 1 ? strcmp(argv[optind], "-") == 0
                                        : optind == argc && !isatty(0);
    if (optind < argc - 1)
        return cli_usage_error(query_usage, "too many operands (one SQL text, or '-')");
    if (optind == argc && !from_stdin)
        return cli_usage_error(query_usage, "no SQL given (and standard input is a terminal)");
    char *sql = from_stdin ? read_stdin() : argv[optind];
    if (sql == NULL)
        return CLI_BAD;
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_NOCREATE);
    query_output_options qo = {.max_width = (size_t)max_width,
                                .max_memory = (uint64_t)max_memory,
                                .terminal = isatty(STDOUT_FILENO)};
    query_output *out = cat != NULL ? query_output_new(format, stdout, &qo) : NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = cat == NULL ? CLI_BAD : out == NULL ? (cli_errorf("out of memory"), CLI_BAD) : CLI_OK;
    if (rc == CLI_OK &&
        gguf_catalog_set_query_limits(cat, (uint64_t)timeout_ms, (uint64_t)max_memory, &err) != 0)
        rc = fail(&err);
    watchdog dog;
    if (rc == CLI_OK && watchdog_start(&dog, timeout_ms) != 0)
        rc = CLI_BAD;
    if (rc == CLI_OK) {
        int qrc = gguf_catalog_query(cat, sql, query_output_row, out, &err);
        int orc = query_output_finish(out);
        watchdog_stop(&dog);
        if (query_output_nomem(out)) {
            cli_errorf("out of memory");
            rc = CLI_BAD;
        } else if (qrc != 0) {
            rc = fail(&err);
            if (err.code == GGUF_ELIMIT && strstr(err.message, "length limit") == NULL)
                fprintf(stderr, "%s: %s raises the limit (0: none)\n", cli_prog,
                        strstr(err.message, "time") ? "--timeout SECONDS" : "--max-memory SIZE");
        } else if (orc != 0) {
            rc = CLI_BAD; /* a write error: main says which */
        }
    }
    query_output_free(out);
    gguf_catalog_close(cat);
    if (from_stdin)
        free(sql);
    return rc;
}

/* ---- schema ---- */

static const struct {
    const char *name, *what;
} table_notes[] = {
    {"files", "one row per file that reads as GGUF (missing_bytes > 0: cut short inside its "
              "tensor data, its header catalogued)"},
    {"kv", "one row per key of each file (file = files.id)"},
    {"array_items", "one row per element of each array of at most 1048576 scalars or strings "
                    "(file, position = kv's)"},
    {"tensors", "one row per tensor of each file (file = files.id)"},
    {"errors", "files the reader refused, with its message"},
    {"runs", "one row per index or prune run (files.changed_run, indexed_run, errors.run)"},
    {"file_types", "the names of llama.cpp's general.file_type ids"},
    {"models", "one row per model: a file, or a split set as one row (its first shard's, with "
               "the totals of its shards); partial: its files lack missing_bytes bytes"},
};

typedef struct schema_printer {
    char table[128];
    int any;
} schema_printer;

static int schema_row(size_t ncols, const char *const *names, const gguf_catalog_cell *cells,
                      void *user) {
    schema_printer *sp = user;
    (void)names;
    if (cells == NULL || ncols != 4)
        return 0;
    const char *table = cells[0].text ? cells[0].text : "";
    if (strcmp(table, sp->table) != 0) {
        snprintf(sp->table, sizeof sp->table, "%s", table);
        const char *what = "";
        for (size_t i = 0; i < sizeof table_notes / sizeof table_notes[0]; i++) {
            if (strcmp(table_notes[i].name, table) == 0)
                what = table_notes[i].what;
        }
        printf("%s%s (%s)%s%s\n", sp->any++ ? "\n" : "", table, cells[1].text ? cells[1].text : "",
               what[0] ? ": " : "", what);
    }
    const char *column = cells[2].text ? cells[2].text : "";
    const char *type = cells[3].text ? cells[3].text : "";
    int pad = type[0] == '\0' ? 0 : strlen(column) < 18 ? 18 - (int)strlen(column) : 1;
    printf("  %s%*s%s\n", column, pad, "", type);
    return ferror(stdout) != 0;
}

static int cmd_schema(int argc, char **argv) {
    static const struct option longopts[] = {COMMON_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c, status;
    while ((c = next_option(argc, argv, "h", longopts, schema_usage, NULL, &status)) != -1) {
        if (c == CLI_DONE)
            return status;
        return cli_usage_error(schema_usage, NULL);
    }
    if (cli_operands(argc, 0, schema_usage) != 0)
        return CLI_USAGE;
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_NOCREATE);
    if (cat == NULL)
        return CLI_BAD;
    schema_printer sp;
    memset(&sp, 0, sizeof sp);
    gguf_error err;
    gguf_error_clear(&err);
    const char *path = gguf_catalog_path(cat);
    int pg = strncmp(path, "postgresql://", 13) == 0 || strncmp(path, "postgres://", 11) == 0;
    int rc = pg ? gguf_catalog_query(cat,
                                "SELECT c.table_name, CASE t.table_type WHEN 'VIEW' THEN 'view'"
                                " ELSE 'table' END, c.column_name, upper(c.data_type)"
                                " FROM information_schema.columns c JOIN"
                                " information_schema.tables t USING (table_schema, table_name)"
                                " WHERE c.table_schema = current_schema() AND c.table_name IN"
                                " ('files', 'kv', 'array_items', 'tensors', 'errors', 'runs',"
                                " 'file_types', 'models') ORDER BY t.table_type = 'VIEW'"
                                " AND c.table_name <> 'array_items',"
                                " position(',' || c.table_name || ',' IN"
                                " ',files,kv,array_items,tensors,errors,runs,file_types,'),"
                                " c.table_name, c.ordinal_position",
                                schema_row, &sp, &err)
                : gguf_catalog_query(cat,
                                "SELECT m.name, m.type, p.name, p.type FROM sqlite_master m,"
                                " pragma_table_info(m.name) p WHERE m.type IN ('table', 'view')"
                                " AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
                                " ORDER BY m.type = 'view', coalesce(nullif(instr("
                                "',files,kv,array_items,tensors,errors,runs,file_types,', ',' || m.name || ','),"
                                " 0), 1000), m.name, p.cid",
                                schema_row, &sp, &err);
    gguf_catalog_close(cat);
    return rc != 0 ? fail(&err) : CLI_OK;
}

/* ---- verify ---- */

static const char *problem_name(int problem) {
    switch (problem) {
    case GGUF_CATALOG_MISSING: return "missing";
    case GGUF_CATALOG_UNREADABLE: return "unreadable";
    case GGUF_CATALOG_CHANGED: return "changed";
    case GGUF_CATALOG_CORRUPT: return "corrupt";
    default: return "problem";
    }
}

static void on_finding(const gguf_catalog_finding *f, void *user) {
    (void)user;
    printf("%s: %s: %s\n", f->path, problem_name(f->problem), f->message);
}

static int cmd_verify(int argc, char **argv) {
    static const struct option longopts[] = {COMMON_LONG_OPTIONS, CLI_OPEN_URL_LONG_OPTIONS,
                                             {NULL, 0, NULL, 0}};
    int c, status;
    while ((c = next_option(argc, argv, "h", longopts, verify_usage, NULL, &status)) != -1) {
        if (c == CLI_DONE)
            return status;
        return cli_usage_error(verify_usage, NULL);
    }
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_NOCREATE);
    if (cat == NULL)
        return CLI_BAD;
    gguf_catalog_verify_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    /* the URLs it may fetch are the catalog's: $HF_TOKEN goes to none of them */
    int rc = gguf_catalog_set_url_options(cat, cli_open_options("", 0), &err);
    if (rc == 0)
        rc = gguf_catalog_verify(&st, cat, (const char *const *)argv + optind,
                                 (size_t)(argc - optind), on_finding, NULL, &err);
    gguf_catalog_close(cat);
    if (rc != 0)
        return fail(&err);
    if (argc > optind && st.files == 0) {
        cli_errorf("no catalogued file at or below the given paths");
        return CLI_BAD;
    }
    uint64_t problems = st.missing + st.unreadable + st.changed + st.corrupt;
    printf("%" PRIu64 " file%s verified (%" PRIu64 " with tensor crc32s, %" PRIu64
           " tensor%s, %" PRIu64 " byte%s): %" PRIu64 " missing, %" PRIu64 " unreadable, %" PRIu64
           " changed, %" PRIu64 " corrupt\n",
           st.files, plural(st.files), st.files_with_crc, st.tensors, plural(st.tensors),
           st.bytes, plural(st.bytes), st.missing, st.unreadable, st.changed, st.corrupt);
    return problems ? CLI_BAD : CLI_OK;
}

/* ---- prune ---- */

static void on_removed(const gguf_catalog_event *ev, void *user) {
    if (!*(int *)user)
        printf("removed %s\n", ev->path);
}

static int cmd_prune(int argc, char **argv) {
    static const struct option longopts[] = {
        {"quiet", no_argument, NULL, 'q'}, COMMON_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c, status, quiet = 0;
    while ((c = next_option(argc, argv, "qh", longopts, prune_usage, NULL, &status)) != -1) {
        if (c == CLI_DONE)
            return status;
        if (c != 'q')
            return cli_usage_error(prune_usage, NULL);
        quiet = 1;
    }
    if (cli_operands(argc, 0, prune_usage) != 0)
        return CLI_USAGE;
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_DEFAULT);
    if (cat == NULL)
        return CLI_BAD;
    gguf_catalog_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_catalog_prune(&st, cat, on_removed, &quiet, &err);
    gguf_catalog_close(cat);
    if (rc != 0)
        return fail(&err);
    printf("%" PRIu64 " file%s pruned\n", st.removed, plural(st.removed));
    return CLI_OK;
}

/* ---- export ---- */

static int cmd_export(int argc, char **argv) {
    static const struct option longopts[] = {COMMON_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c, status;
    while ((c = next_option(argc, argv, "h", longopts, export_usage, NULL, &status)) != -1) {
        if (c == CLI_DONE)
            return status;
        return cli_usage_error(export_usage, NULL);
    }
    if (cli_operands(argc, 1, export_usage) != 0)
        return CLI_USAGE;
    gguf_catalog *src = open_catalog(GGUF_CATALOG_OPEN_READONLY);
    if (src == NULL)
        return CLI_BAD;
    gguf_catalog *dst = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    uint64_t rows = 0;
    int rc = gguf_catalog_open(&dst, argv[optind], GGUF_CATALOG_OPEN_DEFAULT, &err);
    if (rc == 0)
        rc = gguf_catalog_copy(dst, src, &rows, &err);
    gguf_catalog_close(dst);
    gguf_catalog_close(src);
    if (rc != 0)
        return fail(&err);
    printf("%" PRIu64 " row%s copied into %s\n", rows, plural(rows), argv[optind]);
    return CLI_OK;
}

/* ---- path ---- */

static int cmd_path(int argc, char **argv) {
    static const struct option longopts[] = {COMMON_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c, status;
    while ((c = next_option(argc, argv, "h", longopts, path_usage, NULL, &status)) != -1) {
        if (c == CLI_DONE)
            return status;
        return cli_usage_error(path_usage, NULL);
    }
    if (cli_operands(argc, 0, path_usage) != 0)
        return CLI_USAGE;
    if (db_path != NULL) {
        puts(db_path);
        return CLI_OK;
    }
    char buf[4096];
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_catalog_default_path(buf, sizeof buf, &err) != 0)
        return fail(&err);
    puts(buf);
    return CLI_OK;
}

static const struct {
    const char *verb;
    int (*run)(int, char **);
} commands[] = {
    {"index", cmd_index},   {"query", cmd_query}, {"schema", cmd_schema},
    {"verify", cmd_verify}, {"prune", cmd_prune}, {"export", cmd_export},
    {"path", cmd_path},
};

static int run(int argc, char **argv) {
    static const struct option longopts[] = {
        {"version", no_argument, NULL, OPT_VERSION}, COMMON_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c, status;
    /* options before the command only ("+": stop at the first non-option) */
    while ((c = next_option(argc, argv, "+h", longopts, usage_text, NULL, &status)) != -1) {
        if (c == CLI_DONE)
            return status;
        if (c != OPT_VERSION)
            return cli_usage_error(usage_text, NULL);
        cli_print_version();
        return CLI_OK;
    }
    if (optind >= argc)
        return cli_usage_error("usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n", "no command given");
    if (strcmp(argv[optind], "help") == 0) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (db_path == NULL && getenv("GGUF_CATALOG_DB") != NULL && getenv("GGUF_CATALOG_DB")[0])
        db_path = getenv("GGUF_CATALOG_DB");
    if (!gguf_catalog_available()) {
        cli_errorf("catalog not built: this libgguf was configured without SQLite");
        return CLI_BAD;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[optind], commands[i].verb) == 0) {
            char **sub = argv + optind;
            int subc = argc - optind;
            optind = 0; /* restart getopt (glibc: a full reset) for the subcommand */
            return commands[i].run(subc, sub);
        }
    }
    const char *verbs[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        verbs[i] = commands[i].verb;
    const char *s = cli_suggest(argv[optind], verbs, sizeof verbs / sizeof verbs[0]);
    if (s != NULL)
        return cli_usage_error("usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n",
                               "unknown command '%s' (did you mean '%s'?)", argv[optind], s);
    return cli_usage_error("usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n",
                           "unknown command '%s'", argv[optind]);
}

int main(int argc, char **argv) {
    cli_prog = "gguf-catalog";
    cli_signals_start();
    atexit(cli_close_stdout);
    return run(argc, argv);
}
