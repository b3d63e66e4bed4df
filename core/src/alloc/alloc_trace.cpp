#include "alloc/alloc_trace.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstring>

namespace arun {

Status AllocTrace::open(const std::string& path, std::shared_ptr<AllocTrace>* out) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) {
    return Status(Errc::invalid_param,
                  "ASCEND_RUN_ALLOC_TRACE: cannot write \"" + path + "\": " + std::strerror(errno));
  }
  std::fputs("# ascend-run allocation trace v1: t_ns op device stream [bytes page] id\n", f);
  out->reset(new AllocTrace(f));
  return Status::Ok();
}

AllocTrace::AllocTrace(std::FILE* file) : file_(file), start_(std::chrono::steady_clock::now()) {}

AllocTrace::~AllocTrace() {
  std::fclose(file_);
}

uint64_t AllocTrace::now_ns() const {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count());
}

uint64_t AllocTrace::allocated(int32_t device, uint64_t stream, uint64_t bytes, uint32_t page) {
  std::lock_guard lock(mu_);
  const uint64_t id = next_id_++;
  std::fprintf(file_, "%" PRIu64 " a %d %" PRIu64 " %" PRIu64 " %u %" PRIu64 "\n", now_ns(), device, stream, bytes,
               page, id);
  return id;
}

void AllocTrace::freed(int32_t device, uint64_t stream, uint64_t id) {
  std::lock_guard lock(mu_);
  std::fprintf(file_, "%" PRIu64 " f %d %" PRIu64 " %" PRIu64 "\n", now_ns(), device, stream, id);
}

void AllocTrace::used(int32_t device, uint64_t stream, uint64_t id) {
  std::lock_guard lock(mu_);
  std::fprintf(file_, "%" PRIu64 " u %d %" PRIu64 " %" PRIu64 "\n", now_ns(), device, stream, id);
}

void AllocTrace::stream_retired(int32_t device, uint64_t stream) {
  std::lock_guard lock(mu_);
  std::fprintf(file_, "%" PRIu64 " x %d %" PRIu64 "\n", now_ns(), device, stream);
}

void AllocTrace::synchronized(int32_t device, uint64_t stream) {
  std::lock_guard lock(mu_);
  std::fprintf(file_, "%" PRIu64 " s %d %" PRIu64 "\n", now_ns(), device, stream);
}

void AllocTrace::flush() {
  std::lock_guard lock(mu_);
  std::fflush(file_);
}

}  // namespace arun
