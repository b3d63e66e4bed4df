// Rank tables (HcclCommInitClusterInfo[Config], hccl-api.md section 4): versions 1.0 / 1.2, the
// legacy group_list template and 2.0, parsed with nlohmann::json. Every load error is
// HCCL_E_INTERNAL with a message naming the file and the field (CANN's mapping); the caller's rank
// missing from the table is HCCL_E_PARA. The ranks meet through the collective plugin: the
// process of rank 0 serves the rendezvous at its server's host_ip and rank 0's host_port
// (HCCL_IF_BASE_PORT, 60000, when the table gives none). One rank per process.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hccl_internal.hpp"

namespace hccl {
namespace {

using nlohmann::json;

struct TableRank {
  uint32_t rank = 0;
  int64_t device_id = 0;
  std::string host_ip;  // of its server ("" = unknown)
  int64_t host_port = 0;
  size_t server = 0;
};

struct TableError {
  std::string what;
};

// A 1.x number: a JSON string holding a decimal integer in [lo, hi] (2.0: a JSON number).
int64_t number(const json& obj, const std::string& key, const std::string& where, int64_t lo, int64_t hi, bool required,
               int64_t dflt = 0) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) throw TableError{where + "." + key + " is missing"};
    return dflt;
  }
  int64_t v = 0;
  if (it->is_number_integer()) {
    v = it->get<int64_t>();
  } else if (it->is_string()) {
    const std::string s = it->get<std::string>();
    char* end = nullptr;
    errno = 0;
    v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno != 0)
      throw TableError{where + "." + key + " = \"" + s + "\" is not an integer"};
  } else {
    throw TableError{where + "." + key + " is not an integer (or a string holding one)"};
  }
  if (v < lo || v > hi)
    throw TableError{where + "." + key + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]"};
  return v;
}

std::string text(const json& obj, const std::string& key, const std::string& where, bool required,
                 size_t max_len = 1024) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) throw TableError{where + "." + key + " is missing"};
    return "";
  }
  if (!it->is_string()) throw TableError{where + "." + key + " is not a string"};
  const std::string s = it->get<std::string>();
  if (s.size() > max_len) throw TableError{where + "." + key + " is longer than " + std::to_string(max_len)};
  return s;
}

const json& array(const json& obj, const std::string& key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw TableError{where + "." + key + " is missing"};
  if (!it->is_array()) throw TableError{where + "." + key + " is not an array"};
  return *it;
}

void parse_v1(const json& doc, std::vector<TableRank>* out) {
  const std::string version = doc["version"].get<std::string>();
  if (version == "1.0") number(doc, "server_count", "server_count", 1, 65536, true);
  const json& servers = array(doc, "server_list", "");
  for (size_t s = 0; s < servers.size(); ++s) {
    const std::string where = "server_list[" + std::to_string(s) + "]";
    const json& server = servers[s];
    if (!server.is_object()) throw TableError{where + " is not an object"};
    text(server, "server_id", where, true, 64);
    const std::string host_ip = text(server, "host_ip", where, false, 64);
    const json& devices = array(server, "device", where);
    for (size_t d = 0; d < devices.size(); ++d) {
      const std::string dw = where + ".device[" + std::to_string(d) + "]";
      const json& dev = devices[d];
      if (!dev.is_object()) throw TableError{dw + " is not an object"};
      TableRank r;
      r.device_id = number(dev, "device_id", dw, 0, 64, true);
      r.rank = uint32_t(number(dev, "rank_id", dw, 0, 65535, true));
      text(dev, "device_ip", dw, false, 64);
      number(dev, "device_port", dw, 1, 65535, false);
      r.host_port = number(dev, "host_port", dw, 1, 65535, false);
      if (version == "1.2") number(dev, "super_device_id", dw, 0, INT32_MAX, false);
      r.host_ip = host_ip;
      r.server = s;
      out->push_back(r);
    }
  }
}

void parse_legacy(const json& doc, std::vector<TableRank>* out) {
  const json& groups = array(doc, "group_list", "");
  size_t server = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string gw = "group_list[" + std::to_string(g) + "]";
    const json& instances = array(groups[g], "instance_list", gw);
    for (size_t i = 0; i < instances.size(); ++i, ++server) {
      const std::string iw = gw + ".instance_list[" + std::to_string(i) + "]";
      text(instances[i], "server_id", iw, true, 64);
      const json& devices = array(instances[i], "devices", iw);
      for (size_t d = 0; d < devices.size(); ++d) {
        const std::string dw = iw + ".devices[" + std::to_string(d) + "]";
        TableRank r;
        r.device_id = number(devices[d], "device_id", dw, 0, 64, true);
        r.rank = uint32_t(out->size());  // listing order
        r.server = server;
        out->push_back(r);
      }
    }
  }
}

void parse_v2(const json& doc, std::vector<TableRank>* out) {
  const int64_t count = number(doc, "rank_count", "rank_count", 1, 65536, true);
  const json& ranks = array(doc, "rank_list", "");
  if (int64_t(ranks.size()) != count)
    throw TableError{"rank_count is " + std::to_string(count) + " but rank_list has " + std::to_string(ranks.size()) +
                     " entries"};
  for (size_t i = 0; i < ranks.size(); ++i) {
    const std::string w = "rank_list[" + std::to_string(i) + "]";
    TableRank r;
    r.rank = uint32_t(number(ranks[i], "rank_id", w, 0, 65535, true));
    number(ranks[i], "local_id", w, 0, 64, true);
    r.device_id = number(ranks[i], "device_id", w, 0, 64, true);
    number(ranks[i], "device_port", w, 1, 65535, false);
    r.host_port = number(ranks[i], "host_port", w, 1, 65535, false);
    const json& levels = array(ranks[i], "level_list", w);
    if (levels.size() > 8) throw TableError{w + ".level_list has more than 8 entries"};
    for (size_t l = 0; l < levels.size(); ++l) {
      const std::string lw = w + ".level_list[" + std::to_string(l) + "]";
      if (number(levels[l], "net_layer", lw, 0, 7, true) != int64_t(l))
        throw TableError{lw + ".net_layer is not " + std::to_string(l) + " (ascending from 0)"};
      text(levels[l], "net_instance_id", lw, true, 1024);
      const std::string type = text(levels[l], "net_type", lw, true);
      if (type != "TOPO_FILE_DESC" && (l == 0 || type != "CLOS"))
        throw TableError{lw + ".net_type \"" + type + "\" is not TOPO_FILE_DESC" + (l == 0 ? "" : " or CLOS")};
      array(levels[l], "rank_addr_list", lw);
    }
    r.server = size_t(r.rank);
    out->push_back(r);
  }
}

// The table at `path`; throws TableError.
std::vector<TableRank> load(const char* path, std::string* content) {
  const size_t len = std::strlen(path);
  if (len == 0 || len > 4095) throw TableError{"the path is empty or longer than 4095 characters"};
  char real[PATH_MAX];
  if (::realpath(path, real) == nullptr) throw TableError{"cannot resolve the path: " + std::string(strerror(errno))};
  std::ifstream in(real, std::ios::binary);
  if (!in) throw TableError{"cannot open the file"};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > (std::streamoff(1) << 30)) throw TableError{"the file is larger than 1 GB"};
  in.seekg(0);
  content->resize(size_t(size));
  in.read(content->data(), size);
  json doc = json::parse(*content, nullptr, false);
  if (doc.is_discarded()) throw TableError{"not valid JSON"};
  if (!doc.is_object()) throw TableError{"the top level is not an object"};
  auto st = doc.find("status");
  if (st == doc.end()) {
    if (doc.contains("rank_list")) {
      // 2.0: status is optional
    } else {
      throw TableError{"status is missing"};
    }
  } else if (!st->is_string() || st->get<std::string>() != "completed") {
    throw TableError{"status is " + st->dump() + ", not \"completed\""};
  }
  std::vector<TableRank> ranks;
  auto ver = doc.find("version");
  if (ver == doc.end()) {
    if (!doc.contains("group_list")) throw TableError{"version is missing (and no legacy group_list)"};
    parse_legacy(doc, &ranks);
  } else if (!ver->is_string()) {
    throw TableError{"version is not a string"};
  } else if (*ver == "1.0" || *ver == "1.2") {
    if (*ver == "1.0" && content->size() > (size_t(40) << 20)) throw TableError{"a 1.x table is larger than 40 MB"};
    parse_v1(doc, &ranks);
  } else if (*ver == "2.0") {
    parse_v2(doc, &ranks);
  } else {
    throw TableError{"version " + ver->dump() + " is not 1.0, 1.2 or 2.0"};
  }
  if (ranks.empty()) throw TableError{"the table lists no rank"};
  std::vector<bool> seen(ranks.size(), false);
  for (const TableRank& r : ranks) {
    if (r.rank >= ranks.size())
      throw TableError{"rank_id " + std::to_string(r.rank) + " is not below the rank count " +
                       std::to_string(ranks.size())};
    if (seen[r.rank]) throw TableError{"rank_id " + std::to_string(r.rank) + " appears twice"};
    seen[r.rank] = true;
  }
  // Ranks of one server form one run of ids (server 1 {0..3}, server 2 {4..7}).
  std::vector<std::pair<uint32_t, uint32_t>> span;  // per server: lowest, highest
  std::vector<uint32_t> members;
  for (const TableRank& r : ranks) {
    if (r.server >= span.size()) {
      span.resize(r.server + 1, {UINT32_MAX, 0});
      members.resize(r.server + 1, 0);
    }
    span[r.server].first = std::min(span[r.server].first, r.rank);
    span[r.server].second = std::max(span[r.server].second, r.rank);
    ++members[r.server];
  }
  for (size_t s = 0; s < span.size(); ++s) {
    if (members[s] > 0 && span[s].second - span[s].first + 1 != members[s])
      throw TableError{"the rank_ids of server " + std::to_string(s) + " interleave with another server's"};
  }
  return ranks;
}

}  // namespace

HcclResult init_cluster(const char* path, uint32_t rank, const HcclCommConfig* config, HcclComm* comm,
                        const std::function<HcclResult(uint32_t n, uint32_t rank, const std::string& ip, uint32_t port,
                                                       bool serve, const std::string& id)>& join) {
  std::string content;
  std::vector<TableRank> ranks;
  try {
    ranks = load(path, &content);
  } catch (const TableError& e) {
    log_error("rank table %s: %s", path, e.what.c_str());
    return HCCL_E_INTERNAL;
  } catch (const std::exception& e) {
    log_error("rank table %s: %s", path, e.what());
    return HCCL_E_INTERNAL;
  }
  (void)config;
  (void)comm;
  const TableRank* me = nullptr;
  const TableRank* root = nullptr;
  for (const TableRank& r : ranks) {
    if (r.rank == rank) me = &r;
    if (r.rank == 0) root = &r;
  }
  if (me == nullptr) {
    log_error("rank table %s: rank %u is not in the table (%zu ranks)", path, rank, ranks.size());
    return HCCL_E_PARA;
  }
  int32_t device = 0;
  if (aclrtGetDevice(&device) == ACL_SUCCESS && device != me->device_id) {
    std::fprintf(stderr, "HCCL warning: rank table %s: rank %u has device_id %lld, the current device %d is used\n",
                 path, rank, (long long)me->device_id, device);
  }
  std::string ip = root->host_ip;
  if (ip.empty()) {
    if (HcclResult r = local_ip(&ip); r != HCCL_SUCCESS) return r;
  }
  uint32_t port = uint32_t(root->host_port);
  if (port == 0) {
    uint32_t hi = 0;
    if (HcclResult r = host_ports(&port, &hi); r != HCCL_SUCCESS) return r;
    if (port == 0) {
      log_error("rank table %s: rank 0 has no host_port, and HCCL_HOST_SOCKET_PORT_RANGE=auto names none", path);
      return HCCL_E_PARA;
    }
  }
  // The session: the table's content, so every rank of the same table derives the same one.
  uint64_t h = 1469598103934665603ULL;
  for (char ch : content) h = (h ^ uint8_t(ch)) * 1099511628211ULL;
  char id[64];
  std::snprintf(id, sizeof id, "ranktable_%016llx", (unsigned long long)h);
  return join(uint32_t(ranks.size()), rank, ip, port, rank == 0, id);
}

}  // namespace hccl
