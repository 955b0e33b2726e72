/* gguf-edit set, rm, rename, realign and edit: metadata and tensor edits, several in one run,
 * written back safely (in place through a journal when the header fits, else a verified
 * rewrite renamed over the file) or to -o OUT. */
#include "cli.h"
#include "commands.h"
#include "edits.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The help of each verb: its usage line and what it does, then the groups of options it takes
 * (the man page's sections name the same groups). */
#define SET_HELP                                                                                  \
    "usage: gguf-edit set FILE KEY VALUE [--type T] [--json] [--file] [EDITS] [OPTIONS]\n"         \
    "Sets KEY to VALUE. An existing key keeps its place and its type (--type changes it); a new\n"  \
    "key goes at the end, typed from its text (true/false: BOOL, integers: INT32 or INT64,\n"       \
    "decimals: FLOAT32, else STRING) unless --type says otherwise. An ARRAY value is JSON.\n"       \
    "  --type T           value type: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool str, or array\n" \
    "                     (with --json: the element type)\n"                                      \
    "  --json             VALUE is a JSON array (element type kept, or --type's, or inferred)\n"  \
    "  --file             VALUE is the path of a file whose text is the value, less the one\n"    \
    "                     newline that ends it (as get prints it); typed like any VALUE\n"
#define RM_HELP                                                                                   \
    "usage: gguf-edit rm FILE KEY... [EDITS] [OPTIONS]\n"                                          \
    "Removes the keys.\n"
#define RENAME_HELP                                                                               \
    "usage: gguf-edit rename FILE OLD NEW [EDITS] [OPTIONS]\n"                                     \
    "Renames key OLD to NEW; its value, type and place are kept.\n"
#define REALIGN_HELP                                                                              \
    "usage: gguf-edit realign FILE ALIGN [EDITS] [OPTIONS]\n"                                      \
    "Sets general.alignment to ALIGN (a power of two; --force for other multiples of 8) and\n"     \
    "lays the tensor data out again.\n"
#define EDIT_HELP                                                                                 \
    "usage: gguf-edit edit FILE [EDITS] [OPTIONS]\n"                                               \
    "Applies the EDITS in order, in one run: one write, one check.\n"
#define RESERVE_HELP                                                                              \
    "usage: gguf-edit reserve FILE SIZE [OPTIONS]\n"                                               \
    "Keeps SIZE bytes (K, M, G) of room in the header (the libgguf.padding key), so that later\n"  \
    "edits are written in place. On ext4 and XFS growing it inserts blocks in place; elsewhere\n"   \
    "the file is rewritten once.\n"
#define EDITS_HELP                                                                                \
    "EDITS, applied in order after the command's own:\n"                                           \
    "  --set KEY[:TYPE]=VALUE          set a value (as set; TYPE as --type)\n"                    \
    "  --set-json KEY[:ELEMTYPE]=JSON  set an array from JSON (as set --json)\n"                  \
    "  --set-file KEY[:TYPE]=PATH      set a value from a file's text (as set --file)\n"          \
    "  --set-json-file KEY[:ELEMTYPE]=PATH  set an array from a JSON file (as set --json --file)\n" \
    "  --rm KEY                        remove a key\n"                                            \
    "  --rename OLD=NEW                rename a key\n"                                            \
    "  --realign N                     change the alignment (as realign)\n"                       \
    "  --rename-tensor OLD=NEW         rename a tensor\n"                                         \
    "  --rm-tensor NAME                remove a tensor\n"                                         \
    "  --special-token NAME TEXT       set special token NAME's id (tokenizer.ggml.NAME_token_id,\n" \
    "                                  UINT32) to the first token whose text is TEXT, as\n"      \
    "                                  gguf_new_metadata.py does; NAME: bos eos eot eom unk sep\n" \
    "                                  pad mask fim_pre fim_suf fim_mid fim_pad fim_rep fim_sep\n" \
    "                                  prefix suffix middle (unknown, seperator, padding too)\n" \
    "  --chat-template-config PATH     the chat template of a Hugging Face tokenizer_config.json:\n" \
    "                                  one (tokenizer.chat_template) or a list of named ones\n"  \
    "                                  (tokenizer.chat_template.NAME, tokenizer.chat_templates);\n" \
    "                                  the file's template keys are replaced\n"                                         \
    "  --edits PATH                    operations from a file, one per line: set KEY[:TYPE] VALUE\n" \
    "                                  (VALUE: the rest of the line), set-json KEY JSON, set-file\n" \
    "                                  KEY PATH, set-json-file KEY PATH, rm KEY, rename OLD NEW,\n" \
    "                                  realign N, rename-tensor OLD NEW, rm-tensor NAME ('#'\n"   \
    "                                  comments)\n"
#define WRITE_HELP                                                                                \
    "OPTIONS:\n"                                                                                   \
    "  -o, --output OUT   write the result to OUT instead of changing FILE\n"                     \
    "  --force            write even what ggml would refuse (say, alignment 48), or a special\n"   \
    "                     token id outside the vocabulary\n"                \
    "  --no-in-place      always rewrite the whole file\n"                                        \
    "  -v, --verbose      say how the file was written and what was checked\n"
#define RESERVE_OPTION_HELP                                                                       \
    "  --reserve SIZE     also keep SIZE bytes of room in the header (as reserve)\n"

static const char set_help[] = SET_HELP EDITS_HELP WRITE_HELP RESERVE_OPTION_HELP CLI_OPEN_HELP;
static const char rm_help[] = RM_HELP EDITS_HELP WRITE_HELP RESERVE_OPTION_HELP CLI_OPEN_HELP;
static const char rename_help[] =
    RENAME_HELP EDITS_HELP WRITE_HELP RESERVE_OPTION_HELP CLI_OPEN_HELP;
static const char realign_help[] =
    REALIGN_HELP EDITS_HELP WRITE_HELP RESERVE_OPTION_HELP CLI_OPEN_HELP;
static const char edit_help[] = EDIT_HELP EDITS_HELP WRITE_HELP RESERVE_OPTION_HELP CLI_OPEN_HELP;
static const char reserve_help[] = RESERVE_HELP WRITE_HELP CLI_OPEN_HELP;

enum {
    OPT_TYPE = 2000, OPT_JSON, OPT_FILE, OPT_SET, OPT_SET_JSON, OPT_SET_FILE, OPT_SET_JSON_FILE,
    OPT_RM, OPT_RENAME, OPT_REALIGN, OPT_RENAME_TENSOR, OPT_RM_TENSOR, OPT_EDITS, OPT_FORCE,
    OPT_NO_IN_PLACE, OPT_RESERVE, OPT_SPECIAL_TOKEN, OPT_CHAT_TEMPLATE_CONFIG
};

/* The verbs, and which of them take which options. */
enum { V_SET = 1, V_RM = 2, V_RENAME = 4, V_REALIGN = 8, V_EDIT = 16, V_RESERVE = 32 };
#define V_EDITS (V_SET | V_RM | V_RENAME | V_REALIGN | V_EDIT)

static const struct {
    const char *verb;
    unsigned bit;
    const char *help;
} verbs[] = {
    {"set", V_SET, set_help},         {"rm", V_RM, rm_help},
    {"rename", V_RENAME, rename_help}, {"realign", V_REALIGN, realign_help},
    {"edit", V_EDIT, edit_help},      {"reserve", V_RESERVE, reserve_help},
};

/* Options that only some verbs take (the others take every verb's). */
static const struct {
    int opt;
    unsigned verbs;
    const char *name;
} only_for[] = {
    {OPT_TYPE, V_SET, "--type"},
    {OPT_JSON, V_SET, "--json"},
    {OPT_FILE, V_SET, "--file"},
    {OPT_SET, V_EDITS, "--set"},
    {OPT_SET_JSON, V_EDITS, "--set-json"},
    {OPT_SET_FILE, V_EDITS, "--set-file"},
    {OPT_SET_JSON_FILE, V_EDITS, "--set-json-file"},
    {OPT_RM, V_EDITS, "--rm"},
    {OPT_RENAME, V_EDITS, "--rename"},
    {OPT_REALIGN, V_EDITS, "--realign"},
    {OPT_RENAME_TENSOR, V_EDITS, "--rename-tensor"},
    {OPT_RM_TENSOR, V_EDITS, "--rm-tensor"},
    {OPT_EDITS, V_EDITS, "--edits"},
    {OPT_RESERVE, V_EDITS, "--reserve"},
    {OPT_SPECIAL_TOKEN, V_EDITS, "--special-token"},
    {OPT_CHAT_TEMPLATE_CONFIG, V_EDITS, "--chat-template-config"},
};

typedef struct counter {
    int n;
} counter;

static void count_warning(void *user, const char *message, uint64_t offset) {
    (void)message;
    (void)offset;
    ((counter *)user)->n++;
}

static void print_warning(void *user, const char *message, uint64_t offset) {
    (void)offset;
    cli_errorf("%s: %s", (const char *)user, message);
}

/* The first operation, from the verb's positional arguments. */
static int verb_ops(edit_list *l, unsigned verb, int argc, char **argv, int vtype,
                    enum edit_kind set_kind, uint64_t *reserve) {
    switch (verb) {
    case V_EDIT: return argc == 0 ? 0 : -1;
    case V_RESERVE:
        return argc == 1 && cli_parse_size(argv[0], "reserve", reserve) == 0 ? 0 : -1;
    case V_SET: return argc == 2 ? edits_add(l, set_kind, argv[0], argv[1], vtype) : -1;
    case V_RENAME: return argc == 2 ? edits_add(l, EDIT_RENAME, argv[0], argv[1], -1) : -1;
    case V_REALIGN: return argc == 1 ? edits_add(l, EDIT_REALIGN, NULL, argv[0], -1) : -1;
    default: break;
    }
    if (argc == 0)
        return -1;
    for (int i = 0; i < argc; i++) { /* rm */
        if (edits_add(l, EDIT_RM, argv[i], NULL, -1) != 0)
            return -1;
    }
    return 0;
}

/* Is the edit of path written back over it (no -o, or -o naming the same file)? */
static int in_place_target(const char *path, const char *out) {
    struct stat a, b;
    return out == NULL || (stat(path, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev &&
                           a.st_ino == b.st_ino);
}

static int write_back(const gguf_file *f, const char *path, const char *out, int in_place_ok,
                      uint64_t reserve, int verbose) {
    gguf_error err;
    gguf_error_clear(&err);
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.no_in_place = !in_place_ok;
    opt.reserve = reserve;
    int same = in_place_target(path, out);
    cli_progress bar; /* for a rewrite of the whole file */
    cli_progress_attach(&bar, "writing", f, &opt);
    if (same) {
        gguf_update_result res;
        int rc = gguf_file_update(f, path, &opt, &res, &err);
        cli_progress_end(&bar);
        if (rc != 0) {
            cli_report(path, &err);
            return CLI_BAD;
        }
        if (verbose && res.in_place && res.inserted > 0)
            fprintf(stderr, "%s: header grown in place by %llu bytes inserted before the data "
                    "(through a journal, no data copied); %zu tensor%s checked: the new header "
                    "points each at its unchanged bytes\n", path,
                    (unsigned long long)res.inserted, res.tensors_checked,
                    CLI_S(res.tensors_checked));
        else if (verbose && res.in_place)
            fprintf(stderr, "%s: header rewritten in place (through a journal); %zu tensor%s "
                    "checked: the new header points each at its unchanged bytes\n", path,
                    res.tensors_checked, CLI_S(res.tensors_checked));
        else if (verbose)
            fprintf(stderr, "%s: rewritten and renamed over the file (%llu bytes cloned, the "
                    "rest copied); %zu tensor%s checked: name, type, size and bytes equal to the "
                    "original's\n", path, (unsigned long long)res.cloned, res.tensors_checked,
                    CLI_S(res.tensors_checked));
        if (!res.in_place && res.outgrew && gguf_kv_find(f, GGUF_PADDING_KEY) < 0 && reserve == 0)
            fprintf(stderr, "%s: note: the header outgrew its padding, so the whole file was "
                    "rewritten; `gguf-edit reserve %s 1M` keeps room for later edits to fit in "
                    "place\n", path, path);
        if (!res.in_place && res.hard_links > 1)
            fprintf(stderr, "%s: note: the file had %u hard links; the other%s keep%s the old "
                    "contents\n", path, res.hard_links, CLI_S(res.hard_links - 1),
                    res.hard_links == 2 ? "s" : "");
        return CLI_OK;
    }
    opt.verify = 1;
    int rc = gguf_file_save(f, out, &opt, &err);
    cli_progress_end(&bar);
    if (rc != 0) {
        cli_report(out, &err);
        return CLI_BAD;
    }
    if (verbose)
        fprintf(stderr, "%s: written; %zu tensor%s checked: name, type, size and bytes equal "
                "to those of %s\n", out, gguf_tensor_count(f), CLI_S(gguf_tensor_count(f)), path);
    return CLI_OK;
}

/* Does the edit touch a split key? */
static int is_split_key(const char *key) {
    return key != NULL && (strcmp(key, "split.no") == 0 || strcmp(key, "split.count") == 0 ||
                           strcmp(key, "split.tensors.count") == 0);
}

/* A shard of a split set (set: path opened as one): the edit goes to the first shard, which
 * holds the set's metadata. What would have to change in every shard (the split keys, the
 * tensor count) is refused, and a tensor may only be renamed to a name no shard uses. Sets
 * *target (malloc'd) to the first shard, or to NULL for a file that is no shard. */
static int split_target(char **target, gguf_file *set, const char *path, const edit_list *ops,
                        const char *out) {
    *target = NULL;
    int rc = CLI_OK;
    size_t n = gguf_file_shard_count(set);
    const char *first = gguf_file_path(gguf_file_shard(set, 0));
    for (size_t i = 0; n > 1 && rc == CLI_OK && i < ops->n; i++) {
        const edit_op *e = &ops->ops[i];
        if (is_split_key(e->key) || (e->kind == EDIT_RENAME && is_split_key(e->value))) {
            cli_errorf("%s: the split keys say how the set's %zu shards fit together and must "
                       "agree in every shard: nothing changed (merge the set, or edit one file "
                       "with --one-file)", path, n);
            rc = CLI_BAD;
        } else if (e->kind == EDIT_RM_TENSOR) {
            cli_errorf("%s: removing a tensor from a split set changes split.tensors.count in "
                       "every shard: nothing changed (merge the set first)", path);
            rc = CLI_BAD;
        } else if (e->kind == EDIT_RENAME_TENSOR && gguf_tensor_find(set, e->value) >= 0) {
            cli_errorf("%s: tensor '%s' exists in the set: nothing changed", path, e->value);
            rc = CLI_BAD;
        } else if (e->kind == EDIT_RENAME_TENSOR) {
            int64_t t = gguf_tensor_find(set, e->key);
            if (t >= 0 && gguf_tensor_shard(set, (size_t)t) != 0) {
                cli_errorf("%s: tensor '%s' is in shard %u; only the first shard is edited: "
                           "nothing changed", path, e->key, gguf_tensor_shard(set, (size_t)t) + 1);
                rc = CLI_BAD;
            }
        }
    }
    struct stat a, b;
    if (n > 1 && rc == CLI_OK && out != NULL &&
        !(stat(first, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev &&
          a.st_ino == b.st_ino)) {
        cli_errorf("%s: a split set is edited in its first shard, in place: -o would write a "
                   "lone shard (merge the set first, or edit one file with --one-file)", path);
        rc = CLI_BAD;
    }
    if (n > 1 && rc == CLI_OK) {
        size_t len = strlen(first) + 1;
        *target = malloc(len);
        if (*target != NULL)
            memcpy(*target, first, len);
        else {
            cli_errorf("out of memory");
            rc = CLI_BAD;
        }
    }
    return rc;
}

/* What set's value flags make of VALUE: text, JSON, from a file or not. */
static enum edit_kind set_kind_of(int json, int file) {
    if (file)
        return json ? EDIT_SET_JSON_FILE : EDIT_SET_FILE;
    return json ? EDIT_SET_JSON : EDIT_SET;
}

int cmd_edit(int argc, char **argv) {
    static const struct option longopts[] = {
        {"type", required_argument, NULL, OPT_TYPE}, {"json", no_argument, NULL, OPT_JSON},
        {"file", no_argument, NULL, OPT_FILE}, {"set", required_argument, NULL, OPT_SET},
        {"set-json", required_argument, NULL, OPT_SET_JSON},
        {"set-file", required_argument, NULL, OPT_SET_FILE},
        {"set-json-file", required_argument, NULL, OPT_SET_JSON_FILE},
        {"rm", required_argument, NULL, OPT_RM}, {"rename", required_argument, NULL, OPT_RENAME},
        {"realign", required_argument, NULL, OPT_REALIGN},
        {"rename-tensor", required_argument, NULL, OPT_RENAME_TENSOR},
        {"rm-tensor", required_argument, NULL, OPT_RM_TENSOR},
        {"edits", required_argument, NULL, OPT_EDITS}, {"force", no_argument, NULL, OPT_FORCE},
        {"no-in-place", no_argument, NULL, OPT_NO_IN_PLACE},
        {"reserve", required_argument, NULL, OPT_RESERVE},
        {"special-token", required_argument, NULL, OPT_SPECIAL_TOKEN},
        {"chat-template-config", required_argument, NULL, OPT_CHAT_TEMPLATE_CONFIG},
        {"output", required_argument, NULL, 'o'}, {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'}, CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    unsigned verb = V_EDIT;
    const char *help = edit_help;
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        if (strcmp(argv[0], verbs[i].verb) == 0) {
            verb = verbs[i].bit;
            help = verbs[i].help;
        }
    }
    const char *out = NULL, *type_arg = NULL;
    edit_list extra = {0};
    unsigned flags = CLI_READ_FLAGS;
    int vtype = -1, force = 0, in_place = 1, verbose = 0, json = 0, file = 0, c, bad = 0;
    int status = CLI_OK;
    uint64_t reserve = 0;
    while (!bad && (c = cli_getopt(argc, argv, "o:vh", longopts, help, &flags, &status)) >= 0) {
        for (size_t i = 0; i < sizeof only_for / sizeof only_for[0]; i++) {
            if (only_for[i].opt == c && !(only_for[i].verbs & verb)) {
                edits_free(&extra);
                if (only_for[i].verbs == V_SET)
                    return cli_usage_error(help, "option '%s' is for set only (in other edits: "
                                           "--set KEY:TYPE=VALUE, --set-json, --set-file)",
                                           only_for[i].name);
                return cli_usage_error(help, "option '%s' is not one of %s's (run edits with "
                                       "'gguf-edit edit')", only_for[i].name, argv[0]);
            }
        }
        switch (c) {
        case OPT_TYPE:
            if (type_arg != NULL && gguf_vtype_parse(optarg) != gguf_vtype_parse(type_arg)) {
                edits_free(&extra);
                return cli_usage_error(help, "--type given twice ('%s', then '%s'): give one",
                                       type_arg, optarg);
            }
            type_arg = optarg;
            vtype = gguf_vtype_parse(optarg);
            if (vtype < 0) {
                edits_free(&extra);
                return cli_usage_error(help, "unknown value type '%s' (u8 i8 u16 i16 u32 i32 "
                                       "u64 i64 f32 f64 bool str array)", optarg);
            }
            break;
        case OPT_JSON: json = 1; break;
        case OPT_FILE: file = 1; break;
        case OPT_SET: bad = edits_add_pair(&extra, EDIT_SET, optarg) != 0; break;
        case OPT_SET_JSON: bad = edits_add_pair(&extra, EDIT_SET_JSON, optarg) != 0; break;
        case OPT_SET_FILE: bad = edits_add_pair(&extra, EDIT_SET_FILE, optarg) != 0; break;
        case OPT_SET_JSON_FILE:
            bad = edits_add_pair(&extra, EDIT_SET_JSON_FILE, optarg) != 0;
            break;
        case OPT_RENAME: bad = edits_add_pair(&extra, EDIT_RENAME, optarg) != 0; break;
        case OPT_RENAME_TENSOR: bad = edits_add_pair(&extra, EDIT_RENAME_TENSOR, optarg) != 0; break;
        case OPT_RM: bad = edits_add(&extra, EDIT_RM, optarg, NULL, -1) != 0; break;
        case OPT_RM_TENSOR: bad = edits_add(&extra, EDIT_RM_TENSOR, optarg, NULL, -1) != 0; break;
        case OPT_REALIGN: bad = edits_add(&extra, EDIT_REALIGN, NULL, optarg, -1) != 0; break;
        case OPT_EDITS: bad = edits_load(&extra, optarg) != 0; break;
        case OPT_SPECIAL_TOKEN: /* NAME TEXT: the text is the next argument */
            if (optind >= argc || edits_special_token_key(optarg) == NULL) {
                edits_free(&extra);
                if (optind >= argc)
                    return cli_usage_error(help, "--special-token takes NAME TEXT");
                return cli_usage_error(help, "--special-token: unknown name '%s' (bos eos eot "
                                       "eom unk sep pad mask fim_pre ...: see --help)", optarg);
            }
            bad = edits_add(&extra, EDIT_SPECIAL_TOKEN, optarg, argv[optind++], -1) != 0;
            break;
        case OPT_CHAT_TEMPLATE_CONFIG:
            bad = edits_add(&extra, EDIT_CHAT_TEMPLATE_CONFIG, NULL, optarg, -1) != 0;
            break;
        case OPT_FORCE: force = 1; break;
        case OPT_NO_IN_PLACE: in_place = 0; break;
        case OPT_RESERVE: bad = cli_parse_size(optarg, "--reserve", &reserve) != 0; break;
        case 'o': out = optarg; break;
        case 'v': verbose = 1; break;
        default: break;
        }
    }
    if (!bad && c == CLI_DONE) {
        edits_free(&extra);
        return status;
    }
    edit_list ops = {0};
    const char *why = NULL;
    if (!bad && optind >= argc)
        why = "missing operand";
    else if (!bad && verb_ops(&ops, verb, argc - optind - 1, argv + optind + 1, vtype,
                              set_kind_of(json, file), &reserve) != 0)
        why = argc - optind - 1 < (verb == V_SET || verb == V_RENAME ? 2 : 1) ? "missing operand"
                                                                           : "too many operands";
    for (size_t i = 0; !bad && why == NULL && i < extra.n; i++) {
        const edit_op *e = &extra.ops[i];
        bad = edits_add(&ops, e->kind, e->key, e->value, e->vtype) != 0;
    }
    edits_free(&extra);
    if (!bad && why == NULL && ops.n == 0 && !(verb == V_RESERVE && reserve > 0))
        why = "nothing to do: give edits";
    if (bad || why != NULL) {
        edits_free(&ops);
        if (why != NULL)
            return cli_usage_error(help, "%s", why);
        return cli_usage_error(help, NULL);
    }
    const char *path = argv[optind];
    char *target = NULL;
    /* an interrupted edit is finished before the file is read; the file is read once, unless
     * it is a shard of a set, whose first shard is then read on its own */
    gguf_file *f = NULL;
    int rc = in_place_target(path, out) && cli_recover(path) != CLI_OK ? CLI_BAD : CLI_OK;
    if (rc == CLI_OK && (f = cli_open(path, flags)) == NULL)
        rc = CLI_BAD;
    if (rc == CLI_OK && (flags & GGUF_OPEN_SPLIT_SET))
        rc = split_target(&target, f, path, &ops, out);
    if (rc == CLI_OK && gguf_file_shard_count(f) > 1) {
        gguf_file_free(f);
        f = NULL;
        path = target; /* the first shard of the set */
        if (in_place_target(path, out) && cli_recover(path) != CLI_OK)
            rc = CLI_BAD;
        else if ((f = cli_open(path, flags & ~(unsigned)GGUF_OPEN_SPLIT_SET)) == NULL)
            rc = CLI_BAD;
    }
    if (rc != CLI_OK) {
        gguf_file_free(f);
        edits_free(&ops);
        free(target);
        return CLI_BAD;
    }
    counter before = {0}, after = {0};
    gguf_file_lint(f, count_warning, &before, NULL);
    rc = edits_apply(f, &ops, path, force) == 0 ? CLI_OK : CLI_BAD;
    edits_free(&ops);
    if (rc == CLI_OK) {
        gguf_file_lint(f, count_warning, &after, NULL);
        if (after.n > before.n && !force) {
            gguf_file_lint(f, print_warning, (void *)path, NULL);
            cli_errorf("%s: the edit would make a file llama.cpp refuses (warnings above); "
                       "nothing written (--force writes it anyway)", path);
            rc = CLI_BAD;
        }
    }
    if (rc == CLI_OK)
        rc = write_back(f, path, out, in_place, reserve, verbose);
    gguf_file_free(f);
    free(target);
    return rc;
}
