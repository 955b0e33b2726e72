/* A catalog's name: a SQLite file or a PostgreSQL URL, and the URL as messages show it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "catalog/catalog.h"

#ifdef GGUF_HAVE_CATALOG

#include <string.h>

int gguf__db_is_pg_url(const char *url) {
    return url != NULL &&
           (strncmp(url, "postgresql://", 13) == 0 || strncmp(url, "postgres://", 11) == 0);
}

/* Replaces the bytes [v, ve) of the string (which ends at *end) by "***". */
static void redact_span(char *v, char *ve, char **end) {
    memmove(v + 3, ve, (size_t)(*end - ve) + 1);
    memcpy(v, "***", 3);
    *end += 3 - (ve - v);
}

char *gguf__db_redact(const char *path) {
    size_t n = strlen(path);
    char *out = gguf__malloc(n + 7); /* two "***" over passwords of no bytes at most */
    if (out == NULL)
        return NULL;
    memcpy(out, path, n + 1);
    if (!gguf__db_is_pg_url(path))
        return out;
    char *end = out + n;
    /* scheme://user:password@host: the user information ends at an '@' before the path */
    char *auth = strstr(out, "://") + 3, *at = auth;
    while (at < end && *at != '@' && *at != '/' && *at != '?')
        at++;
    char *colon = memchr(auth, ':', (size_t)(at - auth));
    if (at < end && *at == '@' && colon != NULL)
        redact_span(colon + 1, at, &end);
    /* ?...&password=secret&... */
    for (char *p = strchr(out, '?'); p != NULL; p = strchr(p + 1, '&')) {
        if (strncmp(p + 1, "password=", 9) != 0)
            continue;
        char *ve = p + 10;
        while (*ve != '\0' && *ve != '&')
            ve++;
        redact_span(p + 10, ve, &end);
    }
    return out;
}

#endif
