/* gguf-edit get: one value, as plain text (strings as their bytes, arrays one element per
 * line) or as JSON. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <string.h>

typedef struct get_values {
    int json;
} get_values;

static const opt_spec options[] = {
    OPT_FLAG_("json", 0, "the value as JSON", get_values, json, 1),
    {0}};

static int get_run(int argc, char **argv);

const opt_command cmd_get = {
    .name = "get",
    .run = get_run,
    .line = "get FILE KEY [--json]                 print one value (arrays: one element per line)",
    .synopsis = "usage: gguf-edit get FILE KEY [--json] [OPTIONS]\n",
    .summary =
    "Prints the value and a newline (as git config --get and jq -r do): strings as they are,\n"
    "numbers in decimal, arrays one element per line. 'set FILE KEY PATH --file' drops that\n"
    "one newline again, so get > PATH, an edit, and set --file give the string back unchanged.\n"
    "Exit status 1 when the key does not exist. A truncated download is read with a warning.\n",
    .options = options,
    .groups = opt_open_groups,
};

static void print_plain(const gguf_value *v) {
    if (gguf_value_type(v) == GGUF_VTYPE_STRING) {
        const char *s;
        uint64_t len;
        gguf_value_get_str(&s, &len, v, NULL);
        fwrite(s, 1, (size_t)len, stdout);
        putchar('\n');
        return;
    }
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        cli_json_value(stdout, v);
        putchar('\n');
        return;
    }
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    while (gguf_value_iter_next(&it, &e)) {
        if (gguf_value_type(&e) == GGUF_VTYPE_ARRAY) {
            cli_json_value(stdout, &e); /* a nested array: one line of JSON */
            putchar('\n');
        } else {
            print_plain(&e);
        }
    }
}

static int get_run(int argc, char **argv) {
    unsigned flags = cli_read_mapped(CLI_READ_FLAGS);
    get_values o = {0};
    int status = opt_parse(&cmd_get, argc, argv, &o, &flags);
    if (status >= 0)
        return status;
    int json = o.json;
    if (cli_operands(argc, 2, cmd_get.synopsis) != 0)
        return CLI_USAGE;
    const char *path = argv[optind], *key = argv[optind + 1];
    gguf_file *f = cli_open_partial(path, flags, 1);
    if (f == NULL)
        return CLI_BAD;
    int64_t i = gguf_kv_find(f, key);
    int rc = CLI_OK;
    if (i < 0) {
        cli_no_key(f, path, key);
        rc = CLI_BAD;
    } else if (json) {
        cli_json_value(stdout, gguf_kv_value(f, (size_t)i));
        putchar('\n');
    } else {
        print_plain(gguf_kv_value(f, (size_t)i));
    }
    gguf_file_free(f);
    return rc;
}
