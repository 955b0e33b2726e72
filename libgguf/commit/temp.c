/* Temporary files beside a target. A writer holds an exclusive flock on its temporary file for
 * as long as it lives; the lock dies with the process, so a sweep that can take the lock knows
 * the writer is gone and the file is litter, and a sweep that cannot leaves a live file alone
 * (an edit must never delete a copy that another command is still writing). */
#define _GNU_SOURCE
#include "commit/commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int gguf__target_check(const char *target, gguf_error *err) {
    struct stat st;
    if (stat(target, &st) != 0 || S_ISREG(st.st_mode))
        return 0; /* absent (to be created) or a regular file */
    const char *kind = S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode) ? "a character device"
                       : S_ISBLK(st.st_mode) ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
    gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
               "the output is %s: refused (an output must be a regular file or a new name)",
               kind);
    gguf__fail_path(err, target);
    return GGUF_EINVAL;
}

/* Mode for a new file at target: target's own (it is being replaced), else 0666 less umask. */
static void copy_mode_and_owner(int fd, const char *target) {
    struct stat st;
    mode_t mode;
    if (stat(target, &st) == 0) {
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
}

int gguf__temp_create(char **path_out, const char *target, const char *tag, gguf_error *err) {
    char suffix[64];
    snprintf(suffix, sizeof suffix, "%s-XXXXXX", tag);
    for (int attempt = 0; attempt < 100; attempt++) {
        char *tmp = gguf__path_beside(target, ".", suffix);
        if (tmp == NULL)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            gguf__free(tmp);
            gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
                       "cannot create a temporary file beside it: %s", strerror(e));
            gguf__fail_path(err, target);
            return GGUF_EIO;
        }
        /* a sweep may have taken the file between mkostemp and the lock: then it is gone
         * (no links left) and another name is tried */
        struct stat st;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0) {
            copy_mode_and_owner(fd, target);
            *path_out = tmp;
            return fd;
        }
        close(fd);
        gguf__free(tmp);
    }
    gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET,
               "cannot create a temporary file beside it: every name was taken away");
    gguf__fail_path(err, target);
    return GGUF_EIO;
}

/* Is `name` one of target's temporary files: "." BASE tag "-" and six characters? */
static bool is_temp_of(const char *name, const char *base, size_t base_len) {
    static const char *const tags[] = {".tmp-", ".gguf-journal.tmp-"};
    if (name[0] != '.' || strncmp(name + 1, base, base_len) != 0)
        return false;
    const char *rest = name + 1 + base_len;
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        size_t n = strlen(tags[i]);
        if (strncmp(rest, tags[i], n) == 0 && strlen(rest + n) == 6)
            return true;
    }
    return false;
}

void gguf__temp_sweep(const char *target) {
    struct stat ts;
    if (stat(target, &ts) != 0)
        return;
    char *dir = gguf__path_dir(target);
    char *beside = gguf__path_beside(target, "", "");
    DIR *d = dir != NULL ? opendir(dir) : NULL;
    if (d != NULL && beside != NULL) {
        const char *base = strrchr(beside, '/');
        base = base != NULL ? base + 1 : beside;
        size_t base_len = strlen(base);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!is_temp_of(e->d_name, base, base_len))
                continue;
            /* never follow a link, never block on a FIFO someone named like ours */
            int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
            if (fd < 0)
                continue;
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ts.st_uid &&
                flock(fd, LOCK_EX | LOCK_NB) == 0)
                unlinkat(dirfd(d), e->d_name, 0); /* its writer is gone */
            close(fd);
        }
    }
    if (d != NULL)
        closedir(d);
    gguf__free(dir);
    gguf__free(beside);
}
