/* libcurl, loaded when the first URL is opened rather than when the program starts. Linked in,
 * libcurl and the 30 libraries it pulls in (TLS, Kerberos, LDAP, SSH, ...) took 16 ms of every
 * run of every tool, most of which never read a URL: three quarters of the time an in-place
 * edit of a name takes on a model with a 32k vocabulary. http.c, http_request.c and
 * http_many.c, the files that speak to libcurl, call it through this table. */
#ifndef LIBGGUF_SOURCE_CURL_LOAD_H
#define LIBGGUF_SOURCE_CURL_LOAD_H

#include "base/base.h"

#include <curl/curl.h>

/* The libcurl calls the HTTP files make, named as libcurl names them without "curl_". */
typedef struct gguf__libcurl {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *easy, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *easy, CURLINFO info, ...);
    CURLcode (*easy_pause)(CURL *easy, int bitmask);
    void (*easy_cleanup)(CURL *easy);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
    void (*free)(void *p);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *easy);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *easy);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int n_extra,
                            int timeout_ms, int *numfds);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *msgs_left);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    const char *(*multi_strerror)(CURLMcode code);
    CURLU *(*url)(void);
    CURLUcode (*url_set)(CURLU *url, CURLUPart part, const char *content, unsigned int flags);
    CURLUcode (*url_get)(CURLU *url, CURLUPart part, char **content, unsigned int flags);
    void (*url_cleanup)(CURLU *url);
} gguf__libcurl;

/* Loads and starts libcurl (curl_global_init), once per process, whichever thread asks first.
 * Returns 0, or GGUF_EUNSUPPORTED (no usable libcurl on this machine) or GGUF_EIO (it would not
 * start), saying why. */
GGUF_HIDDEN int gguf__curl_load(gguf_error *err);
/* libcurl's calls: filled by the first gguf__curl_load that returned 0, not to be used before. */
GGUF_HIDDEN extern const gguf__libcurl *const gguf__curl;

#endif /* LIBGGUF_SOURCE_CURL_LOAD_H */
