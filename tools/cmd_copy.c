/* gguf-edit copy: read a file and write it back; byte-identical when nothing changes. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <string.h>

typedef struct copy_values {
    const char *out;
} copy_values;

static const opt_spec options[] = {
    OPT_STRING_("output", 'o', "OUT",
                "where to write (or OUT after FILE; an existing OUT is replaced\n"
                "atomically, never FILE itself)",
                copy_values, out),
    {0}};

static int copy_run(int argc, char **argv);

const opt_command cmd_copy = {
    .name = "copy",
    .run = copy_run,
    .line = "copy FILE OUT                         read and write back (byte-identical)",
    .synopsis = "usage: gguf-edit copy FILE OUT [OPTIONS]\n"
                "       gguf-edit copy FILE -o OUT [OPTIONS]\n",
    .summary = "Reads FILE and writes it to OUT (atomically: temporary file, fsync, rename).\n",
    .options = options,
    .groups = opt_open_groups,
};

static int copy_run(int argc, char **argv) {
    unsigned flags = 0;
    copy_values v = {NULL};
    int status = opt_parse(&cmd_copy, argc, argv, &v, &flags);
    if (status >= 0)
        return status;
    const char *out = v.out;
    if (out != NULL && argc - optind == 2)
        return cli_usage_error(cmd_copy.synopsis, "the output is given twice (OUT and -o)");
    if (cli_operands(argc, out != NULL ? 1 : 2, cmd_copy.synopsis) != 0)
        return CLI_USAGE;
    const char *in = argv[optind];
    if (out == NULL)
        out = argv[optind + 1];
    gguf_file *f = cli_open(in, flags);
    if (f == NULL)
        return CLI_BAD;
    gguf_error err;
    gguf_error_clear(&err);
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    cli_progress bar;
    cli_progress_attach(&bar, "copying", f, &opt);
    int rc = gguf_file_save(f, out, &opt, &err);
    cli_progress_end(&bar);
    if (rc != 0)
        cli_report(out, &err);
    gguf_file_free(f);
    return rc == 0 ? CLI_OK : CLI_BAD;
}
