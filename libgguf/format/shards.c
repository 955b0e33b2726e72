/* Split sets opened as one model. llama.cpp's split sets (llama-gguf-split) are
 * files named PREFIX-00001-of-0000N.gguf .. PREFIX-0000N-of-0000N.gguf; each holds split.no
 * (UINT16, from 0), split.count (UINT16, N) and split.tensors.count (INT32, the tensors of all
 * shards); the first holds all other metadata. With GGUF_OPEN_SPLIT_SET, opening any shard
 * opens the set: every shard is parsed as a file of its own, checked to belong to the set
 * (its name, split.no and split.count agree; split.tensors.count and the byte order are the
 * first shard's; no tensor name twice; the tensors add up to split.tensors.count), and a view
 * is built: the first shard's metadata, the tensors of all shards in shard order, each
 * remembering its shard, and one source reading every shard (source/set.c). Shards missing,
 * duplicated or from another set are named in the error. Nothing is written. A shard named by
 * a URL has URLs for siblings (the same URL with the shard number changed), opened with the
 * same options; a sibling the server does not have (404) is a missing shard. */
#define _GNU_SOURCE
#include "format/format.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define QUOTE_MAX 96

/* One split key as an integer: -1 when absent. */
static int split_key(const gguf_file *f, const char *key, int64_t *out, gguf_error *err) {
    *out = -1;
    int rc = gguf__kv_int(out, f, key, 0, err);
    return rc < 0 ? rc : 0;
}

int gguf__split_keys(const gguf_file *f, int64_t *no, int64_t *count, int64_t *tensors,
                     gguf_error *err) {
    int64_t a, b, c;
    int rc = split_key(f, "split.no", &a, err);
    if (rc == 0)
        rc = split_key(f, "split.count", &b, err);
    if (rc == 0)
        rc = split_key(f, "split.tensors.count", &c, err);
    if (rc != 0)
        return rc;
    if (no != NULL)
        *no = a;
    if (count != NULL)
        *count = b;
    if (tensors != NULL)
        *tensors = c;
    return 0;
}

/* ---- the view ---- */

typedef struct set_open {
    const char *given;  /* the path the caller gave */
    char *prefix;
    uint32_t count;
    unsigned flags;     /* for each shard: the caller's, without GGUF_OPEN_SPLIT_SET */
    gguf_open_options opt; /* for each shard: the caller's, with those flags */
    enum gguf__name_kind kind; /* of every shard's name: the given one's */
    bool strays;        /* look for files beside the set named like its shards (for lint) */
    gguf_file **files;  /* count entries; NULL: not (yet) opened */
    char **paths;
} set_open;

static void set_open_free(set_open *s) {
    for (uint32_t k = 0; s->files != NULL && k < s->count; k++)
        gguf_file_free(s->files[k]);
    for (uint32_t k = 0; s->paths != NULL && k < s->count; k++)
        gguf__free(s->paths[k]);
    gguf__free(s->files);
    gguf__free(s->paths);
    gguf__free(s->prefix);
}

static const char *base_name(const char *path) {
    const char *b = strrchr(path, '/');
    return b != NULL ? b + 1 : path;
}

/* Opens every shard not opened yet; a shard that is not there (no such file, or a 404) stays
 * NULL, for assemble to name. */
static int open_shards(set_open *s, gguf_error *err) {
    int rc = 0;
    for (uint32_t k = 0; rc == 0 && k < s->count; k++) {
        if (s->files[k] != NULL)
            continue;
        struct stat st;
        if (s->kind == GGUF__NAME_PATH && stat(s->paths[k], &st) != 0 && errno == ENOENT)
            continue;
        gguf__source *src;
        gguf_error sub;
        gguf_error_clear(&sub);
        rc = gguf__source_open_as(&src, s->kind, s->paths[k], &s->opt, &sub);
        if (rc == GGUF_ENOTFOUND && s->kind == GGUF__NAME_URL) { /* the server has no such shard */
            rc = 0;
            continue;
        }
        if (rc != 0 && err != NULL && err->code == 0)
            *err = sub;
        if (rc == 0)
            rc = gguf__open_source(&s->files[k], src, s->flags, err);
        if (rc != 0) {
            gguf__wrap(err, rc, "shard %u of %u", k + 1, s->count);
            gguf__fail_path(err, s->paths[k]);
        }
    }
    return rc;
}

/* Names every missing shard (files[k] NULL) in one error. */
static int check_present(const set_open *s, gguf_error *err) {
    gguf__buf missing = {0};
    size_t n_missing = 0;
    for (uint32_t k = 0; k < s->count; k++) {
        if (s->files[k] == NULL)
            gguf__buf_printf(&missing, "%s%s", n_missing++ ? ", " : "", base_name(s->paths[k]));
    }
    int rc = 0;
    if (n_missing > 0) {
        gguf__buf_nul(&missing);
        rc = gguf__fail(err, GGUF_ENOTFOUND, GGUF_ERROR_NO_OFFSET,
                        "split set of %u shards: %zu missing: %s", s->count, n_missing,
                        missing.failed ? "(out of memory naming them)" : (char *)missing.data);
        gguf__fail_path(err, s->given);
    }
    gguf__buf_free(&missing);
    return rc;
}

/* Each shard says it is shard k of this set. */
static int check_shards(set_open *s, gguf_error *err) {
    int64_t tensors0 = -1;
    for (uint32_t k = 0; k < s->count; k++) {
        const gguf_file *f = s->files[k];
        int64_t no, count, tensors;
        int rc = gguf__split_keys(f, &no, &count, &tensors, err);
        if (rc == 0 && no < 0)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "shard %u of %u has no split.no: not a shard of this set", k + 1,
                            s->count);
        else if (rc == 0 && no != k && no >= 0 && no < s->count)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "split.no %lld: this file is a copy of shard %lld, not shard %u "
                            "(a duplicated or misnamed shard)",
                            (long long)no, (long long)no + 1, k + 1);
        else if (rc == 0 && no != k)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "split.no %lld does not match the name (shard %u of %u)",
                            (long long)no, k + 1, s->count);
        else if (rc == 0 && count < 0)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "shard %u of %u has no split.count: not a shard of this set", k + 1,
                            s->count);
        else if (rc == 0 && count != s->count)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "split.count %lld, but the set has %u shards: shards from two "
                            "different sets", (long long)count, s->count);
        else if (rc == 0 && k == 0)
            tensors0 = tensors;
        else if (rc == 0 && tensors >= 0 && tensors0 >= 0 && tensors != tensors0)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "split.tensors.count %lld, but the first shard says %lld: shards "
                            "from two different sets", (long long)tensors, (long long)tensors0);
        else if (rc == 0 && f->big != s->files[0]->big)
            rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                            "%s-endian, but the first shard is %s-endian: shards from two "
                            "different sets", f->big ? "big" : "little",
                            s->files[0]->big ? "big" : "little");
        if (rc != 0) {
            gguf__fail_path(err, s->paths[k]);
            return rc;
        }
    }
    return 0;
}

/* Files beside the set named PREFIX-NNNNN-of-MMMMM.gguf that are not its shards. */
static int find_strays(gguf_file *v, const set_open *s, gguf_error *err) {
    char *dir = gguf__path_dir(s->prefix);
    if (dir == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    const char *pbase = base_name(s->prefix);
    size_t plen = strlen(pbase);
    DIR *d = opendir(dir);
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && d != NULL && (e = readdir(d)) != NULL) {
        size_t prefix_len;
        uint32_t no, count;
        if (!gguf_split_parse_name(&prefix_len, &no, &count, e->d_name) ||
            prefix_len != plen || memcmp(e->d_name, pbase, plen) != 0 ||
            (count == s->count && no < s->count))
            continue;
        char **grown = gguf__realloc(v->strays, (v->n_strays + 1) * sizeof *grown);
        if (grown != NULL)
            v->strays = grown;
        /* the folder part of the prefix (with its '/'), then the entry's name */
        size_t dlen = (size_t)(pbase - s->prefix), n = strlen(e->d_name);
        char *full = gguf__malloc(dlen + n + 1);
        if (grown == NULL || full == NULL) {
            gguf__free(full);
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        memcpy(full, s->prefix, dlen);
        memcpy(full + dlen, e->d_name, n + 1);
        v->strays[v->n_strays++] = full;
    }
    if (d != NULL)
        closedir(d);
    gguf__free(dir);
    return rc;
}

/* The view: shards[0]'s metadata (borrowed), every shard's tensors (borrowed names), one
 * source over all shards. Takes the shard files from s (s->files NULL) when it succeeds; on
 * failure they stay in s. */
static int build_view(gguf_file **out, set_open *s, gguf_error *err) {
    gguf_file *v = gguf__calloc(1, sizeof *v);
    gguf__source **parts = gguf__malloc(s->count * sizeof *parts);
    size_t total = 0;
    for (uint32_t k = 0; k < s->count; k++)
        total += s->files[k]->n_tensors;
    const gguf_file *f0 = s->files[0];
    int rc = 0;
    if (v == NULL || parts == NULL)
        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (rc == 0) {
        v->flags = s->flags | GGUF_OPEN_SPLIT_SET;
        v->shards = s->files;
        v->n_shards = s->count;
        s->files = NULL; /* the view owns them now (and frees them with itself) */
        for (uint32_t k = 0; k < s->count; k++)
            parts[k] = v->shards[k]->src;
        rc = gguf__source_open_set(&v->src, parts, s->count, err);
    }
    if (rc == 0) {
        v->size = v->src->size;
        v->head = f0->head;
        v->head_len = f0->head_len;
        v->version = f0->version;
        v->big = f0->big;
        v->alignment = f0->alignment;
        v->header_end = f0->header_end;
        v->data_offset = f0->data_offset;
        v->must_pack = true; /* the only layout a view can be written in */
        v->kv = gguf__malloc((f0->n_kv ? f0->n_kv : 1) * sizeof *v->kv);
        v->tensors = gguf__malloc((total ? total : 1) * sizeof *v->tensors);
        if (v->kv == NULL || v->tensors == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    if (rc == 0) {
        for (size_t i = 0; i < f0->n_kv; i++) {
            v->kv[i] = f0->kv[i];
            v->kv[i].key_owned = false;
            v->kv[i].value.owned = 0;
        }
        v->n_kv = v->cap_kv = f0->n_kv;
        gguf__index_kv(v);
        if (gguf__hashset_init(&v->tensor_index, total) != 0)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        v->cap_tensors = total;
    }
    size_t dups = 0; /* tensors named twice (accepted with GGUF_OPEN_LENIENT) */
    for (uint32_t k = 0; rc == 0 && k < s->count; k++) {
        const gguf_file *f = v->shards[k];
        uint64_t base = gguf__source_part_base(v->src, k);
        for (size_t i = 0; rc == 0 && i < f->n_tensors; i++) {
            gguf__tensor *t = &v->tensors[v->n_tensors];
            *t = f->tensors[i];
            t->name_owned = false;
            t->shard = k;
            t->src_offset = t->src_offset == GGUF__NO_SOURCE ? t->src_offset : t->src_offset + base;
            int64_t dup = gguf__hashset_insert(&v->tensor_index, (uint32_t)v->n_tensors,
                                               gguf__tensor_name, v);
            v->n_tensors++;
            char q[QUOTE_MAX];
            if (dup == -2) {
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            } else if (dup >= 0 && (s->flags & GGUF_OPEN_LENIENT)) {
                dups++;
            } else if (dup >= 0) {
                uint32_t other = v->tensors[dup].shard;
                rc = gguf__fail(err, GGUF_ECORRUPT, t->info_offset,
                                "tensor '%s' is in shard %u and in shard %u (%s)%s",
                                gguf__quote(q, sizeof q, t->name, (size_t)t->name_len),
                                other + 1, k + 1, base_name(s->paths[other]),
                                other == 0 ? ": an interrupted merge? run the merge again" : "");
                gguf__fail_path(err, s->paths[k]);
            }
        }
    }
    int64_t expect = -1;
    if (rc == 0)
        rc = gguf__split_keys(f0, NULL, NULL, &expect, err);
    if (rc == 0 && expect >= 0 && (uint64_t)expect != v->n_tensors - dups) {
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "the %u shards hold %zu tensors, split.tensors.count says %lld",
                        s->count, v->n_tensors - dups, (long long)expect);
        gguf__fail_path(err, s->paths[0]);
    }
    if (rc == 0 && s->strays) /* a server lists no folder */
        rc = find_strays(v, s, err);
    gguf__free(parts);
    if (rc != 0) {
        if (v != NULL && v->shards != NULL) { /* the shards go back to s */
            s->files = v->shards;
            v->shards = NULL;
            v->n_shards = 0;
        }
        gguf_file_free(v);
        return rc;
    }
    *out = v;
    return 0;
}

/* The view of the shards in s->files: every shard there, each a shard of this set. */
static int assemble(gguf_file **out, set_open *s, gguf_error *err) {
    int rc = check_present(s, err);
    if (rc == 0)
        rc = check_shards(s, err);
    if (rc == 0)
        rc = build_view(out, s, err);
    return rc;
}

/* Opens the set `given` (already parsed from path, a name of that kind) belongs to. Takes
 * given. */
static int open_set(gguf_file **out, gguf_file *given, enum gguf__name_kind kind,
                    const char *path, uint32_t no, uint32_t count, const gguf_open_options *opt,
                    gguf_error *err) {
    set_open s = {.given = path, .count = count, .opt = *opt,
                  .flags = opt->flags & ~(unsigned)GGUF_OPEN_SPLIT_SET,
                  .kind = kind};
    s.opt.flags = s.flags;
    s.strays = kind == GGUF__NAME_PATH;
    size_t prefix_len;
    uint32_t name_no, name_count;
    int rc = 0;
    if (!gguf_split_parse_name(&prefix_len, &name_no, &name_count, path))
        rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                        "split.count is %u but the name is not PREFIX-%05u-of-%05u.gguf, so the "
                        "other shards cannot be found (read this file alone to see it)",
                        count, no + 1, count);
    else if (name_count != count)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "split.count %u disagrees with the name, which says %u shards", count,
                        name_count);
    else if (name_no != no)
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "split.no %u (shard %u) disagrees with the name, which says shard %u", no,
                        no + 1, name_no + 1);
    if (rc != 0) {
        gguf_file_free(given);
        gguf__fail_path(err, path);
        return rc;
    }
    s.prefix = gguf__strndup(path, prefix_len);
    s.files = gguf__calloc(count, sizeof *s.files);
    s.paths = gguf__calloc(count, sizeof *s.paths);
    if (s.prefix == NULL || s.files == NULL || s.paths == NULL) {
        gguf_file_free(given);
        set_open_free(&s);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    s.files[no] = given;
    size_t size = prefix_len + 32;
    for (uint32_t k = 0; rc == 0 && k < count; k++) {
        s.paths[k] = gguf__malloc(size);
        if (s.paths[k] == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        else
            gguf_split_name(s.paths[k], size, s.prefix, k, count);
    }
    if (rc == 0)
        rc = open_shards(&s, err);
    if (rc == 0)
        rc = assemble(out, &s, err);
    set_open_free(&s);
    return rc;
}

int gguf__split_assemble(gguf_file **out, gguf_file **files, char *const *paths, uint32_t count,
                         unsigned flags, gguf_error *err) {
    set_open s = {.given = paths[0], .count = count,
                  .flags = flags & ~(unsigned)GGUF_OPEN_SPLIT_SET, .paths = (char **)paths};
    for (uint32_t k = count; k-- > 0;) {
        if (files[k] != NULL)
            s.given = paths[k]; /* the first shard there */
    }
    /* the view takes the array it is given: a copy, so that the caller's stays the caller's */
    s.files = gguf__malloc((count ? count : 1) * sizeof *s.files);
    if (s.files == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    memcpy(s.files, files, count * sizeof *files);
    int rc = assemble(out, &s, err);
    if (rc == 0)
        memset(files, 0, count * sizeof *files); /* the view's now */
    gguf__free(s.files);                         /* NULL when the view took it */
    return rc;
}

int gguf__split_open(gguf_file **out, gguf_file *f, enum gguf__name_kind kind, const char *path,
                     const gguf_open_options *opt, gguf_error *err) {
    int64_t no = -1, count = -1;
    int rc = gguf__split_keys(f, &no, &count, NULL, err);
    if (rc != 0) {
        gguf__fail_path(err, path);
        gguf_file_free(f);
        return rc;
    }
    size_t prefix_len;
    uint32_t name_no, name_count;
    if (count <= 1 && (no >= 0 || count >= 0) &&
        gguf_split_parse_name(&prefix_len, &name_no, &name_count, path) && name_count > 1) {
        /* named as a shard of a set, split keys saying one file: the set is broken (read
         * alone, the file would be taken for the whole model) */
        char said[48];
        if (count < 0)
            snprintf(said, sizeof said, "split.no %lld without split.count", (long long)no);
        else
            snprintf(said, sizeof said, "split.count %lld (one file)", (long long)count);
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        "%s disagrees with the name, which says shard %u of %u%s", said,
                        name_no + 1, name_count,
                        count == 0 ? " (a merged file left under a shard's name by an "
                                     "interrupted `merge --delete-splits`? run it again)"
                                   : "");
        gguf__fail_path(err, path);
        gguf_file_free(f);
        return rc;
    }
    if (count <= 1) { /* no set: a file of its own, or a merged one (split.count 0) */
        *out = f;
        return 0;
    }
    if (count > 99999 || no < 0 || no >= count) {
        rc = gguf__fail(err, GGUF_ECORRUPT, GGUF_ERROR_NO_OFFSET,
                        no < 0 ? "split.count %lld but no split.no"
                               : "split.no %lld is not a shard of %lld",
                        no < 0 ? (long long)count : (long long)no, (long long)count);
        gguf__fail_path(err, path);
        gguf_file_free(f);
        return rc;
    }
    return open_set(out, f, kind, path, (uint32_t)no, (uint32_t)count, opt, err);
}

/* ---- accessors ---- */

size_t gguf_file_shard_count(const gguf_file *f) {
    return f->n_shards > 0 ? f->n_shards : 1;
}

const gguf_file *gguf_file_shard(const gguf_file *f, size_t k) {
    if (f->n_shards == 0)
        return k == 0 ? f : NULL;
    return k < f->n_shards ? f->shards[k] : NULL;
}

const char *gguf_file_path(const gguf_file *f) {
    if (f->src == NULL || (f->src->fd < 0 && !gguf__source_is_set(f->src) &&
                           f->src->kind != GGUF__SOURCE_HTTP))
        return NULL;
    return f->src->name;
}

uint32_t gguf_tensor_shard(const gguf_file *f, size_t i) {
    return i < f->n_tensors ? f->tensors[i].shard : 0;
}
