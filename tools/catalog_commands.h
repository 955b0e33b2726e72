/* The commands of gguf-catalog, one file each (catalog_<verb>.c), and what they share
 * (catalog_common.c). Each command takes argv with argv[0] the verb and returns an exit status. */
#ifndef GGUF_TOOLS_CATALOG_COMMANDS_H
#define GGUF_TOOLS_CATALOG_COMMANDS_H

#include "cli.h"

int catalog_cmd_index(int argc, char **argv);
int catalog_cmd_query(int argc, char **argv);
int catalog_cmd_schema(int argc, char **argv);
int catalog_cmd_verify(int argc, char **argv);
int catalog_cmd_prune(int argc, char **argv);
int catalog_cmd_export(int argc, char **argv);
int catalog_cmd_path(int argc, char **argv);

/* The URL options' help (index and verify). */
#define CATALOG_URL_HELP                                                                        \
    "URLs are read with:\n"                                                                      \
    "  --header 'NAME: VALUE'  send this header to the URL's host (repeatable); also taken from\n" \
    "                     $GGUF_HTTP_HEADER (and by index from $HF_TOKEN when every URL\n"     \
    "                     given is on huggingface.co)\n"                                       \
    "  --offline          never touch the network (URLs are not checked)\n"                       \
    "  --timeout SECS     give up connecting, or a transfer slower than 1 KiB/s, after SECS\n"    \
    "                     (default 30)\n"                                                         \
    "  --retries N        retry a failed request (5xx, dropped connection) N times (default 4)\n" \
    "  --deadline SECS    give up one read of a URL after SECS in all, retries included\n"       \
    "                     (default 300)\n"                                                        \
    "  --whole-limit SIZE  a server that ignores Range: download the file whole only up to\n"     \
    "                     SIZE bytes (K, M, G suffixes; default 64M)\n"

/* The options every command takes: --db, --help. A command's own option values follow
 * CATALOG_OPT_DB. */
enum { CATALOG_OPT_DB = 2000 };
#define CATALOG_COMMON_LONG_OPTIONS                                                             \
    {"db", required_argument, NULL, CATALOG_OPT_DB}, { "help", no_argument, NULL, 'h' }

/* --db, or NULL for the default (main sets it from $GGUF_CATALOG_DB). */
extern const char *catalog_db_path;

/* Parses a command's options with getopt_long: --db and --help here, the reading options
 * into *open_flags (may be NULL when the command takes none) and the URL options for
 * cli_open_options, the others returned one by one (optarg set), -1 at the first operand;
 * CLI_DONE when --help printed the usage (*status 0) or an option was bad (*status 2). */
int catalog_next_option(int argc, char **argv, const char *shortopts,
                        const struct option *longopts, const char *usage, unsigned *open_flags,
                        int *status);
/* The options of a command that takes only --db and --help, then its n operands: 0 to go on,
 * else CLI_DONE with *status the exit status (--help printed, or a usage error). */
int catalog_plain_options(int argc, char **argv, const char *usage, int n, int *status);
/* The catalog at catalog_db_path opened with flags, or NULL after saying why. */
gguf_catalog *catalog_open(unsigned flags);
/* Says what err says; returns CLI_BAD. */
int catalog_fail(const gguf_error *err);

#endif
