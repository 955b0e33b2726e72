/* gguf-edit diff: what changed between two files. Keys added, removed and changed (for arrays,
 * the indices that differ with their old and new values); tensors added, removed, retyped or
 * reshaped (only what changed is shown), or with other bytes. With --values, tensors in both
 * files are dequantized and compared by the library (gguf_quant_compare: RMSE, max abs error,
 * relative error, cosine similarity): what a quantization cost. Tensor bytes are read with
 * pread in bounded chunks, never through a mapping, so a file that shrinks under diff is an
 * error, not a crash; names are looked up through the library's index. */
#include "cli.h"
#include "commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_BYTES (4u << 20)     /* byte comparison: read in pieces of this size */
#define DEFAULT_MAX_ELEMS 10

typedef struct diff_values {
    int quiet, json, values;
    uint64_t threads, max_elems;
} diff_values;

static const opt_spec options[] = {
    OPT_FLAG_("quiet", 'q', "only say whether the files differ", diff_values, quiet, 1),
    OPT_FLAG_("json", 0, "one JSON document", diff_values, json, 1),
    OPT_FLAG_("values", 0,
              "dequantize tensors in both files and compare their values: RMSE, max\n"
              "abs error, relative error (|A-B|/|A|), cosine similarity",
              diff_values, values, 1),
    OPT_COUNT_("threads", 0, "N", "threads for --values (default: 2)", diff_values, threads, 1,
               256),
    OPT_COUNT_("max-elems", 0, "N", "array elements listed per changed key (default 10; 0: all)",
               diff_values, max_elems, 0, UINT64_MAX),
    OPT_TEXT_("Exit status (as diff's): 0 no differences, 1 differences, 2 trouble."),
    {0}};

static int diff_run(int argc, char **argv);

const opt_command cmd_diff = {
    .name = "diff",
    .run = diff_run,
    .line = "diff A B                              metadata and tensor differences",
    .synopsis = "usage: gguf-edit diff A B [-q] [--json] [--values] [--threads N] [--max-elems N]\n",
    .summary =
    "Lists what differs: '-' only in A, '+' only in B, '~' changed (A's -> B's). Arrays show the\n"
    "indices that differ with both values; tensors what changed (type, shape, bytes).\n",
    .options = options,
    .groups = opt_open_groups,
};

typedef struct opts {
    int quiet, json, values;
    unsigned threads;
    uint64_t max_elems;
} opts;

typedef struct dctx {
    const char *path_a, *path_b;
    const gguf_file *a, *b;
    opts o;
    uint64_t n;     /* differences found */
    int trouble;    /* an error was printed */
    cli_json json;
    uint8_t *pa, *pb; /* byte comparison buffers */
    int headers_only; /* tensor bytes are not compared (a URL) */
} dctx;

/* ---- lookups: the library's index (a name with a NUL byte cannot use it) ---- */

static int64_t find_key(const gguf_file *f, const char *key, size_t len) {
    char buf[256];
    char *name = len < sizeof buf ? buf : malloc(len + 1);
    int64_t i = -1;
    if (name != NULL && memchr(key, '\0', len) == NULL) {
        memcpy(name, key, len);
        name[len] = '\0';
        i = gguf_kv_find(f, name);
    } else if (name != NULL) {
        for (size_t j = 0; j < gguf_kv_count(f) && i < 0; j++) {
            size_t n;
            const char *k = gguf_kv_key(f, j, &n);
            if (n == len && memcmp(k, key, len) == 0)
                i = (int64_t)j;
        }
    }
    if (name != buf)
        free(name);
    return i;
}

static int64_t find_tensor(const gguf_file *f, const char *s, size_t len) {
    char name[256];
    if (len < sizeof name && memchr(s, '\0', len) == NULL) {
        memcpy(name, s, len);
        name[len] = '\0';
        return gguf_tensor_find(f, name);
    }
    for (size_t j = 0; j < gguf_tensor_count(f); j++) {
        gguf_tensor_info t;
        gguf_tensor_get(&t, f, j);
        if (t.name_len == len && memcmp(t.name, s, len) == 0)
            return (int64_t)j;
    }
    return -1;
}

/* ---- output helpers ---- */

/* A list entry's object: on a line of its own, naming its subject (a key or a tensor) and
 * its change. */
static cli_json *entry_json(dctx *d, const char *subject, const char *name, size_t len,
                            const char *change) {
    cli_json *j = &d->json;
    cli_json_line(j);
    cli_json_object(j);
    cli_json_name(j, subject);
    cli_json_str(j, name, len);
    cli_json_member_str(j, "change", change);
    return j;
}

/* Opens the JSON list `name` (header, kv, tensors) of the document. */
static void list_begin(dctx *d, const char *name) {
    if (d->o.json) {
        cli_json_name(&d->json, name);
        cli_json_array(&d->json);
    }
}

static void type_text(FILE *out, const gguf_value *v) {
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY)
        fprintf(out, "%s[%" PRIu64 "]", cli_vtype_name(gguf_value_elem_type(v)), gguf_value_count(v));
    else
        fputs(cli_vtype_name(gguf_value_type(v)), out);
}

/* Member `side` ("a" or "b"): the value's type, and the value itself when with_value. */
static void json_value_info(cli_json *j, const char *side, const gguf_value *v, int with_value) {
    cli_json_name(j, side);
    cli_json_object(j);
    cli_json_member_str(j, "type", cli_vtype_name(gguf_value_type(v)));
    if (gguf_value_type(v) == GGUF_VTYPE_ARRAY) {
        cli_json_member_str(j, "elem_type", cli_vtype_name(gguf_value_elem_type(v)));
        cli_json_member_u64(j, "count", gguf_value_count(v));
    }
    if (with_value) {
        cli_json_name(j, "value");
        cli_json_gguf_value(j, v);
    }
    cli_json_end(j);
}

static void dims_text(FILE *out, const gguf_tensor_info *t) {
    putc('[', out);
    for (uint32_t d = 0; d < t->n_dims; d++)
        fprintf(out, "%s%" PRIu64, d ? ", " : "", t->dims[d]);
    putc(']', out);
}

/* Member `side` ("a" or "b"): the tensor's type and shape. */
static void tensor_json(cli_json *j, const char *side, const gguf_tensor_info *t) {
    char tb[32];
    cli_json_name(j, side);
    cli_json_object(j);
    cli_json_member_str(j, "type", cli_dtype_name(t->type, tb, sizeof tb));
    cli_json_name(j, "dims");
    cli_json_array(j);
    for (uint32_t d = 0; d < t->n_dims; d++)
        cli_json_u64(j, t->dims[d]);
    cli_json_end(j);
    cli_json_end(j);
}

/* ---- keys ---- */

/* Prints one key added or removed. */
static void key_one(dctx *d, char sign, const gguf_file *f, size_t i) {
    size_t len;
    const char *k = gguf_kv_key(f, i, &len);
    const gguf_value *v = gguf_kv_value(f, i);
    if (d->o.json) {
        cli_json *j = entry_json(d, "key", k, len, sign == '-' ? "removed" : "added");
        json_value_info(j, sign == '-' ? "a" : "b", v, gguf_value_type(v) != GGUF_VTYPE_ARRAY);
        cli_json_end(j);
        return;
    }
    printf("%c ", sign);
    cli_text_escape(stdout, k, len, 0);
    fputs(" [", stdout);
    type_text(stdout, v);
    fputs("] ", stdout);
    cli_text_value(stdout, v, DEFAULT_MAX_ELEMS);
    putchar('\n');
}

/* Two arrays of the same element type: the indices that differ. */
static void key_array_change(dctx *d, const char *k, size_t len, const gguf_value *va,
                             const gguf_value *vb) {
    uint64_t na = gguf_value_count(va), nb = gguf_value_count(vb);
    uint64_t common = na < nb ? na : nb, differing = 0, shown = 0;
    uint64_t max = d->o.max_elems;
    gguf_value_iter ia, ib;
    gguf_value ea, eb;
    gguf_value_iter_init(&ia, va);
    gguf_value_iter_init(&ib, vb);
    cli_json *j = &d->json;
    if (d->o.json) {
        entry_json(d, "key", k, len, "changed");
        json_value_info(j, "a", va, 0);
        json_value_info(j, "b", vb, 0);
        cli_json_name(j, "elements");
        cli_json_array(j);
    } else {
        fputs("~ ", stdout);
        cli_text_escape(stdout, k, len, 0);
        fputs(" [", stdout);
        type_text(stdout, va);
        if (na != nb) {
            fputs(" -> ", stdout);
            type_text(stdout, vb);
        }
        fputs("]\n", stdout);
    }
    for (uint64_t i = 0; i < common; i++) {
        if (!gguf_value_iter_next(&ia, &ea) || !gguf_value_iter_next(&ib, &eb))
            break;
        if (gguf_value_equal(&ea, &eb) == 1)
            continue;
        differing++;
        if (max != 0 && shown >= max)
            continue;
        if (d->o.json) {
            cli_json_object(j);
            cli_json_member_u64(j, "index", i);
            cli_json_name(j, "a");
            cli_json_gguf_value(j, &ea);
            cli_json_name(j, "b");
            cli_json_gguf_value(j, &eb);
            cli_json_end(j);
        } else {
            printf("    [%" PRIu64 "] ", i);
            cli_text_value(stdout, &ea, DEFAULT_MAX_ELEMS);
            fputs(" -> ", stdout);
            cli_text_value(stdout, &eb, DEFAULT_MAX_ELEMS);
            putchar('\n');
        }
        shown++;
    }
    /* the elements only one side has */
    gguf_value_iter *rest = na > nb ? &ia : &ib;
    gguf_value e;
    for (uint64_t i = common; i < (na > nb ? na : nb) && gguf_value_iter_next(rest, &e); i++) {
        if (max != 0 && shown >= max)
            break;
        if (d->o.json) {
            cli_json_object(j);
            cli_json_member_u64(j, "index", i);
            cli_json_name(j, na > nb ? "a" : "b");
            cli_json_gguf_value(j, &e);
            cli_json_end(j);
        } else {
            printf("    [%" PRIu64 "] %c ", i, na > nb ? '-' : '+');
            cli_text_value(stdout, &e, DEFAULT_MAX_ELEMS);
            putchar('\n');
        }
        shown++;
    }
    uint64_t extra = na > nb ? na - nb : nb - na;
    if (d->o.json) {
        cli_json_end(j);
        cli_json_member_u64(j, "differing", differing);
        cli_json_member_u64(j, na > nb ? "removed" : "added", extra);
        cli_json_member_u64(j, "shown", shown);
        cli_json_end(j);
        return;
    }
    if (differing + extra > shown) {
        fputs("    ...", stdout);
        if (differing)
            printf(" %" PRIu64 " of %" PRIu64 " elements differ", differing, common);
        if (extra)
            printf("%s%" PRIu64 " %s", differing ? ", " : " ", extra, na > nb ? "removed" : "added");
        printf(" (%" PRIu64 " shown; --max-elems N for more)\n", shown);
    }
}

static void key_change(dctx *d, const char *k, size_t len, const gguf_value *va,
                       const gguf_value *vb) {
    if (gguf_value_type(va) == GGUF_VTYPE_ARRAY && gguf_value_type(vb) == GGUF_VTYPE_ARRAY &&
        gguf_value_elem_type(va) == gguf_value_elem_type(vb)) {
        key_array_change(d, k, len, va, vb);
        return;
    }
    if (d->o.json) {
        cli_json *j = entry_json(d, "key", k, len, "changed");
        json_value_info(j, "a", va, gguf_value_type(va) != GGUF_VTYPE_ARRAY);
        json_value_info(j, "b", vb, gguf_value_type(vb) != GGUF_VTYPE_ARRAY);
        cli_json_end(j);
        return;
    }
    int same_type = gguf_value_type(va) == gguf_value_type(vb);
    fputs("~ ", stdout);
    cli_text_escape(stdout, k, len, 0);
    fputs(" [", stdout);
    type_text(stdout, va);
    fputs("] ", stdout);
    cli_text_value(stdout, va, DEFAULT_MAX_ELEMS);
    fputs(" -> ", stdout);
    if (!same_type) {
        putchar('[');
        type_text(stdout, vb);
        fputs("] ", stdout);
    }
    cli_text_value(stdout, vb, DEFAULT_MAX_ELEMS);
    putchar('\n');
}

static void diff_kv(dctx *d) {
    const gguf_file *a = d->a, *b = d->b;
    list_begin(d, "kv");
    for (size_t i = 0; i < gguf_kv_count(a); i++) {
        size_t len;
        const char *k = gguf_kv_key(a, i, &len);
        int64_t j = find_key(b, k, len);
        const gguf_value *va = gguf_kv_value(a, i);
        if (j < 0) {
            d->n++;
            if (!d->o.quiet)
                key_one(d, '-', a, i);
            continue;
        }
        const gguf_value *vb = gguf_kv_value(b, (size_t)j);
        if (gguf_value_equal(va, vb) == 1)
            continue;
        d->n++;
        if (!d->o.quiet)
            key_change(d, k, len, va, vb);
    }
    for (size_t j = 0; j < gguf_kv_count(b); j++) {
        size_t len;
        const char *k = gguf_kv_key(b, j, &len);
        if (find_key(a, k, len) >= 0)
            continue;
        d->n++;
        if (!d->o.quiet)
            key_one(d, '+', b, j);
    }
    if (d->o.json)
        cli_json_end(&d->json);
}

/* ---- tensor bytes, read with pread ---- */

/* Offset of the first byte where tensor ia of a and ib of b differ (same size), their size
 * when equal, or UINT64_MAX after an error (printed). */
static uint64_t first_difference(dctx *d, size_t ia, size_t ib, uint64_t nbytes) {
    if (d->pa == NULL) {
        d->pa = malloc(CHUNK_BYTES);
        d->pb = malloc(CHUNK_BYTES);
        if (d->pa == NULL || d->pb == NULL) {
            cli_errorf("out of memory");
            d->trouble = 1;
            return UINT64_MAX;
        }
    }
    uint8_t *pa = d->pa, *pb = d->pb;
    for (uint64_t at = 0; at < nbytes;) {
        size_t n = nbytes - at < CHUNK_BYTES ? (size_t)(nbytes - at) : CHUNK_BYTES;
        gguf_error err;
        gguf_error_clear(&err);
        if (gguf_tensor_read(pa, d->a, ia, at, n, &err) != 0) {
            cli_report(d->path_a, &err);
            d->trouble = 1;
            return UINT64_MAX;
        }
        if (gguf_tensor_read(pb, d->b, ib, at, n, &err) != 0) {
            cli_report(d->path_b, &err);
            d->trouble = 1;
            return UINT64_MAX;
        }
        if (memcmp(pa, pb, n) != 0) {
            size_t k = 0;
            while (pa[k] == pb[k])
                k++;
            return at + k;
        }
        at += n;
    }
    return nbytes;
}

/* ---- --values: the library compares the dequantized values on its thread pool ---- */

/* Compares the values of tensor ia of a and ib of b. Returns 0 and fills *out, 1 when they
 * do not compare (a type that cannot be dequantized, values that do not line up), -1 after
 * an error (printed). */
static int compare_values(dctx *d, size_t ia, size_t ib, gguf_quant_comparison *out) {
    gguf_error err;
    gguf_error_clear(&err);
    int rc = gguf_quant_compare(out, d->a, ia, d->b, ib, d->o.threads, &err);
    if (rc == GGUF_EUNSUPPORTED || rc == GGUF_EINVAL)
        return 1;
    if (rc != 0) {
        /* the library names the file, unless it was read from a pipe */
        cli_report(err.path[0] != '\0' || gguf_file_path(d->a) == NULL ? d->path_a : d->path_b,
                   &err);
        return -1;
    }
    return 0;
}

/* ---- tensors ---- */

typedef struct vsummary {
    gguf_quant_comparison all; /* over every tensor compared, equal ones included */
    uint64_t compared, differing, not_comparable;
    double worst_cos;
    char worst_cos_name[128];
    double worst_abs;
    char worst_abs_name[128];
} vsummary;

static void name_copy(char *dst, size_t size, const gguf_tensor_info *t) {
    size_t n = t->name_len < size - 1 ? t->name_len : size - 1;
    memcpy(dst, t->name, n);
    dst[n] = '\0';
}

static void print_values_text(const gguf_quant_comparison *s) {
    printf("rmse %.6g, max abs %.6g, rel %.6g, cos %.9f", s->rmse, s->max_abs, s->rel, s->cos);
}

static void print_values_json(cli_json *j, const gguf_quant_comparison *s) {
    cli_json_object(j);
    cli_json_member_u64(j, "elements", s->n);
    cli_json_name(j, "rmse");
    cli_json_double(j, s->rmse, 9);
    cli_json_name(j, "max_abs");
    cli_json_double(j, s->max_abs, 9);
    cli_json_name(j, "rel");
    cli_json_double(j, s->rel, 9);
    cli_json_name(j, "cos");
    cli_json_double(j, s->cos, 12);
    cli_json_end(j);
}

static void tensor_one(dctx *d, char sign, const gguf_tensor_info *t) {
    char tb[32];
    if (d->o.json) {
        const char *change = sign == '-' ? "removed" : "added";
        cli_json *j = entry_json(d, "name", t->name, t->name_len, change);
        tensor_json(j, sign == '-' ? "a" : "b", t);
        cli_json_end(j);
        return;
    }
    printf("%c tensor ", sign);
    cli_text_escape(stdout, t->name, t->name_len, 0);
    printf(" %s ", cli_dtype_name(t->type, tb, sizeof tb));
    dims_text(stdout, t);
    putchar('\n');
}

static int dims_equal(const gguf_tensor_info *x, const gguf_tensor_info *y) {
    if (x->n_dims != y->n_dims)
        return 0;
    for (int k = 0; k < GGUF_MAX_DIMS; k++) {
        if (x->dims[k] != y->dims[k])
            return 0;
    }
    return 1;
}

static uint64_t elements(const gguf_tensor_info *t) {
    uint64_t n = 1;
    for (uint32_t k = 0; k < t->n_dims; k++)
        n *= t->dims[k];
    return n;
}

/* One tensor in both files that differs: what changed, and its values' comparison. */
static void tensor_change(dctx *d, const gguf_tensor_info *x, const gguf_tensor_info *y,
                          uint64_t first_diff, const gguf_quant_comparison *vs,
                          int values_state) {
    char ta[32], tb[32];
    int retyped = x->type != y->type, reshaped = !dims_equal(x, y);
    if (d->o.json) {
        cli_json *j = entry_json(d, "name", x->name, x->name_len, "changed");
        tensor_json(j, "a", x);
        tensor_json(j, "b", y);
        if (!retyped && !reshaped)
            cli_json_member_u64(j, "first_difference", first_diff);
        if (values_state != 2)
            cli_json_name(j, "values");
        if (values_state == 0)
            print_values_json(j, vs);
        else if (values_state == 1)
            cli_json_null(j);
        cli_json_end(j);
        return;
    }
    fputs("~ tensor ", stdout);
    cli_text_escape(stdout, x->name, x->name_len, 0);
    fputs(":", stdout);
    const char *sep = " ";
    if (retyped) {
        printf("%stype %s -> %s", sep, cli_dtype_name(x->type, ta, sizeof ta),
               cli_dtype_name(y->type, tb, sizeof tb));
        sep = ", ";
    }
    if (reshaped) {
        printf("%sshape ", sep);
        dims_text(stdout, x);
        fputs(" -> ", stdout);
        dims_text(stdout, y);
        sep = ", ";
    }
    if (!retyped && !reshaped) {
        uint32_t block = gguf_dtype_block_bytes(x->type);
        printf("%sbytes differ from byte %" PRIu64 " of %" PRIu64, sep, first_diff, x->nbytes);
        if (block > 1)
            printf(" (%s %" PRIu64 ")",
                   gguf_dtype_block_elems(x->type) > 1 ? "block" : "element", first_diff / block);
        sep = ", ";
    }
    if (values_state == 0) {
        fputs(sep, stdout);
        print_values_text(vs);
    } else if (values_state == 1) {
        printf("%svalues not comparable", sep);
    }
    putchar('\n');
}

static void values_note(vsummary *v, const gguf_tensor_info *x, const gguf_quant_comparison *s) {
    gguf_quant_comparison_add(&v->all, s);
    v->compared++;
    double c = s->cos;
    if (v->compared == 1 || c < v->worst_cos) {
        v->worst_cos = c;
        name_copy(v->worst_cos_name, sizeof v->worst_cos_name, x);
    }
    if (v->compared == 1 || s->max_abs > v->worst_abs) {
        v->worst_abs = s->max_abs;
        name_copy(v->worst_abs_name, sizeof v->worst_abs_name, x);
    }
}

static void diff_tensors(dctx *d, vsummary *vsum) {
    const gguf_file *a = d->a, *b = d->b;
    list_begin(d, "tensors");
    for (size_t i = 0; i < gguf_tensor_count(a) && !d->trouble; i++) {
        gguf_tensor_info x, y;
        gguf_tensor_get(&x, a, i);
        int64_t j = find_tensor(b, x.name, x.name_len);
        if (j < 0) {
            d->n++;
            if (!d->o.quiet)
                tensor_one(d, '-', &x);
            continue;
        }
        gguf_tensor_get(&y, b, (size_t)j);
        int same_layout = x.type == y.type && dims_equal(&x, &y);
        uint64_t first = 0;
        if (same_layout) {
            if (x.nbytes == GGUF_NBYTES_UNKNOWN || y.nbytes == GGUF_NBYTES_UNKNOWN)
                continue; /* unknown type: sizes unknown, nothing to compare */
            if ((d->o.quiet && d->n > 0) || d->headers_only)
                continue; /* the answer is known, or the bytes are not read */
            first = first_difference(d, i, (size_t)j, x.nbytes);
            if (first == UINT64_MAX)
                break;
            if (first == x.nbytes) {
                if (d->o.values && gguf_quant_can_dequantize(x.type)) {
                    gguf_quant_comparison same = {.n = elements(&x), .cos = 1};
                    gguf_quant_comparison_add(&vsum->all, &same); /* no error, counted */
                    vsum->compared++;
                }
                continue;
            }
        }
        d->n++;
        if (d->o.quiet)
            continue;
        gguf_quant_comparison vs = {.cos = 1};
        int state = 2; /* 0 compared, 1 not comparable, 2 not asked */
        if (d->o.values) {
            state = compare_values(d, i, (size_t)j, &vs);
            if (state < 0) {
                d->trouble = 1;
                break;
            }
            if (state == 0) {
                values_note(vsum, &x, &vs);
                vsum->differing++;
            } else {
                vsum->not_comparable++;
            }
        }
        tensor_change(d, &x, &y, first, &vs, state);
    }
    for (size_t j = 0; j < gguf_tensor_count(b) && !d->trouble; j++) {
        gguf_tensor_info y;
        gguf_tensor_get(&y, b, j);
        if (find_tensor(a, y.name, y.name_len) >= 0)
            continue;
        d->n++;
        if (!d->o.quiet)
            tensor_one(d, '+', &y);
    }
    if (d->o.json)
        cli_json_end(&d->json);
}

static void header_diff(dctx *d) {
    const gguf_file *a = d->a, *b = d->b;
    list_begin(d, "header");
    struct {
        const char *field;
        uint64_t va, vb;
    } h[] = {{"version", gguf_file_version(a), gguf_file_version(b)},
             {"endian", gguf_file_endian(a), gguf_file_endian(b)},
             {"alignment", gguf_file_alignment(a), gguf_file_alignment(b)}};
    for (size_t k = 0; k < sizeof h / sizeof h[0]; k++) {
        if (h[k].va == h[k].vb)
            continue;
        d->n++;
        if (d->o.quiet)
            continue;
        int endian = k == 1;
        if (d->o.json) {
            cli_json *j = &d->json;
            cli_json_line(j);
            cli_json_object(j);
            cli_json_member_str(j, "field", h[k].field);
            if (endian) {
                cli_json_member_str(j, "a", h[k].va ? "big" : "little");
                cli_json_member_str(j, "b", h[k].vb ? "big" : "little");
            } else {
                cli_json_member_u64(j, "a", h[k].va);
                cli_json_member_u64(j, "b", h[k].vb);
            }
            cli_json_end(j);
        } else if (endian) {
            printf("~ byte order %s -> %s (tensor bytes compared as stored)\n",
                   h[k].va ? "big" : "little", h[k].vb ? "big" : "little");
        } else {
            printf("~ %s %" PRIu64 " -> %" PRIu64 "\n", h[k].field, h[k].va, h[k].vb);
        }
    }
    if (d->o.json)
        cli_json_end(&d->json);
}

/* The summary's "values": the comparison over every tensor in both files, and the worst. */
static void summary_values_json(cli_json *j, const vsummary *v) {
    cli_json_object(j);
    cli_json_member_u64(j, "compared", v->compared);
    cli_json_member_u64(j, "differing", v->differing);
    cli_json_member_u64(j, "not_comparable", v->not_comparable);
    cli_json_name(j, "all");
    print_values_json(j, &v->all);
    cli_json_name(j, "worst_cos");
    if (v->differing) {
        cli_json_object(j);
        cli_json_member_str(j, "tensor", v->worst_cos_name);
        cli_json_name(j, "cos");
        cli_json_double(j, v->worst_cos, 12);
        cli_json_end(j);
    } else {
        cli_json_null(j);
    }
    cli_json_end(j);
}

static int diff_run(int argc, char **argv) {
    unsigned flags = CLI_READ_FLAGS; /* a shard: the whole split set */
    diff_values v = {0, 0, 0, 2, DEFAULT_MAX_ELEMS};
    cli_stdout_status = 2; /* a write error is trouble, as diff's */
    int status = opt_parse(&cmd_diff, argc, argv, &v, &flags);
    if (status >= 0)
        return status;
    opts o = {v.quiet, v.json, v.values, (unsigned)v.threads, v.max_elems};
    if (cli_operands(argc, 2, cmd_diff.synopsis) != 0)
        return 2;
    if (o.quiet)
        o.json = o.values = 0;
    dctx d = {.path_a = argv[optind], .path_b = argv[optind + 1], .o = o};
    cli_json_init(&d.json, stdout, 0);
    gguf_file *a = cli_open(d.path_a, flags);
    gguf_file *b = a ? cli_open(d.path_b, flags) : NULL;
    if (b == NULL) {
        gguf_file_free(a);
        return 2;
    }
    d.a = a;
    d.b = b;
    /* a URL is read for its header only: its tensor bytes would be the whole download */
    d.headers_only = gguf_file_is_remote(a) || gguf_file_is_remote(b);
    if (d.headers_only)
        cli_errorf("note: tensor bytes are not compared with a URL (only the headers are read)");
    vsummary vsum;
    memset(&vsum, 0, sizeof vsum);
    vsum.all.cos = 1; /* the comparison of no elements */
    cli_json *j = &d.json;
    if (o.json) {
        cli_json_object(j);
        cli_json_member_str(j, "a", d.path_a);
        cli_json_member_str(j, "b", d.path_b);
    }
    header_diff(&d);
    diff_kv(&d);
    diff_tensors(&d, &vsum);
    free(d.pa);
    free(d.pb);
    if (o.json) {
        cli_json_line(j);
        cli_json_name(j, "summary");
        cli_json_object(j);
        cli_json_member_u64(j, "differences", d.n);
        if (d.trouble) {
            cli_json_member_bool(j, "error", 1);
        } else {
            cli_json_name(j, "values");
            if (o.values)
                summary_values_json(j, &vsum);
            else
                cli_json_null(j);
        }
        cli_json_end(j);
        cli_json_end(j);
        putchar('\n');
    } else if (o.quiet && d.n > 0 && !d.trouble) {
        printf("Files ");
        cli_text_escape(stdout, d.path_a, strlen(d.path_a), 0);
        printf(" and ");
        cli_text_escape(stdout, d.path_b, strlen(d.path_b), 0);
        printf(" differ\n");
    } else if (o.values && !d.trouble && vsum.compared > 0) {
        printf("= values: %" PRIu64 " tensors in both files, %" PRIu64 " with other values",
               vsum.compared, vsum.differing);
        if (vsum.not_comparable)
            printf(", %" PRIu64 " not comparable", vsum.not_comparable);
        printf("; over all %" PRIu64 " elements: ", vsum.all.n);
        print_values_text(&vsum.all);
        if (vsum.differing) {
            printf("; worst cos %.9f (", vsum.worst_cos);
            cli_text_escape(stdout, vsum.worst_cos_name, strlen(vsum.worst_cos_name), 0);
            printf("), largest error %.6g (", vsum.worst_abs);
            cli_text_escape(stdout, vsum.worst_abs_name, strlen(vsum.worst_abs_name), 0);
            putchar(')');
        }
        putchar('\n');
    }
    gguf_file_free(a);
    gguf_file_free(b);
    if (fflush(stdout) != 0 || d.trouble)
        return 2;
    return d.n > 0 ? 1 : 0;
}
