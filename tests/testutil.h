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

#endif
