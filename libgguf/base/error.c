/* gguf_error: the first error wins; messages name the object and the rule. */
#define _GNU_SOURCE
#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gguf_error_clear(gguf_error *err) {
    if (err == NULL)
        return;
    err->code = 0;
    err->offset = GGUF_ERROR_NO_OFFSET;
    err->message[0] = '\0';
    err->path[0] = '\0';
}

const char *gguf_strerror(int code) {
    switch (code) {
    case GGUF_OK: return "success";
    case GGUF_EINVAL: return "invalid argument";
    case GGUF_ENOMEM: return "out of memory";
    case GGUF_EIO: return "input/output error";
    case GGUF_ETRUNC: return "truncated file";
    case GGUF_ECORRUPT: return "corrupt file";
    case GGUF_ELIMIT: return "limit exceeded";
    case GGUF_ENOTFOUND: return "not found";
    case GGUF_ETYPE: return "wrong type";
    case GGUF_EUNSUPPORTED: return "unsupported";
    case GGUF_EEXIST: return "already exists";
    default: return "unknown error";
    }
}

int gguf__fail(gguf_error *err, int code, uint64_t offset, const char *fmt, ...) {
    if (err == NULL || err->code != 0)
        return code;
    err->code = code;
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof err->message) /* cut: say so */
        memcpy(err->message + sizeof err->message - 4, "...", 4);
    return code;
}

/* The least of a context gguf__wrap keeps before it cuts the message instead. */
#define CONTEXT_KEPT 32

int gguf__wrap(gguf_error *err, int code, const char *fmt, ...) {
    if (err == NULL)
        return code;
    char context[GGUF_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(context, sizeof context, fmt, ap);
    va_end(ap);
    if (err->code == 0) {
        err->code = code;
        err->offset = GGUF_ERROR_NO_OFFSET;
        snprintf(err->message, sizeof err->message, "%s", context);
        return code;
    }
    /* context + ": " + the message. When that does not fit, the context is cut (marked
     * "...") so that the message, which says why, stays whole; a message too long to leave
     * the context some room is cut at its end instead. */
    char joined[2 * GGUF_ERROR_MESSAGE_MAX + 2];
    size_t a = strlen(context), b = strnlen(err->message, sizeof err->message);
    size_t room = sizeof err->message - 1;
    if (a + 2 + b > room && b + 2 + CONTEXT_KEPT + 3 <= room) {
        a = room - 2 - b - 3;
        memcpy(context + a, "...", 3);
        a += 3;
    }
    memcpy(joined, context, a);
    memcpy(joined + a, ": ", 2);
    memcpy(joined + a + 2, err->message, b);
    size_t n = a + 2 + b;
    if (n > room) {
        n = room;
        memcpy(joined + n - 3, "...", 3);
    }
    memcpy(err->message, joined, n);
    err->message[n] = '\0';
    return err->code;
}

void gguf__fail_path(gguf_error *err, const char *path) {
    if (err == NULL || err->code == 0 || err->path[0] != '\0' || path == NULL)
        return;
    size_t n = strlen(path);
    if (n >= sizeof err->path) { /* keep the end, which names the file */
        memcpy(err->path, "...", 3);
        memcpy(err->path + 3, path + n - (sizeof err->path - 4), sizeof err->path - 3);
    } else {
        memcpy(err->path, path, n + 1);
    }
}

const char *gguf__quote(char *buf, size_t bufsize, const char *s, size_t len) {
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        /* room for one escaped byte, "..." and the NUL */
        if (o + 4 + 4 >= bufsize) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
            buf[o++] = (char)c;
        } else {
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[c >> 4];
            buf[o++] = hex[c & 15];
        }
    }
    buf[o] = '\0';
    return buf;
}
