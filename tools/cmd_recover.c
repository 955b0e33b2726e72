/* gguf-edit recover: finish interrupted in-place edits. Reading commands never do this; they
 * only say when a journal is pending. */
#include "cli.h"
#include "commands.h"

static const char usage_text[] =
    "usage: gguf-edit recover FILE...\n"
    "Finishes an in-place edit that was interrupted (a crash, a kill) from the journal beside\n"
    "the file (.FILE.gguf-journal). A journal is applied only when it belongs to this file and\n"
    "keeps every tensor in place; any other is refused and left in place.\n";

int cmd_recover(int argc, char **argv) {
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    unsigned flags = 0;
    int status = CLI_OK, c;
    while ((c = cli_getopt(argc, argv, "h", longopts, usage_text, &flags, &status)) != -1) {
        if (c == CLI_DONE)
            return status;
    }
    if (cli_operands_min(argc, 1, usage_text) != 0)
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
