/* What gguf-catalog's commands share: the --db option, the options of a command that takes no
 * others, opening the catalog, and the error that ends a command. */
#include "catalog_commands.h"

const char *catalog_db_path;

int catalog_next_option(int argc, char **argv, const char *shortopts,
                        const struct option *longopts, const char *usage, unsigned *open_flags,
                        int *status) {
    unsigned none = 0;
    for (;;) {
        int c = cli_getopt(argc, argv, shortopts, longopts, usage,
                           open_flags != NULL ? open_flags : &none, status);
        if (c != CATALOG_OPT_DB)
            return c;
        catalog_db_path = optarg;
    }
}

int catalog_plain_options(int argc, char **argv, const char *usage, int n, int *status) {
    static const struct option longopts[] = {CATALOG_COMMON_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c = catalog_next_option(argc, argv, "h", longopts, usage, NULL, status);
    if (c == -1 && cli_operands(argc, n, usage) == 0)
        return 0;
    if (c == -1)
        *status = CLI_USAGE;
    else if (c != CLI_DONE)
        *status = cli_usage_error(usage, NULL);
    return CLI_DONE;
}

gguf_catalog *catalog_open(unsigned flags) {
    gguf_catalog *cat = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_catalog_open(&cat, catalog_db_path, flags, &err) != 0) {
        if (err.code == GGUF_ENOTFOUND)
            cli_errorf("%s (run 'gguf-catalog index PATH...' first)", err.message);
        else
            catalog_fail(&err);
        return NULL;
    }
    return cat;
}

int catalog_fail(const gguf_error *err) {
    cli_errorf("%s", err->message[0] ? err->message : gguf_strerror(err->code));
    return CLI_BAD;
}
