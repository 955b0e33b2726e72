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

static const char usage_text[] =
    "usage: gguf-edit convert FILE OUT [--endian big|little] [--version 2|3] [OPTIONS]\n"
    "       gguf-edit convert FILE -o OUT [--endian big|little] [--version 2|3] [OPTIONS]\n"
    "Writes FILE to OUT in another byte order and/or GGUF version. Metadata, tensor infos and\n"
    "every tensor's blocks are converted (each type by its own recipe: which fields are 16-, 32-\n"
    "or 64-bit numbers); the layout, padding and bytes between tensors are kept.\n"
    "  -o, --output OUT       where to write (or OUT after FILE; an existing OUT is replaced\n"
    "                         atomically, never FILE itself)\n"
    "  --endian ORDER         byte order of OUT: 'big' or 'little' (default: FILE's)\n"
    "  --version V            GGUF version of OUT: 2 or 3 (default: FILE's; big-endian needs 3)\n"
    "  --threads N            threads converting tensor data (default 0: one per CPU)\n"
    "  -v, --verbose          say what was written, with how many threads and how fast\n"
    "  --input-endian ORDER   read FILE as 'little' or 'big' endian instead of detecting it\n"
    "  --lenient              accept duplicate keys and tensor names\n"
    "  --unknown-types        open files with unknown tensor types (they cannot change byte\n"
    "                         order, but can change version)\n"
    "  --no-mmap              read FILE into memory instead of mapping it\n"
    "A shard of a split set converts the whole set, shard by shard (each written atomically),\n"
    "to OUT's set: OUT names its first shard (PREFIX-00001-of-0000N.gguf) or its prefix.\n"
    "  --one-file             convert this one file of a split set alone\n";

enum { OPT_ENDIAN = 2000, OPT_VERSION, OPT_THREADS, OPT_INPUT_ENDIAN };

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

int cmd_convert(int argc, char **argv) {
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"verbose", no_argument, NULL, 'v'},
        {"endian", required_argument, NULL, OPT_ENDIAN},
        {"version", required_argument, NULL, OPT_VERSION},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"input-endian", required_argument, NULL, OPT_INPUT_ENDIAN},
        {"lenient", no_argument, NULL, CLI_OPT_LENIENT},
        {"unknown-types", no_argument, NULL, CLI_OPT_UNKNOWN_TYPES},
        {"no-mmap", no_argument, NULL, CLI_OPT_NO_MMAP},
        {"one-file", no_argument, NULL, CLI_OPT_ONE_FILE},
        {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    const char *out = NULL;
    int endian = -1, verbose = 0, status = CLI_OK, c;
    unsigned version = 0;
    long threads = 0;
    char *end;
    while ((c = cli_getopt(argc, argv, "ho:v", longopts, usage_text, &flags, &status)) >= 0) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'v': verbose = 1; break;
        case OPT_ENDIAN:
            if (strcmp(optarg, "big") == 0)
                endian = GGUF_ENDIAN_BIG;
            else if (strcmp(optarg, "little") == 0)
                endian = GGUF_ENDIAN_LITTLE;
            else
                return cli_usage_error(usage_text, "--endian takes 'big' or 'little', not '%s'",
                                       optarg);
            break;
        case OPT_VERSION:
            if (strcmp(optarg, "2") != 0 && strcmp(optarg, "3") != 0)
                return cli_usage_error(usage_text, "--version takes 2 or 3, not '%s' (version 1 "
                                       "is only read)", optarg);
            version = (unsigned)(optarg[0] - '0');
            break;
        case OPT_THREADS:
            threads = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || threads < 0 || threads > 1024)
                return cli_usage_error(usage_text, "--threads takes a number from 0 to 1024, "
                                       "not '%s'", optarg);
            break;
        case OPT_INPUT_ENDIAN:
            if (cli_open_option(CLI_OPT_ENDIAN, optarg, &flags) <= 0)
                return cli_usage_error(usage_text, NULL);
            break;
        default: break;
        }
    }
    if (c == CLI_DONE)
        return status;
    if (out != NULL && argc - optind == 2)
        return cli_usage_error(usage_text, "the output is given twice (OUT and -o)");
    if (cli_operands(argc, out != NULL ? 1 : 2, usage_text) != 0)
        return CLI_USAGE;
    if (out == NULL)
        out = argv[optind + 1];
    if (endian < 0 && version == 0)
        return cli_usage_error(usage_text, "nothing to change: give --endian and/or --version");
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
