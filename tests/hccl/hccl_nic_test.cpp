// The host NIC choice of libhccl (hccl/src/hccl_nic.cpp) on made-up interface lists: the order
// HCCL_IF_IP > HCCL_SOCKET_IFNAME > others by name > docker > loopback, the ifname forms (prefixes,
// "^" exclude, "=" exact, "^=" exclude exact), HCCL_SOCKET_FAMILY, and the errors.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "../../hccl/src/hccl_nic.hpp"

namespace {

using hccl::NetIf;

const std::vector<NetIf> kHost = {
    {"lo", AF_INET, "127.0.0.1", true},        {"lo", AF_INET6, "::1", true},
    {"eth1", AF_INET, "10.0.1.5", false},      {"docker0", AF_INET, "172.17.0.1", false},
    {"eth0", AF_INET, "10.0.0.5", false},      {"eth0", AF_INET6, "fe80::1", false},
    {"enp3s0", AF_INET, "192.168.1.7", false}, {"enp3s0", AF_INET6, "2001:db8::7", false},
};

std::string pick(const std::vector<NetIf>& ifs, const char* ip, const char* ifname, const char* family) {
  std::string addr, why;
  if (!hccl::choose_nic(ifs, ip, ifname, family, &addr, &why)) return "error: " + why;
  return addr;
}

TEST(Nic, DefaultOrderIsOthersByNameThenDockerThenLoopback) {
  EXPECT_EQ(pick(kHost, nullptr, nullptr, nullptr), "192.168.1.7");  // enp3s0 < eth0 < eth1
  EXPECT_EQ(pick({kHost[0], kHost[3]}, nullptr, nullptr, nullptr), "172.17.0.1");
  EXPECT_EQ(pick({kHost[0]}, nullptr, nullptr, nullptr), "127.0.0.1");
  EXPECT_EQ(pick(kHost, "", "", ""), "192.168.1.7");  // empty values count as unset
}

TEST(Nic, IfIpWinsOverEverything) {
  EXPECT_EQ(pick(kHost, "10.9.9.9", "=eth0", "AF_INET6"), "10.9.9.9");
}

TEST(Nic, IfnamePrefixesExactAndExclusions) {
  EXPECT_EQ(pick(kHost, nullptr, "eth", nullptr), "10.0.0.5");
  EXPECT_EQ(pick(kHost, nullptr, "eth1,docker", nullptr), "10.0.1.5");  // docker comes last among the matches
  EXPECT_EQ(pick(kHost, nullptr, "dock", nullptr), "172.17.0.1");
  EXPECT_EQ(pick(kHost, nullptr, "=eth1", nullptr), "10.0.1.5");
  EXPECT_EQ(pick(kHost, nullptr, "=eth", nullptr).rfind("error: ", 0), 0u);  // exact: no "eth" interface
  EXPECT_EQ(pick(kHost, nullptr, "^enp,eth", nullptr), "172.17.0.1");
  EXPECT_EQ(pick(kHost, nullptr, "^=enp3s0", nullptr), "10.0.0.5");
  EXPECT_EQ(pick(kHost, nullptr, "^enp,eth,docker", nullptr), "127.0.0.1");
  EXPECT_EQ(pick(kHost, nullptr, "lo", nullptr), "127.0.0.1");
}

TEST(Nic, FamilySelectsAddresses) {
  EXPECT_EQ(pick(kHost, nullptr, nullptr, "AF_INET6"), "2001:db8::7");
  EXPECT_EQ(pick(kHost, nullptr, "=eth0", "AF_INET6"), "fe80::1%eth0");  // link-local needs its scope
  EXPECT_EQ(pick(kHost, nullptr, "=eth0", "AF_INET"), "10.0.0.5");
}

TEST(Nic, ErrorsNameTheVariable) {
  const std::string none = pick(kHost, nullptr, "ib", nullptr);
  EXPECT_NE(none.find("no network interface matches HCCL_SOCKET_IFNAME=\"ib\" with an AF_INET address"),
            std::string::npos)
      << none;
  EXPECT_NE(none.find("eth0 10.0.0.5"), std::string::npos) << none;  // lists what there is
  const std::string fam = pick(kHost, nullptr, nullptr, "AF_UNIX");
  EXPECT_NE(fam.find("HCCL_SOCKET_FAMILY=\"AF_UNIX\" is not AF_INET or AF_INET6"), std::string::npos) << fam;
  const std::string empty = pick(kHost, nullptr, "^", nullptr);
  EXPECT_NE(empty.find("HCCL_SOCKET_IFNAME=\"^\" names no interface"), std::string::npos) << empty;
  const std::string v6 = pick({kHost[0], kHost[2]}, nullptr, nullptr, "AF_INET6");
  EXPECT_NE(v6.find("no network interface has an AF_INET6 address"), std::string::npos) << v6;
}

TEST(Nic, ThisHostHasSomething) {
  // Whatever the machine has, the default choice works (at least loopback is up).
  std::string addr, why;
  EXPECT_TRUE(hccl::choose_nic(hccl::host_interfaces(), nullptr, nullptr, nullptr, &addr, &why)) << why;
  EXPECT_FALSE(addr.empty());
}

// ---- HCCL_WHITELIST_DISABLE / HCCL_WHITELIST_FILE ----

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "hccl_whitelist_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The error, or "on: a,b" / "off".
std::string whitelist(const char* disable, const char* file) {
  bool on = true;
  std::vector<std::string> hosts{"stale"};
  std::string why;
  if (!hccl::host_whitelist(disable, file, &on, &hosts, &why)) return "error: " + why;
  if (!on) return hosts.empty() ? "off" : "off with hosts";
  std::string out = "on:";
  for (const auto& h : hosts) out += " " + h;
  return out;
}

TEST(Whitelist, OffUnlessDisableIsZero) {
  EXPECT_EQ(whitelist(nullptr, nullptr), "off");
  EXPECT_EQ(whitelist("", "/nonexistent"), "off");
  EXPECT_EQ(whitelist("1", "/nonexistent"), "off");  // the file is not even read
}

TEST(Whitelist, ListsTheHostIps) {
  const std::string f = write_temp("ok", R"({"host_ip": ["127.0.0.1", "10.0.0.5", "::1"], "device_ip": []})");
  EXPECT_EQ(whitelist("0", f.c_str()), "on: 127.0.0.1 10.0.0.5 ::1");
  const std::string empty = write_temp("empty", R"({"host_ip": []})");
  EXPECT_EQ(whitelist("0", empty.c_str()), "on:");  // nobody from elsewhere may join
  std::remove(f.c_str());
  std::remove(empty.c_str());
}

TEST(Whitelist, BadSettingsAreErrorsNamingTheProblem) {
  EXPECT_EQ(whitelist("2", nullptr), "error: HCCL_WHITELIST_DISABLE=\"2\" is not 0 or 1");
  EXPECT_EQ(whitelist("0", nullptr), "error: HCCL_WHITELIST_DISABLE=0 needs HCCL_WHITELIST_FILE");
  EXPECT_NE(whitelist("0", "/nonexistent/wl.json").find("\"/nonexistent/wl.json\" cannot be read"), std::string::npos);
  const std::pair<const char*, const char*> cases[] = {
      {"[\"127.0.0.1\"]", "is not a JSON object"},
      {"{\"host_ip\": [\"127.0.0.1\"", "is not a JSON object"},  // truncated
      {"{\"device_ip\": []}", "has no \"host_ip\" array"},
      {"{\"host_ip\": \"127.0.0.1\"}", "has no \"host_ip\" array"},
      {"{\"host_ip\": [\"127.0.0.1\"], \"device_ip\": 3}", "\"device_ip\" is not an array"},
      {"{\"host_ip\": [\"localhost\"]}", "host_ip entry localhost is not a numeric"},
      {"{\"host_ip\": [\"10.0.0.256\"]}", "host_ip entry 10.0.0.256 is not a numeric"},
      {"{\"host_ip\": [17]}", "host_ip entry 17 is not a numeric"},
  };
  for (const auto& [text, want] : cases) {
    const std::string f = write_temp("bad", text);
    const std::string got = whitelist("0", f.c_str());
    EXPECT_NE(got.find(want), std::string::npos) << text << " -> " << got;
    std::remove(f.c_str());
  }
  const std::string big = write_temp("big", "{\"host_ip\": [\"" + std::string(2 << 20, ' ') + "\"]}");
  EXPECT_NE(whitelist("0", big.c_str()).find("larger than 1 MiB"), std::string::npos);
  std::remove(big.c_str());
}

}  // namespace
