/* gguf-edit estimate: the memory llama.cpp allocates on the CPU for a model and a context
 * (gguf_llama_estimate_run), with llama-server's option names and defaults; --fit finds the
 * largest context that fits a size. Reads the header only. */
#include "cli.h"
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage_text[] =
    "usage: gguf-edit estimate FILE [-c N] [-ctk T] [-ctv T] [-np N] [-b N] [-ub N]\n"
    "                          [-fa on|off|auto] [--swa-full] [-kvu|--no-kv-unified]\n"
    "                          [--fit SIZE] [--json]\n"
    "Prints the bytes llama.cpp allocates on the CPU to run FILE (a model, a split set or a URL:\n"
    "its header only is read): weights (what it loads), context (the KV cache), compute (the\n"
    "scheduler's buffer for the largest batch, within 10%) and their total. The options are\n"
    "llama-server's, with its defaults (its short forms -ctk, -ctv, -np, -ub, -fa, -kvu too):\n"
    "  -c, --ctx-size N       context in tokens (default 0: the model's training context)\n"
    "  --cache-type-k T       K cache type: f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1\n"
    "                         (default f16)\n"
    "  --cache-type-v T       V cache type (default f16; quantized needs flash attention)\n"
    "  --parallel N           sequences decoded at once (default: 4 in a unified cache, as\n"
    "                         llama-server's automatic choice)\n"
    "  -b, --batch-size N     logical batch (default 2048)\n"
    "  --ubatch-size N        physical batch (default 512)\n"
    "  --flash-attn on|off|auto  flash attention (default auto: on for the CPU)\n"
    "  --swa-full             sliding-window layers keep the whole context\n"
    "  --kv-unified           one KV cache for every sequence (default with --parallel: off)\n"
    "  --no-kv-unified        a KV cache per sequence\n"
    "  --fit SIZE             the largest context (a multiple of 256, at most the training\n"
    "                         context) whose total fits in SIZE (K, M, G, T suffixes)\n"
    "  --json                 {\"file\", \"params\", \"weights\", \"context\", \"compute\", \"total\",\n"
    "                         \"layers\"}\n" CLI_OPEN_HELP;

enum {
    OPT_CTK = 2000, OPT_CTV, OPT_NP, OPT_UB, OPT_FA, OPT_SWA_FULL, OPT_KVU, OPT_NO_KVU, OPT_FIT,
    OPT_JSON
};

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

static int parse_count(const char *s, const char *what, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || s[0] == '-' || errno != 0 || v > UINT32_MAX) {
        cli_errorf("estimate: %s: '%s' is not a count", what, s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int parse_cache_type(const char *s, const char *what, uint32_t *out) {
    static const char *const allowed[] = {"f32",  "f16",    "bf16", "q8_0", "q4_0",
                                          "q4_1", "iq4_nl", "q5_0", "q5_1"};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        if (strcasecmp(s, allowed[i]) == 0) {
            *out = (uint32_t)gguf_dtype_parse(allowed[i]);
            return 0;
        }
    }
    cli_errorf("estimate: %s: '%s' is not a cache type llama.cpp takes (f32 f16 bf16 q8_0 q4_0 "
               "q4_1 iq4_nl q5_0 q5_1)", what, s);
    return -1;
}

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

int cmd_estimate(int argc, char **argv) {
    static const struct option longopts[] = {
        {"ctx-size", required_argument, NULL, 'c'},
        {"cache-type-k", required_argument, NULL, OPT_CTK},
        {"cache-type-v", required_argument, NULL, OPT_CTV},
        {"parallel", required_argument, NULL, OPT_NP},
        {"batch-size", required_argument, NULL, 'b'},
        {"ubatch-size", required_argument, NULL, OPT_UB},
        {"flash-attn", required_argument, NULL, OPT_FA},
        {"swa-full", no_argument, NULL, OPT_SWA_FULL},
        {"kv-unified", no_argument, NULL, OPT_KVU},
        {"no-kv-unified", no_argument, NULL, OPT_NO_KVU},
        {"fit", required_argument, NULL, OPT_FIT},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int json = 0, status = CLI_OK, c, bad = 0, unified = -1, fit = 0;
    uint64_t fit_size = 0;
    uint32_t n_seq = 0;
    gguf_llama_estimate_params p = GGUF_LLAMA_ESTIMATE_PARAMS_INIT;
    long_forms(argc, argv);
    while (!bad && (c = cli_getopt(argc, argv, "hc:b:", longopts, usage_text, &flags,
                                   &status)) >= 0) {
        switch (c) {
        case 'c': bad = parse_count(optarg, "--ctx-size", &p.n_ctx); break;
        case 'b': bad = parse_count(optarg, "--batch-size", &p.n_batch); break;
        case OPT_UB: bad = parse_count(optarg, "--ubatch-size", &p.n_ubatch); break;
        case OPT_NP:
            /* -1 is llama-server's automatic choice, the default */
            if (strcmp(optarg, "-1") != 0 &&
                (bad = parse_count(optarg, "--parallel", &n_seq)) == 0 && n_seq == 0)
                return cli_usage_error(usage_text, "--parallel takes 1 to 256 sequences, or -1");
            break;
        case OPT_CTK: bad = parse_cache_type(optarg, "--cache-type-k", &p.type_k); break;
        case OPT_CTV: bad = parse_cache_type(optarg, "--cache-type-v", &p.type_v); break;
        case OPT_FA:
            if (strcmp(optarg, "on") == 0)
                p.flash_attn = GGUF_LLAMA_FLASH_ATTN_ON;
            else if (strcmp(optarg, "off") == 0)
                p.flash_attn = GGUF_LLAMA_FLASH_ATTN_OFF;
            else if (strcmp(optarg, "auto") == 0)
                p.flash_attn = GGUF_LLAMA_FLASH_ATTN_AUTO;
            else
                return cli_usage_error(usage_text, "--flash-attn takes on, off or auto, not '%s'",
                                       optarg);
            break;
        case OPT_SWA_FULL: p.swa_full = 1; break;
        case OPT_KVU: unified = 1; break;
        case OPT_NO_KVU: unified = 0; break;
        case OPT_FIT:
            bad = cli_parse_size(optarg, "estimate: --fit", &fit_size) != 0;
            fit = 1;
            break;
        case OPT_JSON: json = 1; break;
        default: break;
        }
    }
    if (bad)
        return CLI_USAGE;
    if (c == CLI_DONE)
        return status;
    if (cli_operands(argc, 1, usage_text) != 0)
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
