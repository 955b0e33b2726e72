/* gguf-edit convert: change a file's byte order (tensor data included, for every tensor type)
 * and/or its version (v1 -> v2/v3, v3 -> v2). The output is written atomically; the input is
 * never modified, so an interrupted conversion leaves both files intact. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct convert_values {
    const char *out;
    int verbose, endian;
    unsigned version;
    uint64_t threads;
} convert_values;

static int take_version(const opt_spec *o, const char *arg, void *values) {
    convert_values *v = values;
    (void)o;
    if (strcmp(arg, "2") != 0 && strcmp(arg, "3") != 0) {
        opt_error("--version takes 2 or 3, not '%s' (version 1 is only read)", arg);
        return -1;
    }
    v->version = (unsigned)(arg[0] - '0');
    return 0;
}

/* --endian's index: GGUF_ENDIAN_BIG, GGUF_ENDIAN_LITTLE */
static const char *const endians[] = {"big", "little", NULL};
static const char *const input_endians[] = {"little", "big", NULL};

static const opt_spec options[] = {
    OPT_STRING_("output", 'o', "OUT",
                "where to write (or OUT after FILE; an existing OUT is replaced\n"
                "atomically, never FILE itself)",
                convert_values, out),
    OPT_CHOICE_("endian", "ORDER", "byte order of OUT: 'big' or 'little' (default: FILE's)",
                convert_values, endian, endians),
    OPT_HANDLER_("version", 0, "V",
                 "GGUF version of OUT: 2 or 3 (default: FILE's; big-endian needs 3)",
                 take_version, 0),
    OPT_COUNT_("threads", 0, "N", "threads converting tensor data (default 0: one per CPU)",
               convert_values, threads, 0, 1024),
    OPT_FLAG_("verbose", 'v', "say what was written, with how many threads and how fast",
              convert_values, verbose, 1),
    {.kind = OPT_OPEN, .name = "input-endian", .arg = "ORDER",
     .help = "read FILE as 'little' or 'big' endian instead of detecting it",
     .value = CLI_OPT_ENDIAN, .choices = input_endians},
    OPT_OPEN_("lenient", NULL, "accept duplicate keys and tensor names", CLI_OPT_LENIENT),
    OPT_OPEN_("unknown-types", NULL,
              "open files with unknown tensor types (they cannot change byte\n"
              "order, but can change version)",
              CLI_OPT_UNKNOWN_TYPES),
    OPT_OPEN_("no-mmap", NULL, "read FILE into memory instead of mapping it", CLI_OPT_NO_MMAP),
    OPT_TEXT_("A shard of a split set converts the whole set, shard by shard (each written "
              "atomically),\nto OUT's set: OUT names its first shard (PREFIX-00001-of-0000N.gguf) "
              "or its prefix."),
    OPT_OPEN_("one-file", NULL, "convert this one file of a split set alone", CLI_OPT_ONE_FILE),
    {0}};

static int convert_run(int argc, char **argv);

const opt_command cmd_convert = {
    .name = "convert",
    .run = convert_run,
    .line = "convert FILE -o OUT [--endian E]      change byte order (tensor data too) or version",
    .synopsis =
    "usage: gguf-edit convert FILE OUT [--endian big|little] [--version 2|3] [OPTIONS]\n"
    "       gguf-edit convert FILE -o OUT [--endian big|little] [--version 2|3] [OPTIONS]\n",
    .summary =
    "Writes FILE to OUT in another byte order and/or GGUF version. Metadata, tensor infos and\n"
    "every tensor's blocks are converted (each type by its own recipe: which fields are 16-, 32-\n"
    "or 64-bit numbers); the layout, padding and bytes between tensors are kept.\n",
    .options = options,
    .column = 25,
};

/* A split set: each shard converted to its own file (each written atomically), named
 * OUTPREFIX-0000k-of-0000N.gguf, where OUT is the new first shard's name or the prefix (a
 * trailing .gguf dropped). */
static int convert_set(const gguf_file *set, const char *in, const char *out,
                       const gguf_write_options *opt) {
    uint32_t n = (uint32_t)gguf_file_shard_count(set), count;
    size_t plen = strlen(out);
    if (gguf_split_parse_name(&plen, NULL, &count, out) && count != n) {
        cli_errorf("convert: %s names a set of %u shards; %s is one of %u", out, count, in, n);
        return CLI_USAGE;
    }
    if (plen == strlen(out) && plen > 5 && strcmp(out + plen - 5, ".gguf") == 0)
        plen -= 5;
    char *prefix = malloc(plen + 1), *name = malloc(plen + 32);
    if (prefix == NULL || name == NULL) {
        free(prefix);
        free(name);
        cli_errorf("out of memory");
        return CLI_BAD;
    }
    memcpy(prefix, out, plen);
    prefix[plen] = '\0';
    int rc = CLI_OK;
    gguf_error err;
    gguf_error_clear(&err);
    /* every name first: none may be a shard of the input */
    for (uint32_t k = 0; rc == CLI_OK && k < n; k++) {
        gguf_split_name(name, plen + 32, prefix, k, n);
        if (gguf_output_check(name, set, &err) != 0) {
            cli_report(name, &err);
            rc = CLI_BAD;
        }
    }
    for (uint32_t k = 0; rc == CLI_OK && k < n; k++) {
        const gguf_file *s = gguf_file_shard(set, k);
        gguf_split_name(name, plen + 32, prefix, k, n);
        if (gguf_file_save(s, name, opt, &err) != 0) {
            cli_report(err.code == GGUF_EUNSUPPORTED && err.offset != GGUF_ERROR_NO_OFFSET
                           ? gguf_file_path(s) : name, &err);
            rc = CLI_BAD;
        }
    }
    if (rc == CLI_OK)
        fprintf(stderr, "%s: %u shards converted\n", prefix, n);
    free(prefix);
    free(name);
    return rc;
}

static int convert_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS;
    convert_values v = {NULL, 0, -1, 0, 0};
    int status = opt_parse(&cmd_convert, argc, argv, &v, &flags);
    if (status >= 0)
        return status;
    const char *out = v.out;
    int endian = v.endian < 0 ? -1 : v.endian == 0 ? GGUF_ENDIAN_BIG : GGUF_ENDIAN_LITTLE;
    int verbose = v.verbose;
    unsigned version = v.version;
    long threads = (long)v.threads;
    if (out != NULL && argc - optind == 2)
        return cli_usage_error(cmd_convert.synopsis, "the output is given twice (OUT and -o)");
    if (cli_operands(argc, out != NULL ? 1 : 2, cmd_convert.synopsis) != 0)
        return CLI_USAGE;
    if (out == NULL)
        out = argv[optind + 1];
    if (endian < 0 && version == 0)
        return cli_usage_error(cmd_convert.synopsis, "nothing to change: give --endian and/or --version");
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? n : 1;
    }

    const char *in = argv[optind];
    gguf_file *f = cli_open(in, flags);
    if (f == NULL)
        return CLI_BAD;

    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.version = version;
    opt.endian = endian;
    opt.threads = (unsigned)threads;
    cli_progress bar;
    cli_progress_attach(&bar, "converting", f, &opt);
    if (gguf_file_shard_count(f) > 1) {
        int set_status = convert_set(f, in, out, &opt);
        cli_progress_end(&bar);
        gguf_file_free(f);
        return set_status;
    }
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_save(f, out, &opt, &err);
    cli_progress_end(&bar);
    if (rc != 0)
        cli_report(out, &err); /* the error names the input when it is about the input */
    if (rc == 0 && verbose) {
        uint64_t bytes = 0;
        for (size_t i = 0; i < gguf_tensor_count(f); i++) {
            gguf_tensor_info t;
            gguf_tensor_get(&t, f, i);
            bytes += t.nbytes == UINT64_MAX ? 0 : t.nbytes;
        }
        double s = cli_now() - bar.start;
        fprintf(stderr, "%s: GGUF v%u, %s-endian, %zu tensors (%.1f MiB) converted by %ld "
                "thread%s in %.2f s\n", out, version ? version : gguf_file_version(f),
                (endian >= 0 ? endian : (int)gguf_file_endian(f)) == GGUF_ENDIAN_BIG ? "big"
                                                                               : "little",
                gguf_tensor_count(f), (double)bytes / 1048576.0, threads,
                threads == 1 ? "" : "s", s);
    }
    gguf_file_free(f);
    return rc == 0 ? CLI_OK : CLI_BAD;
}
