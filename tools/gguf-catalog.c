/* gguf-catalog: a SQLite catalog of GGUF files on disk and on servers. `index` walks folders
 * and fetches URLs, storing every file's header (keys, values, tensors), `query` runs read-only
 * SQL on it, `schema` shows its tables, `verify` re-reads files against their stored crc32s,
 * `prune` forgets files that are gone, `export` copies the catalog into another. This file
 * dispatches to one catalog_<verb>.c per command. */
#define _GNU_SOURCE /* open_memstream */
#include "catalog_commands.h"

#include <stdlib.h>
#include <string.h>

/* The commands in the order --help lists them. */
static const opt_command *const commands[] = {
    &catalog_index, &catalog_query, &catalog_schema, &catalog_verify,
    &catalog_prune, &catalog_export, &catalog_path,
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const char short_usage[] = "usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n";

static int version_option(const opt_spec *o, const char *arg, void *values) {
    (void)o, (void)arg, (void)values;
    cli_print_version();
    return 1;
}

/* --list commands|options COMMAND: names for scripts and shell completion, one per line. */
static int list_option(const opt_spec *o, const char *arg, void *values) {
    (void)o, (void)values;
    if (strcmp(arg, "commands") == 0) {
        for (size_t i = 0; i < N_COMMANDS; i++)
            puts(commands[i]->name);
        return 1;
    }
    if (strcmp(arg, "options") != 0)
        return opt_error("--list takes commands or options COMMAND, not '%s'", arg);
    const char *verb = opt_take_next();
    for (size_t i = 0; verb != NULL && i < N_COMMANDS; i++) {
        if (strcmp(verb, commands[i]->name) == 0) {
            opt_list(stdout, commands[i]);
            return 1;
        }
    }
    return opt_error("--list options needs a COMMAND%s%s%s", verb ? ", not '" : "",
                     verb ? verb : "", verb ? "'" : "");
}

static const opt_spec options[] = {
    CATALOG_DB_("the catalog: a SQLite file, or a postgresql:// URL of a\n"
                "PostgreSQL database (default $GGUF_CATALOG_DB, else\n"
                "$XDG_DATA_HOME/gguf/catalog.db, else\n"
                "~/.local/share/gguf/catalog.db)"),
    OPT_HANDLER_("version", 0, NULL, "print the version", version_option, 0),
    OPT_HANDLER_("list", 0, "WHAT",
                 "commands, or a command's options (options COMMAND), one\nper line",
                 list_option, 0),
    OPT_TEXT_("\n'gguf-catalog COMMAND --help' describes each command.\n"
              "Exit status: 0 ok, 1 bad request, failed operation or problems found (verify), "
              "2 usage."),
    {0}};

/* The program's own options, before the command; its --help lists the commands. */
static opt_command program = {
    .synopsis = "usage: gguf-catalog [--db PATH] COMMAND [ARGS]\n"
                "       gguf-catalog --help | --version | --list WHAT\n",
    .options = options,
    .column = 27,
    .options_first = 1,
};

/* "\ncommands:\n", each command's line, a blank line (malloc'd), or NULL. */
static char *command_lines(void) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL)
        return NULL;
    fputs("\ncommands:\n", m);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(m, "  %s\n", commands[i]->line);
    putc('\n', m);
    if (fclose(m) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static int run(int argc, char **argv) {
    char *lines = command_lines();
    if (lines == NULL) {
        cli_errorf("out of memory");
        return CLI_BAD;
    }
    program.summary = lines;
    int status = opt_parse(&program, argc, argv, NULL, NULL);
    if (status < 0 && optind >= argc)
        status = cli_usage_error(short_usage, "no command given");
    if (status < 0 && strcmp(argv[optind], "help") == 0) {
        opt_help(stdout, &program);
        status = CLI_OK;
    }
    free(lines);
    if (status >= 0)
        return status;
    if (catalog_db_path == NULL && getenv("GGUF_CATALOG_DB") != NULL &&
        getenv("GGUF_CATALOG_DB")[0])
        catalog_db_path = getenv("GGUF_CATALOG_DB");
    if (!gguf_catalog_available()) {
        cli_errorf("catalog not built: this libgguf was configured without SQLite");
        return CLI_BAD;
    }
    const char *verbs[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) {
        verbs[i] = commands[i]->name;
        if (strcmp(argv[optind], verbs[i]) == 0) {
            char **sub = argv + optind;
            int subc = argc - optind;
            optind = 0; /* restart getopt (glibc: a full reset) for the subcommand */
            return commands[i]->run(subc, sub);
        }
    }
    const char *s = cli_suggest(argv[optind], verbs, N_COMMANDS);
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
