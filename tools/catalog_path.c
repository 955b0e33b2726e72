/* gguf-catalog path: print the catalog's path (--db, $GGUF_CATALOG_DB or the default). */
#include "catalog_commands.h"

static const opt_spec options[] = {CATALOG_DB_(NULL), {0}};

static int path_run(int argc, char **argv);

const opt_command catalog_path = {
    .name = "path",
    .run = path_run,
    .line = "path                     print the catalog's path",
    .synopsis = "usage: gguf-catalog [--db PATH] path\n",
    .summary =
    "Prints the catalog's path.\n",
    .options = options,
};

static int path_run(int argc, char **argv) {
    int status = catalog_plain_options(&catalog_path, argc, argv, 0);
    if (status >= 0)
        return status;
    if (catalog_db_path != NULL) {
        puts(catalog_db_path);
        return CLI_OK;
    }
    char buf[4096];
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_catalog_default_path(buf, sizeof buf, &err) != 0)
        return catalog_fail(&err);
    puts(buf);
    return CLI_OK;
}
