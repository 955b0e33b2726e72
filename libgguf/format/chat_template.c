/* Chat templates from a tokenizer_config.json, written as gguf-py's add_chat_template writes
 * them (gguf_new_metadata.py --chat-template-config): the file is read whole first, so that a
 * malformed one changes nothing. */
#include "format/format.h"

#include <string.h>

typedef struct named_template {
    gguf__buf name, text;
} named_template;

/* What the top-level chat_template member holds. */
typedef struct templates {
    bool seen;            /* the member exists (null included) */
    bool is_list;         /* the list form: [{"name": ..., "template": ...}, ...] */
    gguf__buf single;     /* the string form */
    bool has_single;
    named_template *list; /* the list form's entries that have both members as strings */
    size_t n, cap;
    named_template entry; /* the entry being read */
    bool has_name, has_text;
    bool out_of_memory;
} templates;

static int entry_member(gguf__json_in *j, const char *key, void *user) {
    templates *t = user;
    bool is_name = strcmp(key, "name") == 0, is_text = strcmp(key, "template") == 0;
    if ((!is_name && !is_text) || *j->p != '"')
        return gguf__json_skip(j);
    gguf__buf *b = is_name ? &t->entry.name : &t->entry.text;
    b->len = 0; /* the last of duplicate members counts, as in Python's json */
    *(is_name ? &t->has_name : &t->has_text) = true;
    return gguf__json_string(j, b);
}

static int list_entry(gguf__json_in *j, size_t i, void *user) {
    (void)i;
    templates *t = user;
    t->has_name = t->has_text = false;
    t->entry.name.len = t->entry.text.len = 0;
    if (gguf__json_object(j, entry_member, t) != 0)
        return -1;
    if (t->entry.name.failed || t->entry.text.failed) {
        t->out_of_memory = true; /* a template cut short is never stored */
        return -1;
    }
    if (!t->has_name || !t->has_text)
        return 0;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4;
        named_template *g = gguf__realloc(t->list, cap * sizeof *g);
        if (g == NULL) {
            t->out_of_memory = true;
            return -1;
        }
        t->list = g;
        t->cap = cap;
    }
    t->list[t->n++] = t->entry;
    t->entry = (named_template){{0}, {0}};
    return 0;
}

static int config_member(gguf__json_in *j, const char *key, void *user) {
    templates *t = user;
    if (strcmp(key, "chat_template") != 0)
        return gguf__json_skip(j);
    t->seen = true;
    if (*j->p == '"') {
        t->single.len = 0;
        t->has_single = true;
        t->is_list = false;
        return gguf__json_string(j, &t->single);
    }
    if (*j->p != '[')
        return gguf__json_skip(j); /* null: no template */
    t->is_list = true;
    return gguf__json_array(j, list_entry, t);
}

static void templates_free(templates *t) {
    for (size_t i = 0; i < t->n; i++) {
        gguf__buf_free(&t->list[i].name);
        gguf__buf_free(&t->list[i].text);
    }
    gguf__free(t->list);
    gguf__buf_free(&t->single);
    gguf__buf_free(&t->entry.name);
    gguf__buf_free(&t->entry.text);
}

static int set_string(gguf_file *f, const char *key, const gguf__buf *b, gguf_error *err) {
    return gguf_kv_set_str(f, key, b->len ? (const char *)b->data : "", b->len, err);
}

/* The old template keys (tokenizer.chat_template, .NAME and tokenizer.chat_templates) go
 * first, then the new ones: a string as tokenizer.chat_template; a list as
 * tokenizer.chat_template.NAME for each named template (NAME with characters other than ASCII
 * letters and digits made '_'), their names in tokenizer.chat_templates, and the one named
 * "default" as tokenizer.chat_template. */
static int put_templates(gguf_file *f, templates *t, gguf_error *err) {
    static const char prefix[] = "tokenizer.chat_template";
    for (size_t i = gguf_kv_count(f); i-- > 0;) {
        size_t klen;
        const char *k = gguf_kv_key(f, i, &klen);
        if (klen >= sizeof prefix - 1 && memcmp(k, prefix, sizeof prefix - 1) == 0) {
            int rc = gguf_kv_remove_at(f, i, err);
            if (rc != 0)
                return rc;
        }
    }
    if (!t->is_list)
        return set_string(f, prefix, &t->single, err);
    const char **names = gguf__malloc((t->n ? t->n : 1) * sizeof *names);
    size_t *lens = gguf__malloc((t->n ? t->n : 1) * sizeof *lens);
    if (names == NULL || lens == NULL) {
        gguf__free(names);
        gguf__free(lens);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    size_t n_names = 0;
    const gguf__buf *deflt = NULL;
    gguf__buf key = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < t->n; i++) {
        gguf__buf *name = &t->list[i].name;
        if (name->len == 0)
            continue;
        for (size_t c = 0; c < name->len; c++) {
            uint8_t ch = name->data[c];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
                name->data[c] = '_';
        }
        if (gguf__buf_nul(name) != 0) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        if (strcmp((const char *)name->data, "default") == 0) {
            deflt = &t->list[i].text;
            continue;
        }
        key.len = 0;
        gguf__buf_printf(&key, "%s.%s", prefix, (const char *)name->data);
        if (gguf__buf_nul(&key) != 0)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        else
            rc = set_string(f, (const char *)key.data, &t->list[i].text, err);
        names[n_names] = (const char *)name->data;
        lens[n_names++] = name->len;
    }
    if (rc == 0 && n_names > 0)
        rc = gguf_kv_set_str_array(f, "tokenizer.chat_templates", names, lens, n_names, err);
    if (rc == 0 && deflt != NULL)
        rc = set_string(f, prefix, deflt, err);
    gguf__buf_free(&key);
    gguf__free(names);
    gguf__free(lens);
    return rc;
}

int gguf_kv_set_chat_templates_json(gguf_file *f, const char *json, size_t len,
                                    gguf_error *err) {
    if (f == NULL || (json == NULL && len > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file or no text");
    gguf__json_in j = {json, json + len, 0};
    templates t = {0};
    int rc = 0;
    if (gguf__json_object(&j, config_member, &t) != 0)
        rc = t.out_of_memory || t.single.failed || t.entry.name.failed || t.entry.text.failed
                 ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory")
                 : gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                              "not a JSON object (a tokenizer_config.json): invalid at byte %zu",
                              (size_t)(j.p - json));
    else if (!t.seen || (!t.is_list && !t.has_single))
        rc = gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET, "no chat_template");
    else if (t.single.failed)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    else
        rc = put_templates(f, &t, err);
    templates_free(&t);
    return rc;
}
