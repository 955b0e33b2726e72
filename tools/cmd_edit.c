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

typedef struct edit_values {
    edit_list extra; /* the EDITS options, in order */
    const char *out, *type_arg;
    int vtype, force, in_place, verbose, json, file;
    uint64_t reserve;
} edit_values;

/* set's --type: once, or again with the same type */
static int take_type(const opt_spec *o, const char *arg, void *values) {
    edit_values *v = values;
    (void)o;
    if (v->type_arg != NULL && gguf_vtype_parse(arg) != gguf_vtype_parse(v->type_arg))
        return opt_error("--type given twice ('%s', then '%s'): give one", v->type_arg, arg);
    v->type_arg = arg;
    v->vtype = gguf_vtype_parse(arg);
    if (v->vtype < 0)
        return opt_error("unknown value type '%s' (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool "
                         "str array)", arg);
    return 0;
}

/* An EDITS option: its edit_kind is the entry's value. */
static int take_edit(const opt_spec *o, const char *arg, void *values) {
    edit_list *l = &((edit_values *)values)->extra;
    enum edit_kind kind = (enum edit_kind)o->value;
    switch (kind) {
    case EDIT_RM:
    case EDIT_RM_TENSOR: return edits_add(l, kind, arg, NULL, -1);
    case EDIT_REALIGN:
    case EDIT_CHAT_TEMPLATE_CONFIG: return edits_add(l, kind, NULL, arg, -1);
    case EDIT_SPECIAL_TOKEN: { /* NAME TEXT: the text is the next argument */
        const char *text = opt_take_next();
        if (text == NULL)
            return opt_error("--special-token takes NAME TEXT");
        if (edits_special_token_key(arg) == NULL)
            return opt_error("--special-token: unknown name '%s' (bos eos eot eom unk sep pad "
                             "mask fim_pre ...: see --help)", arg);
        return edits_add(l, kind, arg, text, -1);
    }
    default: return edits_add_pair(l, kind, arg);
    }
}

/* --edits PATH */
static int take_edits_file(const opt_spec *o, const char *arg, void *values) {
    (void)o;
    return edits_load(&((edit_values *)values)->extra, arg);
}

static const opt_spec set_options[] = {
    OPT_HANDLER_("type", 0, "T",
                 "value type: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool str, or array\n"
                 "(with --json: the element type)",
                 take_type, 0),
    OPT_FLAG_("json", 0, "VALUE is a JSON array (element type kept, or --type's, or inferred)",
              edit_values, json, 1),
    OPT_FLAG_("file", 0,
              "VALUE is the path of a file whose text is the value, less the one\n"
              "newline that ends it (as get prints it); typed like any VALUE",
              edit_values, file, 1),
    {0}};

static const opt_spec edits_options[] = {
    OPT_HEADING_("EDITS, applied in order after the command's own:", 34),
    OPT_HANDLER_("set", 0, "KEY[:TYPE]=VALUE", "set a value (as set; TYPE as --type)", take_edit,
                 EDIT_SET),
    OPT_HANDLER_("set-json", 0, "KEY[:ELEMTYPE]=JSON", "set an array from JSON (as set --json)",
                 take_edit, EDIT_SET_JSON),
    OPT_HANDLER_("set-file", 0, "KEY[:TYPE]=PATH", "set a value from a file's text (as set --file)",
                 take_edit, EDIT_SET_FILE),
    OPT_HANDLER_("set-json-file", 0, "KEY[:ELEMTYPE]=PATH",
                 "set an array from a JSON file (as set --json --file)", take_edit,
                 EDIT_SET_JSON_FILE),
    OPT_HANDLER_("rm", 0, "KEY", "remove a key", take_edit, EDIT_RM),
    OPT_HANDLER_("rename", 0, "OLD=NEW", "rename a key", take_edit, EDIT_RENAME),
    OPT_HANDLER_("realign", 0, "N", "change the alignment (as realign)", take_edit, EDIT_REALIGN),
    OPT_HANDLER_("rename-tensor", 0, "OLD=NEW", "rename a tensor", take_edit, EDIT_RENAME_TENSOR),
    OPT_HANDLER_("rm-tensor", 0, "NAME", "remove a tensor", take_edit, EDIT_RM_TENSOR),
    OPT_HANDLER_("special-token", 0, "NAME TEXT",
                 "set special token NAME's id (tokenizer.ggml.NAME_token_id,\n"
                 "UINT32) to the first token whose text is TEXT, as\n"
                 "gguf_new_metadata.py does; NAME: bos eos eot eom unk sep\n"
                 "pad mask fim_pre fim_suf fim_mid fim_pad fim_rep fim_sep\n"
                 "prefix suffix middle (unknown, seperator, padding too)",
                 take_edit, EDIT_SPECIAL_TOKEN),
    OPT_HANDLER_("chat-template-config", 0, "PATH",
                 "the chat template of a Hugging Face tokenizer_config.json:\n"
                 "one (tokenizer.chat_template) or a list of named ones\n"
                 "(tokenizer.chat_template.NAME, tokenizer.chat_templates);\n"
                 "the file's template keys are replaced",
                 take_edit, EDIT_CHAT_TEMPLATE_CONFIG),
    OPT_HANDLER_("edits", 0, "PATH",
                 "operations from a file, one per line: set KEY[:TYPE] VALUE\n"
                 "(VALUE: the rest of the line), set-json KEY JSON, set-file\n"
                 "KEY PATH, set-json-file KEY PATH, rm KEY, rename OLD NEW,\n"
                 "realign N, rename-tensor OLD NEW, rm-tensor NAME ('#'\n"
                 "comments)",
                 take_edits_file, 0),
    {0}};

static const opt_spec write_options[] = {
    OPT_HEADING_("OPTIONS:", OPT_HELP_COLUMN),
    OPT_STRING_("output", 'o', "OUT", "write the result to OUT instead of changing FILE",
                edit_values, out),
    OPT_FLAG_("force", 0,
              "write even what ggml would refuse (say, alignment 48), or a special\n"
              "token id outside the vocabulary",
              edit_values, force, 1),
    OPT_FLAG_("no-in-place", 0, "always rewrite the whole file", edit_values, in_place, 0),
    OPT_FLAG_("verbose", 'v', "say how the file was written and what was checked", edit_values,
              verbose, 1),
    {0}};

static const opt_spec reserve_option[] = {
    OPT_SIZE_("reserve", "SIZE", "also keep SIZE bytes of room in the header (as reserve)",
              edit_values, reserve, 0, UINT64_MAX),
    {0}};

static const opt_spec *const edit_groups[] = {edits_options, write_options, reserve_option,
                                              opt_open_read, opt_open_one_file, opt_open_url,
                                              NULL};
static const opt_spec *const reserve_groups[] = {write_options, opt_open_read, opt_open_one_file,
                                                 opt_open_url, NULL};
/* what the verbs that do not take them still recognise, to say so */
static const opt_spec *const not_set[] = {set_options, NULL};
static const opt_spec *const not_reserve[] = {set_options, edits_options, reserve_option, NULL};

static int refuse(const opt_command *c, const opt_spec *o) {
    for (const opt_spec *s = set_options; s->kind != OPT_END; s++) {
        if (s == o)
            return opt_error("option '--%s' is for set only (in other edits: --set "
                             "KEY:TYPE=VALUE, --set-json, --set-file)", o->name);
    }
    return opt_error("option '--%s' is not one of %s's (run edits with 'gguf-edit edit')",
                     o->name, c->name);
}

static int edit_run(int argc, char **argv);

#define EDIT_VERB(NAME, LINE, SYNOPSIS, SUMMARY, OPTIONS, GROUPS, FOREIGN)                       \
    {.name = NAME, .run = edit_run, .line = LINE, .synopsis = SYNOPSIS, .summary = SUMMARY,    \
     .options = OPTIONS, .groups = GROUPS, .foreign = FOREIGN, .refuse = refuse}

const opt_command cmd_set = EDIT_VERB(
    "set", "set FILE KEY VALUE [--type T] [-o OUT] add or change a value (type kept if the key exists)",
    "usage: gguf-edit set FILE KEY VALUE [--type T] [--json] [--file] [EDITS] [OPTIONS]\n",
    "Sets KEY to VALUE. An existing key keeps its place and its type (--type changes it); a new\n"
    "key goes at the end, typed from its text (true/false: BOOL, integers: INT32 or INT64,\n"
    "decimals: FLOAT32, else STRING) unless --type says otherwise. An ARRAY value is JSON.\n",
    set_options, edit_groups, NULL);
const opt_command cmd_rm = EDIT_VERB(
    "rm", "rm FILE KEY... [-o OUT]               remove keys",
    "usage: gguf-edit rm FILE KEY... [EDITS] [OPTIONS]\n", "Removes the keys.\n", NULL,
    edit_groups, not_set);
const opt_command cmd_rename = EDIT_VERB(
    "rename", "rename FILE OLD NEW [-o OUT]          rename a key (value, type and place kept)",
    "usage: gguf-edit rename FILE OLD NEW [EDITS] [OPTIONS]\n",
    "Renames key OLD to NEW; its value, type and place are kept.\n", NULL, edit_groups, not_set);
const opt_command cmd_realign = EDIT_VERB(
    "realign", "realign FILE ALIGN [-o OUT]           change general.alignment, lay the data out again",
    "usage: gguf-edit realign FILE ALIGN [EDITS] [OPTIONS]\n",
    "Sets general.alignment to ALIGN (a power of two; --force for other multiples of 8) and\n"
    "lays the tensor data out again.\n",
    NULL, edit_groups, not_set);
const opt_command cmd_edit = EDIT_VERB(
    "edit", "edit FILE [--set K=V --rm K ...]      several edits in one run (--edits PATH)",
    "usage: gguf-edit edit FILE [EDITS] [OPTIONS]\n",
    "Applies the EDITS in order, in one run: one write, one check.\n", NULL, edit_groups,
    not_set);
const opt_command cmd_reserve = EDIT_VERB(
    "reserve", "reserve FILE SIZE                     keep room in the header so later edits fit in place",
    "usage: gguf-edit reserve FILE SIZE [OPTIONS]\n",
    "Keeps SIZE bytes (K, M, G) of room in the header (the libgguf.padding key), so that later\n"
    "edits are written in place. On ext4 and XFS growing it inserts blocks in place; elsewhere\n"
    "the file is rewritten once.\n",
    NULL, reserve_groups, not_reserve);

/* The verbs, as verb_ops tells them apart. */
enum { V_SET = 1, V_RM = 2, V_RENAME = 4, V_REALIGN = 8, V_EDIT = 16, V_RESERVE = 32 };

static const struct {
    const opt_command *c;
    unsigned bit;
} verbs[] = {
    {&cmd_set, V_SET},         {&cmd_rm, V_RM},     {&cmd_rename, V_RENAME},
    {&cmd_realign, V_REALIGN}, {&cmd_edit, V_EDIT}, {&cmd_reserve, V_RESERVE},
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
        return argc == 1 && opt_parse_size(reserve, argv[0], "SIZE", 0, UINT64_MAX, 0) == 0 ? 0
                                                                                          : -1;
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

static int edit_run(int argc, char **argv) {
    unsigned verb = V_EDIT;
    const opt_command *c = &cmd_edit;
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        if (strcmp(argv[0], verbs[i].c->name) == 0) {
            verb = verbs[i].bit;
            c = verbs[i].c;
        }
    }
    const char *help = c->synopsis;
    unsigned flags = CLI_READ_FLAGS;
    edit_values v = {.vtype = -1, .in_place = 1};
    int status = opt_parse(c, argc, argv, &v, &flags);
    if (status >= 0) {
        edits_free(&v.extra);
        return status;
    }
    edit_list extra = v.extra;
    const char *out = v.out;
    int vtype = v.vtype, force = v.force, in_place = v.in_place, verbose = v.verbose;
    int json = v.json, file = v.file, bad = 0;
    uint64_t reserve = v.reserve;
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
