/* gguf-edit verify: the reader's structure and bounds checks, then warnings for what llama.cpp
 * would refuse. Exit 0 clean, 1 errors, 3 warnings only. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

static const char usage_text[] =
    "usage: gguf-edit verify FILE\n"
    "Checks structure and bounds, then warns about what llama.cpp refuses.\n"
    "Exit status: 0 ok, 1 errors, 3 warnings only.\n" CLI_OPEN_HELP;

static void print_warning(void *user, const char *message, uint64_t offset) {
    const char *path = user;
    if (offset != GGUF_ERROR_NO_OFFSET)
        fprintf(stderr, "%s: %s: warning: offset 0x%" PRIx64 ": %s\n", cli_prog, path, offset,
                message);
    else
        fprintf(stderr, "%s: %s: warning: %s\n", cli_prog, path, message);
}

int cmd_verify(int argc, char **argv) {
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'}, CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int status = CLI_OK;
    if (cli_getopt(argc, argv, "h", longopts, usage_text, &flags, &status) == CLI_DONE)
        return status;
    if (cli_operands(argc, 1, usage_text) != 0)
        return CLI_USAGE;
    const char *path = argv[optind];
    gguf_file *f = cli_open(path, flags);
    if (f == NULL)
        return CLI_BAD;
    gguf_error err;
    gguf_error_clear(&err);
    int n = gguf_file_lint(f, print_warning, (void *)path, &err);
    gguf_file_free(f);
    if (n < 0) {
        cli_report(path, &err);
        return CLI_BAD;
    }
    if (n > 0) {
        printf("%s: %d warning%s\n", path, n, n == 1 ? "" : "s");
        return CLI_WARN;
    }
    printf("%s: ok\n", path);
    return CLI_OK;
}
