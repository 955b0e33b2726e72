/* The one growable byte buffer. Headers, encoded values, JSON and SQL text are built in it. A
 * failed allocation marks the buffer failed and later appends do nothing, so a builder checks
 * once at the end instead of after every append. */
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

uint8_t *gguf__buf_grow(gguf__buf *b, size_t n) {
    if (b->failed)
        return NULL;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len < n) {
            if (cap > SIZE_MAX / 2) {
                b->failed = true;
                return NULL;
            }
            cap *= 2;
        }
        uint8_t *p = gguf__realloc(b->data, cap);
        if (p == NULL) {
            b->failed = true;
            return NULL;
        }
        b->data = p;
        b->cap = cap;
    }
    uint8_t *at = b->data + b->len;
    b->len += n;
    return at;
}

void gguf__buf_reserve(gguf__buf *b, size_t cap) {
    if (b->failed || b->cap >= cap)
        return;
    uint8_t *p = gguf__realloc(b->data, cap);
    if (p == NULL) {
        b->failed = true;
        return;
    }
    b->data = p;
    b->cap = cap;
}

void gguf__buf_add(gguf__buf *b, const void *p, size_t n) {
    if (n == 0)
        return; /* an empty buffer's data is NULL: not even a zero offset may be applied */
    uint8_t *at = gguf__buf_grow(b, n);
    if (at != NULL)
        memcpy(at, p, n);
}

void gguf__buf_zeros(gguf__buf *b, size_t n) {
    uint8_t *at = gguf__buf_grow(b, n);
    if (at != NULL && n > 0)
        memset(at, 0, n);
}

void gguf__buf_str(gguf__buf *b, const char *s) {
    gguf__buf_add(b, s, strlen(s));
}

void gguf__buf_printf(gguf__buf *b, const char *fmt, ...) {
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        gguf__buf_add(b, small, (size_t)n);
        return;
    }
    uint8_t *at = gguf__buf_grow(b, (size_t)n + 1);
    if (at == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf((char *)at, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len--; /* the NUL vsnprintf needs is not part of the text */
}

int gguf__buf_nul(gguf__buf *b) {
    gguf__buf_add(b, "", 1);
    if (b->failed)
        return -1;
    b->len--;
    return 0;
}

void gguf__buf_free(gguf__buf *b) {
    gguf__free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}
