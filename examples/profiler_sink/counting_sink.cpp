// counting: a minimal third-party profiler sink. It counts the records of each kind it receives,
// the devices and streams that ran tasks, and the busiest API, and writes them as key=value lines
// to the file its `file` option names when the session ends. Everything a sink needs is in
// <arun/plugin/profiler.hpp>; see docs/profiler-sinks.md for the contract.
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "arun/plugin/plugin_abi.hpp"
#include "arun/plugin/profiler.hpp"

namespace counting {

using arun::plugin::Record;
using arun::plugin::RecordKind;

class CountingSink final : public arun::plugin::ProfilerSink {
 public:
  explicit CountingSink(std::string file) : file_(std::move(file)) {}

  bool begin(const arun::plugin::SessionInfo& session, char* error, size_t error_size) override {
    if (file_.empty()) {
      std::snprintf(error, error_size, "the option `file` is required");
      return false;
    }
    strings_ = session.strings;
    devices_ = session.device_count;
    categories_ = session.categories;
    ++begins_;
    return true;
  }

  void consume(const Record* records, size_t count) override {
    ++batches_;
    for (size_t i = 0; i < count; ++i) {
      const Record& r = records[i];
      ++by_kind_[static_cast<int>(r.kind)];
      if (r.kind == RecordKind::Task) streams_.insert({r.device, r.stream});
      if (r.kind == RecordKind::ApiCall) ++api_calls_[std::string(strings_->get(r.name))];
    }
  }

  void end(const arun::plugin::SessionTotals& totals) override {
    FILE* f = std::fopen(file_.c_str(), "w");
    if (f == nullptr) return;
    auto count = [&](RecordKind k) {
      auto it = by_kind_.find(static_cast<int>(k));
      return it == by_kind_.end() ? 0ull : static_cast<unsigned long long>(it->second);
    };
    std::string busiest;
    uint64_t most = 0;
    for (auto& [name, n] : api_calls_) {
      if (n > most) busiest = name, most = n;
    }
    std::fprintf(f, "begins=%d\nbatches_nonzero=%d\ndevices=%u\ncategories=0x%llx\n", begins_, batches_ > 0 ? 1 : 0,
                 devices_, static_cast<unsigned long long>(categories_));
    std::fprintf(f, "api_calls=%llu\ntasks=%llu\nevent_records=%llu\nevent_waits=%llu\nallocs=%llu\nfrees=%llu\n",
                 count(RecordKind::ApiCall), count(RecordKind::Task), count(RecordKind::EventRecord),
                 count(RecordKind::EventWait), count(RecordKind::MemAlloc), count(RecordKind::MemFree));
    std::fprintf(f, "streams_with_tasks=%zu\nbusiest_api=%s\nrecords=%llu\ndropped=%llu\n", streams_.size(),
                 busiest.c_str(), static_cast<unsigned long long>(totals.records),
                 static_cast<unsigned long long>(totals.dropped));
    std::fclose(f);
  }

 private:
  std::string file_;
  const arun::plugin::StringTable* strings_ = nullptr;
  uint32_t devices_ = 0;
  uint64_t categories_ = 0;
  int begins_ = 0;
  int batches_ = 0;
  std::map<int, uint64_t> by_kind_;
  std::set<std::pair<int32_t, int32_t>> streams_;
  std::map<std::string, uint64_t> api_calls_;
};

const arun::plugin::OptionSpec kOptions[] = {
    {"file", arun::plugin::OptionType::String, 0, 0, "\"\"", "where to write the counts"},
};

arun::plugin::PluginObject* create(arun::plugin::HostServices*, const arun::plugin::OptionValues* options, char*,
                                   size_t) {
  return new CountingSink(options->get_string("file"));
}

extern const arun::plugin::PluginDescriptor kDescriptor;
const arun::plugin::PluginDescriptor kDescriptor{
    ARUN_PLUGIN_HEADER,
    arun::plugin::PluginKind::Profiler,
    "counting",
    "1.0.0",
    "",
    "Example out-of-tree sink: counts the records it receives",
    kOptions,
    1,
    &create,
};

}  // namespace counting

ARUN_DECLARE_PLUGIN(counting::kDescriptor)
