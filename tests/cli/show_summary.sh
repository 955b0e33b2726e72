#!/bin/sh
# show's summary of a model against llama.cpp's own numbers.
#
# For the corpus's llama model, the same model without general.file_type (the loader guesses
# it), and tiny models of the full architectures (tests/support/make_llama_model; make check: those
# with a sliding window, latent attention and a recurrent state, and a seeded other;
# GGUF_ESTIMATE_ALL=1, make check-estimate: every one): the parameter count, the weight bytes, the file type (and
# whether it was guessed) and the training context must be llama.cpp's loader's (ggml-oracle
# llama-load); the f16 KV bytes per token and the recurrent state must be what llama.cpp
# allocates (llama-mem): the full-attention layers' from two contexts (32768 and 65536) with the
# sliding-window cache apart, every layer's from two with swa-full, the state what does not
# grow (the model without general.file_type has the same KV as the one with it: not run). The text's
# line must say the same, and so must the catalog's models view (the same files indexed, and a
# split set), with the README's query for the models that fit at 32k: weights and context as
# llama.cpp allocates them for 32768 tokens.
. "$(dirname "$0")/../support/cli_lib.sh"

MEM=${LLAMA_MEM:-$(dirname "$ORACLE")/llama-mem}
have_corpus || skip_all "../shared/corpus absent"
have_oracle || skip_all "ggml-oracle not found (set GGML_ORACLE)"
[ -x "$MEM" ] || skip_all "no llama-mem ($MEM; ../shared/oracle/build.sh builds it)"
GEN="$top_builddir/tests/support/make_llama_model"
VOCAB="$CORPUS/real"
LLAMA="$CORPUS/models/tiny-llama-e256-Q4_K_M.gguf"

"$EDIT" rm "$LLAMA" general.file_type -o "$TMP/guessed.gguf" 2>"$TMP/err" ||
    fail "rm general.file_type: $(cat "$TMP/err")"
set -- "$LLAMA" "$TMP/guessed.gguf"
"$EDIT" --list architectures | awk -F'\t' '$2 == "full" {print $1}' >"$TMP/full"
"$GEN" --recipes | grep -vxF -e gemma3 -e deepseek2 -e mamba2 | grep -xF -f "$TMP/full" >"$TMP/rest"
if [ "${GGUF_ESTIMATE_ALL:-0}" != 0 ]; then
    archs="gemma3 deepseek2 mamba2 $(cat "$TMP/rest")"
else
    seed=${GGUF_ESTIMATE_SEED:-$(date -u +%j | sed 's/^0*//')}
    echo "# seed $seed (GGUF_ESTIMATE_SEED)"
    archs="gemma3 deepseek2 mamba2 $(awk -v s="$seed" 'BEGIN { srand(s) } { print rand() "\t" $0 }' \
        "$TMP/rest" | sort -k1,1 | head -1 | cut -f2)"
fi
for a in $archs; do
    voc=$(llama_vocab_of "$a")
    extra=$(llama_graph_opts "$a")
    [ "$a" = gemma3 ] && extra="--layers 7 --set gemma3.attention.sliding_window=u32:256"
    # shellcheck disable=SC2086
    if "$GEN" "$a" "$VOCAB/ggml-vocab-$voc.gguf" "$TMP/$a.gguf" $extra 2>"$TMP/err"; then
        set -- "$@" "$TMP/$a.gguf"
    else
        fail "make_llama_model $a: $(head -c 200 "$TMP/err")"
    fi
done

# mem FILE ARGS...: the context bytes llama.cpp allocates (one sequence)
mem() {
    f=$1
    shift
    "$MEM" "$f" --seqs 1 --type-k f16 --type-v f16 "$@" 2>/dev/null |
        python3 -c "import json,sys; print(json.load(sys.stdin)['context'])"
}

: >"$TMP/want"
for f in "$@"; do
    name=$(basename "$f")
    "$EDIT" show --json "$f" >"$TMP/show.json" 2>"$TMP/err" || fail "show --json $name: $(cat "$TMP/err")"
    "$EDIT" show "$f" 2>/dev/null | sed -n 2p >"$TMP/show.txt"
    "$ORACLE" llama-load "$f" >"$TMP/load.json" 2>/dev/null || fail "llama-load $name"
    python3 - "$TMP/show.json" "$TMP/load.json" "$TMP/show.txt" >"$TMP/cmp" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["model"]
l = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
bad = []
for ours, theirs in (("parameters", "n_params"), ("weight_bytes", "model_size"),
                     ("context_length", "n_ctx_train"), ("architecture", "arch")):
    if s[ours] != l[theirs]:
        bad.append(f"{ours} {s[ours]}, llama.cpp's {theirs} {l[theirs]}")
ftype = s["file_type"] | (1024 if s["file_type_guessed"] else 0)
if ftype != l["ftype"]:
    bad.append(f"file type {ftype}, llama.cpp's {l['ftype']}")
bpw = l["model_size"] * 8 / l["n_params"]
if abs(s["bits_per_weight"] - bpw) > 1e-5 * bpw:
    bad.append(f"bits per weight {s['bits_per_weight']}, llama.cpp's {bpw}")
for part in (f"model: {l['arch']}, ", f"({l['n_params']})", f"{bpw:.2f} bits per weight",
             f", {s['file_type_name']}{' (guessed)' if s['file_type_guessed'] else ''},",
             f"training context {l['n_ctx_train']}"):
    if part not in text:
        bad.append(f"text line {text.strip()!r} lacks {part!r}")
if s["kv_bytes_per_token"] is None:
    if "KV cache" in text or "state" in text:
        bad.append(f"text line {text.strip()!r} shows memory it does not know")
elif s["kv_bytes_per_token"] > 0 and \
        f"KV cache {s['kv_bytes_per_token']} bytes per token at f16" not in text:
    bad.append(f"text line {text.strip()!r} lacks the KV bytes")
elif s["state_bytes_per_sequence"] > 0 and \
        f"recurrent state {s['state_bytes_per_sequence']} bytes per sequence" not in text:
    bad.append(f"text line {text.strip()!r} lacks the recurrent state")
print("; ".join(bad) if bad else "same")
print(s["kv_bytes_per_token"], s["kv_bytes_per_token_swa"], s["state_bytes_per_sequence"])
print(l["n_params"], l["model_size"], l["n_ctx_train"], f"{bpw:.6f}")
EOF
    verdict=$(sed -n 1p "$TMP/cmp")
    [ "$verdict" = same ] && ok "$name: parameters, weights, file type, context and text are llama.cpp's" ||
        fail "$name: $verdict"
    read -r kv swa state <<EOF2
$(sed -n 2p "$TMP/cmp")
EOF2
    llama="$f $(sed -n 3p "$TMP/cmp")"
    if [ "$f" = "$TMP/guessed.gguf" ]; then
        continue
    elif [ "$kv" = None ]; then
        ok "$name: KV per token unknown for its architecture, and not shown"
        echo "$llama None None None None" >>"$TMP/want"
        continue
    fi
    # the full-attention layers grow with the context, with swa-full every layer does; what
    # does not grow is the recurrent state. Measured between 32768 and 65536 tokens, where
    # deepseek4's caches compressed 128 to 1 fill whole blocks of 256 rows (below 32768 they
    # keep one block)
    c64=$(mem "$f" --ctx 65536 --swa-full off --ubatch 512 --flash-attn on)
    a32=$(mem "$f" --ctx 32768 --swa-full on --ubatch 512 --flash-attn on)
    a64=$(mem "$f" --ctx 65536 --swa-full on --ubatch 512 --flash-attn on)
    # at 32k tokens, weights and context are the catalog's query's figure
    "$MEM" "$f" --ctx 32768 --seqs 1 --type-k f16 --type-v f16 --ubatch 512 --swa-full off \
        --flash-attn on >"$TMP/mem.json" 2>/dev/null
    c32=$(python3 -c "import json; print(json.load(open('$TMP/mem.json'))['context'])")
    need=$(python3 -c "import json; d = json.load(open('$TMP/mem.json')); print(d['model_size'] + d['context'])")
    if [ -z "$c64" ] || [ -z "$c32" ] || [ -z "$a32" ] || [ -z "$a64" ] || [ -z "$need" ]; then
        fail "$name: llama-mem failed"
        continue
    fi
    full=$(((c64 - c32) / 32768)) all=$(((a64 - a32) / 32768))
    l_swa=$((all - full)) l_state=$((a32 - all * 32768))
    [ "$kv $swa $state" = "$full $l_swa $l_state" ] &&
        ok "$name: KV $kv + $swa bytes per token, state $state per sequence, as llama.cpp allocates" ||
        fail "$name: KV $kv + $swa bytes per token, state $state; llama.cpp: $full + $l_swa, $l_state"
    echo "$llama $full $l_swa $l_state $need" >>"$TMP/want"
done

# the catalog: each model's row holds llama.cpp's numbers; a split set's row its totals
CATALOG="$CATALOG_TOOL"
if [ -x "$CATALOG" ]; then
    last=$(tail -1 "$TMP/want")
    set -- $last
    "$EDIT" split "$1" "$TMP/set" --max-tensors 5 >/dev/null 2>"$TMP/err" || fail "split: $(cat "$TMP/err")"
    shift
    echo "$TMP/set-00001-of-* $*" >>"$TMP/want"
    "$CATALOG" --db "$TMP/c.db" index $(cut -d' ' -f1 "$TMP/want") "$TMP"/set-* >/dev/null 2>"$TMP/err" ||
        fail "index: $(cat "$TMP/err")"
    # the README's query for the models that fit in 24 GiB at 32k, as a figure per model
    "$CATALOG" --db "$TMP/c.db" query --format json "SELECT path, n_params, tensor_bytes,
        context_length, bits_per_weight, kv_bytes_per_token, kv_bytes_per_token_swa,
        state_bytes_per_sequence, tensor_bytes + 32768 * kv_bytes_per_token
        + min(32768, (sliding_window + 767) / 256 * 256) * kv_bytes_per_token_swa
        + state_bytes_per_sequence AS need FROM models" \
        >"$TMP/rows.json" 2>"$TMP/err" || fail "query: $(cat "$TMP/err")"
    python3 - "$TMP/rows.json" "$TMP/want" <<'EOF' >"$TMP/cmp"
import glob, json, os, sys
rows = {r["path"]: r for r in json.load(open(sys.argv[1]))}
num = lambda x: None if x == "None" else int(x)
for line in open(sys.argv[2]):
    path, params, size, ctx, bpw, kv, swa, state, need = line.split()
    path = os.path.realpath(glob.glob(path)[0])
    r = rows.get(path)
    want = [int(params), int(size), int(ctx), float(bpw), num(kv), num(swa), num(state),
            num(need)]
    got = None if r is None else [r["n_params"], r["tensor_bytes"], r["context_length"],
                                  round(r["bits_per_weight"], 6), r["kv_bytes_per_token"],
                                  r["kv_bytes_per_token_swa"], r["state_bytes_per_sequence"],
                                  r["need"]]
    name = os.path.basename(path)
    print(f"ok {name}: the catalog's row is llama.cpp's" if got == want else
          f"fail {name}: catalog {got}, llama.cpp {want}")
EOF
    while IFS= read -r line; do
        case $line in
        "ok "*) ok "${line#ok }" ;;
        *) fail "${line#fail }" ;;
        esac
    done <"$TMP/cmp"
fi
finish
