/* Paths for the catalog: its default place, absolute paths for the rows, "at or below" for
 * verify's selection. Needs no SQLite, so gguf_catalog_default_path works in every build. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gguf__catalog_default_path(char *buf, size_t size, gguf_error *err) {
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    if (buf == NULL || size == 0)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no buffer for the path");
    if (xdg != NULL && xdg[0] == '/')
        n = snprintf(buf, size, "%s/gguf/catalog.db", xdg);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(buf, size, "%s/.local/share/gguf/catalog.db", home);
    else
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "no default catalog path: neither XDG_DATA_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= size)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "the default catalog path does not fit in %zu bytes", size);
    return 0;
}

int gguf_catalog_default_path(char *buf, size_t size, gguf_error *err) {
    char tmp[PATH_MAX];
    int rc = gguf__catalog_default_path(tmp, sizeof tmp, err);
    if (rc != 0)
        return rc;
    if (size == 0 || buf == NULL || strlen(tmp) >= size)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "the default catalog path does not fit in %zu bytes", size);
    memcpy(buf, tmp, strlen(tmp) + 1);
    return 0;
}

int gguf__catalog_make_parents(const char *path, gguf_error *err) {
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof buf)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "catalog path too long");
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i < n; i++) {
        if (buf[i] != '/')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot create folder %s: %s",
                              buf, strerror(errno));
        buf[i] = '/';
    }
    return 0;
}

/* Appends the current folder and a slash. */
static int add_cwd(gguf__buf *b) {
    char dir[PATH_MAX];
    if (getcwd(dir, sizeof dir) == NULL)
        return -1;
    gguf__buf_str(b, dir);
    gguf__buf_str(b, "/");
    return 0;
}

char *gguf__catalog_absolute_path(const char *arg) {
    gguf__buf b = {0};
    char *rp = realpath(arg, NULL);
    if (rp != NULL) {
        gguf__buf_str(&b, rp);
        free(rp); /* realpath's own malloc */
    } else {
        size_t n = strlen(arg);
        while (n > 1 && arg[n - 1] == '/')
            n--;
        const char *slash = memrchr(arg, '/', n);
        if (slash == NULL) {
            if (add_cwd(&b) != 0)
                goto fail;
            gguf__buf_add(&b, arg, n);
        } else {
            /* the real folder and the last name */
            size_t dl = (size_t)(slash - arg);
            char *dir = gguf__strndup(arg, dl);
            if (dir == NULL)
                goto fail;
            rp = realpath(dl == 0 ? "/" : dir, NULL);
            gguf__free(dir);
            if (rp != NULL) {
                gguf__buf_str(&b, rp);
                free(rp);
                if (b.len == 0 || b.data[b.len - 1] != '/')
                    gguf__buf_str(&b, "/");
                gguf__buf_add(&b, slash + 1, n - dl - 1);
            } else if (arg[0] == '/') {
                gguf__buf_add(&b, arg, n);
            } else {
                if (add_cwd(&b) != 0)
                    goto fail;
                gguf__buf_add(&b, arg, n);
            }
        }
    }
    if (gguf__buf_nul(&b) != 0)
        goto fail;
    return (char *)b.data;
fail:
    gguf__buf_free(&b);
    return NULL;
}

int gguf__catalog_path_selected(const char *path, char *const *sel, size_t n_sel) {
    if (n_sel == 0)
        return 1;
    size_t pl = strlen(path);
    for (size_t i = 0; i < n_sel; i++) {
        size_t sl = strlen(sel[i]);
        while (sl > 1 && sel[i][sl - 1] == '/')
            sl--;
        if (pl == sl && memcmp(path, sel[i], sl) == 0)
            return 1;
        if (sl == 1 && sel[i][0] == '/')
            return 1;
        if (pl > sl && memcmp(path, sel[i], sl) == 0 && path[sl] == '/')
            return 1;
    }
    return 0;
}

char *gguf__catalog_shard_path(const char *shard, uint32_t k) {
    size_t prefix_len;
    uint32_t count;
    if (!gguf_split_parse_name(&prefix_len, NULL, &count, shard) || k >= count)
        return NULL;
    size_t size = prefix_len + 32; /* "-NNNNN-of-NNNNN.gguf" */
    char *prefix = gguf__strndup(shard, prefix_len), *out = gguf__malloc(size);
    if (prefix == NULL || out == NULL || gguf_split_name(out, size, prefix, k, count) < 0) {
        gguf__free(out);
        out = NULL;
    }
    gguf__free(prefix);
    return out;
}

const char *gguf__catalog_file_kind(mode_t m) {
    return S_ISDIR(m)    ? "a folder"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

int64_t gguf__catalog_mtime_ns(const struct stat *st) {
    return (int64_t)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}
