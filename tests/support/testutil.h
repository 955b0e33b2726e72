/* Helpers shared by the Check programs. */
#ifndef GGUF_TESTUTIL_H
#define GGUF_TESTUTIL_H

#include <libgguf/gguf.h>
#include <stddef.h>
#include <stdint.h>

/* The testing build's allocation fault injection (libgguf/base/alloc.c). */
void gguf_testing_fail_alloc_after(long n);
long gguf_testing_alloc_calls(void);

typedef struct Suite Suite;
/* Runs a Check suite and reports in TAP on stdout (automake's tap-driver.sh): one line per
 * test (per iteration of a loop test), "# SKIP why" for a test that called tu_skip, and one more
 * SKIP line per tu_skip_part. What the tests print goes to stderr (the log). Returns the
 * program's exit status: 0 when no test failed. */
int tu_run_suite(Suite *s);

/* Skips the running test: it is reported as SKIP with the reason, never as PASS, and returns
 * from the calling function, so call it in the test's own body (START_TEST ... END_TEST), whose
 * name it records. In a loop test, tu_skip_iter(_i, why) says which iteration. Use it when an
 * input is missing (../shared/corpus, ggml-oracle). With GGUF_TEST_NO_SKIP=1 in the
 * environment (CI, which has every input) a skip fails the test instead. */
#define tu_skip(why)                                                                           \
    do {                                                                                       \
        tu_skip_at(__func__, -1, NULL, why);                                                   \
        return;                                                                                \
    } while (0)
#define tu_skip_iter(i, why)                                                                   \
    do {                                                                                       \
        tu_skip_at(__func__, i, NULL, why);                                                    \
        return;                                                                                \
    } while (0)
/* A part ("what") of the running test that cannot run; the test goes on with the rest. The
 * part is reported as a SKIP line of its own beside the test's result (called from a helper
 * function, it is reported under the helper's name). Fails under GGUF_TEST_NO_SKIP. */
#define tu_skip_part(what, why) tu_skip_at(__func__, -1, what, why)
/* What the macros call: func is the caller's __func__, iter the loop iteration or -1, what
 * NULL for the whole test. */
void tu_skip_at(const char *func, int iter, const char *what, const char *why);

/* For main(), when the whole program cannot run (a missing library or input): prints the TAP
 * plan "1..0 # SKIP why" and returns 0, the exit status to return; with GGUF_TEST_NO_SKIP, a
 * failed test point and 1. (An exit status of 77 would be an error to the TAP driver.) */
int tu_skip_all(const char *why);

/* ggml-oracle: $GGML_ORACLE, or /tmp/ggml-oracle/bin/ggml-oracle when that is unset (set but
 * empty: ""). tu_oracle returns it when it is an executable, else NULL. */
const char *tu_oracle_path(void);
const char *tu_oracle(void);

/* Reads a whole file, the bytes followed by a NUL not counted in *len (a text file reads as a
 * string); returns NULL (and *len 0) when it cannot. Free with free(). */
uint8_t *tu_read_file(const char *path, size_t *len);
/* Writes len bytes to path (created, or emptied first). Returns 0, or -1 with errno set. */
int tu_write_file(const char *path, const void *data, size_t len);

/* A seeded xorshift generator for test inputs: the same seed draws the same values in every
 * test program (seed 0 takes a fixed non-zero state). */
void tu_rng_seed(uint64_t seed);
uint32_t tu_rng_u32(void);
float tu_rng_unit(void);  /* uniform in [0, 1) */
float tu_rng_gauss(void); /* standard normal (Box-Muller) */
/* A float's bits (to compare floats exactly, NaNs and signed zeros included). */
uint32_t tu_float_bits(float f);

/* Absolute path of a file under the source tree (tu_src("golden/x")) or under the shared
 * corpus (tu_corpus("bad/x")); the returned string is static storage, overwritten by the
 * next call of the same function. */
const char *tu_src(const char *rel);
const char *tu_corpus(const char *rel);
/* 1 when ../shared/corpus exists beside the source tree. Tests that need it call tu_skip
 * without it. */
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
 * hide): from the old and new regions, the changed ranges (each run of bytes that differ from
 * the file before the write), the crc32s of the old region's 4 KiB blocks, the split point and
 * its torn block. Writes tu_journal_encoded_size(j) bytes to out and returns that count.
 * trailer_delta is added to the trailing crc32 and new_crc_delta to the new region's
 * (non-zero: a bad one). */
typedef struct tu_journal {
    char magic[8];
    uint32_t version;
    uint64_t dev, ino, size, len, insert_at, insert_len;
    uint32_t old_crc;
    uint32_t moved_crc; /* crc32 of the data bytes an insertion moves */
    const uint8_t *old_region, *new_region; /* len and len + insert_len bytes */
    uint32_t trailer_delta, new_crc_delta;
} tu_journal;
#define TU_JOURNAL_VERSION 4
#define TU_JOURNAL_HEAD 100 /* bytes before the old region's block crc32s */
size_t tu_journal_encode(uint8_t *out, const tu_journal *j);
/* The fields every journal version starts with (magic to moved_crc), version as given: 68
 * bytes, their count returned. */
size_t tu_journal_fields(uint8_t *out, const tu_journal *j, uint32_t version);
/* n bytes of v at p, little-endian. */
void tu_put_le(uint8_t *p, uint64_t v, int n);
/* the bytes tu_journal_encode writes */
size_t tu_journal_encoded_size(const tu_journal *j);
/* The journal of an edit of the file at path that changes the first byte of the string value
 * of key (whose value must be a STRING in a v2/v3 little-endian file): fills *j (regions
 * malloc'd: free with tu_journal_free). Returns 0, or -1 when the key or file does not fit. */
int tu_journal_for_edit(tu_journal *j, const char *path, const char *key);
void tu_journal_free(tu_journal *j);

#endif
