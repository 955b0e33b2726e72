/* The source layer and the reader's use of it (source/, format/open.c).
 *
 * A source that pays per byte (a URL) sets read_ahead: the reader then never reads further
 * than read_ahead past the least end of the header that the bytes read so far prove (the
 * parse's floor). Here a recording source over every corpus and golden file shows, for first
 * reads and read-aheads down to one byte, that the reads are contiguous, never read a byte
 * twice, never go past the header plus read_ahead (so the floor never passes the real header
 * end), and that the file comes out as it does from memory. Then the pipe source (what
 * `gguf-edit show -` reads), file descriptors, URL names, and the refusals of writing or
 * recovering a URL. HTTP itself is tested against real servers in tests/cli/http.sh. */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libgguf/gguf.h>
#include "format/format.h"
#include "tests/support/testutil.h"

/* ---- a source that records what the reader asks for ---- */

typedef struct recorder {
    const uint8_t *data;
    uint64_t next;      /* where the next read must start (contiguous, nothing read twice) */
    uint64_t total;     /* bytes read */
    unsigned reads;
    int overlapped;     /* a read that did not start where the last one ended */
} recorder;

static int rec_read(gguf__source *s, void *buf, size_t len, uint64_t off, gguf_error *err) {
    (void)err;
    recorder *r = s->impl;
    if (off != r->next)
        r->overlapped = 1;
    r->next = off + len;
    r->total += len;
    r->reads++;
    memcpy(buf, r->data + off, len);
    return 0;
}

static void rec_close(gguf__source *s) {
    (void)s;
}

static const gguf__source_ops rec_ops = {.read = rec_read, .close = rec_close};

static int open_recorded(gguf_file **f, recorder *r, const uint8_t *data, size_t size,
                         uint64_t first, uint64_t ahead, gguf_error *err) {
    *r = (recorder){.data = data};
    gguf__source *s = gguf__calloc(1, sizeof *s);
    char *name = gguf__strdup("recorded");
    ck_assert(s != NULL && name != NULL);
    *s = (gguf__source){.ops = &rec_ops, .kind = GGUF__SOURCE_HTTP, .name = name, .size = size,
                        .first_read = first, .read_ahead = ahead, .fd = -1, .impl = r};
    return gguf__open_source(f, s, 0, err);
}

static const struct {
    uint64_t first, ahead;
} plans[] = {
    {64 << 10, 64 << 10}, /* the HTTP source's */
    {4096, 4096},
    {1024, 1},            /* the floor itself must never pass the header's end */
    {8, 1},
    {1 << 20, 0},         /* a local file's: doubling, no limit */
};

static void check_file(const char *path, unsigned *accepted, unsigned *refused) {
    size_t size;
    uint8_t *data = tu_read_file(path, &size);
    ck_assert_msg(data != NULL, "%s: cannot read", path);
    gguf_file *ref = NULL;
    gguf_error rerr;
    gguf_error_clear(&rerr);
    int want = gguf_file_open_memory(&ref, data, size, 0, 0, &rerr);
    for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
        recorder r;
        gguf_file *f = NULL;
        gguf_error err;
        gguf_error_clear(&err);
        int rc = open_recorded(&f, &r, data, size, plans[p].first, plans[p].ahead, &err);
        ck_assert_msg(rc == want, "%s, first %llu ahead %llu: %d (%s), from memory %d (%s)", path,
                      (unsigned long long)plans[p].first, (unsigned long long)plans[p].ahead,
                      rc, err.message, want, rerr.message);
        ck_assert_msg(!r.overlapped, "%s: a read did not continue the last one", path);
        ck_assert_msg(r.total <= size, "%s: read %llu bytes of %zu", path,
                      (unsigned long long)r.total, size);
        if (rc == 0) {
            uint64_t head = gguf_file_data_offset(f);
            uint64_t bound = plans[p].ahead ? head + plans[p].ahead : UINT64_MAX;
            if (bound < plans[p].first)
                bound = plans[p].first;
            ck_assert_msg(r.total <= bound,
                          "%s, first %llu ahead %llu: read %llu bytes for a header of %llu", path,
                          (unsigned long long)plans[p].first, (unsigned long long)plans[p].ahead,
                          (unsigned long long)r.total, (unsigned long long)head);
            ck_assert_uint_eq(head, gguf_file_data_offset(ref));
            ck_assert_uint_eq(gguf_kv_count(f), gguf_kv_count(ref));
            ck_assert_uint_eq(gguf_tensor_count(f), gguf_tensor_count(ref));
            uint32_t a, b;
            ck_assert_int_eq(gguf_crc_header(&a, f, NULL), 0);
            ck_assert_int_eq(gguf_crc_header(&b, ref, NULL), 0);
            ck_assert_uint_eq(a, b);
        } else {
            ck_assert_int_eq(err.code, rerr.code);
        }
        gguf_file_free(f);
    }
    if (want == 0)
        (*accepted)++;
    else
        (*refused)++;
    gguf_file_free(ref);
    free(data);
}

START_TEST(header_reads_stop_near_the_header) {
    unsigned accepted = 0, refused = 0;
    char **golden = tu_list_files(tu_src("golden"), ".gguf");
    for (char **p = golden; p && *p; p++)
        check_file(*p, &accepted, &refused);
    tu_free_list(golden);
    if (tu_have_corpus()) {
        char **files = tu_list_files(tu_corpus(""), ".gguf");
        for (char **p = files; p && *p; p++)
            check_file(*p, &accepted, &refused);
        tu_free_list(files);
    } else {
        printf("header_reads_stop_near_the_header: ../shared/corpus absent, golden files only\n");
    }
    printf("recorded reads: %u files accepted, %u refused, each under %zu read plans\n",
           accepted, refused, sizeof plans / sizeof plans[0]);
    ck_assert_uint_ge(accepted, 4);
}
END_TEST

/* the bytes a 64 KiB read-ahead fetches for a real vocabulary: the header and little more */
START_TEST(a_real_header_costs_little_more_than_itself) {
    if (!tu_have_corpus())
        return;
    static const char *names[] = {"models/tiny-llama-e256-Q4_K_M.gguf",
                                  "real/ggml-vocab-llama-bpe.gguf", "synth/tiny_llama.gguf"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t size;
        uint8_t *data = tu_read_file(tu_corpus(names[i]), &size);
        ck_assert(data != NULL);
        recorder r;
        gguf_file *f;
        ck_assert_int_eq(open_recorded(&f, &r, data, size, 64 << 10, 64 << 10, NULL), 0);
        printf("%s: header %llu bytes, read %llu in %u reads\n", names[i],
               (unsigned long long)gguf_file_data_offset(f), (unsigned long long)r.total,
               r.reads);
        ck_assert_uint_le(r.total, gguf_file_data_offset(f) + (64 << 10));
        gguf_file_free(f);
        free(data);
    }
}
END_TEST

/* ---- pipes and file descriptors ---- */

/* A pipe fed with the file by a child process; returns the read end. */
static int feed_pipe(const uint8_t *data, size_t size, pid_t *child) {
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        size_t at = 0;
        while (at < size) {
            ssize_t w = write(fds[1], data + at, size - at);
            if (w <= 0)
                _exit(1);
            at += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    *child = pid;
    return fds[0];
}

START_TEST(a_pipe_is_read_once_to_its_end) {
    const char *path = tu_have_corpus() ? tu_corpus("models/tiny-llama-e256-Q4_K_M.gguf")
                                        : tu_src("golden/types/all_types.gguf");
    size_t size;
    uint8_t *data = tu_read_file(path, &size);
    ck_assert(data != NULL);
    gguf_file *local;
    ck_assert_int_eq(gguf_file_open(&local, path, 0, NULL), 0);
    uint64_t head = gguf_file_data_offset(local);
    size_t last = gguf_tensor_count(local) - 1;
    gguf_tensor_info t;
    gguf_tensor_get(&t, local, last);

    /* all of it kept: every tensor reads as from the file */
    pid_t child;
    int fd = feed_pipe(data, size, &child);
    gguf_file *f;
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_fd(&f, fd, NULL, NULL, &err), 0);
    ck_assert_uint_eq(gguf_file_size(f), size);
    ck_assert_int_eq(gguf_file_is_remote(f), 0);
    uint32_t a, b;
    ck_assert_int_eq(gguf_crc_tensor(&a, f, last, NULL), 0);
    ck_assert_int_eq(gguf_crc_tensor(&b, local, last, NULL), 0);
    ck_assert_uint_eq(a, b);
    gguf_file_free(f);
    close(fd);
    waitpid(child, NULL, 0);

    /* only the header kept: the header reads, tensor bytes past what was kept do not */
    gguf_open_options opt = GGUF_OPEN_OPTIONS_INIT;
    opt.keep_bytes = head;
    fd = feed_pipe(data, size, &child);
    gguf_error_clear(&err);
    ck_assert_msg(gguf_file_open_fd(&f, fd, "the pipe", &opt, &err) == 0, "%s", err.message);
    ck_assert_uint_eq(gguf_file_size(f), size);
    ck_assert_uint_eq(gguf_kv_count(f), gguf_kv_count(local));
    uint8_t byte;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_tensor_read(&byte, f, last, 0, 1, &err), GGUF_EIO);
    ck_assert_msg(strstr(err.message, "not kept") != NULL, "%s", err.message);
    ck_assert_ptr_null(gguf_tensor_data(f, last));
    gguf_file_free(f);
    close(fd);
    waitpid(child, NULL, 0);

    /* kept bytes that end inside the header: refused, naming the pipe */
    opt.keep_bytes = head / 2 > 8 ? head / 2 : 8;
    fd = feed_pipe(data, size, &child);
    gguf_error_clear(&err);
    ck_assert_int_ne(gguf_file_open_fd(&f, fd, "the pipe", &opt, &err), 0);
    ck_assert_str_eq(err.path, "the pipe");
    close(fd);
    waitpid(child, NULL, 0);

    /* an empty pipe is an empty file */
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    close(fds[1]);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_fd(&f, fds[0], NULL, NULL, &err), GGUF_ETRUNC);
    ck_assert_str_eq(err.path, "standard input");
    close(fds[0]);
    gguf_file_free(local);
    free(data);
}
END_TEST

START_TEST(a_regular_file_descriptor_stays_the_callers) {
    const char *path = tu_src("golden/types/all_types.gguf");
    int fd = open(path, O_RDONLY);
    ck_assert(fd >= 0);
    gguf_file *f, *g;
    ck_assert_int_eq(gguf_file_open_fd(&f, fd, path, NULL, NULL), 0);
    ck_assert_int_eq(gguf_file_open(&g, path, 0, NULL), 0);
    ck_assert_uint_eq(gguf_file_size(f), gguf_file_size(g));
    ck_assert_ptr_nonnull(gguf_tensor_data(f, 0)); /* mapped, as a path is */
    gguf_file_free(f);
    gguf_file_free(g);
    ck_assert_int_ne(fcntl(fd, F_GETFD), -1); /* still open */
    close(fd);
    ck_assert_int_eq(gguf_file_open_fd(&f, -1, NULL, NULL, NULL), GGUF_EINVAL);
}
END_TEST

/* Every allocation of opening a pipe may fail: the call fails cleanly (ASan: no leak). */
START_TEST(pipe_allocation_failures) {
    size_t size;
    uint8_t *data = tu_read_file(tu_src("golden/types/all_types.gguf"), &size);
    ck_assert(data != NULL && size < 60000); /* fits in a pipe's buffer */
    for (long n = 1;; n++) {
        int fds[2];
        ck_assert_int_eq(pipe(fds), 0);
        ck_assert_int_eq(write(fds[1], data, size), (ssize_t)size);
        close(fds[1]);
        gguf_file *f = NULL;
        gguf_testing_fail_alloc_after(n);
        int rc = gguf_file_open_fd(&f, fds[0], NULL, NULL, NULL);
        gguf_testing_fail_alloc_after(0);
        close(fds[0]);
        if (rc == 0) {
            gguf_file_free(f);
            break;
        }
        ck_assert_int_eq(rc, GGUF_ENOMEM);
        ck_assert(n < 10000);
    }
    free(data);
}
END_TEST

/* ---- URLs: names, offline, header lines, refusals ---- */

START_TEST(url_names) {
    ck_assert_int_eq(gguf_path_is_url("http://host/x.gguf"), 1);
    ck_assert_int_eq(gguf_path_is_url("HTTPS://host/x.gguf"), 1);
    ck_assert_int_eq(gguf_path_is_url("ftp://host/x.gguf"), 0);
    ck_assert_int_eq(gguf_path_is_url("http:/host"), 0);
    ck_assert_int_eq(gguf_path_is_url("./http://x"), 0);
    ck_assert_int_eq(gguf_path_is_url(NULL), 0);
}
END_TEST

START_TEST(urls_offline_or_without_libcurl) {
    const char *url = "http://127.0.0.1:9/model.gguf";
    gguf_open_options opt = GGUF_OPEN_OPTIONS_INIT;
    opt.offline = 1;
    gguf_file *f = NULL;
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_file_open_ex(&f, url, &opt, &err);
    ck_assert_str_eq(err.path, url);
    if (!gguf_http_available()) {
        ck_assert_int_eq(rc, GGUF_EUNSUPPORTED);
        ck_assert_msg(strstr(err.message, "built without HTTP support") != NULL, "%s",
                      err.message);
        return;
    }
    ck_assert_int_eq(rc, GGUF_EIO);
    ck_assert_msg(strstr(err.message, "offline") != NULL, "%s", err.message);
    /* a header line that would smuggle another one in is refused before any request */
    const char *headers[] = {"X-Test: a\r\nEvil: b", NULL};
    gguf_open_options bad = GGUF_OPEN_OPTIONS_INIT;
    bad.headers = headers;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_open_ex(&f, url, &bad, &err), GGUF_EINVAL);
    ck_assert_str_eq(err.path, url);
}
END_TEST

START_TEST(a_url_is_never_written) {
    gguf_file *f;
    ck_assert_int_eq(gguf_file_open(&f, tu_src("golden/types/all_types.gguf"), 0, NULL), 0);
    ck_assert_int_eq(gguf_file_is_remote(f), 0);
    gguf_error err;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_save(f, "https://example.com/x.gguf", NULL, &err), GGUF_EINVAL);
    ck_assert_msg(strstr(err.message, "URL") != NULL, "%s", err.message);
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_update(f, "http://example.com/x.gguf", NULL, NULL, &err),
                     GGUF_EINVAL);
    int recovered = 1;
    gguf_error_clear(&err);
    ck_assert_int_eq(gguf_file_recover("http://example.com/x.gguf", &recovered, &err),
                     GGUF_EINVAL);
    ck_assert_int_eq(recovered, 0);
    int state = -1;
    ck_assert_int_eq(gguf_file_journal(&state, "http://example.com/x.gguf", NULL), 0);
    ck_assert_int_eq(state, GGUF_JOURNAL_NONE);
    gguf_file_free(f);
}
END_TEST

static Suite *source_suite(void) {
    Suite *s = suite_create("source");
    TCase *tr = tcase_create("reads");
    tcase_set_timeout(tr, 300);
    tcase_add_test(tr, header_reads_stop_near_the_header);
    tcase_add_test(tr, a_real_header_costs_little_more_than_itself);
    suite_add_tcase(s, tr);
    TCase *tp = tcase_create("descriptors");
    tcase_set_timeout(tp, 120);
    tcase_add_test(tp, a_pipe_is_read_once_to_its_end);
    tcase_add_test(tp, a_regular_file_descriptor_stays_the_callers);
    tcase_add_test(tp, pipe_allocation_failures);
    suite_add_tcase(s, tp);
    TCase *tu = tcase_create("urls");
    tcase_add_test(tu, url_names);
    tcase_add_test(tu, urls_offline_or_without_libcurl);
    tcase_add_test(tu, a_url_is_never_written);
    suite_add_tcase(s, tu);
    return s;
}

int main(void) {
    return tu_run_suite(source_suite());
}
