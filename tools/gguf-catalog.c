/* gguf-catalog: a SQLite catalog of GGUF files on disk. `index` walks folders and stores every
 * file's header (keys, values, tensors), `query` runs read-only SQL on it, `verify` re-reads
 * files against their stored crc32s, `prune` forgets files that are gone. */
#define _GNU_SOURCE
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  index [--crc] [--follow-symlinks] [--all-files] [--force] PATH...\n"
    "                           add or refresh files (folders are walked for *.gguf)\n"
    "  query SQL [--format table|csv|json]\n"
    "                           run read-only SQL (tables files, kv, tensors, errors,\n"
    "                           file_types; view models)\n"
    "  verify [PATH...]         re-read files and compare them with their stored crc32s\n"
    "  prune                    drop the rows of files that no longer exist\n"
    "  path                     print the catalog's path\n"
    "\n"
    "  --db PATH                the catalog (default $XDG_DATA_HOME/gguf/catalog.db,\n"
    "                           else ~/.local/share/gguf/catalog.db)\n"
    "\n"
    "'gguf-catalog COMMAND --help' describes each command.\n"
    "Exit status: 0 ok, 1 bad request, failed operation or problems found (verify), 2 usage.\n";

static const char index_usage[] =
    "usage: gguf-catalog [--db PATH] index [OPTIONS] PATH...\n"
    "Adds or refreshes files. Folders are walked recursively for *.gguf files; files named on\n"
    "the command line are taken whatever their name. Only headers are read. Files whose device,\n"
    "inode, size and mtime are unchanged are skipped. Files that are not GGUF or are broken go\n"
    "to the errors table with the reader's message.\n"
    "  --crc              also store each tensor's crc32 (reads every byte) for verify\n"
    "  --follow-symlinks  follow symbolic links inside folders (not followed by default)\n"
    "  --all-files        take every file in folders, not only *.gguf\n"
    "  --force            re-read unchanged files too\n"
    "  --array-max N      store arrays of at most N elements as JSON in kv.text (1024)\n"
    "  -q, --quiet        no per-file messages, no progress\n"
    "  --db PATH          the catalog\n" CLI_OPEN_HELP;

static const char query_usage[] =
    "usage: gguf-catalog [--db PATH] query SQL [--format table|csv|json]\n"
    "Runs SQL on a read-only connection: statements that would change the catalog are refused.\n"
    "  --format FORMAT    table (default), csv, or json (one array of row objects)\n"
    "  --db PATH          the catalog\n"
    "Tables: files, kv, tensors, errors, file_types; view: models. Example:\n"
    "  gguf-catalog query \"SELECT path, context_length FROM models WHERE context_length >= 32768\"\n";

static const char verify_usage[] =
    "usage: gguf-catalog [--db PATH] verify [PATH...]\n"
    "Re-reads catalogued files (all, or those at or below PATH) and reports files that are\n"
    "missing, changed, or corrupt, naming each tensor whose crc32 no longer matches (for files\n"
    "indexed with --crc; the header's crc32 is checked for every file). Exit 1 if any.\n"
    "  --db PATH          the catalog\n";

static const char prune_usage[] =
    "usage: gguf-catalog [--db PATH] prune [-q]\n"
    "Drops the rows of files (and of errors) whose path no longer exists.\n"
    "  -q, --quiet        do not list the dropped paths\n"
    "  --db PATH          the catalog\n";

static const char *db_path; /* --db, or NULL for the default */

enum { OPT_DB = 2000, OPT_CRC, OPT_FOLLOW, OPT_ALL, OPT_FORCE, OPT_ARRAY_MAX, OPT_FORMAT };

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

/* ---- index ---- */

typedef struct progress {
    int quiet;
    int tty;
    uint64_t files, indexed, unchanged, broken;
    double last;
    int shown;
} progress;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_clear(progress *p) {
    if (p->shown) {
        fputs("\r\033[K", stderr);
        p->shown = 0;
    }
}

static void on_event(const gguf_catalog_event *ev, void *user) {
    progress *p = user;
    switch (ev->kind) {
    case GGUF_CATALOG_EV_INDEXED: p->indexed++, p->files++; break;
    case GGUF_CATALOG_EV_UNCHANGED: p->unchanged++, p->files++; break;
    case GGUF_CATALOG_EV_BROKEN:
        p->broken++, p->files++;
        if (!p->quiet) {
            progress_clear(p);
            cli_report(ev->path, ev->error);
        }
        break;
    case GGUF_CATALOG_EV_WALK_ERROR:
        progress_clear(p);
        cli_errorf("%s", ev->error->message);
        break;
    default: break;
    }
    if (p->tty && !p->quiet) {
        double t = now_s();
        if (t - p->last >= 0.1) {
            p->last = t;
            p->shown = 1;
            fprintf(stderr, "\r%s: %" PRIu64 " files: %" PRIu64 " indexed, %" PRIu64
                            " unchanged, %" PRIu64 " refused",
                    cli_prog, p->files, p->indexed, p->unchanged, p->broken);
        }
    }
}

static int cmd_index(int argc, char **argv) {
    static const struct option longopts[] = {
        {"crc", no_argument, NULL, OPT_CRC},
        {"follow-symlinks", no_argument, NULL, OPT_FOLLOW},
        {"all-files", no_argument, NULL, OPT_ALL},
        {"force", no_argument, NULL, OPT_FORCE},
        {"array-max", required_argument, NULL, OPT_ARRAY_MAX},
        {"quiet", no_argument, NULL, 'q'},
        {"db", required_argument, NULL, OPT_DB},
        {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    gguf_catalog_index_options opt = GGUF_CATALOG_INDEX_OPTIONS_INIT;
    progress p;
    memset(&p, 0, sizeof p);
    int c;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_CRC: opt.flags |= GGUF_CATALOG_CRC; break;
        case OPT_FOLLOW: opt.flags |= GGUF_CATALOG_FOLLOW_SYMLINKS; break;
        case OPT_ALL: opt.flags |= GGUF_CATALOG_ALL_FILES; break;
        case OPT_FORCE: opt.flags |= GGUF_CATALOG_FORCE; break;
        case OPT_ARRAY_MAX: {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (end == optarg || *end != '\0' || optarg[0] == '-') {
                cli_errorf("--array-max takes a number of elements, not '%s'", optarg);
                return CLI_USAGE;
            }
            opt.array_max = v;
            break;
        }
        case 'q': p.quiet = 1; break;
        case OPT_DB: db_path = optarg; break;
        case 'h': fputs(index_usage, stdout); return CLI_OK;
        default:
            if (cli_open_option(c, optarg, &opt.open_flags) > 0)
                break;
            fputs(index_usage, stderr);
            return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        fputs(index_usage, stderr);
        return CLI_USAGE;
    }
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_DEFAULT);
    if (cat == NULL)
        return CLI_BAD;
    p.tty = isatty(2);
    p.last = now_s();
    opt.on_event = on_event;
    opt.user = &p;
    gguf_catalog_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_catalog_index(&st, cat, (const char *const *)argv + optind,
                                (size_t)(argc - optind), &opt, &err);
    progress_clear(&p);
    gguf_catalog_close(cat);
    if (rc != 0) {
        cli_errorf("%s", err.message[0] ? err.message : gguf_strerror(err.code));
        return CLI_BAD;
    }
    printf("%" PRIu64 " files: %" PRIu64 " indexed, %" PRIu64 " unchanged, %" PRIu64
           " refused (in the errors table)",
           st.seen, st.indexed, st.unchanged, st.broken);
    if (st.skipped)
        printf(", %" PRIu64 " links or special files skipped", st.skipped);
    putchar('\n');
    if (fflush(stdout) != 0)
        return CLI_BAD;
    return st.walk_errors ? CLI_BAD : CLI_OK;
}

/* ---- query ---- */

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

#define TABLE_CELL_MAX 60 /* characters shown per table cell */

typedef struct result {
    int format;
    size_t ncols;
    char **names;   /* table: this statement's column names */
    char **cells;   /* table: rendered cells, row-major */
    int *numeric;   /* table: per column, all non-NULL cells are numbers */
    size_t nrows, cap;
    int json_rows;  /* json: rows written so far */
    int tables;     /* table: statements printed */
    int nomem;
} result;

static char *xstrndup(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (p != NULL) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static void hex_blob(FILE *out, const char *p, size_t n) {
    fputs("X'", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%02x", (unsigned char)p[i]);
    putc('\'', out);
}

/* ---- table ---- */

/* Characters (UTF-8 code points) in s. */
static size_t text_width(const char *s) {
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* A cell for the table: control characters escaped, long text cut. */
static char *table_cell(const gguf_catalog_cell *c) {
    if (c->type == GGUF_CATALOG_NULL)
        return xstrndup("", 0);
    char *out = malloc(c->type == GGUF_CATALOG_BLOB ? 2 * c->len + 4 : 4 * c->len + 8);
    if (out == NULL)
        return NULL;
    size_t o = 0, chars = 0;
    if (c->type == GGUF_CATALOG_BLOB) {
        o += (size_t)sprintf(out, "X'");
        for (size_t i = 0; i < c->len && chars < TABLE_CELL_MAX; i++, chars += 2)
            o += (size_t)sprintf(out + o, "%02x", (unsigned char)c->text[i]);
        if (chars >= TABLE_CELL_MAX && c->len * 2 > chars)
            o += (size_t)sprintf(out + o, "...");
        out[o++] = '\'';
        out[o] = '\0';
        return out;
    }
    for (size_t i = 0; i < c->len; i++) {
        unsigned char ch = (unsigned char)c->text[i];
        if ((ch & 0xc0) != 0x80) {
            if (chars == TABLE_CELL_MAX) {
                o += (size_t)sprintf(out + o, "...");
                break;
            }
            chars++;
        }
        if (ch == '\n')
            out[o++] = '\\', out[o++] = 'n';
        else if (ch == '\t')
            out[o++] = '\\', out[o++] = 't';
        else if (ch == '\r')
            out[o++] = '\\', out[o++] = 'r';
        else if (ch < 0x20 || ch == 0x7f)
            o += (size_t)sprintf(out + o, "\\x%02x", ch);
        else
            out[o++] = (char)ch;
    }
    out[o] = '\0';
    return out;
}

/* Spaces are held back until some text follows, so that no line ends in spaces. */
static size_t pending_spaces;

static void put_text(const char *s) {
    if (*s == '\0')
        return;
    for (; pending_spaces > 0; pending_spaces--)
        putchar(' ');
    fputs(s, stdout);
}

static void put_cell(const char *s, size_t width, int right) {
    size_t w = text_width(s);
    if (right)
        pending_spaces += width - w;
    put_text(s);
    if (!right)
        pending_spaces += width - w;
}

static void end_line(void) {
    pending_spaces = 0;
    putchar('\n');
}

static void table_print(result *r) {
    if (r->names == NULL)
        return;
    size_t *width = calloc(r->ncols ? r->ncols : 1, sizeof *width);
    if (width == NULL) {
        r->nomem = 1;
        return;
    }
    for (size_t c = 0; c < r->ncols; c++) {
        width[c] = text_width(r->names[c]);
        for (size_t i = 0; i < r->nrows; i++) {
            size_t w = text_width(r->cells[i * r->ncols + c]);
            if (w > width[c])
                width[c] = w;
        }
    }
    if (r->tables++ > 0)
        end_line();
    for (size_t c = 0; c < r->ncols; c++) {
        if (c)
            pending_spaces += 2;
        put_cell(r->names[c], width[c], r->numeric[c]);
    }
    end_line();
    for (size_t c = 0; c < r->ncols; c++) {
        if (c)
            pending_spaces += 2;
        for (size_t k = 0; k < width[c]; k++)
            put_text("-");
    }
    end_line();
    for (size_t i = 0; i < r->nrows; i++) {
        for (size_t c = 0; c < r->ncols; c++) {
            if (c)
                pending_spaces += 2;
            put_cell(r->cells[i * r->ncols + c], width[c], r->numeric[c]);
        }
        end_line();
    }
    free(width);
}

static void table_reset(result *r) {
    for (size_t i = 0; i < r->nrows * r->ncols; i++)
        free(r->cells[i]);
    for (size_t c = 0; r->names != NULL && c < r->ncols; c++)
        free(r->names[c]);
    free(r->cells);
    free(r->names);
    free(r->numeric);
    r->cells = NULL;
    r->names = NULL;
    r->numeric = NULL;
    r->nrows = r->cap = 0;
}

static int table_row(result *r, size_t ncols, const char *const *names,
                     const gguf_catalog_cell *cells) {
    if (cells == NULL) {
        table_print(r);
        table_reset(r);
        r->ncols = ncols;
        r->names = calloc(ncols, sizeof *r->names);
        r->numeric = calloc(ncols, sizeof *r->numeric);
        if (r->names == NULL || r->numeric == NULL) {
            r->nomem = 1;
            return 1;
        }
        for (size_t c = 0; c < ncols; c++) {
            r->names[c] = xstrndup(names[c], strlen(names[c]));
            r->numeric[c] = 1;
            if (r->names[c] == NULL) {
                r->nomem = 1;
                return 1;
            }
        }
        return 0;
    }
    if (r->nrows == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        char **p = realloc(r->cells, cap * ncols * sizeof *p);
        if (p == NULL) {
            r->nomem = 1;
            return 1;
        }
        r->cells = p;
        r->cap = cap;
    }
    for (size_t c = 0; c < ncols; c++) {
        char *s = table_cell(&cells[c]);
        if (s == NULL) {
            for (size_t k = 0; k < c; k++)
                free(r->cells[r->nrows * ncols + k]);
            r->nomem = 1;
            return 1;
        }
        r->cells[r->nrows * ncols + c] = s;
        if (cells[c].type != GGUF_CATALOG_NULL && cells[c].type != GGUF_CATALOG_INTEGER &&
            cells[c].type != GGUF_CATALOG_REAL)
            r->numeric[c] = 0;
    }
    r->nrows++;
    return 0;
}

/* ---- csv ---- */

static void csv_field(const char *s, size_t n) {
    int quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        fwrite(s, 1, n, stdout);
        return;
    }
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            putchar('"');
        putchar(s[i]);
    }
    putchar('"');
}

static int csv_row(size_t ncols, const char *const *names, const gguf_catalog_cell *cells) {
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            putchar(',');
        if (cells == NULL)
            csv_field(names[c], strlen(names[c]));
        else if (cells[c].type == GGUF_CATALOG_BLOB)
            hex_blob(stdout, cells[c].text, cells[c].len);
        else if (cells[c].type != GGUF_CATALOG_NULL)
            csv_field(cells[c].text, cells[c].len);
    }
    fputs("\r\n", stdout);
    return 0;
}

/* ---- json ---- */

static int json_row(result *r, size_t ncols, const char *const *names,
                    const gguf_catalog_cell *cells) {
    if (cells == NULL)
        return 0;
    fputs(r->json_rows++ ? ",\n{" : "\n{", stdout);
    for (size_t c = 0; c < ncols; c++) {
        if (c)
            putchar(',');
        cli_json_str(stdout, names[c], strlen(names[c]));
        putchar(':');
        const gguf_catalog_cell *cell = &cells[c];
        switch (cell->type) {
        case GGUF_CATALOG_INTEGER: printf("%" PRId64, cell->i); break;
        case GGUF_CATALOG_REAL:
            if (isnan(cell->r))
                fputs("\"nan\"", stdout);
            else if (isinf(cell->r))
                fputs(cell->r > 0 ? "\"inf\"" : "\"-inf\"", stdout);
            else
                printf("%.17g", cell->r);
            break;
        case GGUF_CATALOG_TEXT: cli_json_str(stdout, cell->text, cell->len); break;
        case GGUF_CATALOG_BLOB:
            putchar('"');
            for (size_t i = 0; i < cell->len; i++)
                printf("%02x", (unsigned char)cell->text[i]);
            putchar('"');
            break;
        default: fputs("null", stdout); break;
        }
    }
    putchar('}');
    return 0;
}

static int on_row(size_t ncols, const char *const *names, const gguf_catalog_cell *cells,
                  void *user) {
    result *r = user;
    switch (r->format) {
    case FMT_CSV: return csv_row(ncols, names, cells);
    case FMT_JSON: return json_row(r, ncols, names, cells);
    default: return table_row(r, ncols, names, cells);
    }
}

static int cmd_query(int argc, char **argv) {
    static const struct option longopts[] = {{"format", required_argument, NULL, OPT_FORMAT},
                                             {"db", required_argument, NULL, OPT_DB},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    result r;
    memset(&r, 0, sizeof r);
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT:
            if (strcmp(optarg, "table") == 0)
                r.format = FMT_TABLE;
            else if (strcmp(optarg, "csv") == 0)
                r.format = FMT_CSV;
            else if (strcmp(optarg, "json") == 0)
                r.format = FMT_JSON;
            else {
                cli_errorf("--format takes table, csv or json, not '%s'", optarg);
                return CLI_USAGE;
            }
            break;
        case OPT_DB: db_path = optarg; break;
        case 'h': fputs(query_usage, stdout); return CLI_OK;
        default: fputs(query_usage, stderr); return CLI_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs(query_usage, stderr);
        return CLI_USAGE;
    }
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_NOCREATE);
    if (cat == NULL)
        return CLI_BAD;
    gguf_error err;
    gguf_error_clear(&err);
    if (r.format == FMT_JSON)
        putchar('[');
    int rc = gguf_catalog_query(cat, argv[optind], on_row, &r, &err);
    if (r.format == FMT_JSON)
        fputs(r.json_rows ? "\n]\n" : "]\n", stdout);
    if (r.format == FMT_TABLE) {
        table_print(&r);
        table_reset(&r);
    }
    gguf_catalog_close(cat);
    if (r.nomem) {
        cli_errorf("out of memory");
        return CLI_BAD;
    }
    if (rc != 0) {
        cli_errorf("%s", err.message[0] ? err.message : gguf_strerror(err.code));
        return CLI_BAD;
    }
    return fflush(stdout) == 0 ? CLI_OK : CLI_BAD;
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
    static const struct option longopts[] = {{"db", required_argument, NULL, OPT_DB},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: db_path = optarg; break;
        case 'h': fputs(verify_usage, stdout); return CLI_OK;
        default: fputs(verify_usage, stderr); return CLI_USAGE;
        }
    }
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_NOCREATE);
    if (cat == NULL)
        return CLI_BAD;
    gguf_catalog_verify_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_catalog_verify(&st, cat, (const char *const *)argv + optind,
                                 (size_t)(argc - optind), on_finding, NULL, &err);
    gguf_catalog_close(cat);
    if (rc != 0) {
        cli_errorf("%s", err.message[0] ? err.message : gguf_strerror(err.code));
        return CLI_BAD;
    }
    if (argc > optind && st.files == 0) {
        cli_errorf("no catalogued file at or below the given paths");
        return CLI_BAD;
    }
    uint64_t problems = st.missing + st.unreadable + st.changed + st.corrupt;
    printf("%" PRIu64 " files verified (%" PRIu64 " with tensor crc32s, %" PRIu64
           " tensors, %" PRIu64 " bytes): %" PRIu64 " missing, %" PRIu64 " unreadable, %" PRIu64
           " changed, %" PRIu64 " corrupt\n",
           st.files, st.files_with_crc, st.tensors, st.bytes, st.missing, st.unreadable,
           st.changed, st.corrupt);
    if (fflush(stdout) != 0)
        return CLI_BAD;
    return problems ? CLI_BAD : CLI_OK;
}

/* ---- prune ---- */

static void on_removed(const gguf_catalog_event *ev, void *user) {
    if (!*(int *)user)
        printf("removed %s\n", ev->path);
}

static int cmd_prune(int argc, char **argv) {
    static const struct option longopts[] = {{"quiet", no_argument, NULL, 'q'},
                                             {"db", required_argument, NULL, OPT_DB},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c, quiet = 0;
    while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = 1; break;
        case OPT_DB: db_path = optarg; break;
        case 'h': fputs(prune_usage, stdout); return CLI_OK;
        default: fputs(prune_usage, stderr); return CLI_USAGE;
        }
    }
    if (optind != argc) {
        fputs(prune_usage, stderr);
        return CLI_USAGE;
    }
    gguf_catalog *cat = open_catalog(GGUF_CATALOG_OPEN_DEFAULT);
    if (cat == NULL)
        return CLI_BAD;
    gguf_catalog_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_catalog_prune(&st, cat, on_removed, &quiet, &err);
    gguf_catalog_close(cat);
    if (rc != 0) {
        cli_errorf("%s", err.message[0] ? err.message : gguf_strerror(err.code));
        return CLI_BAD;
    }
    printf("%" PRIu64 " files pruned\n", st.removed);
    return fflush(stdout) == 0 ? CLI_OK : CLI_BAD;
}

/* ---- path ---- */

static int cmd_path(int argc, char **argv) {
    (void)argv;
    if (argc > 1 && strcmp(argv[1], "--help") == 0) {
        puts("usage: gguf-catalog [--db PATH] path\nPrints the catalog's path.");
        return CLI_OK;
    }
    if (argc != 1) {
        fputs("usage: gguf-catalog [--db PATH] path\n", stderr);
        return CLI_USAGE;
    }
    if (db_path != NULL) {
        puts(db_path);
        return CLI_OK;
    }
    char buf[4096];
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_catalog_default_path(buf, sizeof buf, &err) != 0) {
        cli_errorf("%s", err.message);
        return CLI_BAD;
    }
    puts(buf);
    return CLI_OK;
}

static const struct {
    const char *verb;
    int (*run)(int, char **);
} commands[] = {
    {"index", cmd_index}, {"query", cmd_query}, {"verify", cmd_verify},
    {"prune", cmd_prune}, {"path", cmd_path},
};

int main(int argc, char **argv) {
    static const struct option longopts[] = {{"db", required_argument, NULL, OPT_DB},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    cli_prog = "gguf-catalog";
    int c;
    /* options before the command only ("+": stop at the first non-option) */
    while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB: db_path = optarg; break;
        case 'h': fputs(usage_text, stdout); return CLI_OK;
        default: fputs(usage_text, stderr); return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        fputs(usage_text, stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[optind], "help") == 0) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
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
    cli_errorf("unknown command '%s' (try 'gguf-catalog --help')", argv[optind]);
    return CLI_USAGE;
}
