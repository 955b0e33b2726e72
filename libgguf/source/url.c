/* Names that are URLs: http:// and https://, and hf://ORG/REPO/FILE[@REVISION], the Hugging
 * Face Hub's resolve URL of FILE. The one place that says which names are remote, and what
 * URL a Hub name stands for; name.c opens by name and http.c fetches, both through here. */
#include "source/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HF_PREFIX "hf://"
#define HF_ENDPOINT "https://huggingface.co"

static bool is_hf(const char *name) {
    return strncasecmp(name, HF_PREFIX, strlen(HF_PREFIX)) == 0;
}

bool gguf__source_is_url(const char *name) {
    return name != NULL && (strncasecmp(name, "http://", 7) == 0 ||
                            strncasecmp(name, "https://", 8) == 0 || is_hf(name));
}

/* Appends s[0..n) to out at *o, percent-encoded but for unreserved bytes (and '/' when
 * keep_slash); out has room (3 bytes per input byte). */
static void put_encoded(char *out, size_t *o, const char *s, size_t n, bool keep_slash) {
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
            out[(*o)++] = (char)c;
        } else {
            out[(*o)++] = '%';
            out[(*o)++] = hex[c >> 4];
            out[(*o)++] = hex[c & 15];
        }
    }
}

char *gguf__source_url_of(const char *name, gguf_error *err) {
    if (!is_hf(name)) {
        char *copy = gguf__strdup(name);
        if (copy == NULL)
            gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        return copy;
    }
    /* ORG/REPO/FILE[@REVISION]: FILE may lie in folders; a revision may be a branch, a tag,
     * a commit or refs/pr/N (encoded whole, as the Hub's clients do) */
    const char *org = name + strlen(HF_PREFIX);
    const char *repo = strchr(org, '/');
    const char *file = repo != NULL ? strchr(repo + 1, '/') : NULL;
    if (file == NULL || repo == org || file == repo + 1 || file[1] == '\0' || file[1] == '@')
        goto bad;
    repo++;
    file++;
    const char *at = strrchr(file, '@');
    const char *rev = at != NULL ? at + 1 : "main";
    size_t file_len = at != NULL ? (size_t)(at - file) : strlen(file);
    if (rev[0] == '\0' || file[file_len - 1] == '/')
        goto bad;
    /* where the Hub is: a mirror's, or a test server's, in place of huggingface.co */
    const char *endpoint = getenv("GGUF_HF_ENDPOINT");
    if (endpoint == NULL || endpoint[0] == '\0')
        endpoint = HF_ENDPOINT;
    size_t base = strlen(endpoint);
    while (base > 0 && endpoint[base - 1] == '/')
        base--;
    size_t cap = base + 3 * strlen(org) + sizeof "/resolve//" + 3 * strlen(rev) + 8;
    char *url = gguf__malloc(cap);
    if (url == NULL) {
        gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
        return NULL;
    }
    size_t o = 0;
    memcpy(url, endpoint, base);
    o = base;
    url[o++] = '/';
    put_encoded(url, &o, org, (size_t)(repo - 1 - org), false);
    url[o++] = '/';
    put_encoded(url, &o, repo, (size_t)(file - 1 - repo), false);
    memcpy(url + o, "/resolve/", 9);
    o += 9;
    put_encoded(url, &o, rev, strlen(rev), false);
    url[o++] = '/';
    put_encoded(url, &o, file, file_len, true);
    url[o] = '\0';
    return url;
bad:
    gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
               "a Hugging Face name is hf://ORG/REPO/FILE or hf://ORG/REPO/FILE@REVISION");
    return NULL;
}
