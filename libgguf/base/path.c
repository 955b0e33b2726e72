/* Names of files beside a file: the journal ".NAME.gguf-journal", temporary files
 * ".NAME.tmp-XXXXXX". Built here, allocated through the choke point, so that every caller
 * splits a path the same way (dirname/basename modify their argument and differ between libcs). */
#include "base/base.h"

#include <string.h>

char *gguf__strndup(const char *s, size_t n) {
    char *d = gguf__malloc(n + 1);
    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

char *gguf__strdup(const char *s) {
    return gguf__strndup(s, strlen(s));
}

/* Splits path into its folder part (without the last '/', "." when there is none) and its last
 * component, ignoring trailing slashes. */
static void split(const char *path, size_t *dir_len, const char **base, size_t *base_len) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    *base = path + b;
    *base_len = n - b;
    size_t d = b;
    while (d > 1 && path[d - 1] == '/')
        d--;
    *dir_len = d;
}

size_t gguf__path_dir_len(const char *path) {
    size_t dir_len, base_len;
    const char *base;
    split(path, &dir_len, &base, &base_len);
    return dir_len;
}

char *gguf__path_dir(const char *path) {
    size_t dir_len = gguf__path_dir_len(path);
    return dir_len == 0 ? gguf__strdup(".") : gguf__strndup(path, dir_len);
}

char *gguf__path_beside(const char *path, const char *prefix, const char *suffix) {
    size_t dir_len, base_len;
    const char *base;
    split(path, &dir_len, &base, &base_len);
    const char *dir = dir_len > 0 ? path : ".";
    size_t dl = dir_len > 0 ? dir_len : 1;
    size_t need = dl + 1 + strlen(prefix) + base_len + strlen(suffix) + 1;
    char *out = gguf__malloc(need);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    memcpy(out, dir, dl);
    o += dl;
    if (!(dl == 1 && dir[0] == '/'))
        out[o++] = '/';
    memcpy(out + o, prefix, strlen(prefix));
    o += strlen(prefix);
    memcpy(out + o, base, base_len);
    o += base_len;
    memcpy(out + o, suffix, strlen(suffix) + 1);
    return out;
}
