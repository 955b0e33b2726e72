/* gguf-catalog schema: the catalog's tables and views with their columns and types, each table
 * with a note on what its rows are. */
#include "catalog_commands.h"

#include <string.h>

static const char schema_usage[] =
    "usage: gguf-catalog [--db PATH] schema\n"
    "Prints the catalog's tables and views with their columns and types.\n"
    "  --db PATH          the catalog\n";

static const struct {
    const char *name, *what;
} table_notes[] = {
    {"files", "one row per file that reads as GGUF (missing_bytes > 0: cut short inside its "
              "tensor data, its header catalogued)"},
    {"kv", "one row per key of each file (file = files.id)"},
    {"array_items", "one row per element of each array of at most 1048576 scalars or strings "
                    "(file, position = kv's)"},
    {"tensors", "one row per tensor of each file (file = files.id)"},
    {"errors", "files the reader refused, with its message"},
    {"runs", "one row per index or prune run (files.changed_run, indexed_run, errors.run)"},
    {"file_types", "the names of llama.cpp's general.file_type ids"},
    {"models", "one row per model: a file, or a split set as one row (its first shard's, with "
               "the totals of its shards); partial: its files lack missing_bytes bytes"},
};

typedef struct schema_printer {
    char table[128];
    int any;
} schema_printer;

static int schema_row(size_t ncols, const char *const *names, const gguf_catalog_cell *cells,
                      void *user) {
    schema_printer *sp = user;
    (void)names;
    if (cells == NULL || ncols != 4)
        return 0;
    const char *table = cells[0].text ? cells[0].text : "";
    if (strcmp(table, sp->table) != 0) {
        snprintf(sp->table, sizeof sp->table, "%s", table);
        const char *what = "";
        for (size_t i = 0; i < sizeof table_notes / sizeof table_notes[0]; i++) {
            if (strcmp(table_notes[i].name, table) == 0)
                what = table_notes[i].what;
        }
        printf("%s%s (%s)%s%s\n", sp->any++ ? "\n" : "", table, cells[1].text ? cells[1].text : "",
               what[0] ? ": " : "", what);
    }
    const char *column = cells[2].text ? cells[2].text : "";
    const char *type = cells[3].text ? cells[3].text : "";
    int pad = type[0] == '\0' ? 0 : strlen(column) < 18 ? 18 - (int)strlen(column) : 1;
    printf("  %s%*s%s\n", column, pad, "", type);
    return ferror(stdout) != 0;
}

int catalog_cmd_schema(int argc, char **argv) {
    int status;
    if (catalog_plain_options(argc, argv, schema_usage, 0, &status) != 0)
        return status;
    gguf_catalog *cat = catalog_open(GGUF_CATALOG_OPEN_NOCREATE);
    if (cat == NULL)
        return CLI_BAD;
    schema_printer sp;
    memset(&sp, 0, sizeof sp);
    gguf_error err;
    gguf_error_clear(&err);
    const char *path = gguf_catalog_path(cat);
    int pg = strncmp(path, "postgresql://", 13) == 0 || strncmp(path, "postgres://", 11) == 0;
    int rc = pg ? gguf_catalog_query(cat,
                                "SELECT c.table_name, CASE t.table_type WHEN 'VIEW' THEN 'view'"
                                " ELSE 'table' END, c.column_name, upper(c.data_type)"
                                " FROM information_schema.columns c JOIN"
                                " information_schema.tables t USING (table_schema, table_name)"
                                " WHERE c.table_schema = current_schema() AND c.table_name IN"
                                " ('files', 'kv', 'array_items', 'tensors', 'errors', 'runs',"
                                " 'file_types', 'models') ORDER BY t.table_type = 'VIEW'"
                                " AND c.table_name <> 'array_items',"
                                " position(',' || c.table_name || ',' IN"
                                " ',files,kv,array_items,tensors,errors,runs,file_types,'),"
                                " c.table_name, c.ordinal_position",
                                schema_row, &sp, &err)
                : gguf_catalog_query(cat,
                                "SELECT m.name, m.type, p.name, p.type FROM sqlite_master m,"
                                " pragma_table_info(m.name) p WHERE m.type IN ('table', 'view')"
                                " AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
                                " ORDER BY m.type = 'view', coalesce(nullif(instr("
                                "',files,kv,array_items,tensors,errors,runs,file_types,', ',' || m.name || ','),"
                                " 0), 1000), m.name, p.cid",
                                schema_row, &sp, &err);
    gguf_catalog_close(cat);
    return rc != 0 ? catalog_fail(&err) : CLI_OK;
}
