/* gguf-edit recover: finish interrupted in-place edits. Reading commands never do this; they
 * only say when a journal is pending. */
#include "cli.h"
#include "commands.h"

static int recover_run(int argc, char **argv);

const opt_command cmd_recover = {
    .name = "recover",
    .run = recover_run,
    .line = "recover FILE...                       finish an interrupted in-place edit",
    .synopsis = "usage: gguf-edit recover FILE...\n",
    .summary =
    "Finishes an in-place edit that was interrupted (a crash, a kill) from the journal beside\n"
    "the file (.FILE.gguf-journal). A journal is applied only when it belongs to this file and\n"
    "keeps every tensor in place; any other is refused and left in place.\n",
};

static int recover_run(int argc, char **argv) {
    unsigned flags = 0;
    int status = opt_parse(&cmd_recover, argc, argv, NULL, &flags);
    if (status >= 0)
        return status;
    if (cli_operands_min(argc, 1, cmd_recover.synopsis) != 0)
        return CLI_USAGE;
    int rc = CLI_OK;
    for (int i = optind; i < argc; i++) {
        gguf_error err;
        gguf_error_clear(&err);
        int recovered = 0;
        if (gguf_file_recover(argv[i], &recovered, &err) != 0) {
            cli_report(argv[i], &err);
            rc = CLI_BAD;
            continue;
        }
        printf("%s: %s\n", argv[i], recovered ? "finished the interrupted edit"
                                              : "no interrupted edit");
    }
    return rc;
}
