/* Plants a journal beside a model, as the read-only and recovery tests need one:
 *   plant_journal MODEL KEY valid|cut|foreign|symlink
 * valid: the journal of an edit of KEY's string value (its first character); cut: the same,
 * missing its last 100 bytes; foreign: the same, naming another file (inode + 1); symlink: a
 * symbolic link to a valid journal stored as MODEL.elsewhere. Journals are made by the tests'
 * own encoder (tests/support/testutil.c), not by the library. */
#define _GNU_SOURCE
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: plant_journal MODEL KEY valid|cut|foreign|symlink\n");
        return 2;
    }
    const char *model = argv[1], *kind = argv[3];
    tu_journal j;
    if (tu_journal_for_edit(&j, model, argv[2]) != 0) {
        fprintf(stderr, "plant_journal: %s: no string value of %s to edit\n", model, argv[2]);
        return 1;
    }
    if (strcmp(kind, "foreign") == 0)
        j.ino += 1;
    uint8_t *bytes = malloc(tu_journal_encoded_size(&j));
    size_t n = tu_journal_encode(bytes, &j);
    if (strcmp(kind, "cut") == 0)
        n -= 100;
    /* beside the model: ".NAME.gguf-journal" */
    const char *slash = strrchr(model, '/');
    size_t dir_len = slash ? (size_t)(slash - model + 1) : 0;
    char jpath[4096], target[4096];
    snprintf(jpath, sizeof jpath, "%.*s.%s.gguf-journal", (int)dir_len, model,
             model + dir_len);
    snprintf(target, sizeof target, "%s.elsewhere", model);
    const char *write_to = strcmp(kind, "symlink") == 0 ? target : jpath;
    int rc = tu_write_file(write_to, bytes, n) == 0 ? 0 : 1;
    if (rc == 0 && strcmp(kind, "symlink") == 0)
        rc = symlink(target, jpath) == 0 ? 0 : 1;
    free(bytes);
    tu_journal_free(&j);
    if (rc != 0)
        perror("plant_journal");
    return rc;
}
