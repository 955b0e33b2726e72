/* gguf-edit requant: requantize a model to a llama.cpp preset (Q4_K_M, Q8_0, ...) or a plain
 * tensor type, choosing each tensor's type as llama.cpp's quantizer does and converting the
 * data as the output is written (streamed, on several threads). The input is never modified
 * unless OUT is FILE itself, which is then replaced atomically. */
#define _GNU_SOURCE
#include "cli.h"
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
    "usage: gguf-edit requant FILE TYPE -o OUT [OPTIONS]\n"
    "Requantizes FILE to TYPE the way llama.cpp's quantizer does: each tensor gets the type\n"
    "llama-quantize would give it (1-D tensors and norms stay, Q4_K_M keeps half of attn_v and\n"
    "ffn_down at Q6_K, ...), its values are dequantized to f32 and quantized again, and the\n"
    "metadata is llama.cpp's (general.file_type, general.quantization_version).\n"
    "TYPE is a preset:\n"
    "  Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q2_K_S Q3_K_S Q3_K_M Q3_K_L Q4_K_S Q4_K_M Q5_K_S Q5_K_M\n"
    "  Q6_K IQ4_NL IQ4_XS TQ1_0 TQ2_0 MXFP4_MOE F16 BF16 F32 COPY, and (with --imatrix)\n"
    "  IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ1_S IQ1_M IQ3_XXS IQ3_XS IQ3_S IQ3_M\n"
    "or a tensor type name (Q4_K, Q5_K, Q3_K, MXFP4, ...): every tensor a preset would\n"
    "quantize gets that type.\n"
    "  -o, --output OUT          where to write (required; written atomically)\n"
    "  --threads N               threads converting data (default: one per CPU)\n"
    "  --tensor-type REGEX=TYPE  tensors whose name matches REGEX (POSIX extended, lower-cased as\n"
    "                            llama-quantize does) get TYPE; the first match wins; repeatable\n"
    "  --tensor-type-file PATH   REGEX=TYPE pairs from a file, separated by blanks or lines\n"
    "  --pure                    no mixture: every quantizable tensor gets TYPE's type\n"
    "  --imatrix FILE            importance matrix (llama-imatrix output, GGUF or legacy)\n"
    "  --output-tensor-type T    type of output.weight\n"
    "  --token-embedding-type T  type of the token embeddings\n"
    "  --leave-output-tensor     output.weight keeps its type\n"
    "  --keep-order              keep the source's tensor order (default: llama.cpp's, by layer\n"
    "                            then name, which makes the file identical to llama-quantize's)\n"
    "  --dry-run                 print each tensor's type change and write nothing\n"
    "  --keep-split              a split model stays a split set with the same shards, as\n"
    "                            llama-quantize --keep-split writes it (OUT names the first\n"
    "                            shard, PREFIX-00001-of-0000N.gguf, or the prefix)\n"
    "FILE may be any shard of a split set: the whole set is requantized (into one file, or\n"
    "with --keep-split into a set).\n"
    "  -v, --verbose             print a summary\n" CLI_OPEN_HELP;

enum {
    OPT_THREADS = 2000, OPT_TENSOR_TYPE, OPT_TENSOR_TYPE_FILE, OPT_PURE, OPT_IMATRIX,
    OPT_OUTPUT_TYPE, OPT_TOKEN_TYPE, OPT_LEAVE_OUTPUT, OPT_KEEP_ORDER, OPT_DRY_RUN, OPT_KEEP_SPLIT
};

typedef struct overrides {
    gguf_requant_override *o;
    size_t n, cap;
} overrides;

static void overrides_free(overrides *ov) {
    for (size_t i = 0; i < ov->n; i++)
        free((char *)ov->o[i].pattern);
    free(ov->o);
}

/* REGEX=TYPE, the pattern lower-cased as llama-quantize does. */
static int add_override(overrides *ov, const char *arg) {
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
    if (ov->n == ov->cap) {
        size_t cap = ov->cap ? ov->cap * 2 : 8;
        gguf_requant_override *p = realloc(ov->o, cap * sizeof *p);
        if (p == NULL) {
            cli_errorf("out of memory");
            return -1;
        }
        ov->o = p;
        ov->cap = cap;
    }
    size_t n = (size_t)(eq - arg);
    char *pat = malloc(n + 1);
    if (pat == NULL) {
        cli_errorf("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        pat[i] = (char)tolower((unsigned char)arg[i]);
    pat[n] = '\0';
    ov->o[ov->n++] = (gguf_requant_override){pat, (uint32_t)type};
    return 0;
}

static int add_override_file(overrides *ov, const char *path) {
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        cli_errorf("%s: %s", path, strerror(errno));
        return -1;
    }
    char word[4096];
    int rc = 0;
    while (rc == 0 && fscanf(fp, "%4095s", word) == 1)
        rc = add_override(ov, word);
    fclose(fp);
    return rc;
}

static int parse_dtype_arg(const char *opt, const char *arg) {
    int t = gguf_dtype_parse(arg);
    if (t < 0)
        cli_errorf("%s: unknown tensor type '%s'", opt, arg);
    return t;
}

/* ---- progress on a terminal: tensors and bytes ---- */

typedef struct progress_state {
    const gguf_file *f;
    uint64_t *ends;   /* cumulative sizes of the output tensors */
    size_t n;
    int last_permille;
    double start;
    int shown;
} progress_state;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void show_progress(void *user, uint64_t done, uint64_t total) {
    progress_state *ps = user;
    int permille = total ? (int)(done * 1000 / total) : 1000;
    if (permille == ps->last_permille)
        return;
    ps->last_permille = permille;
    size_t t = 0;
    while (t < ps->n && ps->ends[t] <= done)
        t++;
    char bar[31];
    int fill = permille * 30 / 1000;
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : ' ';
    bar[30] = '\0';
    double el = now_s() - ps->start;
    fprintf(stderr, "\rrequant [%s] %3d%%  tensor %zu/%zu  %.1f/%.1f MiB  %.0fs ", bar,
            permille / 10, t < ps->n ? t + 1 : ps->n, ps->n, done / 1048576.0, total / 1048576.0,
            el);
    fflush(stderr);
    ps->shown = 1;
}

/* ---- --dry-run ---- */

static void print_plan(const gguf_file *f, const gguf_requant_choice *ch) {
    size_t n = gguf_tensor_count(f);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (order == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        order[ch[i].position] = i;
    char b1[24], b2[24];
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k];
        gguf_tensor_info ti;
        gguf_tensor_get(&ti, f, i);
        printf("%-40.*s %-8s -> %-8s%s%s%s\n", (int)ti.name_len, ti.name,
               cli_dtype_name(ti.type, b1, sizeof b1), cli_dtype_name(ch[i].type, b2, sizeof b2),
               ch[i].convert ? "" : "  (kept)", ch[i].fallback ? "  (fallback)" : "",
               ch[i].imatrix ? "  (imatrix)" : "");
    }
    free(order);
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

int cmd_requant(int argc, char **argv) {
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"verbose", no_argument, NULL, 'v'},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"tensor-type", required_argument, NULL, OPT_TENSOR_TYPE},
        {"tensor-type-file", required_argument, NULL, OPT_TENSOR_TYPE_FILE},
        {"pure", no_argument, NULL, OPT_PURE},
        {"imatrix", required_argument, NULL, OPT_IMATRIX},
        {"output-tensor-type", required_argument, NULL, OPT_OUTPUT_TYPE},
        {"token-embedding-type", required_argument, NULL, OPT_TOKEN_TYPE},
        {"leave-output-tensor", no_argument, NULL, OPT_LEAVE_OUTPUT},
        {"keep-order", no_argument, NULL, OPT_KEEP_ORDER},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN},
        {"keep-split", no_argument, NULL, OPT_KEEP_SPLIT},
        CLI_OPEN_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    gguf_requant_options ro = GGUF_REQUANT_OPTIONS_INIT;
    overrides ov = {0};
    const char *out = NULL, *imatrix_path = NULL;
    unsigned flags = CLI_READ_FLAGS;
    long threads = 0;
    int verbose = 0, dry_run = 0, pure = 0, keep_split = 0, bad = 0, c;
    char *end;
    while (!bad && (c = getopt_long(argc, argv, "ho:v", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            overrides_free(&ov);
            return CLI_OK;
        case 'o': out = optarg; break;
        case 'v': verbose = 1; break;
        case OPT_THREADS:
            threads = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || threads < 0 || threads > 256) {
                cli_errorf("--threads takes a number from 0 to 256, not '%s'", optarg);
                bad = 1;
            }
            break;
        case OPT_TENSOR_TYPE: bad = add_override(&ov, optarg) != 0; break;
        case OPT_TENSOR_TYPE_FILE: bad = add_override_file(&ov, optarg) != 0; break;
        case OPT_PURE: pure = 1; break;
        case OPT_IMATRIX: imatrix_path = optarg; break;
        case OPT_OUTPUT_TYPE:
            bad = (ro.output_type = parse_dtype_arg("--output-tensor-type", optarg)) < 0;
            break;
        case OPT_TOKEN_TYPE:
            bad = (ro.token_embd_type = parse_dtype_arg("--token-embedding-type", optarg)) < 0;
            break;
        case OPT_LEAVE_OUTPUT: ro.leave_output = 1; break;
        case OPT_KEEP_ORDER: ro.keep_order = 1; break;
        case OPT_DRY_RUN: dry_run = 1; break;
        case OPT_KEEP_SPLIT: keep_split = 1; break;
        default: bad = cli_open_option(c, optarg, &flags) <= 0; break;
        }
    }
    gguf_error err;
    gguf_error_clear(&err);
    if (!bad && optind + 2 != argc) {
        cli_errorf(optind + 2 > argc ? "requant: give FILE and TYPE" : "requant: too many arguments");
        bad = 1;
    }
    if (!bad && gguf_requant_parse_type(&ro, argv[optind + 1], &err) != 0) {
        cli_errorf("requant: %s (see 'gguf-edit requant --help')", err.message);
        bad = 1;
    }
    if (!bad && out == NULL && !dry_run) {
        cli_errorf("requant: give the output file with -o OUT");
        bad = 1;
    }
    if (bad) {
        overrides_free(&ov);
        fputs(usage_text, stderr);
        return CLI_USAGE;
    }
    if (pure)
        ro.pure = 1;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? n : 1;
    }
    ro.threads = (unsigned)threads;
    ro.overrides = ov.o;
    ro.n_overrides = ov.n;

    const char *in = argv[optind];
    int rc = CLI_OK;
    gguf_requant_imatrix *im = NULL;
    if (imatrix_path != NULL) {
        if (gguf_requant_imatrix_load(&im, imatrix_path, &err) != 0) {
            cli_report(imatrix_path, &err);
            overrides_free(&ov);
            return CLI_BAD;
        }
        ro.imatrix = im;
    }
    gguf_file *f = cli_open(in, flags);
    if (f == NULL) {
        gguf_requant_imatrix_free(im);
        overrides_free(&ov);
        return CLI_BAD;
    }
    int64_t sc = gguf_kv_find(f, "split.count");
    uint64_t split_count = 1;
    int64_t si;
    int sg;
    if (gguf_file_shard_count(f) == 1 && sc >= 0 &&
        gguf_value_get_int(&split_count, &si, &sg, gguf_kv_value(f, (size_t)sc), NULL) == 0 &&
        split_count > 1) {
        /* --one-file on a shard: llama.cpp quantizes a set whole, never one shard */
        cli_errorf("%s: one shard of a split model (%" PRIu64 " files): requantize the whole set "
                   "(without --one-file)", in, split_count);
        rc = CLI_BAD;
    }
    size_t n = gguf_tensor_count(f);
    /* --keep-split: llama.cpp keeps each shard's tensors together, by shard then offset */
    keep_split = keep_split && gguf_file_shard_count(f) > 1;
    if (rc == CLI_OK && keep_split) {
        ro.keep_order = 1;
        if (shard_order(f) != 0)
            rc = CLI_BAD;
    }
    gguf_requant_choice *ch = calloc(n ? n : 1, sizeof *ch);
    if (rc == CLI_OK && ch == NULL) {
        cli_errorf("out of memory");
        rc = CLI_BAD;
    }
    if (rc == CLI_OK && gguf_requant_plan(ch, f, &ro, &err) != 0) {
        cli_report(in, &err);
        rc = CLI_BAD;
    }
    if (rc == CLI_OK && dry_run) {
        print_plan(f, ch);
    } else if (rc == CLI_OK) {
        uint64_t in_bytes = 0;
        size_t converted = 0;
        for (size_t i = 0; i < n; i++) {
            gguf_tensor_info ti;
            gguf_tensor_get(&ti, f, i);
            in_bytes += ti.nbytes == UINT64_MAX ? 0 : ti.nbytes;
            converted += ch[i].convert != 0;
        }
        gguf_requant *rq = NULL;
        progress_state ps = {.f = f, .n = n, .last_permille = -1, .start = now_s()};
        if (gguf_requant_prepare(&rq, f, &ro, &err) != 0) {
            cli_report(in, &err);
            rc = CLI_BAD;
        }
        gguf_write_options wo = {
            .version = 0,
            .endian = -1,
            .layout = GGUF_LAYOUT_PACKED,
            .fill = gguf_requant_fill,
            .fill_user = rq,
        };
        if (rc == CLI_OK && isatty(STDERR_FILENO)) {
            ps.ends = malloc((n ? n : 1) * sizeof *ps.ends);
            uint64_t sum = 0;
            for (size_t i = 0; ps.ends && i < n; i++) {
                gguf_tensor_info ti;
                gguf_tensor_get(&ti, f, i);
                sum += ti.nbytes;
                ps.ends[i] = sum;
            }
            if (ps.ends) {
                wo.progress = show_progress;
                wo.progress_user = &ps;
            }
        }
        if (rc == CLI_OK && keep_split) {
            if (save_shards(f, rq, out, &wo, &err) != 0) {
                if (ps.shown)
                    fputc('\n', stderr);
                ps.shown = 0;
                cli_report(err.code == GGUF_EIO ? out : in, &err);
                rc = CLI_BAD;
            }
        } else if (rc == CLI_OK && gguf_file_save(f, out, &wo, &err) != 0) {
            if (ps.shown)
                fputc('\n', stderr);
            ps.shown = 0;
            /* data problems are the input's; I/O errors name the output */
            cli_report(err.code == GGUF_EIO && strstr(err.message, out) ? out : in, &err);
            rc = CLI_BAD;
        }
        if (ps.shown)
            fputc('\n', stderr);
        free(ps.ends);
        gguf_requant_free(rq);
        if (rc == CLI_OK && verbose) {
            uint64_t out_bytes = 0;
            for (size_t i = 0; i < n; i++) {
                gguf_tensor_info ti;
                gguf_tensor_get(&ti, f, i);
                out_bytes += ti.nbytes;
            }
            size_t fell = 0;
            for (size_t i = 0; i < n; i++)
                fell += ch[i].fallback != 0;
            fprintf(stderr, "%s: %s, %zu tensors (%zu converted, %zu fell back to another type), "
                    "tensor data %.2f MiB -> %.2f MiB, %.1f s\n", out, argv[optind + 1], n,
                    converted, fell, in_bytes / 1048576.0, out_bytes / 1048576.0,
                    now_s() - ps.start);
        }
    }
    free(ch);
    gguf_file_free(f);
    gguf_requant_imatrix_free(im);
    overrides_free(&ov);
    return rc;
}
