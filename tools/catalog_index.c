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

typedef struct index_values {
    gguf_catalog_index_options opt;
    int crc, follow, all, force, quiet;
    uint64_t jobs;
    const char *urls; /* --urls FILE */
} index_values;

static const char *const endians[] = {"little", "big", NULL};

static const opt_spec options[] = {
    OPT_STRING_("urls", 0, "FILE",
                "index the URLs (or paths) in FILE too, one a line ('#' comments;\n"
                "'-': standard input)",
                index_values, urls),
    OPT_COUNT_("jobs", 0, "N", "URLs: fetch at most N at a time (default 16)", index_values, jobs,
               1, 1024),
    OPT_FLAG_("crc", 0, "also store each tensor's crc32 (reads every byte) for verify",
              index_values, crc, 1),
    OPT_FLAG_("follow-symlinks", 0,
              "follow symbolic links inside folders (not followed by default)", index_values,
              follow, 1),
    OPT_FLAG_("all-files", 0, "take every file in folders, not only *.gguf", index_values, all, 1),
    OPT_FLAG_("force", 0, "re-read unchanged files too", index_values, force, 1),
    {.kind = OPT_COUNT, .name = "array-max", .arg = "N",
     .help = "store arrays of at most N elements as JSON in kv.text (1024)",
     .at = offsetof(index_values, opt.array_max), .max = UINT64_MAX,
     .what = "a number of elements"},
    OPT_FLAG_("quiet", 'q', "no per-file messages, no progress", index_values, quiet, 1),
    CATALOG_DB_("the catalog"),
    /* the reading options, kept per file (verify reads each file with its own) */
    OPT_TEXT_("Files are read with (each file keeps them):"),
    OPT_OPEN_("lenient", NULL, "accept duplicate keys and tensor names", CLI_OPT_LENIENT),
    {.kind = OPT_OPEN, .name = "endian", .arg = "ORDER",
     .help = "read files as 'little' or 'big' endian instead of detecting it",
     .value = CLI_OPT_ENDIAN, .choices = endians},
    OPT_OPEN_("unknown-types", NULL, "accept tensor types this tool does not know",
              CLI_OPT_UNKNOWN_TYPES),
    OPT_OPEN_("no-mmap", NULL, "read files into memory instead of mapping them", CLI_OPT_NO_MMAP),
    {0}};

static const opt_spec *const groups[] = {catalog_url_options, NULL};

static int index_run(int argc, char **argv);

const opt_command catalog_index = {
    .name = "index",
    .run = index_run,
    .line = "index [--crc] [--follow-symlinks] [--all-files] [--force] PATH...\n"
            "                           add or refresh files (folders are walked for *.gguf;\n"
            "                           a PATH may be an http:// or https:// URL)",
    .synopsis = "usage: gguf-catalog [--db PATH] index [OPTIONS] PATH...\n"
                "       gguf-catalog [--db PATH] index [OPTIONS] --urls FILE [PATH...]\n",
    .summary =
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
    "ETag or date), and skipped when the server says it did not change.\n",
    .options = options,
    .groups = groups,
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

static int index_run(int argc, char **argv) {
    index_values v = {.opt = GGUF_CATALOG_INDEX_OPTIONS_INIT};
    int status = opt_parse(&catalog_index, argc, argv, &v, &v.opt.open_flags);
    if (status >= 0)
        return status;
    gguf_catalog_index_options opt = v.opt;
    opt.flags |= (v.crc ? GGUF_CATALOG_CRC : 0) | (v.follow ? GGUF_CATALOG_FOLLOW_SYMLINKS : 0) |
                 (v.all ? GGUF_CATALOG_ALL_FILES : 0) | (v.force ? GGUF_CATALOG_FORCE : 0);
    opt.jobs = (unsigned)v.jobs;
    progress p;
    memset(&p, 0, sizeof p);
    p.quiet = v.quiet;
    arg_list args;
    memset(&args, 0, sizeof args);
    if (optind >= argc && v.urls == NULL)
        return cli_usage_error(catalog_index.synopsis, "missing operand");
    int rc = CLI_OK;
    for (int i = optind; rc == CLI_OK && i < argc; i++) {
        if (arg_add(&args, argv[i], 0) != 0) {
            cli_errorf("out of memory");
            rc = CLI_BAD;
        }
    }
    if (rc == CLI_OK && v.urls != NULL && read_url_list(&args, v.urls) != 0)
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
