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

static const char split_usage[] =
    "usage: gguf-edit split IN OUTPREFIX [--max-tensors N | --max-size N(M|G)]\n"
    "                       [--no-tensor-first-split] [--dry-run]\n"
    "Writes IN (a file, or any shard of a split set) as the split set\n"
    "OUTPREFIX-00001-of-0000N.gguf ..., the same bytes as llama-gguf-split --split. Existing\n"
    "files of those names are replaced atomically, never a file of IN's set.\n"
    "  --max-tensors N         at most N tensors per shard (default 128)\n"
    "  --max-size N(M|G)       at most N megabytes (10^6) or gigabytes (10^9) of tensor data\n"
    "                          per shard\n"
    "  --no-tensor-first-split the first shard holds the metadata only\n"
    "  --dry-run               print the plan, write nothing\n" CLI_OPEN_HELP;

static const char merge_usage[] =
    "usage: gguf-edit merge SHARD OUT [--delete-splits] [--dry-run]\n"
    "Merges the split set SHARD belongs to (any of its shards) into OUT, the same bytes as\n"
    "llama-gguf-split --merge. An existing OUT is replaced atomically (never a shard of\n"
    "the set), except with --delete-splits, which refuses it (an OUT there is the merge's own\n"
    "work, which a rerun finishes).\n"
    "  --delete-splits    delete the shards as they are merged: extra disk of one shard, and a\n"
    "                     crash leaves the model whole (in shards or merged); run the same\n"
    "                     command again to finish an interrupted merge\n"
    "  --dry-run          print what would be merged, write nothing\n" CLI_OPEN_HELP;

enum { OPT_MAX_TENSORS = 2000, OPT_MAX_SIZE, OPT_NO_TENSOR_FIRST, OPT_DRY_RUN, OPT_DELETE };

/* "N" followed by M (10^6) or G (10^9), as llama-gguf-split reads --split-max-size. */
static int parse_size(uint64_t *out, const char *s) {
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    uint64_t unit = *end == 'M' ? 1000000u : *end == 'G' ? 1000000000u : 0;
    if (s[0] < '0' || s[0] > '9' || unit == 0 || end[1] != '\0' || n == 0 ||
        n > UINT64_MAX / unit)
        return -1;
    *out = n * unit;
    return 0;
}

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

int cmd_split(int argc, char **argv) {
    static const struct option longopts[] = {
        {"max-tensors", required_argument, NULL, OPT_MAX_TENSORS},
        {"split-max-tensors", required_argument, NULL, OPT_MAX_TENSORS},
        {"max-size", required_argument, NULL, OPT_MAX_SIZE},
        {"split-max-size", required_argument, NULL, OPT_MAX_SIZE},
        {"no-tensor-first-split", no_argument, NULL, OPT_NO_TENSOR_FIRST},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN}, {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int status = CLI_OK, c, dry_run = 0, by_tensors = 0, by_size = 0;
    gguf_split_options opt = GGUF_SPLIT_OPTIONS_INIT;
    char *end;
    while ((c = cli_getopt(argc, argv, "h", longopts, split_usage, &flags, &status)) >= 0) {
        switch (c) {
        case OPT_MAX_TENSORS:
            opt.max_tensors = strtoull(optarg, &end, 10);
            if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || opt.max_tensors == 0) {
                return cli_usage_error(split_usage,
                                       "--max-tensors takes a number of at least 1, not '%s'",
                                       optarg);
            }
            by_tensors = 1;
            break;
        case OPT_MAX_SIZE:
            if (parse_size(&opt.max_bytes, optarg) != 0) {
                return cli_usage_error(split_usage,
                                       "--max-size takes N followed by M (megabytes) or G "
                                       "(gigabytes), like 500M or 4G, not '%s'", optarg);
            }
            opt.mode = GGUF_SPLIT_BY_SIZE;
            by_size = 1;
            break;
        case OPT_NO_TENSOR_FIRST: opt.no_tensor_first = 1; break;
        case OPT_DRY_RUN: dry_run = 1; break;
        }
    }
    if (c == CLI_DONE)
        return status;
    if (by_tensors && by_size) {
        return cli_usage_error(split_usage, "--max-tensors or --max-size, not both");
    }
    if (cli_operands(argc, 2, split_usage) != 0)
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

int cmd_merge(int argc, char **argv) {
    static const struct option longopts[] = {
        {"delete-splits", no_argument, NULL, OPT_DELETE},
        {"dry-run", no_argument, NULL, OPT_DRY_RUN}, {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int status = CLI_OK, c, dry_run = 0, delete_splits = 0;
    while ((c = cli_getopt(argc, argv, "h", longopts, merge_usage, &flags, &status)) >= 0) {
        dry_run |= c == OPT_DRY_RUN;
        delete_splits |= c == OPT_DELETE;
    }
    if (c == CLI_DONE)
        return status;
    if (cli_operands(argc, 2, merge_usage) != 0)
        return CLI_USAGE;
    if (!(flags & GGUF_OPEN_SPLIT_SET))
        return cli_usage_error(merge_usage, "--one-file: a merge reads the whole split set");
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
