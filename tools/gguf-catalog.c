/* gguf-catalog: a SQLite catalog of GGUF files on disk and on servers. `index` walks folders
 * and fetches URLs, storing every file's header (keys, values, tensors), `query` runs read-only
 * SQL on it, `schema` shows its tables, `verify` re-reads files against their stored crc32s,
 * `prune` forgets files that are gone, `export` copies the catalog into another. This file
 * dispatches to one catalog_<verb>.c per command. */
#include "catalog_commands.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n"
    "       gguf-catalog --help | --version\n"
    "\n"
    "commands:\n"
    "  index [--crc] [--follow-symlinks] [--all-files] [--force] PATH...\n"
    "                           add or refresh files (folders are walked for *.gguf;\n"
    "                           a PATH may be an http:// or https:// URL)\n"
    "  query [--format table|box|markdown|csv|json|line] [SQL|-]\n"
    "                           run read-only SQL (SQL from standard input with - or none)\n"
    "  schema                   the tables, their columns and the models view\n"
    "  verify [PATH...]         re-read files and compare them with their stored crc32s\n"
    "  prune                    drop the rows of files that no longer exist\n"
    "  export DEST              copy every row into the catalog DEST (a SQLite file or a\n"
    "                           postgresql:// URL), replacing its rows\n"
    "  path                     print the catalog's path\n"
    "\n"
    "  --db PATH                the catalog: a SQLite file, or a postgresql:// URL of a\n"
    "                           PostgreSQL database (default $GGUF_CATALOG_DB, else\n"
    "                           $XDG_DATA_HOME/gguf/catalog.db, else\n"
    "                           ~/.local/share/gguf/catalog.db)\n"
    "  --version                print the version\n"
    "\n"
    "'gguf-catalog COMMAND --help' describes each command.\n"
    "Exit status: 0 ok, 1 bad request, failed operation or problems found (verify), 2 usage.\n";

static const char short_usage[] = "usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n";

enum { OPT_VERSION = CATALOG_OPT_DB + 1 };

static const struct {
    const char *verb;
    int (*run)(int, char **);
} commands[] = {
    {"index", catalog_cmd_index},   {"query", catalog_cmd_query},
    {"schema", catalog_cmd_schema}, {"verify", catalog_cmd_verify},
    {"prune", catalog_cmd_prune},   {"export", catalog_cmd_export},
    {"path", catalog_cmd_path},
};

static int run(int argc, char **argv) {
    static const struct option longopts[] = {
        {"version", no_argument, NULL, OPT_VERSION}, CATALOG_COMMON_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    int c, status;
    /* options before the command only ("+": stop at the first non-option) */
    while ((c = catalog_next_option(argc, argv, "+h", longopts, usage_text, NULL, &status)) !=
           -1) {
        if (c == CLI_DONE)
            return status;
        if (c != OPT_VERSION)
            return cli_usage_error(usage_text, NULL);
        cli_print_version();
        return CLI_OK;
    }
    if (optind >= argc)
        return cli_usage_error(short_usage, "no command given");
    if (strcmp(argv[optind], "help") == 0) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (catalog_db_path == NULL && getenv("GGUF_CATALOG_DB") != NULL &&
        getenv("GGUF_CATALOG_DB")[0])
        catalog_db_path = getenv("GGUF_CATALOG_DB");
    if (!gguf_catalog_available()) {
        cli_errorf("catalog not built: this libgguf was configured without SQLite");
        return CLI_BAD;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[optind], commands[i].verb) == 0) {
            char **sub = argv + optind;
            int subc = argc - optind;
            optind = 0; /* restart getopt (glibc: a full reset) for the subcommand */
            return commands[i].run(subc, sub);
        }
    }
    const char *verbs[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        verbs[i] = commands[i].verb;
    const char *s = cli_suggest(argv[optind], verbs, sizeof verbs / sizeof verbs[0]);
    if (s != NULL)
        return cli_usage_error(short_usage, "unknown command '%s' (did you mean '%s'?)",
                               argv[optind], s);
    return cli_usage_error(short_usage, "unknown command '%s'", argv[optind]);
}

int main(int argc, char **argv) {
    cli_prog = "gguf-catalog";
    cli_signals_start();
    atexit(cli_close_stdout);
    return run(argc, argv);
}
