// NIC selection for HCCL's host sockets (hccl_nic.hpp).
#include "hccl_nic.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <tuple>

#include <nlohmann/json.hpp>

namespace hccl {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Rank of an interface in the default order: others (0) before docker (1) before loopback (2).
int default_rank(const NetIf& i) {
  if (i.loopback || i.name == "lo") return 2;
  if (starts_with(i.name, "docker")) return 1;
  return 0;
}

// HCCL_SOCKET_IFNAME: a comma-separated list; "^" first excludes, "=" first (after "^") makes the
// entries exact names instead of prefixes. The prefix marks apply to the whole list.
struct IfnameRule {
  bool exclude = false, exact = false;
  std::vector<std::string> names;
  bool matches(const std::string& n) const {
    for (const auto& e : names)
      if (exact ? n == e : starts_with(n, e)) return true;
    return false;
  }
};

bool parse_ifname(const std::string& v, IfnameRule* rule, std::string* why) {
  size_t at = 0;
  if (at < v.size() && v[at] == '^') rule->exclude = true, ++at;
  if (at < v.size() && v[at] == '=') rule->exact = true, ++at;
  std::string cur;
  for (size_t i = at; i <= v.size(); ++i) {
    if (i == v.size() || v[i] == ',') {
      if (!cur.empty()) rule->names.push_back(cur);
      cur.clear();
    } else if (v[i] != ' ') {
      cur += v[i];
    }
  }
  if (rule->names.empty()) {
    *why = "environment variable HCCL_SOCKET_IFNAME=\"" + v +
           "\" names no interface (\"eth,enp\", \"^docker\", \"=eth0\", \"^=eth0\")";
    return false;
  }
  return true;
}

std::string list_of(const std::vector<NetIf>& ifs) {
  std::string out;
  for (const auto& i : ifs) out += (out.empty() ? "" : ", ") + i.name + " " + i.address;
  return out.empty() ? "none" : out;
}

}  // namespace

bool choose_nic(const std::vector<NetIf>& ifs, const char* if_ip, const char* ifname, const char* family,
                std::string* address, std::string* why) {
  if (if_ip != nullptr && if_ip[0] != '\0') {
    *address = if_ip;
    return true;
  }
  int fam = AF_INET;
  if (family != nullptr && family[0] != '\0') {
    if (std::strcmp(family, "AF_INET") == 0) {
      fam = AF_INET;
    } else if (std::strcmp(family, "AF_INET6") == 0) {
      fam = AF_INET6;
    } else {
      *why = std::string("environment variable HCCL_SOCKET_FAMILY=\"") + family + "\" is not AF_INET or AF_INET6";
      return false;
    }
  }
  const char* fam_name = fam == AF_INET ? "AF_INET" : "AF_INET6";
  std::vector<NetIf> cands;
  for (const auto& i : ifs)
    if (i.family == fam) cands.push_back(i);
  IfnameRule rule;
  const bool by_name = ifname != nullptr && ifname[0] != '\0';
  if (by_name) {
    if (!parse_ifname(ifname, &rule, why)) return false;
    std::vector<NetIf> kept;
    for (const auto& i : cands)
      if (rule.matches(i.name) != rule.exclude) kept.push_back(i);
    if (kept.empty()) {
      *why = std::string("no network interface matches HCCL_SOCKET_IFNAME=\"") + ifname + "\" with an " + fam_name +
             " address (interfaces: " + list_of(cands) + ")";
      return false;
    }
    cands.swap(kept);
  }
  if (cands.empty()) {
    *why = std::string("no network interface has an ") + fam_name + " address (set HCCL_IF_IP)";
    return false;
  }
  // Link-local IPv6 addresses need a scope; others first. Then the default order, then the name.
  auto link_local = [](const NetIf& i) { return i.family == AF_INET6 && starts_with(i.address, "fe80"); };
  std::stable_sort(cands.begin(), cands.end(), [&](const NetIf& a, const NetIf& b) {
    const auto ka = std::make_tuple(link_local(a), default_rank(a), a.name);
    const auto kb = std::make_tuple(link_local(b), default_rank(b), b.name);
    return ka < kb;
  });
  *address = link_local(cands[0]) ? cands[0].address + "%" + cands[0].name : cands[0].address;
  return true;
}

std::vector<NetIf> host_interfaces() {
  std::vector<NetIf> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_name == nullptr || (i->ifa_flags & IFF_UP) == 0) continue;
    const int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    char buf[INET6_ADDRSTRLEN] = {};
    const void* a = fam == AF_INET ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr)
                                   : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr);
    if (inet_ntop(fam, a, buf, sizeof buf) == nullptr) continue;
    out.push_back({i->ifa_name, fam, buf, (i->ifa_flags & IFF_LOOPBACK) != 0});
  }
  freeifaddrs(list);
  return out;
}

bool host_whitelist(const char* disable, const char* file, bool* on, std::vector<std::string>* hosts,
                    std::string* why) {
  *on = false;
  hosts->clear();
  const std::string d = disable != nullptr ? disable : "";
  if (d.empty() || d == "1") return true;
  if (d != "0") {
    *why = "HCCL_WHITELIST_DISABLE=\"" + d + "\" is not 0 or 1";
    return false;
  }
  const std::string path = file != nullptr ? file : "";
  if (path.empty()) {
    *why = "HCCL_WHITELIST_DISABLE=0 needs HCCL_WHITELIST_FILE";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = "HCCL_WHITELIST_FILE \"" + path + "\" cannot be read: " + std::strerror(errno);
    return false;
  }
  // Bounded before anything is read: a whitelist is a few addresses.
  constexpr std::streamoff kMaxBytes = 1 << 20;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxBytes) {
    *why = "HCCL_WHITELIST_FILE \"" + path + "\" is larger than 1 MiB";
    return false;
  }
  in.seekg(0);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *why = "HCCL_WHITELIST_FILE \"" + path + "\" is not a JSON object";
    return false;
  }
  const auto ips = j.find("host_ip");
  if (ips == j.end() || !ips->is_array()) {
    *why = "HCCL_WHITELIST_FILE \"" + path + "\" has no \"host_ip\" array";
    return false;
  }
  if (const auto dev = j.find("device_ip"); dev != j.end() && !dev->is_array()) {
    *why = "HCCL_WHITELIST_FILE \"" + path + "\": \"device_ip\" is not an array";
    return false;
  }
  for (const auto& e : *ips) {
    unsigned char buf[sizeof(in6_addr)];
    const std::string ip = e.is_string() ? e.get<std::string>() : e.dump();
    if (!e.is_string() || (::inet_pton(AF_INET, ip.c_str(), buf) != 1 && ::inet_pton(AF_INET6, ip.c_str(), buf) != 1)) {
      *why = "HCCL_WHITELIST_FILE \"" + path + "\": host_ip entry " + ip + " is not a numeric IPv4 or IPv6 address";
      return false;
    }
    hosts->push_back(ip);
  }
  *on = true;
  return true;
}

}  // namespace hccl
