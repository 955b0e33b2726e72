/* What gguf-catalog's commands share: the --db option, the URL options as index and verify
 * describe them, the options of a command that takes no others, opening the catalog, and the
 * error that ends a command. */
#include "catalog_commands.h"

const char *catalog_db_path;

int catalog_db_option(const opt_spec *o, const char *arg, void *values) {
    (void)o, (void)values;
    catalog_db_path = arg;
    return 0;
}

const opt_spec catalog_url_options[] = {
    OPT_TEXT_("URLs are read with:"),
    OPT_OPEN_("header", "'NAME: VALUE'",
              "send this header to the URL's host (repeatable); also taken from\n"
              "$GGUF_HTTP_HEADER (and by index from $HF_TOKEN when every URL\n"
              "given is on huggingface.co)",
              CLI_OPT_HEADER),
    OPT_OPEN_("offline", NULL, "never touch the network (URLs are not checked)",
              CLI_OPT_OFFLINE),
    OPT_URL_TIMEOUT_RETRIES_,
    OPT_OPEN_("deadline", "SECS",
              "give up one read of a URL after SECS in all, retries included\n(default 300)",
              CLI_OPT_DEADLINE),
    OPT_URL_WHOLE_LIMIT_,
    {0}};

int catalog_plain_options(const opt_command *c, int argc, char **argv, int n) {
    int status = opt_parse(c, argc, argv, NULL, NULL);
    if (status < 0 && cli_operands(argc, n, c->synopsis) != 0)
        return CLI_USAGE;
    return status;
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
