/* gguf-edit show: the header, the metadata and the tensors of one file or several, as text for
 * people, as JSON for scripts, or as a Markdown summary. A truncated download still shows its
 * header (with a warning). */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_ARRAY_ELEMS 8
/* text: a string longer than a line shows its first TEXT_STRING_CUT bytes (as gguf_dump.py
 * shows the first 60 characters) */
#define TEXT_STRING_LINE 80
#define TEXT_STRING_CUT 60
#define MD_ARRAY_ELEMS 8
#define MD_STRING_BYTES 64

typedef struct show_values {
    int json, markdown, only_kv, only_tensors, full;
} show_values;

static const opt_spec options[] = {
    OPT_FLAG_("json", 0, "one JSON document (see README) instead of text", show_values, json, 1),
    OPT_FLAG_("markdown", 0, "a Markdown summary: key and tensor tables, tensors grouped by layer",
              show_values, markdown, 1),
    OPT_FLAG_("kv", 0, "metadata only", show_values, only_kv, 1),
    OPT_FLAG_("tensors", 0, "tensors only", show_values, only_tensors, 1),
    OPT_FLAG_("full", 0,
              "text: strings whole (else one longer than a line is cut, with its\n"
              "length: '... (N bytes; --full)')",
              show_values, full, 1),
    {0}};

static int show_run(int argc, char **argv);

const opt_command cmd_show = {
    .name = "show",
    .run = show_run,
    .line = "show FILE... [--json|--markdown]      print header, metadata, tensors",
    .synopsis = "usage: gguf-edit show FILE... [--json|--markdown] [--kv|--tensors] [--full] [OPTIONS]\n",
    .summary =
    "Prints each FILE's header, metadata and tensors. With several files each is labelled\n"
    "(text: the first line names the file; JSON: an array of documents with a \"file\" member).\n"
    "A file cut short inside its tensor data (a truncated download) is shown with a warning.\n",
    .options = options,
    .groups = opt_open_groups,
};

typedef struct what {
    int kv, tensors, full;
} what;

/* ---- the model at a glance ---- */

/* The summary of a model (a file with general.architecture), or 0 for another file. */
static int model_summary(gguf_llama_summary *s, const gguf_file *f) {
    return gguf_llama_summary_read(s, f, NULL) == 0 && s->arch[0] != '\0';
}

/* A count as llama.cpp's loader prints the parameters: "17.56 M". */
static void print_scaled(FILE *out, uint64_t n) {
    static const char units[] = " KMBT";
    double v = (double)n;
    int u = 0;
    while (v >= 1000.0 && u < 4) {
        v /= 1000.0;
        u++;
    }
    if (u == 0)
        fprintf(out, "%" PRIu64, n);
    else
        fprintf(out, "%.2f %c", v, units[u]);
}

static void text_summary(FILE *out, const gguf_llama_summary *s, size_t n_tensors) {
    fputs("model: ", out);
    cli_text_escape(out, s->arch, strlen(s->arch), 0);
    if (n_tensors > 0 && s->n_params != UINT64_MAX) {
        fputs(", ", out);
        print_scaled(out, s->n_params);
        fprintf(out, " parameters (%" PRIu64 ")", s->n_params);
        if (s->weight_bytes != UINT64_MAX)
            fprintf(out, ", %.2f bits per weight (%.2f MiB)", gguf_llama_summary_bpw(s),
                    (double)s->weight_bytes / 1048576.0);
    }
    if (n_tensors > 0) {
        if (s->file_type_name != NULL)
            fprintf(out, ", %s", s->file_type_name);
        else
            fprintf(out, ", file type %" PRIu32, s->file_type);
        if (s->file_type_guessed)
            fputs(" (guessed)", out);
    }
    fprintf(out, ", training context %" PRIu32, s->n_ctx_train);
    if (n_tensors > 0 && s->has_kv) {
        if (s->kv_bytes_token > 0 || s->state_bytes == 0)
            fprintf(out, ", KV cache %" PRIu64 " bytes per token at f16", s->kv_bytes_token);
        if (s->n_swa > 0)
            fprintf(out, " + %" PRIu64 " on sliding-window layers (window %" PRIu32 ")",
                    s->kv_bytes_token_swa, s->n_swa);
        if (s->state_bytes > 0)
            fprintf(out, ", recurrent state %" PRIu64 " bytes per sequence", s->state_bytes);
    }
    putc('\n', out);
}

/* A count, or null when it is not known (UINT64_MAX). */
static void json_count(cli_json *j, const char *name, uint64_t v) {
    cli_json_name(j, name);
    if (v == UINT64_MAX)
        cli_json_null(j);
    else
        cli_json_u64(j, v);
}

static void json_summary(cli_json *j, const gguf_llama_summary *s) {
    cli_json_line(j);
    cli_json_name(j, "model");
    cli_json_object(j);
    cli_json_member_str(j, "architecture", s->arch);
    json_count(j, "parameters", s->n_params);
    json_count(j, "weight_bytes", s->weight_bytes);
    cli_json_name(j, "bits_per_weight");
    cli_json_double(j, gguf_llama_summary_bpw(s), 6);
    cli_json_member_u64(j, "file_type", s->file_type);
    cli_json_member_str(j, "file_type_name", s->file_type_name);
    cli_json_member_bool(j, "file_type_guessed", s->file_type_guessed);
    cli_json_member_u64(j, "context_length", s->n_ctx_train);
    static const char *const kv_names[] = {"kv_bytes_per_token", "kv_bytes_per_token_swa",
                                           "sliding_window", "state_bytes_per_sequence"};
    uint64_t kv[] = {s->kv_bytes_token, s->kv_bytes_token_swa, s->n_swa, s->state_bytes};
    for (size_t k = 0; k < sizeof kv / sizeof kv[0]; k++) {
        cli_json_name(j, kv_names[k]);
        if (s->has_kv)
            cli_json_u64(j, kv[k]);
        else
            cli_json_null(j);
    }
    cli_json_end(j);
}

/* ---- JSON ---- */

static void show_json(cli_json *j, const char *label, const gguf_file *f, what w) {
    cli_json_object(j);
    if (label != NULL)
        cli_json_member_str(j, "file", label);
    cli_json_member_u64(j, "version", gguf_file_version(f));
    cli_json_member_str(j, "endian", gguf_file_endian(f) == GGUF_ENDIAN_BIG ? "big" : "little");
    cli_json_member_u64(j, "alignment", gguf_file_alignment(f));
    cli_json_member_u64(j, "data_offset", gguf_file_data_offset(f));
    int partial = gguf_file_data_end(f) > gguf_file_size(f);
    if (partial) {
        cli_json_name(j, "partial");
        cli_json_object(j);
        cli_json_member_u64(j, "file_size", gguf_file_size(f));
        cli_json_member_u64(j, "data_end", gguf_file_data_end(f));
        cli_json_end(j);
    }
    if (gguf_file_shard_count(f) > 1) {
        /* a split set: its shards, numbered from 1 as in their names */
        cli_json_line(j);
        cli_json_name(j, "shards");
        cli_json_array(j);
        for (size_t k = 0; k < gguf_file_shard_count(f); k++) {
            const gguf_file *s = gguf_file_shard(f, k);
            cli_json_line(j);
            cli_json_object(j);
            cli_json_member_str(j, "path", gguf_file_path(s));
            cli_json_member_u64(j, "tensors", gguf_tensor_count(s));
            cli_json_member_u64(j, "data_offset", gguf_file_data_offset(s));
            cli_json_member_u64(j, "size", gguf_file_size(s));
            cli_json_end(j);
        }
        cli_json_end(j);
    }
    gguf_llama_summary sum;
    if (w.kv && w.tensors && model_summary(&sum, f))
        json_summary(j, &sum);
    if (w.kv) {
        cli_json_line(j);
        cli_json_name(j, "kv");
        cli_json_array(j);
        for (size_t i = 0; i < gguf_kv_count(f); i++) {
            size_t klen;
            const char *key = gguf_kv_key(f, i, &klen);
            const gguf_value *v = gguf_kv_value(f, i);
            cli_json_line(j);
            cli_json_object(j);
            cli_json_name(j, "key");
            cli_json_str(j, key, klen);
            cli_json_member_str(j, "type", cli_vtype_name(gguf_value_type(v)));
            if (gguf_value_type(v) == GGUF_VTYPE_ARRAY) {
                cli_json_member_str(j, "elem_type", cli_vtype_name(gguf_value_elem_type(v)));
                cli_json_member_u64(j, "count", gguf_value_count(v));
            }
            cli_json_name(j, "value");
            cli_json_gguf_value(j, v);
            cli_json_end(j);
        }
        cli_json_end(j);
    }
    if (w.tensors) {
        cli_json_line(j);
        cli_json_name(j, "tensors");
        cli_json_array(j);
        for (size_t i = 0; i < gguf_tensor_count(f); i++) {
            gguf_tensor_info t;
            char tbuf[32];
            gguf_tensor_get(&t, f, i);
            cli_json_line(j);
            cli_json_object(j);
            cli_json_name(j, "name");
            cli_json_str(j, t.name, t.name_len);
            cli_json_member_str(j, "type", cli_dtype_name(t.type, tbuf, sizeof tbuf));
            cli_json_member_u64(j, "type_id", t.type);
            cli_json_name(j, "dims");
            cli_json_array(j);
            for (uint32_t d = 0; d < t.n_dims; d++)
                cli_json_u64(j, t.dims[d]);
            cli_json_end(j);
            cli_json_member_u64(j, "offset", t.offset);
            json_count(j, "size", t.nbytes);
            if (gguf_file_shard_count(f) > 1)
                cli_json_member_u64(j, "shard", gguf_tensor_shard(f, i) + 1);
            if (partial && t.nbytes != UINT64_MAX && gguf_tensor_bytes_present(f, i) < t.nbytes) {
                cli_json_member_u64(j, "present", gguf_tensor_bytes_present(f, i));
            }
            cli_json_end(j);
        }
        cli_json_end(j);
    }
    cli_json_end(j);
}

/* ---- text ---- */

/* One value: a string longer than a line cut (unless full), general.file_type with its
 * preset's name ("15 (Q4_K_M)"). */
static void text_value(FILE *out, const char *key, size_t klen, const gguf_value *v, int full) {
    const char *s;
    uint64_t len, ftype;
    int64_t si;
    int sg;
    if (!full && gguf_value_type(v) == GGUF_VTYPE_STRING &&
        gguf_value_get_str(&s, &len, v, NULL) == 0 && len > TEXT_STRING_LINE) {
        size_t n = TEXT_STRING_CUT;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--; /* at a character's first byte */
        putc('"', out);
        cli_text_escape(out, s, n, 0);
        fprintf(out, "\"... (%" PRIu64 " bytes; --full)", len);
        return;
    }
    cli_text_value(out, v, TEXT_ARRAY_ELEMS);
    const char *name;
    if (klen == strlen("general.file_type") && memcmp(key, "general.file_type", klen) == 0 &&
        gguf_value_type(v) != GGUF_VTYPE_BOOL && gguf_value_get_int(&ftype, &si, &sg, v, NULL) == 0 &&
        (sg ? si >= 0 && si <= UINT32_MAX : ftype <= UINT32_MAX) &&
        (name = gguf_requant_ftype_name(sg ? (uint32_t)si : (uint32_t)ftype)) != NULL)
        fprintf(out, " (%s)", name);
}

static void show_text(FILE *out, const char *path, const gguf_file *f, what w) {
    cli_text_escape(out, path, strlen(path), 0);
    fprintf(out, ": GGUF v%u, %s-endian, alignment %u, %zu key%s, %zu tensor%s, data at byte %"
            PRIu64 "%s\n",
            gguf_file_version(f), gguf_file_endian(f) == GGUF_ENDIAN_BIG ? "big" : "little",
            gguf_file_alignment(f), gguf_kv_count(f), CLI_S(gguf_kv_count(f)),
            gguf_tensor_count(f), CLI_S(gguf_tensor_count(f)),
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
    gguf_llama_summary sum;
    if (w.kv && w.tensors && model_summary(&sum, f))
        text_summary(out, &sum, gguf_tensor_count(f));
    if (w.kv) {
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
            text_value(out, key, klen, v, w.full);
            putc('\n', out);
        }
    }
    if (w.tensors) {
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
            if (t.nbytes != UINT64_MAX && gguf_tensor_bytes_present(f, i) < t.nbytes)
                fprintf(out, " (only %" PRIu64 " bytes in the file)", gguf_tensor_bytes_present(f, i));
            putc('\n', out);
        }
    }
}

/* ---- Markdown ---- */

/* Text inside a table cell: control bytes escaped as \n, \t, \xNN and '|' as \| (GitHub's
 * tables split cells at '|' even inside code). */
static void md_escape(FILE *out, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '|')
            fputs("\\|", out);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c == '\r')
            fputs("\\r", out);
        else if (c < 0x20 || c == 0x7f)
            fprintf(out, "\\x%c%c", hex[c >> 4], hex[c & 15]);
        else
            putc(c, out);
    }
}

/* A string as inline code: fenced by one backtick more than its longest run of them, with a
 * space inside the fence when it starts or ends with one; cut after `max` bytes (at a UTF-8
 * character's start). */
static void md_code(FILE *out, const char *s, size_t n, size_t max) {
    int cut = 0;
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
        cut = 1;
    }
    size_t run = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        run = s[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    int pad = n > 0 && (s[0] == '`' || s[n - 1] == '`');
    for (size_t i = 0; i <= longest; i++)
        putc('`', out);
    if (pad)
        putc(' ', out);
    md_escape(out, s, n);
    if (pad)
        putc(' ', out);
    for (size_t i = 0; i <= longest; i++)
        putc('`', out);
    if (cut)
        fputs("...", out);
}

static void md_scalar(FILE *out, const gguf_value *v, size_t max) {
    const char *s;
    uint64_t len;
    if (gguf_value_type(v) == GGUF_VTYPE_STRING && gguf_value_get_str(&s, &len, v, NULL) == 0)
        md_code(out, s, (size_t)len, max);
    else if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
        fprintf(out, "[%" PRIu64 " elements]", gguf_value_count(v));
    else
        cli_json_value(out, v);
}

static void md_value(FILE *out, const gguf_value *v) {
    if (gguf_value_type(v) != GGUF_VTYPE_ARRAY) {
        md_scalar(out, v, MD_STRING_BYTES);
        return;
    }
    gguf_value_iter it;
    gguf_value e;
    gguf_value_iter_init(&it, v);
    unsigned shown = 0;
    while (shown < MD_ARRAY_ELEMS && gguf_value_iter_next(&it, &e)) {
        fputs(shown++ ? ", " : "", out);
        md_scalar(out, &e, MD_STRING_BYTES / 2);
    }
    if (gguf_value_count(v) > shown)
        fputs(", ...", out);
}

/* The group a tensor belongs to: "blk.N" (or "enc.blk.N", "dec.blk.N") for a layer's tensors,
 * else "base". Its length goes to *len. */
static const char *tensor_group(const gguf_tensor_info *t, size_t *len) {
    const char *n = t->name;
    size_t at = 0;
    if (t->name_len > 4 && (strncmp(n, "enc.", 4) == 0 || strncmp(n, "dec.", 4) == 0))
        at = 4;
    if (t->name_len > at + 4 && strncmp(n + at, "blk.", 4) == 0) {
        size_t end = at + 4;
        while (end < t->name_len && n[end] >= '0' && n[end] <= '9')
            end++;
        if (end > at + 4) {
            *len = end;
            return n;
        }
    }
    *len = 4;
    return "base";
}

static uint64_t tensor_elements(const gguf_tensor_info *t) {
    uint64_t e = 1;
    for (uint32_t d = 0; d < t->n_dims; d++)
        e *= t->dims[d];
    return e;
}

/* The table of group g's tensors (gid[i] == g). */
static void md_tensor_rows(FILE *out, const gguf_file *f, const size_t *gid, size_t g) {
    fputs("| # | Name | Type | Shape | Elements | Bytes |\n"
          "|--:|:-----|:-----|:------|---------:|------:|\n", out);
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        char tb[32];
        if (gid[i] != g)
            continue;
        gguf_tensor_get(&t, f, i);
        fprintf(out, "| %zu | ", i + 1);
        md_code(out, t.name, t.name_len, SIZE_MAX);
        fprintf(out, " | %s | ", cli_dtype_name(t.type, tb, sizeof tb));
        for (uint32_t d = 0; d < t.n_dims; d++)
            fprintf(out, "%s%" PRIu64, d ? " x " : "", t.dims[d]);
        fprintf(out, " | %" PRIu64 " | ", tensor_elements(&t));
        if (t.nbytes == UINT64_MAX)
            fputs("? |\n", out);
        else
            fprintf(out, "%" PRIu64 " |\n", t.nbytes);
    }
}

/* Numbers each tensor's group (gid[i]) in the order groups first appear; returns the count.
 * Groups are found from the last one seen: a layer's tensors usually come together. */
static size_t number_groups(const gguf_file *f, size_t *gid, size_t *first) {
    size_t groups = 0;
    for (size_t i = 0; i < gguf_tensor_count(f); i++) {
        gguf_tensor_info t;
        size_t len;
        gguf_tensor_get(&t, f, i);
        const char *g = tensor_group(&t, &len);
        size_t k = groups;
        while (k > 0) {
            gguf_tensor_info u;
            size_t ulen;
            gguf_tensor_get(&u, f, first[k - 1]);
            const char *ug = tensor_group(&u, &ulen);
            if (ulen == len && memcmp(ug, g, len) == 0)
                break;
            k--;
        }
        if (k == 0) {
            first[groups++] = i;
            gid[i] = groups - 1;
        } else {
            gid[i] = k - 1;
        }
    }
    return groups;
}

static void show_markdown(FILE *out, const char *path, const gguf_file *f, what w) {
    size_t n = gguf_tensor_count(f);
    uint64_t elements = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, i);
        elements += tensor_elements(&t);
        bytes += t.nbytes == UINT64_MAX ? 0 : t.nbytes;
    }
    fputs("# ", out);
    md_escape(out, path, strlen(path));
    fprintf(out, "\n\nGGUF v%u, %s-endian, alignment %u, data at byte %" PRIu64 ": %zu keys, "
            "%zu tensors of %" PRIu64 " elements in %" PRIu64 " bytes.\n",
            gguf_file_version(f), gguf_file_endian(f) == GGUF_ENDIAN_BIG ? "big" : "little",
            gguf_file_alignment(f), gguf_file_data_offset(f), gguf_kv_count(f), n, elements,
            bytes);
    if (gguf_file_data_end(f) > gguf_file_size(f))
        fprintf(out, "\n**The file is cut short:** it ends at byte %" PRIu64 " of %" PRIu64 ".\n",
                gguf_file_size(f), gguf_file_data_end(f));
    if (w.kv) {
        fprintf(out, "\n## Metadata\n\n| # | Key | Type | Count | Value |\n"
                     "|--:|:----|:-----|------:|:------|\n");
        for (size_t i = 0; i < gguf_kv_count(f); i++) {
            size_t klen;
            const char *key = gguf_kv_key(f, i, &klen);
            const gguf_value *v = gguf_kv_value(f, i);
            fprintf(out, "| %zu | ", i + 1);
            md_code(out, key, klen, SIZE_MAX);
            if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
                fprintf(out, " | [%s] | %" PRIu64 " | ", cli_vtype_name(gguf_value_elem_type(v)),
                        gguf_value_count(v));
            else
                fprintf(out, " | %s | 1 | ", cli_vtype_name(gguf_value_type(v)));
            md_value(out, v);
            fputs(" |\n", out);
        }
    }
    if (w.tensors && n > 0) {
        fprintf(out, "\n## Tensors\n");
        /* one table per group, in the order the groups first appear */
        size_t *gid = malloc(2 * n * sizeof *gid);
        if (gid == NULL) {
            fputs("\n(out of memory)\n", out);
            return;
        }
        size_t *first = gid + n;
        size_t groups = number_groups(f, gid, first);
        for (size_t g = 0; g < groups; g++) {
            gguf_tensor_info t;
            size_t glen, count = 0;
            uint64_t ge = 0, gb = 0;
            for (size_t i = first[g]; i < n; i++) {
                if (gid[i] != g)
                    continue;
                gguf_tensor_get(&t, f, i);
                count++;
                ge += tensor_elements(&t);
                gb += t.nbytes == UINT64_MAX ? 0 : t.nbytes;
            }
            gguf_tensor_get(&t, f, first[g]);
            const char *name = tensor_group(&t, &glen);
            fputs("\n### ", out);
            md_escape(out, name, glen);
            fprintf(out, ": %zu tensor%s, %" PRIu64 " elements, %" PRIu64 " bytes\n\n", count,
                    count == 1 ? "" : "s", ge, gb);
            md_tensor_rows(out, f, gid, g);
        }
        free(gid);
    }
}

static int show_run(int argc, char **argv) {
    show_values o = {0, 0, 0, 0, 0};
    unsigned flags = cli_read_mapped(CLI_READ_FLAGS);
    int status = opt_parse(&cmd_show, argc, argv, &o, &flags);
    if (status >= 0)
        return status;
    int json = o.json, markdown = o.markdown, only_kv = o.only_kv;
    int only_tensors = o.only_tensors, full = o.full;
    if (json && markdown)
        return cli_usage_error(cmd_show.synopsis, "--json and --markdown: choose one");
    if (cli_operands_min(argc, 1, cmd_show.synopsis) != 0)
        return CLI_USAGE;
    what w = {.kv = !only_tensors || only_kv, .tensors = !only_kv || only_tensors, .full = full};
    int several = argc - optind > 1, rc = CLI_OK, shown = 0;
    cli_json j;
    cli_json_init(&j, stdout, 0);
    if (json && several)
        cli_json_array(&j);
    for (int k = optind; k < argc; k++) {
        const char *path = argv[k];
        gguf_file *f = cli_open_partial(path, flags, 1);
        if (f == NULL) {
            rc = CLI_BAD;
            continue;
        }
        if (json) {
            if (shown)
                cli_json_line(&j);
            show_json(&j, several ? path : NULL, f, w);
        } else {
            fputs(shown ? "\n" : "", stdout);
            if (markdown)
                show_markdown(stdout, path, f, w);
            else
                show_text(stdout, path, f, w);
        }
        shown++;
        gguf_file_free(f);
    }
    if (json && several)
        cli_json_end(&j);
    if (json && (several || shown))
        putchar('\n');
    return rc;
}
