/* Replays files through a fuzz target without libFuzzer: every file named on the command line,
 * or found below a directory named there. `make check` runs it over golden/, the regression
 * inputs in tests/fuzz/regress/ and, when present, ../shared/corpus. */
#define _GNU_SOURCE
#include "tests/support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path) {
    size_t len;
    uint8_t *bytes = tu_read_file(path, &len);
    if (bytes == NULL) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(bytes, len);
    free(bytes);
    return 0;
}

int main(int argc, char **argv) {
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue; /* an absent corpus is skipped */
        if (!S_ISDIR(st.st_mode)) {
            bad |= replay(argv[i]);
            files++;
            continue;
        }
        char **list = tu_list_files(argv[i], "");
        for (char **p = list; p && *p; p++, files++)
            bad |= replay(*p);
        tu_free_list(list);
    }
    printf("%d passed, %d failed\n", bad ? files - 1 : files, bad);
    return bad;
}
