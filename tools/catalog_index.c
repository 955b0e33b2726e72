/* gguf-catalog index: add or refresh files and URLs in the catalog, with a progress line on a
 * terminal and a summary of what was indexed, unchanged, refused or skipped. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog_commands.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The reading options of index (kept per file; verify reads each file with its own). */
#define READING_HELP                                                                            \
    "Files are read with (each file keeps them):\n"                                              \
    "  --lenient          accept duplicate keys and tensor names\n"                               \
    "  --endian ORDER     read files as 'little' or 'big' endian instead of detecting it\n"       \
    "  --unknown-types    accept tensor types this tool does not know\n"                          \
    "  --no-mmap          read files into memory instead of mapping them\n"

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
    "  --db PATH          the catalog\n" READING_HELP CATALOG_URL_HELP;

enum {
    OPT_CRC = CATALOG_OPT_DB + 1,
    OPT_FOLLOW,
    OPT_ALL,
    OPT_FORCE,
    OPT_ARRAY_MAX,
    OPT_URLS,
    OPT_JOBS
};

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
                    cli_prog, p->files, CLI_S(p->files), p->indexed, p->unchanged, p->broken);
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

int catalog_cmd_index(int argc, char **argv) {
    static const struct option longopts[] = {
        {"crc", no_argument, NULL, OPT_CRC},
        {"follow-symlinks", no_argument, NULL, OPT_FOLLOW},
        {"all-files", no_argument, NULL, OPT_ALL},
        {"force", no_argument, NULL, OPT_FORCE},
        {"array-max", required_argument, NULL, OPT_ARRAY_MAX},
        {"urls", required_argument, NULL, OPT_URLS},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"quiet", no_argument, NULL, 'q'},
        CATALOG_COMMON_LONG_OPTIONS,
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
    while ((c = catalog_next_option(argc, argv, "qh", longopts, index_usage, &opt.open_flags,
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
    gguf_catalog *cat = rc == CLI_OK ? catalog_open(GGUF_CATALOG_OPEN_DEFAULT) : NULL;
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
        return catalog_fail(&err);
    printf("%" PRIu64 " file%s: %" PRIu64 " indexed", st.seen, CLI_S(st.seen), st.indexed);
    if (p.partial)
        printf(" (%" PRIu64 " partial: cut short)", p.partial);
    printf(", %" PRIu64 " unchanged, %" PRIu64 " refused (in the errors table)", st.unchanged,
           st.broken);
    if (st.broken_sets)
        printf(", %" PRIu64 " split set%s broken (in the errors table)", st.broken_sets,
               CLI_S(st.broken_sets));
    if (st.skipped > p.offline)
        printf(", %" PRIu64 " %s skipped%s", st.skipped - p.offline,
               st.skipped - p.offline == 1 ? "link or special file" : "links or special files",
               opt.flags & GGUF_CATALOG_FOLLOW_SYMLINKS ? ""
                                                        : " (--follow-symlinks follows links)");
    if (p.offline)
        printf(", %" PRIu64 " URL%s not checked (--offline)", p.offline, CLI_S(p.offline));
    putchar('\n');
    return st.walk_errors ? CLI_BAD : CLI_OK;
}
