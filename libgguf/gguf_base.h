/*
 * libgguf: the export macro and errors.
 * A part of the public header <libgguf/gguf.h>, which includes every part and opens with
 * the conventions they share. Each part includes the parts it needs.
 */
#ifndef LIBGGUF_GGUF_BASE_H
#define LIBGGUF_GGUF_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GGUF_API __attribute__((visibility("default")))
#else
#define GGUF_API
#endif

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

enum gguf_errcode {
    GGUF_OK = 0,
    GGUF_EINVAL = -1,    /* bad argument from the caller (not from the file) */
    GGUF_ENOMEM = -2,    /* an allocation failed */
    GGUF_EIO = -3,       /* the operating system refused a read, write, open, sync or rename */
    GGUF_ETRUNC = -4,    /* the file ends before a structure it declares */
    GGUF_ECORRUPT = -5,  /* the bytes break a rule of the format */
    GGUF_ELIMIT = -6,    /* a structure exceeds one of this library's limits (nesting depth) */
    GGUF_ENOTFOUND = -7, /* no such key or tensor */
    GGUF_ETYPE = -8,     /* a value or tensor has another type than the one asked for */
    GGUF_EUNSUPPORTED = -9, /* valid, but this build cannot do it (unknown tensor type, ...) */
    GGUF_EEXIST = -10    /* the key or tensor name is already taken */
};

#define GGUF_ERROR_MESSAGE_MAX 512
#define GGUF_ERROR_PATH_MAX 4096
#define GGUF_ERROR_NO_OFFSET UINT64_MAX

typedef struct gguf_error {
    int code;             /* a gguf_errcode; 0 while no error was recorded */
    uint64_t offset;      /* byte offset in the input the error is about, or GGUF_ERROR_NO_OFFSET */
    char message[GGUF_ERROR_MESSAGE_MAX]; /* what and why, naming the key or tensor */
    char path[GGUF_ERROR_PATH_MAX]; /* the file (or URL) it is about, or "" when none is; a
                                       name too long to fit keeps its end, after "..." */
} gguf_error;

/* Resets *err to "no error". */
GGUF_API void gguf_error_clear(gguf_error *err);
/* A short, static description of a gguf_errcode ("truncated file", ...). */
GGUF_API const char *gguf_strerror(int code);

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_BASE_H */
