/* Saving a file atomically: the bytes go to a temporary file beside the target, which is
 * fsync'd, proven (read back: every tensor keeps its name, type, size and crc32), renamed over
 * the target, and the directory fsync'd. An interruption leaves the old file. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates a temporary file beside path, with the mode path has (or 0666 less the umask). */
static int open_temp(char **tmp_out, const char *path, gguf_error *err) {
    char *dir = strdup(path), *base = strdup(path);
    size_t need = strlen(path) + 32;
    char *tmp = gguf__malloc(need);
    if (dir == NULL || base == NULL || tmp == NULL) {
        free(dir);
        free(base);
        gguf__free(tmp);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    snprintf(tmp, need, "%s/.%s.tmp-XXXXXX", dirname(dir), basename(base));
    free(dir);
    free(base);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        gguf__free(tmp);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                          "%s: cannot create a temporary file beside it: %s", path, strerror(e));
    }
    struct stat st;
    mode_t mode;
    if (stat(path, &st) == 0) {
        mode = st.st_mode & 07777;
        /* keep the owner and group too, where we may (root, or a group we belong to) */
        if (fchown(fd, st.st_uid, st.st_gid) != 0 && fchown(fd, (uid_t)-1, st.st_gid) != 0) {
            /* not allowed: the new file belongs to us, as any rewrite by us would */
        }
    } else {
        mode_t mask = umask(022);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
    *tmp_out = tmp;
    return fd;
}

int gguf_file_save(const gguf_file *f, const char *path, const gguf_write_options *opt,
                   gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to save");
    char *tmp = NULL;
    int fd = open_temp(&tmp, path, err);
    if (fd < 0)
        return fd;
    int rc = gguf__write_fd(fd, path, f, opt, err);
    bool swapped = opt != NULL && opt->endian >= 0 && (opt->endian == GGUF_ENDIAN_BIG) != f->big;
    if (rc == 0 && gguf__io_fsync(fd) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: fsync failed: %s", tmp,
                        gguf__io_strerror(errno));
    /* read the output back: every tensor keeps its name, type, size and crc32 */
    if (rc == 0 && opt != NULL && opt->verify && !swapped) {
        gguf_file *back = NULL;
        rc = gguf_file_open(&back, tmp, f->flags & (GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES), err);
        if (rc == 0)
            rc = gguf__verify_output(f, back, err);
        gguf_file_free(back);
    }
    if (close(fd) != 0 && rc == 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: close failed: %s", tmp,
                        strerror(errno));
    if (rc == 0 && gguf__io_rename(tmp, path) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: cannot rename %s over it: %s",
                        path, tmp, gguf__io_strerror(errno));
    if (rc != 0)
        unlink(tmp);
    else
        (void)gguf__io_sync_dir(path); /* the rename is done; a failed directory sync cannot undo it */
    gguf__free(tmp);
    return rc;
}
