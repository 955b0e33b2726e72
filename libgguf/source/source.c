/* Sources in general: reads with their bounds checked, and the memory source. */
#include "source/source.h"

#include <string.h>

int gguf__source_read(gguf__source *s, void *buf, size_t len, uint64_t off, gguf_error *err) {
    if (off > s->size || len > s->size - off)
        return gguf__fail(err, GGUF_EIO, off,
                          "bytes %llu..%llu lie past the end (%llu bytes)",
                          (unsigned long long)off, (unsigned long long)(off + len),
                          (unsigned long long)s->size);
    if (len == 0)
        return 0;
    if (s->mem != NULL) {
        memcpy(buf, s->mem + off, len);
        return 0;
    }
    return s->ops->read(s, buf, len, off, err);
}

void gguf__source_will_read(gguf__source *s, uint64_t off, uint64_t len, bool certain) {
    if (s != NULL && s->mem == NULL && s->ops->will_read != NULL)
        s->ops->will_read(s, off, len, certain);
}

void gguf__source_free(gguf__source *s) {
    if (s == NULL)
        return;
    if (s->ops != NULL && s->ops->close != NULL)
        s->ops->close(s);
    gguf__free(s->name);
    gguf__free(s->etag);
    gguf__free(s->last_modified);
    gguf__free(s);
}

/* ---- memory ---- */

static void memory_close(gguf__source *s) {
    gguf__free(s->impl); /* the copy, if one was made */
}

static const gguf__source_ops memory_ops = {.read = NULL, .close = memory_close};

int gguf__source_open_memory(gguf__source **out, const void *data, size_t size, bool copy,
                             const char *name, gguf_error *err) {
    gguf__source *s = gguf__calloc(1, sizeof *s);
    char *n = gguf__strdup(name != NULL ? name : "memory");
    uint8_t *c = copy && size > 0 ? gguf__malloc(size) : NULL;
    if (s == NULL || n == NULL || (copy && size > 0 && c == NULL)) {
        gguf__free(s);
        gguf__free(n);
        gguf__free(c);
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory for %zu bytes",
                          size);
    }
    if (c != NULL)
        memcpy(c, data, size);
    *s = (gguf__source){
        .ops = &memory_ops,
        .kind = GGUF__SOURCE_MEMORY,
        .name = n,
        .size = size,
        .mem = c != NULL ? c : size > 0 ? data : (const uint8_t *)"",
        .fd = -1,
        .impl = c,
    };
    *out = s;
    return 0;
}
