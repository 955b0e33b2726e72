/* gguf-edit hash: zlib crc32 of the header and of every tensor's bytes. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

static const char usage_text[] =
    "usage: gguf-edit hash FILE [--json]\n"
    "Prints the crc32 (zlib) of the header (magic to the end of the tensor infos) and of each\n"
    "tensor's bytes: one line each, 'CRC32  NAME'.\n"
    "  --json             {\"header\":\"crc\",\"tensors\":[{\"name\":...,\"crc32\":\"crc\"}]}\n" CLI_OPEN_HELP;

int cmd_hash(int argc, char **argv) {
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned flags = CLI_READ_FLAGS;
    int json = 0, status = CLI_OK, c;
    while ((c = cli_getopt(argc, argv, "h", longopts, usage_text, &flags, &status)) >= 0)
        json |= c == 'j';
    if (c == CLI_DONE)
        return status;
    if (cli_operands(argc, 1, usage_text) != 0)
        return CLI_USAGE;
    const char *path = argv[optind];
    gguf_file *f = cli_open(path, flags);
    if (f == NULL)
        return CLI_BAD;
    gguf_error err;
    gguf_error_clear(&err);
    uint32_t crc;
    int rc = gguf_crc_header(&crc, f, &err);
    if (rc == 0)
        printf(json ? "{\"header\":\"%08" PRIx32 "\",\"tensors\":[" : "%08" PRIx32 "  (header)\n", crc);
    for (size_t i = 0; rc == 0 && i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        rc = gguf_crc_tensor(&crc, f, i, &err);
        if (rc != 0)
            break;
        if (json) {
            fputs(i ? ",\n{\"name\":" : "\n{\"name\":", stdout);
            cli_json_str(stdout, t.name, t.name_len);
            printf(",\"crc32\":\"%08" PRIx32 "\",\"size\":%" PRIu64 "}", crc, t.nbytes);
        } else {
            printf("%08" PRIx32 "  ", crc);
            cli_text_escape(stdout, t.name, t.name_len, 0);
            putchar('\n');
        }
    }
    if (rc == 0 && json)
        puts("]}");
    if (rc != 0)
        cli_report(path, &err);
    gguf_file_free(f);
    return rc == 0 && fflush(stdout) == 0 ? CLI_OK : CLI_BAD;
}
