/* Opening what a command reads: the open options (the file ones, and the URL ones with the
 * headers and $HF_TOKEN they send), a file, a URL or standard input opened with the error
 * printed, a journal beside the file noted, an editor's recovery first, a URL refused as an
 * output. */
#define _GNU_SOURCE /* strncasecmp */
#include "cli.h"
#include "opt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
        opt.progress = cli_fetch_progress;
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

/* ---- opening ---- */

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
    cli_fetch_progress_end();
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
