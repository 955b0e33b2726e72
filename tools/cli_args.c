/* The command line of every command: getopt_long with --help and the open options, the
 * message for an option it refuses, the operands counted, and --version. */
#include "config.h" /* PACKAGE_VERSION */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* The message for an option getopt_long refused (opterr off): unknown (with a suggestion),
 * ambiguous, missing its argument, or given one it does not take. */
static void bad_option(int argc, char **argv, int c, const struct option *longopts,
                       const char *usage) {
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    int is_long = strncmp(arg, "--", 2) == 0 && (c == ':' || optopt == 0 || strchr(arg, '='));
    if (!is_long) {
        if (c == ':')
            cli_usage_error(usage, "option '-%c' needs an argument", optopt);
        else if ((optopt >= '0' && optopt <= '9') || optopt == '.')
            /* a negative number meant as a value: getopt reads it as options */
            cli_usage_error(usage, "unknown option '-%c' (a negative number? put '--' before "
                            "it: every argument after '--' is an operand)", optopt);
        else
            cli_usage_error(usage, "unknown option '-%c'", optopt);
        return;
    }
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    if (c == ':') {
        cli_usage_error(usage, "option '--%.*s' needs an argument", (int)len, name);
        return;
    }
    const char *names[128];
    size_t n = 0, prefixed = 0;
    char list[512] = "";
    for (const struct option *o = longopts; o->name != NULL && n < 128; o++) {
        names[n++] = o->name;
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
            cli_usage_error(usage, "option '--%s' takes no argument", o->name);
            return;
        }
        if (strncmp(o->name, name, len) == 0) {
            prefixed++;
            size_t at = strlen(list);
            snprintf(list + at, sizeof list - at, "%s--%s", at ? ", " : "", o->name);
        }
    }
    if (prefixed > 1) {
        cli_usage_error(usage, "option '--%.*s' is ambiguous: %s", (int)len, name, list);
        return;
    }
    char word[65];
    snprintf(word, sizeof word, "%.*s", (int)(len < 64 ? len : 64), name);
    const char *s = cli_suggest(word, names, n);
    if (s != NULL)
        cli_usage_error(usage, "unknown option '--%s' (did you mean '--%s'?)", word, s);
    else
        cli_usage_error(usage, "unknown option '--%s'", word);
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *help, unsigned *flags, int *status) {
    char opts[64];
    /* ':' first (after a '+' that stops at the first operand): a missing argument is told
     * apart from an unknown option */
    int plus = shortopts[0] == '+';
    shortopts += plus;
    snprintf(opts, sizeof opts, "%s:%s", plus ? "+" : "", shortopts + (shortopts[0] == ':'));
    /* the program's own options (argv[0] is its path) have no verb */
    const char *base = strrchr(argv[0], '/');
    cli_verb = strcmp(base ? base + 1 : argv[0], cli_prog) == 0 ? NULL : argv[0];
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, opts, longopts, NULL);
        if (c == -1)
            return -1;
        if (c == 'h') {
            fputs(help, stdout);
            *status = CLI_OK;
            return CLI_DONE;
        }
        int open_opt = cli_open_option(c, optarg, flags);
        if (open_opt > 0)
            continue;
        if (open_opt < 0 || c == '?' || c == ':') {
            if (open_opt < 0)
                cli_usage_error(help, NULL);
            else
                bad_option(argc, argv, c, longopts, help);
            *status = CLI_USAGE;
            return CLI_DONE;
        }
        return c;
    }
}

int cli_operands(int argc, int n, const char *usage) {
    if (argc - optind == n)
        return 0;
    return cli_usage_error(usage, argc - optind < n ? "missing operand" : "too many operands");
}

int cli_operands_min(int argc, int n, const char *usage) {
    if (argc - optind >= n)
        return 0;
    return cli_usage_error(usage, "missing operand");
}

void cli_print_version(void) {
    printf("%s (libgguf) %s\n", cli_prog, PACKAGE_VERSION);
}
