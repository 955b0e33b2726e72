/* The compute buffer as ggml-alloc lays it out: a model of the graph llama.cpp builds to reserve
 * it (each tensor's type, shape and strides, its sources, which are views, inputs and outputs,
 * in the order ggml_build_forward_expand visits them) and a replay of ggml-alloc's placement of
 * that graph (ggml_gallocr over ggml_dyn_tallocr: inputs first, best fit among the free blocks
 * below the top, the top otherwise, in-place reuse of a parent used once, each tensor freed
 * after its last reader). The buffer is the highest address reached: exact where the graph is
 * llama.cpp's.
 *
 * Some architectures need it: whether their final hidden states, and so the logits, go above
 * the masks or into the block they leave turns on the sizes and order of every tensor freed
 * before, which no closed form follows (llama_estimate.c has closed forms, within 10%, for the
 * others). Written from ggml.c, ggml-alloc.c, llama-graph.cpp, llama-kv-cache.cpp and the
 * architectures' graphs; tests/cli/estimate.sh compares the result with llama.cpp's. */
#include "llama.h"
#include "base/base.h"

#include <stdio.h>
#include <string.h>

#define TENSOR_ALIGN 32 /* the CPU buffer's alignment of each tensor */
#define NO_TENSOR (-1)
#define MAX_SRC 8 /* ssm_scan reads seven */
#define MAX_EXPERTS 1024 /* LLAMA_MAX_EXPERTS */

/* What the allocator needs to know of an op. */
enum node_kind {
    LEAF = 0, /* GGML_OP_NONE: an input, a weight, a cache */
    NODE,     /* an op writing a tensor of its own */
    INPLACE,  /* an op ggml_op_can_inplace names: may write over a parent used once */
    VIEW      /* a view, reshape, permute, transpose or set_rows: another tensor's bytes */
};

enum tensor_flags {
    T_INPUT = 1 << 0,    /* ggml_set_input: allocated before the first node */
    T_OUTPUT = 1 << 1,   /* ggml_set_output: never freed, never written over */
    T_EXTERNAL = 1 << 2  /* bytes of another buffer (a weight, the KV cache) */
};

typedef struct gtensor {
    int64_t ne[4];
    uint64_t nb[4];
    uint32_t type; /* a gguf dtype */
    uint8_t kind;  /* a node_kind */
    uint8_t flags; /* tensor_flags */
    uint8_t visited;
    uint8_t allocated; /* placed by the allocator and not yet freed */
    int32_t src[MAX_SRC];
    int32_t view_src; /* the tensor whose bytes a view is, NO_TENSOR */
    int32_t n_children, n_views;
    uint64_t addr;
} gtensor;

typedef struct free_block {
    uint64_t offset, size;
} free_block;

typedef struct graph {
    gtensor *t;
    size_t n, cap;
    int32_t *nodes, *leafs; /* the graph's order */
    size_t n_nodes, n_leafs, cap_nodes, cap_leafs;
    int32_t *stack; /* the walk's */
    size_t cap_stack;
    free_block *free; /* sorted by offset; the last one is the top, without end */
    size_t n_free, cap_free;
    uint64_t max_size;
    int oom; /* memory ran out */
    int ovf; /* a shape from the file negative, or past PROD_MAX elements */
} graph;

/* ---- tensors ---- */

/* Beyond this many elements a shape is refused rather than wrapped: no real model comes near,
 * and every product of shapes stays far from 64 bits. */
#define PROD_MAX ((uint64_t)1 << 48)

/* a * b for a shape or an element count from the file's hyperparameters (g->ovf past
 * PROD_MAX) */
static int64_t prod(graph *g, int64_t a, int64_t b) {
    uint64_t r;
    if (a < 0 || b < 0 || !gguf__mul_u64(&r, (uint64_t)a, (uint64_t)b) || r > PROD_MAX) {
        g->ovf = 1;
        return 0;
    }
    return (int64_t)r;
}

static int64_t prod3(graph *g, int64_t a, int64_t b, int64_t c) {
    return prod(g, prod(g, a, b), c);
}

static uint64_t type_size(uint32_t type) {
    return gguf_dtype_block_bytes(type);
}

static uint64_t nbytes(const gtensor *t) {
    for (int i = 0; i < 4; i++) {
        if (t->ne[i] <= 0)
            return 0;
    }
    uint32_t blck = gguf_dtype_block_elems(t->type);
    uint64_t n = blck == 1 ? type_size(t->type) : (uint64_t)t->ne[0] * t->nb[0] / blck;
    for (int i = blck == 1 ? 0 : 1; i < 4; i++)
        n += (uint64_t)(t->ne[i] - 1) * t->nb[i];
    return n;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 256;
    while (n < need)
        n *= 2;
    void *q = gguf__realloc(*p, n * elem);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* A new tensor, contiguous; NO_TENSOR (and g->oom) when memory runs out. */
static int32_t tensor(graph *g, uint32_t type, int64_t ne0, int64_t ne1, int64_t ne2,
                      int64_t ne3, uint8_t kind) {
    if (g->oom || grow((void **)&g->t, &g->cap, g->n + 1, sizeof *g->t) != 0) {
        g->oom = 1;
        return NO_TENSOR;
    }
    gtensor *t = &g->t[g->n];
    memset(t, 0, sizeof *t);
    t->ne[0] = ne0, t->ne[1] = ne1, t->ne[2] = ne2, t->ne[3] = ne3;
    g->ovf |= ne0 < 0 || ne1 < 0 || ne2 < 0 || ne3 < 0; /* hyperparameters that contradict */
    t->type = type;
    t->kind = kind;
    /* the strides, checked: the largest is the tensor's size */
    t->nb[0] = type_size(type);
    t->nb[1] = (uint64_t)prod(g, (int64_t)t->nb[0], ne0 / gguf_dtype_block_elems(type));
    t->nb[2] = (uint64_t)prod(g, (int64_t)t->nb[1], ne1);
    t->nb[3] = (uint64_t)prod(g, (int64_t)t->nb[2], ne2);
    (void)prod(g, (int64_t)t->nb[3], ne3);
    for (int i = 0; i < MAX_SRC; i++)
        t->src[i] = NO_TENSOR;
    t->view_src = NO_TENSOR;
    return (int32_t)g->n++;
}

static gtensor *T(graph *g, int32_t i) {
    return &g->t[i];
}

static int32_t input(graph *g, uint32_t type, int64_t ne0, int64_t ne1, int64_t ne2,
                     int64_t ne3) {
    int32_t r = tensor(g, type, ne0, ne1, ne2, ne3, LEAF);
    if (r != NO_TENSOR)
        T(g, r)->flags = T_INPUT;
    return r;
}

/* A weight or a cache: its shape counts (and for a cache its type), its bytes are elsewhere. */
static int32_t external_typed(graph *g, uint32_t type, int64_t ne0, int64_t ne1, int64_t ne2) {
    int32_t r = tensor(g, type, ne0, ne1, ne2, 1, LEAF);
    if (r != NO_TENSOR)
        T(g, r)->flags = T_EXTERNAL;
    return r;
}

static int32_t external(graph *g, int64_t ne0, int64_t ne1, int64_t ne2) {
    return external_typed(g, GGUF_DTYPE_F32, ne0, ne1, ne2);
}

/* An op's result, its sources a, b, c (NO_TENSOR: none). */
static int32_t op(graph *g, uint8_t kind, uint32_t type, const int64_t ne[4], int32_t a,
                  int32_t b, int32_t c) {
    int32_t r = tensor(g, type, ne[0], ne[1], ne[2], ne[3], kind);
    if (r == NO_TENSOR || a == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    T(g, r)->src[0] = a, T(g, r)->src[1] = b, T(g, r)->src[2] = c;
    return r;
}

/* A result shaped as a (ggml_dup_tensor), of a's type. */
static int32_t same(graph *g, uint8_t kind, int32_t a, int32_t b, int32_t c) {
    if (a == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    int64_t ne[4];
    memcpy(ne, T(g, a)->ne, sizeof ne);
    return op(g, kind, T(g, a)->type, ne, a, b, c);
}

/* A view of a's bytes (from an offset that placement never needs: views are not placed), with
 * shape ne and strides nb (nb[0] a's). */
static int32_t view(graph *g, int32_t a, const int64_t ne[4], const uint64_t nb[4],
                    uint64_t offs) {
    (void)offs;
    /* ne and nb may point into g->t, which making the view can move */
    int64_t shape[4];
    uint64_t strides[4];
    memcpy(shape, ne, sizeof shape);
    memcpy(strides, nb, sizeof strides);
    int32_t r = op(g, VIEW, a == NO_TENSOR ? 0 : T(g, a)->type, shape, a, NO_TENSOR, NO_TENSOR);
    if (r == NO_TENSOR)
        return r;
    gtensor *t = T(g, r), *s = T(g, a);
    memcpy(t->nb, strides, sizeof t->nb);
    t->nb[0] = s->nb[0];
    t->view_src = s->view_src != NO_TENSOR ? s->view_src : a;
    t->flags = T(g, t->view_src)->flags & T_EXTERNAL;
    return r;
}

static int32_t reshape(graph *g, int32_t a, int64_t ne0, int64_t ne1, int64_t ne2,
                       int64_t ne3) {
    if (a == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    int32_t shape = tensor(g, T(g, a)->type, ne0, ne1, ne2, ne3, VIEW);
    if (shape == NO_TENSOR)
        return NO_TENSOR;
    int64_t ne[4] = {ne0, ne1, ne2, ne3};
    uint64_t nb[4];
    memcpy(nb, T(g, shape)->nb, sizeof nb);
    g->n--; /* the shape only gave the strides */
    return view(g, a, ne, nb, 0);
}

static int32_t permute(graph *g, int32_t a, int p0, int p1, int p2, int p3) {
    if (a == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    const gtensor *s = T(g, a);
    int64_t ne[4];
    uint64_t nb[4];
    int p[4] = {p0, p1, p2, p3};
    for (int i = 0; i < 4; i++)
        ne[p[i]] = s->ne[i], nb[p[i]] = s->nb[i];
    int32_t r = view(g, a, ne, nb, 0);
    if (r != NO_TENSOR)
        T(g, r)->nb[0] = nb[0];
    return r;
}

static int32_t mul_mat(graph *g, int32_t a, int32_t b) {
    if (a == NO_TENSOR || b == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    int64_t ne[4] = {T(g, a)->ne[1], T(g, b)->ne[1], T(g, b)->ne[2], T(g, b)->ne[3]};
    return op(g, NODE, GGUF_DTYPE_F32, ne, a, b, NO_TENSOR);
}

static int32_t contiguous(graph *g, int32_t a, int64_t ne0, int64_t ne1) {
    int64_t ne[4] = {ne0, ne1, 1, 1};
    return op(g, NODE, a == NO_TENSOR ? 0 : T(g, a)->type, ne, a, NO_TENSOR, NO_TENSOR);
}

static int64_t nelements(graph *g, int32_t a) {
    const gtensor *t = T(g, a);
    return t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3];
}

/* ---- the order: ggml_build_forward_expand ---- */

static int push(int32_t **list, size_t *n, size_t *cap, int32_t i) {
    if (grow((void **)list, cap, *n + 1, sizeof **list) != 0)
        return -1;
    (*list)[(*n)++] = i;
    return 0;
}

/* Appends the tensors `root` reads, then root, each once: sources in order, depth first (a
 * walk with a stack of its own, for graphs as deep as their layers). Leaves (ops NONE) go to
 * their own list, which the allocator places first. */
static void expand(graph *g, int32_t root) {
    if (root == NO_TENSOR || g->oom) {
        g->oom = 1;
        return;
    }
    size_t depth = 0;
    if (T(g, root)->visited || push(&g->stack, &depth, &g->cap_stack, root) != 0)
        return;
    T(g, root)->visited = 1;
    while (depth > 0 && !g->oom) {
        int32_t i = g->stack[depth - 1];
        gtensor *t = T(g, i);
        int32_t next = NO_TENSOR;
        for (int s = 0; s < MAX_SRC && next == NO_TENSOR; s++) {
            if (t->src[s] != NO_TENSOR && !T(g, t->src[s])->visited)
                next = t->src[s];
        }
        if (next != NO_TENSOR) {
            T(g, next)->visited = 1;
            g->oom |= push(&g->stack, &depth, &g->cap_stack, next) != 0;
            continue;
        }
        depth--;
        if (t->kind == LEAF)
            g->oom |= push(&g->leafs, &g->n_leafs, &g->cap_leafs, i) != 0;
        else
            g->oom |= push(&g->nodes, &g->n_nodes, &g->cap_nodes, i) != 0;
    }
}

/* ---- placement: ggml_dyn_tallocr ---- */

static uint64_t align(uint64_t n) {
    return (n + TENSOR_ALIGN - 1) / TENSOR_ALIGN * TENSOR_ALIGN;
}

static void remove_block(graph *g, size_t i) {
    memmove(&g->free[i], &g->free[i + 1], (g->n_free - i - 1) * sizeof *g->free);
    g->n_free--;
}

/* The best fit among the free blocks below the top (the smallest that holds size; of equal
 * ones the highest), else the top. */
static uint64_t place(graph *g, uint64_t size) {
    size = align(size);
    size_t best = g->n_free - 1;
    uint64_t best_size = UINT64_MAX;
    for (size_t i = 0; i + 1 < g->n_free; i++) {
        if (g->free[i].size >= size && g->free[i].size <= best_size)
            best = i, best_size = g->free[i].size;
    }
    free_block *b = &g->free[best];
    uint64_t addr = b->offset;
    b->offset += size;
    b->size -= size;
    if (b->size == 0)
        remove_block(g, best);
    if (addr + size > g->max_size)
        g->max_size = addr + size;
    return addr;
}

/* Returns [addr, addr + size) to the free blocks, merged with its neighbours. */
static void release(graph *g, uint64_t addr, uint64_t size) {
    size = align(size);
    for (size_t i = 0; i < g->n_free; i++) {
        free_block *b = &g->free[i];
        if (b->offset + b->size == addr) {
            b->size += size;
            if (i + 1 < g->n_free && b->offset + b->size == g->free[i + 1].offset) {
                b->size += g->free[i + 1].size;
                remove_block(g, i + 1);
            }
            return;
        }
        if (addr + size == b->offset) {
            b->offset = addr;
            b->size += size;
            if (i > 0 && g->free[i - 1].offset + g->free[i - 1].size == b->offset) {
                g->free[i - 1].size += b->size;
                remove_block(g, i);
            }
            return;
        }
    }
    if (grow((void **)&g->free, &g->cap_free, g->n_free + 1, sizeof *g->free) != 0) {
        g->oom = 1;
        return;
    }
    size_t at = 0;
    while (at < g->n_free && g->free[at].offset < addr)
        at++;
    memmove(&g->free[at + 1], &g->free[at], (g->n_free - at) * sizeof *g->free);
    g->free[at] = (free_block){addr, size};
    g->n_free++;
}

/* ---- placement: ggml_gallocr ---- */

static int same_layout(const gtensor *a, const gtensor *b) {
    if (a->type != b->type)
        return 0;
    for (int i = 0; i < 4; i++) {
        if (a->ne[i] != b->ne[i] || a->nb[i] != b->nb[i])
            return 0;
    }
    return 1;
}

/* Places tensor i unless it is placed, a view or external: over a parent that only it reads
 * (an in-place op of the same layout; what the parent has beyond it freed), else in a free
 * block. */
static void allocate(graph *g, int32_t i) {
    gtensor *t = T(g, i);
    if (t->allocated || t->kind == VIEW || (t->flags & T_EXTERNAL))
        return;
    t->allocated = 1;
    if (t->kind == INPLACE) {
        for (int s = 0; s < MAX_SRC; s++) {
            if (t->src[s] == NO_TENSOR)
                continue;
            gtensor *p = T(g, t->src[s]);
            /* views are never placed, so never written over */
            if (!p->allocated || (p->flags & T_OUTPUT) || !same_layout(t, p) ||
                p->n_children != 1 || p->n_views != 0)
                continue;
            t->addr = p->addr;
            p->allocated = 0;
            uint64_t have = align(nbytes(p)), need = align(nbytes(t));
            if (have > need)
                release(g, p->addr + need, have - need);
            return;
        }
    }
    t->addr = place(g, nbytes(t));
}

static void free_tensor(graph *g, gtensor *t) {
    if (t->flags & T_OUTPUT)
        return;
    release(g, t->addr, nbytes(t));
    t->allocated = 0;
}

/* Replays ggml_gallocr_alloc_graph_impl over g: returns the buffer's size. */
static uint64_t allocate_graph(graph *g) {
    if (grow((void **)&g->free, &g->cap_free, 1, sizeof *g->free) != 0) {
        g->oom = 1;
        return 0;
    }
    g->free[0] = (free_block){0, UINT64_MAX / 2};
    g->n_free = 1;
    for (size_t i = 0; i < g->n_leafs; i++)
        allocate(g, g->leafs[i]);
    for (size_t i = 0; i < g->n_nodes; i++) {
        gtensor *t = T(g, g->nodes[i]);
        if (t->kind == VIEW)
            T(g, t->view_src)->n_views++;
        if (t->flags & T_INPUT)
            allocate(g, g->nodes[i]);
        for (int s = 0; s < MAX_SRC; s++) {
            if (t->src[s] == NO_TENSOR)
                continue;
            T(g, t->src[s])->n_children++;
            if (T(g, t->src[s])->flags & T_INPUT)
                allocate(g, t->src[s]);
        }
    }
    for (size_t i = 0; i < g->n_nodes && !g->oom; i++) {
        int32_t n = g->nodes[i];
        for (int s = 0; s < MAX_SRC; s++) {
            if (T(g, n)->src[s] != NO_TENSOR)
                allocate(g, T(g, n)->src[s]);
        }
        allocate(g, n);
        for (int s = 0; s < MAX_SRC; s++) {
            if (T(g, n)->src[s] == NO_TENSOR)
                continue;
            gtensor *p = T(g, T(g, n)->src[s]);
            if (--p->n_children != 0 || p->n_views != 0)
                continue;
            if (p->kind == VIEW) {
                gtensor *v = T(g, p->view_src);
                if (--v->n_views == 0 && v->n_children == 0 && v->allocated)
                    free_tensor(g, v);
            } else if (p->allocated) {
                free_tensor(g, p);
            }
        }
    }
    return g->max_size;
}

/* ---- llama.cpp's graph ---- */

/* What a graph is built for: llama_context's reserve of the largest batch. */
struct build {
    graph *g;
    const gguf__llama_hparams *hp;
    const gguf_file *f;
    const gguf__llama_graph_params *p;
    int64_t T;                   /* the batch's tokens */
    int64_t v_max;               /* the widest layer's V (a transposed V cache's row) */
    int32_t pos, out_ids;
    int32_t rs_main, rs_extra; /* the recurrent states' rows: the batch's sequences', others' */
    struct kv_in {               /* a cache's inputs: [0] full attention's, [1] sliding */
        int32_t k_idxs, v_idxs, mask, k_rot, v_rot;
        int64_t n_kv;
    } kv[2];
};

static int64_t head_k(const gguf__llama_hparams *hp, int il) {
    return hp->is_swa[il] ? hp->n_embd_head_k_swa : hp->n_embd_head_k;
}

static int64_t head_v(const gguf__llama_hparams *hp, int il) {
    return hp->is_swa[il] ? hp->n_embd_head_v_swa : hp->n_embd_head_v;
}

/* The file has layer il's tensor NAME ("attn_q.bias"; il -1: the model's, "output.bias"). */
static int has(const struct build *b, int il, const char *name) {
    char full[96];
    if (il >= 0)
        snprintf(full, sizeof full, "blk.%d.%s", il, name);
    else
        snprintf(full, sizeof full, "%s", name);
    return gguf_tensor_find(b->f, full) >= 0;
}

/* Layer il's tensor NAME as an external of shape ne0 x ne1 x ne2, or NO_TENSOR when the file
 * has none. */
static int32_t weight(struct build *b, int il, const char *name, int64_t ne0, int64_t ne1,
                      int64_t ne2) {
    return has(b, il, name) ? external(b->g, ne0, ne1, ne2) : NO_TENSOR;
}

/* x + bias, when there is a bias */
static int32_t add_bias(struct build *b, int32_t x, int32_t bias) {
    return bias == NO_TENSOR ? x : same(b->g, INPLACE, x, bias, NO_TENSOR);
}

/* The rows of x for the batch's outputs (get_rows with the output ids): [x's width, outputs]. */
static int32_t output_rows(struct build *b, int32_t x) {
    if (x == NO_TENSOR)
        return b->g->oom = 1, NO_TENSOR;
    int64_t ne[4] = {T(b->g, x)->ne[0], b->p->n_outputs, 1, 1};
    return op(b->g, NODE, GGUF_DTYPE_F32, ne, x, b->out_ids, NO_TENSOR);
}

/* build_norm with LLM_NORM_RMS: x normed, scaled by layer il's (-1: the model's) norm NAME
 * ("NAME.weight", or NAME itself: plamo2 names some so) and shifted by "NAME.bias", each when
 * the model has it. */
static int32_t norm(struct build *b, int32_t x, int il, const char *name, int64_t width) {
    char w[64], bias[64];
    snprintf(w, sizeof w, "%s.weight", name);
    snprintf(bias, sizeof bias, "%s.bias", name);
    int32_t mw = weight(b, il, w, width, 1, 1);
    if (mw == NO_TENSOR)
        mw = weight(b, il, name, width, 1, 1);
    x = same(b->g, INPLACE, x, NO_TENSOR, NO_TENSOR);
    if (mw != NO_TENSOR)
        x = same(b->g, INPLACE, x, mw, NO_TENSOR);
    return add_bias(b, x, weight(b, il, bias, width, 1, 1));
}

/* The output: the final norm (an output: the embeddings) and the logits, biased when the
 * model has an output bias; where the final hidden states are kept for next-token prediction
 * (rows_after), the outputs' rows are taken after the norm, both outputs. */
static int32_t logits_of(struct build *b, int32_t x, int rows_after) {
    graph *g = b->g;
    int64_t E = b->hp->n_embd;
    x = norm(b, x, -1, "output_norm", E);
    if (x != NO_TENSOR)
        T(g, x)->flags |= T_OUTPUT;
    if (rows_after && x != NO_TENSOR) {
        x = output_rows(b, x);
        if (x != NO_TENSOR)
            T(g, x)->flags |= T_OUTPUT;
    }
    if (x == NO_TENSOR)
        return NO_TENSOR;
    int32_t logits = mul_mat(g, external(g, E, b->p->n_vocab, 1), x);
    return add_bias(b, logits, weight(b, -1, "output.bias", b->p->n_vocab, 1, 1));
}

/* llama_mul_mat_hadamard: x rotated by rot, n values at a time. */
static int32_t hadamard(struct build *b, int32_t x, int32_t rot) {
    graph *g = b->g;
    if (x == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    int64_t n = T(g, rot)->ne[0], ne[4];
    memcpy(ne, T(g, x)->ne, sizeof ne);
    const gtensor *t = T(g, x);
    int contig = t->nb[1] == t->nb[0] * (uint64_t)t->ne[0] &&
                 t->nb[2] == t->nb[1] * (uint64_t)t->ne[1] &&
                 t->nb[3] == t->nb[2] * (uint64_t)t->ne[2];
    int64_t rows = nelements(g, x) / n;
    int32_t r = contig ? reshape(g, x, n, rows, 1, 1) : contiguous(g, x, n, rows);
    r = mul_mat(g, rot, r);
    return reshape(g, r, ne[0], ne[1], ne[2], ne[3]);
}

/* A store into the cache (set_rows, a view of the cache): its sources x, the rows' ids and the
 * cache. */
static int32_t store(graph *g, int32_t cache, int32_t x, int32_t ids) {
    int32_t r = view(g, cache, T(g, cache)->ne, T(g, cache)->nb, 0);
    if (r != NO_TENSOR)
        T(g, r)->src[0] = x, T(g, r)->src[1] = ids, T(g, r)->src[2] = cache;
    return r;
}

/* Which of llama.cpp's attention inputs a layer's build_attn reads. */
enum attn_kind {
    ATTN_KV = 0, /* llm_graph_input_attn_kv: Q, V, K expanded in that order */
    ATTN_KV_ISWA, /* llm_graph_input_attn_kv_iswa: Q, K, V */
    ATTN_K       /* llm_graph_input_attn_k: a K cache alone (a latent one), V a view of K's
                    first rows, nothing rotated */
};

/* build_attn over the KV cache of layer il: Q, K and V rotated when the cache is, expanded with
 * the cache's stores, then build_attn_mha (V's latent rows projected out by v_mla when given),
 * and the output's rotation back; returns the attention's output, before the output projection.
 * q, k, v: [head, heads, tokens]; k and v NO_TENSOR for a layer reading another's cache. */
static int32_t attention_core(struct build *b, int il, int32_t q, int32_t k, int32_t v,
                              int kind, int32_t v_mla) {
    graph *g = b->g;
    const gguf__llama_graph_params *p = b->p;
    const gguf__llama_hparams *hp = b->hp;
    const struct kv_in *in = &b->kv[hp->is_swa[il] ? 1 : 0];
    int k_only = kind == ATTN_K;
    int64_t hk = k_only && k != NO_TENSOR ? T(g, k)->ne[0] : head_k(hp, il);
    int64_t hv = k_only && v != NO_TENSOR ? T(g, v)->ne[0] : head_v(hp, il);
    int64_t hkv = k_only ? 1 : hp->n_head_kv[il];
    int64_t ns = p->n_stream, n_kv = in->n_kv, cells = in->n_kv;
    int64_t kw = prod(g, hk, hkv), vw = prod(g, hv, hkv);
    int64_t v_row = p->flash ? vw : b->v_max;
    int32_t k_rot = k_only ? NO_TENSOR : in->k_rot, v_rot = k_only ? NO_TENSOR : in->v_rot;
    if (k_rot != NO_TENSOR) {
        q = hadamard(b, q, k_rot);
        if (k != NO_TENSOR)
            k = hadamard(b, k, k_rot);
    }
    if (v_rot != NO_TENSOR && v != NO_TENSOR)
        v = hadamard(b, v, v_rot);
    expand(g, q);
    if (k != NO_TENSOR)
        expand(g, kind == ATTN_KV_ISWA ? k : v), expand(g, kind == ATTN_KV_ISWA ? v : k);
    if (g->oom)
        return NO_TENSOR;
    int32_t cache_k = external_typed(g, p->type_k, kw, cells, ns);
    int32_t cache_v = k_only ? NO_TENSOR : external_typed(g, p->type_v, v_row, cells, ns);
    if (k != NO_TENSOR) {
        /* the stores: K's rows; V's rows, or with V transposed one element a row (its row
         * padded to the widest layer's) */
        int64_t ne2[4] = {kw, b->T, 1, 1};
        uint64_t row = T(g, k)->nb[2];
        uint64_t nb2[4] = {0, row, row * b->T, row * b->T};
        expand(g, store(g, cache_k, view(g, k, ne2, nb2, 0), in->k_idxs));
    }
    if (k != NO_TENSOR && !k_only) {
        int32_t v2;
        const gtensor *t = T(g, v);
        if (p->flash) {
            int64_t nev[4] = {vw, b->T, 1, 1};
            uint64_t nbv[4] = {0, t->nb[2], t->nb[2] * b->T, t->nb[2] * b->T};
            v2 = view(g, v, nev, nbv, 0);
        } else {
            v2 = t->nb[2] == t->nb[0] * (uint64_t)vw ? reshape(g, v, vw, b->T, 1, 1)
                                                     : contiguous(g, v, vw, b->T);
            if (vw < b->v_max)
                v2 = contiguous(g, v2, b->v_max, b->T); /* ggml_pad */
            v2 = reshape(g, v2, 1, nelements(g, v2), 1, 1);
        }
        expand(g, store(g, cache_v, v2, in->v_idxs));
    }
    /* build_attn_mha */
    if (g->oom)
        return NO_TENSOR;
    const gtensor *qt = T(g, q);
    int64_t neq[4] = {qt->ne[0], qt->ne[1], qt->ne[2] / ns, ns};
    uint64_t nbq[4] = {0, qt->nb[1], qt->nb[2], qt->nb[3] / (uint64_t)ns};
    q = permute(g, view(g, q, neq, nbq, 0), 0, 2, 1, 3);
    int64_t nek[4] = {hk, hkv, n_kv, ns};
    uint64_t el_k = T(g, cache_k)->nb[0];
    uint64_t nbk[4] = {0, el_k * hk, T(g, cache_k)->nb[1], T(g, cache_k)->nb[2]};
    int32_t kview = view(g, cache_k, nek, nbk, 0);
    k = permute(g, kview, 0, 2, 1, 3);
    if (k_only && kview != NO_TENSOR) { /* V: the first hv of each K row */
        int64_t nev[4] = {hv, hkv, n_kv, ns};
        v = permute(g, view(g, kview, nev, T(g, kview)->nb, 0), 0, 2, 1, 3);
    }
    uint64_t el_v = k_only ? 0 : T(g, cache_v)->nb[0];
    int32_t cur;
    if (p->flash) {
        if (!k_only) {
            int64_t nev[4] = {hv, hkv, n_kv, ns};
            uint64_t nbv[4] = {0, el_v * hv, T(g, cache_v)->nb[1], T(g, cache_v)->nb[2]};
            v = permute(g, view(g, cache_v, nev, nbv, 0), 0, 2, 1, 3);
        }
        if (g->oom)
            return NO_TENSOR;
        int64_t ne[4] = {T(g, v)->ne[0], T(g, q)->ne[2], T(g, q)->ne[1], T(g, q)->ne[3]};
        cur = op(g, NODE, GGUF_DTYPE_F32, ne, q, k, v);
        if (cur != NO_TENSOR)
            T(g, cur)->src[3] = in->mask;
        if (v_mla != NO_TENSOR) { /* the latent V's rows projected to V's own */
            cur = permute(g, mul_mat(g, v_mla, permute(g, cur, 0, 2, 1, 3)), 0, 2, 1, 3);
            if (cur == NO_TENSOR)
                return NO_TENSOR;
            int64_t nec[4];
            memcpy(nec, T(g, cur)->ne, sizeof nec);
            cur = op(g, NODE, GGUF_DTYPE_F32, nec, cur, NO_TENSOR, NO_TENSOR); /* cont */
        }
        if (cur == NO_TENSOR)
            return NO_TENSOR;
        const int64_t *n = T(g, cur)->ne;
        cur = reshape(g, cur, n[0] * n[1], n[2] * n[3], 1, 1);
    } else {
        if (!k_only) {
            int64_t nev[4] = {n_kv, hkv, hv, ns};
            uint64_t nbv[4] = {0, el_v * cells * hv, el_v * cells, T(g, cache_v)->nb[2]};
            v = permute(g, view(g, cache_v, nev, nbv, 0), 0, 2, 1, 3);
        } else if (v != NO_TENSOR) { /* not stored transposed: made so */
            v = permute(g, v, 1, 0, 2, 3);
            if (v == NO_TENSOR)
                return NO_TENSOR;
            int64_t nec[4];
            memcpy(nec, T(g, v)->ne, sizeof nec);
            v = op(g, NODE, T(g, v)->type, nec, v, NO_TENSOR, NO_TENSOR); /* cont */
        }
        int32_t kq = mul_mat(g, k, q);
        kq = same(g, INPLACE, kq, in->mask, NO_TENSOR); /* soft_max_ext */
        int32_t kqv = mul_mat(g, v, kq);
        if (v_mla != NO_TENSOR)
            kqv = mul_mat(g, v_mla, kqv);
        kqv = permute(g, kqv, 0, 2, 1, 3);
        if (kqv == NO_TENSOR)
            return NO_TENSOR;
        cur = contiguous(g, kqv, T(g, kqv)->ne[0] * T(g, kqv)->ne[1],
                         T(g, kqv)->ne[2] * T(g, kqv)->ne[3]);
    }
    expand(g, cur);
    if (v_rot != NO_TENSOR)
        cur = hadamard(b, cur, v_rot);
    return cur;
}

/* attention_core with the output projection (and its bias when there is one). */
static int32_t attention(struct build *b, int il, int32_t q, int32_t k, int32_t v, int kind) {
    graph *g = b->g;
    int32_t cur = attention_core(b, il, q, k, v, kind, NO_TENSOR);
    if (cur == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    int64_t E = b->hp->n_embd;
    cur = mul_mat(g, external(g, T(g, cur)->ne[0], E, 1), cur);
    return add_bias(b, cur, weight(b, il, "attn_output.bias", E, 1, 1));
}

/* build_lora_mm_id: the chosen experts' product, times each expert's scale (exps_s) when the
 * model has one. ne: the product's shape. */
static int32_t experts_mm(struct build *b, int il, const char *name, const int64_t ne[4],
                          int64_t in, int32_t x, int32_t selected) {
    graph *g = b->g;
    char full[64];
    snprintf(full, sizeof full, "%s.weight", name);
    int64_t n_exp = b->hp->n_expert, T_ = b->T;
    int32_t r = op(g, NODE, GGUF_DTYPE_F32, ne, external(g, in, ne[0], n_exp), x, selected);
    snprintf(full, sizeof full, "%s.scale", name);
    int32_t scale = weight(b, il, full, n_exp, 1, 1);
    if (scale == NO_TENSOR)
        return r;
    int64_t ne_rep[4] = {1, n_exp, T_, 1}, ne_s[4] = {1, ne[1], T_, 1};
    int32_t s = op(g, NODE, GGUF_DTYPE_F32, ne_rep, reshape(g, scale, 1, n_exp, 1, 1),
                   NO_TENSOR, NO_TENSOR); /* repeat_4d */
    s = op(g, NODE, GGUF_DTYPE_F32, ne_s, s, selected, NO_TENSOR); /* get_rows */
    return same(g, INPLACE, r, s, NO_TENSOR);
}

/* How an architecture's build_moe_ffn chooses and weighs its experts. */
struct moe_opts {
    int32_t logits; /* the router's logits, NO_TENSOR: the layer's ffn_gate_inp over x */
    int biased;     /* experts chosen by probabilities plus exp_probs_b */
    int norm;       /* the chosen experts' weights normalized to sum 1 */
};

/* build_moe_ffn: the router's probabilities (softmax or sigmoid, both in place), the experts
 * chosen, their weights (normalized or not), gated experts (a GLU op over the gate and up
 * products, or over the halves of one fused product), the down products weighted and summed. */
static int32_t moe(struct build *b, int il, int32_t x, struct moe_opts o) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd, n_exp = hp->n_expert, used = hp->n_expert_used[il];
    int64_t ff = hp->n_ff_exp[il] ? hp->n_ff_exp[il] : hp->n_ff[il], T_ = b->T;
    int32_t logits = o.logits;
    if (logits == NO_TENSOR)
        logits = mul_mat(g, external(g, E, n_exp, 1), x);
    int32_t probs = same(g, INPLACE, logits, NO_TENSOR, NO_TENSOR); /* soft_max, sigmoid */
    int32_t chooser = o.biased ? same(g, INPLACE, probs, external(g, n_exp, 1, 1), NO_TENSOR)
                               : probs;
    int64_t ne_ids[4] = {n_exp, T_, 1, 1};
    int32_t sorted = op(g, NODE, GGUF_DTYPE_I32, ne_ids, chooser, NO_TENSOR, NO_TENSOR);
    if (sorted == NO_TENSOR)
        return NO_TENSOR;
    int64_t ne_top[4] = {used, T_, 1, 1};
    int32_t selected = view(g, sorted, ne_top, T(g, sorted)->nb, 0); /* argsort_top_k */
    int32_t probs3 = reshape(g, probs, 1, n_exp, T_, 1);
    int64_t ne_w[4] = {1, used, T_, 1};
    int32_t w = op(g, NODE, GGUF_DTYPE_F32, ne_w, probs3, selected, NO_TENSOR); /* get_rows */
    if (o.norm) {
        w = reshape(g, w, used, T_, 1, 1);
        int64_t ne_sum[4] = {1, T_, 1, 1};
        int32_t sum = op(g, NODE, GGUF_DTYPE_F32, ne_sum, w, NO_TENSOR, NO_TENSOR);
        sum = same(g, INPLACE, sum, NO_TENSOR, NO_TENSOR); /* clamp */
        w = same(g, INPLACE, w, sum, NO_TENSOR);             /* div */
        w = reshape(g, w, 1, used, T_, 1);
    }
    expand(g, w);
    x = reshape(g, x, E, 1, T_, 1);
    int32_t up, gate;
    if (has(b, il, "ffn_gate_up_exps.weight")) {
        int64_t ne2[4] = {prod(g, 2, ff), used, T_, 1};
        int32_t both = experts_mm(b, il, "ffn_gate_up_exps", ne2, E, x, selected);
        if (both == NO_TENSOR)
            return NO_TENSOR;
        int64_t ne[4] = {ff, used, T_, 1};
        gate = view(g, both, ne, T(g, both)->nb, 0);
        up = view(g, both, ne, T(g, both)->nb, (uint64_t)ff * T(g, both)->nb[0]);
    } else {
        int64_t ne[4] = {ff, used, T_, 1};
        up = experts_mm(b, il, "ffn_up_exps", ne, E, x, selected);
        gate = experts_mm(b, il, "ffn_gate_exps", ne, E, x, selected);
    }
    int32_t act = same(g, NODE, gate, up, NO_TENSOR); /* swiglu, geglu */
    int64_t ne_out[4] = {E, used, T_, 1};
    int32_t experts = experts_mm(b, il, "ffn_down_exps", ne_out, ff, act, selected);
    experts = same(g, INPLACE, experts, w, NO_TENSOR);
    expand(g, experts);
    if (g->oom)
        return NO_TENSOR;
    int32_t out = NO_TENSOR;
    for (int64_t i = 0; i < used; i++) {
        int64_t ne[4] = {E, T_, 1, 1};
        uint64_t nb[4] = {0, T(g, experts)->nb[2], T(g, experts)->nb[2] * T_,
                          T(g, experts)->nb[2] * T_};
        int32_t one = view(g, experts, ne, nb, (uint64_t)i * T(g, experts)->nb[1]);
        expand(g, one);
        if (out == NO_TENSOR) {
            out = one;
        } else {
            out = op(g, INPLACE, GGUF_DTYPE_F32, ne, out, one, NO_TENSOR);
            expand(g, out);
        }
    }
    return used == 1 ? contiguous(g, out, E, T_) : out;
}

/* Q, K and V of layer il from x: one fused projection (views of it) or three, each with its
 * bias when there is one; [head, heads, tokens]. */
static void qkv(struct build *b, int il, int32_t x, int32_t *q, int32_t *k, int32_t *v) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd, hd = hp->n_embd_head_k, h = hp->n_head[il], hkv = hp->n_head_kv[il];
    int64_t nq = prod(g, hd, h), nkv = prod(g, hd, hkv);
    int32_t w = weight(b, il, "attn_qkv.weight", E, nq + 2 * nkv, 1);
    if (w != NO_TENSOR) {
        int32_t all = add_bias(b, mul_mat(g, w, x), weight(b, il, "attn_qkv.bias", nq + 2 * nkv,
                                                              1, 1));
        if (all == NO_TENSOR)
            return;
        uint64_t row = T(g, all)->nb[1], el = T(g, all)->nb[0];
        int64_t neq[4] = {hd, h, b->T, 1}, nek[4] = {hd, hkv, b->T, 1};
        uint64_t nb[4] = {0, el * hd, row, row * b->T};
        *q = view(g, all, neq, nb, 0);
        *k = view(g, all, nek, nb, el * nq);
        *v = view(g, all, nek, nb, el * (nq + nkv));
        return;
    }
    *q = add_bias(b, mul_mat(g, external(g, E, nq, 1), x),
                  weight(b, il, "attn_q.bias", nq, 1, 1));
    *k = add_bias(b, mul_mat(g, external(g, E, nkv, 1), x),
                  weight(b, il, "attn_k.bias", nkv, 1, 1));
    *v = add_bias(b, mul_mat(g, external(g, E, nkv, 1), x),
                  weight(b, il, "attn_v.bias", nkv, 1, 1));
    *q = reshape(g, *q, hd, h, b->T, 1);
    *k = reshape(g, *k, hd, hkv, b->T, 1);
    *v = reshape(g, *v, hd, hkv, b->T, 1);
}

/* phi3's graph (phimoe's): norms with biases, roped Q and K, Q scaled, experts; returns the
 * logits. */
static int32_t build_phi3(struct build *b, int32_t x) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd;
    for (uint32_t il = 0; il < hp->n_layer && !g->oom; il++) {
        int32_t residual = x, q = NO_TENSOR, k = NO_TENSOR, v = NO_TENSOR;
        int32_t h = norm(b, x, (int)il, "attn_norm", E);
        qkv(b, (int)il, h, &q, &k, &v);
        if (g->oom)
            break;
        q = same(g, INPLACE, q, b->pos, NO_TENSOR); /* rope */
        k = same(g, INPLACE, k, b->pos, NO_TENSOR);
        q = same(g, INPLACE, q, NO_TENSOR, NO_TENSOR); /* scale */
        int32_t cur = attention(b, (int)il, q, k, v, ATTN_KV);
        if (il == hp->n_layer - 1) { /* only the outputs' rows on */
            cur = output_rows(b, cur);
            residual = output_rows(b, residual);
        }
        cur = same(g, INPLACE, cur, residual, NO_TENSOR);
        residual = cur;
        cur = norm(b, cur, (int)il, "ffn_norm", E);
        cur = moe(b, (int)il, cur, (struct moe_opts){NO_TENSOR, 0, 1});
        x = same(g, INPLACE, residual, cur, NO_TENSOR);
    }
    return logits_of(b, x, 0);
}

/* An unsigned key of the architecture ("embedding_length_per_layer_input"), or 0. */
static int64_t arch_u64(const struct build *b, const char *suffix) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s", b->hp->arch, suffix);
    int64_t i = gguf_kv_find(b->f, key);
    uint64_t v = 0;
    if (i < 0 || gguf_value_get_u64(&v, gguf_kv_value(b->f, (size_t)i), NULL) != 0)
        return 0;
    return v > INT32_MAX ? 0 : (int64_t)v;
}

/* build_ffn with a gate beside the up projection, activated by a fused GLU op (GEGLU,
 * SWIGLU: not in place), and the down projection. */
static int32_t ffn_gated(struct build *b, int32_t x, int64_t ff) {
    graph *g = b->g;
    int64_t E = b->hp->n_embd;
    int32_t up = mul_mat(g, external(g, E, ff, 1), x);
    int32_t gate = mul_mat(g, external(g, E, ff, 1), x);
    int32_t act = same(g, NODE, gate, up, NO_TENSOR);
    return mul_mat(g, external(g, ff, E, 1), act);
}

/* gemma4's graph: embeddings scaled; per-layer inputs (their own token rows, and a projection
 * of the embeddings, normed, added, made contiguous per layer) when the model has them; Q, K
 * normed per head and roped, V normed; layers past the cache-keeping ones read earlier
 * layers' caches; norms after the attention and the feed-forward; the final hidden states and
 * their outputs' rows both outputs; the logits soft-capped in place. */
static int32_t build_gemma4(struct build *b, int32_t x) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd, T_ = b->T, L = hp->n_layer;
    x = same(g, INPLACE, x, NO_TENSOR, NO_TENSOR); /* scaled by sqrt(E) */
    int64_t per = arch_u64(b, "embedding_length_per_layer_input");
    int32_t per_layer = NO_TENSOR;
    if (has(b, -1, "per_layer_token_embd.weight") && per > 0) {
        int64_t all = prod(g, per, L); /* every layer's slice */
        int32_t tokens = input(g, GGUF_DTYPE_I32, T_, 1, 1, 1);
        int64_t ne[4] = {all, T_, 1, 1};
        int32_t rows = op(g, NODE, GGUF_DTYPE_F32, ne, external(g, all, b->p->n_vocab, 1), tokens,
                          NO_TENSOR);
        rows = same(g, INPLACE, reshape(g, rows, per, L, T_, 1), NO_TENSOR, NO_TENSOR);
        expand(g, rows);
        int32_t proj = same(g, INPLACE, mul_mat(g, external(g, E, all, 1), x), NO_TENSOR,
                            NO_TENSOR);
        proj = norm(b, reshape(g, proj, per, L, T_, 1), -1, "per_layer_proj_norm", per);
        proj = same(g, INPLACE, same(g, INPLACE, proj, rows, NO_TENSOR), NO_TENSOR, NO_TENSOR);
        proj = permute(g, proj, 0, 2, 1, 3);
        if (proj == NO_TENSOR)
            return NO_TENSOR;
        int64_t nec[4] = {per, T_, L, 1};
        per_layer = op(g, NODE, GGUF_DTYPE_F32, nec, proj, NO_TENSOR, NO_TENSOR); /* cont */
    }
    for (int il = 0; il < (int)L && !g->oom; il++) {
        int64_t hd = head_k(hp, il), h = hp->n_head[il], hkv = hp->n_head_kv[il];
        int32_t cur = norm(b, x, il, "attn_norm", E);
        int32_t q = reshape(g, mul_mat(g, external(g, E, prod(g, hd, h), 1), cur), hd, h, T_, 1);
        q = same(g, INPLACE, norm(b, q, il, "attn_q_norm", hd), b->pos, NO_TENSOR);
        int32_t k = NO_TENSOR, v = NO_TENSOR;
        if ((uint32_t)il < hp->n_layer_kv_from_start) {
            int32_t kp = mul_mat(g, external(g, E, prod(g, hd, hkv), 1), cur);
            int32_t vp = has(b, il, "attn_v.weight")
                             ? mul_mat(g, external(g, E, prod(g, hd, hkv), 1), cur)
                             : kp; /* without a V projection V is K's */
            k = norm(b, reshape(g, kp, hd, hkv, T_, 1), il, "attn_k_norm", hd);
            v = same(g, INPLACE, reshape(g, vp, hd, hkv, T_, 1), NO_TENSOR, NO_TENSOR);
            k = same(g, INPLACE, k, b->pos, NO_TENSOR);
        }
        cur = attention(b, il, q, k, v, ATTN_KV_ISWA);
        cur = norm(b, cur, il, "post_attention_norm", E);
        int32_t attn_out = same(g, INPLACE, cur, x, NO_TENSOR);
        cur = norm(b, attn_out, il, "ffn_norm", E);
        cur = ffn_gated(b, cur, hp->n_ff[il]);
        if (has(b, il, "ffn_gate_inp.weight")) {
            /* a dense feed-forward beside the experts, each normed after; the router reads
             * the attention's output normed, scaled and weighted per channel */
            cur = norm(b, cur, il, "post_ffw_norm_1", E);
            int32_t in = norm(b, attn_out, il, "pre_ffw_norm_2", E);
            int32_t r = same(g, INPLACE, attn_out, NO_TENSOR, NO_TENSOR);
            r = same(g, INPLACE, same(g, INPLACE, r, NO_TENSOR, NO_TENSOR),
                     external(g, E, 1, 1), NO_TENSOR);
            r = mul_mat(g, external(g, E, hp->n_expert, 1), r);
            int32_t ex = norm(b, moe(b, il, in, (struct moe_opts){r, 0, 1}), il,
                              "post_ffw_norm_2", E);
            cur = same(g, INPLACE, cur, ex, NO_TENSOR);
        }
        cur = norm(b, cur, il, "post_ffw_norm", E);
        cur = same(g, INPLACE, cur, attn_out, NO_TENSOR);
        if (per_layer != NO_TENSOR) {
            int32_t pe_in = cur;
            int32_t gate = mul_mat(g, external(g, E, per, 1), cur);
            gate = same(g, INPLACE, gate, NO_TENSOR, NO_TENSOR); /* gelu */
            int64_t ne[4] = {per, T_, 1, 1};
            uint64_t nb[4] = {0, T(g, per_layer)->nb[1], T(g, per_layer)->nb[2],
                              T(g, per_layer)->nb[2]};
            int32_t mine = view(g, per_layer, ne, nb, (uint64_t)il * T(g, per_layer)->nb[2]);
            cur = same(g, INPLACE, gate, mine, NO_TENSOR);
            cur = mul_mat(g, external(g, per, E, 1), cur);
            cur = norm(b, cur, il, "post_norm", E);
            cur = same(g, INPLACE, pe_in, cur, NO_TENSOR);
        }
        int32_t scale = weight(b, il, "layer_output_scale.weight", 1, 1, 1);
        if (scale != NO_TENSOR)
            cur = same(g, INPLACE, cur, scale, NO_TENSOR);
        x = cur;
    }
    int32_t logits = logits_of(b, x, 1);
    for (int i = 0; i < 3; i++) /* soft-capped: scaled, tanh, scaled back, each in place */
        logits = same(g, INPLACE, logits, NO_TENSOR, NO_TENSOR);
    return logits;
}

/* ---- recurrent layers ---- */

/* ggml_cpy or ggml_scale_inplace into an external tensor: a view of it, read from x. */
static int32_t into(graph *g, int32_t dst, int32_t x) {
    int32_t r = view(g, dst, T(g, dst)->ne, T(g, dst)->nb, 0);
    if (r != NO_TENSOR)
        T(g, r)->src[0] = x, T(g, r)->src[1] = x == dst ? NO_TENSOR : dst;
    return r;
}

/* build_rs: a layer's recurrent state (an external of state_size x the cache's rows): the
 * zeroed row cleared in place, the batch's sequences' rows read (by rows(), else get_rows),
 * the other rows copied; returns the rows read. */
static int32_t recurrent_rows(struct build *b, int64_t state_size, int32_t (*rows)(struct build *,
                              int32_t states, void *), void *user) {
    graph *g = b->g;
    int64_t size = b->p->n_seqs;
    int32_t states = reshape(g, external(g, state_size, size, 1), state_size, size, 1, 1);
    int64_t ne1[4] = {state_size, 1, 1, 1};
    int32_t zero = view(g, states, ne1, T(g, states)->nb, 0);
    expand(g, into(g, zero, zero));
    int32_t out = rows ? rows(b, states, user)
                       : op(g, NODE, GGUF_DTYPE_F32, (int64_t[4]){state_size, b->p->n_seqs, 1, 1},
                            states, b->rs_main, NO_TENSOR);
    expand(g, out);
    int64_t ne0[4] = {state_size, 0, 1, 1};
    int32_t extra = op(g, NODE, GGUF_DTYPE_F32, ne0, states, b->rs_extra, NO_TENSOR);
    expand(g, into(g, view(g, external(g, state_size, 0, 1), ne0, T(g, states)->nb, 0), extra));
    return out;
}

/* plamo2's mamba layer's scan: the states' rows, read by ggml_ssm_scan with x, dt, A, B and C,
 * which writes y and the last states in one tensor. */
struct scan_in {
    int32_t x, dt, A, B, C;
    int64_t d_state, head_dim, n_heads;
};

static int32_t scan_rows(struct build *b, int32_t states, void *user) {
    graph *g = b->g;
    const struct scan_in *in = user;
    int32_t s = reshape(g, states, in->d_state, in->head_dim, in->n_heads, b->p->n_seqs);
    if (s == NO_TENSOR || in->x == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    int64_t n = nelements(g, in->x) +
                prod(g, prod3(g, in->d_state, in->head_dim, in->n_heads), b->p->n_seqs);
    int64_t ne[4] = {n, 1, 1, 1};
    int32_t r = op(g, NODE, GGUF_DTYPE_F32, ne, s, in->x, in->dt);
    if (r != NO_TENSOR) {
        gtensor *t = T(g, r);
        t->src[3] = in->A, t->src[4] = in->B, t->src[5] = in->C, t->src[6] = b->rs_main;
    }
    return r;
}

/* plamo2's mamba layer on x (normed): the convolution over the last d_conv-1 inputs and the
 * batch, the selective scan, gated by z, projected out. */
static int32_t plamo2_mamba(struct build *b, int il, int32_t x) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd, d_conv = hp->ssm_d_conv, d_inner = hp->ssm_d_inner;
    int64_t d_state = hp->ssm_d_state, n_heads = hp->ssm_dt_rank;
    int64_t head_dim = n_heads ? d_inner / n_heads : 0, ns = b->p->n_seqs, nt = b->T / ns;
    int64_t dt_dim = E / 16 > 64 ? E / 16 : 64;
    (void)il;
    int32_t conv = recurrent_rows(b, prod(g, d_conv - 1, d_inner), NULL, NULL);
    conv = reshape(g, conv, d_conv - 1, d_inner, ns, 1);
    x = reshape(g, x, E, nt, ns, 1);
    int32_t zx = permute(g, mul_mat(g, external(g, E, prod(g, 2, d_inner), 1), x), 0, 2, 1, 3);
    int64_t ne_zx[4] = {prod(g, head_dim, 2), n_heads, nt, ns};
    zx = op(g, NODE, GGUF_DTYPE_F32, ne_zx, zx, NO_TENSOR, NO_TENSOR); /* cont_4d */
    if (g->oom)
        return NO_TENSOR;
    int64_t ne_h[4] = {head_dim, n_heads, nt, ns};
    uint64_t el = T(g, zx)->nb[0];
    int32_t xs = view(g, zx, ne_h, T(g, zx)->nb, head_dim * el);
    int64_t ne_x[4] = {prod(g, head_dim, n_heads), nt, ns, 1};
    xs = op(g, NODE, GGUF_DTYPE_F32, ne_x, xs, NO_TENSOR, NO_TENSOR); /* cont_3d */
    int32_t z = view(g, zx, ne_h, T(g, zx)->nb, 0);
    int32_t xt = permute(g, xs, 1, 0, 2, 3);
    if (g->oom)
        return NO_TENSOR;
    int64_t ne_cx[4] = {T(g, conv)->ne[0] + T(g, xt)->ne[0], d_inner, ns, 1};
    int32_t conv_x = op(g, NODE, GGUF_DTYPE_F32, ne_cx, conv, xt, NO_TENSOR); /* concat */
    if (g->oom)
        return NO_TENSOR;
    int64_t ne_last[4] = {d_conv - 1, d_inner, ns, 1};
    int32_t last = view(g, conv_x, ne_last, T(g, conv_x)->nb, nt * T(g, conv_x)->nb[0]);
    expand(g, into(g, external(g, prod3(g, d_conv - 1, d_inner, ns), 1, 1), last));
    int64_t ne_c[4] = {d_inner, nt, ns, 1};
    xs = op(g, NODE, GGUF_DTYPE_F32, ne_c, conv_x, external(g, d_conv, d_inner, 1), NO_TENSOR);
    xs = same(g, INPLACE, xs, NO_TENSOR, NO_TENSOR); /* silu */
    int32_t bcdt = mul_mat(g, external(g, d_inner, prod(g, 2, d_state) + dt_dim, 1), xs);
    if (g->oom)
        return NO_TENSOR;
    const uint64_t *nb = T(g, bcdt)->nb;
    int64_t ne_bc[4] = {d_state, nt, ns, 1}, ne_dt[4] = {dt_dim, nt, ns, 1};
    int32_t B = view(g, bcdt, ne_bc, nb, 0);
    int32_t C = view(g, bcdt, ne_bc, nb, d_state * el);
    int32_t dt = view(g, bcdt, ne_dt, nb, 2 * d_state * el);
    B = norm(b, B, il, "ssm_b_norm", d_state);
    C = norm(b, C, il, "ssm_c_norm", d_state);
    dt = norm(b, dt, il, "ssm_dt_norm", dt_dim);
    dt = same(g, INPLACE, mul_mat(g, external(g, dt_dim, n_heads, 1), dt),
              external(g, n_heads, 1, 1), NO_TENSOR);
    int32_t A = reshape(g, external(g, n_heads, 1, 1), 1, n_heads, 1, 1);
    if (g->oom)
        return NO_TENSOR;
    uint64_t nbx[4] = {el, head_dim * el, prod(g, head_dim, n_heads) * el,
                       prod3(g, head_dim, n_heads, nt) * el};
    xs = view(g, xs, ne_h, nbx, 0);
    int64_t ne_b4[4] = {d_state, 1, nt, ns};
    uint64_t nbb[4] = {el, d_state * el, T(g, B)->nb[1], T(g, B)->nb[2]};
    B = view(g, B, ne_b4, nbb, 0);
    uint64_t nbc[4] = {el, d_state * el, T(g, C)->nb[1], T(g, C)->nb[2]};
    C = view(g, C, ne_b4, nbc, 0);
    struct scan_in in = {xs, dt, A, B, C, d_state, head_dim, n_heads};
    int32_t y = recurrent_rows(b, prod(g, d_state, d_inner), scan_rows, &in);
    if (g->oom)
        return NO_TENSOR;
    int64_t n_last = prod(g, prod3(g, n_heads, head_dim, d_state), ns), ne_l[4] = {n_last, 1, 1, 1};
    int32_t states_out = view(g, y, ne_l, T(g, y)->nb, prod3(g, n_heads, head_dim, nt) * ns * el);
    expand(g, into(g, external(g, n_last, 1, 1), states_out));
    y = view(g, y, ne_h, nbx, 0);
    int32_t D = reshape(g, external(g, n_heads, 1, 1), 1, n_heads, 1, 1);
    y = same(g, INPLACE, y, same(g, INPLACE, xs, D, NO_TENSOR), NO_TENSOR);
    int32_t zc = same(g, NODE, z, NO_TENSOR, NO_TENSOR); /* cont */
    y = same(g, NODE, zc, y, NO_TENSOR);                  /* swiglu */
    if (g->oom)
        return NO_TENSOR;
    int64_t ne_y[4] = {prod(g, head_dim, n_heads), nt, ns, 1};
    uint64_t nby[4] = {el, T(g, y)->nb[2], T(g, y)->nb[3], T(g, y)->nb[3]};
    y = view(g, y, ne_y, nby, 0);
    int32_t out = mul_mat(g, external(g, d_inner, E, 1), y);
    return reshape(g, out, E, prod(g, nt, ns), 1, 1);
}

/* plamo2's graph: mamba layers and attention layers (a fused Q, K, V projection, Q and K
 * normed per head), each with norms before and after its mixer and its feed-forward (SwiGLU over
 * one projection's halves). */
static int32_t build_plamo2(struct build *b, int32_t x) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd, T_ = b->T;
    for (int il = 0; il < (int)hp->n_layer && !g->oom; il++) {
        int32_t residual = x;
        int32_t cur = norm(b, x, il, "attn_norm", E);
        if (hp->is_recr[il]) {
            cur = plamo2_mamba(b, il, cur);
        } else {
            int64_t hk = head_k(hp, il), hv = head_v(hp, il), h = hp->n_head[il];
            int64_t hkv = hp->n_head_kv[il];
            int64_t nq = prod(g, hk, h), nk = prod(g, hk, hkv), nv = prod(g, hv, hkv);
            int32_t all = mul_mat(g, external(g, E, nq + nk + nv, 1), cur);
            if (g->oom)
                break;
            uint64_t el = T(g, all)->nb[0], row = T(g, all)->nb[1];
            int64_t neq[4] = {hk, h, T_, 1}, nek[4] = {hk, hkv, T_, 1}, nev[4] = {hv, hkv, T_, 1};
            uint64_t nbq[4] = {el, hk * el, row, row * T_}, nbv[4] = {el, hv * el, row, row * T_};
            int32_t q = view(g, all, neq, nbq, 0);
            int32_t k = view(g, all, nek, nbq, nq * el);
            int32_t v = view(g, all, nev, nbv, (nq + nk) * el);
            q = same(g, INPLACE, norm(b, q, il, "attn_q_norm", hk), b->pos, NO_TENSOR);
            k = same(g, INPLACE, norm(b, k, il, "attn_k_norm", hk), b->pos, NO_TENSOR);
            cur = attention(b, il, q, k, v, ATTN_KV);
        }
        cur = norm(b, cur, il, "post_attention_norm", E);
        cur = same(g, INPLACE, cur, residual, NO_TENSOR);
        residual = cur;
        cur = norm(b, cur, il, "ffn_norm", E);
        int64_t ff = hp->n_ff[il];
        int32_t up = mul_mat(g, external(g, E, prod(g, 2, ff), 1), cur);
        int64_t ne_ff[4] = {ff, T_, 1, 1};
        cur = op(g, NODE, GGUF_DTYPE_F32, ne_ff, up, NO_TENSOR, NO_TENSOR); /* swiglu */
        cur = mul_mat(g, external(g, ff, E, 1), cur);
        cur = norm(b, cur, il, "post_ffw_norm", E);
        if (il == (int)hp->n_layer - 1) {
            cur = output_rows(b, cur);
            residual = output_rows(b, residual);
        }
        x = same(g, INPLACE, cur, residual, NO_TENSOR);
    }
    return logits_of(b, x, 0);
}

/* A dimension of layer il's tensor NAME as the file has it, or 0. */
static int64_t tensor_dim(const struct build *b, int il, const char *name, int d) {
    char full[96];
    snprintf(full, sizeof full, "blk.%d.%s", il, name);
    int64_t i = gguf_tensor_find(b->f, full);
    if (i < 0)
        return 0;
    gguf_tensor_info t;
    gguf_tensor_get(&t, b->f, (size_t)i);
    return d < (int)t.n_dims && t.dims[d] <= INT32_MAX ? (int64_t)t.dims[d] : 0;
}

/* bailingmoe3's short convolution of Q, K or V (which: 0, 1, 2) in a delta-attention layer:
 * the projection's rows after the last d_conv-1 inputs (this one's third of the state's
 * rows), the newest kept, convolved and activated; [head, heads, tokens per sequence,
 * sequences]. */
static int32_t kda_conv(struct build *b, int il, int32_t conv_all, int which, int32_t x,
                        int64_t head_dim) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd, n_head = hp->n_head[il], d_inner = prod(g, head_dim, n_head);
    int64_t d_conv = hp->ssm_d_conv, ns = b->p->n_seqs, nt = b->T / ns;
    int64_t part = prod(g, d_conv - 1, d_inner);
    if (conv_all == NO_TENSOR)
        return g->oom = 1, NO_TENSOR;
    uint64_t el = T(g, conv_all)->nb[0];
    int64_t ne_s[4] = {d_conv - 1, d_inner, ns, 1};
    uint64_t nb_s[4] = {el, (d_conv - 1) * el, 3 * el * part, 3 * el * part * ns};
    int32_t state = view(g, conv_all, ne_s, nb_s, (uint64_t)which * el * part);
    int32_t xp = reshape(g, mul_mat(g, external(g, E, d_inner, 1), x), d_inner, nt, ns, 1);
    int32_t xt = permute(g, xp, 1, 0, 2, 3);
    if (g->oom)
        return NO_TENSOR;
    int64_t ne_cx[4] = {d_conv - 1 + nt, d_inner, ns, 1};
    int32_t conv_x = op(g, NODE, GGUF_DTYPE_F32, ne_cx, state, xt, NO_TENSOR); /* concat */
    if (conv_x == NO_TENSOR)
        return NO_TENSOR;
    int32_t snap = view(g, conv_x, ne_s, T(g, conv_x)->nb, nt * T(g, conv_x)->nb[0]);
    expand(g, into(g, external(g, d_conv - 1, d_inner, ns), snap));
    int32_t w = reshape(g, external(g, d_conv, 1, d_inner), d_conv, d_inner, 1, 1);
    int64_t ne_c[4] = {d_inner, nt, ns, 1};
    int32_t out = op(g, NODE, GGUF_DTYPE_F32, ne_c, conv_x, w, NO_TENSOR); /* ssm_conv */
    out = same(g, INPLACE, reshape(g, out, d_inner, b->T, 1, 1), NO_TENSOR, NO_TENSOR); /* silu */
    return reshape(g, out, head_dim, n_head, nt, ns);
}

/* bailingmoe3's graph: delta-attention layers (Q, K, V short convolutions, a gated delta net
 * over the state, normed and gated output) and latent-attention layers over a K cache alone
 * (Q through a low-rank projection, V's latent rows projected per head, a sigmoid gate per
 * head); dense feed-forward in the leading layers, then experts chosen by sigmoid plus a bias
 * beside a shared one. */
static int32_t build_bailingmoe3(struct build *b, int32_t x) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd, T_ = b->T, ns = b->p->n_seqs, nt = T_ / ns;
    int64_t hd = hp->kda_head_dim, n_rot = arch_u64(b, "rope.dimension_count");
    int64_t qk = hp->n_embd_head_k_mla, vh = hp->n_embd_head_v_mla, lora = hp->n_lora_kv;
    int64_t nope = qk - n_rot;
    for (int il = 0; il < (int)hp->n_layer && !g->oom; il++) {
        int64_t n_head = hp->n_head[il], d_inner = prod(g, hd, n_head);
        int32_t inp_sa = x;
        int32_t cur = norm(b, x, il, "attn_norm", E);
        if (hp->is_recr[il]) {
            int64_t d_conv = hp->ssm_d_conv;
            int32_t conv = recurrent_rows(b, prod3(g, 3, d_conv - 1, d_inner), NULL, NULL);
            int32_t q = kda_conv(b, il, conv, 0, cur, hd);
            int32_t k = kda_conv(b, il, conv, 1, cur, hd);
            int32_t v = kda_conv(b, il, conv, 2, cur, hd);
            int32_t gate = same(g, INPLACE, mul_mat(g, external(g, E, d_inner, 1), cur),
                                external(g, d_inner, 1, 1), NO_TENSOR);
            gate = reshape(g, gate, hd, n_head, T_, 1);
            int32_t a = reshape(g, external(g, 1, n_head, 1), 1, n_head, 1, 1);
            gate = same(g, INPLACE, same(g, INPLACE, same(g, INPLACE, gate, a, NO_TENSOR),
                                         NO_TENSOR, NO_TENSOR),
                        NO_TENSOR, NO_TENSOR); /* mul, sigmoid, scale */
            gate = reshape(g, gate, hd, n_head, nt, ns);
            int32_t beta = mul_mat(g, external(g, E, n_head, 1), cur);
            beta = same(g, INPLACE, reshape(g, beta, 1, n_head, nt, ns), NO_TENSOR, NO_TENSOR);
            q = same(g, NODE, q, NO_TENSOR, NO_TENSOR); /* l2_norm */
            k = same(g, NODE, k, NO_TENSOR, NO_TENSOR);
            int64_t n_state = prod(g, hd, d_inner);
            int32_t state = recurrent_rows(b, n_state, NULL, NULL);
            state = reshape(g, state, hd, hd, n_head, ns);
            int64_t ne_gdn[4] = {d_inner, T_ + prod(g, hd, ns), 1, 1};
            int32_t gdn = op(g, NODE, GGUF_DTYPE_F32, ne_gdn, q, k, v); /* gated_delta_net */
            if (g->oom)
                break;
            gtensor *t = T(g, gdn);
            t->src[3] = gate, t->src[4] = beta, t->src[5] = state;
            uint64_t el = t->nb[0];
            int64_t ne_st[4] = {hd, hd, n_head, ns}, ne_o[4] = {hd, n_head, nt, ns};
            uint64_t nb_st[4] = {el, hd * el, prod(g, hd, hd) * el, n_state * el};
            uint64_t nb_o[4] = {el, hd * el, d_inner * el, prod(g, d_inner, nt) * el};
            int32_t next = view(g, gdn, ne_st, nb_st, prod(g, d_inner, T_) * el);
            expand(g, into(g, external(g, n_state, ns, 1), next));
            int32_t out = view(g, gdn, ne_o, nb_o, 0);
            out = same(g, NODE, out, NO_TENSOR, NO_TENSOR); /* cont */
            int32_t og = reshape(g, mul_mat(g, external(g, E, d_inner, 1), cur), hd, n_head, T_, 1);
            out = norm(b, reshape(g, out, hd, n_head, T_, 1), il, "ssm_norm", hd);
            out = same(g, INPLACE, out, same(g, INPLACE, og, NO_TENSOR, NO_TENSOR), NO_TENSOR);
            out = contiguous(g, out, d_inner, T_);
            cur = mul_mat(g, external(g, d_inner, E, 1), out);
        } else {
            int32_t attn_in = cur, q_all;
            if (has(b, il, "attn_q_a.weight")) {
                int64_t ql = tensor_dim(b, il, "attn_q_a.weight", 1);
                q_all = mul_mat(g, external(g, E, ql, 1), cur);
                q_all = norm(b, q_all, il, "attn_q_a_norm", ql);
                q_all = mul_mat(g, external(g, ql, prod(g, qk, n_head), 1), q_all);
            } else {
                q_all = mul_mat(g, external(g, E, prod(g, qk, n_head), 1), cur);
            }
            int32_t kv_all = mul_mat(g, external(g, E, lora + n_rot, 1), cur);
            if (g->oom)
                break;
            uint64_t el = T(g, q_all)->nb[0];
            int64_t ne_qn[4] = {nope, n_head, T_, 1}, ne_qp[4] = {n_rot, n_head, T_, 1};
            uint64_t nb_q[4] = {el, qk * el, prod(g, qk, n_head) * el,
                                prod3(g, qk, n_head, T_) * el};
            int32_t q_nope = view(g, q_all, ne_qn, nb_q, 0);
            int32_t q_pe = view(g, q_all, ne_qp, nb_q, nope * el);
            int64_t ne_kv[4] = {lora, T_, 1, 1}, ne_kp[4] = {n_rot, 1, T_, 1};
            uint64_t row = (lora + n_rot) * el;
            uint64_t nb_kv[4] = {el, row, row * T_, row * T_}, nb_kp[4] = {el, row, row, row * T_};
            int32_t kv = view(g, kv_all, ne_kv, nb_kv, 0);
            int32_t k_pe = view(g, kv_all, ne_kp, nb_kp, lora * el);
            q_pe = same(g, INPLACE, q_pe, b->pos, NO_TENSOR); /* rope */
            k_pe = same(g, INPLACE, k_pe, b->pos, NO_TENSOR);
            kv = norm(b, kv, il, "attn_kv_a_norm", lora);
            q_nope = permute(g, q_nope, 0, 2, 1, 3);
            q_nope = permute(g, mul_mat(g, external(g, nope, lora, n_head), q_nope), 0, 2, 1, 3);
            if (g->oom)
                break;
            int64_t ne_q[4] = {lora + n_rot, n_head, T_, 1}, ne_k[4] = {lora + n_rot, 1, T_, 1};
            int32_t q = op(g, NODE, GGUF_DTYPE_F32, ne_q, q_nope, q_pe, NO_TENSOR); /* concat */
            kv = reshape(g, kv, lora, 1, T_, 1);
            int32_t k = op(g, NODE, GGUF_DTYPE_F32, ne_k, kv, k_pe, NO_TENSOR);
            cur = attention_core(b, il, q, k, kv, ATTN_K, external(g, lora, vh, n_head));
            int32_t gate = mul_mat(g, external(g, E, n_head, 1), attn_in);
            gate = same(g, INPLACE, reshape(g, gate, 1, n_head, T_, 1), NO_TENSOR, NO_TENSOR);
            cur = same(g, INPLACE, reshape(g, cur, vh, n_head, T_, 1), gate, NO_TENSOR);
            int64_t vw = prod(g, vh, n_head);
            cur = mul_mat(g, external(g, vw, E, 1), contiguous(g, cur, vw, T_));
        }
        int32_t ffn_inp = same(g, INPLACE, cur, inp_sa, NO_TENSOR);
        cur = norm(b, ffn_inp, il, "ffn_norm", E);
        if ((uint32_t)il < hp->n_layer_dense_lead) {
            cur = ffn_gated(b, cur, hp->n_ff[il]);
        } else {
            int norm_w = gguf__llama_arch_bool(b->f, hp->arch, "expert_weights_norm", 0);
            int32_t ex = moe(b, il, cur, (struct moe_opts){NO_TENSOR, 1, norm_w});
            int32_t sh = ffn_gated(b, cur, tensor_dim(b, il, "ffn_up_shexp.weight", 1));
            cur = same(g, INPLACE, ex, sh, NO_TENSOR);
        }
        x = same(g, INPLACE, cur, ffn_inp, NO_TENSOR);
    }
    return logits_of(b, x, 1);
}

/* llama's graph (qwen2's, qwen3's, qwen3moe's): RMS norms, Q and K roped (normed per head
 * first when the model has those norms: qwen3's), a SiLU-gated feed-forward or experts
 * (softmax, weights normalized); the final hidden states an output, the logits biased when
 * the model has an output bias (qwen2's). */
static int32_t build_llama(struct build *b, int32_t x) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd;
    for (int il = 0; il < (int)hp->n_layer && !g->oom; il++) {
        int32_t inp_sa = x, q = NO_TENSOR, k = NO_TENSOR, v = NO_TENSOR;
        qkv(b, il, norm(b, x, il, "attn_norm", E), &q, &k, &v);
        if (g->oom)
            break;
        if (has(b, il, "attn_q_norm.weight")) {
            q = norm(b, q, il, "attn_q_norm", hp->n_embd_head_k);
            k = norm(b, k, il, "attn_k_norm", hp->n_embd_head_k);
        }
        q = same(g, INPLACE, q, b->pos, NO_TENSOR); /* rope */
        k = same(g, INPLACE, k, b->pos, NO_TENSOR);
        int32_t cur = attention(b, il, q, k, v, ATTN_KV);
        if (il == (int)hp->n_layer - 1) { /* only the outputs' rows on */
            cur = output_rows(b, cur);
            inp_sa = output_rows(b, inp_sa);
        }
        int32_t ffn_inp = same(g, INPLACE, cur, inp_sa, NO_TENSOR);
        cur = norm(b, ffn_inp, il, "ffn_norm", E);
        if (has(b, il, "ffn_gate_inp.weight"))
            cur = moe(b, il, cur, (struct moe_opts){NO_TENSOR, 0, 1});
        else
            cur = ffn_gated(b, cur, hp->n_ff[il]);
        x = same(g, INPLACE, cur, ffn_inp, NO_TENSOR);
    }
    return logits_of(b, x, 0);
}

/* gemma3's graph: embeddings scaled, Q and K normed per head and roped, Q scaled, norms after
 * the attention and the feed-forward (GELU-gated), the logits soft-capped in place; sliding
 * layers beside full ones read llm_graph_input_attn_kv_iswa. */
static int32_t build_gemma3(struct build *b, int32_t x) {
    graph *g = b->g;
    const gguf__llama_hparams *hp = b->hp;
    int64_t E = hp->n_embd;
    int kind = b->kv[1].k_idxs != NO_TENSOR ? ATTN_KV_ISWA : ATTN_KV;
    x = same(g, INPLACE, x, NO_TENSOR, NO_TENSOR); /* scaled by sqrt(E) */
    for (int il = 0; il < (int)hp->n_layer && !g->oom; il++) {
        int32_t q = NO_TENSOR, k = NO_TENSOR, v = NO_TENSOR;
        qkv(b, il, norm(b, x, il, "attn_norm", E), &q, &k, &v);
        if (g->oom)
            break;
        q = same(g, INPLACE, norm(b, q, il, "attn_q_norm", head_k(hp, il)), b->pos, NO_TENSOR);
        k = same(g, INPLACE, norm(b, k, il, "attn_k_norm", head_k(hp, il)), b->pos, NO_TENSOR);
        q = same(g, INPLACE, q, NO_TENSOR, NO_TENSOR); /* scale */
        int32_t cur = attention(b, il, q, k, v, kind);
        if (il == (int)hp->n_layer - 1) { /* only the outputs' rows on */
            cur = output_rows(b, cur);
            x = output_rows(b, x);
        }
        int32_t sa_out = same(g, INPLACE, norm(b, cur, il, "post_attention_norm", E), x,
                              NO_TENSOR);
        cur = ffn_gated(b, norm(b, sa_out, il, "ffn_norm", E), hp->n_ff[il]);
        x = same(g, INPLACE, norm(b, cur, il, "post_ffw_norm", E), sa_out, NO_TENSOR);
    }
    int32_t logits = logits_of(b, x, 0);
    for (int i = 0; i < 3; i++) /* soft-capped: scaled, tanh, scaled back, each in place */
        logits = same(g, INPLACE, logits, NO_TENSOR, NO_TENSOR);
    return logits;
}

/* The architectures with a graph here, and their builders. */
static const struct {
    const char *arch;
    int32_t (*build)(struct build *b, int32_t x);
} builders[] = {
    {"llama", build_llama},
    {"qwen2", build_llama},
    {"qwen3", build_llama},
    {"qwen3moe", build_llama},
    {"phimoe", build_phi3},
    {"gemma3", build_gemma3},
    {"gemma4", build_gemma4},
    {"plamo2", build_plamo2},
    {"bailingmoe3", build_bailingmoe3},
};

int gguf__llama_graph_known(const char *arch) {
    for (size_t i = 0; i < sizeof builders / sizeof builders[0]; i++) {
        if (strcmp(builders[i].arch, arch) == 0)
            return 1;
    }
    return 0;
}

/* llama_kv_cache::build_input_k_rot's size: the largest power of two from 64 that divides the
 * head (not 0). */
static int64_t rot_size(int64_t head) {
    int64_t n = 64;
    while (head % (n * 2) == 0)
        n *= 2;
    return n;
}

int gguf__llama_graph_compute(uint64_t *bytes, const gguf__llama_hparams *hp, const gguf_file *f,
                              const gguf__llama_graph_params *p) {
    size_t which = 0;
    while (which < sizeof builders / sizeof builders[0] && strcmp(builders[which].arch, hp->arch))
        which++;
    if (which == sizeof builders / sizeof builders[0])
        return 1;
    /* llama.cpp takes at most LLAMA_MAX_EXPERTS experts: more would be a graph of billions
     * of views here */
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        if (hp->n_expert > MAX_EXPERTS || hp->n_expert_used[il] > MAX_EXPERTS)
            return GGUF_ELIMIT;
    }
    graph g;
    memset(&g, 0, sizeof g);
    struct build b = {.g = &g, .hp = hp, .f = f, .p = p, .T = p->n_tokens};
    int64_t E = hp->n_embd, T_ = b.T, ns = p->n_stream;
    /* build_inp_embd: the token ids' rows, and the input for a batch of embeddings, which a
     * batch of tokens never reads (both in the graph, the ids' first) */
    int32_t tokens = input(&g, GGUF_DTYPE_I32, T_, 1, 1, 1);
    int32_t embd = input(&g, GGUF_DTYPE_F32, E, T_, 1, 1);
    int64_t ne_x[4] = {E, T_, 1, 1};
    int32_t x = op(&g, NODE, GGUF_DTYPE_F32, ne_x, external(&g, E, (int64_t)p->n_vocab, 1),
                   tokens, NO_TENSOR);
    expand(&g, x);
    expand(&g, embd);
    b.pos = input(&g, GGUF_DTYPE_I32, T_, 1, 1, 1);
    /* build_rs_inp: which state rows each sequence reads (the batch's sequences first) */
    b.rs_main = b.rs_extra = NO_TENSOR;
    for (uint32_t il = 0; il < hp->n_layer && b.rs_main == NO_TENSOR; il++) {
        if (!hp->is_recr[il])
            continue;
        int32_t copy = input(&g, GGUF_DTYPE_I32, p->n_seqs, 1, 1, 1);
        int64_t ne_main[4] = {p->n_seqs, 1, 1, 1}, ne_extra[4] = {0, 1, 1, 1};
        b.rs_main = view(&g, copy, ne_main, T(&g, copy)->nb, 0);
        b.rs_extra = view(&g, copy, ne_extra, T(&g, copy)->nb, (uint64_t)p->n_seqs * 4);
    }
    for (uint32_t il = 0; il < hp->n_layer; il++) {
        int64_t w = prod(&g, hp->n_head_kv[il], head_v(hp, (int)il));
        b.v_max = w > b.v_max ? w : b.v_max;
    }
    /* a cache's inputs: the rows K and V go to (V's one per element when stored transposed),
     * the mask, the rotations; a sliding cache's as well when some layers slide */
    for (int c = 0; c < 2; c++) {
        struct kv_in *in = &b.kv[c];
        in->n_kv = c == 0 ? p->n_kv : p->n_kv_swa;
        in->k_idxs = in->v_idxs = in->mask = in->k_rot = in->v_rot = NO_TENSOR;
        if (c == 1 && p->n_kv_swa == 0)
            continue;
        in->k_idxs = input(&g, GGUF_DTYPE_I64, T_, 1, 1, 1);
        in->v_idxs = input(&g, GGUF_DTYPE_I64, p->flash ? T_ : prod(&g, T_, b.v_max), 1, 1, 1);
        in->mask = input(&g, p->flash ? GGUF_DTYPE_F16 : GGUF_DTYPE_F32, in->n_kv, T_ / ns, 1, ns);
        int64_t nk = p->k_rot_head[c] ? rot_size(p->k_rot_head[c]) : 0;
        in->k_rot = nk ? input(&g, GGUF_DTYPE_F32, nk, nk, 1, 1) : NO_TENSOR;
        in->v_rot = p->v_rot[c] ? input(&g, GGUF_DTYPE_F32, 64, 64, 1, 1) : NO_TENSOR;
    }
    b.out_ids = input(&g, GGUF_DTYPE_I32, p->n_outputs, 1, 1, 1);
    int32_t logits = g.ovf ? NO_TENSOR : builders[which].build(&b, x);
    if (logits != NO_TENSOR)
        T(&g, logits)->flags |= T_OUTPUT;
    if (!g.ovf)
        expand(&g, logits);
    uint64_t size = g.oom || g.ovf ? 0 : allocate_graph(&g);
    int rc = g.ovf ? GGUF_ELIMIT : g.oom ? GGUF_ENOMEM : 0;
    gguf__free(g.t);
    gguf__free(g.nodes);
    gguf__free(g.leafs);
    gguf__free(g.stack);
    gguf__free(g.free);
    if (rc == 0)
        *bytes = size;
    return rc;
}
