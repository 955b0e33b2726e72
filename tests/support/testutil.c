/* Helpers shared by the Check programs: file reading, paths, byte maps, corpus listings. */
#define _GNU_SOURCE
#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#ifndef GGUF_TEST_SRCDIR
#error "GGUF_TEST_SRCDIR must be defined by the build"
#endif

/* ---- TAP ---- */

/* The skip records of this run, appended by the forked tests: "name\titer\twhat\twhy\n". */
static char skip_path[4096];

static int no_skip(void) {
    const char *v = getenv("GGUF_TEST_NO_SKIP");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* Copies text into out without tabs and newlines (record fields, TAP lines). */
static void one_line(char *out, size_t cap, const char *text) {
    size_t o = 0;
    for (const char *p = text ? text : ""; *p != '\0' && o + 1 < cap; p++)
        out[o++] = *p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p;
    out[o] = '\0';
}

void tu_skip_at(const char *func, int iter, const char *what, const char *why) {
    if (no_skip())
        ck_abort_msg("%s%s%s: skipped, and GGUF_TEST_NO_SKIP is set", what ? what : "",
                     what ? ": " : "", why);
    char name[256], w[512], y[512];
    one_line(name, sizeof name, func);
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, "_fn") == 0) /* START_TEST(x) defines x_fn */
        name[n - 3] = '\0';
    one_line(w, sizeof w, what);
    one_line(y, sizeof y, why);
    fprintf(stderr, "SKIP: %s%s%s: %s\n", name, what ? ": " : "", w, y);
    if (skip_path[0] == '\0')
        return; /* not run by tu_run_suite: the message is all there is */
    char line[1400];
    int len = snprintf(line, sizeof line, "%s\t%d\t%s\t%s\n", name, iter, w, y);
    int fd = open(skip_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0 || write(fd, line, (size_t)len) != len)
        ck_abort_msg("cannot record a skip in %s", skip_path);
    close(fd);
}

typedef struct skip_rec {
    char name[256], what[512], why[512];
    int iter, used;
} skip_rec;

static skip_rec *read_skips(size_t *n) {
    *n = 0;
    size_t len;
    char *text = (char *)tu_read_file(skip_path, &len);
    if (text == NULL)
        return NULL;
    size_t cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += text[i] == '\n';
    skip_rec *v = calloc(cap, sizeof *v);
    char *save = NULL;
    text = realloc(text, len + 1);
    text[len] = '\0';
    for (char *l = strtok_r(text, "\n", &save); l != NULL; l = strtok_r(NULL, "\n", &save)) {
        char *f[4] = {l, NULL, NULL, NULL};
        for (int k = 1; k < 4 && f[k - 1] != NULL; k++) {
            char *tab = strchr(f[k - 1], '\t');
            if (tab != NULL) {
                *tab = '\0';
                f[k] = tab + 1;
            }
        }
        if (f[3] == NULL)
            continue;
        skip_rec *r = &v[(*n)++];
        snprintf(r->name, sizeof r->name, "%s", f[0]);
        r->iter = atoi(f[1]);
        snprintf(r->what, sizeof r->what, "%s", f[2]);
        snprintf(r->why, sizeof r->why, "%s", f[3]);
    }
    free(text);
    return v;
}

/* A TAP description: '#' escaped, so that only our own "# SKIP" is a directive. */
static void tap_print(FILE *out, const char *status, int k, const char *desc, const char *skip) {
    fprintf(out, "%s %d - ", status, k);
    for (const char *p = desc; *p != '\0'; p++) {
        if (*p == '#' || *p == '\\')
            fputc('\\', out);
        fputc(*p == '\n' ? ' ' : *p, out);
    }
    if (skip != NULL)
        fprintf(out, " # SKIP %s", skip);
    fputc('\n', out);
}

/* The test name and iteration of a result, from Check's log line
 * "file:line:R:tcase:test:iter: message" (the test name is not in Check's public API). */
static void name_of(char **lines, size_t n_lines, size_t *next, TestResult *tr, char *name,
                    size_t cap, int *iter) {
    snprintf(name, cap, "?");
    *iter = 0;
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s:%d:", tr_lfile(tr) ? tr_lfile(tr) : "", tr_lno(tr));
    size_t pl = strlen(prefix);
    for (size_t i = *next; i < n_lines; i++) {
        if (strncmp(lines[i], prefix, pl) != 0)
            continue;
        *next = i + 1;
        const char *p = lines[i] + pl;
        const char *tc = tr_tcname(tr) ? tr_tcname(tr) : "";
        if (p[0] == '\0' || p[1] != ':' || strncmp(p + 2, tc, strlen(tc)) != 0)
            return;
        p += 2 + strlen(tc);
        if (*p++ != ':')
            return;
        const char *colon = strchr(p, ':');
        if (colon == NULL)
            return;
        snprintf(name, cap, "%.*s", (int)(colon - p), p);
        *iter = atoi(colon + 1);
        return;
    }
}

int tu_run_suite(Suite *s) {
    /* our own TAP, not Check's (which the test harness asks of bare srunners) */
    unsetenv("CK_TAP_LOG_FILE_NAME");
    const char *tmpdir = getenv("TMPDIR");
    if (tmpdir == NULL || tmpdir[0] == '\0')
        tmpdir = "/tmp";
    char log_path[4096];
    snprintf(skip_path, sizeof skip_path, "%s/tu-skips.XXXXXX", tmpdir);
    snprintf(log_path, sizeof log_path, "%s/tu-log.XXXXXX", tmpdir);
    int sfd = mkstemp(skip_path), lfd = mkstemp(log_path);
    if (sfd < 0 || lfd < 0) {
        printf("Bail out! cannot create temporary files in %s\n", tmpdir);
        return 1;
    }
    close(sfd);
    close(lfd);

    SRunner *sr = srunner_create(s);
    srunner_set_log(sr, log_path);
    /* what the tests print goes to the log (stderr), where it cannot be taken for TAP */
    fflush(stdout);
    int tap_fd = dup(STDOUT_FILENO);
    dup2(STDERR_FILENO, STDOUT_FILENO);
    srunner_run_all(sr, CK_ENV);
    fflush(stdout);
    dup2(tap_fd, STDOUT_FILENO);
    close(tap_fd);

    size_t log_len, n_lines = 0, n_skips;
    char *log = (char *)tu_read_file(log_path, &log_len);
    log = realloc(log, log_len + 1);
    log[log_len] = '\0';
    char **lines = calloc(log_len + 2, sizeof *lines);
    for (char *save = NULL, *l = strtok_r(log, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        lines[n_lines++] = l;
    skip_rec *skips = read_skips(&n_skips);

    int n = srunner_ntests_run(sr);
    TestResult **res = srunner_results(sr);
    char (*names)[256] = calloc((size_t)n + 1, sizeof *names);
    int *iters = calloc((size_t)n + 1, sizeof *iters);
    size_t next = 0;
    for (int i = 0; i < n; i++)
        name_of(lines, n_lines, &next, res[i], names[i], sizeof names[i], &iters[i]);

    int k = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        int repeats = 0;
        for (int j = 0; j < n; j++)
            repeats += strcmp(names[j], names[i]) == 0;
        char desc[300];
        if (repeats > 1)
            snprintf(desc, sizeof desc, "%s[%d]", names[i], iters[i]);
        else
            snprintf(desc, sizeof desc, "%s", names[i]);
        if (tr_rtype(res[i]) != CK_PASS) {
            char more[4096];
            snprintf(more, sizeof more, "%s: %s:%d: %s", desc, tr_lfile(res[i]), tr_lno(res[i]),
                     tr_msg(res[i]) ? tr_msg(res[i]) : "");
            tap_print(stdout, "not ok", ++k, more, NULL);
            failed++;
        } else {
            const char *why = NULL;
            for (size_t r = 0; r < n_skips && why == NULL; r++) {
                skip_rec *x = &skips[r];
                if (!x->used && x->what[0] == '\0' && strcmp(x->name, names[i]) == 0 &&
                    (x->iter < 0 || x->iter == iters[i])) {
                    x->used = 1;
                    why = x->why;
                }
            }
            tap_print(stdout, "ok", ++k, desc, why);
        }
        /* the parts of this test that did not run */
        for (size_t r = 0; r < n_skips; r++) {
            skip_rec *x = &skips[r];
            if (!x->used && x->what[0] != '\0' && strcmp(x->name, names[i]) == 0 &&
                (x->iter < 0 || x->iter == iters[i])) {
                x->used = 1;
                char part[1024];
                snprintf(part, sizeof part, "%s: %s", desc, x->what);
                tap_print(stdout, "ok", ++k, part, x->why);
            }
        }
    }
    /* skips recorded under another name (a helper function's), once each */
    for (size_t r = 0; r < n_skips; r++) {
        skip_rec *x = &skips[r];
        if (x->used)
            continue;
        for (size_t q = r; q < n_skips; q++)
            if (strcmp(skips[q].name, x->name) == 0 && strcmp(skips[q].what, x->what) == 0 &&
                strcmp(skips[q].why, x->why) == 0)
                skips[q].used = 1;
        char part[1024];
        snprintf(part, sizeof part, "%s%s%s", x->name, x->what[0] ? ": " : "", x->what);
        tap_print(stdout, "ok", ++k, part, x->why);
    }
    printf("1..%d\n", k);
    fflush(stdout);

    free(res); /* the array is ours, the results the runner's */
    free(names);
    free(iters);
    free(skips);
    free(lines);
    free(log);
    unlink(log_path);
    unlink(skip_path);
    skip_path[0] = '\0';
    int status = srunner_ntests_failed(sr) != 0 || failed != 0;
    srunner_free(sr);
    return status;
}

int tu_skip_all(const char *why) {
    char w[512];
    one_line(w, sizeof w, why);
    fflush(stdout);
    fprintf(stderr, "SKIP: %s\n", w);
    if (no_skip()) {
        printf("not ok 1 - skipped (%s), and GGUF_TEST_NO_SKIP is set\n1..1\n", w);
        return 1;
    }
    printf("1..0 # SKIP %s\n", w);
    return 0;
}

const char *tu_oracle_path(void) {
    const char *o = getenv("GGML_ORACLE");
    return o != NULL ? o : "/tmp/ggml-oracle/bin/ggml-oracle";
}

const char *tu_oracle(void) {
    const char *o = tu_oracle_path();
    return o[0] != '\0' && access(o, X_OK) == 0 ? o : NULL;
}

uint8_t *tu_read_file(const char *path, size_t *len) {
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap + 1);
    while (buf != NULL) {
        if (n == cap) {
            uint8_t *grown = realloc(buf, (cap *= 2) + 1);
            if (grown == NULL)
                free(buf);
            buf = grown;
            continue;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        if (got == 0)
            break;
        n += got;
    }
    fclose(fp);
    if (buf == NULL)
        return NULL;
    buf[n] = 0;
    *len = n;
    return buf;
}

int tu_write_file(const char *path, const void *data, size_t len) {
    FILE *fp = fopen(path, "wb");
    if (fp == NULL)
        return -1;
    int rc = fwrite(data, 1, len, fp) == len ? 0 : -1;
    if (fclose(fp) != 0)
        rc = -1;
    return rc;
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

void tu_put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The byte at i of the new region's span before the write: the old region with insert_len
 * zero bytes at insert_at. */
static uint8_t tu_before(const tu_journal *j, uint64_t i) {
    if (i < j->insert_at)
        return j->old_region[i];
    if (i < j->insert_at + j->insert_len)
        return 0;
    return j->old_region[i - j->insert_len];
}

/* The changed ranges: each maximal run of bytes where the new region differs from the file
 * before the write (the format allows any ranges in order, apart and not empty). Writes
 * (offset, length) pairs to out when not NULL; returns the count, their length in *total. */
static uint64_t tu_ranges(const tu_journal *j, uint8_t *out, uint64_t *total) {
    uint64_t n = j->len + j->insert_len, count = 0;
    *total = 0;
    for (uint64_t i = 0; i < n;) {
        if (j->new_region[i] == tu_before(j, i)) {
            i++;
            continue;
        }
        uint64_t a = i;
        while (i < n && j->new_region[i] != tu_before(j, i))
            i++;
        if (out != NULL) {
            tu_put_le(out + 16 * count, a, 8);
            tu_put_le(out + 16 * count + 8, i - a, 8);
        }
        count++;
        *total += i - a;
    }
    return count;
}

#define TU_BLOCK 4096

size_t tu_journal_fields(uint8_t *out, const tu_journal *j, uint32_t version) {
    memcpy(out, j->magic, 8);
    tu_put_le(out + 8, version, 4);
    tu_put_le(out + 12, j->dev, 8);
    tu_put_le(out + 20, j->ino, 8);
    tu_put_le(out + 28, j->size, 8);
    tu_put_le(out + 36, j->len, 8);
    tu_put_le(out + 44, j->insert_at, 8);
    tu_put_le(out + 52, j->insert_len, 8);
    tu_put_le(out + 60, j->old_crc, 4);
    tu_put_le(out + 64, j->moved_crc, 4);
    return 68;
}

size_t tu_journal_encoded_size(const tu_journal *j) {
    uint64_t total, r = tu_ranges(j, NULL, &total);
    uint64_t nb = (j->len + TU_BLOCK - 1) / TU_BLOCK;
    return TU_JOURNAL_HEAD + 4 * nb + 16 * r + total + 4;
}

size_t tu_journal_encode(uint8_t *out, const tu_journal *j) {
    uint64_t n = j->len + j->insert_len, nb = (j->len + TU_BLOCK - 1) / TU_BLOCK, total;
    uint8_t *ranges = out + TU_JOURNAL_HEAD + 4 * nb;
    uint64_t r = tu_ranges(j, ranges, &total);
    uint64_t first = r ? get_le(ranges, 8) : 0;
    uint64_t last = r ? get_le(ranges + 16 * (r - 1), 8) + get_le(ranges + 16 * (r - 1) + 8, 8) : 0;
    uint64_t split = first + (last - first) / 2;
    /* the block holding the split point: new bytes before it, the old ones from it */
    uint64_t bs = split / TU_BLOCK * TU_BLOCK, be = bs + TU_BLOCK < n ? bs + TU_BLOCK : n;
    uint8_t torn[TU_BLOCK];
    for (uint64_t i = bs; i < be; i++)
        torn[i - bs] = i < split ? j->new_region[i] : tu_before(j, i);
    tu_journal_fields(out, j, j->version);
    tu_put_le(out + 68, (uint32_t)crc32_z(0, j->new_region, (size_t)n) + j->new_crc_delta, 4);
    tu_put_le(out + 72, split, 8);
    tu_put_le(out + 80, (uint32_t)crc32_z(0, torn, (size_t)(be - bs)), 4);
    tu_put_le(out + 84, r, 8);
    tu_put_le(out + 92, total, 8);
    for (uint64_t k = 0; k < nb; k++) {
        uint64_t off = k * TU_BLOCK, m = j->len - off < TU_BLOCK ? j->len - off : TU_BLOCK;
        tu_put_le(out + TU_JOURNAL_HEAD + 4 * k, (uint32_t)crc32_z(0, j->old_region + off, (size_t)m),
               4);
    }
    uint8_t *bytes = ranges + 16 * r;
    for (uint64_t k = 0; k < r; k++) {
        uint64_t a = get_le(ranges + 16 * k, 8), len = get_le(ranges + 16 * k + 8, 8);
        memcpy(bytes, j->new_region + a, (size_t)len);
        bytes += len;
    }
    size_t size = (size_t)(bytes - out);
    uint32_t all = (uint32_t)crc32_z(0, out, size);
    tu_put_le(out + size, all + j->trailer_delta, 4);
    return size + 4;
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
    j->version = TU_JOURNAL_VERSION;
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

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

void tu_rng_seed(uint64_t seed) {
    rng_state = seed ? seed : 0x9E3779B97F4A7C15u;
}

uint32_t tu_rng_u32(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

uint32_t tu_float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

float tu_rng_unit(void) {
    return (float)(tu_rng_u32() & 0xffffff) / 16777216.0f;
}

float tu_rng_gauss(void) {
    float u = tu_rng_unit() + 1e-7f, v = tu_rng_unit();
    return sqrtf(-2 * logf(u)) * cosf(6.2831853f * v);
}
