/* gguf-edit: inspect and edit GGUF files. Dispatches to one cmd_<verb>.c per subcommand. */
#define _POSIX_C_SOURCE 200809L /* st_mtim */
#include "cli.h"
#include "commands.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The commands in the order --help lists them. */
static const opt_command *const commands[] = {
    &cmd_show,     &cmd_copy,     &cmd_get,      &cmd_set,      &cmd_rm,
    &cmd_rename,   &cmd_realign,  &cmd_edit,     &cmd_reserve,  &cmd_tensor,
    &cmd_hash,     &cmd_convert,  &cmd_requant,  &cmd_diff,     &cmd_recover,
    &cmd_estimate, &cmd_verify,   &cmd_split,    &cmd_merge,
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const char short_usage[] = "usage: gguf-edit COMMAND [ARGS]\n";

static void usage(FILE *out) {
    fprintf(out, "usage: gguf-edit COMMAND [ARGS]\n"
                 "       gguf-edit --help | --version | --list WHAT\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %s\n", commands[i]->line);
    fprintf(out, "\n'gguf-edit COMMAND --help' (or 'gguf-edit help COMMAND') describes each command.\n"
                 "'gguf-edit --list WHAT' lists architectures (llama.cpp's, each with 'full' or\n"
                 "'keys': how far verify checks it, and why where it is no model on its own),\n"
                 "commands, types (tensor types), presets (requant's), value-types (set --type's),\n"
                 "a file's keys or tensors (keys FILE, tensors FILE; with --stat after FILE,\n"
                 "first the file's device, inode, modification time and size, as\n"
                 "stat -c '%%d %%i %%.9Y %%s' prints them), or a command's options (options\n"
                 "COMMAND), one per line.\n"
                 "Exit status: 0 ok, 1 bad file or failed operation, 2 usage, 3 warnings (verify).\n");
}

/* --list keys|tensors FILE [--stat]: a file's key or tensor names, as they are, one per line
 * (a truncated download's too; nothing on stderr about it: this serves completion). With
 * --stat, a first line names the file as `stat -L -c '%d %i %.9Y %s'` does, so that a
 * completion keeps the names with no stat process of its own for this call. The file is
 * named before it is read: one changed in between reads as changed at the next stat. */
static int list_names(const char *what, const char *path, int with_stat) {
    gguf_file *f = NULL;
    if (path == NULL)
        return cli_usage_error(short_usage, "--list %s needs a FILE", what);
    if (with_stat) {
        struct stat st;
        if (stat(path, &st) != 0)
            return CLI_BAD;
        printf("%ju %ju %jd.%09ld %jd\n", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
               (intmax_t)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec, (intmax_t)st.st_size);
    }
    /* completion asks at every Tab press: no copy of a vocabulary */
    unsigned flags = cli_read_mapped(GGUF_OPEN_PARTIAL | GGUF_OPEN_LENIENT |
                                     GGUF_OPEN_UNKNOWN_TYPES);
    if (gguf_file_open(&f, path, flags, NULL) != 0)
        return CLI_BAD;
    int keys = strcmp(what, "keys") == 0;
    size_t n = keys ? gguf_kv_count(f) : gguf_tensor_count(f);
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info t;
        size_t len = 0;
        const char *name = keys ? gguf_kv_key(f, i, &len) : NULL;
        if (!keys) {
            gguf_tensor_get(&t, f, i);
            name = t.name;
            len = t.name_len;
        }
        fwrite(name, 1, len, stdout);
        putchar('\n');
    }
    gguf_file_free(f);
    return CLI_OK;
}

/* --list options COMMAND: the options of its --help, one per line (opt_list). */
static int list_options(const char *verb) {
    for (size_t i = 0; verb != NULL && i < N_COMMANDS; i++) {
        if (strcmp(verb, commands[i]->name) == 0) {
            opt_list(stdout, commands[i]);
            return CLI_OK;
        }
    }
    return cli_usage_error(short_usage, "--list options needs a COMMAND%s%s%s",
                           verb ? ", not '" : "", verb ? verb : "", verb ? "'" : "");
}

/* --list WHAT [FILE|COMMAND [--stat]]: names for scripts and shell completion, one per line. */
static int list(const char *what, const char *file, const char *more) {
    if (strcmp(what, "keys") == 0 || strcmp(what, "tensors") == 0) {
        if (more != NULL && strcmp(more, "--stat") != 0)
            return cli_usage_error(short_usage, "--list %s FILE takes only --stat after it, "
                                   "not '%s'", what, more);
        return list_names(what, file, more != NULL);
    }
    if (strcmp(what, "options") == 0)
        return list_options(file);
    static const char *const value_types[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64",
                                              "i64", "f32", "f64", "bool", "str", "array"};
    if (strcmp(what, "commands") == 0) {
        for (size_t i = 0; i < N_COMMANDS; i++)
            puts(commands[i]->name);
    } else if (strcmp(what, "types") == 0) {
        for (uint32_t t = 0; t < GGUF_DTYPE_COUNT; t++) {
            if (gguf_dtype_name(t) != NULL)
                puts(gguf_dtype_name(t));
        }
    } else if (strcmp(what, "presets") == 0) {
        for (uint32_t t = 0; t < GGUF_REQUANT_FTYPE_COUNT; t++) {
            if (gguf_requant_ftype_name(t) != NULL)
                puts(gguf_requant_ftype_name(t));
        }
        puts("COPY");
    } else if (strcmp(what, "value-types") == 0) {
        for (size_t i = 0; i < sizeof value_types / sizeof value_types[0]; i++)
            puts(value_types[i]);
    } else if (strcmp(what, "architectures") == 0) {
        /* the ones llama.cpp can load: full (tensors and hyperparameter rules checked) or
         * keys (key types only), and a third field for those that are no model on their own */
        const char *name;
        for (size_t i = 0; (name = gguf_llama_arch_name(i)) != NULL; i++) {
            int support = gguf_llama_arch_support(name);
            const char *why = gguf_llama_arch_not_a_model(name);
            if (support != GGUF_LLAMA_ARCH_UNKNOWN)
                printf("%s\t%s%s%s\n", name, support == GGUF_LLAMA_ARCH_FULL ? "full" : "keys",
                       why ? "\tnot a model on its own: " : "", why ? why : "");
        }
    } else {
        static const char *const lists[] = {"architectures", "commands", "types", "presets",
                                            "value-types", "keys", "tensors", "options"};
        const char *s = cli_suggest(what, lists, sizeof lists / sizeof lists[0]);
        cli_errorf("--list takes architectures, commands, types, presets, value-types, keys "
                   "FILE, tensors FILE or options COMMAND, not '%s'%s%s%s", what,
                   s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
        return CLI_USAGE;
    }
    return CLI_OK;
}

int main(int argc, char **argv) {
    cli_signals_start();
    atexit(cli_close_stdout);
    if (argc < 2)
        return cli_usage_error(short_usage, "no command given");
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 ||
        (strcmp(first, "help") == 0 && argc == 2)) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        cli_print_version();
        return CLI_OK;
    }
    if (strcmp(first, "--list") == 0 || strncmp(first, "--list=", 7) == 0) {
        int at = first[6] == '=' ? 2 : 3; /* where FILE is */
        const char *what = first[6] == '=' ? first + 7 : argc > 2 ? argv[2] : NULL;
        if (what == NULL)
            return cli_usage_error(short_usage, "--list needs an argument: architectures, "
                                                "commands, types, presets, value-types, keys "
                                                "FILE, tensors FILE or options COMMAND");
        return list(what, argc > at ? argv[at] : NULL, argc > at + 1 ? argv[at + 1] : NULL);
    }
    /* "help COMMAND" is "COMMAND --help" */
    char *help_argv[4];
    if (strcmp(first, "help") == 0) {
        help_argv[0] = argv[0];
        help_argv[1] = argv[2];
        help_argv[2] = (char *)"--help";
        help_argv[3] = NULL;
        argv = help_argv;
        argc = 3;
        first = argv[1];
    }
    const char *verbs[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) {
        verbs[i] = commands[i]->name;
        if (strcmp(first, verbs[i]) == 0) {
            cli_verb = verbs[i];
            return commands[i]->run(argc - 1, argv + 1);
        }
    }
    if (first[0] == '-') {
        static const char *const opts[] = {"--help", "--version", "--list"};
        const char *s = cli_suggest(first, opts, sizeof opts / sizeof opts[0]);
        if (s != NULL)
            return cli_usage_error(short_usage, "unknown option '%s' (did you mean '%s'?)", first, s);
        return cli_usage_error(short_usage, "unknown option '%s'", first);
    }
    const char *s = cli_suggest(first, verbs, N_COMMANDS);
    if (s != NULL)
        return cli_usage_error(short_usage, "unknown command '%s' (did you mean '%s'?)", first, s);
    return cli_usage_error(short_usage, "unknown command '%s'", first);
}
