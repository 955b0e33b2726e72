#!/usr/bin/env python3
"""gguf-edit estimate against llama.cpp's own memory breakdown (llama-mem), cell by cell.

usage: estimate_agree.py GGUF_EDIT LLAMA_MEM SAMPLE SEED MODEL...

The matrix: context sizes (0: the training context), cache types (f16, q8_0, q4_0, and q8_0 K
with an f16 V), flash attention on and off, 1, 2 or 4 sequences, a unified cache or one per
sequence, the sliding-window cache full or not (models with sliding layers only), two ubatch
sizes. SAMPLE cells (0: all; -1: none) are drawn with SEED, after the FIXED cells. Each option is given to both tools explicitly
(llama-mem's defaults are llama_context_default_params', not llama-server's).

Per cell: weights (llama-mem's model_size, what llama_model_size reports) and context must be
equal, compute within 10% (equal for the architectures whose placement is replayed: REPLAYED); where llama.cpp refuses the parameters, estimate must refuse them
too. A cell where llama.cpp aborts (a failed GGML_ASSERT: its own defect, seen with some tiny
models) has no reference and is counted apart. Prints one line per cell, "ok DESC" or "fail DESC: why", then a summary line starting with
'#': cells, exact matches per part, worst compute error."""
import itertools
import json
import random
import subprocess
import sys

CTX = [0, 1000, 4096, 16384]
TYPES = [("f16", "f16"), ("q8_0", "q8_0"), ("q4_0", "q4_0"), ("q8_0", "f16")]
FA = ["on", "off"]
SEQS = [1, 2, 4]
UNIFIED = ["on", "off"]
SWA_FULL = ["off", "on"]
UBATCH = [512, 128]
# cells always run, whatever the sample: each part of the arithmetic where it decides the result
# (latent cache, sliding windows unified and full, a cache per sequence, the scores without flash
# attention, encoders (K cast for flash attention, V made contiguous, a gated feed-forward:
# nomic-bert's; an encoder's graph beside a cache it never reads, t5's relative position bias in the
# scores, gathered into a freed block or above, gemma's Q normed into a block of its own and its
# batch unclamped), t5's decoder (its bias over the cache, V's cache rows made contiguous, the
# encoder's output as an input), recurrent states per sequence, a hybrid's two memories, flash
# attention forced off, layers without a cache, logits above the inputs, a linear-attention state, a
# cache and a state in every layer, a delta-attention state, layers reading earlier layers' caches,
# a diffusion model's logits and unclamped batch, sparse-attention indexers' caches and top-k masks,
# with and without flash attention, an indexer in some layers only, and in one layer only, beside a
# sliding one, block-sparse attention's picks per stream beside the mask's f32 copy, pooled
# blocks' scores and gathered keys per stream, gemma3n's per-layer inputs beside full-size sliding
# caches, at a layer's scores and at their projection, logits placed above the inputs and in the
# block the masks leave, chameleon's logits copied once more, deepseek4's caches kept per sequence
# even when unified, its compressed keys and compressor states, its indexer's refilled masks with
# flash attention over a quantized cache, and without flash attention at its training context,
# and a graph whose placement is replayed: phimoe's, with its final hidden states above the mask
# or in its block, by flash attention and by the rotations of quantized K and V caches, gemma4's,
# with sliding and shared caches, per-layer inputs and experts, plamo2's mamba layers' states and
# scans, and bailingmoe3's delta attention and latent attention over a K cache alone)
FIXED = [("deepseek2-wide.gguf", 4096, "f16", "f16", "on", 1, "on", "off", 512),
         ("deepseek2-wide.gguf", 16384, "f16", "f16", "off", 2, "off", "off", 128),
         ("gemma3-wide.gguf", 4096, "q8_0", "q8_0", "on", 2, "on", "off", 512),
         ("gemma2-wide.gguf", 1000, "f16", "f16", "off", 4, "off", "on", 128),
         ("qwen3-wide.gguf", 1000, "q4_0", "q4_0", "on", 3, "off", "off", 512),
         ("llama.gguf", 16384, "f16", "f16", "off", 1, "on", "off", 512),
         ("nomic-bert.gguf", 1000, "f16", "f16", "on", 1, "on", "off", 128),
         ("bert.gguf", 1000, "f16", "f16", "on", 2, "off", "off", 128),
         ("bert.gguf", 4096, "f16", "f16", "off", 1, "on", "off", 128),
         ("neo-bert.gguf", 1000, "f16", "f16", "on", 1, "on", "off", 128),
         ("modern-bert.gguf", 0, "f16", "f16", "on", 1, "on", "off", 512),
         ("modern-bert.gguf", 4096, "f16", "f16", "off", 2, "off", "on", 128),
         ("nomic-bert-moe-wide.gguf", 1000, "f16", "f16", "off", 1, "on", "off", 128),
         ("nomic-bert-moe-wide.gguf", 0, "f16", "f16", "on", 1, "on", "off", 128),
         ("eurobert-wide.gguf", 0, "f16", "f16", "on", 1, "on", "off", 128),
         ("llama-embed.gguf", 0, "f16", "f16", "on", 1, "on", "off", 512),
         ("t5encoder-gated.gguf", 1000, "f16", "f16", "on", 1, "on", "off", 128),
         ("t5encoder-gated.gguf", 16384, "f16", "f16", "off", 1, "on", "off", 512),
         ("t5encoder-wide-ff.gguf", 4096, "q8_0", "q8_0", "on", 2, "off", "off", 128),
         ("t5encoder-wide.gguf", 1000, "f16", "f16", "off", 1, "on", "off", 128),
         ("gemma-embedding-wide.gguf", 0, "f16", "f16", "on", 1, "on", "off", 512),
         ("gemma-embedding-wide.gguf", 4096, "f16", "f16", "off", 2, "off", "on", 512),
         ("gemma-embedding-wide.gguf", 1000, "f16", "f16", "off", 1, "on", "off", 128),
         ("t5-wide.gguf", 0, "f16", "f16", "on", 1, "on", "off", 128),
         ("t5-wide.gguf", 4096, "q8_0", "f16", "on", 1, "on", "off", 512),
         ("t5-wide.gguf", 16384, "f16", "f16", "off", 2, "on", "off", 512),
         ("eurobert-wide.gguf", 4096, "f16", "f16", "on", 2, "off", "off", 512),
         ("mamba2-wide.gguf", 4096, "f16", "f16", "on", 4, "off", "off", 512),
         ("rwkv7-wide.gguf", 1000, "q8_0", "q8_0", "on", 2, "on", "off", 128),
         ("lfm2.gguf", 4096, "f16", "f16", "off", 2, "off", "off", 512),
         ("qwen35-wide.gguf", 4096, "q8_0", "f16", "off", 2, "off", "off", 128),
         ("granitehybrid-wide.gguf", 16384, "q8_0", "q8_0", "on", 4, "off", "off", 512),
         ("grok.gguf", 4096, "q8_0", "f16", "on", 2, "on", "off", 512),
         ("hy_v3.gguf", 4096, "f16", "f16", "on", 2, "off", "off", 128),
         ("nemotron_h.gguf", 4096, "f16", "f16", "off", 1, "on", "off", 512),
         ("minimax-01.gguf", 1000, "f16", "f16", "on", 4, "off", "off", 128),
         ("falcon-h1.gguf", 4096, "f16", "f16", "off", 2, "off", "off", 512),
         ("kimi-linear.gguf", 1000, "f16", "f16", "on", 4, "on", "off", 128),
         ("gemma3n-shared.gguf", 4096, "f16", "f16", "on", 2, "on", "off", 512),
         ("gemma3n-shared.gguf", 4096, "f16", "f16", "off", 1, "on", "on", 512),
         ("gemma3n-shared.gguf", 16384, "f16", "f16", "on", 1, "on", "on", 512),
         ("plamo-long.gguf", 16384, "f16", "f16", "on", 2, "on", "off", 128),
         ("plamo-long.gguf", 0, "f16", "f16", "on", 1, "on", "off", 512),
         ("chameleon-wide.gguf", 4096, "f16", "f16", "off", 2, "off", "off", 128),
         ("dream-wide.gguf", 0, "q8_0", "q8_0", "on", 2, "off", "off", 512),
         ("deepseek32-wide.gguf", 0, "f16", "f16", "on", 1, "on", "off", 512),
         ("deepseek32-wide.gguf", 16384, "q8_0", "q8_0", "on", 2, "off", "off", 128),
         ("deepseek32-wide.gguf", 4096, "f16", "f16", "off", 4, "on", "off", 512),
         ("glm-dsa.gguf", 4096, "f16", "f16", "on", 2, "on", "off", 512),
         ("dots3note-long.gguf", 0, "f16", "f16", "off", 1, "on", "off", 512),
         ("dots3note-long.gguf", 0, "f16", "f16", "on", 2, "off", "on", 128),
         ("minimax-m3-long.gguf", 0, "f16", "f16", "on", 1, "on", "off", 512),
         ("minimax-m3-long.gguf", 16384, "q8_0", "q8_0", "on", 2, "off", "off", 128),
         ("qwen4exp-long.gguf", 0, "f16", "f16", "on", 1, "on", "off", 512),
         ("qwen4exp-long.gguf", 0, "q8_0", "q8_0", "on", 4, "off", "off", 128),
         ("phimoe-wide.gguf", 16384, "f16", "f16", "on", 1, "on", "off", 512),
         ("phimoe-wide.gguf", 16384, "q8_0", "q8_0", "on", 2, "on", "off", 128),
         ("phimoe-wide.gguf", 4096, "q8_0", "f16", "off", 1, "on", "off", 512),
         ("phimoe-bias.gguf", 4096, "q4_0", "q4_0", "on", 2, "off", "off", 128),
         ("gemma4-wide.gguf", 16384, "q8_0", "f16", "on", 1, "on", "off", 512),
         ("gemma4-wide.gguf", 4096, "f16", "f16", "off", 2, "off", "off", 128),
         ("gemma4-moe.gguf", 16384, "q8_0", "q8_0", "on", 4, "on", "on", 512),
         ("gemma4-moe-fused.gguf", 1000, "f16", "f16", "off", 1, "on", "off", 512),
         ("plamo2-wide.gguf", 4096, "f16", "f16", "off", 2, "off", "off", 128),
         ("plamo2-wide.gguf", 16384, "q8_0", "q8_0", "on", 4, "on", "off", 512),
         ("bailingmoe3-wide.gguf", 4096, "f16", "f16", "off", 2, "off", "off", 512),
         ("bailingmoe3-wide.gguf", 16384, "f16", "f16", "off", 1, "on", "off", 512),
         ("bailingmoe3-wide.gguf", 16384, "q8_0", "q8_0", "on", 4, "on", "off", 128),
         ("bailingmoe3-norm.gguf", 1000, "f16", "f16", "on", 1, "on", "off", 512),
         ("deepseek4-long.gguf", 4096, "q8_0", "q8_0", "on", 4, "on", "off", 512),
         ("deepseek4-long.gguf", 0, "f16", "f16", "off", 2, "off", "on", 128)]


# architectures whose compute comes from the replay of ggml-alloc's placement of a modelled
# graph (libgguf/llama/llama_graph.c): equal to llama.cpp's, not within 10%
REPLAYED = {"llama", "qwen2", "qwen3", "qwen3moe", "gemma3", "phimoe", "gemma4", "plamo2",
            "bailingmoe3"}
ARCH = {}


def replayed(edit, model):
    if model not in ARCH:
        out = subprocess.run([edit, "get", model, "general.architecture"], capture_output=True,
                             text=True)
        ARCH[model] = out.stdout.strip().strip('"')
    return ARCH[model] in REPLAYED


def has_swa(edit, model):
    out = subprocess.run([edit, "estimate", model, "--json", "-c", "256", "-np", "1"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return False
    return any(l["swa"] for l in json.loads(out.stdout)["layers"])


def cells(edit, models):
    for m in models:
        swa = has_swa(edit, m)
        for ctx, (tk, tv), fa, np, uni, full, ub in itertools.product(
                CTX, TYPES, FA, SEQS, UNIFIED, SWA_FULL if swa else ["off"], UBATCH):
            yield (m, ctx, tk, tv, fa, np, uni, full, ub)


def run(edit, mem, cell):
    m, ctx, tk, tv, fa, np, uni, full, ub = cell
    ref = subprocess.run([mem, m, "--ctx", str(ctx), "--type-k", tk, "--type-v", tv,
                          "--seqs", str(np), "--ubatch", str(ub), "--batch", "2048",
                          "--flash-attn", fa, "--swa-full", full, "--kv-unified", uni],
                         capture_output=True, text=True)
    args = [edit, "estimate", m, "--json", "-c", str(ctx), "-ctk", tk, "-ctv", tv,
            "-np", str(np), "-ub", str(ub), "-b", "2048", "-fa", fa,
            "--kv-unified" if uni == "on" else "--no-kv-unified"]
    if full == "on":
        args.append("--swa-full")
    got = subprocess.run(args, capture_output=True, text=True)
    return ref, got


def main():
    edit, mem, sample, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    models = sys.argv[5:]
    all_cells = list(cells(edit, models))
    if sample < 0:
        all_cells = []
    if 0 < sample < len(all_cells):
        rng = random.Random(seed)
        # every model at least once, then the rest drawn from the whole matrix
        chosen = [rng.choice([c for c in all_cells if c[0] == m]) for m in models]
        rest = [c for c in all_cells if c not in chosen]
        chosen += rng.sample(rest, max(0, sample - len(chosen)))
    else:
        chosen = all_cells
    by_name = {m.rsplit("/", 1)[-1]: m for m in models}
    chosen = [(by_name[c[0]],) + c[1:] for c in FIXED if c[0] in by_name] + chosen
    n = exact_w = exact_c = within = refused = aborted = 0
    worst = (0.0, None)
    for cell in chosen:
        desc = "%s ctx=%d ctk=%s ctv=%s fa=%s np=%d unified=%s swa_full=%s ub=%d" % (
            cell[0].rsplit("/", 1)[-1], *cell[1:])
        ref, got = run(edit, mem, cell)
        n += 1
        if ref.returncode < 0 or ref.returncode == 134:
            aborted += 1
            print("# %s: llama.cpp aborts (%s), nothing to compare" % (
                desc, ([l for l in ref.stderr.splitlines() if "GGML_ASSERT" in l] or ["?"])[0]
                .rsplit("/", 1)[-1]))
            continue
        if ref.returncode != 0:
            if got.returncode == 1:
                refused += 1
                print("ok %s: both refuse" % desc)
            else:
                print("fail %s: llama.cpp refuses (%s), estimate exits %d" % (
                    desc, ref.stderr.strip().splitlines()[-1:] or "", got.returncode))
            continue
        if got.returncode != 0:
            print("fail %s: estimate exits %d: %s" % (desc, got.returncode, got.stderr.strip()))
            continue
        r, g = json.loads(ref.stdout), json.loads(got.stdout)
        why = []
        if g["weights"] == r["model_size"]:
            exact_w += 1
        else:
            why.append("weights %d, llama.cpp %d" % (g["weights"], r["model_size"]))
        if g["context"] == r["context"]:
            exact_c += 1
        else:
            why.append("context %d, llama.cpp %d" % (g["context"], r["context"]))
        err = abs(g["compute"] - r["compute"]) / max(r["compute"], 1)
        if err > worst[0]:
            worst = (err, desc)
        if replayed(edit, cell[0]) and g["compute"] != r["compute"]:
            why.append("compute %d, llama.cpp %d: the replayed placement must be exact" % (
                g["compute"], r["compute"]))
        elif err <= 0.10:
            within += 1
        else:
            why.append("compute %d, llama.cpp %d (%.1f%%)" % (g["compute"], r["compute"],
                                                             100 * err))
        if g["params"]["ctx"] != r["n_ctx"]:
            why.append("context size %d, llama.cpp %d" % (g["params"]["ctx"], r["n_ctx"]))
        print(("fail %s: %s" % (desc, "; ".join(why))) if why else
              ("ok %s (compute %+.1f%%)" % (desc, 100.0 * (g["compute"] - r["compute"]) /
                                            max(r["compute"], 1))))
    print("# %d cells of %d: %d refused by both, %d aborted by llama.cpp; weights exact %d, "
          "context exact %d, compute within 10%% %d; worst compute error %.2f%% (%s)" % (
              n, len(all_cells), refused, aborted, exact_w, exact_c, within, 100 * worst[0], worst[1]))


if __name__ == "__main__":
    main()
