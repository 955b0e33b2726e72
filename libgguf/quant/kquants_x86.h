/* Template: the k-quants' x86 dequantizers at one vector width. kquants.c includes it once per
 * instruction set, after defining
 *   KX(name)     the name of a function for that set (name_avx2, name_avx512)
 *   KX_TARGET    its target attribute
 *   KX_VEC       the float vector that holds a broadcast scale, KX_SET1 the broadcast
 *   KX_MUL       y[0..15] = d * q for 16 signed bytes q (simd_x86.h's i8x16_mul_*)
 *   KX_MULSUB    y[0..15] = d * q - m (i8x16_mulsub_*)
 * The byte work is AVX2's in every set; a wider set converts and stores 16 floats at once.
 * Every output is d' * q or d' * q - m' with d', m' computed by the scalar expressions, the
 * product rounded before the subtraction: the vector code gives the scalar floats exactly.
 * Super-blocks whose f16 scales are Inf or NaN take the scalar path (quant.h explains why). */

KX_TARGET static void KX(dequant_q2_k)(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q2_K), dst += QK_K) {
        if (scales_special(b + 80)) {
            q2_k_dequant_block(dst, b);
            continue;
        }
        float d = gguf__half_to_float(gguf__ld16(b + 80));
        float dmin = gguf__half_to_float(gguf__ld16(b + 82));
        float *y = dst;
        int g = 0;
        for (int h = 0; h < 2; h++) {
            __m256i q = ld256(b + 16 + 32 * h);
            for (int s = 0; s < 4; s++, y += 32, g += 2) {
                __m256i v = q2_bits_avx2(q, s);
                KX_VEC d1 = KX_SET1(d * (float)(b[g] & 0xF));
                KX_VEC m1 = KX_SET1(dmin * (float)(b[g] >> 4));
                KX_VEC d2 = KX_SET1(d * (float)(b[g + 1] & 0xF));
                KX_VEC m2 = KX_SET1(dmin * (float)(b[g + 1] >> 4));
                KX_MULSUB(y, LO128(v), d1, m1);
                KX_MULSUB(y + 16, HI128(v), d2, m2);
            }
        }
    }
}

KX_TARGET static void KX(dequant_q3_k)(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q3_K), dst += QK_K) {
        if (gguf__half_special(gguf__ld16(b + 108))) {
            q3_k_dequant_block(dst, b);
            continue;
        }
        float dl[16];
        q3_k_group_scales(dl, b);
        __m256i hm = ld256(b);
        float *y = dst;
        int g = 0;
        for (int h = 0; h < 2; h++) {
            __m256i q = ld256(b + 32 + 32 * h);
            for (int s = 0; s < 4; s++, y += 32, g += 2) {
                __m256i v = q3_quants_avx2(q, hm, h, s);
                KX_MUL(y, LO128(v), KX_SET1(dl[g]));
                KX_MUL(y + 16, HI128(v), KX_SET1(dl[g + 1]));
            }
        }
    }
}

/* Q4_K and Q5_K: the 64 quants lo, hi of group pair k, each group's scale and min. */
KX_TARGET static inline void KX(k4_pair)(float *y, __m256i lo, __m256i hi, const float *dl,
                                        const float *ml, int k) {
    KX_VEC d1 = KX_SET1(dl[2 * k]), m1 = KX_SET1(ml[2 * k]);
    KX_VEC d2 = KX_SET1(dl[2 * k + 1]), m2 = KX_SET1(ml[2 * k + 1]);
    KX_MULSUB(y, LO128(lo), d1, m1);
    KX_MULSUB(y + 16, HI128(lo), d1, m1);
    KX_MULSUB(y + 32, LO128(hi), d2, m2);
    KX_MULSUB(y + 48, HI128(hi), d2, m2);
}

KX_TARGET static void KX(dequant_q4_k)(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    const __m256i nib = _mm256_set1_epi8(0x0F);
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q4_K), dst += QK_K) {
        if (scales_special(b)) {
            q4_k_dequant_block(dst, b);
            continue;
        }
        float dl[8], ml[8];
        k4_group_scales(dl, ml, b);
        for (int k = 0; k < 4; k++) {
            __m256i q = ld256(b + 16 + 32 * k);
            __m256i lo = _mm256_and_si256(q, nib);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), nib);
            KX(k4_pair)(dst + 64 * k, lo, hi, dl, ml, k);
        }
    }
}

KX_TARGET static void KX(dequant_q5_k)(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q5_K), dst += QK_K) {
        if (scales_special(b)) {
            q5_k_dequant_block(dst, b);
            continue;
        }
        float dl[8], ml[8];
        k4_group_scales(dl, ml, b);
        __m256i qh = ld256(b + 16);
        for (int k = 0; k < 4; k++) {
            __m256i lo, hi;
            q5_quants_avx2(&lo, &hi, ld256(b + 48 + 32 * k), qh, k);
            KX(k4_pair)(dst + 64 * k, lo, hi, dl, ml, k);
        }
    }
}

KX_TARGET static void KX(dequant_q6_k)(float *dst, const void *src, int64_t n) {
    const uint8_t *b = src;
    for (int64_t i = 0; i < n / QK_K; i++, b += GGUF__BLOCK_BYTES(Q6_K), dst += QK_K) {
        if (gguf__half_special(gguf__ld16(b + 208))) {
            q6_k_dequant_block(dst, b);
            continue;
        }
        float d = gguf__half_to_float(gguf__ld16(b + 208));
        const int8_t *sc = (const int8_t *)(b + 192);
        for (int h = 0; h < 2; h++) {
            __m256i q[4];
            q6_quants_avx2(q, b + 64 * h, b + 128 + 32 * h);
            for (int s = 0; s < 4; s++) {
                float *y = dst + 128 * h + 32 * s;
                KX_MUL(y, LO128(q[s]), KX_SET1(d * (float)sc[8 * h + 2 * s]));
                KX_MUL(y + 16, HI128(q[s]), KX_SET1(d * (float)sc[8 * h + 2 * s + 1]));
            }
        }
    }
}
