/* The header: serialized for an output format, and fitted to a data offset. A file may hold the
 * padding key (GGUF_PADDING_KEY, an array of zero bytes) that an editor owns: its length is
 * chosen so that the header ends exactly where the data starts, which lets an edited header
 * take the place of the old one (it consumes the padding) or grow by whole filesystem blocks
 * (the padding fills the rest). */
#include "write/write.h"

#include <string.h>

/* v1 stores every length as u32; we write v1 only to reproduce a v1 source. */
static int check_v1(const gguf_file *f, gguf_error *err) {
    if (f->version != 1)
        return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                          "writing GGUF v1 is only done to reproduce a v1 file; write v2 or v3");
    for (size_t i = 0; i < f->n_kv; i++) {
        if (f->kv[i].key_len > UINT32_MAX || f->kv[i].value.wide)
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "key %zu was changed with 64-bit lengths: write v2 or v3", i);
    }
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        bool fits = t->name_len <= UINT32_MAX;
        for (uint32_t d = 0; d < t->n_dims; d++)
            fits = fits && t->dims[d] <= UINT32_MAX;
        if (!fits)
            return gguf__fail(err, GGUF_EUNSUPPORTED, GGUF_ERROR_NO_OFFSET,
                              "tensor %zu does not fit GGUF v1's 32-bit fields", i);
    }
    return 0;
}

/* The padding entry: key, type ARRAY, element type UINT8, count, then n zero bytes. */
static void emit_padding(gguf__sink *s, uint64_t n) {
    size_t klen = strlen(GGUF_PADDING_KEY);
    gguf__sink_len(s, klen);
    gguf__buf_add(&s->b, GGUF_PADDING_KEY, klen);
    gguf__sink_u32(s, GGUF_VTYPE_ARRAY);
    gguf__sink_u32(s, GGUF_VTYPE_U8);
    gguf__sink_len(s, n);
    gguf__buf_zeros(&s->b, (size_t)n);
}

uint64_t gguf__padding_overhead(bool wide) {
    uint64_t w = wide ? 8 : 4;
    return w + strlen(GGUF_PADDING_KEY) + 4 + 4 + w;
}

int gguf__header_serialize(gguf__sink *s, const gguf_file *f, uint32_t version, bool big,
                           const uint64_t *offsets, int64_t padding, gguf_error *err) {
    if (version == 1) {
        int rc = check_v1(f, err);
        if (rc != 0)
            return rc;
    }
    s->big = big;
    s->wide = version >= 2;
    int64_t pad_at = padding == GGUF__PAD_KEEP ? -1 : gguf_kv_find(f, GGUF_PADDING_KEY);
    uint64_t n_kv = f->n_kv;
    if (padding == GGUF__PAD_DROP && pad_at >= 0)
        n_kv--;
    else if (padding >= 0 && pad_at < 0)
        n_kv++;
    gguf__buf_add(&s->b, "GGUF", 4);
    gguf__sink_u32(s, version);
    gguf__sink_len(s, f->n_tensors);
    gguf__sink_len(s, n_kv);
    for (size_t i = 0; i < f->n_kv; i++) {
        const gguf__kv *kv = &f->kv[i];
        if ((int64_t)i == pad_at) {
            if (padding >= 0)
                emit_padding(s, (uint64_t)padding);
            continue;
        }
        gguf__sink_len(s, kv->key_len);
        gguf__buf_add(&s->b, kv->key, (size_t)kv->key_len);
        gguf__sink_u32(s, kv->value.type);
        gguf__value_emit(s, &kv->value);
    }
    if (padding >= 0 && pad_at < 0)
        emit_padding(s, (uint64_t)padding);
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gguf__tensor *t = &f->tensors[i];
        gguf__sink_len(s, t->name_len);
        gguf__buf_add(&s->b, t->name, (size_t)t->name_len);
        gguf__sink_u32(s, t->n_dims);
        for (uint32_t d = 0; d < t->n_dims; d++)
            gguf__sink_len(s, t->dims[d]);
        gguf__sink_u32(s, t->type);
        gguf__sink_u64(s, offsets ? offsets[i] : t->offset);
    }
    if (s->b.failed)
        return gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET,
                          "out of memory while serializing the header");
    return 0;
}

int gguf__header_fit(gguf__buf *out, int64_t *padding_out, const gguf_file *f,
                     uint64_t data_offset, uint64_t room, bool use_padding, gguf_error *err) {
    gguf__sink h = {.big = f->big, .wide = f->version >= 2};
    bool has = gguf_kv_find(f, GGUF_PADDING_KEY) >= 0;
    int64_t padding = GGUF__PAD_KEEP;
    /* the region's size at once: both passes below write into the same memory, never moved */
    if (data_offset <= SIZE_MAX)
        gguf__buf_reserve(&h.b, (size_t)data_offset);
    int rc = gguf__header_serialize(&h, f, f->version, f->big, NULL,
                                    has || use_padding ? GGUF__PAD_DROP : GGUF__PAD_KEEP, err);
    uint64_t size = h.b.len, end;
    if (rc == 0 && !has && !use_padding) {
        /* no padding to adjust: the header fits when it rounds up to the data offset */
        if (!gguf__align_up(&end, size, f->alignment) || end != data_offset)
            rc = GGUF_ELIMIT;
    } else if (rc == 0) {
        uint64_t over = gguf__padding_overhead(h.wide);
        if (size > data_offset || data_offset - size < over ||
            data_offset - size - over < room || data_offset - size - over > (uint64_t)INT64_MAX) {
            rc = GGUF_ELIMIT;
        } else {
            padding = (int64_t)(data_offset - size - over);
            h.b.len = 0;
            rc = gguf__header_serialize(&h, f, f->version, f->big, NULL, padding, err);
        }
    }
    if (rc == 0) {
        gguf__buf_zeros(&h.b, (size_t)(data_offset - h.b.len)); /* none with padding */
        if (h.b.failed)
            rc = gguf__fail(err, GGUF_ENOMEM, GGUF_ERROR_NO_OFFSET, "out of memory");
    }
    if (rc != 0) {
        gguf__buf_free(&h.b);
        return rc;
    }
    *out = h.b;
    if (padding_out != NULL)
        *padding_out = padding;
    return 0;
}
