#!/bin/sh
# Every symbol the shared library exports carries a module segment (gguf_file_..., gguf_kv_...),
# so that a program can link both libgguf and ggml, which exports gguf_init_*, gguf_get_*, ...
. "$(dirname "$0")/../support/cli_lib.sh"
so=$(ls "$top_builddir"/libgguf/.libs/libgguf.so 2>/dev/null)
[ -n "$so" ] || skip_all "no shared library built (configure --disable-shared)"
n=0
for sym in $(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ {print $3}'); do
    n=$((n + 1))
    case "$sym" in
    gguf_error_*|gguf_strerror|gguf_version|gguf_version_*|gguf_file_*|gguf_kv_*|gguf_value_*|gguf_tensor_*|gguf_dtype_*|gguf_vtype_*|gguf_quant_*|gguf_catalog_*|gguf_edit_*|gguf_crc_*|gguf_convert_*|gguf_requant_*|gguf_json_*|gguf_text_*|gguf_split_*|gguf_llama_*|gguf_path_*|gguf_http_*|gguf_output_*|gguf_interrupt_*|gguf_sha256_*)
        ok ;;
    *) fail "exported symbol '$sym' has no module segment (or is a ggml name)" ;;
    esac
    case "$sym" in
    gguf_free|gguf_init_*|gguf_get_*|gguf_set_*|gguf_type_name|gguf_find_*|gguf_write_*) fail "'$sym' clashes with ggml" ;;
    esac
done
[ "$n" -ge 20 ] && ok || fail "only $n symbols exported"
finish
