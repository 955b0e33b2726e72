/* The library's version, as built: the header's macros may be newer or older than the library
 * a program runs with. */
#include "base/base.h"

unsigned gguf_version(void) {
    return GGUF_VERSION_NUMBER;
}

const char *gguf_version_string(void) {
    return GGUF_VERSION_STRING;
}
