// libFuzzer target: the .npy reader of `ascend-run run --input` (npy::read on a file holding the
// input, and npy::parse_header on the input as a header). Any input must be read or refused with a
// message, never a crash, an overflow or an allocation the file does not back.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "npy.hpp"

namespace {

std::string scratch_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir && dir[0] ? dir : "/tmp") + "/arun-fuzz-npy-" + std::to_string(::getpid()) + ".npy";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_file();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < size) {
    ssize_t w = ::write(fd, data + done, size - done);
    if (w <= 0) std::abort();
    done += static_cast<size_t>(w);
  }
  ::close(fd);
  npy::Array a;
  std::string error;
  if (npy::read(path, &a, &error)) {
    // What was accepted is consistent: its data is exactly what its shape and type say.
    size_t bytes = 0;
    if (!npy::checked_bytes(a.shape, a.item_size(), &bytes) || bytes != a.data.size()) std::abort();
  } else if (error.empty()) {
    std::abort();  // a refusal always says why
  }
  npy::Array h;
  (void)npy::parse_header(std::string(reinterpret_cast<const char*>(data), size), &h, &error);
  return 0;
}
