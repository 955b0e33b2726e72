/* gguf-edit get: one value, as plain text (strings as their bytes, arrays one element per
 * line) or as JSON. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <string.h>

static const char usage_text[] =
    "usage: gguf-edit get FILE KEY [--json] [OPTIONS]\n"
    "Prints the value and a newline (as git config --get and jq -r do): strings as they are,\n"
    "numbers in decimal, arrays one element per line. 'set FILE KEY PATH --file' drops that\n"
    "one newline again, so get > PATH, an edit, and set --file give the string back unchanged.\n"
    "Exit status 1 when the key does not exist. A truncated download is read with a warning.\n"
    "  --json             the value as JSON\n" CLI_OPEN_HELP;

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

int cmd_get(int argc, char **argv) {
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int json = 0, status = CLI_OK, c;
    while ((c = cli_getopt(argc, argv, "h", longopts, usage_text, &flags, &status)) >= 0)
        json |= c == 'j';
    if (c == CLI_DONE)
        return status;
    if (cli_operands(argc, 2, usage_text) != 0)
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
