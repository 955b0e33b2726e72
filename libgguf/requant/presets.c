/* The presets of llama.cpp's quantizer (its llama_ftype values, written as general.file_type):
 * their names as llama-quantize spells them, the type most of their tensors get, and parsing a
 * TYPE argument: a preset, a plain tensor type (meaning --pure), or COPY. */
#include "requant/requant.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct preset {
    const char *name;  /* as llama-quantize spells it */
    uint32_t dtype;    /* the default tensor type of the preset */
    const char *about;
} preset;

/* Indexed by llama_ftype (general.file_type). */
static const preset presets[GGUF_REQUANT_FTYPE_COUNT] = {
    [GGUF_REQUANT_F32] = {"F32", GGUF_DTYPE_F32, "32-bit floats"},
    [GGUF_REQUANT_F16] = {"F16", GGUF_DTYPE_F16, "16-bit floats"},
    [GGUF_REQUANT_Q4_0] = {"Q4_0", GGUF_DTYPE_Q4_0, "4.5 bits per weight"},
    [GGUF_REQUANT_Q4_1] = {"Q4_1", GGUF_DTYPE_Q4_1, "5.0 bits per weight"},
    [GGUF_REQUANT_Q8_0] = {"Q8_0", GGUF_DTYPE_Q8_0, "8.5 bits per weight"},
    [GGUF_REQUANT_Q5_0] = {"Q5_0", GGUF_DTYPE_Q5_0, "5.5 bits per weight"},
    [GGUF_REQUANT_Q5_1] = {"Q5_1", GGUF_DTYPE_Q5_1, "6.0 bits per weight"},
    [GGUF_REQUANT_Q2_K] = {"Q2_K", GGUF_DTYPE_Q2_K, "k-quant mixture around Q2_K"},
    [GGUF_REQUANT_Q3_K_S] = {"Q3_K_S", GGUF_DTYPE_Q3_K, "Q3_K everywhere but the output"},
    [GGUF_REQUANT_Q3_K_M] = {"Q3_K_M", GGUF_DTYPE_Q3_K, "Q3_K with attn_v, ffn_down at Q4_K/Q5_K"},
    [GGUF_REQUANT_Q3_K_L] = {"Q3_K_L", GGUF_DTYPE_Q3_K, "Q3_K with attn_v, ffn_down, attn_output at Q5_K"},
    [GGUF_REQUANT_Q4_K_S] = {"Q4_K_S", GGUF_DTYPE_Q4_K, "Q4_K with a few Q5_K layers"},
    [GGUF_REQUANT_Q4_K_M] = {"Q4_K_M", GGUF_DTYPE_Q4_K, "Q4_K with half of attn_v, ffn_down at Q6_K"},
    [GGUF_REQUANT_Q5_K_S] = {"Q5_K_S", GGUF_DTYPE_Q5_K, "Q5_K everywhere but the output"},
    [GGUF_REQUANT_Q5_K_M] = {"Q5_K_M", GGUF_DTYPE_Q5_K, "Q5_K with half of attn_v, ffn_down at Q6_K"},
    [GGUF_REQUANT_Q6_K] = {"Q6_K", GGUF_DTYPE_Q6_K, "6.56 bits per weight"},
    [GGUF_REQUANT_IQ2_XXS] = {"IQ2_XXS", GGUF_DTYPE_IQ2_XXS, "2.06 bpw (needs an imatrix)"},
    [GGUF_REQUANT_IQ2_XS] = {"IQ2_XS", GGUF_DTYPE_IQ2_XS, "2.31 bpw (needs an imatrix)"},
    [GGUF_REQUANT_Q2_K_S] = {"Q2_K_S", GGUF_DTYPE_Q2_K, "Q2_K mixture (needs an imatrix)"},
    [GGUF_REQUANT_IQ3_XS] = {"IQ3_XS", GGUF_DTYPE_IQ3_S, "3.3 bpw mixture"},
    [GGUF_REQUANT_IQ3_XXS] = {"IQ3_XXS", GGUF_DTYPE_IQ3_XXS, "3.06 bpw (needs an imatrix)"},
    [GGUF_REQUANT_IQ1_S] = {"IQ1_S", GGUF_DTYPE_IQ1_S, "1.56 bpw (needs an imatrix)"},
    [GGUF_REQUANT_IQ4_NL] = {"IQ4_NL", GGUF_DTYPE_IQ4_NL, "4.50 bpw non-linear"},
    [GGUF_REQUANT_IQ3_S] = {"IQ3_S", GGUF_DTYPE_IQ3_S, "3.44 bpw"},
    [GGUF_REQUANT_IQ3_M] = {"IQ3_M", GGUF_DTYPE_IQ3_S, "3.66 bpw mixture"},
    [GGUF_REQUANT_IQ2_S] = {"IQ2_S", GGUF_DTYPE_IQ2_XS, "2.5 bpw mixture (needs an imatrix)"},
    [GGUF_REQUANT_IQ2_M] = {"IQ2_M", GGUF_DTYPE_IQ2_S, "2.7 bpw mixture (needs an imatrix)"},
    [GGUF_REQUANT_IQ4_XS] = {"IQ4_XS", GGUF_DTYPE_IQ4_XS, "4.25 bpw non-linear"},
    [GGUF_REQUANT_IQ1_M] = {"IQ1_M", GGUF_DTYPE_IQ1_M, "1.75 bpw (needs an imatrix)"},
    [GGUF_REQUANT_BF16] = {"BF16", GGUF_DTYPE_BF16, "bfloat16"},
    [GGUF_REQUANT_TQ1_0] = {"TQ1_0", GGUF_DTYPE_TQ1_0, "1.69 bpw ternary"},
    [GGUF_REQUANT_TQ2_0] = {"TQ2_0", GGUF_DTYPE_TQ2_0, "2.06 bpw ternary"},
    [GGUF_REQUANT_MXFP4_MOE] = {"MXFP4_MOE", GGUF_DTYPE_MXFP4, "MXFP4 experts, Q8_0 elsewhere"},
    [GGUF_REQUANT_NVFP4] = {"NVFP4", GGUF_DTYPE_NVFP4, "NVFP4"},
    [GGUF_REQUANT_Q1_0] = {"Q1_0", GGUF_DTYPE_Q1_0, "1-bit"},
    [GGUF_REQUANT_Q2_0] = {"Q2_0", GGUF_DTYPE_Q2_0, "2-bit"},
};
_Static_assert(sizeof presets / sizeof presets[0] == GGUF_REQUANT_FTYPE_COUNT, "one per ftype");
_Static_assert(GGUF_REQUANT_FTYPE_COUNT <= 64, "presets are bits of a uint64_t");

/* The file type llama.cpp's loader guesses from a file's most common tensor type; it is also
 * the preset a plain type name stands for. 0 where there is none. */
static const uint8_t ftype_of_dtype[GGUF_DTYPE_COUNT] = {
    [GGUF_DTYPE_F32] = GGUF_REQUANT_F32, [GGUF_DTYPE_F16] = GGUF_REQUANT_F16,
    [GGUF_DTYPE_BF16] = GGUF_REQUANT_BF16, [GGUF_DTYPE_Q4_0] = GGUF_REQUANT_Q4_0,
    [GGUF_DTYPE_Q4_1] = GGUF_REQUANT_Q4_1, [GGUF_DTYPE_Q5_0] = GGUF_REQUANT_Q5_0,
    [GGUF_DTYPE_Q5_1] = GGUF_REQUANT_Q5_1, [GGUF_DTYPE_Q8_0] = GGUF_REQUANT_Q8_0,
    [GGUF_DTYPE_Q2_K] = GGUF_REQUANT_Q2_K, [GGUF_DTYPE_Q3_K] = GGUF_REQUANT_Q3_K_M,
    [GGUF_DTYPE_Q4_K] = GGUF_REQUANT_Q4_K_M, [GGUF_DTYPE_Q5_K] = GGUF_REQUANT_Q5_K_M,
    [GGUF_DTYPE_Q6_K] = GGUF_REQUANT_Q6_K, [GGUF_DTYPE_TQ1_0] = GGUF_REQUANT_TQ1_0,
    [GGUF_DTYPE_TQ2_0] = GGUF_REQUANT_TQ2_0, [GGUF_DTYPE_IQ2_XXS] = GGUF_REQUANT_IQ2_XXS,
    [GGUF_DTYPE_IQ2_XS] = GGUF_REQUANT_IQ2_XS, [GGUF_DTYPE_IQ2_S] = GGUF_REQUANT_IQ2_S,
    [GGUF_DTYPE_IQ3_XXS] = GGUF_REQUANT_IQ3_XXS, [GGUF_DTYPE_IQ1_S] = GGUF_REQUANT_IQ1_S,
    [GGUF_DTYPE_IQ1_M] = GGUF_REQUANT_IQ1_M, [GGUF_DTYPE_IQ4_NL] = GGUF_REQUANT_IQ4_NL,
    [GGUF_DTYPE_IQ4_XS] = GGUF_REQUANT_IQ4_XS, [GGUF_DTYPE_IQ3_S] = GGUF_REQUANT_IQ3_S,
    [GGUF_DTYPE_NVFP4] = GGUF_REQUANT_NVFP4, [GGUF_DTYPE_Q1_0] = GGUF_REQUANT_Q1_0,
    [GGUF_DTYPE_Q2_0] = GGUF_REQUANT_Q2_0,
};

const char *gguf_requant_ftype_name(uint32_t ftype) {
    return ftype < GGUF_REQUANT_FTYPE_COUNT ? presets[ftype].name : NULL;
}

int gguf_requant_ftype_dtype(uint32_t ftype) {
    return ftype < GGUF_REQUANT_FTYPE_COUNT && presets[ftype].name ? (int)presets[ftype].dtype
                                                                   : -1;
}

const char *gguf_requant_ftype_about(uint32_t ftype) {
    return ftype < GGUF_REQUANT_FTYPE_COUNT ? presets[ftype].about : NULL;
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
    if (name_eq_ci(name, "COPY")) {
        opt->ftype = GGUF_REQUANT_F32;
        opt->copy = 1;
        return 0;
    }
    for (uint32_t i = 0; i < GGUF_REQUANT_FTYPE_COUNT; i++) {
        if (presets[i].name && name_eq_ci(name, presets[i].name)) {
            opt->ftype = i;
            opt->copy = 0;
            return 0;
        }
    }
    /* a preset's number, as llama-quantize takes it ("15": Q4_K_M; "0": F32, not COPY) */
    if (isdigit((unsigned char)name[0]) && strspn(name, "0123456789") == strlen(name)) {
        unsigned long v = strlen(name) <= 3 ? strtoul(name, NULL, 10) : ULONG_MAX;
        if (v < GGUF_REQUANT_FTYPE_COUNT && presets[v].name) {
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
    return ftype < GGUF_REQUANT_FTYPE_COUNT && presets[ftype].name != NULL;
}

uint32_t gguf__requant_preset_dtype(uint32_t ftype) {
    return presets[ftype].dtype;
}

uint32_t gguf__requant_ftype_of_dtype(uint32_t dtype) {
    return dtype < GGUF_DTYPE_COUNT ? ftype_of_dtype[dtype] : 0;
}
