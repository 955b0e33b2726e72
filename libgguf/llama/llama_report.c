/* The findings channel of the llama.cpp rule checks (llama_check.c, llama_vocab.c): formats a
 * finding, counts it by severity, hands it to the caller's callback. */
#include "llama.h"

#include <stdarg.h>
#include <stdio.h>

#define MSG_MAX 1024

void gguf__llama_emit(gguf__llama_report *r, int severity, const char *key, const char *tensor,
                      size_t shard, uint64_t offset, const char *fmt, ...) {
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->stats != NULL) {
        if (severity == GGUF_LLAMA_ERROR)
            r->stats->errors++;
        else if (severity == GGUF_LLAMA_WARNING)
            r->stats->warnings++;
        else
            r->stats->notes++;
    }
    if (r->fn != NULL) {
        gguf_llama_finding f = {severity, key, tensor, msg, shard, offset};
        r->fn(r->user, &f);
    }
}
