/* The one allocation choke point. The testing build (--enable-alloc-faults) can make the Nth
 * allocation fail, so tests can sweep every failure path and check that it frees what it took. */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "base/base.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* A large block is backed by huge pages where the kernel gives them on request (Debian's
 * transparent_hugepage default is "madvise"). The header of a model with a real vocabulary is
 * read, built again, proven and journaled through blocks of 16 MB and more, and a fault per
 * 4 KiB page of them cost more than the work: an in-place edit of gemma-4's header took 20,900
 * page faults, half its time. The advice spans every page the block touches, so that a block
 * mapped on its own stays one mapping: advice on part of it would split it, and realloc could
 * then no longer grow it where it lies (mremap refuses a range across mappings), needing room
 * for two copies. It is only advice; a kernel that declines it changes nothing. */
#define HUGE_PAGE ((size_t)2 << 20)

/* The system's page size, or 0 when it is not a power of two (then no advice is given). */
static uintptr_t page_size(void) {
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 && (page & (page - 1)) == 0 ? (uintptr_t)page : 0;
}

static void *advise_huge(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
    uintptr_t page = page_size();
    if (p != NULL && n >= 2 * HUGE_PAGE && page != 0) {
        uintptr_t start = (uintptr_t)p & ~(page - 1);
        uintptr_t end = ((uintptr_t)p + n + page - 1) & ~(page - 1);
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
    }
#else
    (void)n;
#endif
    return p;
}

void *gguf__malloc(size_t n) {
    if (should_fail(n))
        return NULL;
    return advise_huge(malloc(n == 0 ? 1 : n), n);
}

void *gguf__calloc(size_t count, size_t size) {
    if (should_fail(size != 0 && count > SIZE_MAX / size ? SIZE_MAX : count * size))
        return NULL;
    return advise_huge(calloc(count == 0 ? 1 : count, size == 0 ? 1 : size),
                       size != 0 && count > SIZE_MAX / size ? 0 : count * size);
}

void *gguf__realloc(void *p, size_t n) {
    if (should_fail(n))
        return NULL;
    return advise_huge(realloc(p, n == 0 ? 1 : n), n);
}

void gguf__free(void *p) {
    free(p);
}

void gguf__alloc_trim(void *p, size_t used, size_t size) {
#ifdef MADV_DONTNEED
    uintptr_t page = page_size();
    if (p == NULL || used >= size || page == 0)
        return;
    uintptr_t start = ((uintptr_t)p + used + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)p + size) & ~(page - 1);
    if (end > start && end - start >= ((uintptr_t)1 << 20))
        (void)madvise((void *)start, end - start, MADV_DONTNEED);
#else
    (void)p, (void)used, (void)size;
#endif
}

void gguf__alloc_populate(void *p, size_t n) {
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = page_size();
    if (p == NULL || page == 0 || n < ((size_t)1 << 20))
        return;
    uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)p + n) & ~(page - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
#else
    (void)p, (void)n;
#endif
}
