/* The commands of gguf-catalog, one file each (catalog_<verb>.c): each one's description (its
 * options, help and run function, as opt.h has them; run takes argv with argv[0] the verb and
 * returns an exit status), and what they share (catalog_common.c). */
#ifndef GGUF_TOOLS_CATALOG_COMMANDS_H
#define GGUF_TOOLS_CATALOG_COMMANDS_H

#include "cli.h"
#include "opt.h"

extern const opt_command catalog_index, catalog_query, catalog_schema, catalog_verify,
    catalog_prune, catalog_export, catalog_path;

/* --db PATH, which every command takes: sets catalog_db_path. HELP: its line in the
 * command's --help (NULL: none). */
int catalog_db_option(const opt_spec *o, const char *arg, void *values);
#define CATALOG_DB_(HELP) OPT_HANDLER_("db", 0, "PATH", HELP, catalog_db_option, 0)

/* The URL options as index and verify describe them, after a line that introduces them. */
extern const opt_spec catalog_url_options[];

/* --db, or NULL for the default (main sets it from $GGUF_CATALOG_DB). */
extern const char *catalog_db_path;

/* The options of a command that takes only --db and --help, then its n operands: -1 to go
 * on, else the exit status (--help printed, or a usage error). */
int catalog_plain_options(const opt_command *c, int argc, char **argv, int n);
/* The catalog at catalog_db_path opened with flags, or NULL after saying why. */
gguf_catalog *catalog_open(unsigned flags);
/* Says what err says; returns CLI_BAD. */
int catalog_fail(const gguf_error *err);

#endif
