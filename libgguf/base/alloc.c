/* The one allocation choke point. The testing build (--enable-alloc-faults) can make the Nth
 * allocation fail, so tests can sweep every failure path and check that it frees what it took. */
#include "base/base.h"

#include <stdlib.h>

#ifdef GGUF_ALLOC_FAULTS
/* Countdown to the failing allocation: 0 disables injection, 1 fails the next one. */
static long fail_countdown;
static long alloc_calls;

GGUF_API void gguf_testing_fail_alloc_after(long n);
GGUF_API long gguf_testing_alloc_calls(void);

void gguf_testing_fail_alloc_after(long n) {
    fail_countdown = n;
    alloc_calls = 0;
}

long gguf_testing_alloc_calls(void) {
    return alloc_calls;
}

static bool should_fail(void) {
    alloc_calls++;
    if (fail_countdown > 0 && --fail_countdown == 0)
        return true;
    return false;
}
#else
static bool should_fail(void) {
    return false;
}
#endif

void *gguf__malloc(size_t n) {
    if (should_fail())
        return NULL;
    return malloc(n == 0 ? 1 : n);
}

void *gguf__calloc(size_t count, size_t size) {
    if (should_fail())
        return NULL;
    return calloc(count == 0 ? 1 : count, size == 0 ? 1 : size);
}

void *gguf__realloc(void *p, size_t n) {
    if (should_fail())
        return NULL;
    return realloc(p, n == 0 ? 1 : n);
}

void gguf__free(void *p) {
    free(p);
}
