/* Split sets in an index run. A split set is one model: each shard is stored as the file it is
 * (so that re-index, prune and verify work per file), and the set is checked as
 * gguf_file_open with GGUF_OPEN_SPLIT_SET checks it (gguf__split_assemble): a set that does not
 * open as one model gets an errors row of scope 'set' at its first shard's path, naming the
 * shard at fault; the row goes once the set opens. The models view shows the set once, on its
 * first shard's row (files.model).
 *
 * A file named like a shard brings its siblings: all are stat'd, and when every one is as
 * stored (a missing one still missing) and the set's verdict would not change, nothing is read.
 * Otherwise every shard is opened on its own, the changed ones are stored, a shard gone since
 * it was stored loses its rows, and the verdict is made again. A set is handled once per run,
 * whichever of its shards the walk meets first. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <errno.h>
#include <string.h>

static const char *base_name(const char *path) {
    const char *b = strrchr(path, '/');
    return b != NULL ? b + 1 : path;
}

/* split.count of f, or -1 (absent or not an integer). */
static int64_t split_count(const gguf_file *f) {
    int64_t count = -1;
    if (gguf__split_keys(f, NULL, &count, NULL, NULL) != 0)
        return -1;
    return count;
}

/* The set's errors row goes (when there is one). */
static int set_is_fine(gguf__indexer *x, const char *model, gguf_error *err) {
    gguf__known *k = gguf__known_find(&x->set_errors, model);
    if (k == NULL || !k->is_error)
        return 0;
    int rc = gguf__store_clear_set_error(x->cat, model, err);
    if (rc == 0)
        k->is_error = 0;
    return rc;
}

static int set_is_broken(gguf__indexer *x, const char *model, uint32_t shard,
                         const gguf_error *why, gguf_error *err) {
    int rc = gguf__store_set_error(x->cat, model, shard, why, x->run, x->now, err);
    gguf__known k = {.is_error = 1, .retry = (uint8_t)gguf__known_retry_code(why->code)};
    if (rc == 0 && gguf__known_put(&x->set_errors, model, &k) != 0)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc != 0)
        return rc;
    x->stats.broken_sets++;
    gguf__index_emit(x, GGUF_CATALOG_EV_SET_BROKEN, model, why);
    return 0;
}

int gguf__index_set_verdict(gguf__indexer *x, const char *model, char *const *paths,
                            gguf_file **files, const gguf_error *errs, uint32_t count,
                            gguf_error *err) {
    int split = 0;
    for (uint32_t k = 0; k < count; k++)
        split |= files[k] != NULL && split_count(files[k]) > 1;
    gguf_error why;
    gguf_error_clear(&why);
    uint32_t shard = 0; /* from 1 */
    int bad = 0;
    /* a shard refused on its own: its error, not the set's */
    for (uint32_t k = 0; split && k < count && !bad; k++) {
        if (files[k] == NULL && errs[k].code != 0) {
            why = errs[k];
            shard = k + 1;
            bad = 1;
        }
    }
    if (split && !bad) {
        gguf_file *view = NULL;
        bad = gguf__split_assemble(&view, files, paths, count, gguf__index_open_flags(x),
                                   &why) != 0;
        gguf_file_free(view); /* and the shards it took */
        for (uint32_t k = 0; bad && k < count && shard == 0; k++) {
            if (why.code == GGUF_ENOTFOUND ? files[k] == NULL : strcmp(why.path, paths[k]) == 0)
                shard = k + 1;
        }
    }
    for (uint32_t k = 0; k < count; k++) {
        gguf_file_free(files[k]);
        files[k] = NULL;
    }
    if (!bad)
        return set_is_fine(x, model, err);
    /* the missing shards are named already; other errors say which shard they are about */
    if (why.code != GGUF_ENOTFOUND && shard > 0)
        gguf__wrap(&why, why.code, "shard %u of %u (%s)", shard, count,
                   base_name(paths[shard - 1]));
    if (shard > 0)
        gguf__fail_path(&why, paths[shard - 1]);
    return set_is_broken(x, model, shard, &why, err);
}

int gguf__index_lone_shard(gguf__indexer *x, const char *path, const gguf_file *f,
                           gguf_error *err) {
    int64_t no = -1, count = -1;
    if (gguf__split_keys(f, &no, &count, NULL, NULL) != 0 || count <= 1 ||
        gguf_split_parse_name(NULL, NULL, NULL, path))
        return set_is_fine(x, path, err);
    gguf_error why;
    gguf_error_clear(&why);
    gguf__fail(&why, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
               "split.count is %lld but the name is not PREFIX-%05lld-of-%05lld.gguf, so the other "
               "shards cannot be found",
               (long long)count, (long long)(no >= 0 ? no + 1 : 1), (long long)count);
    gguf__fail_path(&why, path);
    return set_is_broken(x, path, no >= 0 && no < count ? (uint32_t)no + 1 : 0, &why, err);
}

/* What a shard's path is: there (a regular file, st set), missing, or there but not a file to
 * open (why set). */
enum { SHARD_FILE, SHARD_MISSING, SHARD_OTHER };

static int look(const char *path, struct stat *st, gguf_error *why) {
    gguf_error_clear(why);
    if (stat(path, st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return SHARD_MISSING;
        gguf__fail(why, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "cannot stat: %s", strerror(errno));
        return SHARD_OTHER;
    }
    if (!S_ISREG(st->st_mode)) {
        gguf__fail(why, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "%s, not a regular file (not opened)",
                   gguf__catalog_file_kind(st->st_mode));
        return SHARD_OTHER;
    }
    return SHARD_FILE;
}

/* Shard paths, their stats and what opening them gave. */
typedef struct local_set {
    uint32_t count;
    char **paths;
    struct stat *st;
    int *kind;
    gguf_file **files;
    gguf_error *errs;
} local_set;

static void local_set_free(local_set *s) {
    for (uint32_t k = 0; k < s->count; k++) {
        if (s->paths != NULL)
            gguf__free(s->paths[k]);
        if (s->files != NULL)
            gguf_file_free(s->files[k]);
    }
    gguf__free(s->paths);
    gguf__free(s->st);
    gguf__free(s->kind);
    gguf__free(s->files);
    gguf__free(s->errs);
}

static int local_set_init(local_set *s, const char *path, gguf_error *err) {
    uint32_t count;
    memset(s, 0, sizeof *s);
    if (!gguf_split_parse_name(NULL, NULL, &count, path))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "not a shard's name");
    s->count = count;
    s->paths = gguf__calloc(count, sizeof *s->paths);
    s->st = gguf__calloc(count, sizeof *s->st);
    s->kind = gguf__calloc(count, sizeof *s->kind);
    s->files = gguf__calloc(count, sizeof *s->files);
    s->errs = gguf__calloc(count, sizeof *s->errs);
    int rc = s->paths == NULL || s->st == NULL || s->kind == NULL || s->files == NULL ||
             s->errs == NULL;
    for (uint32_t k = 0; !rc && k < count; k++)
        rc = (s->paths[k] = gguf__catalog_shard_path(path, k)) == NULL;
    return rc ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory") : 0;
}

/* 1 when no shard changed, appeared or vanished since the set's rows were stored, and the
 * verdict stored would come again. */
static int set_unchanged(gguf__indexer *x, const local_set *s) {
    gguf__known *se = gguf__known_find(&x->set_errors, s->paths[0]);
    if (se != NULL && se->is_error && se->retry)
        return 0;
    for (uint32_t k = 0; k < s->count; k++) {
        gguf__known *known = gguf__known_find(&x->known, s->paths[k]);
        if (s->kind[k] == SHARD_FILE) {
            gguf__file_id id;
            gguf__catalog_id_of_stat(&id, &s->st[k]);
            if (!gguf__index_unchanged(x, known, &id))
                return 0;
        } else if (known != NULL) { /* stored, and gone or no longer a file */
            return 0;
        }
    }
    return 1;
}

int gguf__index_local_set(gguf__indexer *x, const char *path, const gguf__walk_dir *dir,
                          gguf_error *err) {
    local_set s;
    int rc = local_set_init(&s, path, err);
    int first = rc == 0 ? gguf__index_set_first(x, s.paths[0]) : 0;
    if (first < 0)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc != 0 || first == 0) { /* handled already in this run */
        local_set_free(&s);
        return rc;
    }
    for (uint32_t k = 0; k < s.count; k++)
        s.kind[k] = look(s.paths[k], &s.st[k], &s.errs[k]);
    int skip = set_unchanged(x, &s);
    for (uint32_t k = 0; rc == 0 && k < s.count; k++) {
        if (s.kind[k] == SHARD_FILE) {
            rc = gguf__index_local_file(x, s.paths[k], &s.st[k], dir, skip,
                                        skip ? NULL : &s.files[k], &s.errs[k], err);
        } else if (s.kind[k] == SHARD_OTHER) {
            x->stats.skipped++;
            gguf__index_emit(x, GGUF_CATALOG_EV_SKIPPED, s.paths[k], NULL);
        } else if (gguf__known_find(&x->known, s.paths[k]) != NULL) {
            /* a shard gone since it was stored: the set's rows are what this run found */
            rc = gguf__store_forget(x->cat, s.paths[k], err); /* (its set is done: not met again) */
        }
    }
    if (rc == 0 && !skip)
        rc = gguf__index_set_verdict(x, s.paths[0], s.paths, s.files, s.errs, s.count, err);
    local_set_free(&s);
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
