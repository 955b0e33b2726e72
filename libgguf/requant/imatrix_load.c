/* Loading an importance matrix: a file that starts with "GGUF" is llama-imatrix's GGUF format,
 * anything else its older binary format (read whole: such files are small). */
#define _GNU_SOURCE /* O_CLOEXEC */
#include "requant/requant.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The legacy format: the whole file, read into memory. */
static int load_legacy_file(gguf_requant_imatrix *im, int fd, uint64_t size, const char *path,
                            gguf_error *err) {
    if (size > ((uint64_t)1 << 32))
        return gguf__fail(err, GGUF_ELIMIT, GGUF_ERROR_NO_OFFSET,
                          "%s: a legacy imatrix file of more than 4 GiB", path);
    uint8_t *buf = gguf__malloc(size ? (size_t)size : 1);
    int rc;
    if (buf == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    else if (gguf__io_pread(fd, buf, (size_t)size, 0) != 0)
        rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s: read failed: %s", path,
                        strerror(errno));
    else
        rc = gguf__imatrix_load_legacy(im, buf, (size_t)size, path, err);
    gguf__free(buf);
    return rc;
}

int gguf_requant_imatrix_load(gguf_requant_imatrix **out, const char *path, gguf_error *err) {
    if (out == NULL || path == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no imatrix file given");
    gguf_requant_imatrix *im;
    int rc = gguf__imatrix_new(&im, path, err);
    if (rc != 0)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        gguf_requant_imatrix_free(im);
        gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot open: %s", strerror(e));
        gguf__fail_path(err, path); /* the path is the error's, not its message's */
        return GGUF_EIO;
    }
    uint8_t magic[4] = {0};
    bool is_gguf = st.st_size >= 4 && gguf__io_pread(fd, magic, 4, 0) == 0 &&
                   memcmp(magic, "GGUF", 4) == 0;
    if (is_gguf) {
        close(fd);
        rc = gguf__imatrix_load_gguf(im, path, err);
    } else {
        rc = load_legacy_file(im, fd, (uint64_t)st.st_size, path, err);
        close(fd);
    }
    if (rc != 0) {
        gguf_requant_imatrix_free(im);
        return rc;
    }
    *out = im;
    return 0;
}
