/* The presets of llama.cpp's quantizer (its llama_ftype values, written as general.file_type;
 * their names and default types are llama/llama_ftype.c's): what the help says of each, and
 * parsing a TYPE argument: a preset, a plain tensor type (meaning --pure), or COPY. */
#include "requant/requant.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* What requant's help says of each preset, by llama_ftype (general.file_type); the names and
 * default types are llama/'s table. */
static const char *const about[GGUF_REQUANT_FTYPE_COUNT] = {
    [GGUF_REQUANT_F32] = "32-bit floats",
    [GGUF_REQUANT_F16] = "16-bit floats",
    [GGUF_REQUANT_Q4_0] = "4.5 bits per weight",
    [GGUF_REQUANT_Q4_1] = "5.0 bits per weight",
    [GGUF_REQUANT_Q8_0] = "8.5 bits per weight",
    [GGUF_REQUANT_Q5_0] = "5.5 bits per weight",
    [GGUF_REQUANT_Q5_1] = "6.0 bits per weight",
    [GGUF_REQUANT_Q2_K] = "k-quant mixture around Q2_K",
    [GGUF_REQUANT_Q3_K_S] = "Q3_K everywhere but the output",
    [GGUF_REQUANT_Q3_K_M] = "Q3_K with attn_v, ffn_down at Q4_K/Q5_K",
    [GGUF_REQUANT_Q3_K_L] = "Q3_K with attn_v, ffn_down, attn_output at Q5_K",
    [GGUF_REQUANT_Q4_K_S] = "Q4_K with a few Q5_K layers",
    [GGUF_REQUANT_Q4_K_M] = "Q4_K with half of attn_v, ffn_down at Q6_K",
    [GGUF_REQUANT_Q5_K_S] = "Q5_K everywhere but the output",
    [GGUF_REQUANT_Q5_K_M] = "Q5_K with half of attn_v, ffn_down at Q6_K",
    [GGUF_REQUANT_Q6_K] = "6.56 bits per weight",
    [GGUF_REQUANT_IQ2_XXS] = "2.06 bpw (needs an imatrix)",
    [GGUF_REQUANT_IQ2_XS] = "2.31 bpw (needs an imatrix)",
    [GGUF_REQUANT_Q2_K_S] = "Q2_K mixture (needs an imatrix)",
    [GGUF_REQUANT_IQ3_XS] = "3.3 bpw mixture",
    [GGUF_REQUANT_IQ3_XXS] = "3.06 bpw (needs an imatrix)",
    [GGUF_REQUANT_IQ1_S] = "1.56 bpw (needs an imatrix)",
    [GGUF_REQUANT_IQ4_NL] = "4.50 bpw non-linear",
    [GGUF_REQUANT_IQ3_S] = "3.44 bpw",
    [GGUF_REQUANT_IQ3_M] = "3.66 bpw mixture",
    [GGUF_REQUANT_IQ2_S] = "2.5 bpw mixture (needs an imatrix)",
    [GGUF_REQUANT_IQ2_M] = "2.7 bpw mixture (needs an imatrix)",
    [GGUF_REQUANT_IQ4_XS] = "4.25 bpw non-linear",
    [GGUF_REQUANT_IQ1_M] = "1.75 bpw (needs an imatrix)",
    [GGUF_REQUANT_BF16] = "bfloat16",
    [GGUF_REQUANT_TQ1_0] = "1.69 bpw ternary",
    [GGUF_REQUANT_TQ2_0] = "2.06 bpw ternary",
    [GGUF_REQUANT_MXFP4_MOE] = "MXFP4 experts, Q8_0 elsewhere",
    [GGUF_REQUANT_NVFP4] = "NVFP4",
    [GGUF_REQUANT_Q1_0] = "1-bit",
    [GGUF_REQUANT_Q2_0] = "2-bit",
};
_Static_assert(GGUF_REQUANT_FTYPE_COUNT <= 64, "presets are bits of a uint64_t");

/* A preset: a file type llama_model_quantize can write (it has a default tensor type). */
static const gguf__llama_ftype *preset(uint32_t ftype) {
    const gguf__llama_ftype *row =
        ftype < GGUF_REQUANT_FTYPE_COUNT ? gguf__llama_ftype_find(ftype) : NULL;
    return row != NULL && row->dtype >= 0 ? row : NULL;
}

const char *gguf_requant_ftype_name(uint32_t ftype) {
    return preset(ftype) ? preset(ftype)->name : NULL;
}

int gguf_requant_ftype_dtype(uint32_t ftype) {
    return preset(ftype) ? preset(ftype)->dtype : -1;
}

const char *gguf_requant_ftype_about(uint32_t ftype) {
    return preset(ftype) ? about[ftype] : NULL;
}

static int name_eq_ci(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    }
    return *a == *b;
}

int gguf_requant_parse_type(gguf_requant_options *opt, const char *name, gguf_error *err) {
    if (opt == NULL || name == NULL)
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET, "no type given");
    /* the fields set below are the first ones: every size read covers them */
    gguf_requant_options o;
    int rc = GGUF__OPTIONS_READ(o, gguf_requant_options, GGUF_REQUANT_OPTIONS_INIT, opt, err);
    if (rc == 0 && opt->size < offsetof(gguf_requant_options, pure) + sizeof opt->pure)
        rc = gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                        "gguf_requant_options.size is %zu: too small for its preset", opt->size);
    if (rc != 0)
        return rc;
    if (name_eq_ci(name, "COPY")) {
        opt->ftype = GGUF_REQUANT_F32;
        opt->copy = 1;
        return 0;
    }
    for (uint32_t i = 0; i < GGUF_REQUANT_FTYPE_COUNT; i++) {
        if (preset(i) && name_eq_ci(name, preset(i)->name)) {
            opt->ftype = i;
            opt->copy = 0;
            return 0;
        }
    }
    /* a preset's number, as llama-quantize takes it ("15": Q4_K_M; "0": F32, not COPY) */
    if (isdigit((unsigned char)name[0]) && strspn(name, "0123456789") == strlen(name)) {
        unsigned long v = strlen(name) <= 3 ? strtoul(name, NULL, 10) : ULONG_MAX;
        if (v < GGUF_REQUANT_FTYPE_COUNT && preset((uint32_t)v)) {
            opt->ftype = (uint32_t)v;
            opt->copy = 0;
            return 0;
        }
        return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                          "%s is not the number of a preset", name);
    }
    /* llama-quantize's other names for three presets */
    static const struct {
        const char *name;
        uint32_t ftype;
    } aliases[] = {
        {.name = "Q3_K", .ftype = GGUF_REQUANT_Q3_K_M},
        {.name = "Q4_K", .ftype = GGUF_REQUANT_Q4_K_M},
        {.name = "Q5_K", .ftype = GGUF_REQUANT_Q5_K_M},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (name_eq_ci(name, aliases[i].name)) {
            opt->ftype = aliases[i].ftype;
            opt->copy = 0;
            return 0;
        }
    }
    int t = gguf_dtype_parse(name);
    return gguf__fail(err, GGUF_EINVAL, GGUF_ERROR_NO_OFFSET,
                      t >= 0 ? "'%s' is a tensor type, not a preset (no file type of llama.cpp's stores it)"
                             : "unknown type or preset '%s'",
                      name);
}

bool gguf__requant_preset_valid(uint32_t ftype) {
    return preset(ftype) != NULL;
}

uint32_t gguf__requant_preset_dtype(uint32_t ftype) {
    return (uint32_t)preset(ftype)->dtype;
}
