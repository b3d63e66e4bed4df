// ascend-run run: load an ONNX model through the ACL model API and run it (model_run.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace model_run {

struct Options {
  std::string model;                                          // MODEL.onnx
  const char* config = nullptr;                               // aclInit's argument
  std::vector<std::pair<std::string, std::string>> inputs;    // --input name=file.npy
  std::vector<std::pair<std::string, std::string>> compares;  // --compare name=reference.npy
  std::string output_dir;                                     // --output-dir; empty = <model stem>_outputs
  size_t iterations = 10;                                     // timed runs, after the warm-up runs
  size_t warmup = 1;                                          // untimed runs first (--warmup)
  unsigned seed = 1;                                          // random inputs
  double rtol = 1e-3;                                         // --compare tolerance: |a-b| <= atol + rtol*|b|
  double atol = 1e-4;
  bool profile = false;  // --profile: ASCEND_RUN_PROFILING=timeline,summary
  bool quiet = false;    // no progress line
  bool graph = false;    // --graph: capture one step (aclmdlRICapture*) and time its replays
};

// Parses "name=path" into *out; false when there is no '=' or either side is empty.
bool parse_binding(const char* text, std::pair<std::string, std::string>* out);

// Runs the model. Exit codes: 0 on success; 1 when the model, an input or the runtime fails
// (an unreadable or malformed file, a shape or type the model does not take, a buffer larger than
// host memory, any error the runtime reports), always with a message naming the file and the
// reason, never an uncaught exception; 3 when a --compare found a mismatch. (2: bad arguments,
// reported by main before run is called.)
int run(const Options& options);

}  // namespace model_run
