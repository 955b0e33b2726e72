#define _POSIX_C_SOURCE 200809L
/* For tests/cli/http.sh: opens its arguments with gguf_file_open_many (URLs in parallel) and
 * prints one line per argument, in argument order: "ARG data_offset kv_count tensor_count
 * header_crc32", or "ARG error: MESSAGE". --parallel N sets the transfers in flight. */
#include <libgguf/gguf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct result {
    char *line;
} result;

typedef struct run {
    const char *const *paths;
    result *out;
} run;

static void on_file(void *user, size_t i, gguf_file *f, const gguf_error *err) {
    run *r = user;
    char buf[1024];
    if (f == NULL) {
        snprintf(buf, sizeof buf, "%s error: %s", r->paths[i], err->message);
    } else {
        uint32_t crc = 0;
        gguf_crc_header(&crc, f, NULL);
        snprintf(buf, sizeof buf, "%s %" PRIu64 " %zu %zu %08" PRIx32, r->paths[i],
                 gguf_file_data_offset(f), gguf_kv_count(f), gguf_tensor_count(f), crc);
        gguf_file_free(f);
    }
    r->out[i].line = strdup(buf);
}

int main(int argc, char **argv) {
    unsigned parallel = 0;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--parallel") == 0) {
        parallel = (unsigned)atoi(argv[2]);
        first = 3;
    }
    size_t n = (size_t)(argc - first);
    run r = {(const char *const *)argv + first, calloc(n ? n : 1, sizeof(result))};
    gguf_error err;
    gguf_error_clear(&err);
    if (gguf_file_open_many(r.paths, n, NULL, parallel, on_file, &r, &err) != 0) {
        fprintf(stderr, "open_many: %s\n", err.message);
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (r.out[i].line == NULL) {
            printf("%s never reported\n", r.paths[i]);
            bad = 1;
        } else {
            puts(r.out[i].line);
            free(r.out[i].line);
        }
    }
    free(r.out);
    return bad;
}
