/* Template: the F16 and BF16 conversions' x86 loops at one vector width. fp16.c includes it
 * once per instruction set, after defining
 *   FX(name)      the name of a function for that set (name_avx2, name_avx512): the loops call
 *                 that set's steps of fp16.c, FX(f16_to_f32) and FX(bf16_to_f32) (FX_WIDEN
 *                 elements each), FX(f32_to_f16) and FX(f32_to_bf16) (FX_NARROW_F16 and
 *                 FX_NARROW_BF16 elements)
 *   FX_TARGET     its target attribute
 * Each loop runs whole steps and converts what is left one element at a time with the scalar
 * code; the widening loops first convert single elements up to a 64-byte boundary of dst. */

/* n 16-bit floats at p (bfloat16 when bf16, else IEEE halves) as floats at dst. */
FX_TARGET GGUF__ALWAYS_INLINE static inline void FX(widen)(float *dst, const uint8_t *p,
                                                           int64_t n, bool bf16) {
    int64_t i = 0;
    for (int64_t head = head_to_align64(dst, n); i < head; i++)
        dst[i] = widen_one(p + 2 * i, bf16);
    for (; i + FX_WIDEN <= n; i += FX_WIDEN) {
        if (bf16)
            FX(bf16_to_f32)(dst + i, p + 2 * i);
        else
            FX(f16_to_f32)(dst + i, p + 2 * i);
    }
    for (; i < n; i++)
        dst[i] = widen_one(p + 2 * i, bf16);
}

/* n floats at x as 16-bit floats at q (bfloat16 when bf16, else IEEE halves). */
FX_TARGET GGUF__ALWAYS_INLINE static inline void FX(narrow)(uint8_t *q, const float *x,
                                                            int64_t n, bool bf16) {
    const int64_t width = bf16 ? FX_NARROW_BF16 : FX_NARROW_F16;
    int64_t i = 0;
    for (; i + width <= n; i += width) {
        if (bf16)
            FX(f32_to_bf16)(q + 2 * i, x + i);
        else
            FX(f32_to_f16)(q + 2 * i, x + i);
    }
    for (; i < n; i++)
        gguf__st16(q + 2 * i, bf16 ? gguf__float_to_bf16(x[i]) : gguf__float_to_half(x[i]));
}

FX_TARGET static void FX(dequant_f16)(float *dst, const void *src, int64_t n) {
    FX(widen)(dst, src, n, false);
}

FX_TARGET static void FX(dequant_bf16)(float *dst, const void *src, int64_t n) {
    FX(widen)(dst, src, n, true);
}

FX_TARGET static void FX(quant_f16)(void *dst, const float *src, int64_t nrows,
                                   int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    FX(narrow)(dst, src, nrows * n_per_row, false);
}

FX_TARGET static void FX(quant_bf16)(void *dst, const float *src, int64_t nrows,
                                    int64_t n_per_row, const float *imatrix) {
    (void)imatrix;
    FX(narrow)(dst, src, nrows * n_per_row, true);
}
