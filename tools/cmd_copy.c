/* gguf-edit copy: read a file and write it back; byte-identical when nothing changes. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <string.h>

static const char usage_text[] =
    "usage: gguf-edit copy FILE OUT\n"
    "Reads FILE and writes it to OUT (atomically: temporary file, fsync, rename).\n" CLI_OPEN_HELP;

int cmd_copy(int argc, char **argv) {
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'}, CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = 0;
    int status = CLI_OK;
    if (cli_getopt(argc, argv, "h", longopts, usage_text, &flags, &status) == CLI_DONE)
        return status;
    if (cli_operands(argc, 2, usage_text) != 0)
        return CLI_USAGE;
    const char *in = argv[optind], *out = argv[optind + 1];
    gguf_file *f = cli_open(in, flags);
    if (f == NULL)
        return CLI_BAD;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_save(f, out, NULL, &err);
    if (rc != 0)
        cli_report(out, &err);
    gguf_file_free(f);
    return rc == 0 ? CLI_OK : CLI_BAD;
}
