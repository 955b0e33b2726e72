/* gguf-edit hash: zlib crc32 of the header and of every tensor's bytes; or with --sha256 the
 * SHA-256 of every tensor (as llama.cpp's llama-gguf-hash prints them) and of each file (as
 * sha256sum prints it, and as the Hugging Face Hub publishes it). */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct hash_values {
    int json, sha256;
} hash_values;

static const opt_spec options[] = {
    OPT_FLAG_("json", 0, "{\"header\":\"crc\",\"tensors\":[{\"name\":...,\"crc32\":\"crc\"}]}",
              hash_values, json, 1),
    OPT_FLAG_("sha256", 0,
              "SHA-256 instead: a line 'sha256    HEX  FILE:TENSOR' per tensor (as\n"
              "llama-gguf-hash --sha256 prints it), then 'HEX  FILE', the whole file's\n"
              "(as sha256sum prints it: the digest the Hugging Face Hub publishes);\n"
              "a split set: each shard's. With --json: {\"files\":[{\"path\":...,\n"
              "\"sha256\":...}],\"tensors\":[{\"name\":...,\"sha256\":...,\"size\":N}]}",
              hash_values, sha256, 1),
    {0}};

static int hash_run(int argc, char **argv);

const opt_command cmd_hash = {
    .name = "hash",
    .run = hash_run,
    .line = "hash FILE... [--json]                 crc32 of every tensor and of the header",
    .synopsis = "usage: gguf-edit hash FILE... [--sha256] [--json] [OPTIONS]\n",
    .summary =
    "Prints the crc32 (zlib) of the header (magic to the end of the tensor infos) and of each\n"
    "tensor's bytes: one line each, 'CRC32  NAME'. With several files each line starts with\n"
    "'FILE: ', and --json gives an array of documents with a \"file\" member.\n",
    .options = options,
    .groups = opt_open_groups,
};

/* One tensor's entry of the "tensors" list: its name, its digest (as `what`) and its size. */
static void tensor_json(cli_json *j, const gguf_tensor_info *t, const char *what,
                        const char *digest) {
    cli_json_line(j);
    cli_json_object(j);
    cli_json_name(j, "name");
    cli_json_str(j, t->name, t->name_len);
    cli_json_member_str(j, what, digest);
    cli_json_member_u64(j, "size", t->nbytes);
    cli_json_end(j);
}

/* One file's crc32s; label (non-NULL with several files) starts each text line and is the JSON
 * document's "file". Everything is computed first, so that a file that fails half way prints
 * nothing (JSON stays whole). */
static int hash_one(const char *path, const char *label, unsigned flags, cli_json *json) {
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
    char hex[9];
    if (json) {
        cli_json_object(json);
        if (label != NULL)
            cli_json_member_str(json, "file", label);
        snprintf(hex, sizeof hex, "%08" PRIx32, crcs[n]);
        cli_json_member_str(json, "header", hex);
        cli_json_name(json, "tensors");
        cli_json_array(json);
    } else {
        cli_text_escape(stdout, lab, strlen(lab), 0);
        printf("%s%08" PRIx32 "  (header)\n", sep, crcs[n]);
    }
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        if (json) {
            snprintf(hex, sizeof hex, "%08" PRIx32, crcs[i]);
            tensor_json(json, &t, "crc32", hex);
        } else {
            cli_text_escape(stdout, lab, strlen(lab), 0);
            printf("%s%08" PRIx32 "  ", sep, crcs[i]);
            cli_text_escape(stdout, t.name, t.name_len, 0);
            putchar('\n');
        }
    }
    if (json) {
        cli_json_end(json);
        cli_json_end(json);
    }
    free(crcs);
    gguf_file_free(f);
    return CLI_OK;
}

static void hex32(char hex[65], const uint8_t d[32]) {
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* --sha256: every tensor's digest and each file's (a split set's shards), computed first as
 * hash_one's crc32s are. */
static int sha256_one(const char *path, unsigned flags, cli_json *json) {
    gguf_file *f = cli_open(path, flags);
    if (f == NULL)
        return CLI_BAD;
    size_t n = gguf_tensor_count(f), n_files = gguf_file_shard_count(f);
    char(*hex)[65] = malloc((n + n_files) * sizeof *hex);
    gguf_error err;
    gguf_error_clear(&err);
    int rc = hex != NULL ? 0 : GGUF_ENOMEM;
    uint8_t d[32];
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = gguf_sha256_tensor(d, f, i, &err);
        hex32(hex[i], d);
    }
    for (size_t k = 0; rc == 0 && k < n_files; k++) {
        rc = gguf_sha256_file(d, n_files > 1 ? gguf_file_shard(f, k) : f, &err);
        hex32(hex[n + k], d);
    }
    if (rc != 0) {
        if (hex == NULL)
            cli_errorf("out of memory");
        else
            cli_report(path, &err);
        free(hex);
        gguf_file_free(f);
        return CLI_BAD;
    }
    if (json) {
        cli_json_object(json);
        cli_json_name(json, "files");
        cli_json_array(json);
    }
    for (size_t k = 0; json && k < n_files; k++) {
        cli_json_line(json);
        cli_json_object(json);
        const char *p = n_files > 1 ? gguf_file_path(gguf_file_shard(f, k)) : path;
        cli_json_member_str(json, "path", p);
        cli_json_member_str(json, "sha256", hex[n + k]);
        cli_json_end(json);
    }
    if (json) {
        cli_json_end(json);
        cli_json_line(json);
        cli_json_name(json, "tensors");
        cli_json_array(json);
    }
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        const char *p = n_files > 1 ? gguf_file_path(gguf_file_shard(f, gguf_tensor_shard(f, i)))
                                    : path;
        if (json) {
            tensor_json(json, &t, "sha256", hex[i]);
        } else {
            printf("%-8s  %s  ", "sha256", hex[i]);
            cli_text_escape(stdout, p, strlen(p), 0);
            putchar(':');
            cli_text_escape(stdout, t.name, t.name_len, 0);
            putchar('\n');
        }
    }
    if (json) {
        cli_json_end(json);
        cli_json_end(json);
    }
    for (size_t k = 0; !json && k < n_files; k++) {
        const char *p = n_files > 1 ? gguf_file_path(gguf_file_shard(f, k)) : path;
        printf("%s  ", hex[n + k]);
        cli_text_escape(stdout, p, strlen(p), 0);
        putchar('\n');
    }
    free(hex);
    gguf_file_free(f);
    return CLI_OK;
}

static int hash_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS;
    hash_values o = {0, 0};
    int status = opt_parse(&cmd_hash, argc, argv, &o, &flags);
    if (status >= 0)
        return status;
    int json = o.json, sha256 = o.sha256;
    if (cli_operands_min(argc, 1, cmd_hash.synopsis) != 0)
        return CLI_USAGE;
    int several = argc - optind > 1, rc = CLI_OK, shown = 0;
    cli_json out;
    cli_json_init(&out, stdout, 0);
    cli_json *j = json ? &out : NULL;
    if (json && several)
        cli_json_array(j);
    for (int k = optind; k < argc; k++) {
        /* a document per file, even when its crc32s stop half way: JSON stays whole */
        if (json && shown++)
            cli_json_line(j);
        if ((sha256 ? sha256_one(argv[k], flags, j)
                    : hash_one(argv[k], several ? argv[k] : NULL, flags, j)) != CLI_OK) {
            rc = CLI_BAD;
            if (json && several)
                cli_json_null(j);
        }
    }
    if (json && several)
        cli_json_end(j);
    if (json && (several || rc == CLI_OK))
        putchar('\n');
    return rc;
}
