/* A caller's options struct read by its leading size: the fields its size covers are the
 * caller's, the rest this library's defaults. A caller built against an older header passes a
 * smaller struct and gets the defaults of the fields added since; one built against a newer
 * header is served while the fields this library does not know hold their default, 0. */
#include "base/base.h"

#include <string.h>

int gguf__options_size_check(size_t size, size_t ours, const char *type, gguf_error *err) {
    if (size >= sizeof size && size <= GGUF_OPTIONS_SIZE_MAX)
        return 0;
    return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                      "%s.size is %zu, not the size of a %s (this library's is %zu): start from "
                      "its _INIT macro",
                      type, size, type, ours);
}

int gguf__options_read(void *out, size_t size, const void *defaults, const void *opt,
                       const char *type, gguf_error *err) {
    memcpy(out, defaults, size);
    if (opt == NULL)
        return 0;
    size_t given;
    memcpy(&given, opt, sizeof given);
    int rc = gguf__options_size_check(given, size, type, err);
    if (rc != 0)
        return rc;
    const unsigned char *bytes = opt;
    for (size_t i = size; i < given; i++) {
        if (bytes[i] != 0)
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "%s of %zu bytes sets byte %zu, in a field that libgguf %s (a "
                              "%s of %zu bytes) does not know",
                              type, given, i, GGUF_VERSION_STRING, type, size);
    }
    size_t n = given < size ? given : size;
    memcpy((unsigned char *)out + sizeof given, bytes + sizeof given, n - sizeof given);
    return 0;
}
