/* The kernel table behind gguf_quant_*: private to libgguf/quant/.
 *
 * Every tensor type the library can convert has one gguf__quant_kernels entry, defined by
 * the file of its family (fp16.c, legacy.c, kquants.c, iquants.c, iq4.c, ternary.c, fp4.c,
 * lowbit.c; quant.c for the plain types) under the name gguf__kernels_<type>, and listed by
 * quant.c in its table. search.c holds the scale searches the legacy and k-quants share;
 * simd_x86.h small x86 helpers.
 *
 * Contract of the kernels:
 *  - dequant(dst, src, n): n elements (a multiple of the block size, n >= 0) from n / block
 *    blocks at src into dst. src may be unaligned (read it with memcpy or byte loads).
 *  - quant(dst, src, nrows, n_per_row, imatrix): nrows rows of n_per_row floats (n_per_row a
 *    multiple of the block size) into nrows * row_size bytes, exactly as ggml_quantize_chunk
 *    (start = 0) writes them for the same imatrix (NULL or n_per_row weights). dst may be
 *    unaligned. NULL when the type cannot be quantized.
 *  - Arguments are checked by quant.c before a kernel runs; kernels never fail, never
 *    allocate and never print. Scratch space lives on the stack (a block's worth).
 *  - The scalar functions are the definition. The SIMD entries (NULL when absent) must write
 *    exactly the same bytes/floats for every input, NaN and Inf included; quant.c calls the
 *    best one the CPU supports at or below the selected level, else the scalar one. Where two
 *    NaNs can meet in one operation, the result's payload depends on the compiler's operand
 *    order, so SIMD code hands such blocks to the scalar code (gguf__half_special,
 *    gguf__all_finite). For the same reason ggml's own builds (-O2, -O3) disagree with each
 *    other on inputs holding NaNs with payloads; our bytes match ggml's on inputs without
 *    NaN (Inf included), and in our tests on inputs holding the default quiet NaN too.
 *  - The arithmetic must follow ggml's operation order: these files are compiled with
 *    -ffp-contract=off and without -ffast-math. SIMD code (compiled for targets with FMA)
 *    also guards its products with GGUF__ROUNDED and calls scalar fallbacks through
 *    GGUF__NOINLINE functions, so that it stays exact even if that flag is forgotten.
 */
#ifndef LIBGGUF_QUANT_QUANT_H
#define LIBGGUF_QUANT_QUANT_H

#include "base/base.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* SIMD levels, in increasing order (x86-64; other machines only have SCALAR). */
enum gguf__simd {
    GGUF__SIMD_SCALAR = 0,
    GGUF__SIMD_SSE41 = 1,  /* SSE4.1 */
    GGUF__SIMD_AVX2 = 2,   /* AVX2 + F16C */
    GGUF__SIMD_AVX512 = 3, /* AVX-512 F + BW + VL */
    GGUF__SIMD_COUNT = 4
};

/* Keeps the compiler from fusing the rounding of v with a following addition into an FMA,
 * whatever -ffp-contract says (AVX-512 targets imply FMA). Use it on products that are then
 * added in code compiled for SIMD targets, and in helpers that such code inlines. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GGUF__ROUNDED(v) __asm__("" : "+x"(v))
#define GGUF__ROUNDED512(v) __asm__("" : "+v"(v))
#elif defined(__GNUC__) && defined(__aarch64__)
#define GGUF__ROUNDED(v) __asm__("" : "+w"(v))
#else
#define GGUF__ROUNDED(v) ((void)0)
#endif

#if defined(__GNUC__)
#define GGUF__NOINLINE __attribute__((noinline))
/* For a loop body written once for several cases and called with a constant that picks one:
 * inlined, each caller gets its own loop without the test. */
#define GGUF__ALWAYS_INLINE __attribute__((always_inline))
#else
#define GGUF__NOINLINE
#define GGUF__ALWAYS_INLINE
#endif

typedef void (*gguf__dequant_fn)(float *dst, const void *src, int64_t n);
typedef void (*gguf__quant_fn)(void *dst, const float *src, int64_t nrows, int64_t n_per_row,
                               const float *imatrix);

typedef struct gguf__quant_kernels {
    gguf__dequant_fn dequant;                      /* scalar; never NULL */
    gguf__quant_fn quant;                          /* scalar; NULL: cannot quantize */
    bool needs_imatrix;                            /* quant refuses imatrix == NULL */
    gguf__dequant_fn dequant_simd[GGUF__SIMD_COUNT]; /* [level]; [0] unused; NULL: none */
    gguf__quant_fn quant_simd[GGUF__SIMD_COUNT];     /* [level]; [0] unused; NULL: none */
} gguf__quant_kernels;

/* x86-64 target attributes for the SIMD variants (no -m flags needed on the command line).
 * Other machines, 32-bit x86 included, use the scalar code; so does a build with
 * -DGGUF_QUANT_NO_SIMD. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(GGUF_QUANT_NO_SIMD)
#define GGUF__X86 1
#define GGUF__TARGET_SSE41 __attribute__((target("sse4.1")))
#define GGUF__TARGET_AVX2 __attribute__((target("avx2,f16c")))
#define GGUF__TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
#else
#define GGUF__X86 0
#endif

/* ---- the entries, one per type (defined in the family files) ---- */

/* quant.c: F32 (copy), I8, I16, I32, I64, F64 (dequantize by value) */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_f32;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_i8;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_i16;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_i32;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_i64;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_f64;
/* fp16.c */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_f16;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_bf16;
/* legacy.c */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q4_0;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q4_1;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q5_0;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q5_1;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q8_0;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q8_1;
/* kquants.c */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q2_k;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q3_k;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q4_k;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q5_k;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q6_k;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q8_k;
/* iquants.c */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq2_xxs;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq2_xs;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq3_xxs;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq1_s;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq4_nl;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq3_s;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq2_s;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq4_xs;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_iq1_m;
/* ternary.c */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_tq1_0;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_tq2_0;
/* fp4.c */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_mxfp4;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_nvfp4;
/* lowbit.c */
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q1_0;
GGUF_HIDDEN extern const gguf__quant_kernels gguf__kernels_q2_0;

/* ---- shared helpers ---- */

/* Bit casts. */
static inline uint32_t gguf__f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float gguf__f32_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Little-endian loads and stores at any alignment (tensor data is little-endian). */
static inline uint16_t gguf__ld16(const uint8_t *p) {
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}
static inline uint32_t gguf__ld32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void gguf__st16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void gguf__st32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* IEEE half -> float, exact for every input (subnormals, Inf, NaN payloads), computed with
 * float arithmetic the way ggml's portable conversion does it. */
static inline float gguf__half_to_float(uint16_t h) {
    uint32_t w = (uint32_t)h << 16;
    uint32_t sign = w & 0x80000000u;
    uint32_t twice = w + w; /* sign shifted out */
    float normal = gguf__f32_from_bits((twice >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
    float subnormal = gguf__f32_from_bits((twice >> 17) | (126u << 23)) - 0.5f;
    uint32_t mag = twice < (1u << 27) ? gguf__f32_bits(subnormal) : gguf__f32_bits(normal);
    return gguf__f32_from_bits(sign | mag);
}

/* float -> IEEE half, round to nearest even; NaN becomes 0x7E00 with the sign kept; overflow
 * goes to Inf. Identical to ggml's GGML_FP32_TO_FP16. */
static inline uint16_t gguf__float_to_half(float f) {
    float base = (__builtin_fabsf(f) * 0x1.0p+112f) * 0x1.0p-110f;
    GGUF__ROUNDED(base);
    uint32_t w = gguf__f32_bits(f);
    uint32_t twice = w + w;
    uint32_t sign = w & 0x80000000u;
    uint32_t bias = twice & 0xFF000000u;
    if (bias < 0x71000000u)
        bias = 0x71000000u;
    base = gguf__f32_from_bits((bias >> 1) + 0x07800000u) + base;
    uint32_t bits = gguf__f32_bits(base);
    uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
    uint32_t mant_bits = bits & 0x00000FFFu;
    uint16_t nonsign = (uint16_t)(exp_bits + mant_bits);
    return (uint16_t)((sign >> 16) | (twice > 0xFF000000u ? 0x7E00u : nonsign));
}

/* 1 when a half is Inf or NaN. SIMD kernels send blocks whose scales are not finite to the
 * scalar code: when two NaNs meet, which one the result carries depends on the compiler's
 * operand order, and only the scalar code is checked against ggml for that. */
static inline bool gguf__half_special(uint16_t h) { return (h & 0x7C00) == 0x7C00; }

/* 1 when none of the n floats is Inf or NaN (NULL counts as finite). The SIMD searches take
 * only finite blocks: with NaNs in play, which NaN a result carries depends on the operand
 * order the compiler picked for the scalar code, and the scalar code is the definition. */
static inline bool gguf__all_finite(const float *x, int n) {
    uint32_t special = 0;
    for (int i = 0; x && i < n; i++)
        special |= (gguf__f32_bits(x[i]) & 0x7f800000u) == 0x7f800000u;
    return !special;
}

/* bfloat16 <-> float: widening is exact; narrowing rounds to nearest even and quiets NaNs. */
static inline float gguf__bf16_to_float(uint16_t h) {
    return gguf__f32_from_bits((uint32_t)h << 16);
}
static inline uint16_t gguf__float_to_bf16(float f) {
    uint32_t u = gguf__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 64);
    return (uint16_t)((u + (0x7fffu + ((u >> 16) & 1))) >> 16);
}

/* float -> int32 the way x86's cvttss2si does it: truncation toward zero, and INT32_MIN for
 * NaN and values outside int32. ggml's casts such as (int8_t)(x + 8.5f) or (int8_t)roundf(x)
 * compile to that instruction followed by keeping the low byte; write them
 * (int8_t)gguf__trunc_i32(x) so that NaN and huge inputs give ggml's bytes without UB. */
static inline int32_t gguf__trunc_i32(float x) {
    if (x >= -2147483648.0f && x < 2147483648.0f)
        return (int32_t)x;
    return INT32_MIN;
}

/* Rounds to the nearest integer (ties to even) for |x| <= 4194303, by the 1.5 * 2^23 trick
 * ggml uses; bit-identical to it in that range. */
static inline int gguf__nearest_int(float x) {
    float v = x + 12582912.f;
    int32_t i;
    memcpy(&i, &v, sizeof i);
    return (i & 0x007fffff) - 0x00400000;
}

/* Smallest group maximum treated as non-zero by the k-quant searches. */
#define GGUF__GROUP_MAX_EPS 1e-15f

/* Shared scale searches (search.c), used by the legacy and k-quants and by some i-quants.
 * Each computes exactly what ggml's function of the same name computes (same arguments):
 *  make_qx_quants:  symmetric; L[i] in [0, 2*nmax-1] (offset nmax); returns the scale.
 *                   w NULL: weights from rmse_type (1: x^2, 2: 1, 3: |x|, else sqrt|x|);
 *                   rmse_type 0: plain rounding; < 0: one refinement step only.
 *  make_qkx2_quants, make_qkx3_quants: asymmetric, L[i] in [0, nmax], *the_min = -offset;
 *                   search of nstep+1 scales from (rmin + rdelta*is + nmax) / range.
 *                   (qkx3: w NULL means weights x^2.) Laux is n bytes of scratch.
 *  make_q3_quants:  symmetric with weights x^2 (Q3_K); L[i] in [0, 2*nmax-1]; do_rmse adds
 *                   rounds of coordinate descent.
 *  make_qp_quants:  non-negative x[n] -> L[i] in [0, nmax] weighted by w[n]; returns the
 *                   scale. */
GGUF_HIDDEN float gguf__make_qx_quants(int n, int nmax, const float *x, int8_t *L, int rmse_type,
                                       const float *w);
GGUF_HIDDEN float gguf__make_qkx2_quants(int n, int nmax, const float *x, const float *w,
                                         uint8_t *L, float *the_min, uint8_t *Laux, float rmin,
                                         float rdelta, int nstep, bool use_mad);
GGUF_HIDDEN float gguf__make_qkx3_quants(int n, int nmax, const float *x, const float *w,
                                         uint8_t *L, float *the_min, uint8_t *Laux, float rmin,
                                         float rdelta, int nstep, bool use_mad);
GGUF_HIDDEN float gguf__make_q3_quants(int n, int nmax, const float *x, int8_t *L, bool do_rmse);
GGUF_HIDDEN float gguf__make_qp_quants(int n, int nmax, const float *x, uint8_t *L,
                                       const float *w);

/* The same searches on `count` independent groups of n elements: group g is x + g*n (weights
 * w + g*n, quants L + g*n) and its results go to scales[g] (and mins[g], which receives
 * *the_min). The scalar set calls the functions above group by group; the AVX2 set (x86)
 * runs 8 groups at a time, one per lane, with identical results. n <= 32. */
typedef struct gguf__search_set {
    /* make_qx_quants with rmse_type 1 (w NULL: weights x^2) */
    void (*qx)(int count, int n, int nmax, const float *x, const float *w, int8_t *L,
               float *scales);
    /* make_qkx2_quants / make_qkx3_quants (w never NULL) */
    void (*qkx)(int count, int n, int nmax, const float *x, const float *w, uint8_t *L,
                float *scales, float *mins, float rmin, float rdelta, int nstep, bool use_mad);
    /* make_q3_quants with do_rmse */
    void (*q3)(int count, int n, int nmax, const float *x, int8_t *L, float *scales);
    /* The k-quants' final rounding against a stored scale, for i < n (n = 16 or 32):
     * L[i] = clamp(nearest_int((x[i] + m) / d), lo, hi) + off, without "+ m" unless add. */
    void (*requant)(int n, const float *x, float m, bool add, float d, int lo, int hi, int off,
                    uint8_t *L);
} gguf__search_set;

GGUF_HIDDEN extern const gguf__search_set gguf__search_scalar;
#if GGUF__X86
GGUF_HIDDEN extern const gguf__search_set gguf__search_avx2;
#endif

/* The SIMD level in force (quant.c): what gguf_quant_set_simd selected, clamped to what the
 * CPU supports. */
GGUF_HIDDEN int gguf__simd_level(void);

#endif /* LIBGGUF_QUANT_QUANT_H */
