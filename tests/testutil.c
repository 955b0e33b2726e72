/* Helpers shared by the Check programs: file reading, paths, byte maps, corpus listings. */
#define _GNU_SOURCE
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#ifndef GGUF_TEST_SRCDIR
#error "GGUF_TEST_SRCDIR must be defined by the build"
#endif

int tu_run_suite(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

uint8_t *tu_read_file(const char *path, size_t *len) {
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        if (got == 0)
            break;
        n += got;
    }
    fclose(fp);
    *len = n;
    return buf;
}

/* The source tree: $top_srcdir when the test harness sets it, else where the build was made. */
static const char *srcdir(void) {
    const char *env = getenv("top_srcdir");
    return env != NULL && env[0] != '\0' ? env : GGUF_TEST_SRCDIR;
}

const char *tu_src(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", srcdir(), rel);
    return buf;
}

const char *tu_corpus(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/../shared/corpus/%s", srcdir(), rel);
    return buf;
}

int tu_have_corpus(void) {
    struct stat st;
    return stat(tu_corpus("MANIFEST.tsv"), &st) == 0;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

uint8_t *tu_assemble_map(const char *path, size_t *len) {
    size_t n;
    uint8_t *text = tu_read_file(path, &n);
    if (text == NULL)
        return NULL;
    uint8_t *out = malloc(n + 1);
    size_t o = 0, i = 0;
    while (i < n) {
        int c = text[i];
        if (c == '#') {
            while (i < n && text[i] != '\n')
                i++;
        } else if (c == '"') {
            i++;
            while (i < n && text[i] != '"')
                out[o++] = text[i++];
            if (i == n)
                goto bad;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            i++;
        } else if (i + 1 < n && hexval(c) >= 0 && hexval(text[i + 1]) >= 0) {
            out[o++] = (uint8_t)(hexval(c) << 4 | hexval(text[i + 1]));
            i += 2;
        } else {
            goto bad;
        }
    }
    free(text);
    *len = o;
    return out;
bad:
    fprintf(stderr, "%s: byte map syntax error at character %zu\n", path, i);
    free(text);
    free(out);
    return NULL;
}

int tu_each_expected(void (*fn)(const char *file, int accept, void *user), void *user) {
    FILE *fp = fopen(tu_corpus("bad/EXPECTED.tsv"), "r");
    if (fp == NULL)
        return -1;
    char line[1024];
    int count = 0;
    while (fgets(line, sizeof line, fp) != NULL) {
        char *tab = strchr(line, '\t');
        if (tab == NULL || strncmp(line, "file\t", 5) == 0)
            continue;
        *tab = '\0';
        int accept = strncmp(tab + 1, "accept", 6) == 0;
        fn(line, accept, user);
        count++;
    }
    fclose(fp);
    return count;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void collect(const char *dir, const char *suffix, char ***list, size_t *n, size_t *cap) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            collect(path, suffix, list, n, cap);
            continue;
        }
        size_t ln = strlen(e->d_name), ls = strlen(suffix);
        if (ln < ls || strcmp(e->d_name + ln - ls, suffix) != 0)
            continue;
        if (*n + 2 > *cap) {
            *cap = *cap ? *cap * 2 : 64;
            *list = realloc(*list, *cap * sizeof **list);
        }
        (*list)[(*n)++] = strdup(path);
    }
    closedir(d);
}

char **tu_list_files(const char *dir, const char *suffix) {
    char **list = NULL;
    size_t n = 0, cap = 0;
    collect(dir, suffix, &list, &n, &cap);
    if (list == NULL)
        return NULL;
    qsort(list, n, sizeof *list, cmp_str);
    list[n] = NULL;
    return list;
}

void tu_free_list(char **list) {
    if (list == NULL)
        return;
    for (char **p = list; *p != NULL; p++)
        free(*p);
    free(list);
}

/* ---- journals (the byte map in libgguf/commit/journal.c) ---- */

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

size_t tu_journal_encode(uint8_t *out, const tu_journal *j) {
    size_t len = (size_t)j->len, new_len = (size_t)(j->len + j->insert_len);
    memcpy(out, j->magic, 8);
    put_le(out + 8, j->version, 4);
    put_le(out + 12, j->dev, 8);
    put_le(out + 20, j->ino, 8);
    put_le(out + 28, j->size, 8);
    put_le(out + 36, j->len, 8);
    put_le(out + 44, j->insert_at, 8);
    put_le(out + 52, j->insert_len, 8);
    put_le(out + 60, j->old_crc, 4);
    memcpy(out + 64, j->old_region, len);
    memcpy(out + 64 + len, j->new_region, new_len);
    uint32_t all = (uint32_t)crc32_z(0, out, 64 + len + new_len);
    put_le(out + 64 + len + new_len, all + j->trailer_delta, 4);
    return 64 + len + new_len + 4;
}

int tu_journal_for_edit(tu_journal *j, const char *path, const char *key) {
    memset(j, 0, sizeof *j);
    gguf_file *f;
    if (gguf_file_open(&f, path, 0, NULL) != 0)
        return -1;
    int64_t i = gguf_kv_find(f, key);
    uint64_t len = gguf_file_data_offset(f);
    int ok = i >= 0 && gguf_value_type(gguf_kv_value(f, (size_t)i)) == GGUF_VTYPE_STRING &&
             gguf_file_version(f) >= 2 && gguf_file_endian(f) == GGUF_ENDIAN_LITTLE;
    /* key length u64, key, type u32, string length u64, then the first character */
    uint64_t at = ok ? gguf_kv_source_offset(f, (size_t)i) + 8 + strlen(key) + 4 + 8 : 0;
    gguf_file_free(f);
    struct stat st;
    size_t n;
    uint8_t *bytes = ok ? tu_read_file(path, &n) : NULL;
    if (bytes == NULL || stat(path, &st) != 0 || at >= len || len > n) {
        free(bytes);
        return -1;
    }
    uint8_t *old_region = malloc((size_t)len), *new_region = malloc((size_t)len);
    memcpy(old_region, bytes, (size_t)len);
    memcpy(new_region, bytes, (size_t)len);
    new_region[at] = new_region[at] == 'J' ? 'K' : 'J';
    free(bytes);
    memcpy(j->magic, "GGUFJRNL", 8);
    j->version = 2;
    j->dev = (uint64_t)st.st_dev;
    j->ino = (uint64_t)st.st_ino;
    j->size = (uint64_t)st.st_size;
    j->len = len;
    j->old_crc = (uint32_t)crc32_z(0, old_region, (size_t)len);
    j->old_region = old_region;
    j->new_region = new_region;
    return 0;
}

void tu_journal_free(tu_journal *j) {
    free((void *)j->old_region);
    free((void *)j->new_region);
    j->old_region = j->new_region = NULL;
}
