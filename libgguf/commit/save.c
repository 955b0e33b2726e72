/* Saving a file atomically: the bytes go to a temporary file beside the target, which is
 * fsync'd, proven (read back: every tensor keeps its name, type, size and crc32), checked to be
 * still the file that was read (for an edit), renamed over the target, and the folder fsync'd.
 * An interruption at any point leaves the old file. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Reads the output back: its header region must be the one written, and every tensor must have
 * the source's name, type, size and crc32. */
static int prove(const gguf_file *f, const char *tmp, uint32_t header_crc, gguf_error *err) {
    gguf_file *back = NULL;
    int rc = gguf_file_open(&back, tmp, f->flags & (GGUF_OPEN_LENIENT | GGUF_OPEN_UNKNOWN_TYPES),
                            err);
    uint32_t crc = 0;
    if (rc == 0)
        rc = gguf__crc_range(&crc, back, 0, back->data_offset, err);
    if (rc == 0 && crc != header_crc)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "check failed: the header read back has crc32 %08x, not the %08x written",
                        crc, header_crc);
    if (rc == 0)
        rc = gguf__verify_output(f, back, err);
    gguf_file_free(back);
    return rc;
}

int gguf__save(const gguf_file *f, const char *path, const gguf_write_options *opt,
               int64_t padding, const gguf__identity *expect, gguf_error *err) {
    int rc = gguf__target_check(path, err);
    if (rc != 0)
        return rc;
    gguf__temp_sweep(path);
    char *tmp = NULL;
    int fd = gguf__temp_create(&tmp, path, ".tmp", err);
    if (fd < 0)
        return fd;
    uint32_t header_crc = 0;
    rc = gguf__write_fd(fd, tmp, f, opt, padding, &header_crc, err);
    if (rc == 0 && gguf__io_fsync(fd) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "fsync of %s failed: %s", tmp,
                        gguf__io_strerror(errno));
    bool swapped = opt != NULL && opt->endian >= 0 && (opt->endian == GGUF_ENDIAN_BIG) != f->big;
    if (rc == 0 && opt != NULL && opt->verify && !swapped)
        rc = prove(f, tmp, header_crc, err);
    if (rc == 0 && expect != NULL && expect->set)
        rc = gguf__identity_check(path, expect, err);
    if (rc == 0 && gguf__io_rename(tmp, path) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot rename %s over it: %s", tmp,
                        gguf__io_strerror(errno));
    if (rc != 0)
        unlink(tmp);
    else
        (void)gguf__io_sync_dir(path); /* the rename is done; a failed folder sync cannot undo it */
    /* closed last: the lock on the temporary file keeps sweeps away until it has its name
     * (its bytes were fsync'd, so a failing close loses nothing) */
    close(fd);
    gguf__free(tmp);
    gguf__fail_path(err, path);
    return rc;
}

int gguf_file_save(const gguf_file *f, const char *path, const gguf_write_options *opt,
                   gguf_error *err) {
    if (f == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "nothing to save");
    return gguf__save(f, path, opt, GGUF__PAD_KEEP, NULL, err);
}
