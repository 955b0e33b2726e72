/* libpq, loaded when the first PostgreSQL catalog is opened rather than when the program
 * starts. Linked in, libpq and the 25 libraries it pulls in (TLS, Kerberos, LDAP, SASL, ...)
 * took 20 ms of every run of every tool, most of which never open a catalog, let alone one in
 * PostgreSQL. pg.c, the one file that speaks to libpq, calls it through this table. */
#ifndef LIBGGUF_CATALOG_PQ_LOAD_H
#define LIBGGUF_CATALOG_PQ_LOAD_H

#include "base/base.h"

#include <libpq-fe.h>

/* The libpq calls pg.c makes, named as libpq names them without "PQ". */
typedef struct gguf__libpq {
    PQconninfoOption *(*conninfoParse)(const char *conninfo, char **errmsg);
    void (*conninfoFree)(PQconninfoOption *options);
    PGconn *(*connectdbParams)(const char *const *keywords, const char *const *values,
                               int expand_dbname);
    ConnStatusType (*status)(const PGconn *conn);
    PGTransactionStatusType (*transactionStatus)(const PGconn *conn);
    char *(*errorMessage)(const PGconn *conn);
    PQnoticeProcessor (*setNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
    void (*finish)(PGconn *conn);
    PGcancel *(*getCancel)(PGconn *conn);
    int (*cancel)(PGcancel *cancel, char *errbuf, int errbufsize);
    void (*freeCancel)(PGcancel *cancel);
    PGresult *(*exec)(PGconn *conn, const char *query);
    PGresult *(*execParams)(PGconn *conn, const char *command, int nParams,
                            const Oid *paramTypes, const char *const *paramValues,
                            const int *paramLengths, const int *paramFormats, int resultFormat);
    PGresult *(*prepare)(PGconn *conn, const char *stmtName, const char *query, int nParams,
                         const Oid *paramTypes);
    PGresult *(*execPrepared)(PGconn *conn, const char *stmtName, int nParams,
                              const char *const *paramValues, const int *paramLengths,
                              const int *paramFormats, int resultFormat);
    int (*sendQuery)(PGconn *conn, const char *query);
    int (*sendQueryParams)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                           const char *const *paramValues, const int *paramLengths,
                           const int *paramFormats, int resultFormat);
    int (*sendQueryPrepared)(PGconn *conn, const char *stmtName, int nParams,
                             const char *const *paramValues, const int *paramLengths,
                             const int *paramFormats, int resultFormat);
    int (*setSingleRowMode)(PGconn *conn);
    int (*isBusy)(PGconn *conn);
    PGresult *(*getResult)(PGconn *conn);
    int (*enterPipelineMode)(PGconn *conn);
    int (*exitPipelineMode)(PGconn *conn);
    int (*pipelineSync)(PGconn *conn);
    int (*putCopyData)(PGconn *conn, const char *buffer, int nbytes);
    int (*putCopyEnd)(PGconn *conn, const char *errormsg);
    ExecStatusType (*resultStatus)(const PGresult *res);
    char *(*resultErrorField)(const PGresult *res, int fieldcode);
    int (*ntuples)(const PGresult *res);
    int (*nfields)(const PGresult *res);
    char *(*fname)(const PGresult *res, int field_num);
    Oid (*ftype)(const PGresult *res, int field_num);
    char *(*getvalue)(const PGresult *res, int tup_num, int field_num);
    int (*getlength)(const PGresult *res, int tup_num, int field_num);
    int (*getisnull)(const PGresult *res, int tup_num, int field_num);
    unsigned char *(*unescapeBytea)(const unsigned char *strtext, size_t *retbuflen);
    void (*clear)(PGresult *res);
    void (*freemem)(void *ptr);
} gguf__libpq;

/* Loads libpq, once per process, whichever thread asks first. Returns 0, or GGUF_EUNSUPPORTED
 * (no usable libpq on this machine), saying why. */
GGUF_HIDDEN int gguf__pq_load(gguf_error *err);
/* libpq's calls: filled by the first gguf__pq_load that returned 0, not to be used before. */
GGUF_HIDDEN extern const gguf__libpq *const gguf__pq;

#endif /* LIBGGUF_CATALOG_PQ_LOAD_H */
