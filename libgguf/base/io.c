/* The I/O choke point: full reads and writes, syncs, writeback, clones and renames. Every call
 * returns 0 or -1 with errno set (ENODATA: the file ended before the bytes asked for, as when
 * another process truncates it), and in the testing build can be made to fail on purpose, so
 * that tests can sweep every I/O failure point of an edit and check that nothing is lost. */
#define _GNU_SOURCE
#include "base/base.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GGUF_ALLOC_FAULTS
/* The testing build: fail the Nth call (errno set), silently corrupt the bytes of the Nth read or
 * write (or of the Nth buffer the copy engine holds between its read and its write, or the
 * source offset it reports for the Nth range, as if it had read the wrong bytes), and keep a trace of the calls, so tests can sweep failures, prove that each proof step
 * catches bytes that changed on the way, and assert the order of writes, syncs and renames. */
static long io_countdown;
static int io_errno;
static long io_calls;
static long corrupt_countdown;
static long die_countdown;
static char corrupt_kind; /* 'r': reads, 'w': writes; the copy engine's 'b' buffers, 'p' offsets */
static char trace[4096];
static size_t trace_len;
static uint64_t bytes_read, bytes_written; /* since the last gguf_testing_fail_io_after */

GGUF_API void gguf_testing_fail_io_after(long n, int errnum);
GGUF_API long gguf_testing_io_calls(void);
GGUF_API void gguf_testing_corrupt_io_after(long n, int kind);
GGUF_API const char *gguf_testing_io_trace(void);
GGUF_API void gguf_testing_die_at_io(long n);
GGUF_API void gguf_testing_io_bytes(uint64_t *read, uint64_t *written);

void gguf_testing_fail_io_after(long n, int errnum) {
    io_countdown = n;
    io_errno = errnum;
    io_calls = 0;
    trace_len = 0;
    trace[0] = '\0';
    bytes_read = bytes_written = 0;
}

long gguf_testing_io_calls(void) {
    return io_calls;
}

void gguf_testing_corrupt_io_after(long n, int kind) {
    corrupt_countdown = n;
    corrupt_kind = (char)kind;
}

const char *gguf_testing_io_trace(void) {
    return trace;
}

/* A crash (SIGKILL, as from kill -9) just before the Nth I/O call from now. */
void gguf_testing_die_at_io(long n) {
    die_countdown = n;
}

/* Records the call (op: w write, W pwrite, r pread, c copy, f fsync or fdatasync, D directory
 * sync, n rename, u unlink, i block insertion, k clone, t truncate, b writeback, x a direct
 * write started, y its end) and says whether it is the one to fail. */
/* Calls come from more than one thread (a save compares while it copies): one at a time here. */
static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;

static bool fault(char op) {
    pthread_mutex_lock(&hook_lock);
    if (die_countdown > 0 && --die_countdown == 0)
        raise(SIGKILL);
    io_calls++;
    if (trace_len + 1 < sizeof trace) {
        trace[trace_len++] = op;
        trace[trace_len] = '\0';
    }
    bool fail = io_countdown > 0 && --io_countdown == 0;
    pthread_mutex_unlock(&hook_lock);
    if (fail)
        errno = io_errno;
    return fail;
}

/* The bytes read and written through these calls since the trace started, so that tests can
 * bound what an edit reads and writes. */
void gguf_testing_io_bytes(uint64_t *read, uint64_t *written) {
    pthread_mutex_lock(&hook_lock);
    *read = bytes_read;
    *written = bytes_written;
    pthread_mutex_unlock(&hook_lock);
}

static void count(uint64_t r, uint64_t w) {
    pthread_mutex_lock(&hook_lock);
    bytes_read += r;
    bytes_written += w;
    pthread_mutex_unlock(&hook_lock);
}

/* Allocations ahead of direct writes fail with this errno (0: they do not), so that tests
 * can make a copy fall back to the page cache. */
static int preallocate_errno;
GGUF_API void gguf_testing_fail_preallocate(int errnum);
void gguf_testing_fail_preallocate(int errnum) {
    preallocate_errno = errnum;
}

static bool preallocate_fails(void) {
    if (preallocate_errno != 0)
        errno = preallocate_errno;
    return preallocate_errno != 0;
}

/* Should this read or write of n bytes be corrupted? */
static bool corrupt(char kind, size_t n) {
    pthread_mutex_lock(&hook_lock);
    bool yes = n > 0 && corrupt_kind == kind && corrupt_countdown > 0 && --corrupt_countdown == 0;
    pthread_mutex_unlock(&hook_lock);
    return yes;
}
#else
static bool preallocate_fails(void) {
    return false;
}
static bool fault(char op) {
    (void)op;
    return false;
}
static void count(uint64_t r, uint64_t w) {
    (void)r;
    (void)w;
}
static bool corrupt(char kind, size_t n) {
    (void)kind;
    (void)n;
    return false;
}
#endif

#define MAX_IO ((size_t)1 << 30)

/* The testing build's silent corruption of a write: one bit of the middle byte, in a copy. */
static int write_corrupted(int fd, const void *buf, size_t n, uint64_t off, bool positioned) {
    uint8_t *copy = gguf__malloc(n);
    if (copy == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(copy, buf, n);
    copy[n / 2] ^= 0x10;
    int rc = positioned ? gguf__io_pwrite(fd, copy, n, off) : gguf__io_write(fd, copy, n);
    gguf__free(copy);
    return rc;
}

int gguf__io_write(int fd, const void *buf, uint64_t n) {
    if (n <= SIZE_MAX && corrupt('w', (size_t)n))
        return write_corrupted(fd, buf, (size_t)n, 0, false);
    const uint8_t *p = buf;
    while (n > 0) {
        if (fault('w'))
            return -1;
        ssize_t w = write(fd, p, n > MAX_IO ? MAX_IO : (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        count(0, (uint64_t)w);
        p += w;
        n -= (uint64_t)w;
    }
    return 0;
}

int gguf__io_pwrite(int fd, const void *buf, size_t n, uint64_t off) {
    if (corrupt('w', n))
        return write_corrupted(fd, buf, n, off, true);
    const uint8_t *p = buf;
    while (n > 0) {
        if (fault('W'))
            return -1;
        ssize_t w = pwrite(fd, p, n > MAX_IO ? MAX_IO : n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        count(0, (uint64_t)w);
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

int gguf__io_pread(int fd, void *buf, size_t n, uint64_t off) {
    bool flip = corrupt('r', n);
    uint8_t *p = buf;
    size_t total = n;
    while (n > 0) {
        if (fault('r'))
            return -1;
        ssize_t r = pread(fd, p, n > MAX_IO ? MAX_IO : n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = ENODATA;
            return -1;
        }
        count((uint64_t)r, 0);
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    if (flip)
        ((uint8_t *)buf)[total / 2] ^= 0x10;
    return 0;
}

/* traced and failed as op 's' (a sequential read) */
int gguf__io_read_some(int fd, void *buf, size_t n, size_t *got) {
    for (;;) {
        if (fault('s'))
            return -1;
        ssize_t r = read(fd, buf, n > MAX_IO ? MAX_IO : n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        count((uint64_t)r, 0);
        *got = (size_t)r;
        return 0;
    }
}

int gguf__io_writeback(int fd, uint64_t off, uint64_t n, bool wait) {
    if (fault('b'))
        return -1;
    unsigned flags = SYNC_FILE_RANGE_WRITE;
    if (wait)
        flags |= SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER;
    int rc = sync_file_range(fd, (off64_t)off, (off64_t)n, flags);
    /* advice where the filesystem has no use for it: the fsync does the work */
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP || errno == ESPIPE))
        rc = 0;
    return rc;
}

void gguf__io_drop_cached(int fd, uint64_t off, uint64_t n) {
    (void)posix_fadvise(fd, (off_t)off, (off_t)n, POSIX_FADV_DONTNEED);
}

/* ---- direct writes in flight (Linux AIO on an O_DIRECT descriptor) ---- */

struct gguf__aio {
    int fd;
    int flags;              /* fd's status flags before O_DIRECT */
    aio_context_t ctx;
    unsigned slots;
    struct iocb *cb;        /* one per slot */
    bool *busy;             /* submitted, its end not yet collected */
    long *res;              /* what the write returned (bytes, or -errno), once it ended */
    size_t *flip;           /* the testing build: the byte flipped in the slot's buffer + 1 */
};

static void aio_free(gguf__aio *a) {
    gguf__free(a->cb);
    gguf__free(a->busy);
    gguf__free(a->res);
    gguf__free(a->flip);
    gguf__free(a);
}

gguf__aio *gguf__io_aio_open(int fd, unsigned slots) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) /* (O_DIRECT on a pipe means packets) */
        return NULL;
    gguf__aio *a = gguf__malloc(sizeof *a);
    if (a == NULL)
        return NULL;
    *a = (gguf__aio){.fd = fd, .slots = slots, .cb = gguf__calloc(slots, sizeof *a->cb),
                     .busy = gguf__calloc(slots, sizeof *a->busy),
                     .res = gguf__calloc(slots, sizeof *a->res),
                     .flip = gguf__calloc(slots, sizeof *a->flip)};
    if (a->cb == NULL || a->busy == NULL || a->res == NULL || a->flip == NULL ||
        syscall(SYS_io_setup, slots, &a->ctx) != 0) {
        aio_free(a);
        return NULL;
    }
    a->flags = fcntl(fd, F_GETFL);
    if (a->flags < 0 || fcntl(fd, F_SETFL, a->flags | O_DIRECT) != 0) {
        syscall(SYS_io_destroy, a->ctx);
        aio_free(a);
        return NULL;
    }
    return a;
}

int gguf__io_aio_write(gguf__aio *a, unsigned slot, void *buf, size_t n, uint64_t off) {
    if (fault('x'))
        return -1;
    if (corrupt('w', n)) { /* the storage gets other bytes than the buffer holds */
        ((uint8_t *)buf)[n / 2] ^= 0x10;
        a->flip[slot] = n / 2 + 1;
    }
    struct iocb *cb = &a->cb[slot];
    *cb = (struct iocb){.aio_fildes = (uint32_t)a->fd, .aio_lio_opcode = IOCB_CMD_PWRITE,
                        .aio_buf = (uint64_t)(uintptr_t)buf, .aio_nbytes = n,
                        .aio_offset = (int64_t)off};
    long r;
    do
        r = syscall(SYS_io_submit, a->ctx, 1L, &cb);
    while (r < 0 && errno == EINTR);
    if (r != 1) {
        if (r >= 0)
            errno = EAGAIN;
        return -1;
    }
    a->busy[slot] = true;
    return 0;
}

/* Collects ended writes until slot's has ended: 0, or -1 with errno when the wait itself
 * failed. */
static int aio_collect(gguf__aio *a, unsigned slot) {
    while (a->busy[slot]) {
        struct io_event ev[16];
        long k = syscall(SYS_io_getevents, a->ctx, 1L, 16L, ev, NULL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (k == 0)
                errno = EIO;
            return -1;
        }
        for (long i = 0; i < k; i++) {
            unsigned s = (unsigned)((struct iocb *)(uintptr_t)ev[i].obj - a->cb);
            a->busy[s] = false;
            a->res[s] = (long)ev[i].res;
        }
    }
    return 0;
}

int gguf__io_aio_wait(gguf__aio *a, unsigned slot) {
    if (a->busy[slot] && aio_collect(a, slot) != 0)
        return -1;
    uint8_t *buf = (uint8_t *)(uintptr_t)a->cb[slot].aio_buf;
    if (a->flip[slot] != 0) {
        buf[a->flip[slot] - 1] ^= 0x10;
        a->flip[slot] = 0;
    }
    if (fault('y'))
        return -1;
    long r = a->res[slot];
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    if ((uint64_t)r != a->cb[slot].aio_nbytes) {
        errno = EIO; /* a short direct write: the disk is full, or the device refused */
        return -1;
    }
    count(0, (uint64_t)r);
    return 0;
}

int gguf__io_aio_direct(gguf__aio *a, bool on) {
    for (unsigned s = 0; s < a->slots; s++)
        if (a->busy[s] && aio_collect(a, s) != 0)
            return -1;
    return fcntl(a->fd, F_SETFL, on ? a->flags | O_DIRECT : a->flags);
}

void gguf__io_aio_close(gguf__aio *a) {
    if (a == NULL)
        return;
    for (unsigned s = 0; s < a->slots; s++)
        if (a->busy[s])
            (void)aio_collect(a, s);
    syscall(SYS_io_destroy, a->ctx); /* waits for any write still in flight */
    (void)fcntl(a->fd, F_SETFL, a->flags);
    aio_free(a);
}

int gguf__io_preallocate(int fd, uint64_t off, uint64_t n) {
    if (preallocate_fails())
        return -1;
    return fallocate(fd, 0, (off_t)off, (off_t)n);
}

/* Can fd (O_DIRECT) read an aligned block? A device whose blocks are larger refuses. */
static bool direct_reads(int fd) {
    uint8_t *mem = gguf__malloc(2 * GGUF__IO_DIRECT_ALIGN);
    if (mem == NULL)
        return false;
    uint8_t *b = mem + (GGUF__IO_DIRECT_ALIGN - (uintptr_t)mem % GGUF__IO_DIRECT_ALIGN) %
                           GGUF__IO_DIRECT_ALIGN;
    ssize_t r;
    do
        r = pread(fd, b, GGUF__IO_DIRECT_ALIGN, 0);
    while (r < 0 && errno == EINTR);
    gguf__free(mem);
    return r >= 0;
}

int gguf__io_open_direct(const char *path, bool *direct) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
    if (fd >= 0 && !direct_reads(fd)) {
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    *direct = fd >= 0;
    if (fd < 0 && errno == EINVAL) { /* tmpfs and others: no O_DIRECT (or not at this size) */
        fd = open(path, O_RDONLY | O_CLOEXEC);
        /* its clean pages dropped where the filesystem keeps them apart from the storage */
        if (fd >= 0)
            gguf__io_drop_cached(fd, 0, 0);
    }
    return fd;
}

int gguf__io_pread_upto(int fd, void *buf, size_t n, uint64_t off, size_t *got) {
    bool flip = corrupt('r', n);
    uint8_t *p = buf;
    size_t done = 0;
    while (done < n) {
        if (fault('r'))
            return -1;
        ssize_t r = pread(fd, p + done, n - done > MAX_IO ? MAX_IO : n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        count((uint64_t)r, 0);
        done += (size_t)r;
    }
    if (flip && done > 0)
        p[done / 2] ^= 0x10;
    *got = done;
    return 0;
}

void gguf__io_corrupt_buffer(void *buf, size_t n) {
    if (corrupt('b', n))
        ((uint8_t *)buf)[n / 2] ^= 0x10;
}

void gguf__io_corrupt_offset(uint64_t *off) {
    if (corrupt('p', 1))
        *off += 1;
}

int gguf__io_fsync(int fd) {
    if (fault('f'))
        return -1;
    return fsync(fd);
}

int gguf__io_fdatasync(int fd) {
    if (fault('f'))
        return -1;
    return fdatasync(fd);
}

int gguf__io_insert_range(int fd, uint64_t at, uint64_t len) {
    if (fault('i'))
        return -1;
    return fallocate(fd, FALLOC_FL_INSERT_RANGE, (off_t)at, (off_t)len);
}

int gguf__io_clone(int in, uint64_t in_off, int out, uint64_t out_off, uint64_t n) {
    if (fault('k'))
        return -1;
    struct file_clone_range r = {.src_fd = in, .src_offset = in_off, .src_length = n,
                                 .dest_offset = out_off};
    return ioctl(out, FICLONERANGE, &r);
}

int gguf__io_truncate(int fd, uint64_t len) {
    if (fault('t'))
        return -1;
    return ftruncate(fd, (off_t)len);
}

int gguf__io_rename(const char *from, const char *to) {
    if (fault('n'))
        return -1;
    return rename(from, to);
}

int gguf__io_unlink(const char *path) {
    if (fault('u'))
        return -1;
    return unlink(path);
}

int gguf__io_sync_dir(const char *path) {
    /* no allocation: a sync after a rename must not fail for want of memory */
    char dir[4096];
    size_t n = gguf__path_dir_len(path);
    if (n >= sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, n == 0 ? "." : path, n == 0 ? 1 : n);
    dir[n == 0 ? 1 : n] = '\0';
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    int rc = fault('D') ? -1 : fsync(dfd);
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

int gguf__io_fail(gguf_error *err, const char *path, const char *what) {
    gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "%s failed: %s", what,
               gguf__io_strerror(errno));
    gguf__fail_path(err, path);
    return GGUF_EIO;
}
