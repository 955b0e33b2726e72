/* The edit engine behind set, rm, rename, realign and edit: a list of operations parsed from
 * the command line (or an edits file), applied in order to an opened file, then written back. */
#ifndef GGUF_TOOLS_EDITS_H
#define GGUF_TOOLS_EDITS_H

#include <libgguf/gguf.h>
#include <stddef.h>

enum edit_kind {
    EDIT_SET,           /* key, value as text; type: --type's, the key's, or inferred */
    EDIT_SET_JSON,      /* key, JSON array text; vtype: the element type */
    EDIT_SET_FILE,      /* as EDIT_SET, the text being the contents of the file named by value,
                           less the one newline that ends it (as get prints it) */
    EDIT_RM,            /* key */
    EDIT_RENAME,        /* key -> value */
    EDIT_REALIGN,       /* value: the new alignment */
    EDIT_RENAME_TENSOR, /* key -> value */
    EDIT_RM_TENSOR,     /* key */
    EDIT_SET_JSON_FILE, /* as EDIT_SET_JSON, the JSON read from a file as EDIT_SET_FILE */
    EDIT_SPECIAL_TOKEN, /* key: a special token's name (eos, bos, ...), value: the token's text;
                           sets tokenizer.ggml.NAME_token_id to the first token with that text */
    EDIT_CHAT_TEMPLATE_CONFIG /* value: a Hugging Face tokenizer_config.json, whose
                                 chat_template becomes tokenizer.chat_template (a list of named
                                 templates: tokenizer.chat_template.NAME and the default) */
};

typedef struct edit_op {
    enum edit_kind kind;
    char *key;
    char *value;
    int vtype; /* for EDIT_SET*: -1 to keep the key's type or infer one */
} edit_op;

typedef struct edit_list {
    edit_op *ops;
    size_t n;
    size_t cap;
} edit_list;

/* Adds an operation (copies the strings). Returns 0, or -1 on a bad argument (message printed). */
int edits_add(edit_list *l, enum edit_kind kind, const char *key, const char *value, int vtype);
/* Parses "--set KEY[:TYPE]=VALUE" style arguments ("KEY=VALUE" split at the first '='). */
int edits_add_pair(edit_list *l, enum edit_kind kind, const char *arg);
/* Reads an edits file: one operation per line (see README), '#' comments. */
int edits_load(edit_list *l, const char *path);
void edits_free(edit_list *l);

/* The key of a special token's name as gguf_new_metadata.py knows them ("eos" ->
 * "tokenizer.ggml.eos_token_id"; "unk", "sep" and "pad" too), or NULL. */
const char *edits_special_token_key(const char *name);

/* Applies the operations in order. A special token id outside the vocabulary is refused unless
 * force. Returns 0, or prints the failing operation and returns 1. */
int edits_apply(gguf_file *f, const edit_list *l, const char *path, int force);

#endif
