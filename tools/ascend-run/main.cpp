// ascend-run: the command line of the runtime, on CLI11. Every command has --help; options take
// `--opt value` or `--opt=value`. Exit codes: 0 done; 1 the runtime, a file or the work failed (the
// message says which and why); 2 bad arguments (the message names the option and the rule);
// 3 `run --compare` found a mismatch; `memory` and `profile` return the program's own status.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"
#include "demo.hpp"
#include "kernel_info.hpp"
#include "model_run.hpp"
#include "profile_command.hpp"
#include "runtime_errors.hpp"
#include "trace_replay.hpp"

namespace {

constexpr int kBadArguments = 2;

std::string version_text() {
  return std::string("ascend-run ") + arunGetVersion() + " (ACL interface " + std::to_string(ACL_MAJOR_VERSION) + "." +
         std::to_string(ACL_MINOR_VERSION) + "." + std::to_string(ACL_PATCH_VERSION) + ")";
}

// A whole number from 1 to the largest T: counts of batches, iterations, blocks...
template <class T>
CLI::Validator count_of() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
        if (text.empty() || text[0] == '-' || errno != 0 || *end != '\0' || v == 0 ||
            v > std::numeric_limits<T>::max()) {
          return "must be a whole number from 1 to " + std::to_string(std::numeric_limits<T>::max()) + ", not '" +
                 text + "'";
        }
        return {};
      },
      "");
}

const CLI::Validator kNonNegative(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(v >= 0.0) || v == HUGE_VAL) {
        return "must be a finite number >= 0, not '" + text + "'";
      }
      return {};
    },
    "");

const CLI::Validator kBinding(
    [](std::string& text) -> std::string {
      std::pair<std::string, std::string> b;
      return model_run::parse_binding(text.c_str(), &b) ? std::string() : "must be NAME=FILE.npy, not '" + text + "'";
    },
    "");

// Comma-separated sink names, none empty.
const CLI::Validator kSinkList(
    [](std::string& text) -> std::string {
      size_t pos = 0;
      while (pos <= text.size()) {
        size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        if (text.find_first_not_of(" \t", pos) >= comma) return "has an empty sink name: '" + text + "'";
        pos = comma + 1;
      }
      return {};
    },
    "");

const CLI::Validator kExistingFile = CLI::ExistingFile.description("");

void add_config(CLI::App* cmd, std::string* config) {
  cmd->add_option("--config", *config,
                  "the TOML configuration (default: $ASCEND_RUN_CONFIG, else the installed default.toml)")
      ->type_name("FILE")
      ->check(kExistingFile);
}

const char* or_null(const std::string& s) {
  return s.empty() ? nullptr : s.c_str();
}

int info(const char* config) {
  aclError rc = aclInit(config);
  if (rc != ACL_SUCCESS) {
    cli::report_init_failure("info", rc);
    std::fputs("\n", stderr);
    std::fputs(arunRuntimeReport(), stderr);
    return 1;
  }
  std::printf("%s\n\n", version_text().c_str());
  std::fputs(arunRuntimeReport(), stdout);
  uint32_t count = 0;
  int status = 0;
  if (aclrtGetDeviceCount(&count) != ACL_SUCCESS) {
    std::fprintf(stderr, "ascend-run info: no device is available: %s\n", aclGetRecentErrMsg());
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
    if (setenv("ASCEND_RUN_ALLOC", policy.c_str(), 1) != 0) {
      std::perror("ascend-run replay: setenv");
      return 1;
    }
    if (aclError rc = aclInit(config); rc != ACL_SUCCESS) {
      cli::report_init_failure("replay: policy \"" + policy + "\"", rc);
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
int run_with_memory_report(const std::string& trace, const std::vector<std::string>& program) {
  if (!trace.empty()) setenv("ASCEND_RUN_ALLOC_TRACE", trace.c_str(), 1);
  setenv("ASCEND_RUN_MEM_REPORT", "1", 1);
  std::vector<char*> argv;
  for (const auto& a : program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "ascend-run memory: cannot run '%s': %s\n", argv[0], std::strerror(errno));
  return 127;
}

// PROGRAM [ARGS...] after the command's own options (everything from the first positional on, or
// after `--`, belongs to the program).
void add_program(CLI::App* cmd, std::vector<std::string>* program) {
  cmd->add_option("program", *program, "the program to run and its arguments")
      ->type_name("PROGRAM [ARGS...]")
      ->required();
  cmd->prefix_command();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("ascend-run: the command line of the ascend-run device runtime", "ascend-run");
  app.set_version_flag("--version", version_text(), "print the runtime and ACL interface versions and exit");
  app.require_subcommand(1);
  app.footer(
      "Run 'ascend-run COMMAND --help' for a command's options. The configuration is --config FILE, else "
      "$ASCEND_RUN_CONFIG, else the installed default.\n"
      "Exit codes: 0 done; 1 the runtime, a file or the work failed; 2 bad arguments; 3 run --compare found a "
      "mismatch; memory and profile return the program's own status (127: it could not be started).");

  std::string config;

  CLI::App* info_cmd = app.add_subcommand("info", "show the configuration in use, the plugins found and the devices");
  add_config(info_cmd, &config);

  demo::Options demo_options;
  CLI::App* demo_cmd = app.add_subcommand(
      "demo",
      "run a double-buffered copy/compute pipeline on device 0, verify it against the host and print per-stage "
      "times and the overlap");
  add_config(demo_cmd, &config);
  demo_cmd->add_option("--batches", demo_options.batches, "batches through the pipeline")
      ->type_name("N")
      ->check(count_of<size_t>())
      ->capture_default_str();
  demo_cmd->add_option("--elements", demo_options.elements, "floats per batch")
      ->type_name("N")
      ->check(count_of<size_t>())
      ->capture_default_str();
  demo_cmd->add_option("--blocks", demo_options.blocks, "blocks per kernel launch")
      ->type_name("N")
      ->check(count_of<uint32_t>())
      ->capture_default_str();

  std::string trace;
  std::vector<std::string> policies;
  CLI::App* replay_cmd = app.add_subcommand(
      "replay",
      "replay an allocation trace (written with ASCEND_RUN_ALLOC_TRACE=FILE or `memory --trace`) under each "
      "allocator policy and compare time and peak reserved / peak requested memory");
  replay_cmd->add_option("trace", trace, "the trace file")->type_name("TRACE")->required()->check(kExistingFile);
  replay_cmd->add_option("--policy", policies, "an allocator policy (repeatable; default: direct, caching, bins)")
      ->type_name("SPEC");
  add_config(replay_cmd, &config);

  std::string memory_trace;
  std::vector<std::string> program;
  CLI::App* memory_cmd = app.add_subcommand(
      "memory", "run PROGRAM with the allocator report printed as each device closes (and a trace written)");
  memory_cmd->add_option("--trace", memory_trace, "write the program's allocation trace to FILE")->type_name("FILE");
  add_program(memory_cmd, &program);

  profile_command::Options profile_options;
  CLI::App* profile_cmd = app.add_subcommand(
      "profile",
      "run an unmodified PROGRAM with profiling from start to exit (as msprof --application does) and list the "
      "files written; the summary sink prints the top operators");
  profile_cmd->add_option("--output", profile_options.output_dir, "the output folder (created if missing)")
      ->type_name("DIR")
      ->capture_default_str();
  profile_cmd->add_option("--sinks", profile_options.sinks, "the profiler sinks to run")
      ->type_name("NAME,...")
      ->check(kSinkList)
      ->capture_default_str();
  profile_cmd->add_option("--config", profile_options.config, "the program's configuration ($ASCEND_RUN_CONFIG)")
      ->type_name("FILE")
      ->check(kExistingFile);
  add_program(profile_cmd, &profile_options.program);

  model_run::Options run_options;
  std::vector<std::string> inputs, compares;
  CLI::App* run_cmd = app.add_subcommand(
      "run",
      "load an ONNX model and run it on device 0 (random inputs unless given), write its outputs as .npy, print "
      "the latency over the timed runs and compare outputs with references");
  run_cmd->add_option("model", run_options.model, "the ONNX model")->type_name("MODEL.onnx")->required();
  run_cmd->add_option("--input", inputs, "the input NAME from a .npy file (repeatable)")
      ->type_name("NAME=FILE")
      ->check(kBinding);
  run_cmd->add_option("--compare", compares, "compare output NAME with a reference .npy (repeatable)")
      ->type_name("NAME=FILE")
      ->check(kBinding);
  run_cmd->add_option("--output-dir", run_options.output_dir, "where outputs are written (default: <model>_outputs)")
      ->type_name("DIR");
  run_cmd->add_option("--iterations", run_options.iterations, "timed runs")
      ->type_name("N")
      ->check(count_of<size_t>())
      ->capture_default_str();
  run_cmd->add_option("--warmup", run_options.warmup, "untimed runs first")
      ->type_name("N")
      ->check(count_of<size_t>())
      ->capture_default_str();
  run_cmd->add_option("--seed", run_options.seed, "seed of the random inputs")
      ->type_name("N")
      ->check(count_of<unsigned>())
      ->capture_default_str();
  run_cmd->add_option("--rtol", run_options.rtol, "--compare tolerance: |a-b| <= atol + rtol*|b|")
      ->type_name("X")
      ->check(kNonNegative)
      ->capture_default_str();
  run_cmd->add_option("--atol", run_options.atol, "--compare absolute tolerance")
      ->type_name("X")
      ->check(kNonNegative)
      ->capture_default_str();
  run_cmd->add_flag("--profile", run_options.profile, "write a timeline and a summary (ASCEND_RUN_PROFILING)");
  run_cmd->add_flag("--quiet", run_options.quiet, "no progress line");
  run_cmd->add_flag("--graph", run_options.graph,
                    "capture one step as a task graph (aclmdlRICaptureBegin/End) and time its replays "
                    "(aclmdlRIExecuteAsync): the host pays one call per step instead of one per node");
  add_config(run_cmd, &config);

  std::string binary;
  CLI::App* kernel_cmd = app.add_subcommand(
      "kernel-info",
      "check a kernel binary as aclrtBinaryLoadFromFile does and list its kernels: entry, default blocks, type, "
      "argument layout (docs/kernel-binaries.md); exit code 1 if it is not valid");
  kernel_cmd->add_option("file", binary, "the kernel binary")->type_name("FILE")->required();

  CLI::App* version_cmd = app.add_subcommand("version", "print the runtime and ACL interface versions");

  // Errors name the command they belong to, once.
  app.failure_message([](const CLI::App* top, const CLI::Error& e) {
    std::string command;
    for (const CLI::App* sub : top->get_subcommands()) command = " " + sub->get_name();
    return "ascend-run" + command + ": " + e.what() + "\nRun 'ascend-run" + command + " --help' for the options.\n";
  });

  // `ascend-run help [COMMAND]` as `ascend-run [COMMAND] --help`.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "help") {
    args.erase(args.begin());
    args.emplace_back("--help");
  }
  const auto is_command = [&app](const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->check_name(name)) return true;
    }
    return false;
  };
  if (!args.empty() && args[0][0] != '-' && !is_command(args[0])) {
    std::fprintf(stderr, "ascend-run: unknown command '%s'\nRun 'ascend-run --help' for the commands.\n",
                 args[0].c_str());
    return kBadArguments;
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kBadArguments;
  }

  if (version_cmd->parsed()) {
    std::printf("%s\n", version_text().c_str());
    return 0;
  }
  if (info_cmd->parsed()) return info(or_null(config));
  if (demo_cmd->parsed()) {
    demo_options.config = or_null(config);
    return demo::run(demo_options);
  }
  if (replay_cmd->parsed()) return replay_trace(trace, policies, or_null(config));
  if (memory_cmd->parsed()) return run_with_memory_report(memory_trace, program);
  if (profile_cmd->parsed()) return profile_command::run(profile_options);
  if (kernel_cmd->parsed()) return kernel_info(binary.c_str());
  if (run_cmd->parsed()) {
    // Each was checked by kBinding.
    for (const auto& text : inputs) model_run::parse_binding(text.c_str(), &run_options.inputs.emplace_back());
    for (const auto& text : compares) model_run::parse_binding(text.c_str(), &run_options.compares.emplace_back());
    run_options.config = or_null(config);
    return model_run::run(run_options);
  }
  return kBadArguments;  // unreachable: one command is required
}
