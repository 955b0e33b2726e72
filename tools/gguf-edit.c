/* gguf-edit: inspect and edit GGUF files. Dispatches to one cmd_<verb>.c per subcommand. */
#include "cli.h"
#include "commands.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *verb;
    int (*run)(int, char **);
    const char *summary;
} commands[] = {
    {"show", cmd_show, "show FILE [--json] [--kv|--tensors]   print header, metadata, tensors"},
    {"copy", cmd_copy, "copy FILE OUT                        read and write back (byte-identical)"},
    {"verify", cmd_verify, "verify FILE                          check structure and what llama.cpp refuses"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: gguf-edit COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %s\n", commands[i].summary);
    fprintf(out, "\n'gguf-edit COMMAND --help' describes each command.\n"
                 "Exit status: 0 ok, 1 bad file or failed operation, 2 usage, 3 warnings (verify).\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].verb) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    cli_errorf("unknown command '%s' (try 'gguf-edit --help')", argv[1]);
    return CLI_USAGE;
}
