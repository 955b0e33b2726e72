/* Opening a file: by name (asked once here whether it is a path or a URL, the kind then handed
 * down with it; a split set opened as one model by shards.c), from a descriptor, or from
 * memory. What follows the source is file.c. */
#include "format/format.h"

int gguf_file_open(gguf_file **out, const char *path, unsigned flags, gguf_error *err) {
    gguf_open_options opt = GGUF_OPEN_OPTIONS_INIT;
    opt.flags = flags;
    return gguf_file_open_ex(out, path, &opt, err);
}

int gguf_file_open_ex(gguf_file **out, const char *path, const gguf_open_options *opt,
                      gguf_error *err) {
    if (out == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file given");
    gguf_open_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_open_options, GGUF_OPEN_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    return gguf__file_open_as(out, gguf__source_name_kind(path), path, &o, err);
}

int gguf__file_open_as(gguf_file **out, enum gguf__name_kind kind, const char *name,
                       const gguf_open_options *opt, gguf_error *err) {
    gguf_open_options none = GGUF_OPEN_OPTIONS_INIT;
    if (opt == NULL)
        opt = &none;
    gguf__source *src;
    int rc = gguf__source_open_as(&src, kind, name, opt, err);
    if (rc != 0)
        return rc;
    gguf_file *f;
    rc = gguf__open_source(&f, src, opt->flags & ~(unsigned)GGUF_OPEN_SPLIT_SET, err);
    if (rc != 0)
        return rc;
    if (!(opt->flags & GGUF_OPEN_SPLIT_SET)) {
        *out = f;
        return 0;
    }
    return gguf__split_open(out, f, kind, name, opt, err);
}

int gguf_file_open_fd(gguf_file **out, int fd, const char *name, const gguf_open_options *opt,
                      gguf_error *err) {
    if (out == NULL || fd < 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no file descriptor given");
    gguf_open_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_open_options, GGUF_OPEN_OPTIONS_INIT, opt, err);
    if (rc != 0)
        return rc;
    opt = &o;
    if (name == NULL)
        name = "standard input";
    gguf__source *src;
    rc = gguf__source_open_fd(&src, fd, name, opt->flags, opt->keep_bytes, err);
    if (rc != 0) {
        gguf__fail_path(err, name);
        return rc;
    }
    return gguf__open_source(out, src, opt->flags, err);
}

int gguf_file_open_memory(gguf_file **out, const void *data, size_t size, int copy,
                          unsigned flags, gguf_error *err) {
    if (out == NULL || (data == NULL && size > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no bytes given");
    gguf__source *src;
    int rc = gguf__source_open_memory(&src, data, size, copy != 0, NULL, err);
    return rc != 0 ? rc : gguf__open_source(out, src, flags, err);
}

int gguf_path_is_url(const char *s) {
    return gguf__source_is_url(s);
}

int gguf_http_available(void) {
    return gguf__source_http_built();
}

int gguf_file_is_remote(const gguf_file *f) {
    return f != NULL && f->src != NULL && f->src->kind == GGUF__SOURCE_HTTP;
}
