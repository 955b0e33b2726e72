/* gguf-edit estimate: the memory llama.cpp allocates on the CPU for a model and a context
 * (gguf_llama_estimate_run), with llama-server's option names and defaults; --fit finds the
 * largest context that fits a size. Reads the header only. */
#include "cli.h"
#include "commands.h"

#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* llama-server's options of more than one letter after a single dash, as long options. */
static void long_forms(int argc, char **argv) {
    static const char *const forms[][2] = {
        {"-ctk", "--cache-type-k"}, {"-ctv", "--cache-type-v"}, {"-np", "--parallel"},
        {"-ub", "--ubatch-size"},   {"-fa", "--flash-attn"},    {"-kvu", "--kv-unified"},
        {"-no-kvu", "--no-kv-unified"}};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return;
        for (size_t j = 0; j < sizeof forms / sizeof forms[0]; j++) {
            if (strcmp(argv[i], forms[j][0]) == 0)
                argv[i] = (char *)forms[j][1];
        }
    }
}

typedef struct estimate_values {
    uint64_t n_ctx, n_batch, n_ubatch, n_seq, fit_size;
    uint32_t type_k, type_v;
    int flash_attn, swa_full, unified, fit, json;
} estimate_values;

/* --parallel: -1 is llama-server's automatic choice, the default */
static int take_parallel(const opt_spec *o, const char *arg, void *values) {
    estimate_values *v = values;
    if (strcmp(arg, "-1") == 0) {
        v->n_seq = 0;
        return 0;
    }
    return opt_parse_count(&v->n_seq, arg, "--parallel", 1, UINT32_MAX, "-1 or a number");
    (void)o;
}

/* --cache-type-k (value 0) and --cache-type-v (1) */
static int take_cache_type(const opt_spec *o, const char *arg, void *values) {
    static const char *const allowed[] = {"f32",  "f16",    "bf16", "q8_0", "q4_0",
                                          "q4_1", "iq4_nl", "q5_0", "q5_1"};
    estimate_values *v = values;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        if (strcasecmp(arg, allowed[i]) == 0) {
            *(o->value ? &v->type_v : &v->type_k) = (uint32_t)gguf_dtype_parse(allowed[i]);
            return 0;
        }
    }
    return opt_error("--%s: '%s' is not a cache type llama.cpp takes (f32 f16 bf16 q8_0 q4_0 "
                     "q4_1 iq4_nl q5_0 q5_1)", o->name, arg);
}

static int take_fit(const opt_spec *o, const char *arg, void *values) {
    estimate_values *v = values;
    v->fit = 1;
    return opt_parse_size(&v->fit_size, arg, "--fit", 0, UINT64_MAX, 0);
    (void)o;
}

static const char *const flash_attn_modes[] = {"on", "off", "auto", NULL};
static const int flash_attn_values[] = {GGUF_LLAMA_FLASH_ATTN_ON, GGUF_LLAMA_FLASH_ATTN_OFF,
                                        GGUF_LLAMA_FLASH_ATTN_AUTO};

static const opt_spec options[] = {
    OPT_COUNT_("ctx-size", 'c', "N", "context in tokens (default 0: the model's training context)",
               estimate_values, n_ctx, 0, UINT32_MAX),
    OPT_HANDLER_("cache-type-k", 0, "T",
                 "K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1\n(default f16)",
                 take_cache_type, 0),
    OPT_HANDLER_("cache-type-v", 0, "T",
                 "V cache type (default f16; quantized needs flash attention)", take_cache_type,
                 1),
    OPT_HANDLER_("parallel", 0, "N",
                 "sequences decoded at once (default: 4 in a unified cache, as\n"
                 "llama-server's automatic choice)",
                 take_parallel, 0),
    OPT_COUNT_("batch-size", 'b', "N", "logical batch (default 2048)", estimate_values, n_batch,
               0, UINT32_MAX),
    OPT_COUNT_("ubatch-size", 0, "N", "physical batch (default 512)", estimate_values, n_ubatch,
               0, UINT32_MAX),
    OPT_CHOICE_("flash-attn", NULL, "flash attention (default auto: on for the CPU)",
                estimate_values, flash_attn, flash_attn_modes),
    OPT_FLAG_("swa-full", 0, "sliding-window layers keep the whole context", estimate_values,
              swa_full, 1),
    OPT_FLAG_("kv-unified", 0, "one KV cache for every sequence (default with --parallel: off)",
              estimate_values, unified, 1),
    OPT_FLAG_("no-kv-unified", 0, "a KV cache per sequence", estimate_values, unified, 0),
    OPT_HANDLER_("fit", 0, "SIZE",
                 "the largest context (a multiple of 256, at most the training\n"
                 "context) whose total fits in SIZE (K, M, G, T suffixes)",
                 take_fit, 0),
    OPT_FLAG_("json", 0,
              "{\"file\", \"params\", \"weights\", \"context\", \"compute\", \"total\",\n"
              "\"layers\"}",
              estimate_values, json, 1),
    {0}};

static int estimate_run(int argc, char **argv);

const opt_command cmd_estimate = {
    .name = "estimate",
    .run = estimate_run,
    .line = "estimate FILE [-c N] [--fit SIZE]     memory llama.cpp allocates for a context",
    .synopsis =
    "usage: gguf-edit estimate FILE [-c N] [-ctk T] [-ctv T] [-np N] [-b N] [-ub N]\n"
    "                          [-fa on|off|auto] [--swa-full] [-kvu|--no-kv-unified]\n"
    "                          [--fit SIZE] [--json]\n",
    .summary =
    "Prints the bytes llama.cpp allocates on the CPU to run FILE (a model, a split set or a URL:\n"
    "its header only is read): weights (what it loads), context (the KV cache), compute (the\n"
    "scheduler's buffer for the largest batch, within 10%) and their total. The options are\n"
    "llama-server's, with its defaults (its short forms -ctk, -ctv, -np, -ub, -fa, -kvu too):\n",
    .options = options,
    .groups = opt_open_groups,
    .column = 25,
};

/* A cache type as llama.cpp's options name it: "f16", "q8_0". */
static void json_cache_type(cli_json *j, const char *name, uint32_t dtype) {
    char buf[32] = "";
    const char *n = gguf_dtype_name(dtype);
    for (size_t k = 0; n != NULL && n[k] && k < sizeof buf - 1; k++)
        buf[k] = (char)tolower((unsigned char)n[k]);
    cli_json_member_str(j, name, buf);
}

static void print_json(const char *path, const gguf_llama_estimate *e, int fit,
                       uint64_t fit_size) {
    const gguf_llama_estimate_params *p = &e->params;
    cli_json j;
    cli_json_init(&j, stdout, CLI_JSON_SPACED);
    cli_json_object(&j);
    cli_json_member_str(&j, "file", path);
    cli_json_name(&j, "params");
    cli_json_object(&j);
    cli_json_member_u64(&j, "ctx", p->n_ctx);
    json_cache_type(&j, "type_k", p->type_k);
    json_cache_type(&j, "type_v", p->type_v);
    cli_json_member_u64(&j, "seqs", p->n_seq);
    cli_json_member_u64(&j, "batch", p->n_batch);
    cli_json_member_u64(&j, "ubatch", p->n_ubatch);
    cli_json_name(&j, "flash_attn");
    if (p->flash_attn == GGUF_LLAMA_FLASH_ATTN_AUTO)
        cli_json_cstr(&j, "auto");
    else
        cli_json_bool(&j, p->flash_attn);
    cli_json_member_bool(&j, "swa_full", p->swa_full);
    cli_json_member_bool(&j, "kv_unified", p->kv_unified);
    cli_json_end(&j);
    cli_json_member_u64(&j, "ctx_seq", e->n_ctx_seq);
    cli_json_member_u64(&j, "ctx_train", e->n_ctx_train);
    if (fit)
        cli_json_member_u64(&j, "fit", fit_size);
    cli_json_member_u64(&j, "weights", e->weights);
    cli_json_member_u64(&j, "weights_token_embd", e->weights_token_embd);
    cli_json_member_u64(&j, "weights_output", e->weights_output);
    cli_json_member_u64(&j, "context", e->context);
    cli_json_member_u64(&j, "compute", e->compute);
    cli_json_member_u64(&j, "total", e->total);
    cli_json_name(&j, "layers");
    cli_json_array(&j);
    for (uint32_t il = 0; il < e->n_layer; il++) {
        const gguf_llama_estimate_layer *l = &e->layer[il];
        cli_json_object(&j);
        cli_json_member_u64(&j, "weights", l->weights);
        cli_json_member_u64(&j, "k", l->k);
        cli_json_member_u64(&j, "v", l->v);
        cli_json_member_u64(&j, "cells", l->cells);
        cli_json_member_bool(&j, "swa", l->swa);
        cli_json_end(&j);
    }
    cli_json_end(&j);
    cli_json_end(&j);
    putchar('\n');
}

static void size_line(const char *what, uint64_t bytes, const char *detail) {
    printf("  %-8s %10.2f MiB  %15" PRIu64 " bytes%s%s\n", what, (double)bytes / 1048576.0,
           bytes, detail[0] ? "  " : "", detail);
}

static void print_text(const char *path, const gguf_llama_estimate *e) {
    const gguf_llama_estimate_params *p = &e->params;
    char buf[256];
    cli_text_escape(stdout, path, strlen(path), 0);
    printf(": context %" PRIu32 " (%" PRIu32 " per sequence), %" PRIu32 " sequence%s%s, "
           "cache %s/%s, batch %" PRIu32 "/%" PRIu32 ", flash attention %s%s\n",
           p->n_ctx, e->n_ctx_seq, p->n_seq, CLI_S(p->n_seq), p->kv_unified ? " unified" : "",
           gguf_dtype_name(p->type_k), gguf_dtype_name(p->type_v), p->n_batch, p->n_ubatch,
           p->flash_attn == GGUF_LLAMA_FLASH_ATTN_AUTO ? "auto (on)"
           : p->flash_attn ? "on" : "off",
           e->n_swa_cells ? p->swa_full ? ", full sliding-window cache" : "" : "");
    uint64_t layers = e->weights - e->weights_token_embd - e->weights_output - e->weights_other;
    snprintf(buf, sizeof buf,
             "(token embedding %" PRIu64 ", output %" PRIu64 ", %" PRIu32 " layers %" PRIu64
             ", other %" PRIu64 ")",
             e->weights_token_embd, e->weights_output, e->n_layer, layers, e->weights_other);
    size_line("weights", e->weights, buf);
    buf[0] = '\0';
    uint64_t state = 0;
    uint32_t n_recr = 0;
    int cache = 0;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        state += e->layer[il].r + e->layer[il].s;
        n_recr += e->layer[il].r + e->layer[il].s != 0;
        cache |= e->layer[il].k + e->layer[il].v != 0;
    }
    if (state && cache)
        snprintf(buf, sizeof buf, "(KV cache: %" PRIu32 " cells; recurrent state: %" PRIu32
                 " sequence%s, %" PRIu32 " of %" PRIu32 " layers)", e->n_ctx_seq, p->n_seq,
                 CLI_S(p->n_seq), n_recr, e->n_layer);
    else if (state)
        snprintf(buf, sizeof buf, "(recurrent state: %" PRIu32 " sequence%s, %" PRIu32
                 " layers)", p->n_seq, CLI_S(p->n_seq), e->n_layer);
    else if (e->n_swa_cells)
        snprintf(buf, sizeof buf, "(KV cache: %" PRIu32 " cells, sliding-window layers %" PRIu32
                 ")", e->n_ctx_seq, e->n_swa_cells);
    else if (e->context)
        snprintf(buf, sizeof buf, "(KV cache: %" PRIu32 " cells)", e->n_ctx_seq);
    else
        snprintf(buf, sizeof buf, "(no KV cache)");
    size_line("context", e->context, buf);
    size_line("compute", e->compute, "");
    size_line("total", e->total, "");
}

/* The largest context, a multiple of 256 up to the training context, whose total fits in size:
 * 0 when none does. Totals grow with the context, so a binary search finds it. */
static int fit_context(uint32_t *best, gguf_llama_estimate *e, const gguf_file *f,
                       const gguf_llama_estimate_params *p, uint64_t size, gguf_error *err) {
    gguf_llama_estimate_params q = *p;
    q.n_ctx = 0;
    int rc = gguf_llama_estimate_run(e, f, &q, err);
    if (rc != 0)
        return rc;
    uint64_t top = ((uint64_t)e->n_ctx_train + 255) / 256;
    uint32_t lo = 0, hi = (uint32_t)(top < UINT32_MAX / 256 ? top : UINT32_MAX / 256);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        q.n_ctx = mid * 256;
        if ((rc = gguf_llama_estimate_run(e, f, &q, err)) != 0)
            return rc;
        if (e->total <= size)
            lo = mid;
        else
            hi = mid - 1;
    }
    *best = lo * 256;
    q.n_ctx = lo > 0 ? *best : 256; /* when none fits: what the smallest needs */
    return gguf_llama_estimate_run(e, f, &q, err);
}

static int estimate_run(int argc, char **argv) {
    unsigned flags = cli_read_mapped(CLI_READ_FLAGS);
    gguf_llama_estimate_params p = GGUF_LLAMA_ESTIMATE_PARAMS_INIT;
    estimate_values v = {.n_ctx = p.n_ctx, .n_batch = p.n_batch, .n_ubatch = p.n_ubatch,
                         .type_k = p.type_k, .type_v = p.type_v,
                         .flash_attn = -1, .swa_full = p.swa_full, .unified = -1};
    long_forms(argc, argv);
    int status = opt_parse(&cmd_estimate, argc, argv, &v, &flags);
    if (status >= 0)
        return status;
    p.n_ctx = (uint32_t)v.n_ctx;
    p.n_batch = (uint32_t)v.n_batch;
    p.n_ubatch = (uint32_t)v.n_ubatch;
    p.type_k = v.type_k;
    p.type_v = v.type_v;
    if (v.flash_attn >= 0)
        p.flash_attn = flash_attn_values[v.flash_attn];
    p.swa_full = v.swa_full;
    int json = v.json, unified = v.unified, fit = v.fit;
    uint64_t fit_size = v.fit_size;
    uint32_t n_seq = (uint32_t)v.n_seq;
    if (cli_operands(argc, 1, cmd_estimate.synopsis) != 0)
        return CLI_USAGE;
    /* an explicit -np has a cache per sequence unless -kvu; the automatic one is unified */
    if (n_seq != 0) {
        p.n_seq = n_seq;
        p.kv_unified = 0;
    }
    if (unified >= 0)
        p.kv_unified = unified;
    const char *path = argv[optind];
    gguf_file *f = cli_open_header(path, flags);
    if (f == NULL)
        return CLI_BAD;
    gguf_llama_estimate *e = malloc(sizeof *e);
    if (e == NULL) {
        gguf_file_free(f);
        cli_errorf("estimate: out of memory");
        return CLI_BAD;
    }
    gguf_error err;
    gguf_error_clear(&err);
    uint32_t best = 0;
    int rc = fit ? fit_context(&best, e, f, &p, fit_size, &err)
                 : gguf_llama_estimate_run(e, f, &p, &err);
    int status_out = CLI_OK;
    if (rc != 0) {
        cli_report(path, &err);
        status_out = CLI_BAD;
    } else if (fit && best == 0) {
        cli_errorf("estimate: %s: no context fits in %" PRIu64 " bytes (256 tokens need %" PRIu64
                   ")", path, fit_size, e->total);
        status_out = CLI_BAD;
    } else if (json) {
        print_json(path, e, fit, fit_size);
    } else {
        if (fit)
            printf("-c %" PRIu32 " fits in %" PRIu64 " bytes\n", best, fit_size);
        print_text(path, e);
    }
    free(e);
    gguf_file_free(f);
    return status_out;
}
