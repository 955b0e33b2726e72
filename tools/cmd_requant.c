/* gguf-edit requant: requantize a model to a llama.cpp preset (Q4_K_M, Q8_0, ...) or a plain
 * tensor type, choosing each tensor's type as llama.cpp's quantizer does and converting the
 * data as the output is written (streamed, on several threads). It takes llama-quantize's
 * arguments too (FILE OUT TYPE [NTHREADS], preset numbers, --allow-requantize, --override-kv,
 * --prune-layers, ...). The input is never modified: OUT is never FILE (an existing OUT is
 * replaced atomically). FILE may be any shard of a split set: the whole set is requantized,
 * into one file or (--keep-split) into a set with the same shards. */
#define _GNU_SOURCE
#include "cli.h"
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_THREADS, OPT_TENSOR_TYPE, OPT_TENSOR_TYPE_FILE, OPT_OUTPUT_TYPE, OPT_TOKEN_TYPE,
    OPT_OVERRIDE_KV, OPT_PRUNE_LAYERS, OPT_INCLUDE_WEIGHTS, OPT_EXCLUDE_WEIGHTS
};

/* What the options collect. */
typedef struct args {
    gguf_requant_options ro;
    gguf_requant_override *tt;   /* --tensor-type, patterns malloc'd */
    size_t n_tt, cap_tt;
    gguf_requant_kv *kv;         /* --override-kv */
    size_t n_kv, cap_kv;
    int32_t *prune;              /* --prune-layers */
    size_t n_prune, cap_prune;
    const char **weights;        /* --include-weights / --exclude-weights */
    size_t n_weights, cap_weights;
    int include, exclude;
    const char *out, *imatrix_path, *type_name;
    long threads;                /* -1: not given */
    int verbose, quiet, dry_run, pure, keep_split;
    uint64_t max_buffer_size;    /* accepted, not used */
} args;

static void args_free(args *a) {
    for (size_t i = 0; i < a->n_tt; i++)
        free((char *)a->tt[i].pattern);
    free(a->tt);
    free(a->kv);
    free(a->prune);
    free(a->weights);
}

/* Room for one more element in *p (of *cap). */
static int grow(void **p, size_t *cap, size_t n, size_t size) {
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 8;
    void *q = realloc(*p, c * size);
    if (q == NULL) {
        cli_errorf("out of memory");
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}

/* REGEX=TYPE, the pattern lower-cased as llama-quantize does. */
static int add_tensor_type(args *a, const char *arg) {
    const char *eq = strrchr(arg, '=');
    if (eq == NULL || eq == arg || eq[1] == '\0') {
        cli_errorf("--tensor-type takes REGEX=TYPE, not '%s'", arg);
        return -1;
    }
    int type = gguf_dtype_parse(eq + 1);
    if (type < 0) {
        cli_errorf("--tensor-type %s: unknown tensor type '%s'", arg, eq + 1);
        return -1;
    }
    if (grow((void **)&a->tt, &a->cap_tt, a->n_tt, sizeof *a->tt) != 0)
        return -1;
    size_t n = (size_t)(eq - arg);
    char *pat = malloc(n + 1);
    if (pat == NULL) {
        cli_errorf("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        pat[i] = (char)tolower((unsigned char)arg[i]);
    pat[n] = '\0';
    a->tt[a->n_tt++] = (gguf_requant_override){pat, (uint32_t)type};
    return 0;
}

static int add_tensor_type_file(args *a, const char *path) {
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        cli_errorf("%s: %s", path, strerror(errno));
        return -1;
    }
    char word[4096];
    int rc = 0;
    while (rc == 0 && fscanf(fp, "%4095s", word) == 1)
        rc = add_tensor_type(a, word);
    fclose(fp);
    return rc;
}

static int add_kv(args *a, const char *arg) {
    gguf_error err;
    gguf_error_clear(&err);
    if (grow((void **)&a->kv, &a->cap_kv, a->n_kv, sizeof *a->kv) != 0)
        return -1;
    if (gguf_requant_kv_parse(&a->kv[a->n_kv], arg, &err) != 0) {
        cli_errorf("%s", err.message);
        return -1;
    }
    a->n_kv++;
    return 0;
}

/* L0,L1,...: layer numbers. */
static int add_prune(args *a, const char *arg) {
    const char *p = arg;
    for (;;) {
        size_t d = strspn(p, "0123456789");
        char *end;
        errno = 0;
        long v = d > 0 ? strtol(p, &end, 10) : -1;
        if (d == 0 || (p[d] != ',' && p[d] != '\0') || errno == ERANGE || v > INT32_MAX) {
            cli_errorf("--prune-layers takes layer numbers separated by commas, not '%s'", arg);
            return -1;
        }
        if (grow((void **)&a->prune, &a->cap_prune, a->n_prune, sizeof *a->prune) != 0)
            return -1;
        a->prune[a->n_prune++] = (int32_t)v;
        if (p[d] == '\0')
            return 0;
        p += d + 1;
    }
}

static int add_weights(args *a, const char *name, int exclude) {
    if (grow((void **)&a->weights, &a->cap_weights, a->n_weights, sizeof *a->weights) != 0)
        return -1;
    a->weights[a->n_weights++] = name;
    if (exclude)
        a->exclude = 1;
    else
        a->include = 1;
    return 0;
}

static int parse_dtype_arg(const char *opt, const char *arg) {
    int t = gguf_dtype_parse(arg);
    if (t < 0)
        cli_errorf("%s: unknown tensor type '%s'", opt, arg);
    return t;
}

/* 0..256 threads (0: one per CPU). */
static int parse_threads(long *out, const char *arg, const char *name) {
    uint64_t v;
    if (opt_parse_count(&v, arg, name, 0, 256, NULL) != 0)
        return -1;
    *out = (long)v;
    return 0;
}

/* The options that collect or check more than one value; -1 on a bad value. */
static int take_option(const opt_spec *o, const char *arg, void *values) {
    args *a = values;
    switch (o->value) {
    case OPT_THREADS: return parse_threads(&a->threads, arg, "--threads");
    case OPT_TENSOR_TYPE: return add_tensor_type(a, arg);
    case OPT_TENSOR_TYPE_FILE: return add_tensor_type_file(a, arg);
    case OPT_INCLUDE_WEIGHTS: return add_weights(a, arg, 0);
    case OPT_EXCLUDE_WEIGHTS: return add_weights(a, arg, 1);
    case OPT_OUTPUT_TYPE:
        return (a->ro.output_type = parse_dtype_arg("--output-tensor-type", arg)) < 0 ? -1 : 0;
    case OPT_TOKEN_TYPE:
        return (a->ro.token_embd_type = parse_dtype_arg("--token-embedding-type", arg)) < 0 ? -1
                                                                                            : 0;
    case OPT_OVERRIDE_KV: return add_kv(a, arg);
    case OPT_PRUNE_LAYERS: return add_prune(a, arg);
    default: return -1;
    }
}

static const opt_spec options[] = {
    OPT_STRING_("output", 'o', "OUT",
                "where to write (an existing OUT is replaced atomically,\nnever FILE itself)",
                args, out),
    OPT_HANDLER_("threads", 0, "N", "threads converting data (default 0: one per CPU)",
                 take_option, OPT_THREADS),
    OPT_FLAG_("allow-requantize", 0,
              "allow tensors that are quantized already (Q4_K, Q8_0, ...; not\n"
              "F16/BF16) to change type; refused without it, as llama-quantize\n"
              "refuses it: requantizing loses more than quantizing from floats",
              args, ro.allow_requantize, 1),
    OPT_HANDLER_("tensor-type", 0, "REGEX=TYPE",
                 "tensors whose name matches REGEX (POSIX extended, lower-cased as\n"
                 "llama-quantize does) get TYPE; the first match wins; repeatable",
                 take_option, OPT_TENSOR_TYPE),
    OPT_HANDLER_("tensor-type-file", 0, "PATH",
                 "REGEX=TYPE pairs from a file, separated by blanks or lines", take_option,
                 OPT_TENSOR_TYPE_FILE),
    OPT_FLAG_("pure", 0, "no mixture: every quantizable tensor gets TYPE's type", args, pure, 1),
    OPT_STRING_("imatrix", 0, "FILE", "importance matrix (llama-imatrix output, GGUF or legacy)",
                args, imatrix_path),
    OPT_HANDLER_("include-weights", 0, "NAME",
                 "use the importance matrix only for tensors whose name contains\n"
                 "NAME (repeatable)",
                 take_option, OPT_INCLUDE_WEIGHTS),
    OPT_HANDLER_("exclude-weights", 0, "NAME",
                 "do not use it for tensors whose name contains NAME (repeatable;\n"
                 "not with --include-weights)",
                 take_option, OPT_EXCLUDE_WEIGHTS),
    OPT_HANDLER_("output-tensor-type", 0, "T", "type of output.weight", take_option,
                 OPT_OUTPUT_TYPE),
    OPT_HANDLER_("token-embedding-type", 0, "T", "type of the token embeddings", take_option,
                 OPT_TOKEN_TYPE),
    OPT_FLAG_("leave-output-tensor", 0, "output.weight keeps its type", args, ro.leave_output, 1),
    OPT_HANDLER_("override-kv", 0, "KEY=TYPE:VALUE",
                 "set KEY in the output (TYPE int, float, bool or str; written as\n"
                 "llama-quantize writes it: int as UINT32); the type rules see it\n"
                 "as llama.cpp's loader does; repeatable",
                 take_option, OPT_OVERRIDE_KV),
    OPT_HANDLER_("prune-layers", 0, "L0,L1,...",
                 "leave these layers out, number the later ones again and set\n"
                 "{arch}.block_count (as llama-quantize does)",
                 take_option, OPT_PRUNE_LAYERS),
    OPT_FLAG_("keep-order", 0,
              "keep the source's tensor order (default: llama.cpp's, by layer\n"
              "then name, which makes the file identical to llama-quantize's)",
              args, ro.keep_order, 1),
    OPT_FLAG_("dry-run", 0, "print the report (see -q); write nothing", args, dry_run, 1),
    OPT_COUNT_("max-buffer-size", 0, "MiB",
               "accepted for llama-quantize's scripts; memory is bounded anyway\n"
               "(a few rows per thread)",
               args, max_buffer_size, 1, (uint64_t)LONG_MAX),
    OPT_FLAG_("keep-split", 0,
              "a split model stays a split set with the same shards, as\n"
              "llama-quantize --keep-split writes it (OUT names the first\n"
              "shard, PREFIX-00001-of-0000N.gguf, or the prefix)",
              args, keep_split, 1),
    OPT_FLAG_("verbose", 'v', "print a summary", args, verbose, 1),
    OPT_FLAG_("quiet", 'q',
              "do not print the report: by default each tensor's line (its\n"
              "name, shape, type, new type, size before and after) and the\n"
              "model's size before and after, as llama-quantize prints them,\n"
              "on standard output once the file is written",
              args, quiet, 1),
    OPT_TEXT_("FILE may be any shard of a split set: the whole set is requantized (into one "
              "file, or\nwith --keep-split into a set)."),
    {0}};

static int requant_run(int argc, char **argv);

const opt_command cmd_requant = {
    .name = "requant",
    .run = requant_run,
    .line = "requant FILE OUT TYPE [NTHREADS]      requantize as llama.cpp does (Q4_K_M, Q8_0, ...)",
    .synopsis = "usage: gguf-edit requant [OPTIONS] FILE OUT TYPE [NTHREADS]\n"
                "       gguf-edit requant [OPTIONS] FILE TYPE [NTHREADS] -o OUT\n",
    .summary =
    "Requantizes FILE to TYPE the way llama.cpp's quantizer does: each tensor gets the type\n"
    "llama-quantize would give it (1-D tensors and norms stay, Q4_K_M keeps half of attn_v and\n"
    "ffn_down at Q6_K, ...), its values are dequantized to f32 and quantized again, and the\n"
    "metadata is llama.cpp's (general.file_type, general.quantization_version).\n"
    "TYPE is a preset, by name or by llama-quantize's number, with llama-quantize's figures\n"
    "(bits per weight, or the size of Llama-3-8B and its perplexity's rise over F16):\n"
    "  40  Q1_0       1.125 bpw\n"
    "  41  Q2_0       2.25 bpw (groups of 64)\n"
    "   2  Q4_0       4.34G, +0.4685 ppl\n"
    "   3  Q4_1       4.78G, +0.4511 ppl\n"
    "   8  Q5_0       5.21G, +0.1316 ppl\n"
    "   9  Q5_1       5.65G, +0.1062 ppl\n"
    "   7  Q8_0       7.96G, +0.0026 ppl\n"
    "  10  Q2_K       2.96G, +3.5199 ppl\n"
    "  21  Q2_K_S     2.96G, +3.1836 ppl\n"
    "  11  Q3_K_S     3.41G, +1.6321 ppl\n"
    "  12  Q3_K_M     3.74G, +0.6569 ppl\n"
    "  13  Q3_K_L     4.03G, +0.5562 ppl\n"
    "  14  Q4_K_S     4.37G, +0.2689 ppl\n"
    "  15  Q4_K_M     4.58G, +0.1754 ppl\n"
    "  16  Q5_K_S     5.21G, +0.1049 ppl\n"
    "  17  Q5_K_M     5.33G, +0.0569 ppl\n"
    "  18  Q6_K       6.14G, +0.0217 ppl\n"
    "  24  IQ1_S      1.56 bpw\n"
    "  31  IQ1_M      1.75 bpw\n"
    "  19  IQ2_XXS    2.06 bpw\n"
    "  20  IQ2_XS     2.31 bpw\n"
    "  28  IQ2_S      2.5 bpw\n"
    "  29  IQ2_M      2.7 bpw\n"
    "  23  IQ3_XXS    3.06 bpw\n"
    "  22  IQ3_XS     3.3 bpw\n"
    "  26  IQ3_S      3.44 bpw\n"
    "  27  IQ3_M      3.66 bpw (a mixture)\n"
    "  25  IQ4_NL     4.50 bpw, non-linear\n"
    "  30  IQ4_XS     4.25 bpw, non-linear\n"
    "  36  TQ1_0      1.69 bpw, ternary\n"
    "  37  TQ2_0      2.06 bpw, ternary\n"
    "  38  MXFP4_MOE  MXFP4 for the experts of a MoE\n"
    "  39  NVFP4      NVFP4\n"
    "   1  F16        14.00G, +0.0020 ppl (Mistral-7B)\n"
    "  32  BF16       14.00G, -0.0050 ppl (Mistral-7B)\n"
    "   0  F32        26.00G (a 7B model)\n"
    "      COPY       the tensors copied, none converted\n"
    "(gguf-edit --list presets lists the names.)\n"
    "Q3_K, Q4_K and Q5_K are Q3_K_M, Q4_K_M and Q5_K_M, as llama-quantize takes them.\n"
    "A preset that gives a tensor a type needing an importance matrix (the IQ1 and IQ2 ones,\n"
    "Q2_K_S, ...) is refused without --imatrix, naming the tensor. NTHREADS is the same as\n"
    "--threads.\n",
    .options = options,
    .groups = opt_open_groups,
    .column = 28,
};

/* "requant: MESSAGE", with the preset a mistyped TYPE most likely meant. */
static void bad_type(const char *type, const gguf_error *err) {
    /* the presets first: of two as near, the first is taken (Q4_KM: Q4_K_M, not Q4_K) */
    const char *names[GGUF_REQUANT_FTYPE_COUNT + 4];
    size_t n = 0;
    for (uint32_t t = 0; t < GGUF_REQUANT_FTYPE_COUNT; t++)
        if (gguf_requant_ftype_name(t) != NULL)
            names[n++] = gguf_requant_ftype_name(t);
    names[n++] = "COPY";
    names[n++] = "Q3_K";
    names[n++] = "Q4_K";
    names[n++] = "Q5_K";
    char upper[65];
    size_t k = 0;
    for (; type[k] != '\0' && k < sizeof upper - 1; k++)
        upper[k] = (char)toupper((unsigned char)type[k]);
    upper[k] = '\0';
    const char *s = cli_suggest(upper, names, n);
    cli_errorf("requant: %s%s%s%s", err->message, s ? " (did you mean '" : "", s ? s : "",
               s ? "'?)" : "");
}

/* The operands: FILE TYPE [NTHREADS] (with -o OUT) or FILE OUT TYPE [NTHREADS], told apart as
 * llama-quantize does: by whether the second one is a type. -1: a usage error (said). */
static int take_operands(args *a, const char **in, int n, char **ops) {
    gguf_requant_options probe = GGUF_REQUANT_OPTIONS_INIT;
    gguf_error err;
    gguf_error_clear(&err);
    if (n < 2 || n > 4) {
        cli_errorf(n < 2 ? "requant: give FILE, OUT and TYPE" : "requant: too many arguments");
        return -1;
    }
    *in = ops[0];
    const char *type, *threads = NULL;
    if (gguf_requant_parse_type(&probe, ops[1], NULL) == 0) {
        type = ops[1];
        if (n == 4) {
            cli_errorf("requant: too many arguments");
            return -1;
        }
        threads = n == 3 ? ops[2] : NULL;
    } else if (n == 2) {
        gguf_requant_parse_type(&probe, ops[1], &err);
        bad_type(ops[1], &err);
        return -1;
    } else {
        if (a->out != NULL) {
            cli_errorf("requant: the output is given twice ('%s' and -o %s)", ops[1], a->out);
            return -1;
        }
        a->out = ops[1];
        type = ops[2];
        threads = n == 4 ? ops[3] : NULL;
    }
    if (threads != NULL) {
        if (a->threads >= 0) {
            cli_errorf("requant: NTHREADS and --threads both given");
            return -1;
        }
        if (parse_threads(&a->threads, threads, "NTHREADS") != 0)
            return -1;
    }
    if (gguf_requant_parse_type(&a->ro, type, &err) != 0) {
        bad_type(type, &err);
        return -1;
    }
    a->type_name = type;
    return 0;
}

/* ---- the report: as llama-quantize prints it, a line per tensor then the totals ---- */

static double mib(uint64_t b) {
    return (double)b / 1048576.0;
}

/* For each tensor in the output's order: its number, name, shape and type, then the new type
 * and the size before and after (or its size, kept); then the model's size before and after,
 * with bits per weight. The dry run prints it; a run prints it once the file is written. */
static void print_plan(FILE *out, const gguf_file *f, const gguf_requant_choice *ch) {
    size_t n = gguf_tensor_count(f), shown = 0;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (order == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        order[ch[i].position] = i;
        shown += !ch[i].pruned;
    }
    char b1[24], b2[24];
    uint64_t before = 0, after = 0, elems = 0;
    size_t k_out = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, f, i);
        const char *from = cli_dtype_name(ti.type, b1, sizeof b1);
        if (ch[i].pruned) {
            fprintf(out, "%11s %-36.*s - type = %6s, pruned\n", "", (int)ti.name_len, ti.name,
                    from);
            continue;
        }
        uint64_t nb = ti.nbytes, e = 1;
        if (ch[i].convert && gguf_dtype_nbytes(&nb, ch[i].type, ti.dims, GGUF_MAX_DIMS, NULL) != 0)
            nb = GGUF_NBYTES_UNKNOWN;
        for (int d = 0; d < GGUF_MAX_DIMS; d++)
            e *= ti.dims[d];
        before += ti.nbytes == GGUF_NBYTES_UNKNOWN ? 0 : ti.nbytes;
        after += nb == GGUF_NBYTES_UNKNOWN ? 0 : nb;
        elems += e;
        fprintf(out, "[%4zu/%4zu] %-36s - [", ++k_out, shown, ch[i].name);
        for (int d = 0; d < GGUF_MAX_DIMS; d++)
            fprintf(out, "%s%6" PRIu64, d ? ", " : "", ti.dims[d]);
        fprintf(out, "], type = %6s, ", from);
        if (ch[i].convert)
            fprintf(out, "converting to %s .. size = %8.2f MiB -> %8.2f MiB",
                    cli_dtype_name(ch[i].type, b2, sizeof b2), mib(ti.nbytes), mib(nb));
        else
            fprintf(out, "size = %8.3f MiB (kept)", mib(ti.nbytes));
        fprintf(out, "%s%s", ch[i].fallback ? " (fallback)" : "", ch[i].imatrix ? " (imatrix)" : "");
        if ((size_t)ti.name_len != strlen(ch[i].name) ||
            memcmp(ti.name, ch[i].name, (size_t)ti.name_len) != 0)
            fprintf(out, " (was %.*s)", (int)ti.name_len, ti.name);
        putc('\n', out);
    }
    double bpw = elems ? 8.0 / (double)elems : 0;
    fprintf(out, "model size: %10.2f MiB (%.2f bpw)\n", mib(before), (double)before * bpw);
    fprintf(out, "quant size: %10.2f MiB (%.2f bpw)\n", mib(after), (double)after * bpw);
    free(order);
}

/* The first tensor the plan would requantize from a quantized type: llama.cpp's dry run does
 * not refuse it, but the real run would. */
static void note_requantize(const gguf_file *f, const gguf_requant_choice *ch) {
    size_t n = gguf_tensor_count(f);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < n; i++) {
            gguf_tensor_info ti;
            gguf_tensor_get(&ti, f, i);
            if (ch[i].position != k || !ch[i].convert || gguf_dtype_block_elems(ti.type) <= 1)
                continue;
            char b[24];
            cli_errorf("note: tensor '%s' is quantized already (%s): without "
                       "--allow-requantize, the real run refuses it", ch[i].name,
                       cli_dtype_name(ti.type, b, sizeof b));
            return;
        }
    }
}

/* ---- the run ---- */

static int load_imatrix(gguf_requant_imatrix **im, const args *a) {
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_requant_imatrix_load(im, a->imatrix_path, &err) != 0 ||
        (a->n_weights > 0 &&
         gguf_requant_imatrix_filter(*im, a->weights, a->n_weights, a->exclude, &err) != 0)) {
        cli_report(a->imatrix_path, &err);
        return CLI_BAD;
    }
    return CLI_OK;
}

/* --keep-split: the requantized set written with the input's shards, each file atomically,
 * named from OUT (the new first shard's name, or the prefix; a trailing .gguf dropped). */
static int save_shards(const gguf_file *f, gguf_requant *rq, const char *out,
                       const gguf_write_options *wo, gguf_error *err) {
    size_t plen = strlen(out);
    uint32_t count;
    if (!gguf_split_parse_name(&plen, NULL, &count, out) && plen > 5 &&
        strcmp(out + plen - 5, ".gguf") == 0)
        plen -= 5;
    char *prefix = malloc(plen + 1);
    if (prefix == NULL) {
        cli_errorf("out of memory");
        return -1;
    }
    memcpy(prefix, out, plen);
    prefix[plen] = '\0';
    gguf_split_options so = GGUF_SPLIT_OPTIONS_INIT;
    so.mode = GGUF_SPLIT_BY_SHARD;
    so.quantize_keys = 1;
    so.fill = gguf_requant_fill;
    so.fill_user = rq;
    so.progress = wo->progress;
    so.progress_user = wo->progress_user;
    uint32_t n = 0;
    int rc = gguf_split_save(&n, f, prefix, &so, err);
    if (rc == 0)
        fprintf(stderr, "%s: %u shards\n", prefix, n);
    free(prefix);
    return rc;
}

/* Prepares f and writes it to out; prints the summary with -v. */
static int write_output(gguf_file *f, const gguf_requant_choice *ch, const char *in,
                        const args *a, int keep_split) {
    gguf_error err;
    gguf_error_clear(&err);
    size_t n = gguf_tensor_count(f), converted = 0, fell = 0;
    uint64_t in_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, f, i);
        in_bytes += ti.nbytes == GGUF_NBYTES_UNKNOWN ? 0 : ti.nbytes;
        converted += ch[i].convert != 0;
        fell += ch[i].fallback != 0;
    }
    /* the report is made before prepare changes f, and printed once the file is written */
    char *report = NULL;
    size_t report_len = 0;
    FILE *rep = a->quiet ? NULL : open_memstream(&report, &report_len);
    if (rep != NULL) {
        print_plan(rep, f, ch);
        fclose(rep);
    }
    gguf_requant *rq = NULL;
    double start = cli_now();
    if (gguf_requant_prepare(&rq, f, &a->ro, &err) != 0) {
        cli_report(in, &err);
        free(report);
        return CLI_BAD;
    }
    gguf_write_options wo = GGUF_WRITE_OPTIONS_INIT;
    wo.layout = GGUF_LAYOUT_PACKED;
    wo.fill = gguf_requant_fill;
    wo.fill_user = rq;
    n = gguf_tensor_count(f); /* without pruned tensors */
    cli_progress bar;
    cli_progress_attach(&bar, "requant", f, &wo);
    int rc = CLI_OK;
    if (keep_split ? save_shards(f, rq, a->out, &wo, &err) != 0
                   : gguf_file_save(f, a->out, &wo, &err) != 0) {
        cli_progress_end(&bar);
        /* data problems are the input's; I/O errors name the output */
        cli_report(err.code == GGUF_EIO && (keep_split || strstr(err.message, a->out)) ? a->out
                                                                                     : in,
                   &err);
        rc = CLI_BAD;
    }
    cli_progress_end(&bar);
    gguf_requant_free(rq);
    if (rc == CLI_OK && report != NULL)
        fwrite(report, 1, report_len, stdout);
    free(report);
    if (rc == CLI_OK && a->verbose) {
        uint64_t out_bytes = 0;
        for (size_t i = 0; i < n; i++) {
            gguf_tensor_info ti;
            gguf_tensor_get(&ti, f, i);
            out_bytes += ti.nbytes;
        }
        fprintf(stderr, "%s: %s, %zu tensors (%zu converted, %zu fell back to another type), "
                "tensor data %.2f MiB -> %.2f MiB, %.1f s\n", a->out, a->type_name, n, converted,
                fell, mib(in_bytes), mib(out_bytes), cli_now() - start);
    }
    return rc;
}

/* Refuses one shard of a split model read alone (--one-file): llama.cpp quantizes a set whole,
 * never one shard. */
static int refuse_shard(const gguf_file *f, const char *in) {
    int64_t sc = gguf_kv_find(f, "split.count");
    uint64_t split_count = 1;
    int64_t si;
    int sg;
    if (gguf_file_shard_count(f) == 1 && sc >= 0 &&
        gguf_value_get_int(&split_count, &si, &sg, gguf_kv_value(f, (size_t)sc), NULL) == 0 &&
        split_count > 1) {
        cli_errorf("%s: one shard of a split model (%" PRIu64 " files): requantize the whole set "
                   "(without --one-file)", in, split_count);
        return CLI_BAD;
    }
    return CLI_OK;
}

/* The set's tensors by shard, then by offset in it, as llama-quantize --keep-split has them. */
static const gguf_file *order_of;
static int by_shard_offset(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    uint32_t si = gguf_tensor_shard(order_of, i), sj = gguf_tensor_shard(order_of, j);
    gguf_tensor_info ti, tj;
    gguf_tensor_get(&ti, order_of, i);
    gguf_tensor_get(&tj, order_of, j);
    if (si != sj)
        return si < sj ? -1 : 1;
    if (ti.offset != tj.offset)
        return ti.offset < tj.offset ? -1 : 1;
    return i < j ? -1 : i > j;
}

static int shard_order(gguf_file *f) {
    size_t n = gguf_tensor_count(f);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (order == NULL) {
        cli_errorf("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    order_of = f;
    qsort(order, n, sizeof *order, by_shard_offset);
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_tensor_reorder(f, order, n, &err);
    if (rc != 0)
        cli_report(gguf_file_path(f), &err);
    free(order);
    return rc;
}

static int run(args *a, const char *in, unsigned flags) {
    gguf_requant_imatrix *im = NULL;
    if (a->imatrix_path != NULL) {
        if (load_imatrix(&im, a) != CLI_OK)
            return CLI_BAD;
        a->ro.imatrix = im;
    }
    gguf_file *f = cli_open(in, flags);
    if (f == NULL) {
        gguf_requant_imatrix_free(im);
        return CLI_BAD;
    }
    int rc = refuse_shard(f, in);
    size_t n = gguf_tensor_count(f);
    /* --keep-split: llama.cpp keeps each shard's tensors together, by shard then offset */
    int keep_split = a->keep_split && gguf_file_shard_count(f) > 1;
    if (rc == CLI_OK && keep_split) {
        a->ro.keep_order = 1;
        if (shard_order(f) != 0)
            rc = CLI_BAD;
    }
    gguf_requant_choice *ch = calloc(n ? n : 1, sizeof *ch);
    if (rc == CLI_OK && ch == NULL) {
        cli_errorf("out of memory");
        rc = CLI_BAD;
    }
    /* a dry run lists what a requantization would do, as llama-quantize's does */
    gguf_requant_options plan_opts = a->ro;
    if (a->dry_run)
        plan_opts.allow_requantize = 1;
    gguf_error err;
    gguf_error_clear(&err);
    if (rc == CLI_OK && gguf_requant_plan(ch, f, &plan_opts, &err) != 0) {
        cli_report(in, &err);
        rc = CLI_BAD;
    }
    if (rc == CLI_OK && a->dry_run) {
        print_plan(stdout, f, ch);
        if (!a->ro.allow_requantize)
            note_requantize(f, ch);
    } else if (rc == CLI_OK) {
        rc = write_output(f, ch, in, a, keep_split);
    }
    free(ch);
    gguf_file_free(f);
    gguf_requant_imatrix_free(im);
    return rc;
}

static int requant_run(int argc, char **argv) {
    args a = {.ro = GGUF_REQUANT_OPTIONS_INIT, .threads = -1};
    unsigned flags = CLI_READ_FLAGS;
    int status = opt_parse(&cmd_requant, argc, argv, &a, &flags);
    if (status >= 0) {
        args_free(&a);
        return status;
    }
    int bad = 0;
    const char *in = NULL;
    if (!bad)
        bad = take_operands(&a, &in, argc - optind, argv + optind) != 0;
    if (!bad && a.out == NULL && !a.dry_run) {
        cli_errorf("requant: give the output file (FILE OUT TYPE, or -o OUT)");
        bad = 1;
    }
    if (!bad && a.include && a.exclude) {
        cli_errorf("requant: --include-weights and --exclude-weights exclude each other");
        bad = 1;
    }
    if (bad) {
        args_free(&a);
        return cli_usage_error(cmd_requant.synopsis, NULL); /* the reason is printed already */
    }
    if (a.pure)
        a.ro.pure = 1;
    if (a.threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        a.threads = n > 0 ? n : 1;
    }
    a.ro.threads = (unsigned)a.threads;
    a.ro.overrides = a.tt;
    a.ro.n_overrides = a.n_tt;
    a.ro.kv_overrides = a.kv;
    a.ro.n_kv_overrides = a.n_kv;
    a.ro.prune_layers = a.prune;
    a.ro.n_prune_layers = a.n_prune;
    int rc = run(&a, in, flags);
    args_free(&a);
    return rc;
}
