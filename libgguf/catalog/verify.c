/* gguf_catalog_verify: catalogued files re-read and compared with their rows (the header's
 * crc32 always, each tensor's crc32 when stored). The list is read first, and no statement is
 * open during the long reads. A path that is no longer a regular file is reported from its
 * stat and never opened (a FIFO would block a reader). A URL is fetched again (its header, and
 * its tensors when their crc32s are stored); what the server says of it (size, ETag,
 * Last-Modified) tells whether it changed. A path selects models: a split set's every shard is
 * checked, and its shards that have no row are reported. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct vfile {
    int64_t id, dev, ino, size, mtime_ns, header_crc, split_count;
    int has_header_crc;
    unsigned open_flags;
    int has_crc;
    int other_host; /* stored by another machine: its device and inode numbers are its own */
    char *path;
    char *model;
    char *etag, *last_modified; /* a URL's, or NULL */
} vfile;

typedef struct vtensor {
    int64_t position;
    char *name;
    uint32_t crc;
} vtensor;

typedef struct vfinding {
    int problem;
    char *tensor;
    int has_crc;
    uint32_t expected, actual;
    char *message;
} vfinding;

typedef struct verifier {
    gguf_catalog *cat;
    gguf__db *db;
    gguf_catalog_finding_fn fn;
    void *user;
    gguf_catalog_verify_stats stats;
    vfinding *found;
    size_t n_found, cap_found;
    int nomem;
} verifier;

static void add_finding(verifier *v, int problem, const char *tensor, int has_crc,
                        uint32_t expected, uint32_t actual, const char *fmt, ...) GGUF_PRINTF(7, 8);
static void add_finding(verifier *v, int problem, const char *tensor, int has_crc,
                        uint32_t expected, uint32_t actual, const char *fmt, ...) {
    if (v->nomem)
        return;
    if (v->n_found == v->cap_found) {
        size_t cap = v->cap_found ? v->cap_found * 2 : 8;
        vfinding *p = gguf__realloc(v->found, cap * sizeof *p);
        if (p == NULL) {
            v->nomem = 1;
            return;
        }
        v->found = p;
        v->cap_found = cap;
    }
    char msg[GGUF_ERROR_MESSAGE_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vfinding *f = &v->found[v->n_found];
    *f = (vfinding){problem, NULL, has_crc, expected, actual, gguf__strdup(msg)};
    f->tensor = tensor != NULL ? gguf__strdup(tensor) : NULL;
    if (f->message == NULL || (tensor != NULL && f->tensor == NULL)) {
        gguf__free(f->tensor);
        gguf__free(f->message);
        v->nomem = 1;
        return;
    }
    v->n_found++;
}

static void flush_findings(verifier *v, const char *path) {
    for (size_t i = 0; i < v->n_found; i++) {
        vfinding *f = &v->found[i];
        if (v->fn != NULL) {
            gguf_catalog_finding out = {f->problem,  path,      f->tensor, f->has_crc,
                                        f->expected, f->actual, f->message};
            v->fn(&out, v->user);
        }
        gguf__free(f->tensor);
        gguf__free(f->message);
    }
    v->n_found = 0;
}

static void free_tensors(vtensor *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        gguf__free(list[i].name);
    gguf__free(list);
}

/* The stored crc32s of file id. */
static int load_tensors(vtensor **out, size_t *n_out, verifier *v, int64_t id, gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__db_prepare(&st, v->db,
                              "SELECT position, name, crc32 FROM tensors WHERE file = ?1 AND "
                              "crc32 IS NOT NULL ORDER BY position",
                              NULL, 0);
    if (rc != SQLITE_OK)
        return gguf__catalog_db_fail(err, v->db, rc, v->cat->path, "reading tensors");
    gguf__bind_int64(st, 1, id);
    vtensor *list = NULL;
    size_t n = 0, cap = 0;
    int fail = 0;
    while ((rc = gguf__step(st)) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            vtensor *p = gguf__realloc(list, cap * sizeof *p);
            if (p == NULL) {
                fail = 1;
                break;
            }
            list = p;
        }
        const char *name = (const char *)gguf__col_blob(st, 1);
        char *copy = gguf__strndup(name ? name : "", (size_t)gguf__col_bytes(st, 1));
        if (copy == NULL) {
            fail = 1;
            break;
        }
        list[n++] = (vtensor){gguf__col_int64(st, 0), copy,
                              (uint32_t)gguf__col_int64(st, 2)};
    }
    gguf__finalize(st);
    if (fail || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
        free_tensors(list, n);
        if (fail)
            return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        return gguf__catalog_db_fail(err, v->db, rc, v->cat->path, "reading tensors");
    }
    *out = list;
    *n_out = n;
    return 0;
}

/* Finds tensor `name` in f: at its old position when it is still there, else by name. */
static int64_t find_tensor(const gguf_file *f, int64_t position, const char *name) {
    size_t len = strlen(name);
    if (position >= 0 && (uint64_t)position < gguf_tensor_count(f)) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, (size_t)position);
        if (t.name_len == len && memcmp(t.name, name, len) == 0)
            return position;
    }
    return gguf_tensor_find(f, name);
}

/* Compares every stored tensor crc32 with the file's. *bad: some differ or are gone;
 * *unreadable: a read failed. */
static int check_tensors(verifier *v, const vfile *vf, gguf_file *f, int problem, int *bad,
                         int *unreadable, gguf_error *err) {
    vtensor *ts = NULL;
    size_t nt = 0;
    char qname[96];
    gguf_error fe;
    int rc = load_tensors(&ts, &nt, v, vf->id, err);
    if (rc != 0)
        return rc;
    for (size_t i = 0; i < nt && !*unreadable; i++) {
        gguf__quote(qname, sizeof qname, ts[i].name, strlen(ts[i].name));
        int64_t at = find_tensor(f, ts[i].position, ts[i].name);
        if (at < 0) {
            *bad = 1;
            add_finding(v, problem, ts[i].name, 0, 0, 0, "tensor '%s' is gone", qname);
            continue;
        }
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, (size_t)at);
        if (t.nbytes == GGUF_NBYTES_UNKNOWN) {
            *bad = 1;
            add_finding(v, problem, ts[i].name, 0, 0, 0,
                        "tensor '%s' has a type of unknown size now", qname);
            continue;
        }
        uint32_t crc;
        gguf_error_clear(&fe);
        if (gguf_crc_tensor(&crc, f, (size_t)at, &fe) != 0) {
            *unreadable = 1;
            add_finding(v, GGUF_CATALOG_UNREADABLE, ts[i].name, 0, 0, 0, "tensor '%s': %s", qname,
                        fe.message);
            break;
        }
        v->stats.tensors++;
        v->stats.bytes += t.nbytes;
        if (crc != ts[i].crc) {
            *bad = 1;
            add_finding(v, problem, ts[i].name, 1, ts[i].crc, crc,
                        "tensor '%s': crc32 is 0x%08" PRIx32 ", the catalog has 0x%08" PRIx32,
                        qname, crc, ts[i].crc);
        }
    }
    free_tensors(ts, nt);
    return 0;
}

/* A path that is there but cannot be the catalogued file: missing, unstatable, not regular. */
static int not_there(verifier *v, const vfile *vf, struct stat *st) {
    if (stat(vf->path, st) != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR) {
            v->stats.missing++;
            add_finding(v, GGUF_CATALOG_MISSING, NULL, 0, 0, 0, "no longer exists");
        } else {
            v->stats.unreadable++;
            add_finding(v, GGUF_CATALOG_UNREADABLE, NULL, 0, 0, 0, "cannot stat: %s",
                        strerror(e));
        }
        return 1;
    }
    if (!S_ISREG(st->st_mode)) {
        v->stats.changed++;
        add_finding(v, GGUF_CATALOG_CHANGED, NULL, 0, 0, 0,
                    "%s now, not a regular file (not opened)",
                    gguf__catalog_file_kind(st->st_mode));
        return 1;
    }
    return 0;
}

/* Opens a local file after its stat: changed says whether its stat differs from the row, how
 * says how. Returns 1 when there is nothing to open (a finding was added). */
static int open_local(gguf_file **f, int *changed, char *how, size_t how_size, verifier *v,
                      const vfile *vf, gguf_error *fe) {
    struct stat st;
    if (not_there(v, vf, &st))
        return 1;
    int64_t mtime = gguf__catalog_mtime_ns(&st);
    int same_inode =
        vf->other_host || (vf->dev == (int64_t)st.st_dev && vf->ino == (int64_t)st.st_ino);
    *changed = !(same_inode && vf->size == (int64_t)st.st_size && vf->mtime_ns == mtime);
    if (vf->size != (int64_t)st.st_size)
        snprintf(how, how_size, "size %" PRId64 " -> %lld bytes", vf->size,
                 (long long)st.st_size);
    else if (vf->mtime_ns != mtime)
        snprintf(how, how_size, "modified since it was indexed");
    else
        snprintf(how, how_size, "replaced (another inode) since it was indexed");
    if (gguf_file_open(f, vf->path, vf->open_flags, fe) != 0)
        *f = NULL;
    return 0;
}

static int differs(const char *stored, const char *now) {
    return stored != NULL && now != NULL && strcmp(stored, now) != 0;
}

/* Fetches a URL's header: changed when the server's size, ETag (else Last-Modified) differ
 * from the row's. Returns 1 when there is nothing to open (a finding was added). */
static int open_url(gguf_file **f, int *changed, char *how, size_t how_size, verifier *v,
                    const vfile *vf, gguf_error *fe) {
    gguf_open_options o = GGUF_OPEN_OPTIONS_INIT;
    if (v->cat->url != NULL)
        o = *v->cat->url;
    o.flags = vf->open_flags;
    o.progress = NULL;
    if (gguf_file_open_ex(f, vf->path, &o, fe) != 0) {
        *f = NULL;
        if (fe->code != GGUF_ENOTFOUND)
            return 0;
        v->stats.missing++;
        add_finding(v, GGUF_CATALOG_MISSING, NULL, 0, 0, 0, "no longer on the server: %s",
                    fe->message);
        return 1;
    }
    const gguf__source *src = (*f)->src;
    *changed = 1;
    if ((int64_t)gguf_file_size(*f) != vf->size)
        snprintf(how, how_size, "size %" PRId64 " -> %" PRIu64 " bytes", vf->size,
                 gguf_file_size(*f));
    else if (differs(vf->etag, src->etag))
        snprintf(how, how_size, "ETag %s -> %s", vf->etag, src->etag);
    else if (vf->etag == NULL && differs(vf->last_modified, src->last_modified))
        snprintf(how, how_size, "Last-Modified %s -> %s", vf->last_modified,
                 src->last_modified);
    else
        *changed = 0;
    return 0;
}

static int verify_file(verifier *v, const vfile *vf, gguf_error *err) {
    int remote = gguf_path_is_url(vf->path);
    if (remote && v->cat->url != NULL && v->cat->url->offline)
        return 0; /* offline: not checked */
    v->stats.files++;
    char how[600];
    int changed = 0;
    gguf_file *f = NULL;
    gguf_error fe;
    gguf_error_clear(&fe);
    if ((remote ? open_url : open_local)(&f, &changed, how, sizeof how, v, vf, &fe))
        return 0;
    int problem = changed ? GGUF_CATALOG_CHANGED : GGUF_CATALOG_CORRUPT;
    if (f == NULL) {
        if (fe.code == GGUF_EIO || fe.code == GGUF_ENOMEM) {
            v->stats.unreadable++;
            add_finding(v, GGUF_CATALOG_UNREADABLE, NULL, 0, 0, 0, "%s", fe.message);
        } else {
            if (changed)
                v->stats.changed++;
            else
                v->stats.corrupt++;
            add_finding(v, problem, NULL, 0, 0, 0, "%s%sno longer reads as GGUF: %s",
                        changed ? how : "", changed ? "; " : "", fe.message);
        }
        return 0;
    }
    size_t first = v->n_found;
    uint32_t crc = 0;
    int bad = 0, unreadable = 0, rc = 0;
    if (gguf_crc_header(&crc, f, &fe) != 0) {
        unreadable = 1;
        add_finding(v, GGUF_CATALOG_UNREADABLE, NULL, 0, 0, 0, "%s", fe.message);
    } else if (vf->has_header_crc && crc != (uint32_t)vf->header_crc) {
        bad = 1;
        add_finding(v, problem, NULL, 1, (uint32_t)vf->header_crc, crc,
                    "header crc32 is 0x%08" PRIx32 ", the catalog has 0x%08" PRIx32, crc,
                    (uint32_t)vf->header_crc);
    }
    if (vf->has_crc && !unreadable) {
        v->stats.files_with_crc++;
        rc = check_tensors(v, vf, f, problem, &bad, &unreadable, err);
    }
    gguf_file_free(f);
    if (rc != 0)
        return rc;
    /* a changed file whose bytes we could not compare, or that differ: say how it changed,
     * before the details */
    if (changed && !unreadable && (bad || !vf->has_crc)) {
        add_finding(v, GGUF_CATALOG_CHANGED, NULL, 0, 0, 0, "%s%s", how,
                    vf->has_crc ? "" : " (no tensor crc32s to compare: index with --crc)");
        if (!v->nomem && v->n_found - 1 > first) {
            vfinding last = v->found[v->n_found - 1];
            memmove(&v->found[first + 1], &v->found[first],
                    (v->n_found - 1 - first) * sizeof last);
            v->found[first] = last;
        }
    }
    if (unreadable)
        v->stats.unreadable++;
    else if (changed && (bad || !vf->has_crc))
        v->stats.changed++;
    else if (bad)
        v->stats.corrupt++;
    return 0;
}

static void free_vfiles(vfile *list, size_t n) {
    for (size_t i = 0; i < n; i++) {
        gguf__free(list[i].path);
        gguf__free(list[i].model);
        gguf__free(list[i].etag);
        gguf__free(list[i].last_modified);
    }
    gguf__free(list);
}

static char *dup_column(gguf__stmt *st, int col, int *nomem) {
    const char *t = (const char *)gguf__col_text(st, col);
    char *copy = t != NULL ? gguf__strdup(t) : NULL;
    *nomem |= t != NULL && copy == NULL;
    return copy;
}

/* The catalogued files at or below the selected paths, in path order. */
static int list_files(vfile **out, size_t *n_out, verifier *v, char *const *sel, size_t n_sel,
                      gguf_error *err) {
    vfile *list = NULL;
    size_t n = 0, cap = 0;
    gguf__stmt *st;
    int rc = 0;
    int src = gguf__db_prepare(&st, v->db,
                               "SELECT f.id, f.path, f.dev, f.ino, f.size, f.mtime_ns, "
                               "f.header_crc32, f.open_flags, f.has_crc, f.model, f.etag, "
                               "f.last_modified, f.split_count, r.host FROM files f "
                               "LEFT JOIN runs r ON r.id = f.indexed_run ORDER BY f.path",
                               NULL, 0);
    if (src != SQLITE_OK)
        return gguf__catalog_db_fail(err, v->db, src, v->cat->path, "reading the catalog");
    char host[256];
    if (gguf__catalog_host(host, sizeof host) != 0)
        host[0] = '\0';
    while (rc == 0 && (src = gguf__step(st)) == SQLITE_ROW) {
        const char *path = (const char *)gguf__col_text(st, 1);
        const char *model = (const char *)gguf__col_text(st, 9);
        /* a model selected is selected with all its shards */
        if (path == NULL || (!gguf__catalog_path_selected(path, sel, n_sel) &&
                             (model == NULL || !gguf__catalog_path_selected(model, sel, n_sel))))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            vfile *p = gguf__realloc(list, cap * sizeof *p);
            if (p == NULL) {
                rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
                break;
            }
            list = p;
        }
        vfile *vf = &list[n];
        vf->id = gguf__col_int64(st, 0);
        vf->dev = gguf__col_type(st, 2) == SQLITE_NULL ? -1 : gguf__col_int64(st, 2);
        vf->ino = gguf__col_type(st, 3) == SQLITE_NULL ? -1 : gguf__col_int64(st, 3);
        vf->size = gguf__col_int64(st, 4);
        vf->mtime_ns = gguf__col_int64(st, 5);
        vf->has_header_crc = gguf__col_type(st, 6) != SQLITE_NULL;
        vf->header_crc = gguf__col_int64(st, 6);
        vf->open_flags = (unsigned)gguf__col_int64(st, 7);
        vf->has_crc = gguf__col_int64(st, 8) != 0;
        vf->split_count = gguf__col_type(st, 12) == SQLITE_NULL ? -1
                                                                     : gguf__col_int64(st, 12);
        vf->other_host = gguf__catalog_other_host(gguf__col_text(st, 13), host);
        int nomem = 0;
        vf->path = dup_column(st, 1, &nomem);
        vf->model = dup_column(st, 9, &nomem);
        vf->etag = dup_column(st, 10, &nomem);
        vf->last_modified = dup_column(st, 11, &nomem);
        if (nomem) {
            n++;
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        n++;
    }
    if (rc == 0 && src != SQLITE_DONE)
        rc = gguf__catalog_db_fail(err, v->db, src, v->cat->path, "reading the catalog");
    gguf__finalize(st);
    if (rc != 0) {
        free_vfiles(list, n);
        return rc;
    }
    *out = list;
    *n_out = n;
    return 0;
}

/* 1 when the catalog has a files row for path. */
static int has_row(int *out, verifier *v, const char *path, gguf_error *err) {
    gguf__stmt *st;
    int rc = gguf__db_prepare(&st, v->db, "SELECT count(*) FROM files WHERE path = ?1", NULL, 0);
    if (rc == SQLITE_OK) {
        gguf__bind_text(st, 1, path, -1);
        rc = gguf__step(st);
        *out = rc == SQLITE_ROW && gguf__col_int64(st, 0) > 0;
        rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
    }
    gguf__finalize(st);
    return rc == SQLITE_OK ? 0 : gguf__catalog_db_fail(err, v->db, rc, v->cat->path,
                                                        "reading the catalog");
}

/* The shards of vf's split set that have no files row (once per set; local sets only: a URL's
 * missing shard would take a request to tell). */
static int check_set_shards(verifier *v, const vfile *vf, gguf__known_set *done,
                            gguf_error *err) {
    uint32_t count;
    if (vf->split_count <= 1 || vf->model == NULL || gguf_path_is_url(vf->model) ||
        !gguf_split_parse_name(NULL, NULL, &count, vf->model) ||
        gguf__known_find(done, vf->model) != NULL)
        return 0;
    gguf__known k = {0};
    int rc = gguf__known_put(done, vf->model, &k) != 0
                 ? gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory")
                 : 0;
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        int there = 0;
        char *name = gguf__catalog_shard_path(vf->model, i);
        if (name == NULL) {
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
            break;
        }
        rc = has_row(&there, v, name, err);
        if (rc != 0 || there) {
            gguf__free(name);
            continue;
        }
        struct stat st;
        if (stat(name, &st) == 0) {
            v->stats.changed++;
            add_finding(v, GGUF_CATALOG_CHANGED, NULL, 0, 0, 0,
                        "shard %u of %u of its split set is not in the catalog, but is here now "
                        "(it was missing or refused when indexed): index it again",
                        i + 1, count);
        } else {
            v->stats.missing++;
            add_finding(v, GGUF_CATALOG_MISSING, NULL, 0, 0, 0,
                        "shard %u of %u of its split set is missing", i + 1, count);
        }
        flush_findings(v, name);
        gguf__free(name);
    }
    return rc;
}

int gguf_catalog_verify(gguf_catalog_verify_stats *stats, gguf_catalog *cat,
                        const char *const *paths, size_t n_paths, gguf_catalog_finding_fn fn,
                        void *user, gguf_error *err) {
    if (cat == NULL || (paths == NULL && n_paths > 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no catalog or no paths");
    verifier v;
    memset(&v, 0, sizeof v);
    v.cat = cat;
    v.db = cat->db != NULL ? cat->db : cat->ro;
    v.fn = fn;
    v.user = user;
    char **sel = gguf__calloc(n_paths ? n_paths : 1, sizeof *sel);
    if (sel == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n_paths && rc == 0; i++) {
        /* a URL selects as given */
        sel[i] = gguf_path_is_url(paths[i]) ? gguf__strdup(paths[i])
                                            : gguf__catalog_absolute_path(paths[i]);
        if (sel[i] == NULL)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    vfile *list = NULL;
    size_t n = 0;
    if (rc == 0)
        rc = list_files(&list, &n, &v, sel, n_paths, err);
    gguf__known_set sets_done = {0};
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = verify_file(&v, &list[i], err);
        if (rc == 0 && v.nomem)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        flush_findings(&v, list[i].path);
        if (rc == 0)
            rc = check_set_shards(&v, &list[i], &sets_done, err);
        if (rc == 0 && v.nomem)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    gguf__known_free(&sets_done);
    gguf__free(v.found);
    free_vfiles(list, n);
    for (size_t i = 0; i < n_paths; i++)
        gguf__free(sel[i]);
    gguf__free(sel);
    if (rc == 0 && stats != NULL)
        *stats = v.stats;
    return rc;
}

#endif /* GGUF_HAVE_CATALOG */
