/* A library loaded on first use rather than linked: the first of its sonames that dlopen
 * loads, then each call looked up by name into a table of function pointers (libcurl for
 * URLs, libpq for PostgreSQL catalogs: linked, each pulled in some 25 libraries at every start
 * of every tool). */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "base/base.h"

/* GGUF_HAVE_*: where nothing is loaded, dlopen (and the library it may need) is not linked */
#if defined(GGUF_HAVE_CURL) || defined(GGUF_HAVE_PG)
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int gguf__dl_table(void *table, const char *const *sonames, size_t n_sonames,
                   const gguf__dl_call *calls, size_t n_calls, char *what, size_t what_size) {
    void *lib = NULL;
    for (size_t i = 0; i < n_sonames && lib == NULL; i++)
        lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(what, what_size, "%s", e != NULL ? e : sonames[0]);
        return GGUF__DL_NO_LIBRARY;
    }
    for (size_t i = 0; i < n_calls; i++) {
        void *fn = dlsym(lib, calls[i].symbol);
        if (fn == NULL) {
            snprintf(what, what_size, "%s", calls[i].symbol);
            return GGUF__DL_NO_SYMBOL; /* the library stays loaded: it may be in use elsewhere */
        }
        /* POSIX: a symbol's address from dlsym is usable as a function pointer */
        memcpy((char *)table + calls[i].at, &fn, sizeof fn);
    }
    return 0;
}

#endif /* GGUF_HAVE_CURL || GGUF_HAVE_PG */
