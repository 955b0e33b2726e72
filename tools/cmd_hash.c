/* gguf-edit hash: zlib crc32 of the header and of every tensor's bytes. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: gguf-edit hash FILE... [--json] [OPTIONS]\n"
    "Prints the crc32 (zlib) of the header (magic to the end of the tensor infos) and of each\n"
    "tensor's bytes: one line each, 'CRC32  NAME'. With several files each line starts with\n"
    "'FILE: ', and --json gives an array of documents with a \"file\" member.\n"
    "  --json             {\"header\":\"crc\",\"tensors\":[{\"name\":...,\"crc32\":\"crc\"}]}\n" CLI_OPEN_HELP;

/* One file's crc32s; label (non-NULL with several files) starts each text line and is the JSON
 * document's "file". Everything is computed first, so that a file that fails half way prints
 * nothing (JSON stays whole). */
static int hash_one(const char *path, const char *label, unsigned flags, int json) {
    gguf_file *f = cli_open(path, flags);
    if (f == NULL)
        return CLI_BAD;
    size_t n = gguf_tensor_count(f);
    uint32_t *crcs = malloc((n + 1) * sizeof *crcs);
    gguf_error err;
    gguf_error_clear(&err);
    int rc = crcs != NULL ? gguf_crc_header(&crcs[n], f, &err) : GGUF_ENOMEM;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = gguf_crc_tensor(&crcs[i], f, i, &err);
    if (rc != 0) {
        if (crcs == NULL)
            cli_errorf("out of memory");
        else
            cli_report(path, &err);
        free(crcs);
        gguf_file_free(f);
        return CLI_BAD;
    }
    const char *lab = label ? label : "", *sep = label ? ": " : "";
    if (json) {
        putchar('{');
        if (label != NULL) {
            fputs("\"file\":", stdout);
            cli_json_str(stdout, label, strlen(label));
            putchar(',');
        }
        printf("\"header\":\"%08" PRIx32 "\",\"tensors\":[", crcs[n]);
    } else {
        cli_text_escape(stdout, lab, strlen(lab), 0);
        printf("%s%08" PRIx32 "  (header)\n", sep, crcs[n]);
    }
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        if (json) {
            fputs(i ? ",\n{\"name\":" : "\n{\"name\":", stdout);
            cli_json_str(stdout, t.name, t.name_len);
            printf(",\"crc32\":\"%08" PRIx32 "\",\"size\":%" PRIu64 "}", crcs[i], t.nbytes);
        } else {
            cli_text_escape(stdout, lab, strlen(lab), 0);
            printf("%s%08" PRIx32 "  ", sep, crcs[i]);
            cli_text_escape(stdout, t.name, t.name_len, 0);
            putchar('\n');
        }
    }
    if (json)
        fputs("]}", stdout);
    free(crcs);
    gguf_file_free(f);
    return CLI_OK;
}

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
    if (cli_operands_min(argc, 1, usage_text) != 0)
        return CLI_USAGE;
    int several = argc - optind > 1, rc = CLI_OK, shown = 0;
    if (json && several)
        putchar('[');
    for (int k = optind; k < argc; k++) {
        /* a document per file, even when its crc32s stop half way: JSON stays whole */
        if (json && shown++)
            fputs(",\n", stdout);
        if (hash_one(argv[k], several ? argv[k] : NULL, flags, json) != CLI_OK) {
            rc = CLI_BAD;
            if (json)
                fputs(several ? "null" : "", stdout);
        }
    }
    if (json && (several || rc == CLI_OK))
        fputs(several ? "]\n" : "\n", stdout);
    return rc;
}
