/* Regenerates golden/: assembles golden/hand/NAME.map and golden/refuse/NAME.map into NAME.gguf, derives the files listed
 * in golden_derive.h with the library's writer, and writes golden/MANIFEST (name, size, zlib
 * crc32). Run by `make update-golden`; reviewers read the diff. */
#include "golden_derive.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

int main(void) {
    int bad = 0;
    static const char *const map_dirs[] = {"golden/hand", "golden/refuse"};
    for (size_t d = 0; d < 2; d++) {
        char **maps = tu_list_files(tu_src(map_dirs[d]), ".map");
        for (char **m = maps; m != NULL && *m != NULL; m++) {
            size_t len;
            uint8_t *bytes = tu_assemble_map(*m, &len);
            char out[4096];
            snprintf(out, sizeof out, "%.*s.gguf", (int)(strlen(*m) - 4), *m);
            if (bytes == NULL || tu_write_file(out, bytes, len) != 0) {
                perror(out);
                bad = 1;
            }
            free(bytes);
        }
        tu_free_list(maps);
    }
    mkdir(tu_src("golden/derived"), 0777);
    for (size_t i = 0; i < GOLDEN_N_DERIVATIONS; i++) {
        const golden_derivation *d = &golden_derivations[i];
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        gguf_write_options opt = {
            .size = sizeof(gguf_write_options), .version = d->version, .endian = d->endian};
        char out[4096];
        snprintf(out, sizeof out, "%s", tu_src(d->output));
        if (gguf_file_open(&f, tu_src(d->input), 0, &err) != 0 ||
            gguf_file_save(f, out, &opt, &err) != 0) {
            fprintf(stderr, "%s: %s\n", d->output, err.message);
            bad = 1;
        }
        gguf_file_free(f);
    }
    FILE *manifest = fopen(tu_src("golden/MANIFEST"), "w");
    if (manifest == NULL)
        return 1;
    fprintf(manifest, "# file\tbytes\tcrc32 (zlib) -- regenerate with `make update-golden`\n");
    char **files = tu_list_files(tu_src("golden"), ".gguf");
    size_t prefix = strlen(tu_src("golden/"));
    for (char **p = files; p != NULL && *p != NULL; p++) {
        size_t len;
        uint8_t *bytes = tu_read_file(*p, &len);
        uLong crc = crc32_z(0L, bytes, len);
        fprintf(manifest, "%s\t%zu\t%08lx\n", *p + prefix, len, crc);
        free(bytes);
    }
    tu_free_list(files);
    bad |= fclose(manifest) != 0;
    return bad;
}
