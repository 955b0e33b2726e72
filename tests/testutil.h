/* Helpers shared by the Check programs. */
#ifndef GGUF_TESTUTIL_H
#define GGUF_TESTUTIL_H

#include <libgguf/gguf.h>
#include <stddef.h>
#include <stdint.h>

/* The testing build's allocation fault injection (libgguf/alloc.c). */
void gguf_testing_fail_alloc_after(long n);
long gguf_testing_alloc_calls(void);

typedef struct Suite Suite;
/* Runs a Check suite and returns the program's exit status (0 when every test passed). */
int tu_run_suite(Suite *s);

/* Reads a whole file; returns NULL (and *len 0) when it cannot. Free with free(). */
uint8_t *tu_read_file(const char *path, size_t *len);

/* Absolute path of a file under the source tree (tu_src("golden/x")) or under the shared
 * corpus (tu_corpus("bad/x")); the returned string is static storage, overwritten by the
 * next call of the same function. */
const char *tu_src(const char *rel);
const char *tu_corpus(const char *rel);
/* 1 when ../shared/corpus exists beside the source tree. Tests that need it skip cleanly. */
int tu_have_corpus(void);

/* Assembles a byte map (golden/hand/NAME.map): hex byte pairs and "quoted ASCII", with
 * '#' comments to the end of the line. Returns NULL on a syntax error. Free with free(). */
uint8_t *tu_assemble_map(const char *path, size_t *len);

/* Lists the entries of the corpus verdict table bad/EXPECTED.tsv: calls fn(file, accept) for
 * each. Returns the number of entries, or -1 when the table cannot be read. */
int tu_each_expected(void (*fn)(const char *file, int accept, void *user), void *user);

/* Lists files below a directory (recursively) whose name ends with suffix, sorted. Returns
 * a NULL-terminated array of malloc'd paths (free with tu_free_list), or NULL. */
char **tu_list_files(const char *dir, const char *suffix);
void tu_free_list(char **list);

/* A journal of an in-place edit, assembled from the byte map in libgguf/commit/journal.c by
 * this test-local encoder (so that a bug shared by the library's writer and reader cannot
 * hide). Writes 64 + 2*len + insert_len + 4 bytes to out and returns that count. trailer_delta
 * is added to the trailing crc32 (non-zero: a bad one). */
typedef struct tu_journal {
    char magic[8];
    uint32_t version;
    uint64_t dev, ino, size, len, insert_at, insert_len;
    uint32_t old_crc;
    const uint8_t *old_region, *new_region; /* len and len + insert_len bytes */
    uint32_t trailer_delta;
} tu_journal;
size_t tu_journal_encode(uint8_t *out, const tu_journal *j);
/* The journal of an edit of the file at path that changes the first byte of the string value
 * of key (whose value must be a STRING in a v2/v3 little-endian file): fills *j (regions
 * malloc'd: free with tu_journal_free). Returns 0, or -1 when the key or file does not fit. */
int tu_journal_for_edit(tu_journal *j, const char *path, const char *key);
void tu_journal_free(tu_journal *j);

#endif
