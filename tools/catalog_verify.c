/* gguf-catalog verify: re-read catalogued files and URLs and report those missing, changed or
 * corrupt against their stored crc32s. */
#include "catalog_commands.h"

#include <inttypes.h>

static const char verify_usage[] =
    "usage: gguf-catalog [--db PATH] verify [PATH...]\n"
    "Re-reads catalogued files (all, or those at or below PATH) and reports files that are\n"
    "missing, changed, or corrupt, naming each tensor whose crc32 no longer matches (for files\n"
    "indexed with --crc; the header's crc32 is checked for every file). Every shard of a split\n"
    "set is checked, and shards the catalog lacks are reported. URLs are fetched again (a\n"
    "changed ETag, date or size is a change). Exit 1 if any.\n"
    "  --db PATH          the catalog\n" CATALOG_URL_HELP;

static const char *problem_name(int problem) {
    switch (problem) {
    case GGUF_CATALOG_MISSING: return "missing";
    case GGUF_CATALOG_UNREADABLE: return "unreadable";
    case GGUF_CATALOG_CHANGED: return "changed";
    case GGUF_CATALOG_CORRUPT: return "corrupt";
    default: return "problem";
    }
}

static void on_finding(const gguf_catalog_finding *f, void *user) {
    (void)user;
    printf("%s: %s: %s\n", f->path, problem_name(f->problem), f->message);
}

int catalog_cmd_verify(int argc, char **argv) {
    static const struct option longopts[] = {
        CATALOG_COMMON_LONG_OPTIONS, CLI_OPEN_URL_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int c, status;
    while ((c = catalog_next_option(argc, argv, "h", longopts, verify_usage, NULL, &status)) !=
           -1) {
        if (c == CLI_DONE)
            return status;
        return cli_usage_error(verify_usage, NULL);
    }
    gguf_catalog *cat = catalog_open(GGUF_CATALOG_OPEN_NOCREATE);
    if (cat == NULL)
        return CLI_BAD;
    gguf_catalog_verify_stats st;
    gguf_error err;
    gguf_error_clear(&err);
    /* the URLs it may fetch are the catalog's: $HF_TOKEN goes to none of them */
    int rc = gguf_catalog_set_url_options(cat, cli_open_options("", 0), &err);
    if (rc == 0)
        rc = gguf_catalog_verify(&st, cat, (const char *const *)argv + optind,
                                 (size_t)(argc - optind), on_finding, NULL, &err);
    gguf_catalog_close(cat);
    if (rc != 0)
        return catalog_fail(&err);
    if (argc > optind && st.files == 0) {
        cli_errorf("no catalogued file at or below the given paths");
        return CLI_BAD;
    }
    uint64_t problems = st.missing + st.unreadable + st.changed + st.corrupt;
    printf("%" PRIu64 " file%s verified (%" PRIu64 " with tensor crc32s, %" PRIu64
           " tensor%s, %" PRIu64 " byte%s): %" PRIu64 " missing, %" PRIu64 " unreadable, %" PRIu64
           " changed, %" PRIu64 " corrupt\n",
           st.files, CLI_S(st.files), st.files_with_crc, st.tensors, CLI_S(st.tensors),
           st.bytes, CLI_S(st.bytes), st.missing, st.unreadable, st.changed, st.corrupt);
    return problems ? CLI_BAD : CLI_OK;
}
