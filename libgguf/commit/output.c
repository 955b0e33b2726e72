/* Files a caller writes itself (raw tensor bytes, values): the same rules as the library's own
 * saves. The output is checked first (gguf_output_check: never the input, never a special
 * file), the bytes go to a temporary file beside it, which is fsync'd and renamed over it; an
 * abort, a failure or an interrupt (gguf_interrupt_cleanup) leaves the old file as it was. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <unistd.h>

struct gguf_output {
    char *path;
    char *tmp;
    int fd;
};

int gguf_output_open(gguf_output **out, const char *path, const gguf_file *input,
                     gguf_error *err) {
    int rc = gguf_output_check(path, input, err);
    if (rc != 0)
        return rc;
    gguf_output *o = gguf__calloc(1, sizeof *o);
    if (o == NULL || (o->path = gguf__strdup(path)) == NULL) {
        gguf__free(o);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    gguf__temp_sweep(path);
    o->fd = gguf__temp_create(&o->tmp, path, ".tmp", err);
    if (o->fd < 0) {
        rc = o->fd;
        gguf__free(o->path);
        gguf__free(o);
        return rc;
    }
    *out = o;
    return 0;
}

int gguf_output_fd(const gguf_output *o) {
    return o != NULL ? o->fd : -1;
}

/* Closes and frees o; the temporary file must be renamed or discarded already. */
static void output_free(gguf_output *o) {
    close(o->fd);
    gguf__free(o->tmp);
    gguf__free(o->path);
    gguf__free(o);
}

int gguf_output_commit(gguf_output *o, gguf_error *err) {
    if (o == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no output");
    int rc = 0;
    if (gguf__io_fsync(o->fd) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "fsync of %s failed: %s", o->tmp,
                        gguf__io_strerror(errno));
    else if (gguf__temp_rename(o->tmp, o->path) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot rename %s over it: %s",
                        o->tmp, gguf__io_strerror(errno));
    if (rc != 0) {
        gguf__temp_discard(o->tmp);
        gguf__fail_path(err, o->path);
    } else {
        (void)gguf__io_sync_dir(o->path); /* renamed: a failed folder sync cannot undo it */
    }
    output_free(o);
    return rc;
}

void gguf_output_abort(gguf_output *o) {
    if (o == NULL)
        return;
    gguf__temp_discard(o->tmp);
    output_free(o);
}
