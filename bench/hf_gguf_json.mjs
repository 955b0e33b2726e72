// `gguf-edit show --json`'s work done with @huggingface/gguf (npm), for bench/bench_json.sh:
// its gguf() reads a local file's header, and the metadata and tensor infos it returns are
// printed as one JSON document (64-bit integers, which JSON.stringify refuses, as numbers).
// Usage: node hf_gguf_json.mjs MODULE_DIR FILE
import { createRequire } from "node:module";

const [dir, file] = process.argv.slice(2);
const { gguf } = createRequire(dir + "/")("@huggingface/gguf");
const { metadata, tensorInfos } = await gguf(file, { allowLocalFile: true });
const text = JSON.stringify({ metadata, tensorInfos }, (k, v) =>
  typeof v === "bigint" ? Number(v) : v);
process.stdout.write(text + "\n");
