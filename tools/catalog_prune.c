/* gguf-catalog prune: drop the rows of files that no longer exist. */
#include "catalog_commands.h"

#include <inttypes.h>

typedef struct prune_values {
    int quiet;
} prune_values;

static const opt_spec options[] = {
    OPT_FLAG_("quiet", 'q', "do not list the dropped paths", prune_values, quiet, 1),
    CATALOG_DB_("the catalog"),
    {0}};

static int prune_run(int argc, char **argv);

const opt_command catalog_prune = {
    .name = "prune",
    .run = prune_run,
    .line = "prune                    drop the rows of files that no longer exist",
    .synopsis = "usage: gguf-catalog [--db PATH] prune [-q]\n",
    .summary = "Drops the rows of files (and of errors) whose path no longer exists.\n",
    .options = options,
};

static void on_removed(const gguf_catalog_event *ev, void *user) {
    if (!*(int *)user)
        printf("removed %s\n", ev->path);
}

static int prune_run(int argc, char **argv) {
    prune_values v = {0};
    int status = opt_parse(&catalog_prune, argc, argv, &v, NULL);
    if (status >= 0)
        return status;
    if (cli_operands(argc, 0, catalog_prune.synopsis) != 0)
        return CLI_USAGE;
    gguf_catalog *cat = catalog_open(GGUF_CATALOG_OPEN_DEFAULT);
    if (cat == NULL)
        return CLI_BAD;
    gguf_catalog_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_catalog_prune(&st, cat, on_removed, &v.quiet, &err);
    gguf_catalog_close(cat);
    if (rc != 0)
        return catalog_fail(&err);
    printf("%" PRIu64 " file%s pruned\n", st.removed, CLI_S(st.removed));
    return CLI_OK;
}
