/* gguf-catalog export: copy every row of the catalog into another, SQLite or PostgreSQL. */
#include "catalog_commands.h"

#include <inttypes.h>

static const char export_usage[] =
    "usage: gguf-catalog [--db PATH] export DEST\n"
    "Copies every row of the catalog (files, kv, array_items, tensors, errors, runs) into the\n"
    "catalog DEST, made if needed, its rows replaced, in one transaction: a SQLite file or a\n"
    "postgresql:// URL, either way.\n"
    "  --db PATH          the catalog to copy\n";

int catalog_cmd_export(int argc, char **argv) {
    int status;
    if (catalog_plain_options(argc, argv, export_usage, 1, &status) != 0)
        return status;
    gguf_catalog *src = catalog_open(GGUF_CATALOG_OPEN_READONLY);
    if (src == NULL)
        return CLI_BAD;
    gguf_error err;
    gguf_error_clear(&err);
    uint64_t rows = 0;
    int rc = gguf_catalog_export(argv[optind], src, &rows, &err);
    gguf_catalog_close(src);
    if (rc != 0)
        return catalog_fail(&err);
    printf("%" PRIu64 " row%s copied into %s\n", rows, CLI_S(rows), argv[optind]);
    return CLI_OK;
}
