// ONNX Runtime's CPU latency on the project's test models, measured the way `ascend-run run`
// measures ours: the same input file every call, warm-up calls first, then each run() timed.
//   node ort_latency.mjs --intra N --warmup W --runs R MODEL.onnx...
// Prints one line per model: "ort MODEL intra=N p50_ms=X p90_ms=Y min_ms=Z".
// The inputs of MODEL.onnx are read from MODEL.in.<input name>.npy (tests/models/make_models.py,
// make_zoo.py).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import * as ort from "onnxruntime-node";

// A little-endian .npy of float32 or int64 elements (the zoo's token ids) as an ort.Tensor.
function readNpy(path) {
  const bytes = readFileSync(path);
  const major = bytes[6];
  const headerLen = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const dataAt = (major === 1 ? 10 : 12) + headerLen;
  const header = bytes.toString("latin1", major === 1 ? 10 : 12, dataAt);
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(",").filter((s) => s.trim()).map(Number);
  const copy = bytes.buffer.slice(bytes.byteOffset + dataAt, bytes.byteOffset + bytes.length);
  if (header.includes("'<f4'")) return new ort.Tensor("float32", new Float32Array(copy), shape);
  if (header.includes("'<i8'")) return new ort.Tensor("int64", new BigInt64Array(copy), shape);
  throw new Error(`${path}: float32 or int64 data expected, header ${header}`);
}

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  args.splice(at, 2);
  return value;
};
const intra = option("--intra", 1);
const warmup = option("--warmup", 10);
const runs = option("--runs", 50);

for (const model of args) {
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: intra,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const stem = model.replace(/\.onnx$/, "");
  const feeds = {};
  for (const name of session.inputNames) feeds[name] = readNpy(`${stem}.in.${name}.npy`);
  for (let i = 0; i < warmup; ++i) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => ms[Math.min(ms.length - 1, Math.round(q * (ms.length - 1)))];
  console.log(`ort ${basename(stem)} intra=${intra} p50_ms=${at(0.5).toFixed(4)} p90_ms=${at(0.9).toFixed(4)} ` +
              `min_ms=${ms[0].toFixed(4)}`);
  await session.release();
}
