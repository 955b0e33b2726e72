/* Loading libcurl on first use (see curl_load.h) with gguf__dl_table, then curl_global_init,
 * all once per process under pthread_once. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h" /* GGUF_HAVE_CURL; the fuzz build compiles without it (no libcurl) */
#endif
#ifdef GGUF_HAVE_CURL
#include "source/curl_load.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The sonames to try, in order: libcurl's own, Debian's and Ubuntu's GnuTLS build of the same
 * API, then whatever the development link names. */
static const char *const sonames[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};

#define CALL(member) {"curl_" #member, offsetof(gguf__libcurl, member)}
static const gguf__dl_call calls[] = {
    CALL(global_init),    CALL(easy_init),         CALL(easy_setopt),     CALL(easy_getinfo),
    CALL(easy_pause),     CALL(easy_cleanup),      CALL(easy_strerror),   CALL(slist_append),
    CALL(slist_free_all), CALL(free),              CALL(multi_init),      CALL(multi_setopt),
    CALL(multi_add_handle), CALL(multi_remove_handle), CALL(multi_perform), CALL(multi_poll),
    CALL(multi_info_read), CALL(multi_cleanup),    CALL(multi_strerror),  CALL(url),
    CALL(url_set),        CALL(url_get),           CALL(url_cleanup),
};
#undef CALL

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static gguf__libcurl table;
static int load_code;       /* 0 once loaded and started */
static char load_why[256];  /* else why not */

static void load(void) {
    char what[160];
    int rc = gguf__dl_table(&table, sonames, sizeof sonames / sizeof sonames[0], calls,
                            sizeof calls / sizeof calls[0], what, sizeof what);
    if (rc != 0) {
        load_code = GGUF_EUNSUPPORTED;
        if (rc == GGUF__DL_NO_LIBRARY)
            snprintf(load_why, sizeof load_why, "libcurl is not on this machine (%s): install "
                     "it (Debian: libcurl4) to read URLs", what);
        else
            snprintf(load_why, sizeof load_why, "the libcurl on this machine has no %s: it is "
                     "older than 7.66", what);
        return;
    }
    CURLcode started = table.global_init(CURL_GLOBAL_DEFAULT);
    if (started != CURLE_OK) {
        load_code = GGUF_EIO;
        snprintf(load_why, sizeof load_why, "libcurl cannot start: %s",
                 table.easy_strerror(started));
    }
}

const gguf__libcurl *const gguf__curl = &table;

int gguf__curl_load(gguf_error *err) {
    pthread_once(&load_once, load);
    if (load_code != 0)
        return gguf__fail(err, load_code, GGUF_ERROR_NO_OFFSET, "%s", load_why);
    return 0;
}

#endif /* GGUF_HAVE_CURL */
