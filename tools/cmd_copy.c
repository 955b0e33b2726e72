/* gguf-edit copy: read a file and write it back; byte-identical when nothing changes. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <string.h>

static const char usage_text[] =
    "usage: gguf-edit copy FILE OUT [OPTIONS]\n"
    "       gguf-edit copy FILE -o OUT [OPTIONS]\n"
    "Reads FILE and writes it to OUT (atomically: temporary file, fsync, rename).\n"
    "  -o, --output OUT   where to write (or OUT after FILE; an existing OUT is replaced\n"
    "                     atomically, never FILE itself)\n" CLI_OPEN_HELP;

int cmd_copy(int argc, char **argv) {
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = 0;
    int status = CLI_OK, c;
    const char *out = NULL;
    while ((c = cli_getopt(argc, argv, "o:h", longopts, usage_text, &flags, &status)) >= 0)
        out = optarg; /* -o */
    if (c == CLI_DONE)
        return status;
    if (out != NULL && argc - optind == 2)
        return cli_usage_error(usage_text, "the output is given twice (OUT and -o)");
    if (cli_operands(argc, out != NULL ? 1 : 2, usage_text) != 0)
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
