/* Loading libpq on first use (see pq_load.h) with gguf__dl_table, once per process under
 * pthread_once. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#if defined(GGUF_HAVE_CATALOG) && defined(GGUF_HAVE_PG)
#include "catalog/pq_load.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* libpq's soname, then whatever the development link names */
static const char *const sonames[] = {"libpq.so.5", "libpq.so"};

#define CALL(member) {"PQ" #member, offsetof(gguf__libpq, member)}
static const gguf__dl_call calls[] = {
    CALL(conninfoParse),
    CALL(conninfoFree),
    CALL(connectdbParams),
    CALL(status),
    CALL(transactionStatus),
    CALL(errorMessage),
    CALL(setNoticeProcessor),
    CALL(finish),
    CALL(getCancel),
    CALL(cancel),
    CALL(freeCancel),
    CALL(exec),
    CALL(execParams),
    CALL(prepare),
    CALL(execPrepared),
    CALL(sendQuery),
    CALL(sendQueryParams),
    CALL(sendQueryPrepared),
    CALL(setSingleRowMode),
    CALL(isBusy),
    CALL(getResult),
    CALL(enterPipelineMode),
    CALL(exitPipelineMode),
    CALL(pipelineSync),
    CALL(putCopyData),
    CALL(putCopyEnd),
    CALL(resultStatus),
    CALL(resultErrorField),
    CALL(ntuples),
    CALL(nfields),
    CALL(fname),
    CALL(ftype),
    CALL(getvalue),
    CALL(getlength),
    CALL(getisnull),
    CALL(unescapeBytea),
    CALL(clear),
    CALL(freemem),
};
#undef CALL

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static gguf__libpq table;
static int load_code;      /* 0 once loaded */
static char load_why[256]; /* else why not */

static void load(void) {
    char what[160];
    int rc = gguf__dl_table(&table, sonames, sizeof sonames / sizeof sonames[0], calls,
                            sizeof calls / sizeof calls[0], what, sizeof what);
    if (rc == 0)
        return;
    load_code = GGUF_EUNSUPPORTED;
    if (rc == GGUF__DL_NO_LIBRARY)
        snprintf(load_why, sizeof load_why, "libpq is not on this machine (%s): install it "
                 "(Debian: libpq5) to use a catalog in PostgreSQL", what);
    else
        snprintf(load_why, sizeof load_why, "the libpq on this machine has no %s: it is older "
                 "than 14", what);
}

const gguf__libpq *const gguf__pq = &table;

int gguf__pq_load(gguf_error *err) {
    pthread_once(&load_once, load);
    if (load_code != 0)
        return gguf__fail(err, load_code, GGUF_ERROR_NO_OFFSET, "%s", load_why);
    return 0;
}

#endif /* GGUF_HAVE_CATALOG && GGUF_HAVE_PG */
