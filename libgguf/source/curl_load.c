/* Loading libcurl on first use (see curl_load.h): dlopen by its soname, each call looked up by
 * name into the table, then curl_global_init, all once per process under pthread_once. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h" /* GGUF_HAVE_CURL; the fuzz build compiles without it (no libcurl) */
#endif
#ifdef GGUF_HAVE_CURL
#include "source/curl_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The sonames to try, in order: libcurl's own, Debian's and Ubuntu's GnuTLS build of the same
 * API, then whatever the development link names. */
static const char *const sonames[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};

#define CALL(member) {"curl_" #member, offsetof(gguf__libcurl, member)}
static const struct {
    const char *symbol;
    size_t at; /* where its pointer goes in the table */
} calls[] = {
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
    void *lib = NULL;
    for (size_t i = 0; i < sizeof sonames / sizeof sonames[0] && lib == NULL; i++)
        lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        load_code = GGUF_EUNSUPPORTED;
        snprintf(load_why, sizeof load_why, "libcurl is not on this machine (%s): install it "
                 "(Debian: libcurl4) to read URLs", e != NULL ? e : sonames[0]);
        return;
    }
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        void *fn = dlsym(lib, calls[i].symbol);
        if (fn == NULL) {
            load_code = GGUF_EUNSUPPORTED;
            snprintf(load_why, sizeof load_why, "the libcurl on this machine has no %s: it is "
                     "older than 7.66", calls[i].symbol);
            return; /* the library stays loaded: it may be in use elsewhere in the process */
        }
        /* POSIX: a symbol's address from dlsym is usable as a function pointer */
        memcpy((char *)&table + calls[i].at, &fn, sizeof fn);
    }
    CURLcode rc = table.global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
        load_code = GGUF_EIO;
        snprintf(load_why, sizeof load_why, "libcurl cannot start: %s", table.easy_strerror(rc));
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
