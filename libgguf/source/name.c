/* Sources by name: a URL (url.c says which names are) is a remote source, anything else a
 * local path. The one place that opens by name, so that every layer above opens a file by its
 * name (the shards of a split set named by a URL are URLs too). */
#include "source/source.h"

int gguf__source_open_name(gguf__source **out, const char *name, const gguf_open_options *opt,
                           gguf_error *err) {
    gguf_open_options none = GGUF_OPEN_OPTIONS_INIT;
    if (opt == NULL)
        opt = &none;
    int rc = gguf__source_is_url(name) ? gguf__source_open_url(out, name, opt, err)
                                       : gguf__source_open_path(out, name, opt->flags, err);
    if (rc != 0)
        gguf__fail_path(err, name);
    return rc;
}
