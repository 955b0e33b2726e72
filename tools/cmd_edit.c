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

static const char usage_text[] =
    "usage: gguf-edit set FILE KEY VALUE [--type T | --json | --file] [EDITS] [OPTIONS]\n"
    "       gguf-edit rm FILE KEY... [EDITS] [OPTIONS]\n"
    "       gguf-edit rename FILE OLD NEW [EDITS] [OPTIONS]\n"
    "       gguf-edit realign FILE ALIGN [EDITS] [OPTIONS]\n"
    "       gguf-edit edit FILE [EDITS] [OPTIONS]\n"
    "       gguf-edit reserve FILE SIZE [OPTIONS]\n"
    "An existing key keeps its place and its type (--type changes it); a new key goes at the end,\n"
    "typed from its text (true/false: BOOL, integers: INT32 or INT64, decimals: FLOAT32, else\n"
    "STRING) unless --type says otherwise.\n"
    "  --type T           value type: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool str, or array\n"
    "  --json             VALUE is a JSON array (element type kept, or --type's, or inferred)\n"
    "  --file             VALUE is the path of a file holding the string (chat templates)\n"
    "EDITS, applied in order after the command's own:\n"
    "  --set KEY[:TYPE]=VALUE   --set-json KEY[:ELEMTYPE]=JSON   --set-file KEY=PATH\n"
    "  --rm KEY   --rename OLD=NEW   --realign N   --rename-tensor OLD=NEW   --rm-tensor NAME\n"
    "  --edits PATH       operations from a file, one per line: set KEY[:TYPE] VALUE,\n"
    "                     set-json KEY JSON, set-file KEY PATH, rm KEY, rename OLD NEW,\n"
    "                     realign N, rename-tensor OLD NEW, rm-tensor NAME ('#' comments)\n"
    "OPTIONS:\n"
    "  -o, --output OUT   write the result to OUT instead of changing FILE\n"
    "  --force            write even what ggml would refuse (say, alignment 48)\n"
    "  --no-in-place      always rewrite the whole file\n"
    "  --reserve SIZE     keep SIZE bytes (K, M, G) of room in the header, so that later edits fit\n"
    "                     in place (the libgguf.padding key; on ext4 and XFS growing it inserts\n"
    "                     blocks in place, elsewhere the file is rewritten once)\n"
    "  -v, --verbose      say how the file was written and what was checked\n" CLI_OPEN_HELP;

enum {
    OPT_TYPE = 2000, OPT_JSON, OPT_FILE, OPT_SET, OPT_SET_JSON, OPT_SET_FILE, OPT_RM, OPT_RENAME,
    OPT_REALIGN, OPT_RENAME_TENSOR, OPT_RM_TENSOR, OPT_EDITS, OPT_FORCE, OPT_NO_IN_PLACE,
    OPT_RESERVE
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
static int verb_ops(edit_list *l, const char *verb, int argc, char **argv, int vtype,
                    enum edit_kind set_kind, uint64_t *reserve) {
    if (strcmp(verb, "edit") == 0)
        return argc == 0 ? 0 : -1;
    if (strcmp(verb, "reserve") == 0)
        return argc == 1 && cli_parse_size(argv[0], "reserve", reserve) == 0 ? 0 : -1;
    if (strcmp(verb, "set") == 0)
        return argc == 2 ? edits_add(l, set_kind, argv[0], argv[1], vtype) : -1;
    if (strcmp(verb, "rename") == 0)
        return argc == 2 ? edits_add(l, EDIT_RENAME, argv[0], argv[1], -1) : -1;
    if (strcmp(verb, "realign") == 0)
        return argc == 1 ? edits_add(l, EDIT_REALIGN, NULL, argv[0], -1) : -1;
    if (argc == 0)
        return -1;
    for (int i = 0; i < argc; i++) { /* rm */
        if (edits_add(l, EDIT_RM, argv[i], NULL, -1) != 0)
            return -1;
    }
    return 0;
}

static int write_back(const gguf_file *f, const char *path, const char *out, int in_place_ok,
                      uint64_t reserve, int verbose) {
    gguf_error err;
    gguf_error_clear(&err);
    gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
    opt.no_in_place = !in_place_ok;
    opt.reserve = reserve;
    struct stat a, b;
    int same = out == NULL || (stat(path, &a) == 0 && stat(out, &b) == 0 &&
                               a.st_dev == b.st_dev && a.st_ino == b.st_ino);
    if (same) {
        gguf_update_result res;
        if (gguf_file_update(f, path, &opt, &res, &err) != 0) {
            cli_report(path, &err);
            return CLI_BAD;
        }
        if (verbose && res.in_place && res.inserted > 0)
            fprintf(stderr, "%s: header grown in place by %llu bytes inserted before the data "
                    "(through a journal, no data copied); %zu tensors checked: the new header "
                    "points each at its unchanged bytes\n", path,
                    (unsigned long long)res.inserted, res.tensors_checked);
        else if (verbose && res.in_place)
            fprintf(stderr, "%s: header rewritten in place (through a journal); %zu tensors "
                    "checked: the new header points each at its unchanged bytes\n", path,
                    res.tensors_checked);
        else if (verbose)
            fprintf(stderr, "%s: rewritten and renamed over the file (%llu bytes cloned, the "
                    "rest copied); %zu tensors checked: name, type, size and bytes equal to the "
                    "original's\n", path, (unsigned long long)res.cloned, res.tensors_checked);
        if (!res.in_place && in_place_ok && gguf_kv_find(f, GGUF_PADDING_KEY) < 0 && reserve == 0)
            fprintf(stderr, "%s: note: the header outgrew its padding, so the whole file was "
                    "rewritten; `gguf-edit reserve %s 1M` keeps room for later edits to fit in "
                    "place\n", path, path);
        if (!res.in_place && res.hard_links > 1)
            fprintf(stderr, "%s: note: the file had %u hard links; the others keep the old "
                    "contents\n", path, res.hard_links);
        return CLI_OK;
    }
    opt.verify = 1;
    if (gguf_file_save(f, out, &opt, &err) != 0) {
        cli_report(out, &err);
        return CLI_BAD;
    }
    if (verbose)
        fprintf(stderr, "%s: written; %zu tensors checked: name, type, size and bytes equal to "
                "those of %s\n", out, gguf_tensor_count(f), path);
    return CLI_OK;
}

/* Does the edit touch a split key? */
static int is_split_key(const char *key) {
    return key != NULL && (strcmp(key, "split.no") == 0 || strcmp(key, "split.count") == 0 ||
                           strcmp(key, "split.tensors.count") == 0);
}

/* A shard of a split set: the edit goes to the first shard, which holds the set's metadata.
 * What would have to change in every shard (the split keys, the tensor count) is refused, and
 * a tensor may only be renamed to a name no shard uses. Sets *target (malloc'd) to the first
 * shard, or to NULL for a file that is no shard. */
static int split_target(char **target, const char *path, unsigned flags, const edit_list *ops,
                        const char *out) {
    *target = NULL;
    gguf_file *set = cli_open(path, flags);
    if (set == NULL)
        return CLI_BAD;
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
    gguf_file_free(set);
    return rc;
}

int cmd_edit(int argc, char **argv) {
    static const struct option longopts[] = {
        {"type", required_argument, NULL, OPT_TYPE}, {"json", no_argument, NULL, OPT_JSON},
        {"file", no_argument, NULL, OPT_FILE}, {"set", required_argument, NULL, OPT_SET},
        {"set-json", required_argument, NULL, OPT_SET_JSON},
        {"set-file", required_argument, NULL, OPT_SET_FILE},
        {"rm", required_argument, NULL, OPT_RM}, {"rename", required_argument, NULL, OPT_RENAME},
        {"realign", required_argument, NULL, OPT_REALIGN},
        {"rename-tensor", required_argument, NULL, OPT_RENAME_TENSOR},
        {"rm-tensor", required_argument, NULL, OPT_RM_TENSOR},
        {"edits", required_argument, NULL, OPT_EDITS}, {"force", no_argument, NULL, OPT_FORCE},
        {"no-in-place", no_argument, NULL, OPT_NO_IN_PLACE},
        {"reserve", required_argument, NULL, OPT_RESERVE},
        {"output", required_argument, NULL, 'o'}, {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'}, CLI_OPEN_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    const char *verb = argv[0], *out = NULL;
    edit_list extra = {0};
    unsigned flags = CLI_READ_FLAGS;
    int vtype = -1, force = 0, in_place = 1, verbose = 0, c, bad = 0;
    uint64_t reserve = 0;
    enum edit_kind set_kind = EDIT_SET;
    while (!bad && (c = getopt_long(argc, argv, "o:vh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_TYPE:
            vtype = gguf_vtype_parse(optarg);
            if (vtype < 0) {
                cli_errorf("unknown value type '%s'", optarg);
                bad = 1;
            }
            break;
        case OPT_JSON: set_kind = EDIT_SET_JSON; break;
        case OPT_FILE: set_kind = EDIT_SET_FILE; break;
        case OPT_SET: bad = edits_add_pair(&extra, EDIT_SET, optarg) != 0; break;
        case OPT_SET_JSON: bad = edits_add_pair(&extra, EDIT_SET_JSON, optarg) != 0; break;
        case OPT_SET_FILE: bad = edits_add_pair(&extra, EDIT_SET_FILE, optarg) != 0; break;
        case OPT_RENAME: bad = edits_add_pair(&extra, EDIT_RENAME, optarg) != 0; break;
        case OPT_RENAME_TENSOR: bad = edits_add_pair(&extra, EDIT_RENAME_TENSOR, optarg) != 0; break;
        case OPT_RM: bad = edits_add(&extra, EDIT_RM, optarg, NULL, -1) != 0; break;
        case OPT_RM_TENSOR: bad = edits_add(&extra, EDIT_RM_TENSOR, optarg, NULL, -1) != 0; break;
        case OPT_REALIGN: bad = edits_add(&extra, EDIT_REALIGN, NULL, optarg, -1) != 0; break;
        case OPT_EDITS: bad = edits_load(&extra, optarg) != 0; break;
        case OPT_FORCE: force = 1; break;
        case OPT_NO_IN_PLACE: in_place = 0; break;
        case OPT_RESERVE: bad = cli_parse_size(optarg, "--reserve", &reserve) != 0; break;
        case 'o': out = optarg; break;
        case 'v': verbose = 1; break;
        case 'h': fputs(usage_text, stdout); edits_free(&extra); return CLI_OK;
        default: bad = cli_open_option(c, optarg, &flags) <= 0; break;
        }
    }
    edit_list ops = {0};
    if (!bad && (optind >= argc ||
                 verb_ops(&ops, verb, argc - optind - 1, argv + optind + 1, vtype, set_kind,
                          &reserve) != 0))
        bad = 1;
    for (size_t i = 0; !bad && i < extra.n; i++) {
        const edit_op *e = &extra.ops[i];
        bad = edits_add(&ops, e->kind, e->key, e->value, e->vtype) != 0;
    }
    edits_free(&extra);
    if (bad || (ops.n == 0 && !(strcmp(verb, "reserve") == 0 && reserve > 0))) {
        edits_free(&ops);
        fputs(usage_text, stderr);
        return CLI_USAGE;
    }
    const char *path = argv[optind];
    char *target = NULL;
    if ((flags & GGUF_OPEN_SPLIT_SET) && split_target(&target, path, flags, &ops, out) != CLI_OK) {
        edits_free(&ops);
        return CLI_BAD;
    }
    if (target != NULL)
        path = target; /* the first shard of the set */
    flags &= ~(unsigned)GGUF_OPEN_SPLIT_SET;
    struct stat a, b;
    int in_place_edit = out == NULL || (stat(path, &a) == 0 && stat(out, &b) == 0 &&
                                        a.st_dev == b.st_dev && a.st_ino == b.st_ino);
    if (in_place_edit && cli_recover(path) != CLI_OK) {
        edits_free(&ops);
        free(target);
        return CLI_BAD;
    }
    gguf_file *f = cli_open(path, flags);
    if (f == NULL) {
        edits_free(&ops);
        free(target);
        return CLI_BAD;
    }
    counter before = {0}, after = {0};
    gguf_file_lint(f, count_warning, &before, NULL);
    int rc = edits_apply(f, &ops, path) == 0 ? CLI_OK : CLI_BAD;
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
