/* The bounded cursor. Every check is written `remain < n`, which cannot overflow. */
#include "base/base.h"

/* Are n bytes at the cursor in memory? When they are in the input but not held, records how
 * many held bytes would do. */
static bool have(gguf__cursor *c, uint64_t n) {
    if (c->len - c->pos < n)
        return false;
    if (c->held - c->pos < n) {
        uint64_t need = c->pos + n;
        if (need > c->need)
            c->need = need;
        /* owed never exceeds what remains of len (the parser checked every count), but stay
         * safe: a floor past len is len */
        uint64_t floor = c->len - need < c->owed ? c->len : need + c->owed;
        if (floor > c->floor)
            c->floor = floor;
        return false;
    }
    return true;
}

bool gguf__cursor_u32(gguf__cursor *c, uint32_t *v) {
    if (!have(c, 4))
        return false;
    *v = gguf__load32(c->base + c->pos, c->big);
    c->pos += 4;
    return true;
}

bool gguf__cursor_u64(gguf__cursor *c, uint64_t *v) {
    if (!have(c, 8))
        return false;
    *v = gguf__load64(c->base + c->pos, c->big);
    c->pos += 8;
    return true;
}

bool gguf__cursor_len(gguf__cursor *c, uint64_t *v) {
    if (c->wide)
        return gguf__cursor_u64(c, v);
    uint32_t v32;
    if (!gguf__cursor_u32(c, &v32))
        return false;
    *v = v32;
    return true;
}

bool gguf__cursor_bytes(gguf__cursor *c, uint64_t n, const uint8_t **p) {
    if (!have(c, n))
        return false;
    *p = c->base + c->pos;
    c->pos += n;
    return true;
}
