/* gguf-catalog prune: drop the rows of files that no longer exist. */
#include "catalog_commands.h"

#include <inttypes.h>

static const char prune_usage[] =
    "usage: gguf-catalog [--db PATH] prune [-q]\n"
    "Drops the rows of files (and of errors) whose path no longer exists.\n"
    "  -q, --quiet        do not list the dropped paths\n"
    "  --db PATH          the catalog\n";

static void on_removed(const gguf_catalog_event *ev, void *user) {
    if (!*(int *)user)
        printf("removed %s\n", ev->path);
}

int catalog_cmd_prune(int argc, char **argv) {
    static const struct option longopts[] = {
        {"quiet", no_argument, NULL, 'q'}, CATALOG_COMMON_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c, status, quiet = 0;
    while ((c = catalog_next_option(argc, argv, "qh", longopts, prune_usage, NULL, &status)) !=
           -1) {
        if (c == CLI_DONE)
            return status;
        if (c != 'q')
            return cli_usage_error(prune_usage, NULL);
        quiet = 1;
    }
    if (cli_operands(argc, 0, prune_usage) != 0)
        return CLI_USAGE;
    gguf_catalog *cat = catalog_open(GGUF_CATALOG_OPEN_DEFAULT);
    if (cat == NULL)
        return CLI_BAD;
    gguf_catalog_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_catalog_prune(&st, cat, on_removed, &quiet, &err);
    gguf_catalog_close(cat);
    if (rc != 0)
        return catalog_fail(&err);
    printf("%" PRIu64 " file%s pruned\n", st.removed, CLI_S(st.removed));
    return CLI_OK;
}
