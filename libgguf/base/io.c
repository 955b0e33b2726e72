/* The I/O choke point: full reads and writes, kernel copies, syncs and renames. Every call
 * returns 0 or -1 with errno set (ENODATA: the file ended before the bytes asked for, as when
 * another process truncates it), and in the testing build can be made to fail on purpose, so
 * that tests can sweep every I/O failure point of an edit and check that nothing is lost. */
#define _GNU_SOURCE
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GGUF_ALLOC_FAULTS
static long io_countdown;
static int io_errno;
static long io_calls;

GGUF_API void gguf_testing_fail_io_after(long n, int errnum);
GGUF_API long gguf_testing_io_calls(void);

void gguf_testing_fail_io_after(long n, int errnum) {
    io_countdown = n;
    io_errno = errnum;
    io_calls = 0;
}

long gguf_testing_io_calls(void) {
    return io_calls;
}

static bool fault(void) {
    io_calls++;
    if (io_countdown > 0 && --io_countdown == 0) {
        errno = io_errno;
        return true;
    }
    return false;
}
#else
static bool fault(void) {
    return false;
}
#endif

#define MAX_IO ((size_t)1 << 30)

int gguf__io_write(int fd, const void *buf, uint64_t n) {
    const uint8_t *p = buf;
    while (n > 0) {
        if (fault())
            return -1;
        ssize_t w = write(fd, p, n > MAX_IO ? MAX_IO : (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        n -= (uint64_t)w;
    }
    return 0;
}

int gguf__io_pwrite(int fd, const void *buf, size_t n, uint64_t off) {
    const uint8_t *p = buf;
    while (n > 0) {
        if (fault())
            return -1;
        ssize_t w = pwrite(fd, p, n > MAX_IO ? MAX_IO : n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

int gguf__io_pread(int fd, void *buf, size_t n, uint64_t off) {
    uint8_t *p = buf;
    while (n > 0) {
        if (fault())
            return -1;
        ssize_t r = pread(fd, p, n > MAX_IO ? MAX_IO : n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = ENODATA;
            return -1;
        }
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

#define COPY_BUF ((size_t)4 << 20)

int gguf__io_copy(int in, uint64_t off, int out, uint64_t n) {
    /* in the kernel first: a reflink where the filesystem has them, no user-space copy */
    while (n > 0) {
        if (fault())
            return -1;
        off_t o = (off_t)off;
        ssize_t c = copy_file_range(in, &o, out, NULL, n > MAX_IO ? MAX_IO : (size_t)n, 0);
        if (c < 0 && errno == EINTR)
            continue;
        if (c == 0) {
            errno = ENODATA; /* the source ended early */
            return -1;
        }
        if (c < 0) {
            if (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)
                break; /* not between these files: copy through a buffer */
            return -1;
        }
        off += (uint64_t)c;
        n -= (uint64_t)c;
    }
    if (n == 0)
        return 0;
    uint8_t *buf = gguf__malloc(COPY_BUF);
    if (buf == NULL) {
        errno = ENOMEM;
        return -1;
    }
    int rc = 0;
    while (rc == 0 && n > 0) {
        size_t k = n < COPY_BUF ? (size_t)n : COPY_BUF;
        rc = gguf__io_pread(in, buf, k, off);
        if (rc == 0)
            rc = gguf__io_write(out, buf, k);
        off += k;
        n -= k;
    }
    int saved = errno;
    gguf__free(buf);
    errno = saved;
    return rc;
}

int gguf__io_fsync(int fd) {
    if (fault())
        return -1;
    return fsync(fd);
}

int gguf__io_rename(const char *from, const char *to) {
    if (fault())
        return -1;
    return rename(from, to);
}

int gguf__io_sync_dir(const char *path) {
    char *copy = strdup(path);
    if (copy == NULL)
        return -1;
    int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (dfd < 0)
        return -1;
    int rc = gguf__io_fsync(dfd);
    int saved = errno;
    close(dfd);
    errno = saved;
    return rc;
}

const char *gguf__io_strerror(int errnum) {
    if (errnum == ENODATA)
        return "the file ended early (did another process truncate it?)";
    if (errnum == ENOSPC)
        return "no space left on the device";
    return strerror(errnum);
}
