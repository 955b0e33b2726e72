/* PostgreSQL underneath the catalog, through libpq: connections (the owner's, or the reader
 * role's for user SQL), statements run with text parameters, those whose rows are not wanted
 * sent in a pipeline and their results read at the next statement with rows or at the commit
 * (so a file's hundreds of rows cost one round trip), cells rendered as SQLite renders them,
 * and user SQL run as the reader role, read-only by the database's own rules: the role may
 * only SELECT the catalog's tables, its transactions are read-only, and statement_timeout and
 * work_mem carry --timeout and --max-memory. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#if defined(GGUF_HAVE_CATALOG) && defined(GGUF_HAVE_PG)

#include "catalog/pq_load.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PostgreSQL's type oids (pg_type.dat) the cells care about. */
enum { OID_BOOL = 16, OID_BYTEA = 17, OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_OID = 26,
       OID_FLOAT4 = 700, OID_FLOAT8 = 701, OID_NUMERIC = 1700 };

static void set_error(gguf__db *db, const char *msg) {
    gguf__free(db->pg_error);
    db->pg_error = gguf__strdup(msg != NULL ? msg : "PostgreSQL failed");
    if (db->pg_error != NULL) {
        size_t n = strlen(db->pg_error);
        while (n > 0 && (db->pg_error[n - 1] == '\n' || db->pg_error[n - 1] == ' '))
            db->pg_error[--n] = '\0';
    }
}

static void result_error(gguf__db *db, const PGresult *r) {
    const char *m = r != NULL ? gguf__pq->resultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    set_error(db, m != NULL ? m : gguf__pq->errorMessage(db->pg));
}

static void quiet(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

/* Connects with conninfo, as as_user (NULL: the URL's user); url is conninfo as messages show
 * it. */
static int pg_connect(gguf__db **out, const char *conninfo, const char *url,
                      const char *as_user, gguf_error *err) {
    int loaded = gguf__pq_load(err);
    if (loaded != 0)
        return loaded;
    char *perr = NULL;
    PQconninfoOption *opts = gguf__pq->conninfoParse(conninfo, &perr);
    if (opts == NULL) {
        int rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "catalog %s: %s", url,
                            perr != NULL ? perr : "not a PostgreSQL URL");
        gguf__pq->freemem(perr);
        return rc;
    }
    const char *keys[64], *vals[64];
    int n = 0;
    for (PQconninfoOption *o = opts; o->keyword != NULL && n < 60; o++) {
        if (o->val == NULL || o->val[0] == '\0')
            continue;
        /* the reader logs in as itself: its password (if any) comes from ~/.pgpass */
        if (as_user != NULL && (strcmp(o->keyword, "user") == 0 ||
                                strcmp(o->keyword, "password") == 0))
            continue;
        if (strcmp(o->keyword, "client_encoding") == 0)
            continue;
        keys[n] = o->keyword;
        vals[n++] = o->val;
    }
    if (as_user != NULL) {
        keys[n] = "user";
        vals[n++] = as_user;
    }
    keys[n] = "client_encoding";
    vals[n++] = "UTF8";
    keys[n] = "application_name";
    vals[n++] = "gguf-catalog";
    keys[n] = NULL;
    vals[n] = NULL;
    PGconn *conn = gguf__pq->connectdbParams(keys, vals, 0);
    gguf__pq->conninfoFree(opts);
    if (conn == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    if (gguf__pq->status(conn) != CONNECTION_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", gguf__pq->errorMessage(conn));
        size_t m = strlen(msg);
        while (m > 0 && msg[m - 1] == '\n')
            msg[--m] = '\0';
        gguf__pq->finish(conn);
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "catalog %s: cannot connect%s%s: %s",
                          url, as_user ? " as " : "", as_user ? as_user : "", msg);
    }
    gguf__pq->setNoticeProcessor(conn, quiet, NULL);
    gguf__db *db = gguf__calloc(1, sizeof *db);
    if (db == NULL) {
        gguf__pq->finish(conn);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    db->kind = GGUF__DB_PG;
    db->pg = conn;
    /* a crash may lose the last commits, never make them half: what an index run writes can
     * be read again */
    if (as_user == NULL && gguf__pg_exec(db, "SET synchronous_commit = off") != SQLITE_OK) {
        int rc = gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "catalog %s: %s", url,
                            db->pg_error != NULL ? db->pg_error : "PostgreSQL failed");
        gguf__pg_close(db);
        gguf__free(db->pg_error);
        gguf__free(db);
        return rc;
    }
    *out = db;
    return 0;
}

int gguf__pg_connect(gguf__db **out, const char *conninfo, const char *as_user,
                     gguf_error *err) {
    char *url = gguf__db_redact(conninfo); /* for messages */
    if (url == NULL)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    int rc = pg_connect(out, conninfo, url, as_user, err);
    gguf__free(url);
    return rc;
}

void gguf__pg_close(gguf__db *db) {
    if (db->pg != NULL)
        gguf__pq->finish(db->pg);
    db->pg = NULL;
}

static int flush_pipeline(gguf__db *db);

/* Sends one statement's waiting rows by COPY. */
static int flush_copy(gguf__db *db, gguf__stmt *st) {
    PGconn *conn = db->pg;
    int rc = SQLITE_OK;
    PGresult *r = gguf__pq->exec(conn, st->copy_cmd);
    if (gguf__pq->resultStatus(r) != PGRES_COPY_IN) {
        result_error(db, r);
        rc = SQLITE_ERROR;
    }
    gguf__pq->clear(r);
    if (rc == SQLITE_OK) {
        size_t at = 0;
        while (rc == SQLITE_OK && at < st->copy.len) {
            size_t n = st->copy.len - at < (1u << 20) ? st->copy.len - at : (1u << 20);
            if (gguf__pq->putCopyData(conn, (const char *)st->copy.data + at, (int)n) != 1) {
                set_error(db, gguf__pq->errorMessage(conn));
                rc = SQLITE_ERROR;
            }
            at += n;
        }
        if (gguf__pq->putCopyEnd(conn, rc == SQLITE_OK ? NULL : "gguf-catalog stopped") != 1 &&
            rc == SQLITE_OK) {
            set_error(db, gguf__pq->errorMessage(conn));
            rc = SQLITE_ERROR;
        }
        while ((r = gguf__pq->getResult(conn)) != NULL) {
            if (gguf__pq->resultStatus(r) != PGRES_COMMAND_OK && rc == SQLITE_OK) {
                result_error(db, r);
                rc = SQLITE_ERROR;
            }
            gguf__pq->clear(r);
        }
    }
    st->copy.len = 0;
    return rc;
}

/* The statements sent in the pipeline, then the rows waiting for COPY (always sent after
 * them: a statement deferred while rows wait sends them first); the first failure is the
 * answer. */
int gguf__pg_flush(gguf__db *db) {
    int rc = flush_pipeline(db);
    for (int i = 0; i < db->n_copying; i++) {
        int crc = flush_copy(db, db->copying[i]);
        if (rc == SQLITE_OK)
            rc = crc;
    }
    db->n_copying = 0;
    return rc;
}

/* Reads the results of the statements sent in the pipeline. */
static int flush_pipeline(gguf__db *db) {
    if (db->pipelined == 0)
        return SQLITE_OK;
    PGconn *conn = db->pg;
    int rc = SQLITE_OK;
    if (gguf__pq->pipelineSync(conn) != 1) {
        set_error(db, gguf__pq->errorMessage(conn));
        rc = SQLITE_ERROR;
    }
    int nulls = 0;
    while (rc == SQLITE_OK || nulls <= db->pipelined + 1) {
        PGresult *r = gguf__pq->getResult(conn);
        if (r == NULL) {
            if (++nulls > db->pipelined + 1)
                break;
            continue;
        }
        ExecStatusType s = gguf__pq->resultStatus(r);
        if (s == PGRES_PIPELINE_SYNC) {
            gguf__pq->clear(r);
            break;
        }
        if (s == PGRES_FATAL_ERROR && rc == SQLITE_OK) {
            result_error(db, r);
            rc = SQLITE_ERROR;
        }
        gguf__pq->clear(r);
        if (gguf__pq->status(conn) != CONNECTION_OK)
            break;
    }
    db->pipelined = 0;
    if (gguf__pq->exitPipelineMode(conn) != 1 && rc == SQLITE_OK) {
        set_error(db, gguf__pq->errorMessage(conn));
        rc = SQLITE_ERROR;
    }
    return rc;
}

int gguf__pg_exec(gguf__db *db, const char *sql) {
    int rc = gguf__pg_flush(db);
    PGresult *r = gguf__pq->exec(db->pg, sql);
    ExecStatusType s = gguf__pq->resultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
        if (rc == SQLITE_OK)
            result_error(db, r);
        rc = SQLITE_ERROR;
    }
    gguf__pq->clear(r);
    return rc;
}

static void clear_scratch(gguf__stmt *st) {
    for (int i = 0; i < st->n_scratch; i++) {
        gguf__free(st->scratch[i]);
        st->scratch[i] = NULL;
    }
}

void gguf__pg_reset(gguf__stmt *st) {
    clear_scratch(st);
    gguf__pq->clear(st->res);
    st->res = NULL;
    st->row = st->n_rows = st->ran = 0;
}

void gguf__pg_finalize(gguf__stmt *st) {
    gguf__pg_reset(st);
    for (int i = 0; i < st->db->n_copying; i++) {
        if (st->db->copying[i] == st) {
            st->db->copying[i] = st->db->copying[--st->db->n_copying];
            break;
        }
    }
    gguf__buf_free(&st->copy);
    gguf__free(st->copy_cmd);
    if (st->name[0] != '\0' && st->db->pg != NULL) {
        char sql[40];
        snprintf(sql, sizeof sql, "DEALLOCATE %s", st->name);
        gguf__pg_exec(st->db, sql);
    }
    gguf__free(st->scratch);
}

/* The highest $N of the statement's text; types[N - 1]: 0 (PostgreSQL infers it) for those
 * the text uses, text for those it skips (which PostgreSQL could not type). */
static int count_params(const char *sql, Oid *types) {
    int max = 0;
    for (int i = 0; i < GGUF__DB_MAX_PARAMS; i++)
        types[i] = 25; /* text */
    for (const char *p = sql; *p; p++) {
        if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
            int v = (int)strtol(p + 1, NULL, 10);
            if (v > max)
                max = v;
            if (v >= 1 && v <= GGUF__DB_MAX_PARAMS)
                types[v - 1] = 0;
        }
    }
    return max;
}

/* A plain "INSERT INTO t (cols) VALUES ($i, ...)": its COPY command, and which parameter
 * feeds each column. */
static void check_copy(gguf__stmt *st) {
    st->copy_checked = 1;
    const char *s = st->sql;
    if (strncmp(s, "INSERT INTO ", 12) != 0 || strstr(s, "ON CONFLICT") != NULL ||
        strstr(s, "RETURNING") != NULL)
        return;
    const char *open = strchr(s, '('), *close = open ? strchr(open, ')') : NULL;
    const char *values = close ? strstr(close, " VALUES (") : NULL;
    if (values == NULL)
        return;
    int n = 0;
    const char *p = values + 9;
    while (n < GGUF__DB_MAX_PARAMS && *p == '$') {
        st->copy_param[n++] = (int)strtol(p + 1, (char **)&p, 10) - 1;
        if (*p == ',' && p[1] == ' ')
            p += 2;
        else if (*p == ')' && p[1] == '\0')
            break;
        else
            return;
    }
    if (*p != ')' || p[1] != '\0')
        return;
    int len = (int)(close - (s + 12)) + 1; /* "t (cols)" */
    size_t size = (size_t)len + 32;
    st->copy_cmd = gguf__malloc(size);
    if (st->copy_cmd == NULL)
        return;
    snprintf(st->copy_cmd, size, "COPY %.*s FROM STDIN", len, s + 12);
    st->copy_n = n;
}

/* The current parameters as a row of COPY's text format. */
static void copy_row(gguf__stmt *st) {
    gguf__buf *b = &st->copy;
    for (int c = 0; c < st->copy_n; c++) {
        int k = st->copy_param[c];
        if (c > 0)
            gguf__buf_add(b, "\t", 1);
        if (k < 0 || k >= GGUF__DB_MAX_PARAMS || !st->is_set[k]) {
            gguf__buf_add(b, "\\N", 2);
            continue;
        }
        const char *v = (const char *)st->param[k].data;
        size_t n = st->param[k].len - 1, from = 0;
        for (size_t i = 0; i < n; i++) {
            const char *esc = v[i] == '\\' ? "\\\\" : v[i] == '\t' ? "\\t" : v[i] == '\n' ? "\\n"
                              : v[i] == '\r' ? "\\r" : NULL;
            if (esc == NULL)
                continue;
            gguf__buf_add(b, v + from, i - from);
            gguf__buf_add(b, esc, 2);
            from = i + 1;
        }
        gguf__buf_add(b, v + from, n - from);
    }
    gguf__buf_add(b, "\n", 1);
}

int gguf__pg_step(gguf__stmt *st, int defer) {
    gguf__db *db = st->db;
    PGconn *conn = db->pg;
    if (st->ran) {
        clear_scratch(st);
        return ++st->row < st->n_rows ? SQLITE_ROW : SQLITE_DONE;
    }
    Oid types[GGUF__DB_MAX_PARAMS];
    int n = count_params(st->sql, types);
    if (n > GGUF__DB_MAX_PARAMS)
        return SQLITE_RANGE;
    const char *vals[GGUF__DB_MAX_PARAMS];
    for (int i = 0; i < n; i++)
        vals[i] = st->is_set[i] && !st->param[i].failed ? (const char *)st->param[i].data : NULL;
    for (int i = 0; i < n; i++) {
        if (st->param[i].failed)
            return SQLITE_NOMEM;
    }
    if (st->persistent && st->name[0] == '\0') {
        int rc = gguf__pg_flush(db);
        if (rc != SQLITE_OK)
            return rc;
        snprintf(st->name, sizeof st->name, "g%u", db->n_prepared++);
        PGresult *r = gguf__pq->prepare(conn, st->name, st->sql, n, types);
        if (gguf__pq->resultStatus(r) != PGRES_COMMAND_OK) {
            result_error(db, r);
            gguf__pq->clear(r);
            st->name[0] = '\0';
            return SQLITE_ERROR;
        }
        gguf__pq->clear(r);
    }
    if (!st->copy_checked)
        check_copy(st);
    if (defer && st->copy_cmd != NULL) {
        int i = 0;
        while (i < db->n_copying && db->copying[i] != st)
            i++;
        if (i == db->n_copying) {
            if (db->n_copying == (int)(sizeof db->copying / sizeof db->copying[0])) {
                int rc = gguf__pg_flush(db);
                if (rc != SQLITE_OK)
                    return rc;
            }
            db->copying[db->n_copying++] = st;
        }
        for (int k = 0; k < n; k++) {
            if (st->param[k].failed)
                return SQLITE_NOMEM;
        }
        copy_row(st);
        if (st->copy.failed)
            return SQLITE_NOMEM;
        return st->copy.len >= ((size_t)32 << 20) ? gguf__pg_flush(db) == SQLITE_OK ? SQLITE_DONE
                                                                                  : SQLITE_ERROR
                                                  : SQLITE_DONE;
    }
    /* rows waiting for COPY go before anything that follows them */
    if (db->n_copying > 0) {
        int rc = gguf__pg_flush(db);
        if (rc != SQLITE_OK)
            return rc;
    }
    int returns = strstr(st->sql, "RETURNING") != NULL;
    if (defer && !returns) {
        if (db->pipelined == 0 && gguf__pq->enterPipelineMode(conn) != 1) {
            set_error(db, gguf__pq->errorMessage(conn));
            return SQLITE_ERROR;
        }
        int ok = st->name[0] != '\0'
                     ? gguf__pq->sendQueryPrepared(conn, st->name, n, vals, NULL, NULL, 0)
                     : gguf__pq->sendQueryParams(conn, st->sql, n, types, vals, NULL, NULL, 0);
        if (ok != 1) {
            set_error(db, gguf__pq->errorMessage(conn));
            return SQLITE_ERROR;
        }
        db->pipelined++;
        return SQLITE_DONE;
    }
    int rc = gguf__pg_flush(db);
    if (rc != SQLITE_OK)
        return rc;
    PGresult *r = st->name[0] != '\0' ? gguf__pq->execPrepared(conn, st->name, n, vals, NULL, NULL, 0)
                                      : gguf__pq->execParams(conn, st->sql, n, types, vals, NULL, NULL, 0);
    ExecStatusType s = gguf__pq->resultStatus(r);
    if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
        result_error(db, r);
        gguf__pq->clear(r);
        return SQLITE_ERROR;
    }
    st->res = r;
    st->ran = 1;
    st->row = 0;
    st->n_rows = s == PGRES_TUPLES_OK ? gguf__pq->ntuples(r) : 0;
    int ncols = gguf__pq->nfields(r);
    if (ncols > st->n_scratch) {
        char **p = gguf__realloc(st->scratch, (size_t)ncols * sizeof *p);
        if (p == NULL)
            return SQLITE_NOMEM;
        for (int i = st->n_scratch; i < ncols; i++)
            p[i] = NULL;
        st->scratch = p;
        st->n_scratch = ncols;
    }
    if (returns && st->n_rows > 0)
        db->last_id = strtoll(gguf__pq->getvalue(r, 0, 0), NULL, 10);
    return st->n_rows > 0 ? SQLITE_ROW : SQLITE_DONE;
}

/* ---- cells: a PostgreSQL value as SQLite would give it ---- */

/* A numeric that is a whole number within 64 bits. */
static int whole_number(const char *t) {
    const char *p = t + (*t == '-');
    size_t n = strspn(p, "0123456789");
    const char *max = *t == '-' ? "9223372036854775808" : "9223372036854775807";
    return n > 0 && p[n] == '\0' && (n < 19 || (n == 19 && strcmp(p, max) <= 0));
}

static int cell_type(const PGresult *r, int row, int col) {
    if (gguf__pq->getisnull(r, row, col))
        return SQLITE_NULL;
    switch (gguf__pq->ftype(r, col)) {
    case OID_BOOL:
    case OID_INT2:
    case OID_INT4:
    case OID_INT8:
    case OID_OID: return SQLITE_INTEGER;
    case OID_FLOAT4:
    case OID_FLOAT8: {
        const char *t = gguf__pq->getvalue(r, row, col);
        return strcmp(t, "NaN") == 0 ? SQLITE_NULL : SQLITE_FLOAT; /* SQLite keeps no NaN */
    }
    case OID_NUMERIC:
        return whole_number(gguf__pq->getvalue(r, row, col)) ? SQLITE_INTEGER
               : strcmp(gguf__pq->getvalue(r, row, col), "NaN") == 0 ? SQLITE_NULL
                                                            : SQLITE_FLOAT;
    case OID_BYTEA: return SQLITE_BLOB;
    default: return SQLITE_TEXT;
    }
}

/* A REAL's text as SQLite writes it ("%!.15g": 15 digits, always a decimal point). */
static void real_text(char *buf, size_t size, double d) {
    if (isinf(d)) {
        snprintf(buf, size, "%sInf", d < 0 ? "-" : "");
        return;
    }
    if (d == 0) { /* SQLite keeps no negative zero */
        snprintf(buf, size, "0.0");
        return;
    }
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%.15g", d);
    char *e = strchr(tmp, 'e');
    if (strchr(tmp, '.') != NULL)
        snprintf(buf, size, "%s", tmp);
    else if (e != NULL)
        snprintf(buf, size, "%.*s.0%s", (int)(e - tmp), tmp, e);
    else
        snprintf(buf, size, "%s.0", tmp);
}

/* The cell's bytes: PostgreSQL's text, or for booleans, reals and bytea what SQLite gives;
 * *scratch holds what was made (gguf__malloc'd). NULL for NULL, or when memory ran out. */
static const char *cell_text(const PGresult *r, int row, int col, char **scratch, int *len) {
    int t = cell_type(r, row, col);
    const char *v = gguf__pq->getvalue(r, row, col);
    int l = gguf__pq->getlength(r, row, col);
    if (t == SQLITE_NULL) {
        v = NULL;
        l = 0;
    } else if (gguf__pq->ftype(r, col) == OID_BOOL) {
        v = v[0] == 't' ? "1" : "0";
        l = 1;
    } else if (t == SQLITE_FLOAT || t == SQLITE_BLOB) {
        if (*scratch == NULL) {
            if (t == SQLITE_FLOAT) {
                *scratch = gguf__malloc(48);
                if (*scratch != NULL)
                    real_text(*scratch, 48, strtod(v, NULL));
                l = *scratch != NULL ? (int)strlen(*scratch) : 0;
            } else {
                size_t n = 0;
                unsigned char *b = gguf__pq->unescapeBytea((const unsigned char *)v, &n);
                *scratch = b != NULL ? gguf__malloc(n + 1) : NULL;
                if (*scratch != NULL) {
                    memcpy(*scratch, b, n);
                    (*scratch)[n] = '\0';
                }
                gguf__pq->freemem(b);
                l = (int)n;
            }
        } else if (t == SQLITE_FLOAT) {
            l = (int)strlen(*scratch);
        } else {
            size_t n = 0;
            gguf__pq->freemem(gguf__pq->unescapeBytea((const unsigned char *)v, &n));
            l = (int)n;
        }
        v = *scratch;
    }
    if (len != NULL)
        *len = l;
    return v;
}

int gguf__pg_col_type(gguf__stmt *st, int col) {
    if (st->res == NULL || st->row >= st->n_rows || col < 0 || col >= gguf__pq->nfields(st->res))
        return SQLITE_NULL;
    return cell_type(st->res, st->row, col);
}

double gguf__pg_col_double(gguf__stmt *st, int col) {
    if (gguf__pg_col_type(st, col) == SQLITE_NULL)
        return 0;
    if (gguf__pq->ftype(st->res, col) == OID_BOOL)
        return gguf__pq->getvalue(st->res, st->row, col)[0] == 't';
    return strtod(gguf__pq->getvalue(st->res, st->row, col), NULL); /* the exact digits */
}

const char *gguf__pg_col_text(gguf__stmt *st, int col, int *len) {
    if (len != NULL)
        *len = 0;
    if (st->res == NULL || st->row >= st->n_rows || col < 0 || col >= gguf__pq->nfields(st->res))
        return NULL;
    return cell_text(st->res, st->row, col, &st->scratch[col], len);
}

/* ---- user SQL ---- */

static int limits(gguf_catalog *cat, gguf_error *err) {
    char sql[160];
    uint64_t kb = cat->max_memory / 1024;
    if (cat->max_memory != 0 && kb < 64)
        kb = 64; /* PostgreSQL's least work_mem */
    if (cat->max_memory != 0 && kb > INT32_MAX)
        kb = INT32_MAX;
    if (cat->max_memory == 0)
        snprintf(sql, sizeof sql, "SET statement_timeout = %llu; RESET work_mem",
                 (unsigned long long)cat->timeout_ms);
    else
        snprintf(sql, sizeof sql, "SET statement_timeout = %llu; SET work_mem = %llu",
                 (unsigned long long)cat->timeout_ms, (unsigned long long)kb);
    if (gguf__pg_exec(cat->ro, sql) != SQLITE_OK)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "query: %s",
                          cat->ro->pg_error != NULL ? cat->ro->pg_error : "PostgreSQL failed");
    return 0;
}

static int query_error(gguf_catalog *cat, const PGresult *r, gguf_error *err) {
    const char *state = gguf__pq->resultErrorField(r, PG_DIAG_SQLSTATE);
    const char *msg = gguf__pq->resultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
    if (msg == NULL)
        msg = gguf__pq->errorMessage(cat->ro->pg);
    if (state != NULL && strcmp(state, "57014") == 0) /* query_canceled: statement_timeout */
        return GGUF__PG_TIMED_OUT;
    /* 42501 insufficient_privilege, 25006 read_only_sql_transaction */
    if (state != NULL && (strcmp(state, "42501") == 0 || strcmp(state, "25006") == 0))
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "query: refused by PostgreSQL: %s (queries run as the role "
                          GGUF__PG_READER ", which may only read the catalog)", msg);
    return gguf__fail(err, state != NULL && state[0] == '4' && state[1] == '2' ? GGUF_EINVAL
                                                                              : GGUF_EIO,
                      GGUF_ERROR_NO_OFFSET, "query: %s", msg);
}

int gguf__pg_query(gguf_catalog *cat, const char *sql, gguf_catalog_row_fn fn, void *user,
                   gguf_error *err) {
    int rc = limits(cat, err);
    if (rc != 0)
        return rc;
    PGconn *conn = cat->ro->pg;
    if (gguf__pq->sendQuery(conn, sql) != 1)
        return gguf__fail(err, GGUF_EIO, GGUF_ERROR_NO_OFFSET, "query: %s", gguf__pq->errorMessage(conn));
    gguf__pq->setSingleRowMode(conn);
    int stop = 0, named = 0;
    size_t ncols = 0;
    const char **names = NULL;
    gguf_catalog_cell *cells = NULL;
    char **scratch = NULL;
    PGresult *r, *named_by = NULL; /* the result whose column names names points into */
    while ((r = gguf__pq->getResult(conn)) != NULL) {
        ExecStatusType s = gguf__pq->resultStatus(r);
        if (rc == 0 && !stop && (s == PGRES_SINGLE_TUPLE || s == PGRES_TUPLES_OK)) {
            if (!named) {
                ncols = (size_t)gguf__pq->nfields(r);
                gguf__free(names);
                gguf__free(cells);
                gguf__free(scratch);
                names = gguf__malloc((ncols ? ncols : 1) * sizeof *names);
                cells = gguf__malloc((ncols ? ncols : 1) * sizeof *cells);
                scratch = gguf__calloc(ncols ? ncols : 1, sizeof *scratch);
                if (names == NULL || cells == NULL || scratch == NULL) {
                    rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
                } else {
                    for (size_t c = 0; c < ncols; c++)
                        names[c] = gguf__pq->fname(r, (int)c);
                    if (ncols > 0 && fn != NULL)
                        stop = fn(ncols, names, NULL, user);
                    named = 1;
                    named_by = r; /* kept for the statement's rows, each a result of its own */
                }
            }
            for (int row = 0; rc == 0 && !stop && row < gguf__pq->ntuples(r); row++) {
                for (size_t c = 0; c < ncols; c++) {
                    gguf_catalog_cell *cell = &cells[c];
                    int len = 0;
                    memset(cell, 0, sizeof *cell);
                    int t = cell_type(r, row, (int)c);
                    gguf__free(scratch[c]);
                    scratch[c] = NULL;
                    cell->text = cell_text(r, row, (int)c, &scratch[c], &len);
                    cell->len = (size_t)len;
                    if (t != SQLITE_NULL && cell->text == NULL)
                        rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
                    switch (t) {
                    case SQLITE_INTEGER:
                        cell->type = GGUF_CATALOG_INTEGER;
                        cell->i = cell->text != NULL ? strtoll(cell->text, NULL, 10) : 0;
                        cell->r = (double)cell->i;
                        break;
                    case SQLITE_FLOAT:
                        cell->type = GGUF_CATALOG_REAL;
                        cell->r = strtod(gguf__pq->getvalue(r, row, (int)c), NULL);
                        break;
                    case SQLITE_TEXT: cell->type = GGUF_CATALOG_TEXT; break;
                    case SQLITE_BLOB: cell->type = GGUF_CATALOG_BLOB; break;
                    default: cell->type = GGUF_CATALOG_NULL; break;
                    }
                }
                if (rc == 0 && fn != NULL)
                    stop = fn(ncols, names, cells, user);
            }
            if (s == PGRES_TUPLES_OK)
                named = 0; /* the statement's end: the next one names its columns */
        } else if (s == PGRES_FATAL_ERROR && rc == 0 && !stop) {
            rc = query_error(cat, r, err);
        }
        if (r != named_by)
            gguf__pq->clear(r);
        if (!named && named_by != NULL) {
            gguf__pq->clear(named_by);
            named_by = NULL;
        }
        if ((stop || rc != 0) && gguf__pq->isBusy(conn)) {
            PGcancel *c = gguf__pq->getCancel(conn);
            char buf[256];
            if (c != NULL) {
                gguf__pq->cancel(c, buf, sizeof buf);
                gguf__pq->freeCancel(c);
            }
        }
    }
    gguf__pq->clear(named_by);
    if (scratch != NULL) {
        for (size_t c = 0; c < ncols; c++)
            gguf__free(scratch[c]);
    }
    gguf__free(scratch);
    gguf__free(names);
    gguf__free(cells);
    /* a BEGIN without its COMMIT must not hold a snapshot until the next query */
    if (gguf__pq->transactionStatus(conn) != PQTRANS_IDLE)
        gguf__pg_exec(cat->ro, "ROLLBACK");
    return rc;
}

#endif
