/* gguf-edit split and merge: a model written as a split set, and a split set merged into one
 * file, byte for byte as llama.cpp's llama-gguf-split does; the merge can delete the shards as
 * it goes, with the disk use of one shard and safely (a rerun finishes an interrupted one). */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct split_values {
    gguf_split_options opt;
    int by_tensors, by_size, dry_run, delete_splits;
} split_values;

static int take_max_tensors(const opt_spec *o, const char *arg, void *values) {
    split_values *v = values;
    (void)o;
    v->by_tensors = 1;
    return opt_parse_count(&v->opt.max_tensors, arg, "--max-tensors", 1, UINT64_MAX, NULL);
}

/* N followed by M (10^6) or G (10^9), as llama-gguf-split reads --split-max-size */
static int take_max_size(const opt_spec *o, const char *arg, void *values) {
    split_values *v = values;
    (void)o;
    v->by_size = 1;
    v->opt.mode = GGUF_SPLIT_BY_SIZE;
    return opt_parse_size(&v->opt.max_bytes, arg, "--max-size", 1, UINT64_MAX, OPT_SIZE_DECIMAL);
}

static const opt_spec split_options[] = {
    OPT_HANDLER_("max-tensors", 0, "N", "at most N tensors per shard (default 128)",
                 take_max_tensors, 0),
    OPT_HANDLER_("split-max-tensors", 0, "N", NULL, take_max_tensors, 0),
    OPT_HANDLER_("max-size", 0, "N(M|G)",
                 "at most N megabytes (10^6) or gigabytes (10^9) of tensor data\nper shard",
                 take_max_size, 0),
    OPT_HANDLER_("split-max-size", 0, "N(M|G)", NULL, take_max_size, 0),
    OPT_FLAG_("no-tensor-first-split", 0, "the first shard holds the metadata only", split_values,
              opt.no_tensor_first, 1),
    OPT_FLAG_("dry-run", 0, "print the plan, write nothing", split_values, dry_run, 1),
    {0}};

static const opt_spec merge_options[] = {
    OPT_FLAG_("delete-splits", 0,
              "delete the shards as they are merged: extra disk of one shard, and a\n"
              "crash leaves the model whole (in shards or merged); run the same\n"
              "command again to finish an interrupted merge",
              split_values, delete_splits, 1),
    OPT_FLAG_("dry-run", 0, "print what would be merged, write nothing", split_values, dry_run,
              1),
    {0}};

static int split_run(int argc, char **argv);
static int merge_run(int argc, char **argv);

const opt_command cmd_split = {
    .name = "split",
    .run = split_run,
    .line = "split IN OUTPREFIX [--max-size N]     write a split set (= llama-gguf-split)",
    .synopsis = "usage: gguf-edit split IN OUTPREFIX [--max-tensors N | --max-size N(M|G)]\n"
                "                       [--no-tensor-first-split] [--dry-run]\n",
    .summary =
    "Writes IN (a file, or any shard of a split set) as the split set\n"
    "OUTPREFIX-00001-of-0000N.gguf ..., the same bytes as llama-gguf-split --split. Existing\n"
    "files of those names are replaced atomically, never a file of IN's set.\n",
    .options = split_options,
    .groups = opt_open_groups,
    .column = 26,
};

const opt_command cmd_merge = {
    .name = "merge",
    .run = merge_run,
    .line = "merge SHARD OUT [--delete-splits]     merge a split set into one file (= llama-gguf-split)",
    .synopsis = "usage: gguf-edit merge SHARD OUT [--delete-splits] [--dry-run]\n",
    .summary =
    "Merges the split set SHARD belongs to (any of its shards) into OUT, the same bytes as\n"
    "llama-gguf-split --merge. An existing OUT is replaced atomically (never a shard of\n"
    "the set), except with --delete-splits, which refuses it (an OUT there is the merge's own\n"
    "work, which a rerun finishes).\n",
    .options = merge_options,
    .groups = opt_open_groups,
};

static int dry_run_split(const gguf_file *f, const char *prefix, const gguf_split_options *opt) {
    size_t n = gguf_tensor_count(f);
    uint32_t *shard_of = malloc((n ? n : 1) * sizeof *shard_of);
    uint32_t count = 0;
    gguf_error err;
    gguf_error_clear(&err);
    if (shard_of == NULL) {
        cli_errorf("out of memory");
        return CLI_BAD;
    }
    if (gguf_split_plan(shard_of, &count, f, opt, &err) != 0) {
        cli_report(prefix, &err);
        free(shard_of);
        return CLI_BAD;
    }
    size_t size = strlen(prefix) + 32;
    char *name = malloc(size);
    for (uint32_t k = 0; name != NULL && k < count; k++) {
        size_t tensors = 0;
        uint64_t bytes = 0;
        for (size_t i = 0; i < n; i++) {
            if (shard_of[i] != k)
                continue;
            gguf_tensor_info t;
            gguf_tensor_get(&t, f, i);
            tensors++;
            bytes += (t.nbytes + 31) / 32 * 32;
        }
        gguf_split_name(name, size, prefix, k, count);
        printf("%s: %zu tensors, %" PRIu64 " bytes of tensor data\n", name, tensors, bytes);
    }
    printf("%u shards, %zu tensors\n", count, n);
    free(name);
    free(shard_of);
    return CLI_OK;
}

static int split_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS;
    split_values v = {.opt = GGUF_SPLIT_OPTIONS_INIT};
    int status = opt_parse(&cmd_split, argc, argv, &v, &flags);
    if (status >= 0)
        return status;
    int dry_run = v.dry_run, by_tensors = v.by_tensors, by_size = v.by_size;
    gguf_split_options opt = v.opt;
    if (by_tensors && by_size) {
        return cli_usage_error(cmd_split.synopsis, "--max-tensors or --max-size, not both");
    }
    if (cli_operands(argc, 2, cmd_split.synopsis) != 0)
        return CLI_USAGE;
    const char *in = argv[optind], *prefix = argv[optind + 1];
    gguf_file *f = cli_open(in, flags);
    if (f == NULL)
        return CLI_BAD;
    int rc;
    if (dry_run) {
        rc = dry_run_split(f, prefix, &opt);
    } else {
        cli_progress bar;
        opt.progress = cli_progress_fn(&bar, "split", f);
        opt.progress_user = &bar;
        gguf_error err;
        gguf_error_clear(&err);
        uint32_t n = 0;
        rc = gguf_split_save(&n, f, prefix, &opt, &err) == 0 ? CLI_OK : CLI_BAD;
        cli_progress_end(&bar);
        if (rc != CLI_OK)
            cli_report(prefix, &err);
        else
            fprintf(stderr, "%s: %u shards, %zu tensors\n", prefix, n, gguf_tensor_count(f));
    }
    gguf_file_free(f);
    return rc;
}

static int merge_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS;
    split_values v = {.opt = GGUF_SPLIT_OPTIONS_INIT};
    int status = opt_parse(&cmd_merge, argc, argv, &v, &flags);
    if (status >= 0)
        return status;
    int dry_run = v.dry_run, delete_splits = v.delete_splits;
    if (cli_operands(argc, 2, cmd_merge.synopsis) != 0)
        return CLI_USAGE;
    if (!(flags & GGUF_OPEN_SPLIT_SET))
        return cli_usage_error(cmd_merge.synopsis, "--one-file: a merge reads the whole split set");
    const char *in = argv[optind], *out = argv[optind + 1];
    gguf_error err;
    gguf_error_clear(&err);
    cli_progress bar;
    if (delete_splits && !dry_run) {
        /* the files say how far an earlier run got: the set is not opened whole here */
        gguf_split_merge_result res;
        int rc = gguf_split_merge_delete(&res, in, out, cli_progress_fn(&bar, "merge", NULL),
                                         &bar, &err);
        cli_progress_end(&bar);
        if (rc != 0) {
            cli_report(in, &err);
            return CLI_BAD;
        }
        fprintf(stderr, "%s: merged %u shards%s; the shards are deleted\n", out, res.shards,
                res.resumed ? " (an interrupted merge, finished)" : "");
        return CLI_OK;
    }
    gguf_file *f = cli_open(in, flags);
    if (f == NULL)
        return CLI_BAD;
    int rc = CLI_OK;
    if (dry_run) {
        for (size_t k = 0; k < gguf_file_shard_count(f); k++) {
            const gguf_file *s = gguf_file_shard(f, k);
            printf("%s: %zu tensors\n", gguf_file_path(s), gguf_tensor_count(s));
        }
        printf("-> %s: %zu tensors\n", out, gguf_tensor_count(f));
    } else {
        int failed = gguf_split_merge_save(f, out, cli_progress_fn(&bar, "merge", f), &bar, &err);
        cli_progress_end(&bar);
        if (failed) {
            cli_report(in, &err);
            rc = CLI_BAD;
        }
    }
    gguf_file_free(f);
    return rc;
}
