/* Names: what a name given to the library stands for, a URL (url.c says which names are) or a
 * local path, asked once where the name enters; then the name opened as what it is, with no
 * second look at it (the shards of a split set named by a URL are URLs too). */
#include "source/source.h"

enum gguf__name_kind gguf__source_name_kind(const char *name) {
    return gguf__source_is_url(name) ? GGUF__NAME_URL : GGUF__NAME_PATH;
}

int gguf__source_open_as(gguf__source **out, enum gguf__name_kind kind, const char *name,
                         const gguf_open_options *opt, gguf_error *err) {
    gguf_open_options none = GGUF_OPEN_OPTIONS_INIT;
    if (opt == NULL)
        opt = &none;
    int rc = kind == GGUF__NAME_URL ? gguf__source_open_url(out, name, opt, err)
                                    : gguf__source_open_path(out, name, opt->flags, err);
    if (rc != 0)
        gguf__fail_path(err, name);
    return rc;
}
