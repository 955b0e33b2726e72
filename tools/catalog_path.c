/* gguf-catalog path: print the catalog's path (--db, $GGUF_CATALOG_DB or the default). */
#include "catalog_commands.h"

static const char path_usage[] =
    "usage: gguf-catalog [--db PATH] path\n"
    "Prints the catalog's path.\n";

int catalog_cmd_path(int argc, char **argv) {
    int status;
    if (catalog_plain_options(argc, argv, path_usage, 0, &status) != 0)
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
