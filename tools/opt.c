/* The option parser: getopt_long, --help and the option list, made from a command's table. */
#define _GNU_SOURCE /* open_memstream */
#include "opt.h"
#include "cli.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const endians[] = {"little", "big", NULL};

const opt_spec opt_open_read[] = {
    OPT_OPEN_("lenient", NULL, "accept duplicate keys and tensor names (to repair them)",
              CLI_OPT_LENIENT),
    {.kind = OPT_OPEN, .name = "endian", .arg = "ORDER",
     .help = "read the file as 'little' or 'big' endian instead of detecting it",
     .value = CLI_OPT_ENDIAN, .choices = endians},
    OPT_OPEN_("unknown-types", NULL,
              "accept tensor types this tool does not know (passed through as is)",
              CLI_OPT_UNKNOWN_TYPES),
    OPT_OPEN_("no-mmap", NULL, "read the file into memory instead of mapping it",
              CLI_OPT_NO_MMAP),
    {0}};

const opt_spec opt_open_one_file[] = {
    OPT_OPEN_("one-file", NULL, "a shard of a split set: read this file alone, not the whole set",
              CLI_OPT_ONE_FILE),
    {0}};

const opt_spec opt_open_url[] = {
    OPT_TEXT_("FILE may be '-' (standard input) or an http:// or https:// URL (read with range "
              "requests):"),
    OPT_OPEN_("header", "'NAME: VALUE'",
              "send this header to the URL's host (repeatable; not to another\n"
              "host a redirect leads to), e.g.\n"
              "'Authorization: Bearer TOKEN' for a gated model; also taken from\n"
              "$GGUF_HTTP_HEADER, and $HF_TOKEN for huggingface.co URLs",
              CLI_OPT_HEADER),
    OPT_OPEN_("offline", NULL, "never touch the network (a URL is refused)", CLI_OPT_OFFLINE),
    OPT_URL_TIMEOUT_RETRIES_,
    OPT_OPEN_("deadline", "SECS",
              "give up one read (the open, each later read) after SECS in all,\n"
              "retries included (default 300)",
              CLI_OPT_DEADLINE),
    OPT_URL_WHOLE_LIMIT_,
    {0}};

const opt_spec *const opt_open_groups[] = {opt_open_read, opt_open_one_file, opt_open_url, NULL};

/* ---- sizes and counts ---- */

int opt_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cli_verb_verror(fmt, ap);
    va_end(ap);
    return -1;
}

/* Decimal digits after blanks and a '+' (as strtoull reads them), or a '-' with only zeros
 * ("-0": strtol's zero); *neg says a minus came before a number other than 0. Returns where
 * the digits end, or NULL when there are none or they overflow. */
static const char *digits(uint64_t *out, int *neg, const char *s) {
    while (isspace((unsigned char)*s))
        s++;
    *neg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    if (*s < '0' || *s > '9')
        return NULL;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return NULL;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *neg = *neg && v != 0;
    *out = v;
    return s;
}

static int out_of_range(const char *name, const char *what, uint64_t min, uint64_t max,
                        const char *text) {
    if (max == UINT64_MAX && min == 0)
        return opt_error("%s takes %s, not '%s'", name, what, text);
    if (max == UINT64_MAX)
        return opt_error("%s takes %s of at least %" PRIu64 ", not '%s'", name, what, min, text);
    return opt_error("%s takes %s from %" PRIu64 " to %" PRIu64 ", not '%s'", name, what, min,
                     max, text);
}

int opt_parse_count(uint64_t *out, const char *text, const char *name, uint64_t min,
                    uint64_t max, const char *what) {
    uint64_t v = 0;
    int neg = 0;
    const char *end = digits(&v, &neg, text);
    if (end == NULL || *end != '\0' || neg || v < min || v > max)
        return out_of_range(name, what != NULL ? what : "a number", min, max, text);
    *out = v;
    return 0;
}

int opt_parse_size(uint64_t *out, const char *text, const char *name, uint64_t min,
                   uint64_t max, unsigned size_flags) {
    int decimal = (size_flags & OPT_SIZE_DECIMAL) != 0;
    uint64_t v = 0, unit = 1;
    int neg = 0, is_real = 0;
    double real = 0;
    const char *end = digits(&v, &neg, text);
    if (!decimal && (end == NULL || (*end != '\0' && strchr(".eExX", *end) != NULL))) {
        /* a fraction, an exponent or hex: the number as strtod reads it */
        char *e;
        errno = 0;
        real = strtod(text, &e);
        end = e != text && errno == 0 && real >= 0 ? e : NULL; /* NaN is not >= 0 */
        is_real = 1;
        neg = 0;
    }
    if (end != NULL && decimal) {
        unit = *end == 'M' ? 1000000 : *end == 'G' ? 1000000000 : 0;
        end += unit != 0;
    } else if (end != NULL && *end != '\0') {
        const char *units = "KMGT", *u = strchr(units, toupper((unsigned char)*end));
        for (const char *p = units; u != NULL && p <= u; p++)
            unit *= 1024;
        if (u != NULL && *++end != '\0' && toupper((unsigned char)*end) == 'I')
            end++;
        if (u != NULL && *end != '\0' && toupper((unsigned char)*end) == 'B')
            end++;
    }
    real = real * (double)unit + 0.5; /* rounded to the nearest byte */
    if (end == NULL || *end != '\0' || neg || unit == 0 ||
        (is_real ? real >= 18446744073709551616.0 : v > UINT64_MAX / unit)) {
        if (decimal)
            return opt_error("%s takes N followed by M (megabytes) or G (gigabytes), like 500M "
                             "or 4G, not '%s'", name, text);
        return opt_error("%s takes a size: bytes, or a number with K, M, G or T (powers of "
                         "1024), not '%s'", name, text);
    }
    v = is_real ? (uint64_t)real : v * unit;
    if (v < min || v > max)
        return out_of_range(name, "a size in bytes", min, max, text);
    *out = v;
    return 0;
}

/* ---- the table ---- */

/* Every option of a command, its own first, then its groups', in --help's order, then the
 * foreign ones; group[i]: 0 for its own, else which group (from 1). */
#define MAX_OPTIONS 128
typedef struct flat {
    const opt_spec *o[MAX_OPTIONS];
    int group[MAX_OPTIONS];
    int foreign[MAX_OPTIONS];
    size_t n;
} flat;

static void add_group(flat *f, const opt_spec *g, int group, int foreign) {
    for (const opt_spec *o = g; o != NULL && o->kind != OPT_END; o++) {
        assert(f->n < MAX_OPTIONS); /* the tables are ours */
        f->o[f->n] = o;
        f->group[f->n] = group;
        f->foreign[f->n++] = foreign;
    }
}

static void flatten(flat *f, const opt_command *c) {
    f->n = 0;
    add_group(f, c->options, 0, 0);
    for (size_t g = 0; c->groups != NULL && c->groups[g] != NULL; g++)
        add_group(f, c->groups[g], (int)g + 1, 0);
    for (size_t g = 0; c->foreign != NULL && c->foreign[g] != NULL; g++)
        add_group(f, c->foreign[g], -1, 1);
}

/* getopt_long's value for option i: its letter, an open option's CLI_OPT_*, else past both. */
#define OPT_ID_BASE 0x1000
static int option_id(const opt_spec *o, size_t i) {
    if (o->letter != 0)
        return o->letter;
    return o->kind == OPT_OPEN ? o->value : OPT_ID_BASE + (int)i;
}

/* "-o, --output OUT"; a choice's values ("--endian big|little") in lists, and in --help when
 * it names no argument */
static void print_lead(FILE *out, const opt_spec *o, int listing) {
    if (o->letter != 0)
        fprintf(out, "-%c, ", o->letter);
    fprintf(out, "--%s", o->name);
    if (o->choices != NULL && (listing || o->arg == NULL)) {
        for (size_t k = 0; o->choices[k] != NULL; k++)
            fprintf(out, "%c%s", k == 0 ? ' ' : '|', o->choices[k]);
    } else if (o->arg != NULL) {
        fprintf(out, " %s", o->arg);
    }
}

/* The widest line of --help. */
#define HELP_WIDTH 92

void opt_help(FILE *out, const opt_command *c) {
    flat f;
    flatten(&f, c);
    fputs(c->synopsis, out);
    if (c->summary != NULL)
        fputs(c->summary, out);
    int column = c->column > 0 ? c->column : OPT_HELP_COLUMN;
    for (size_t i = 0; i < f.n; i++) {
        const opt_spec *o = f.o[i];
        if (i > 0 && f.group[i] != f.group[i - 1])
            column = OPT_HELP_COLUMN;
        if (o->help == NULL || f.foreign[i])
            continue;
        if (o->kind == OPT_TEXT) {
            fprintf(out, "%s\n", o->help);
            if (o->value > 0)
                column = o->value;
            continue;
        }
        char *lead = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&lead, &len);
        if (m == NULL)
            return;
        fputs("  ", m);
        print_lead(m, o, 0);
        fclose(m);
        /* the help from the column, or two blanks after a longer lead, or on the next line
         * when that would pass the width */
        int pad = column - (int)len < 2 ? 2 : column - (int)len;
        if ((int)len + 2 > column && (int)len + pad + (int)strcspn(o->help, "\n") > HELP_WIDTH)
            fprintf(out, "%s\n%*s", lead, column, "");
        else
            fprintf(out, "%s%*s", lead, pad, "");
        free(lead);
        for (const char *h = o->help; *h != '\0';) {
            size_t n = strcspn(h, "\n");
            fwrite(h, 1, n, out);
            putc('\n', out);
            h += n;
            if (*h == '\n' && *++h != '\0')
                fprintf(out, "%*s", column, "");
        }
    }
}

void opt_list(FILE *out, const opt_command *c) {
    flat f;
    flatten(&f, c);
    for (size_t i = 0; i < f.n; i++) {
        if (f.o[i]->kind != OPT_TEXT && f.o[i]->help != NULL && !f.foreign[i]) {
            print_lead(out, f.o[i], 1);
            putc('\n', out);
        }
    }
}

/* One option's value into values; -1 after printing why. */
static int take(const opt_spec *o, const char *arg, void *values) {
    /* values is NULL for a table of handlers and open options only */
    char *at = values != NULL ? (char *)values + o->at : NULL;
    char name[80];
    snprintf(name, sizeof name, "--%s", o->name);
    switch (o->kind) {
    case OPT_FLAG: memcpy(at, &o->value, sizeof o->value); return 0;
    case OPT_STRING: memcpy(at, &arg, sizeof arg); return 0;
    case OPT_SIZE: {
        uint64_t v;
        if (opt_parse_size(&v, arg, name, o->min, o->max, o->size_flags) != 0)
            return -1;
        memcpy(at, &v, sizeof v);
        return 0;
    }
    case OPT_COUNT: {
        uint64_t v;
        if (opt_parse_count(&v, arg, name, o->min, o->max, o->what) != 0)
            return -1;
        memcpy(at, &v, sizeof v);
        return 0;
    }
    case OPT_CHOICE:
        for (int k = 0; o->choices[k] != NULL; k++) {
            if (strcmp(arg, o->choices[k]) == 0) {
                memcpy(at, &k, sizeof k);
                return 0;
            }
        }
        {
            char list[160] = "";
            size_t n = 0;
            for (size_t k = 0; o->choices[k] != NULL; k++) {
                n = strlen(list);
                snprintf(list + n, sizeof list - n, "%s'%s'",
                         k == 0 ? "" : o->choices[k + 1] == NULL ? " or " : ", ", o->choices[k]);
            }
            return opt_error("%s takes %s, not '%s'", name, list, arg);
        }
    case OPT_HANDLER: return o->handler(o, arg, values);
    default: return 0;
    }
}

static int parse_argc;
static char **parse_argv;

const char *opt_take_next(void) {
    return optind < parse_argc ? parse_argv[optind++] : NULL;
}

int opt_parse(const opt_command *c, int argc, char **argv, void *values, unsigned *flags) {
    unsigned no_flags = 0;
    if (flags == NULL)
        flags = &no_flags;
    flat f;
    flatten(&f, c);
    struct option longopts[MAX_OPTIONS + 2];
    char shortopts[2 * MAX_OPTIONS + 3] = "+h";
    size_t n = 0, s = 2;
    for (size_t i = 0; i < f.n; i++) {
        const opt_spec *o = f.o[i];
        if (o->kind == OPT_TEXT)
            continue;
        int has_arg = o->arg != NULL || o->kind == OPT_CHOICE ? required_argument : no_argument;
        longopts[n++] = (struct option){o->name, has_arg, NULL, option_id(o, i)};
        if (o->letter != 0) {
            shortopts[s++] = (char)o->letter;
            if (has_arg)
                shortopts[s++] = ':';
        }
    }
    longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    shortopts[s] = '\0';
    char *help = NULL;
    size_t help_len = 0;
    FILE *m = open_memstream(&help, &help_len);
    if (m == NULL) {
        cli_errorf("out of memory");
        return CLI_BAD;
    }
    opt_help(m, c);
    if (fclose(m) != 0) {
        cli_errorf("out of memory");
        return CLI_BAD;
    }
    int status = -1, opt;
    parse_argc = argc;
    parse_argv = argv;
    const char *order = c->options_first ? shortopts : shortopts + 1;
    while ((opt = cli_getopt(argc, argv, order, longopts, help, flags, &status)) >= 0) {
        const opt_spec *o = NULL;
        int foreign = 0;
        for (size_t i = 0; o == NULL && i < f.n; i++) {
            if (f.o[i]->kind != OPT_TEXT && option_id(f.o[i], i) == opt) {
                o = f.o[i];
                foreign = f.foreign[i];
            }
        }
        int rc = o == NULL ? 0 : foreign ? c->refuse(c, o) : take(o, optarg, values);
        if (rc > 0) { /* the option did all there was to do */
            status = CLI_OK;
            break;
        }
        if (rc != 0) {
            cli_usage_error(help, NULL);
            status = CLI_USAGE;
            break;
        }
    }
    free(help);
    return opt == -1 ? -1 : status;
}
