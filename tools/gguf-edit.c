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
    {"get", cmd_get, "get FILE KEY [--json]                 print one value (arrays: one element per line)"},
    {"set", cmd_edit, "set FILE KEY VALUE [--type T] [-o OUT] add or change a value (type kept if the key exists)"},
    {"rm", cmd_edit, "rm FILE KEY... [-o OUT]               remove keys"},
    {"rename", cmd_edit, "rename FILE OLD NEW [-o OUT]          rename a key (value, type and place kept)"},
    {"realign", cmd_edit, "realign FILE ALIGN [-o OUT]           change general.alignment, lay the data out again"},
    {"edit", cmd_edit, "edit FILE [--set K=V --rm K ...]      several edits in one run (--edits PATH)"},
    {"reserve", cmd_edit, "reserve FILE SIZE                     keep room in the header so later edits fit in place"},
    {"tensor", cmd_tensor, "tensor FILE NAME [--f32] [-o OUT]      one tensor's raw bytes, or its values as f32"},
    {"hash", cmd_hash, "hash FILE [--json]                    crc32 of every tensor and of the header"},
    {"convert", cmd_convert, "convert FILE -o OUT [--endian E]      change byte order (tensor data too) or version"},
    {"requant", cmd_requant, "requant FILE OUT TYPE [NTHREADS]      requantize as llama.cpp does (Q4_K_M, Q8_0, ...)"},
    {"diff", cmd_diff, "diff A B                              metadata and tensor differences"},
    {"recover", cmd_recover, "recover FILE...                       finish an interrupted in-place edit"},
    {"verify", cmd_verify, "verify FILE                          check structure and what llama.cpp refuses"},
    {"split", cmd_split, "split IN PREFIX [--max-tensors N|--max-size N(M|G)] write a split set (= llama-gguf-split)"},
    {"merge", cmd_merge, "merge SHARD OUT [--delete-splits]    merge a split set into one file (= llama-gguf-split)"},
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
