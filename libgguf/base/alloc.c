/* The one allocation choke point. The testing build (--enable-alloc-faults) can make the Nth
 * allocation fail, so tests can sweep every failure path and check that it frees what it took. */
#include "base/base.h"

#include <stdlib.h>

#ifdef GGUF_ALLOC_FAULTS
/* Countdown to the failing allocation: 0 disables injection, 1 fails the next one. */
static long fail_countdown;
static long alloc_calls;
static size_t size_limit; /* 0: none; else a request for more bytes fails */

GGUF_API void gguf_testing_fail_alloc_after(long n);
GGUF_API long gguf_testing_alloc_calls(void);
GGUF_API void gguf_testing_alloc_limit(size_t bytes);

void gguf_testing_fail_alloc_after(long n) {
    fail_countdown = n;
    alloc_calls = 0;
}

long gguf_testing_alloc_calls(void) {
    return alloc_calls;
}

/* Every allocation of more than `bytes` fails from now on (0: no limit), so that a test can
 * bound what a hostile input makes the library ask for, without asking the machine for it. */
void gguf_testing_alloc_limit(size_t bytes) {
    size_limit = bytes;
}

static bool should_fail(size_t n) {
    alloc_calls++;
    if (size_limit > 0 && n > size_limit)
        return true;
    if (fail_countdown > 0 && --fail_countdown == 0)
        return true;
    return false;
}
#else
static bool should_fail(size_t n) {
    (void)n;
    return false;
}
#endif

void *gguf__malloc(size_t n) {
    if (should_fail(n))
        return NULL;
    return malloc(n == 0 ? 1 : n);
}

void *gguf__calloc(size_t count, size_t size) {
    if (should_fail(size != 0 && count > SIZE_MAX / size ? SIZE_MAX : count * size))
        return NULL;
    return calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);
}

void *gguf__realloc(void *p, size_t n) {
    if (should_fail(n))
        return NULL;
    return realloc(p, n == 0 ? 1 : n);
}

void gguf__free(void *p) {
    free(p);
}
