/* A local file. Opened without blocking and refused unless it is a regular file, so that a
 * FIFO or a device named like a model cannot hang or feed a reader. Its bytes are read with
 * pread (a file truncated under us gives an error, never SIGBUS); the mapping exists only for
 * gguf_tensor_data, whose callers accept that risk. */
#define _GNU_SOURCE
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int local_read(gguf__source *s, void *buf, size_t len, uint64_t off, gguf_error *err) {
    if (gguf__io_pread(s->fd, buf, len, off) != 0)
        return gguf__fail(err, GGUF_EIO, off, "reading bytes %llu..%llu failed: %s",
                          (unsigned long long)off, (unsigned long long)(off + len),
                          gguf__io_strerror(errno));
    return 0;
}

static void local_close(gguf__source *s) {
    if (s->map != NULL)
        munmap((void *)s->map, (size_t)s->size);
    gguf__free(s->impl); /* the in-memory copy (GGUF_OPEN_NO_MMAP) */
    if (s->fd >= 0)
        close(s->fd);
}

static const gguf__source_ops local_ops = {.read = local_read, .close = local_close};

int gguf__source_edit_state(const gguf__source *s) {
    if (s->kind != GGUF__SOURCE_LOCAL)
        return GGUF__EDIT_NONE;
    /* probed through a description of our own: a lock taken and dropped on the reader's could
     * drop one its caller holds. The probe holds a shared lock for an instant; an editor
     * starting in that instant fails as if another editor ran ("being edited"). */
    int fd = open(s->name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return GGUF__EDIT_NONE;
    struct stat st;
    bool same = fstat(fd, &st) == 0 && (uint64_t)st.st_dev == s->dev &&
                (uint64_t)st.st_ino == s->ino;
    bool locked = same && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    if (!same)
        return GGUF__EDIT_NONE;
    /* the journal is beside the file a link names */
    char *real = realpath(s->name, NULL);
    char *jpath = real != NULL ? gguf__path_beside(real, ".", ".gguf-journal") : NULL;
    struct stat js;
    bool journaled = jpath != NULL && lstat(jpath, &js) == 0;
    free(real);
    gguf__free(jpath);
    return !journaled ? GGUF__EDIT_NONE : locked ? GGUF__EDIT_RUNNING : GGUF__EDIT_INTERRUPTED;
}

static const char *kind_of(mode_t m) {
    return S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
           : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int gguf__source_open_path(gguf__source **out, const char *path, unsigned flags,
                           gguf_error *err) {
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot open: %s",
                          strerror(errno));
    return gguf__source_adopt_fd(out, fd, path, flags, err);
}

int gguf__source_adopt_fd(gguf__source **out, int fd, const char *path, unsigned flags,
                          gguf_error *err) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                          "%s, not a regular file: refused", kind_of(st.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    gguf__source *s = gguf__calloc(1, sizeof *s);
    char *name = gguf__strdup(path);
    if (s == NULL || name == NULL) {
        gguf__free(s);
        gguf__free(name);
        close(fd);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    *s = (gguf__source){
        .ops = &local_ops,
        .kind = GGUF__SOURCE_LOCAL,
        .name = name,
        .size = (uint64_t)st.st_size,
        .fd = fd,
        .dev = (uint64_t)st.st_dev,
        .ino = (uint64_t)st.st_ino,
        .mtime_sec = (int64_t)st.st_mtim.tv_sec,
        .mtime_nsec = (int64_t)st.st_mtim.tv_nsec,
        .ctime_sec = (int64_t)st.st_ctim.tv_sec,
        .ctime_nsec = (int64_t)st.st_ctim.tv_nsec,
        .owner = (unsigned)st.st_uid,
    };
    if (s->size == 0 || s->size > SIZE_MAX) {
        *out = s;
        return 0;
    }
    if (!(flags & GGUF_OPEN_NO_MMAP)) {
        void *map = mmap(NULL, (size_t)s->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED)
            s->map = map;
        gguf__test_pause("source-opened"); /* mapped, no byte read yet */
        *out = s;
        return 0;
    }
    uint8_t *copy = gguf__malloc((size_t)s->size);
    if (copy == NULL) {
        gguf__source_free(s);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                          "cannot hold %llu bytes in memory", (unsigned long long)st.st_size);
    }
    int rc = local_read(s, copy, (size_t)s->size, 0, err);
    if (rc != 0) {
        gguf__free(copy);
        gguf__source_free(s);
        return rc;
    }
    s->impl = copy;
    s->mem = copy;
    *out = s;
    return 0;
}
