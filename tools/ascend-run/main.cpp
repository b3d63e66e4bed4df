// ascend-run: the command line of the runtime.
//   ascend-run info [--config FILE]   configuration, plugins and devices, or what is wrong with them
//   ascend-run demo [--config FILE] [--batches N] [--elements N] [--blocks N]
//   ascend-run replay TRACE [--policy SPEC]... [--config FILE]
//   ascend-run memory [--trace FILE] PROGRAM [ARGS...]
//   ascend-run run MODEL.onnx [--input NAME=FILE.npy]... [--output-dir DIR] [--iterations N] ...
//   ascend-run version
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <string>
#include <vector>

#include "demo.hpp"
#include "model_run.hpp"
#include "kernel_info.hpp"
#include "trace_replay.hpp"

#include "acl/acl.h"
#include "arun/arun_ext.h"

namespace {

int usage(FILE* to) {
  std::fprintf(to,
               "usage: ascend-run <command> [options]\n"
               "commands:\n"
               "  info [--config FILE]   show the configuration in use, the plugins found and the devices\n"
               "  demo [--config FILE] [--batches N] [--elements N] [--blocks N]\n"
               "                         run a double-buffered copy/compute pipeline on device 0, verify it\n"
               "                         against the host and print per-stage times and the overlap\n"
               "  replay TRACE [--policy SPEC]... [--config FILE]\n"
               "                         replay an allocation trace (ASCEND_RUN_ALLOC_TRACE=TRACE) under each\n"
               "                         allocator policy (default: direct, caching, bins) and compare time and\n"
               "                         peak reserved / peak requested memory\n"
               "  memory [--trace FILE] PROGRAM [ARGS...]\n"
               "                         run PROGRAM with the allocator report printed as each device closes\n"
               "                         (and its allocation trace written to FILE)\n"
               "  run MODEL.onnx [--input NAME=FILE.npy]... [--output-dir DIR] [--iterations N]\n"
               "      [--warmup N] [--compare NAME=FILE.npy]... [--rtol X] [--atol X] [--seed N] [--profile]\n"
               "      [--quiet]\n"
               "      [--config FILE]\n"
               "                         load an ONNX model and run it on device 0 (random inputs unless\n"
               "                         given), write its outputs as .npy (default DIR: <model>_outputs),\n"
               "                         print latency p50/p90/min over N runs after the warm-up runs (1),\n"
               "                         compare outputs with references;\n"
               "                         --profile writes a timeline and a summary\n"
               "                         exit code: 0 done, 1 the model, an input or the runtime failed\n"
               "                         (the message names the file and the reason), 2 bad arguments,\n"
               "                         3 a --compare mismatch\n"
               "  kernel-info FILE       check a kernel binary as aclrtBinaryLoadFromFile does and list its\n"
               "                         kernels: entry, default blocks, type, argument layout\n"
               "                         (docs/kernel-binaries.md); exit code 1 if it is not valid\n"
               "  version                show the runtime and ACL interface versions\n"
               "The configuration is FILE, else $ASCEND_RUN_CONFIG, else the installed default.\n");
  return to == stderr ? 2 : 0;
}

// A positive decimal count that fits in T; false for anything else.
template <class T>
bool parse_count(const char* text, T* out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v == 0 || v > std::numeric_limits<T>::max() || text[0] == '-')
    return false;
  *out = static_cast<T>(v);
  return true;
}

// NAME=FILE of --input and --compare; complains and returns false when malformed.
bool parse_binding_arg(const char* text, std::pair<std::string, std::string>* out) {
  if (model_run::parse_binding(text, out)) return true;
  std::fprintf(stderr, "ascend-run run: '%s' is not NAME=FILE.npy\n", text);
  return false;
}

int info(const char* config) {
  aclError rc = aclInit(config);
  if (rc != ACL_SUCCESS) {
    const char* msg = aclGetRecentErrMsg();
    std::fprintf(stderr, "ascend-run: the runtime cannot start (error %d):\n  %s\n\n", rc, msg ? msg : "no message");
    std::fputs(arunRuntimeReport(), stderr);
    return 1;
  }
  std::printf("ascend-run %s (ACL interface %d.%d.%d)\n\n", arunGetVersion(), ACL_MAJOR_VERSION, ACL_MINOR_VERSION,
              ACL_PATCH_VERSION);
  std::fputs(arunRuntimeReport(), stdout);
  uint32_t count = 0;
  int status = 0;
  if (aclrtGetDeviceCount(&count) != ACL_SUCCESS) {
    std::fprintf(stderr, "ascend-run: no device is available: %s\n", aclGetRecentErrMsg());
    status = 1;
  }
  aclFinalize();
  return status;
}

std::string human(uint64_t b) {
  char buf[32];
  if (b >= (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(b) / double(1ull << 30));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1ull << 20));
  }
  return buf;
}

int replay_trace(const std::string& path, std::vector<std::string> policies, const char* config) {
  replay::Trace trace;
  std::string error;
  if (!replay::load(path, &trace, &error)) {
    std::fprintf(stderr, "ascend-run replay: %s\n", error.c_str());
    return 1;
  }
  if (policies.empty()) policies = {"direct", "caching", "bins"};
  std::printf("trace %s: %zu events, %llu allocations\n\n", path.c_str(), trace.events.size(),
              static_cast<unsigned long long>(trace.allocations));
  std::printf("%-28s %9s %9s %9s %14s %14s %9s %7s %5s\n", "policy", "calls", "ns/call", "wall ms", "peak requested",
              "peak reserved", "reserved/", "chunks", "OOMs");
  std::printf("%-28s %9s %9s %9s %14s %14s %9s %7s %5s\n", "", "", "", "", "", "", "requested", "", "");
  int status = 0;
  for (const auto& policy : policies) {
    if (setenv("ASCEND_RUN_ALLOC", policy.c_str(), 1) != 0 || aclInit(config) != ACL_SUCCESS) {
      const char* m = aclGetRecentErrMsg();
      std::fprintf(stderr, "ascend-run replay: policy \"%s\": the runtime cannot start: %s\n", policy.c_str(),
                   m != nullptr ? m : "");
      status = 1;
      continue;
    }
    replay::Result r;
    if (!replay::run(trace, &r, &error)) {
      std::fprintf(stderr, "ascend-run replay: policy \"%s\": %s\n", policy.c_str(), error.c_str());
      status = 1;
    } else {
      const double ratio = r.peak_requested == 0 ? 0.0 : double(r.peak_reserved) / double(r.peak_requested);
      std::printf("%-28s %9llu %9.0f %9.1f %14s %14s %9.3f %7llu %5llu\n", policy.c_str(),
                  static_cast<unsigned long long>(r.calls), r.calls == 0 ? 0.0 : r.call_seconds * 1e9 / double(r.calls),
                  r.wall_seconds * 1e3, human(r.peak_requested).c_str(), human(r.peak_reserved).c_str(), ratio,
                  static_cast<unsigned long long>(r.chunk_acquires), static_cast<unsigned long long>(r.ooms));
    }
    aclFinalize();
  }
  unsetenv("ASCEND_RUN_ALLOC");
  return status;
}

// Runs a program with the allocator report on (and a trace file), replacing this process.
int run_with_memory_report(int argc, char** argv, int first) {
  int i = first;
  if (i + 1 < argc && std::strcmp(argv[i], "--trace") == 0) {
    setenv("ASCEND_RUN_ALLOC_TRACE", argv[i + 1], 1);
    i += 2;
  }
  if (i >= argc) {
    std::fprintf(stderr, "ascend-run memory: no program given\n");
    return usage(stderr);
  }
  setenv("ASCEND_RUN_MEM_REPORT", "1", 1);
  execvp(argv[i], argv + i);
  std::fprintf(stderr, "ascend-run memory: cannot run '%s': %s\n", argv[i], std::strerror(errno));
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage(stderr);
  std::string cmd = argv[1];
  if (cmd == "-h" || cmd == "--help" || cmd == "help") return usage(stdout);
  if (cmd == "version") {
    std::printf("ascend-run %s (ACL interface %d.%d.%d)\n", arunGetVersion(), ACL_MAJOR_VERSION, ACL_MINOR_VERSION,
                ACL_PATCH_VERSION);
    return 0;
  }
  if (cmd == "kernel-info") {
    if (argc != 3) return usage(stderr);
    return kernel_info(argv[2]);
  }
  if (cmd == "info") {
    const char* config = nullptr;
    for (int i = 2; i < argc; ++i) {
      if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
        config = argv[++i];
      } else {
        std::fprintf(stderr, "ascend-run info: unknown argument '%s'\n", argv[i]);
        return usage(stderr);
      }
    }
    return info(config);
  }
  if (cmd == "demo") {
    demo::Options o;
    for (int i = 2; i < argc; ++i) {
      const bool has_value = i + 1 < argc;
      if (std::strcmp(argv[i], "--config") == 0 && has_value) {
        o.config = argv[++i];
      } else if (std::strcmp(argv[i], "--batches") == 0 && has_value && parse_count(argv[++i], &o.batches)) {
      } else if (std::strcmp(argv[i], "--elements") == 0 && has_value && parse_count(argv[++i], &o.elements)) {
      } else if (std::strcmp(argv[i], "--blocks") == 0 && has_value && parse_count(argv[++i], &o.blocks)) {
      } else {
        std::fprintf(stderr, "ascend-run demo: bad argument '%s'\n", argv[i]);
        return usage(stderr);
      }
    }
    return demo::run(o);
  }
  if (cmd == "run") {
    model_run::Options o;
    for (int i = 2; i < argc; ++i) {
      const bool has_value = i + 1 < argc;
      const char* a = argv[i];
      std::pair<std::string, std::string> binding;
      char* end = nullptr;
      if (std::strcmp(a, "--config") == 0 && has_value) {
        o.config = argv[++i];
      } else if (std::strcmp(a, "--input") == 0 && has_value && parse_binding_arg(argv[++i], &binding)) {
        o.inputs.push_back(binding);
      } else if (std::strcmp(a, "--compare") == 0 && has_value && parse_binding_arg(argv[++i], &binding)) {
        o.compares.push_back(binding);
      } else if (std::strcmp(a, "--output-dir") == 0 && has_value) {
        o.output_dir = argv[++i];
      } else if (std::strcmp(a, "--iterations") == 0 && has_value && parse_count(argv[++i], &o.iterations)) {
      } else if (std::strcmp(a, "--warmup") == 0 && has_value && parse_count(argv[++i], &o.warmup)) {
      } else if (std::strcmp(a, "--seed") == 0 && has_value && parse_count(argv[++i], &o.seed)) {
      } else if ((std::strcmp(a, "--rtol") == 0 || std::strcmp(a, "--atol") == 0) && has_value) {
        const double v = std::strtod(argv[++i], &end);
        if (end == argv[i] || *end != '\0' || !(v >= 0.0)) {
          std::fprintf(stderr, "ascend-run run: %s needs a number >= 0, not '%s'\n", a, argv[i]);
          return 2;
        }
        (a[2] == 'r' ? o.rtol : o.atol) = v;
      } else if (std::strcmp(a, "--profile") == 0) {
        o.profile = true;
      } else if (std::strcmp(a, "--quiet") == 0) {
        o.quiet = true;
      } else if (o.model.empty() && a[0] != '-') {
        o.model = a;
      } else {
        std::fprintf(stderr, "ascend-run run: bad argument '%s'\n", a);
        return usage(stderr);
      }
    }
    if (o.model.empty()) {
      std::fprintf(stderr, "ascend-run run: no model given\n");
      return usage(stderr);
    }
    return model_run::run(o);
  }
  if (cmd == "replay") {
    const char* config = nullptr;
    std::string trace;
    std::vector<std::string> policies;
    for (int i = 2; i < argc; ++i) {
      const bool has_value = i + 1 < argc;
      if (std::strcmp(argv[i], "--config") == 0 && has_value) {
        config = argv[++i];
      } else if (std::strcmp(argv[i], "--policy") == 0 && has_value) {
        policies.emplace_back(argv[++i]);
      } else if (trace.empty() && argv[i][0] != '-') {
        trace = argv[i];
      } else {
        std::fprintf(stderr, "ascend-run replay: bad argument '%s'\n", argv[i]);
        return usage(stderr);
      }
    }
    if (trace.empty()) {
      std::fprintf(stderr, "ascend-run replay: no trace file given\n");
      return usage(stderr);
    }
    return replay_trace(trace, policies, config);
  }
  if (cmd == "memory") return run_with_memory_report(argc, argv, 2);
  std::fprintf(stderr, "ascend-run: unknown command '%s'\n", cmd.c_str());
  return usage(stderr);
}
