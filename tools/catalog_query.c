/* gguf-catalog query: read-only SQL on the catalog, its time and memory limits (with a watchdog
 * for a query stuck inside one SQLite step), printed by query_output.c. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog_commands.h"
#include "query_output.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_TIMEOUT_S 60
#define DEFAULT_MAX_MEMORY "1G"
#define SQL_MAX ((size_t)64 << 20) /* SQL read from standard input */

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

enum { OPT_FORMAT = CATALOG_OPT_DB + 1, OPT_TIMEOUT, OPT_MAX_MEMORY, OPT_MAX_WIDTH };

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

int catalog_cmd_query(int argc, char **argv) {
    static const struct option longopts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
        {"max-width", required_argument, NULL, OPT_MAX_WIDTH},
        CATALOG_COMMON_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    int format = QUERY_TABLE, c, status;
    long max_width = 0;
    int64_t timeout_ms = DEFAULT_TIMEOUT_S * 1000, max_memory = parse_size(DEFAULT_MAX_MEMORY);
    while ((c = catalog_next_option(argc, argv, "h", longopts, query_usage, NULL, &status)) != -1) {
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
    gguf_catalog *cat = catalog_open(GGUF_CATALOG_OPEN_NOCREATE);
    query_output_options qo = {.max_width = (size_t)max_width,
                                .max_memory = (uint64_t)max_memory,
                                .terminal = isatty(STDOUT_FILENO)};
    query_output *out = cat != NULL ? query_output_new(format, stdout, &qo) : NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = cat == NULL ? CLI_BAD : out == NULL ? (cli_errorf("out of memory"), CLI_BAD) : CLI_OK;
    if (rc == CLI_OK &&
        gguf_catalog_set_query_limits(cat, (uint64_t)timeout_ms, (uint64_t)max_memory, &err) != 0)
        rc = catalog_fail(&err);
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
            rc = catalog_fail(&err);
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
