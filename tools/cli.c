/* Shared tool glue: errors, open options, text rendering of metadata values. */
#define _GNU_SOURCE /* clock_gettime, __fpending, strncasecmp */
#include "config.h"
#include "cli.h"
#include "opt.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

const char *cli_prog = "gguf-edit";

const char *cli_error_path(const char *path, const gguf_error *err) {
    /* when the library kept only the end of a long name, the caller's whole name is that
     * file's */
    size_t n = strlen(err->path), have = path != NULL ? strlen(path) : 0;
    int cut = n > 3 && memcmp(err->path, "...", 3) == 0 && have >= n - 3 &&
              strcmp(path + have - (n - 3), err->path + 3) == 0;
    return err->path[0] != '\0' && !cut ? err->path : path;
}

void cli_report(const char *path, const gguf_error *err) {
    const char *msg = err->message[0] ? err->message : gguf_strerror(err->code);
    path = cli_error_path(path, err);
    /* the offset, unless the message names it already ("... at byte 92") */
    char at[32];
    snprintf(at, sizeof at, "byte %" PRIu64, err->offset);
    const char *said = strstr(msg, at);
    if (said != NULL && (said[strlen(at)] >= '0' && said[strlen(at)] <= '9'))
        said = NULL; /* "byte 920" names another byte */
    if (err->offset != GGUF_ERROR_NO_OFFSET && said == NULL)
        fprintf(stderr, "%s: %s: offset 0x%" PRIx64 ": %s\n", cli_prog, path, err->offset, msg);
    else
        fprintf(stderr, "%s: %s: %s\n", cli_prog, path, msg);
}

void cli_errorf(const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "%s: ", cli_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- URL options ---- */

#define CLI_MAX_HEADERS 32
static const char *http_headers[CLI_MAX_HEADERS]; /* from --header */
static size_t n_http_headers;
static gguf_open_options http_opts = GGUF_OPEN_OPTIONS_INIT; /* all but flags and headers */

static int url_option(int opt, const char *arg) {
    uint64_t v;
    switch (opt) {
    case CLI_OPT_HEADER:
        if (strchr(arg, ':') == NULL || arg[0] == ':' || strpbrk(arg, "\r\n") != NULL) {
            cli_errorf("--header takes one line 'NAME: VALUE', not '%s'", arg);
            return -1;
        }
        if (n_http_headers == CLI_MAX_HEADERS) {
            cli_errorf("at most %d --header options", CLI_MAX_HEADERS);
            return -1;
        }
        http_headers[n_http_headers++] = arg;
        return 1;
    case CLI_OPT_OFFLINE: http_opts.offline = 1; return 1;
    case CLI_OPT_TIMEOUT:
        if (opt_parse_count(&v, arg, "--timeout", 1, 86400, "seconds") != 0)
            return -1;
        http_opts.timeout_s = (unsigned)v;
        return 1;
    case CLI_OPT_DEADLINE:
        if (opt_parse_count(&v, arg, "--deadline", 1, 86400, "seconds") != 0)
            return -1;
        http_opts.deadline_s = (unsigned)v;
        return 1;
    case CLI_OPT_RETRIES:
        if (opt_parse_count(&v, arg, "--retries", 0, 100, NULL) != 0)
            return -1;
        http_opts.retries = v == 0 ? -1 : (int)v;
        return 1;
    case CLI_OPT_WHOLE_LIMIT:
        return opt_parse_size(&http_opts.whole_limit, arg, "--whole-limit", 1, UINT64_MAX, 0) == 0
                   ? 1 : -1;
    default: return 0;
    }
}

/* huggingface.co and hf.co, and their subdomains, and an hf:// name (the Hub's, or
 * $GGUF_HF_ENDPOINT's): where $HF_TOKEN may go, and nowhere else */
static int hub_host(const char *url) {
    if (strncasecmp(url, "hf://", 5) == 0)
        return 1;
    const char *h = strstr(url, "://");
    if (h == NULL)
        return 0;
    h += 3;
    size_t n = strcspn(h, "/?#");
    const char *at = memchr(h, '@', n);
    if (at != NULL) {
        n -= (size_t)(at + 1 - h);
        h = at + 1;
    }
    const char *colon = memchr(h, ':', n);
    if (colon != NULL)
        n = (size_t)(colon - h);
    static const char *const hubs[] = {"huggingface.co", "hf.co"};
    for (size_t i = 0; i < sizeof hubs / sizeof hubs[0]; i++) {
        size_t k = strlen(hubs[i]);
        if (n == k && strncasecmp(h, hubs[i], k) == 0)
            return 1;
        if (n > k && h[n - k - 1] == '.' && strncasecmp(h + n - k, hubs[i], k) == 0)
            return 1;
    }
    return 0;
}

/* the progress bar of long reads of a URL, on a terminal: cli_progress's, labelled with the URL */
static void progress_draw(void *user, uint64_t done, uint64_t total);
static cli_progress fetch_bar;

static void progress_clear(void) {
    cli_progress_end(&fetch_bar);
    fetch_bar.label = NULL;
}

static void show_fetch(void *user, uint64_t fetched, uint64_t size) {
    if (fetched < ((uint64_t)4 << 20))
        return; /* short reads need no progress bar */
    if (fetch_bar.label != user) {
        static int registered;
        if (!registered)
            atexit(progress_clear);
        registered = 1;
        fetch_bar = (cli_progress){.label = user, .last_permille = -1, .start = cli_now()};
    }
    progress_draw(&fetch_bar, fetched, size);
}

const gguf_open_options *cli_open_options(const char *path, unsigned flags) {
    static gguf_open_options opt;
    static const char *headers[CLI_MAX_HEADERS + 3];
    static char *bearer;
    size_t n = 0;
    int auth = 0;
    for (size_t i = 0; i < n_http_headers; i++) {
        headers[n++] = http_headers[i];
        auth |= strncasecmp(http_headers[i], "Authorization:", 14) == 0;
    }
    const char *env = getenv("GGUF_HTTP_HEADER");
    if (env != NULL && env[0] != '\0' && strchr(env, ':') != NULL) {
        headers[n++] = env;
        auth |= strncasecmp(env, "Authorization:", 14) == 0;
    }
    const char *token = getenv("HF_TOKEN");
    if (!auth && token != NULL && token[0] != '\0' && hub_host(path)) {
        free(bearer);
        size_t len = strlen(token) + 32;
        bearer = malloc(len);
        if (bearer != NULL) {
            snprintf(bearer, len, "Authorization: Bearer %s", token);
            headers[n++] = bearer;
        }
    }
    headers[n] = NULL;
    opt = http_opts;
    opt.flags = flags;
    opt.headers = n > 0 ? headers : NULL;
    if (isatty(STDERR_FILENO)) {
        opt.progress = show_fetch;
        opt.progress_user = (void *)path;
    }
    return &opt;
}

int cli_refuse_url_output(const char *path) {
    if (!gguf_path_is_url(path))
        return CLI_OK;
    cli_errorf("%s: a URL cannot be written: give a local path", path);
    return CLI_BAD;
}

int cli_open_option(int opt, const char *arg, unsigned *flags) {
    int url = url_option(opt, arg);
    if (url != 0)
        return url;
    switch (opt) {
    case CLI_OPT_LENIENT: *flags |= GGUF_OPEN_LENIENT; return 1;
    case CLI_OPT_UNKNOWN_TYPES: *flags |= GGUF_OPEN_UNKNOWN_TYPES; return 1;
    case CLI_OPT_NO_MMAP: *flags |= GGUF_OPEN_NO_MMAP; return 1;
    case CLI_OPT_ONE_FILE: *flags &= ~(unsigned)GGUF_OPEN_SPLIT_SET; return 1;
    case CLI_OPT_ENDIAN:
        *flags &= ~(unsigned)(GGUF_OPEN_FORCE_LITTLE | GGUF_OPEN_FORCE_BIG);
        if (strcmp(arg, "little") == 0)
            *flags |= GGUF_OPEN_FORCE_LITTLE;
        else if (strcmp(arg, "big") == 0)
            *flags |= GGUF_OPEN_FORCE_BIG;
        else {
            cli_errorf("--endian takes 'little' or 'big', not '%s'", arg);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

/* ---- options and usage errors ---- */

const char *cli_verb;

/* The usage line(s) of a --help text for the verb: its leading lines that start with "usage:"
 * or continue them ("       gguf-edit rm ..."), those naming the verb when some do. */
static void print_usage_lines(FILE *out, const char *usage) {
    const char *p = usage;
    const char *lines[16];
    size_t lens[16], n = 0, named = 0;
    while (*p != '\0' && n < 16) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, "usage:", 6) != 0 && !(n > 0 && strncmp(p, "       ", 7) == 0))
            break;
        lines[n] = p;
        lens[n++] = len;
        p += len + (nl != NULL);
    }
    /* the lines that name the verb: " VERB" followed by a blank or the end of the line */
    size_t vlen = cli_verb ? strlen(cli_verb) : 0;
    int pick[16] = {0};
    for (size_t i = 0; vlen > 0 && i < n; i++) {
        for (size_t k = 1; !pick[i] && k + vlen <= lens[i]; k++) {
            const char *w = lines[i] + k;
            pick[i] = w[-1] == ' ' && strncmp(w, cli_verb, vlen) == 0 &&
                      (k + vlen == lens[i] || w[vlen] == ' ');
        }
        named += (size_t)pick[i];
    }
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (named > 0 && !pick[i])
            continue;
        const char *line = lines[i];
        size_t len = lens[i];
        if (!first && strncmp(line, "usage:", 6) == 0) { /* "usage:" once, the others aligned */
            line += 6;
            len -= 6;
            fputs("      ", out);
        } else if (first && strncmp(line, "usage:", 6) != 0) {
            fputs("usage:", out);
            line += 6;
            len -= 6;
        }
        fwrite(line, 1, len, out);
        putc('\n', out);
        first = 0;
    }
}

void cli_verb_verror(const char *fmt, va_list ap) {
    fprintf(stderr, "%s: ", cli_prog);
    if (cli_verb != NULL)
        fprintf(stderr, "%s: ", cli_verb);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *usage, const char *fmt, ...) {
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        cli_verb_verror(fmt, ap);
        va_end(ap);
    }
    if (usage != NULL)
        print_usage_lines(stderr, usage);
    if (cli_verb != NULL)
        fprintf(stderr, "Try '%s %s --help' for more information.\n", cli_prog, cli_verb);
    else
        fprintf(stderr, "Try '%s --help' for more information.\n", cli_prog);
    return CLI_USAGE;
}

/* Edit distance with adjacent transpositions counting one (optimal string alignment). */
static size_t distance(const char *a, const char *b) {
    size_t m = strlen(a), n = strlen(b);
    if (m > 64 || n > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= m; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= n; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 1; j <= n; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[m][n];
}

const char *cli_suggest(const char *word, const char *const *names, size_t n) {
    size_t len = strlen(word);
    /* one edit in short words, two from five letters on */
    size_t best = len >= 5 ? 3 : 2;
    const char *pick = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, names[i]);
        if (d < best) {
            best = d;
            pick = names[i];
        }
    }
    if (pick != NULL || len < 2)
        return pick;
    for (size_t i = 0; i < n; i++) { /* "ver": the one name it begins */
        if (strncmp(names[i], word, len) == 0) {
            if (pick != NULL)
                return NULL;
            pick = names[i];
        }
    }
    return pick;
}

const char *cli_suggest_name(const gguf_file *f, int tensors, const char *word) {
    static char pick[256];
    size_t n = tensors ? gguf_tensor_count(f) : gguf_kv_count(f);
    char **names = calloc(n ? n : 1, sizeof *names);
    size_t got = 0;
    for (size_t i = 0; names != NULL && i < n; i++) {
        gguf_tensor_info t;
        size_t len = 0;
        const char *name;
        if (tensors) {
            gguf_tensor_get(&t, f, i);
            name = t.name;
            len = t.name_len;
        } else {
            name = gguf_kv_key(f, i, &len);
        }
        if (len < sizeof pick && memchr(name, '\0', len) == NULL &&
            (names[got] = strndup(name, len)) != NULL)
            got++;
    }
    const char *s = names != NULL ? cli_suggest(word, (const char *const *)names, got) : NULL;
    if (s != NULL)
        snprintf(pick, sizeof pick, "%s", s);
    for (size_t i = 0; i < got; i++)
        free(names[i]);
    free(names);
    return s != NULL ? pick : NULL;
}

static void no_name(const gguf_file *f, int tensors, const char *path, const char *name) {
    const char *s = cli_suggest_name(f, tensors, name);
    cli_errorf("%s: no %s '%s'%s%s%s", path, tensors ? "tensor" : "key", name,
               s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
}

void cli_no_key(const gguf_file *f, const char *path, const char *key) {
    no_name(f, 0, path, key);
}

void cli_no_tensor(const gguf_file *f, const char *path, const char *name) {
    no_name(f, 1, path, name);
}

/* The message for an option getopt_long refused (opterr off): unknown (with a suggestion),
 * ambiguous, missing its argument, or given one it does not take. */
static void bad_option(int argc, char **argv, int c, const struct option *longopts,
                       const char *usage) {
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    int is_long = strncmp(arg, "--", 2) == 0 && (c == ':' || optopt == 0 || strchr(arg, '='));
    if (!is_long) {
        if (c == ':')
            cli_usage_error(usage, "option '-%c' needs an argument", optopt);
        else if ((optopt >= '0' && optopt <= '9') || optopt == '.')
            /* a negative number meant as a value: getopt reads it as options */
            cli_usage_error(usage, "unknown option '-%c' (a negative number? put '--' before "
                            "it: every argument after '--' is an operand)", optopt);
        else
            cli_usage_error(usage, "unknown option '-%c'", optopt);
        return;
    }
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    if (c == ':') {
        cli_usage_error(usage, "option '--%.*s' needs an argument", (int)len, name);
        return;
    }
    const char *names[128];
    size_t n = 0, prefixed = 0;
    char list[512] = "";
    for (const struct option *o = longopts; o->name != NULL && n < 128; o++) {
        names[n++] = o->name;
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
            cli_usage_error(usage, "option '--%s' takes no argument", o->name);
            return;
        }
        if (strncmp(o->name, name, len) == 0) {
            prefixed++;
            size_t at = strlen(list);
            snprintf(list + at, sizeof list - at, "%s--%s", at ? ", " : "", o->name);
        }
    }
    if (prefixed > 1) {
        cli_usage_error(usage, "option '--%.*s' is ambiguous: %s", (int)len, name, list);
        return;
    }
    char word[65];
    snprintf(word, sizeof word, "%.*s", (int)(len < 64 ? len : 64), name);
    const char *s = cli_suggest(word, names, n);
    if (s != NULL)
        cli_usage_error(usage, "unknown option '--%s' (did you mean '--%s'?)", word, s);
    else
        cli_usage_error(usage, "unknown option '--%s'", word);
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *help, unsigned *flags, int *status) {
    char opts[64];
    /* ':' first (after a '+' that stops at the first operand): a missing argument is told
     * apart from an unknown option */
    int plus = shortopts[0] == '+';
    shortopts += plus;
    snprintf(opts, sizeof opts, "%s:%s", plus ? "+" : "", shortopts + (shortopts[0] == ':'));
    /* the program's own options (argv[0] is its path) have no verb */
    const char *base = strrchr(argv[0], '/');
    cli_verb = strcmp(base ? base + 1 : argv[0], cli_prog) == 0 ? NULL : argv[0];
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, opts, longopts, NULL);
        if (c == -1)
            return -1;
        if (c == 'h') {
            fputs(help, stdout);
            *status = CLI_OK;
            return CLI_DONE;
        }
        int open_opt = cli_open_option(c, optarg, flags);
        if (open_opt > 0)
            continue;
        if (open_opt < 0 || c == '?' || c == ':') {
            if (open_opt < 0)
                cli_usage_error(help, NULL);
            else
                bad_option(argc, argv, c, longopts, help);
            *status = CLI_USAGE;
            return CLI_DONE;
        }
        return c;
    }
}

int cli_operands(int argc, int n, const char *usage) {
    if (argc - optind == n)
        return 0;
    return cli_usage_error(usage, argc - optind < n ? "missing operand" : "too many operands");
}

int cli_operands_min(int argc, int n, const char *usage) {
    if (argc - optind >= n)
        return 0;
    return cli_usage_error(usage, "missing operand");
}

void cli_print_version(void) {
    printf("%s (libgguf) %s\n", cli_prog, PACKAGE_VERSION);
}

/* ---- standard output, checked at exit ---- */

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

void cli_note_journal(const char *path) {
    int state;
    gguf_error why;
    gguf_error_clear(&why);
    if (gguf_file_journal(&state, path, &why) != 0 || state == GGUF_JOURNAL_NONE)
        return;
    if (state == GGUF_JOURNAL_PENDING)
        cli_errorf("%s: an interrupted edit is pending: run `gguf-edit recover %s` "
                   "(shown as it was before that edit)", path, path);
    else
        cli_errorf("%s: a journal lies beside it that recover would refuse: %s", path,
                   why.message);
}

int cli_recover(const char *path) {
    if (gguf_path_is_url(path) || strcmp(path, "-") == 0) {
        cli_errorf("%s: %s cannot be edited in place: write the edited file to a local path "
                   "with -o OUT", path, strcmp(path, "-") == 0 ? "standard input" : "a URL");
        return CLI_BAD;
    }
    gguf_error err;
    gguf_error_clear(&err);
    int recovered = 0;
    if (gguf_file_recover(path, &recovered, &err) != 0) {
        cli_report(path, &err);
        return CLI_BAD;
    }
    if (recovered)
        cli_errorf("%s: finished an interrupted edit first (from its journal)", path);
    return CLI_OK;
}

#define STDIN_HEADER_KEEP ((uint64_t)256 << 20)

int cli_open_err(gguf_file **out, const char *path, unsigned flags, int header_only,
                 gguf_error *err) {
    gguf_open_options opt = *cli_open_options(path, flags);
    int rc;
    *out = NULL;
    if (strcmp(path, "-") == 0) {
        opt.keep_bytes = header_only ? STDIN_HEADER_KEEP : 0;
        rc = gguf_file_open_fd(out, STDIN_FILENO, "standard input", &opt, err);
    } else {
        rc = gguf_file_open_ex(out, path, &opt, err);
    }
    progress_clear();
    if (rc == 0 && strcmp(path, "-") != 0 && !gguf_path_is_url(path))
        cli_note_journal(path);
    return rc;
}

static gguf_file *open_any(const char *path, unsigned flags, uint64_t stdin_keep) {
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = cli_open_err(&f, path, flags, stdin_keep != 0, &err);
    if (rc != 0) {
        cli_report(path, &err);
        if (rc == GGUF_EIO && strstr(err.message, "HTTP 401") != NULL &&
            strstr(err.message, "no Authorization") != NULL)
            cli_errorf("a gated model? give a token: --header 'Authorization: Bearer TOKEN'%s",
                       hub_host(path) ? " or HF_TOKEN" : "");
        return NULL;
    }
    return f;
}

/* The warning for a file cut short inside its tensor data (GGUF_OPEN_PARTIAL). */
static gguf_file *warn_if_cut(const char *path, gguf_file *f) {
    if (f == NULL || gguf_file_data_end(f) <= gguf_file_size(f))
        return f;
    size_t cut = 0, n = gguf_tensor_count(f);
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        cut += t.nbytes != GGUF_NBYTES_UNKNOWN && gguf_tensor_bytes_present(f, i) < t.nbytes;
    }
    fprintf(stderr, "%s: %s: warning: the file is cut short (a truncated download?): it ends at "
            "byte %" PRIu64 " of %" PRIu64 "; %zu of %zu tensors lack bytes\n", cli_prog, path,
            gguf_file_size(f), gguf_file_data_end(f), cut, n);
    return f;
}

gguf_file *cli_open_partial(const char *path, unsigned flags, int header_only) {
    return warn_if_cut(path, open_any(path, flags | GGUF_OPEN_PARTIAL,
                                      header_only ? STDIN_HEADER_KEEP : 0));
}

gguf_file *cli_open(const char *path, unsigned flags) {
    return open_any(path, flags, 0);
}

gguf_file *cli_open_header(const char *path, unsigned flags) {
    return open_any(path, flags, STDIN_HEADER_KEEP);
}

/* ---- text ---- */

void cli_text_escape(FILE *out, const char *str, size_t n, int quoted) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    if (quoted)
        putc('"', out);
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f) {
            if (c == '\\' || (quoted && c == '"'))
                putc('\\', out);
            putc(c, out);
            i++;
            continue;
        }
        size_t len = c < 0x80 ? 0 : gguf_text_utf8_len(s + i, n - i);
        /* C1 and bidirectional controls are escaped too, byte by byte */
        if (len > 1 && cli_text_control(s + i, len) < 0) {
            fwrite(s + i, 1, len, out);
            i += len;
            continue;
        }
        size_t k = len > 1 ? len : 1;
        for (size_t j = 0; j < k; j++, i++) {
            c = s[i];
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\t': fputs("\\t", out); break;
            case '\r': fputs("\\r", out); break;
            case 0x1b: fputs("\\e", out); break;
            default:
                putc('\\', out);
                putc('x', out);
                putc(hex[c >> 4], out);
                putc(hex[c & 15], out);
            }
        }
    }
    if (quoted)
        putc('"', out);
}

void cli_text_value(FILE *out, const gguf_value *v, unsigned max_elems) {
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        const char *s;
        uint64_t len;
        /* strings quoted and escaped for the terminal; other scalars read as in JSON */
        if (gguf_value_type(v) == GGUF_VTYPE_STRING && gguf_value_get_str(&s, &len, v, NULL) == 0)
            cli_text_escape(out, s, (size_t)len, 1);
        else
            cli_json_value(out, v);
        return;
    }
    gguf_value_iter it;
    gguf_value e;
    uint64_t n = gguf_value_count(v);
    gguf_value_iter_init(&it, v);
    putc('[', out);
    unsigned shown = 0;
    while (shown < max_elems && gguf_value_iter_next(&it, &e)) {
        if (shown++)
            fputs(", ", out);
        cli_text_value(out, &e, max_elems);
    }
    if (n > shown)
        fprintf(out, "%s... %" PRIu64 " more", shown ? ", " : "", n - shown);
    putc(']', out);
}

const char *cli_vtype_name(uint32_t vtype) {
    const char *n = gguf_vtype_name(vtype);
    return n ? n : "?";
}

const char *cli_dtype_name(uint32_t dtype, char *buf, size_t bufsize) {
    const char *n = gguf_dtype_name(dtype);
    if (n != NULL)
        return n;
    snprintf(buf, bufsize, "TYPE_%u", dtype);
    return buf;
}

/* ---- the progress bar ---- */

#define BAR_WIDTH 24

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bar on the terminal while the work goes on (the rest of the process reaches it through
 * shown_bar, to end its line on an interrupt). */
static cli_progress *volatile shown_bar;

static void progress_draw(void *user, uint64_t done, uint64_t total) {
    cli_progress *p = user;
    int permille = total ? (int)(done * 1000 / total) : 1000;
    double now = cli_now();
    /* at most ten times a second, and once at the end */
    if (permille == p->last_permille || (permille < 1000 && now - p->drawn < 0.1))
        return;
    p->last_permille = permille;
    p->drawn = now;
    if (p->ends == NULL && p->f != NULL && gguf_tensor_count(p->f) > 0) {
        p->n = gguf_tensor_count(p->f);
        p->ends = malloc(p->n * sizeof *p->ends);
        uint64_t sum = 0;
        for (size_t i = 0; p->ends != NULL && i < p->n; i++) {
            gguf_tensor_info t;
            gguf_tensor_get(&t, p->f, i);
            sum += t.nbytes == UINT64_MAX ? 0 : t.nbytes;
            p->ends[i] = sum;
        }
    }
    char bar[BAR_WIDTH + 1];
    int fill = permille * BAR_WIDTH / 1000;
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '-';
    bar[BAR_WIDTH] = '\0';
    /* every byte written is not the work done: the fsync, the proof and the rename follow, and
     * an interrupt until then leaves the old file */
    if (permille == 1000)
        fprintf(stderr, "\r\033[K%s [%s] syncing", p->label, bar);
    else
        fprintf(stderr, "\r\033[K%s [%s] %3d%%", p->label, bar, permille / 10);
    if (p->ends != NULL && permille < 1000) {
        size_t t = 0;
        while (t + 1 < p->n && p->ends[t] <= done)
            t++;
        fprintf(stderr, "  tensor %zu/%zu", t + 1, p->n);
    }
    fprintf(stderr, "  %.1f/%.1f MiB  %.0fs", (double)done / 1048576.0,
            (double)total / 1048576.0, now - p->start);
    fflush(stderr);
    p->shown = 1;
    shown_bar = p;
}

gguf_progress_fn cli_progress_fn(cli_progress *p, const char *label, const gguf_file *f) {
    *p = (cli_progress){.label = label, .f = f, .last_permille = -1, .start = cli_now()};
    return isatty(STDERR_FILENO) ? progress_draw : NULL;
}

void cli_progress_attach(cli_progress *p, const char *label, const gguf_file *f,
                         gguf_write_options *opt) {
    gguf_progress_fn fn = cli_progress_fn(p, label, f);
    if (fn != NULL) {
        opt->progress = fn;
        opt->progress_user = p;
    }
}

void cli_progress_end(cli_progress *p) {
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = 0;
    if (shown_bar == p)
        shown_bar = NULL;
    free(p->ends);
    p->ends = NULL;
}

/* ---- interrupts ---- */

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
                     shown_bar != NULL && shown_bar->shown ? "\n" : "", cli_prog,
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
