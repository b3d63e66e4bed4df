// ascend-run: the command line of the runtime.
//   ascend-run info [--config FILE]   configuration, plugins and devices, or what is wrong with them
//   ascend-run demo [--config FILE] [--batches N] [--elements N] [--blocks N]
//   ascend-run version
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <string>

#include "demo.hpp"

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
  std::fprintf(stderr, "ascend-run: unknown command '%s'\n", cmd.c_str());
  return usage(stderr);
}
