/*
 * libgguf: the export macro, the version, errors and how options structs grow.
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
/* Version                                                                                     */
/*
 * The version of this header. configure.ac reads its package version from these three lines,
 * so they are the one place it is written. MINOR and PATCH stay below 100.
 */
#define GGUF_VERSION_MAJOR 0
#define GGUF_VERSION_MINOR 1
#define GGUF_VERSION_PATCH 0

#define GGUF_VERSION_NUMBER                                                                    \
    (GGUF_VERSION_MAJOR * 10000 + GGUF_VERSION_MINOR * 100 + GGUF_VERSION_PATCH)
#define GGUF_VERSION_STR_(x) #x
#define GGUF_VERSION_STR(x) GGUF_VERSION_STR_(x)
/* "0.1.0" */
#define GGUF_VERSION_STRING                                                                    \
    GGUF_VERSION_STR(GGUF_VERSION_MAJOR) "." GGUF_VERSION_STR(GGUF_VERSION_MINOR) "."         \
        GGUF_VERSION_STR(GGUF_VERSION_PATCH)

/* The version of the library the program runs with, which may differ from the header it was
 * built with: GGUF_VERSION_NUMBER's form (MAJOR * 10000 + MINOR * 100 + PATCH), and
 * GGUF_VERSION_STRING's (static). */
GGUF_API unsigned gguf_version(void);
GGUF_API const char *gguf_version_string(void);

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

#define GGUF_ERROR_MESSAGE_MAX 320
#define GGUF_ERROR_PATH_MAX 160
#define GGUF_ERROR_NO_OFFSET UINT64_MAX

/* 496 bytes: cheap to keep on the stack and to copy. A message too long for its buffer keeps
 * the reason whole and cuts what comes before it ("key 'a'[0][0][0]...: arrays nested deeper
 * than 64 levels at byte 857"); what cannot be cut so ends in "...". A path too long keeps its
 * end, which names the file. */
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

/* ------------------------------------------------------------------------------------------ */
/* Options structs, and how they grow                                                          */
/*
 * Every struct a caller fills for the library to read (gguf_open_options, gguf_write_options,
 * gguf_split_options, gguf_catalog_index_options, gguf_requant_options,
 * gguf_llama_estimate_params) starts with `size_t size`: the size of the struct as the caller
 * was compiled, which its _INIT macro sets (GGUF_WRITE_OPTIONS_INIT, ...). Start from the
 * macro and set fields by name:
 *
 *     gguf_write_options opt = GGUF_WRITE_OPTIONS_INIT;
 *     opt.layout = GGUF_LAYOUT_PACKED;
 *
 * A later release adds fields only at the end, each at or past the struct's previous size and
 * with 0 as its default. So the library reads the caller's struct by its size:
 *  - a smaller size (a program built against an older header): the fields it covers are the
 *    caller's, the later ones take their defaults;
 *  - a larger size (a program built against a newer header, run with this library): accepted
 *    while every byte past this library's struct is 0, that is, while the program sets no field
 *    this library does not know; else the call fails with GGUF_EUNSUPPORTED, naming the struct
 *    and the first byte set, and does nothing;
 *  - a size below sizeof(size_t) (0: a struct not started from its _INIT macro) or above
 *    GGUF_OPTIONS_SIZE_MAX fails with GGUF_EINVAL, naming the struct.
 * A NULL options pointer, where allowed, means the defaults. The library never writes past the
 * caller's size either (gguf_requant_parse_type, gguf_llama_estimate_defaults).
 *
 * Structs the library fills (results, findings) and the elements of arrays a caller passes
 * (gguf_requant_override, gguf_requant_kv) keep their layout: what a release has to add to
 * them comes as a new struct and a new function, never as a field. gguf_llama_estimate holds
 * a gguf_llama_estimate_params (the parameters as resolved), so a field added to the
 * parameters comes with a new estimate struct too.
 */
#define GGUF_OPTIONS_SIZE_MAX 4096

#ifdef __cplusplus
}
#endif

#endif /* LIBGGUF_GGUF_BASE_H */
