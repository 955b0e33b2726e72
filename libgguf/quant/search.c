/* The scale searches of the legacy and k-quants (ggml's make_qx_quants, make_q3_quants,
 * make_qkx2_quants, make_qkx3_quants, make_qp_quants), and their batched forms: the same
 * search on many independent groups. The AVX2 batch runs 8 groups at once, one per lane; each
 * lane performs the scalar operations in the scalar order, so the results are identical.
 * (The searches are where quantizing to the k-quants spends its time.)
 */
#include "quant.h"

#include <math.h>

static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }

/* ------------------------------------------------------------------------------------------ */
/* Scalar searches                                                                             */

static inline float rmse_weight(const float *w, const float *x, int i, int rmse_type) {
    if (w)
        return w[i];
    switch (rmse_type) {
    case 1:
        return x[i] * x[i];
    case 2:
        return 1;
    case 3:
        return fabsf(x[i]);
    default:
        return sqrtf(fabsf(x[i]));
    }
}

float gguf__make_qx_quants(int n, int nmax, const float *x, int8_t *L, int rmse_type,
                           const float *w) {
    float max = 0, amax = 0;
    for (int i = 0; i < n; i++) {
        float ax = fabsf(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < GGUF__GROUP_MAX_EPS) {
        for (int i = 0; i < n; i++)
            L[i] = 0;
        return 0.f;
    }
    float iscale = (float)-nmax / max;
    if (rmse_type == 0) {
        for (int i = 0; i < n; i++) {
            int l = gguf__nearest_int(iscale * x[i]);
            L[i] = (int8_t)(nmax + imax(-nmax, imin(nmax - 1, l)));
        }
        return 1 / iscale;
    }
    bool return_early = false;
    if (rmse_type < 0) {
        rmse_type = -rmse_type;
        return_early = true;
    }
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = gguf__nearest_int(iscale * x[i]);
        l = imax(-nmax, imin(nmax - 1, l));
        L[i] = (int8_t)(l + nmax);
        float wi = rmse_weight(w, x, i, rmse_type);
        sumlx += wi * x[i] * (float)l;
        suml2 += wi * (float)l * (float)l;
    }
    float scale = suml2 != 0 ? sumlx / suml2 : 0.0f;
    if (return_early)
        return suml2 > 0 ? 0.5f * (scale + 1 / iscale) : 1 / iscale;
    float best = scale * sumlx;
    for (int is = -9; is <= 9; is++) {
        if (is == 0)
            continue;
        iscale = -((float)nmax + 0.1f * (float)is) / max;
        sumlx = suml2 = 0;
        for (int i = 0; i < n; i++) {
            int l = gguf__nearest_int(iscale * x[i]);
            l = imax(-nmax, imin(nmax - 1, l));
            float wi = rmse_weight(w, x, i, rmse_type);
            sumlx += wi * x[i] * (float)l;
            suml2 += wi * (float)l * (float)l;
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; i++) {
                int l = gguf__nearest_int(iscale * x[i]);
                L[i] = (int8_t)(nmax + imax(-nmax, imin(nmax - 1, l)));
            }
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

float gguf__make_q3_quants(int n, int nmax, const float *x, int8_t *L, bool do_rmse) {
    float max = 0, amax = 0;
    for (int i = 0; i < n; i++) {
        float ax = fabsf(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < GGUF__GROUP_MAX_EPS) {
        for (int i = 0; i < n; i++)
            L[i] = 0;
        return 0.f;
    }
    float iscale = (float)-nmax / max;
    if (do_rmse) {
        float sumlx = 0, suml2 = 0;
        for (int i = 0; i < n; i++) {
            int l = gguf__nearest_int(iscale * x[i]);
            l = imax(-nmax, imin(nmax - 1, l));
            L[i] = (int8_t)l;
            float w = x[i] * x[i];
            sumlx += w * x[i] * (float)l;
            suml2 += w * (float)l * (float)l;
        }
        for (int itry = 0; itry < 5; itry++) {
            int n_changed = 0;
            for (int i = 0; i < n; i++) {
                float w = x[i] * x[i];
                float slx = sumlx - w * x[i] * (float)L[i];
                if (slx > 0) {
                    float sl2 = suml2 - w * (float)L[i] * (float)L[i];
                    int new_l = gguf__nearest_int(x[i] * sl2 / slx);
                    new_l = imax(-nmax, imin(nmax - 1, new_l));
                    if (new_l != L[i]) {
                        slx += w * x[i] * (float)new_l;
                        sl2 += w * (float)new_l * (float)new_l;
                        if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                            L[i] = (int8_t)new_l;
                            sumlx = slx;
                            suml2 = sl2;
                            n_changed++;
                        }
                    }
                }
            }
            if (!n_changed)
                break;
        }
        for (int i = 0; i < n; i++)
            L[i] = (int8_t)(L[i] + nmax);
        return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
    }
    for (int i = 0; i < n; i++) {
        int l = gguf__nearest_int(iscale * x[i]);
        l = imax(-nmax, imin(nmax - 1, l));
        L[i] = (int8_t)(l + nmax);
    }
    return 1 / iscale;
}

/* make_qkx2_quants and make_qkx3_quants differ only in their tolerance of w == NULL (and in
 * a max == min versus max <= min test that cannot tell apart: min <= max always holds here,
 * and both are false with NaNs). */
static float qkx_search(int n, int nmax, const float *x, const float *w, uint8_t *L,
                        float *the_min, uint8_t *Laux, float rmin, float rdelta, int nstep,
                        bool use_mad) {
#define WEIGHT(i) (w ? w[i] : x[i] * x[i])
    float min = x[0], max = x[0];
    float sum_w = WEIGHT(0);
    float sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        if (x[i] < min)
            min = x[i];
        if (x[i] > max)
            max = x[i];
        float wi = WEIGHT(i);
        sum_w += wi;
        sum_x += wi * x[i];
    }
    if (min > 0)
        min = 0;
    if (max <= min) {
        memset(L, 0, (size_t)n);
        *the_min = -min;
        return 0.f;
    }
    float iscale = (float)nmax / (max - min);
    float scale = 1 / iscale;
    float best_error = 0;
    for (int i = 0; i < n; i++) {
        int l = gguf__nearest_int(iscale * (x[i] - min));
        L[i] = (uint8_t)imax(0, imin(nmax, l));
        float diff = scale * (float)L[i] + min - x[i];
        diff = use_mad ? fabsf(diff) : diff * diff;
        best_error += WEIGHT(i) * diff;
    }
    if (nstep < 1) {
        *the_min = -min;
        return scale;
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (max - min);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; i++) {
            int l = gguf__nearest_int(iscale * (x[i] - min));
            l = imax(0, imin(nmax, l));
            Laux[i] = (uint8_t)l;
            float wi = WEIGHT(i);
            sum_l += wi * (float)l;
            sum_l2 += wi * (float)l * (float)l;
            sum_xl += wi * (float)l * x[i];
        }
        float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            float cur_error = 0;
            for (int i = 0; i < n; i++) {
                float diff = this_scale * (float)Laux[i] + this_min - x[i];
                diff = use_mad ? fabsf(diff) : diff * diff;
                cur_error += WEIGHT(i) * diff;
            }
            if (cur_error < best_error) {
                memcpy(L, Laux, (size_t)n);
                best_error = cur_error;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    *the_min = -min;
    return scale;
#undef WEIGHT
}

float gguf__make_qkx2_quants(int n, int nmax, const float *x, const float *w, uint8_t *L,
                             float *the_min, uint8_t *Laux, float rmin, float rdelta, int nstep,
                             bool use_mad) {
    return qkx_search(n, nmax, x, w, L, the_min, Laux, rmin, rdelta, nstep, use_mad);
}

float gguf__make_qkx3_quants(int n, int nmax, const float *x, const float *w, uint8_t *L,
                             float *the_min, uint8_t *Laux, float rmin, float rdelta, int nstep,
                             bool use_mad) {
    return qkx_search(n, nmax, x, w, L, the_min, Laux, rmin, rdelta, nstep, use_mad);
}

float gguf__make_qp_quants(int n, int nmax, const float *x, uint8_t *L, const float *w) {
    float max = 0;
    for (int i = 0; i < n; i++)
        max = max > x[i] ? max : x[i];
    if (max < GGUF__GROUP_MAX_EPS) {
        for (int i = 0; i < n; i++)
            L[i] = 0;
        return 0.f;
    }
    float iscale = (float)nmax / max;
    for (int i = 0; i < n; i++)
        L[i] = (uint8_t)gguf__nearest_int(iscale * x[i]);
    float scale = 1 / iscale;
    float best_mse = 0;
    for (int i = 0; i < n; i++) {
        float diff = x[i] - scale * (float)L[i];
        best_mse += w[i] * diff * diff;
    }
    for (int is = -4; is <= 4; is++) {
        if (is == 0)
            continue;
        float iscale_is = (0.1f * (float)is + (float)nmax) / max;
        float scale_is = 1 / iscale_is;
        float mse = 0;
        for (int i = 0; i < n; i++) {
            int l = imin(nmax, gguf__nearest_int(iscale_is * x[i]));
            float diff = x[i] - scale_is * (float)l;
            mse += w[i] * diff * diff;
        }
        if (mse < best_mse) {
            best_mse = mse;
            iscale = iscale_is;
        }
    }
    float sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = imin(nmax, gguf__nearest_int(iscale * x[i]));
        L[i] = (uint8_t)l;
        sumlx += w[i] * x[i] * (float)l;
        suml2 += w[i] * (float)l * (float)l;
    }
    for (int itry = 0; itry < 5; itry++) {
        int n_changed = 0;
        for (int i = 0; i < n; i++) {
            float slx = sumlx - w[i] * x[i] * (float)L[i];
            float sl2 = suml2 - w[i] * (float)L[i] * (float)L[i];
            if (slx > 0 && sl2 > 0) {
                int new_l = imin(nmax, gguf__nearest_int(x[i] * sl2 / slx));
                if (new_l != L[i]) {
                    slx += w[i] * x[i] * (float)new_l;
                    sl2 += w[i] * (float)new_l * (float)new_l;
                    if (slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = (uint8_t)new_l;
                        sumlx = slx;
                        suml2 = sl2;
                        n_changed++;
                    }
                }
            }
        }
        if (!n_changed)
            break;
    }
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/* ------------------------------------------------------------------------------------------ */
/* Batched searches, scalar                                                                    */

static void qx_batch_scalar(int count, int n, int nmax, const float *x, const float *w,
                            int8_t *L, float *scales) {
    for (int g = 0; g < count; g++)
        scales[g] = gguf__make_qx_quants(n, nmax, x + g * n, L + g * n, 1, w ? w + g * n : NULL);
}

static void qkx_batch_scalar(int count, int n, int nmax, const float *x, const float *w,
                             uint8_t *L, float *scales, float *mins, float rmin, float rdelta,
                             int nstep, bool use_mad) {
    uint8_t Laux[32];
    for (int g = 0; g < count; g++)
        scales[g] = qkx_search(n, nmax, x + g * n, w + g * n, L + g * n, &mins[g], Laux, rmin,
                               rdelta, nstep, use_mad);
}

static void q3_batch_scalar(int count, int n, int nmax, const float *x, int8_t *L,
                            float *scales) {
    for (int g = 0; g < count; g++)
        scales[g] = gguf__make_q3_quants(n, nmax, x + g * n, L + g * n, true);
}

static void requant_scalar(int n, const float *x, float m, bool add, float d, int lo, int hi,
                           int off, uint8_t *L) {
    for (int i = 0; i < n; i++) {
        int l = gguf__nearest_int((add ? x[i] + m : x[i]) / d);
        L[i] = (uint8_t)(imax(lo, imin(hi, l)) + off);
    }
}

const gguf__search_set gguf__search_scalar = {
    .qx = qx_batch_scalar,
    .qkx = qkx_batch_scalar,
    .q3 = q3_batch_scalar,
    .requant = requant_scalar,
};

/* ------------------------------------------------------------------------------------------ */
/* Batched searches, AVX2: lane g runs group g                                                 */
/*                                                                                             */
/* Each scalar statement becomes the same operation on 8 lanes; branches become masks (the    */
/* scalar code's skipped work is computed and discarded). Products that feed an addition go   */
/* through mulr(), which rounds them even if the compiler were allowed to contract.           */

#if GGUF__X86
#include <immintrin.h>

#define V8 GGUF__TARGET_AVX2 static inline

V8 __m256 mulr(__m256 a, __m256 b) {
    __m256 p = _mm256_mul_ps(a, b);
    GGUF__ROUNDED(p);
    return p;
}
V8 __m256 set1(float f) { return _mm256_set1_ps(f); }
V8 __m256 sel(__m256 a, __m256 b, __m256 mask) { return _mm256_blendv_ps(a, b, mask); }
V8 __m256 gt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
V8 __m256 lt(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
V8 __m256 vabs(__m256 a) { return _mm256_andnot_ps(set1(-0.0f), a); }
V8 __m256 neg(__m256 a) { return _mm256_xor_ps(a, set1(-0.0f)); }
V8 __m256 cvt(__m256i l) { return _mm256_cvtepi32_ps(l); }
V8 bool any(__m256 mask) { return _mm256_movemask_ps(mask) != 0; }

/* gguf__nearest_int, lane by lane. */
V8 __m256i nearest(__m256 v) {
    __m256i i = _mm256_castps_si256(_mm256_add_ps(v, set1(12582912.f)));
    return _mm256_sub_epi32(_mm256_and_si256(i, _mm256_set1_epi32(0x007fffff)),
                            _mm256_set1_epi32(0x00400000));
}
V8 __m256i clampi(__m256i l, int lo, int hi) {
    return _mm256_max_epi32(_mm256_set1_epi32(lo), _mm256_min_epi32(_mm256_set1_epi32(hi), l));
}

/* xt[i] = (x[g*n + i])_g for the 8 groups. */
V8 void transpose_in(__m256 *xt, const float *x, int n) {
    __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                     _mm256_set1_epi32(n));
    for (int i = 0; i < n; i++)
        xt[i] = _mm256_i32gather_ps(x + i, idx, 4);
}

/* The first largest |x| of each lane and its signed value (ggml's strict > scan). */
V8 void lane_absmax(__m256 *amax, __m256 *max, const __m256 *xt, int n) {
    __m256 a = _mm256_setzero_ps(), m = _mm256_setzero_ps();
    for (int i = 0; i < n; i++) {
        __m256 ax = vabs(xt[i]);
        __m256 bigger = gt(ax, a);
        a = sel(a, ax, bigger);
        m = sel(m, xt[i], bigger);
    }
    *amax = a;
    *max = m;
}

GGUF__TARGET_AVX2 static void qx8(int n, int nmax, const float *x, const float *w, int8_t *L,
                                  float *scales) {
    if (n < 1 || n > 32) /* never: n is 16 or 32 */
        return;
    __m256 xt[32], wt[32];
    __m256i Lt[32], La[32];
    transpose_in(xt, x, n);
    if (w)
        transpose_in(wt, w, n);
    else
        for (int i = 0; i < n; i++)
            wt[i] = mulr(xt[i], xt[i]);
    __m256 amax, max;
    lane_absmax(&amax, &max, xt, n);
    __m256 small = lt(amax, set1(GGUF__GROUP_MAX_EPS));
    const __m256i off = _mm256_set1_epi32(nmax);

    __m256 iscale = _mm256_div_ps(set1((float)-nmax), max);
    __m256 sumlx = _mm256_setzero_ps(), suml2 = _mm256_setzero_ps();
    for (int i = 0; i < n; i++) {
        __m256i l = clampi(nearest(mulr(iscale, xt[i])), -nmax, nmax - 1);
        Lt[i] = _mm256_add_epi32(l, off);
        __m256 fl = cvt(l);
        sumlx = _mm256_add_ps(sumlx, mulr(mulr(wt[i], xt[i]), fl));
        suml2 = _mm256_add_ps(suml2, mulr(mulr(wt[i], fl), fl));
    }
    __m256 nonzero = _mm256_cmp_ps(suml2, _mm256_setzero_ps(), _CMP_NEQ_UQ);
    __m256 scale = sel(_mm256_setzero_ps(), _mm256_div_ps(sumlx, suml2), nonzero);
    __m256 best = mulr(scale, sumlx);
    for (int is = -9; is <= 9; is++) {
        if (is == 0)
            continue;
        iscale = _mm256_div_ps(set1(-((float)nmax + 0.1f * (float)is)), max);
        sumlx = suml2 = _mm256_setzero_ps();
        for (int i = 0; i < n; i++) {
            __m256i l = clampi(nearest(mulr(iscale, xt[i])), -nmax, nmax - 1);
            La[i] = _mm256_add_epi32(l, off);
            __m256 fl = cvt(l);
            sumlx = _mm256_add_ps(sumlx, mulr(mulr(wt[i], xt[i]), fl));
            suml2 = _mm256_add_ps(suml2, mulr(mulr(wt[i], fl), fl));
        }
        __m256 upd = _mm256_and_ps(gt(suml2, _mm256_setzero_ps()),
                                   gt(mulr(sumlx, sumlx), mulr(best, suml2)));
        if (!any(upd))
            continue;
        __m256 ns = _mm256_div_ps(sumlx, suml2);
        __m256 nb = mulr(ns, sumlx);
        for (int i = 0; i < n; i++)
            Lt[i] = _mm256_blendv_epi8(Lt[i], La[i], _mm256_castps_si256(upd));
        scale = sel(scale, ns, upd);
        best = sel(best, nb, upd);
    }
    scale = sel(scale, _mm256_setzero_ps(), small);
    int32_t lane[8], zero[8];
    _mm256_storeu_ps(scales, scale);
    _mm256_storeu_si256((__m256i *)(void *)zero, _mm256_castps_si256(small));
    for (int i = 0; i < n; i++) {
        _mm256_storeu_si256((__m256i *)(void *)lane, Lt[i]);
        for (int g = 0; g < 8; g++)
            L[g * n + i] = zero[g] ? 0 : (int8_t)lane[g];
    }
}

/* make_q3_quants on nb * 8 groups (nb = 1, 2 or 4). Its coordinate descent is one long chain
 * of dependent operations per group (each element's update feeds the next); batches of 8
 * lanes interleaved keep the chains of up to 32 groups in flight together. */
#if defined(__GNUC__)
#define Q3_INLINE inline __attribute__((always_inline))
#else
#define Q3_INLINE inline
#endif
/* One element of one pass of the descent, on 8 lanes (the scalar loop body of
 * make_q3_quants, its branches as masks). */
GGUF__TARGET_AVX2 static Q3_INLINE void q3_step(__m256 *sumlx, __m256 *suml2, __m256 *changed,
                                                __m256 active, __m256 x, __m256 w, __m256i *L,
                                                int nmax) {
    const __m256 zero = _mm256_setzero_ps();
    __m256 wx = mulr(w, x), fL = cvt(*L);
    __m256 slx = _mm256_sub_ps(*sumlx, mulr(wx, fL));
    __m256 sl2 = _mm256_sub_ps(*suml2, mulr(mulr(w, fL), fL));
    __m256i nl = clampi(nearest(_mm256_div_ps(mulr(x, sl2), slx)), -nmax, nmax - 1);
    __m256 differs =
        _mm256_castsi256_ps(_mm256_xor_si256(_mm256_cmpeq_epi32(nl, *L), _mm256_set1_epi32(-1)));
    __m256 fnl = cvt(nl);
    __m256 slx2 = _mm256_add_ps(slx, mulr(wx, fnl));
    __m256 sl2b = _mm256_add_ps(sl2, mulr(mulr(w, fnl), fnl));
    __m256 gain = gt(mulr(mulr(slx2, slx2), *suml2), mulr(mulr(*sumlx, *sumlx), sl2b));
    __m256 upd = _mm256_and_ps(_mm256_and_ps(gt(slx, zero), differs),
                               _mm256_and_ps(_mm256_and_ps(gt(sl2b, zero), gain), active));
    *L = _mm256_blendv_epi8(*L, nl, _mm256_castps_si256(upd));
    *sumlx = sel(*sumlx, slx2, upd);
    *suml2 = sel(*suml2, sl2b, upd);
    *changed = _mm256_or_ps(*changed, upd);
}

GGUF__TARGET_AVX2 static Q3_INLINE void q3_lanes(int nb, int n, int nmax, const float *x,
                                                 int8_t *L, float *scales) {
    __m256 xt[4][32], wt[4][32];
    __m256i Lt[4][32];
    __m256 small[4], sumlx[4], suml2[4], active[4];
    const __m256 zero = _mm256_setzero_ps();
    for (int b = 0; b < nb; b++) {
        transpose_in(xt[b], x + b * 8 * n, n);
        for (int i = 0; i < n; i++)
            wt[b][i] = mulr(xt[b][i], xt[b][i]);
        __m256 amax, max;
        lane_absmax(&amax, &max, xt[b], n);
        small[b] = lt(amax, set1(GGUF__GROUP_MAX_EPS));
        __m256 iscale = _mm256_div_ps(set1((float)-nmax), max);
        sumlx[b] = suml2[b] = zero;
        for (int i = 0; i < n; i++) {
            __m256i l = clampi(nearest(mulr(iscale, xt[b][i])), -nmax, nmax - 1);
            Lt[b][i] = l;
            __m256 fl = cvt(l);
            sumlx[b] = _mm256_add_ps(sumlx[b], mulr(mulr(wt[b][i], xt[b][i]), fl));
            suml2[b] = _mm256_add_ps(suml2[b], mulr(mulr(wt[b][i], fl), fl));
        }
        active[b] = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    }
    /* the running sums of each batch in named variables, so that they stay in registers */
    __m256 slx0 = sumlx[0], sl20 = suml2[0], slx1 = sumlx[1 % nb], sl21 = suml2[1 % nb];
    __m256 slx2 = sumlx[2 % nb], sl22 = suml2[2 % nb], slx3 = sumlx[3 % nb], sl23 = suml2[3 % nb];
    for (int itry = 0; itry < 5; itry++) {
        __m256 ch0 = zero, ch1 = zero, ch2 = zero, ch3 = zero;
        for (int i = 0; i < n; i++) {
            q3_step(&slx0, &sl20, &ch0, active[0], xt[0][i], wt[0][i], &Lt[0][i], nmax);
            if (nb >= 2)
                q3_step(&slx1, &sl21, &ch1, active[1 % nb], xt[1 % nb][i], wt[1 % nb][i],
                        &Lt[1 % nb][i], nmax);
            if (nb == 4) {
                q3_step(&slx2, &sl22, &ch2, active[2 % nb], xt[2 % nb][i], wt[2 % nb][i],
                        &Lt[2 % nb][i], nmax);
                q3_step(&slx3, &sl23, &ch3, active[3 % nb], xt[3 % nb][i], wt[3 % nb][i],
                        &Lt[3 % nb][i], nmax);
            }
        }
        const __m256 ch[4] = {ch0, ch1, ch2, ch3};
        bool any_active = false;
        for (int b = 0; b < nb; b++) {
            active[b] = _mm256_and_ps(active[b], ch[b]);
            any_active |= any(active[b]);
        }
        if (!any_active)
            break;
    }
    const __m256 fx[4] = {slx0, slx1, slx2, slx3}, f2[4] = {sl20, sl21, sl22, sl23};
    for (int b = 0; b < nb; b++)
        sumlx[b] = fx[b], suml2[b] = f2[b];
    for (int b = 0; b < nb; b++) {
        __m256 scale = sel(zero, _mm256_div_ps(sumlx[b], suml2[b]), gt(suml2[b], zero));
        scale = sel(scale, zero, small[b]);
        int32_t lane[8], zmask[8];
        _mm256_storeu_ps(scales + 8 * b, scale);
        _mm256_storeu_si256((__m256i *)(void *)zmask, _mm256_castps_si256(small[b]));
        int8_t *Lb = L + b * 8 * n;
        for (int i = 0; i < n; i++) {
            _mm256_storeu_si256((__m256i *)(void *)lane, Lt[b][i]);
            for (int g = 0; g < 8; g++)
                Lb[g * n + i] = zmask[g] ? 0 : (int8_t)(lane[g] + nmax);
        }
    }
}

GGUF__TARGET_AVX2 static void q3x8(int n, int nmax, const float *x, int8_t *L, float *scales) {
    if (n < 1 || n > 32) /* never: n is 16 or 32 */
        return;
    q3_lanes(1, n, nmax, x, L, scales);
}

GGUF__TARGET_AVX2 static void q3x16(int n, int nmax, const float *x, int8_t *L, float *scales) {
    if (n < 1 || n > 32)
        return;
    q3_lanes(2, n, nmax, x, L, scales);
}

GGUF__TARGET_AVX2 static void q3x32(int n, int nmax, const float *x, int8_t *L, float *scales) {
    if (n < 1 || n > 32)
        return;
    q3_lanes(4, n, nmax, x, L, scales);
}

GGUF__TARGET_AVX2 static void qkx8(int n, int nmax, const float *x, const float *w, uint8_t *L,
                                   float *scales, float *mins, float rmin, float rdelta,
                                   int nstep, bool use_mad) {
    if (n < 1 || n > 32) /* never: n is 16 or 32 */
        return;
    __m256 xt[32], wt[32];
    __m256i Lt[32], La[32];
    transpose_in(xt, x, n);
    transpose_in(wt, w, n);
    const __m256 zero = _mm256_setzero_ps();
    const __m256i top = _mm256_set1_epi32(nmax), bottom = _mm256_setzero_si256();

    __m256 min = xt[0], max = xt[0], sum_w = wt[0];
    __m256 sum_x = mulr(sum_w, xt[0]);
    for (int i = 1; i < n; i++) {
        min = sel(min, xt[i], lt(xt[i], min));
        max = sel(max, xt[i], gt(xt[i], max));
        sum_w = _mm256_add_ps(sum_w, wt[i]);
        sum_x = _mm256_add_ps(sum_x, mulr(wt[i], xt[i]));
    }
    min = sel(min, zero, gt(min, zero));
    __m256 flat = _mm256_cmp_ps(max, min, _CMP_LE_OQ);
    __m256 min0 = min;
    __m256 iscale = _mm256_div_ps(set1((float)nmax), _mm256_sub_ps(max, min));
    __m256 scale = _mm256_div_ps(set1(1.0f), iscale);
    __m256 best = zero;
    for (int i = 0; i < n; i++) {
        __m256i l = _mm256_max_epi32(bottom, _mm256_min_epi32(
                                                 top, nearest(mulr(iscale, _mm256_sub_ps(xt[i], min)))));
        Lt[i] = l;
        __m256 diff = _mm256_sub_ps(_mm256_add_ps(mulr(scale, cvt(l)), min), xt[i]);
        diff = use_mad ? vabs(diff) : mulr(diff, diff);
        best = _mm256_add_ps(best, mulr(wt[i], diff));
    }
    for (int is = 0; nstep >= 1 && is <= nstep; is++) {
        /* min moves when a candidate wins, and the range with it */
        iscale = _mm256_div_ps(set1(rmin + rdelta * (float)is + (float)nmax),
                               _mm256_sub_ps(max, min));
        __m256 sum_l = zero, sum_l2 = zero, sum_xl = zero;
        for (int i = 0; i < n; i++) {
            __m256i l = _mm256_max_epi32(bottom, _mm256_min_epi32(
                                                     top, nearest(mulr(iscale, _mm256_sub_ps(xt[i], min)))));
            La[i] = l;
            __m256 fl = cvt(l), wl = mulr(wt[i], fl);
            sum_l = _mm256_add_ps(sum_l, wl);
            sum_l2 = _mm256_add_ps(sum_l2, mulr(wl, fl));
            sum_xl = _mm256_add_ps(sum_xl, mulr(wl, xt[i]));
        }
        __m256 D = _mm256_sub_ps(mulr(sum_w, sum_l2), mulr(sum_l, sum_l));
        __m256 ok = gt(D, zero);
        if (!any(ok))
            continue;
        __m256 this_scale =
            _mm256_div_ps(_mm256_sub_ps(mulr(sum_w, sum_xl), mulr(sum_x, sum_l)), D);
        __m256 this_min =
            _mm256_div_ps(_mm256_sub_ps(mulr(sum_l2, sum_x), mulr(sum_l, sum_xl)), D);
        __m256 pos = gt(this_min, zero);
        this_min = sel(this_min, zero, pos);
        this_scale = sel(this_scale, _mm256_div_ps(sum_xl, sum_l2), pos);
        __m256 cur = zero;
        for (int i = 0; i < n; i++) {
            __m256 diff =
                _mm256_sub_ps(_mm256_add_ps(mulr(this_scale, cvt(La[i])), this_min), xt[i]);
            diff = use_mad ? vabs(diff) : mulr(diff, diff);
            cur = _mm256_add_ps(cur, mulr(wt[i], diff));
        }
        __m256 better = _mm256_and_ps(ok, lt(cur, best));
        if (!any(better))
            continue;
        for (int i = 0; i < n; i++)
            Lt[i] = _mm256_blendv_epi8(Lt[i], La[i], _mm256_castps_si256(better));
        best = sel(best, cur, better);
        scale = sel(scale, this_scale, better);
        min = sel(min, this_min, better);
    }
    scale = sel(scale, zero, flat);
    min = sel(min, min0, flat);
    _mm256_storeu_ps(scales, scale);
    _mm256_storeu_ps(mins, neg(min));
    int32_t lane[8], fmask[8];
    _mm256_storeu_si256((__m256i *)(void *)fmask, _mm256_castps_si256(flat));
    for (int i = 0; i < n; i++) {
        _mm256_storeu_si256((__m256i *)(void *)lane, Lt[i]);
        for (int g = 0; g < 8; g++)
            L[g * n + i] = fmask[g] ? 0 : (uint8_t)lane[g];
    }
}

static void qx_batch_avx2(int count, int n, int nmax, const float *x, const float *w,
                          int8_t *L, float *scales) {
    int g = 0;
    for (; g + 8 <= count; g += 8)
        qx8(n, nmax, x + g * n, w ? w + g * n : NULL, L + g * n, scales + g);
    qx_batch_scalar(count - g, n, nmax, x + g * n, w ? w + g * n : NULL, L + g * n, scales + g);
}

static void qkx_batch_avx2(int count, int n, int nmax, const float *x, const float *w,
                           uint8_t *L, float *scales, float *mins, float rmin, float rdelta,
                           int nstep, bool use_mad) {
    int g = 0;
    for (; g + 8 <= count; g += 8)
        qkx8(n, nmax, x + g * n, w + g * n, L + g * n, scales + g, mins + g, rmin, rdelta, nstep,
             use_mad);
    qkx_batch_scalar(count - g, n, nmax, x + g * n, w + g * n, L + g * n, scales + g, mins + g,
                     rmin, rdelta, nstep, use_mad);
}

static void q3_batch_avx2(int count, int n, int nmax, const float *x, int8_t *L,
                          float *scales) {
    int g = 0;
    for (; g + 32 <= count; g += 32)
        q3x32(n, nmax, x + g * n, L + g * n, scales + g);
    for (; g + 16 <= count; g += 16)
        q3x16(n, nmax, x + g * n, L + g * n, scales + g);
    for (; g + 8 <= count; g += 8)
        q3x8(n, nmax, x + g * n, L + g * n, scales + g);
    q3_batch_scalar(count - g, n, nmax, x + g * n, L + g * n, scales + g);
}

GGUF__TARGET_AVX2 static void requant_avx2(int n, const float *x, float m, bool add, float d,
                                           int lo, int hi, int off, uint8_t *L) {
    __m256i l[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                    _mm256_setzero_si256()};
    for (int k = 0; k < n / 8; k++) {
        __m256 v = _mm256_loadu_ps(x + 8 * k);
        if (add)
            v = _mm256_add_ps(v, set1(m));
        l[k] = _mm256_add_epi32(clampi(nearest(_mm256_div_ps(v, set1(d))), lo, hi),
                                _mm256_set1_epi32(off));
    }
    /* the codes are within 0..63: the saturating packs are exact */
    __m256i w01 = _mm256_packs_epi32(l[0], l[1]);
    __m256i b = n == 32 ? _mm256_packus_epi16(w01, _mm256_packs_epi32(l[2], l[3]))
                        : _mm256_packus_epi16(w01, w01);
    b = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    if (n == 32)
        _mm256_storeu_si256((__m256i *)(void *)L, b);
    else
        _mm_storeu_si128((__m128i *)(void *)L, _mm256_castsi256_si128(b));
}

const gguf__search_set gguf__search_avx2 = {
    .qx = qx_batch_avx2,
    .qkx = qkx_batch_avx2,
    .q3 = q3_batch_avx2,
    .requant = requant_avx2,
};
#endif /* GGUF__X86 */
