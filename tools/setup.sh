#!/usr/bin/env bash
# Installs the Debian 12 packages ascend-run needs to build and test, when they are missing.
# Safe to run repeatedly: it only calls apt-get for packages dpkg does not report as installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libboost-dev libboost-filesystem-dev   # Boost.DLL (header-only, uses Boost.Filesystem in 1.74)
  libtomlplusplus-dev                    # configuration files
  libcli11-dev                           # tools/ascend-run: the command line
  libspdlog-dev libfmt-dev               # logging
  nlohmann-json3-dev                     # CANN acl.json configs, HCCL rank tables
  libgtest-dev libgmock-dev googletest   # tests
  libbenchmark-dev                       # bench/
  python3-onnx python3-numpy             # tests/models: the test models and their references
  pybind11-dev python3-dev python3-pytest  # python/: import acl, and its tests
  libopenblas-dev                        # ops/: sgemm behind MatMul, Gemm and Conv
  libdnnl-dev                            # ops/: oneDNN, the convolution engine
  libsleef-dev                           # ops/: SLEEF, vectorised exp / log / tanh / erf
  libonnx-dev libprotobuf-dev            # model/: ONNX import (aclmdlLoadFromFile & co.)
  clang libclang-rt-14-dev               # tests/fuzz: libFuzzer, ASan and UBSan runtimes for clang
  nodejs                                 # tests/integration/speedscope: speedscope's importer
  libgloo-dev                            # plugins/collective/gloo: HCCL across processes
  libopenmpi-dev openmpi-bin             # examples/hccl_mpi: CANN's mpirun launch of HCCL programs
)
# Debian's npm, unless npm comes with another Node.js build (NodeSource's bundles it).
command -v npm >/dev/null 2>&1 || packages+=(npm)
# ARUN_BENCH_PEERS=1: the peers bench/ compares against (PoCL's OpenCL CPU device, StarPU, mimalloc).
# Opt-in: only the benchmark build wants them; CMake skips the peer benchmarks when they are absent.
if [ "${ARUN_BENCH_PEERS:-0}" = "1" ]; then
  packages+=(pocl-opencl-icd ocl-icd-opencl-dev opencl-headers libstarpu-dev libmimalloc-dev nodejs)
  # Debian's npm; skipped where npm comes with another Node.js build (NodeSource's bundles it).
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: need root to install packages (run as root or with sudo)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ONNX Runtime (CPU) for bench/model_vs_ort.sh: npm's onnxruntime-node, version pinned in
# bench/ort/package.json; the CPU library ships in the package (no CUDA download).
if [ "${ARUN_BENCH_PEERS:-0}" = "1" ] && [ ! -d "$(dirname "$0")/../bench/ort/node_modules/onnxruntime-node" ]; then
  echo "setup: npm install onnxruntime-node into bench/ort"
  (cd "$(dirname "$0")/../bench/ort" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund)
fi

# speedscope (npm, version pinned in tests/integration/speedscope/package.json) for the
# integration.speedscope test; only here, never at build or test time. Offline, the test skips.
speedscope_dir="$(dirname "$0")/../tests/integration/speedscope"
if [ ! -d "$speedscope_dir/node_modules/speedscope" ]; then
  echo "setup: npm install speedscope into tests/integration/speedscope"
  (cd "$speedscope_dir" && npm install --no-audit --no-fund) ||
    echo "setup: npm install failed; integration.speedscope will be skipped" >&2
fi
