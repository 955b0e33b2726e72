/* Writes golden/types/all_types.gguf: one tensor of every tensor type ggml defines, and
 * golden/types/all_types.be.gguf, the same file big-endian. Run by `make update-golden`.
 *
 * Both files are assembled byte by byte with tests/support/gguf_builder.h, without the library,
 * and the big-endian tensor data is made with the tests' own field list (byteswap_layouts.h),
 * so that `gguf-edit convert` (the library's recipes and writer) is checked against an
 * independent result.
 *
 * Each tensor "t.<type>" has shape [256, 2]. Its two rows are real quantized blocks from
 * ggml's quantizer (vectors/<type>.q, rows of 512 elements): the blocks covering the first 256
 * elements of row 0 (normal values) and of row 17 (an outlier row). Types without vectors (F32,
 * F64, the integer types, Q8_1, Q8_K) are made here from the same input floats
 * (vectors/input.f32, 32 rows x 512). */
#include "byteswap_layouts.h"
#include "gguf_builder.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ROW_IN 512 /* elements per row in the vectors */
#define N_ROWS 2
#define ROW_OUT 256
static const int SRC_ROWS[N_ROWS] = {0, 17};

static char vec_dir[4096];

static uint8_t *read_vector(const char *file, size_t *len) {
    char path[4352];
    snprintf(path, sizeof path, "%s/%s", vec_dir, file);
    return tu_read_file(path, len);
}

/* float -> IEEE half, round to nearest even (finite inputs in half range or not). */
static uint16_t to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    int32_t exp = (int32_t)((x >> 23) & 0xFF) - 127 + 15;
    uint32_t mant = x & 0x7FFFFFu;
    if (((x >> 23) & 0xFF) == 0xFF)
        return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u : 0));
    if (exp >= 31)
        return (uint16_t)(sign | 0x7C00u);
    if (exp <= 0) {
        if (exp < -10)
            return (uint16_t)sign;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - exp);
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
        h++; /* may carry into the exponent: still right */
    return (uint16_t)(sign | h);
}

static long round_clamp(double v, double lo, double hi) {
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return (long)(v < 0 ? v - 0.5 : v + 0.5);
}

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* Little-endian bytes for the types without vectors, from n floats. Returns the length. */
static size_t make_plain(uint8_t *out, uint32_t dtype, const float *x, size_t n) {
    uint8_t *p = out;
    for (size_t i = 0; dtype != GGUF_DTYPE_Q8_1 && dtype != GGUF_DTYPE_Q8_K && i < n; i++) {
        uint64_t v;
        size_t w;
        switch (dtype) {
        case GGUF_DTYPE_F32: {
            uint32_t b;
            memcpy(&b, &x[i], 4);
            v = b;
            w = 4;
            break;
        }
        case GGUF_DTYPE_F64: {
            double d = x[i];
            memcpy(&v, &d, 8);
            w = 8;
            break;
        }
        case GGUF_DTYPE_I8: v = (uint64_t)round_clamp(x[i] * 40.0, -128, 127); w = 1; break;
        case GGUF_DTYPE_I16: v = (uint64_t)round_clamp(x[i] * 9000.0, -32768, 32767); w = 2; break;
        case GGUF_DTYPE_I32: v = (uint64_t)round_clamp(x[i] * 3e8, -2147483648.0, 2147483647.0); w = 4; break;
        default: /* I64 */ v = (uint64_t)(int64_t)((double)x[i] * 1e15); w = 8; break;
        }
        for (size_t k = 0; k < w; k++)
            *p++ = (uint8_t)(v >> (8 * k));
    }
    if (dtype == GGUF_DTYPE_Q8_1) {
        for (size_t b = 0; b < n / 32; b++, p += 36) {
            const float *xb = x + 32 * b;
            float amax = 0;
            for (int j = 0; j < 32; j++)
                amax = xb[j] < 0 ? (-xb[j] > amax ? -xb[j] : amax) : (xb[j] > amax ? xb[j] : amax);
            float d = amax / 127, id = d != 0 ? 1 / d : 0;
            int sum = 0;
            for (int j = 0; j < 32; j++) {
                int q = (int)round_clamp(xb[j] * id, -127, 127);
                p[4 + j] = (uint8_t)(int8_t)q;
                sum += q;
            }
            put16(p, to_half(d));
            put16(p + 2, to_half(d * (float)sum));
        }
    }
    if (dtype == GGUF_DTYPE_Q8_K) {
        for (size_t b = 0; b < n / 256; b++, p += 292) {
            const float *xb = x + 256 * b;
            float amax = 0;
            for (int j = 0; j < 256; j++)
                amax = xb[j] < 0 ? (-xb[j] > amax ? -xb[j] : amax) : (xb[j] > amax ? xb[j] : amax);
            float d = amax / 127, id = d != 0 ? 1 / d : 0;
            uint32_t db;
            memcpy(&db, &d, 4);
            for (int k = 0; k < 4; k++)
                p[k] = (uint8_t)(db >> (8 * k));
            for (int g = 0; g < 16; g++) {
                int sum = 0;
                for (int j = 0; j < 16; j++) {
                    int q = (int)round_clamp(xb[16 * g + j] * id, -127, 127);
                    p[4 + 16 * g + j] = (uint8_t)(int8_t)q;
                    sum += q;
                }
                put16(p + 260 + 2 * g, (uint16_t)(int16_t)sum);
            }
        }
    }
    return (size_t)(p - out);
}

/* ggml's name for the vectors' files: lower case, but "q4_K". */
static void vector_name(char *out, size_t outsize, uint32_t dtype) {
    snprintf(out, outsize, "%s", gguf_dtype_name(dtype));
    size_t len = strlen(out);
    for (size_t k = 0; k < len; k++)
        if (out[k] >= 'A' && out[k] <= 'Z' && !(k == len - 1 && out[k] == 'K'))
            out[k] = (char)(out[k] - 'A' + 'a');
}

typedef struct tensor_data {
    uint32_t dtype;
    char name[32];
    uint8_t *bytes;
    size_t len;
} tensor_data;

static int build(gb *b, int big, const tensor_data *t, size_t n) {
    gb_begin(b, 3, big, n, 2);
    gb_kv(b, "general.name", GGUF_VTYPE_STRING);
    gb_str(b, "one tensor of every ggml type");
    gb_kv(b, "test.source", GGUF_VTYPE_STRING);
    gb_str(b, "tests/support/make_golden_types.c: rows 0 and 17 of vectors/<type>.q, "
              "first 256 elements");
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t dims[2] = {ROW_OUT, N_ROWS};
        gb_tensor(b, t[i].name, 2, dims, t[i].dtype, off);
        off += (t[i].len + 31) / 32 * 32;
    }
    gb_align(b, 32);
    for (size_t i = 0; i < n; i++) {
        uint8_t *copy = malloc(t[i].len);
        if (copy == NULL)
            return 1;
        memcpy(copy, t[i].bytes, t[i].len);
        if (big) {
            const tl_layout *l = tl_find(t[i].dtype);
            tl_swap(l, copy, t[i].len / l->block_bytes);
        }
        gb_raw(b, copy, t[i].len);
        free(copy);
        gb_align(b, 32);
    }
    return 0;
}

int main(void) {
    snprintf(vec_dir, sizeof vec_dir, "%s", tu_src("golden/vectors"));
    size_t in_len;
    uint8_t *in_bytes = read_vector("input.f32", &in_len);
    if (in_bytes == NULL) {
        snprintf(vec_dir, sizeof vec_dir, "%s", tu_src("../shared/vectors"));
        in_bytes = read_vector("input.f32", &in_len);
    }
    if (in_bytes == NULL || in_len < 32 * ROW_IN * sizeof(float)) {
        fprintf(stderr, "make_golden_types: vectors/input.f32 not found\n");
        return 1;
    }
    float *input = (float *)(void *)in_bytes;
    float x[N_ROWS * ROW_OUT];
    for (int r = 0; r < N_ROWS; r++)
        memcpy(x + r * ROW_OUT, input + SRC_ROWS[r] * ROW_IN, ROW_OUT * sizeof(float));

    tensor_data t[GGUF_DTYPE_COUNT];
    size_t n = 0;
    int bad = 0;
    for (uint32_t id = 0; id < GGUF_DTYPE_COUNT; id++) {
        if (gguf_dtype_name(id) == NULL)
            continue;
        const tl_layout *l = tl_find(id);
        uint32_t be = gguf_dtype_block_elems(id), bb = gguf_dtype_block_bytes(id);
        size_t row_out = ROW_OUT / be * bb, row_in = ROW_IN / be * bb;
        tensor_data *d = &t[n++];
        d->dtype = id;
        char vname[32], file[48];
        vector_name(vname, sizeof vname, id);
        snprintf(d->name, sizeof d->name, "t.%s", vname);
        d->len = N_ROWS * row_out;
        d->bytes = malloc(d->len);
        if (l == NULL || d->bytes == NULL)
            return 1;
        snprintf(file, sizeof file, "%s.q", vname);
        size_t qlen;
        uint8_t *q = read_vector(file, &qlen);
        if (q != NULL) {
            if (qlen != 32 * row_in) {
                fprintf(stderr, "make_golden_types: %s: %zu bytes, expected %zu\n", file, qlen,
                        32 * row_in);
                bad = 1;
            } else {
                for (int r = 0; r < N_ROWS; r++)
                    memcpy(d->bytes + r * row_out, q + SRC_ROWS[r] * row_in, row_out);
            }
            free(q);
        } else if (make_plain(d->bytes, id, x, N_ROWS * ROW_OUT) != d->len) {
            fprintf(stderr, "make_golden_types: no vectors for %s and no generator\n", vname);
            bad = 1;
        }
    }
    mkdir(tu_src("golden/types"), 0777);
    for (int big = 0; big <= 1 && !bad; big++) {
        gb b;
        bad |= build(&b, big, t, n);
        char path[4096];
        snprintf(path, sizeof path, "%s",
                 tu_src(big ? "golden/types/all_types.be.gguf" : "golden/types/all_types.gguf"));
        if (tu_write_file(path, b.p, b.len) != 0) {
            perror(path);
            bad = 1;
        }
        gb_free(&b);
    }
    for (size_t i = 0; i < n; i++)
        free(t[i].bytes);
    free(in_bytes);
    return bad;
}
