/* What a file was when it was read, and whether it still is. An edit that replaces a file
 * checks this under its lock just before the rename (or the in-place write): a write by another
 * process in between (an append, a write in the middle, a truncation, a replaced file) changes
 * the size, mtime or ctime and the edit is refused instead of silently dropping that write. */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <errno.h>
#include <string.h>

void gguf__identity_of_stat(gguf__identity *id, const struct stat *st) {
    *id = (gguf__identity){
        .set = true,
        .dev = (uint64_t)st->st_dev,
        .ino = (uint64_t)st->st_ino,
        .size = (uint64_t)st->st_size,
        .mtime_sec = (int64_t)st->st_mtim.tv_sec,
        .mtime_nsec = (int64_t)st->st_mtim.tv_nsec,
        .ctime_sec = (int64_t)st->st_ctim.tv_sec,
        .ctime_nsec = (int64_t)st->st_ctim.tv_nsec,
    };
}

void gguf__identity_of_file(gguf__identity *id, const gguf_file *f) {
    const gguf__source *s = f->src;
    if (s == NULL || s->fd < 0) {
        *id = (gguf__identity){.set = false};
        return;
    }
    *id = (gguf__identity){
        .set = true,
        .dev = s->dev,
        .ino = s->ino,
        .size = s->size,
        .mtime_sec = s->mtime_sec,
        .mtime_nsec = s->mtime_nsec,
        .ctime_sec = s->ctime_sec,
        .ctime_nsec = s->ctime_nsec,
    };
}

int gguf__identity_check(const char *path, const gguf__identity *id, gguf_error *err) {
    struct stat st;
    if (stat(path, &st) != 0) {
        gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                   "it vanished while being edited (%s): nothing changed", strerror(errno));
        gguf__fail_path(err, path);
        return GGUF_EIO;
    }
    gguf__identity now;
    gguf__identity_of_stat(&now, &st);
    const char *what = now.dev != id->dev || now.ino != id->ino ? "another file took its name"
                       : now.size != id->size                  ? "its size changed"
                       : now.mtime_sec != id->mtime_sec || now.mtime_nsec != id->mtime_nsec
                           ? "it was written to"
                       : now.ctime_sec != id->ctime_sec || now.ctime_nsec != id->ctime_nsec
                           ? "its inode changed"
                           : NULL;
    if (what == NULL)
        return 0;
    gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
               "changed since it was opened (%s): nothing written, open it again", what);
    gguf__fail_path(err, path);
    return GGUF_EIO;
}
