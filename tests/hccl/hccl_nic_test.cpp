// The host NIC choice of libhccl (hccl/src/hccl_nic.cpp) on made-up interface lists: the order
// HCCL_IF_IP > HCCL_SOCKET_IFNAME > others by name > docker > loopback, the ifname forms (prefixes,
// "^" exclude, "=" exact, "^=" exclude exact), HCCL_SOCKET_FAMILY, and the errors.
#include <gtest/gtest.h>
#include <sys/socket.h>

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

}  // namespace
