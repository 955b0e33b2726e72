/* gguf-edit verify: each file (or split set) as llama.cpp's loader sees it: the reader's
 * structure and bounds checks, then llama.cpp's rules (gguf_llama_check) for the container,
 * key types, hyperparameters, tensors and tokenizer. Exit 0 clean, 1 when llama.cpp would
 * refuse a file (or the file cannot be read), 3 when there are warnings only. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


enum mode { MODE_LLAMA, MODE_VOCAB, MODE_STRUCTURE };

typedef struct verify_values {
    int json, mode;
} verify_values;

static const opt_spec options[] = {
    OPT_FLAG_("json", 0, "one JSON document with every finding", verify_values, json, 1),
    OPT_FLAG_("vocab-only", 0,
              "check as llama.cpp loads a vocabulary (no hyperparameters, tensors)",
              verify_values, mode, MODE_VOCAB),
    OPT_FLAG_("structure", 0, "only the container: what ggml's reader and the spec ask",
              verify_values, mode, MODE_STRUCTURE),
    OPT_TEXT_("Exit status: 0 ok, 1 llama.cpp would refuse a file (or it cannot be read), 3 "
              "warnings only."),
    {0}};

static int verify_run(int argc, char **argv);

const opt_command cmd_verify = {
    .name = "verify",
    .run = verify_run,
    .line = "verify FILE...                        check structure and what llama.cpp refuses",
    .synopsis = "usage: gguf-edit verify [--json] [--vocab-only|--structure] FILE...\n",
    .summary =
    "Checks each file as llama.cpp's loader would (without loading tensor data): structure,\n"
    "key types, hyperparameters, tensor set and shapes, tokenizer. A shard of a split set\n"
    "(NAME-00001-of-00003.gguf) is checked with its whole set (--one-file: alone).\n",
    .options = options,
    .groups = opt_open_groups,
};

typedef struct finding {
    int severity;
    char *key, *tensor, *message;
    size_t shard;
    uint64_t offset;
} finding;

typedef struct report {
    finding *v;
    size_t n, cap;
    int oom;
} report;

static char *dup_or_null(const char *s) {
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

static void add(report *r, int severity, const char *key, const char *tensor,
                const char *message, size_t shard, uint64_t offset) {
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        finding *v = realloc(r->v, cap * sizeof *v);
        if (v == NULL) {
            r->oom = 1;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    finding *f = &r->v[r->n++];
    *f = (finding){severity, dup_or_null(key), dup_or_null(tensor), dup_or_null(message), shard,
                   offset};
    if (f->message == NULL)
        r->oom = 1;
}

static void on_finding(void *user, const gguf_llama_finding *f) {
    add(user, f->severity, f->key, f->tensor, f->message, f->shard, f->offset);
}

static void on_lint(void *user, const char *message, uint64_t offset) {
    add(user, GGUF_LLAMA_WARNING, NULL, NULL, message, 0, offset);
}

static void report_free(report *r) {
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].key);
        free(r->v[i].tensor);
        free(r->v[i].message);
    }
    free(r->v);
    *r = (report){NULL, 0, 0, 0};
}

/* ---- the model: a file, or the split set a shard belongs to (the library's view) ---- */

typedef struct model {
    gguf_file *f;    /* NULL when it could not be opened */
    char **paths;    /* each shard's path */
    size_t n;
} model;

static void model_free(model *m) {
    for (size_t i = 0; i < m->n; i++)
        free(m->paths[i]);
    free(m->paths);
    gguf_file_free(m->f);
    *m = (model){NULL, NULL, 0};
}

/* Opens path (a shard: its whole set, unless --one-file). A file that cannot be read, or a set
 * llama.cpp could not assemble (a shard missing, out of order, a tensor twice), is a finding. */
static int model_open(model *m, const char *path, unsigned flags, report *r) {
    gguf_error err;
    gguf_error_clear(&err);
    gguf_file *f = NULL;
    if (cli_open_err(&f, path, flags, 1, &err) != 0) {
        cli_report(path, &err); /* on stderr, as every command says a file cannot be read */
        char msg[GGUF_ERROR_MESSAGE_MAX + 4096];
        const char *about = cli_error_path(path, &err);
        if (strcmp(about, path) != 0)
            snprintf(msg, sizeof msg, "%s: %s", about, err.message);
        else
            snprintf(msg, sizeof msg, "%s", err.message);
        add(r, GGUF_LLAMA_ERROR, NULL, NULL, msg, 0, err.offset);
        m->paths = calloc(1, sizeof *m->paths);
        if (m->paths == NULL || (m->paths[0] = dup_or_null(path)) == NULL) {
            free(m->paths);
            m->paths = NULL;
            return -1;
        }
        m->n = 1;
        return 0;
    }
    size_t n = gguf_file_shard_count(f);
    m->paths = calloc(n ? n : 1, sizeof *m->paths);
    if (m->paths == NULL) {
        gguf_file_free(f);
        return -1;
    }
    m->f = f;
    for (size_t k = 0; k < n; k++) {
        const char *p = gguf_file_path(gguf_file_shard(f, k));
        m->paths[k] = dup_or_null(p != NULL ? p : path);
        if (m->paths[k] == NULL) {
            m->n = k;
            model_free(m);
            return -1;
        }
    }
    m->n = n;
    return 0;
}

/* ---- output ---- */

static const char *severity_name(int s) {
    return s == GGUF_LLAMA_ERROR ? "error" : s == GGUF_LLAMA_WARNING ? "warning" : "note";
}

static void print_text(const model *m, const report *r) {
    for (size_t i = 0; i < r->n; i++) {
        const finding *f = &r->v[i];
        const char *path = m->paths[f->shard < m->n ? f->shard : 0];
        cli_text_escape(stdout, path, strlen(path), 0);
        printf(": %s: ", severity_name(f->severity));
        if (f->offset != GGUF_ERROR_NO_OFFSET)
            printf("offset 0x%" PRIx64 ": ", f->offset);
        cli_text_escape(stdout, f->message, strlen(f->message), 0);
        putchar('\n');
    }
}

static void print_json(cli_json *j, const model *m, const char *path, const report *r) {
    unsigned ne = 0, nw = 0, nn = 0;
    for (size_t i = 0; i < r->n; i++) {
        ne += r->v[i].severity == GGUF_LLAMA_ERROR;
        nw += r->v[i].severity == GGUF_LLAMA_WARNING;
        nn += r->v[i].severity == GGUF_LLAMA_NOTE;
    }
    cli_json_line(j);
    cli_json_object(j);
    cli_json_member_str(j, "path", path);
    cli_json_name(j, "shards");
    cli_json_array(j);
    for (size_t i = 0; m->f != NULL && i < m->n; i++)
        cli_json_cstr(j, m->paths[i]);
    cli_json_end(j);
    cli_json_member_str(j, "status", ne ? "error" : nw ? "warning" : "ok");
    cli_json_member_u64(j, "errors", ne);
    cli_json_member_u64(j, "warnings", nw);
    cli_json_member_u64(j, "notes", nn);
    cli_json_name(j, "findings");
    cli_json_array(j);
    for (size_t i = 0; i < r->n; i++) {
        const finding *f = &r->v[i];
        cli_json_object(j);
        cli_json_member_str(j, "severity", severity_name(f->severity));
        cli_json_member_str(j, "key", f->key);
        cli_json_member_str(j, "tensor", f->tensor);
        cli_json_member_str(j, "message", f->message);
        cli_json_member_str(j, "shard", m->paths[f->shard < m->n ? f->shard : 0]);
        cli_json_name(j, "offset");
        if (f->offset == GGUF_ERROR_NO_OFFSET)
            cli_json_null(j);
        else
            cli_json_u64(j, f->offset);
        cli_json_end(j);
    }
    cli_json_end(j);
    cli_json_end(j);
}

/* 1 when path is a shard of a set an earlier operand already covered. */
static int covered(char **done, size_t n_done, const char *path) {
    for (size_t i = 0; i < n_done; i++) {
        if (strcmp(done[i], path) == 0)
            return 1;
    }
    return 0;
}

static int verify_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS;
    verify_values o = {0, MODE_LLAMA};
    int status = opt_parse(&cmd_verify, argc, argv, &o, &flags);
    if (status >= 0)
        return status;
    int json = o.json;
    enum mode mode = (enum mode)o.mode;
    if (cli_operands_min(argc, 1, cmd_verify.synopsis) != 0)
        return CLI_USAGE;
    char **done = calloc((size_t)argc, sizeof *done);
    size_t n_done = 0, cap_done = (size_t)argc;
    int worst = CLI_OK;
    cli_json j;
    cli_json_init(&j, stdout, 0);
    if (json) {
        cli_json_object(&j);
        cli_json_name(&j, "files");
        cli_json_array(&j);
    }
    for (int a = optind; a < argc && done != NULL; a++) {
        const char *path = argv[a];
        if (covered(done, n_done, path))
            continue;
        model m = {NULL, NULL, 0};
        report r = {NULL, 0, 0, 0};
        if (model_open(&m, path, flags, &r) != 0) {
            cli_errorf("out of memory");
            worst = CLI_BAD;
            report_free(&r);
            continue;
        }
        if (m.f != NULL) {
            /* remember the shards so that naming another one of the set does not repeat it */
            for (size_t i = 0; i < m.n; i++) {
                if (n_done == cap_done) {
                    char **d = realloc(done, 2 * cap_done * sizeof *d);
                    if (d == NULL)
                        break;
                    done = d;
                    cap_done *= 2;
                }
                done[n_done++] = dup_or_null(m.paths[i]);
            }
            gguf_error err;
            gguf_error_clear(&err);
            int rc;
            if (mode == MODE_STRUCTURE) {
                rc = gguf_file_lint(m.f, on_lint, &r, &err);
                rc = rc < 0 ? rc : 0;
            } else {
                rc = gguf_llama_check(NULL, m.f, mode == MODE_VOCAB ? GGUF_LLAMA_CHECK_VOCAB_ONLY : 0,
                                      on_finding, &r, &err);
            }
            if (rc != 0) /* the check itself failed (memory): a finding, so that it counts */
                add(&r, GGUF_LLAMA_ERROR, NULL, NULL, err.message[0] ? err.message
                                                                     : gguf_strerror(rc),
                    0, GGUF_ERROR_NO_OFFSET);
        }
        if (r.oom)
            cli_errorf("out of memory");
        int result = r.oom ? CLI_BAD : CLI_OK;
        size_t ne = 0, nw = 0;
        for (size_t i = 0; i < r.n; i++) {
            ne += r.v[i].severity == GGUF_LLAMA_ERROR;
            nw += r.v[i].severity == GGUF_LLAMA_WARNING;
        }
        if (ne)
            result = CLI_BAD;
        else if (nw && result == CLI_OK)
            result = CLI_WARN;
        if (json) {
            print_json(&j, &m, path, &r);
        } else if (m.f != NULL) { /* else the reason is on stderr */
            print_text(&m, &r);
            cli_text_escape(stdout, m.paths[0], strlen(m.paths[0]), 0);
            if (m.n > 1)
                printf(" (%zu shards)", m.n);
            if (ne || nw)
                printf(": %zu error%s, %zu warning%s\n", ne, ne == 1 ? "" : "s", nw,
                       nw == 1 ? "" : "s");
            else
                fputs(": ok\n", stdout);
        }
        if (result == CLI_BAD || (result == CLI_WARN && worst == CLI_OK))
            worst = result;
        report_free(&r);
        model_free(&m);
    }
    if (json) {
        cli_json_line(&j);
        cli_json_end(&j);
        cli_json_end(&j);
        putchar('\n');
    }
    if (done == NULL) {
        cli_errorf("out of memory");
        worst = CLI_BAD;
    }
    for (size_t i = 0; i < n_done; i++)
        free(done[i]);
    free(done);
    if (fflush(stdout) != 0)
        return CLI_BAD;
    return worst;
}
