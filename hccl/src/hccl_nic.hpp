// The host NIC of the rendezvous and of the links between processes (hccl-api.md, environment
// table): HCCL_IF_IP > HCCL_SOCKET_IFNAME > interfaces other than docker and loopback, by name >
// docker > loopback, among addresses of HCCL_SOCKET_FAMILY (AF_INET by default).
// Also the host whitelist of the rendezvous (host_whitelist). Pure selection (choose_nic) apart from reading the
// system's interfaces (host_interfaces), so the rules are tested on made-up interface lists
// (tests/hccl/hccl_nic_test.cpp).
#pragma once

#include <string>
#include <vector>

namespace hccl {

struct NetIf {
  std::string name;     // "eth0"
  int family = 0;       // AF_INET / AF_INET6
  std::string address;  // numeric, as inet_ntop writes it
  bool loopback = false;
};

// Picks the address; on failure returns false with `why` naming the variable and what it asked
// for (HCCL_E_PARA for the caller). if_ip, ifname, family: the variables' values (NULL: unset).
bool choose_nic(const std::vector<NetIf>& ifs, const char* if_ip, const char* ifname, const char* family,
                std::string* address, std::string* why);

// The interfaces that are up and have an address (getifaddrs).
std::vector<NetIf> host_interfaces();

// HCCL_WHITELIST_DISABLE / HCCL_WHITELIST_FILE (the values; NULL: unset): off by default and for
// "1"; for "0", *on is true and *hosts receives the file's "host_ip" entries, the peers allowed to
// join a rendezvous this process serves. False with `why` for another value, a file that is unset,
// unreadable, over 1 MiB or not {"host_ip": [addresses...], "device_ip": [...]}, or an entry that
// is not a numeric IPv4 / IPv6 address.
bool host_whitelist(const char* disable, const char* file, bool* on, std::vector<std::string>* hosts, std::string* why);

}  // namespace hccl
