/* gguf-edit show: the header, the metadata and the tensors, as text for people or as one JSON
 * document for scripts. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#define TEXT_ARRAY_ELEMS 8

static const char usage_text[] =
    "usage: gguf-edit show FILE [--json] [--kv|--tensors]\n"
    "  --json             one JSON document (see README) instead of text\n"
    "  --kv               metadata only\n"
    "  --tensors          tensors only\n" CLI_OPEN_HELP;

static void show_json(FILE *out, const gguf_file *f, int want_kv, int want_tensors) {
    fprintf(out, "{\"version\":%u,\"endian\":\"%s\",\"alignment\":%u,\"data_offset\":%" PRIu64,
            gguf_file_version(f), gguf_file_endian(f) == GGUF_ENDIAN_BIG ? "big" : "little",
            gguf_file_alignment(f), gguf_file_data_offset(f));
    if (gguf_file_shard_count(f) > 1) {
        /* a split set: its shards, numbered from 1 as in their names */
        fputs(",\n\"shards\":[", out);
        for (size_t k = 0; k < gguf_file_shard_count(f); k++) {
            const gguf_file *s = gguf_file_shard(f, k);
            fputs(k ? ",\n{\"path\":" : "\n{\"path\":", out);
            const char *p = gguf_file_path(s);
            cli_json_str(out, p, strlen(p));
            fprintf(out, ",\"tensors\":%zu,\"data_offset\":%" PRIu64 ",\"size\":%" PRIu64 "}",
                    gguf_tensor_count(s), gguf_file_data_offset(s), gguf_file_size(s));
        }
        fputs("]", out);
    }
    if (want_kv) {
        fputs(",\n\"kv\":[", out);
        for (size_t i = 0; i < gguf_kv_count(f); i++) {
            size_t klen;
            const char *key = gguf_kv_key(f, i, &klen);
            const gguf_value *v = gguf_kv_value(f, i);
            fputs(i ? ",\n{\"key\":" : "\n{\"key\":", out);
            cli_json_str(out, key, klen);
            fprintf(out, ",\"type\":\"%s\"", cli_vtype_name(gguf_value_type(v)));
            if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
                fprintf(out, ",\"elem_type\":\"%s\",\"count\":%" PRIu64,
                        cli_vtype_name(gguf_value_elem_type(v)), gguf_value_count(v));
            fputs(",\"value\":", out);
            cli_json_value(out, v);
            putc('}', out);
        }
        fputs("]", out);
    }
    if (want_tensors) {
        fputs(",\n\"tensors\":[", out);
        for (size_t i = 0; i < gguf_tensor_count(f); i++) {
            gguf_tensor_info t;
            char tbuf[32];
            gguf_tensor_get(&t, f, i);
            fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
            cli_json_str(out, t.name, t.name_len);
            fprintf(out, ",\"type\":\"%s\",\"type_id\":%u,\"dims\":[",
                    cli_dtype_name(t.type, tbuf, sizeof tbuf), t.type);
            for (uint32_t d = 0; d < t.n_dims; d++)
                fprintf(out, "%s%" PRIu64, d ? "," : "", t.dims[d]);
            fprintf(out, "],\"offset\":%" PRIu64 ",\"size\":", t.offset);
            if (t.nbytes == UINT64_MAX)
                fputs("null", out);
            else
                fprintf(out, "%" PRIu64, t.nbytes);
            if (gguf_file_shard_count(f) > 1)
                fprintf(out, ",\"shard\":%" PRIu32, gguf_tensor_shard(f, i) + 1);
            putc('}', out);
        }
        fputs("]", out);
    }
    fputs("}\n", out);
}

static void show_text(FILE *out, const char *path, const gguf_file *f, int want_kv,
                      int want_tensors) {
    cli_text_escape(out, path, strlen(path), 0);
    fprintf(out, ": GGUF v%u, %s-endian, alignment %u, %zu keys, %zu tensors, data at byte %"
            PRIu64 "%s\n",
            gguf_file_version(f), gguf_file_endian(f) == GGUF_ENDIAN_BIG ? "big" : "little",
            gguf_file_alignment(f), gguf_kv_count(f), gguf_tensor_count(f),
            gguf_file_data_offset(f), gguf_file_shard_count(f) > 1 ? " (of the first shard)" : "");
    size_t n_shards = gguf_file_shard_count(f);
    for (size_t k = 0; n_shards > 1 && k < n_shards; k++) {
        const gguf_file *s = gguf_file_shard(f, k);
        const char *sp = gguf_file_path(s) ? gguf_file_path(s) : "";
        fprintf(out, "shard %zu/%zu: ", k + 1, n_shards);
        cli_text_escape(out, sp, strlen(sp), 0);
        fprintf(out, ": %zu tensors, data at byte %" PRIu64 ", %" PRIu64 " bytes\n",
                gguf_tensor_count(s), gguf_file_data_offset(s), gguf_file_size(s));
    }
    if (want_kv) {
        for (size_t i = 0; i < gguf_kv_count(f); i++) {
            size_t klen;
            const char *key = gguf_kv_key(f, i, &klen);
            const gguf_value *v = gguf_kv_value(f, i);
            cli_text_escape(out, key, klen, 0);
            if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
                fprintf(out, " [%s[%" PRIu64 "]] ", cli_vtype_name(gguf_value_elem_type(v)),
                        gguf_value_count(v));
            else
                fprintf(out, " [%s] ", cli_vtype_name(gguf_value_type(v)));
            cli_text_value(out, v, TEXT_ARRAY_ELEMS);
            putc('\n', out);
        }
    }
    if (want_tensors) {
        for (size_t i = 0; i < gguf_tensor_count(f); i++) {
            gguf_tensor_info t;
            char tbuf[32];
            gguf_tensor_get(&t, f, i);
            fprintf(out, "%-8s ", cli_dtype_name(t.type, tbuf, sizeof tbuf));
            cli_text_escape(out, t.name, t.name_len, 0);
            fputs(" [", out);
            for (uint32_t d = 0; d < t.n_dims; d++)
                fprintf(out, "%s%" PRIu64, d ? ", " : "", t.dims[d]);
            fprintf(out, "] offset %" PRIu64, t.offset);
            if (t.nbytes == UINT64_MAX)
                fputs(" size unknown", out);
            else
                fprintf(out, " size %" PRIu64, t.nbytes);
            if (n_shards > 1)
                fprintf(out, " shard %" PRIu32, gguf_tensor_shard(f, i) + 1);
            putc('\n', out);
        }
    }
}

int cmd_show(int argc, char **argv) {
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"kv", no_argument, NULL, 'k'},
        {"tensors", no_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
        CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int json = 0, only_kv = 0, only_tensors = 0, status = CLI_OK, c;
    unsigned flags = CLI_READ_FLAGS;
    while ((c = cli_getopt(argc, argv, "h", longopts, usage_text, &flags, &status)) >= 0) {
        json |= c == 'j';
        only_kv |= c == 'k';
        only_tensors |= c == 't';
    }
    if (c == CLI_DONE)
        return status;
    if (cli_operands(argc, 1, usage_text) != 0)
        return CLI_USAGE;
    const char *path = argv[optind];
    gguf_file *f = cli_open(path, flags);
    if (f == NULL)
        return CLI_BAD;
    int want_kv = !only_tensors || only_kv, want_tensors = !only_kv || only_tensors;
    if (json)
        show_json(stdout, f, want_kv, want_tensors);
    else
        show_text(stdout, path, f, want_kv, want_tensors);
    gguf_file_free(f);
    return fflush(stdout) == 0 ? CLI_OK : CLI_BAD;
}
