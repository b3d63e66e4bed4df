// HCCL across processes: starts N processes of hccl_mp_rank (fork + exec) on loopback and checks
// that each exits 0 within a bound (a hang is killed and fails the test). What each rank checks is
// in hccl_mp_rank.cpp; the collective plugin is the configured one (gloo).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#ifndef HCCL_MP_RANK
#error "HCCL_MP_RANK: the path of hccl_mp_rank"
#endif

namespace {

std::string temp_path(const std::string& what) {
  static int n = 0;
  return ::testing::TempDir() + "hccl_mp_" + std::to_string(::getpid()) + "_" + what + "_" + std::to_string(++n);
}

// Runs `n` ranks; returns every rank's exit status (-1: killed at the deadline). With `errs`, each
// rank's stderr is captured into it.
std::vector<int> run_ranks(const std::string& mode, uint32_t n, const std::string& file, int limit_s = 60,
                           std::vector<std::string>* errs = nullptr) {
  std::vector<pid_t> pids;
  for (uint32_t r = 0; r < n; ++r) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (errs != nullptr) {
        const int fd = ::open((file + ".err" + std::to_string(r)).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(fd, 2);
      }
      const std::string ns = std::to_string(n), rs = std::to_string(r);
      ::execl(HCCL_MP_RANK, HCCL_MP_RANK, mode.c_str(), ns.c_str(), rs.c_str(), file.c_str(), nullptr);
      std::perror("execl");
      ::_exit(127);
    }
    pids.push_back(pid);
  }
  std::vector<int> status(n, -1);
  std::vector<bool> done(n, false);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  uint32_t left = n;
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    for (uint32_t r = 0; r < n; ++r) {
      int st = 0;
      if (!done[r] && ::waitpid(pids[r], &st, WNOHANG) == pids[r]) {
        done[r] = true;
        --left;
        status[r] = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (uint32_t r = 0; r < n; ++r) {
    if (!done[r]) {
      ::kill(pids[r], SIGKILL);
      ::waitpid(pids[r], nullptr, 0);
      ADD_FAILURE() << "rank " << r << " of " << mode << " still running after " << limit_s << " s: killed";
    }
  }
  std::remove(file.c_str());
  for (uint32_t r = 0; errs != nullptr && r < n; ++r) {
    const std::string e = file + ".err" + std::to_string(r);
    std::ifstream in(e);
    errs->emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::remove(e.c_str());
  }
  return status;
}

void expect_all_ok(const std::vector<int>& status, uint32_t skip = UINT32_MAX) {
  for (uint32_t r = 0; r < status.size(); ++r) {
    if (r != skip) {
      EXPECT_EQ(status[r], 0) << "rank " << r;
    }
  }
}

class Ranks : public ::testing::TestWithParam<uint32_t> {};

TEST_P(Ranks, EveryCollectiveAgainstHostReferences) {
  expect_all_ok(run_ranks("collectives", GetParam(), temp_path("root")));
}

INSTANTIATE_TEST_SUITE_P(N, Ranks, ::testing::Values(2u, 3u, 4u));

// A port nobody listens on now (the system's choice), for rank 0's host_port.
uint32_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string rank_table(uint32_t n, const std::string& status, const std::string& bad_device_id = "") {
  std::string t = "{\n  \"status\": \"" + status +
                  "\",\n  \"version\": \"1.0\",\n  \"server_count\": \"1\",\n"
                  "  \"server_list\": [{\"server_id\": \"node_0\", \"host_ip\": \"127.0.0.1\", \"device\": [\n";
  for (uint32_t r = 0; r < n; ++r) {
    const std::string dev = (r == 1 && !bad_device_id.empty()) ? bad_device_id : "\"" + std::to_string(r % 2) + "\"";
    const std::string port = r == 0 ? ", \"host_port\": \"" + std::to_string(free_port()) + "\"" : "";
    t += "    {\"device_id\": " + dev + ", \"rank_id\": \"" + std::to_string(r) + "\"" + port + "}" +
         (r + 1 < n ? ",\n" : "\n");
  }
  return t + "  ]}]\n}\n";
}

TEST(Mixed, TwoRanksInOneProcessOneInAnother) {
  expect_all_ok(run_ranks("twolocal", 2, temp_path("root")));
}

TEST(RankTable, TwoProcessesAllReduce) {
  const std::string file = temp_path("ranktable.json");
  std::ofstream(file) << rank_table(2, "completed");
  expect_all_ok(run_ranks("ranktable", 2, file));
}

TEST(RankTable, Version2AllReduce) {
  const std::string file = temp_path("ranktable2.json");
  std::string t = "{\"version\": \"2.0\", \"rank_count\": 2, \"rank_list\": [\n";
  for (uint32_t r = 0; r < 2; ++r) {
    t += "{\"rank_id\": " + std::to_string(r) + ", \"local_id\": " + std::to_string(r) +
         ", \"device_id\": " + std::to_string(r) +
         (r == 0 ? ", \"host_port\": " + std::to_string(free_port()) : std::string()) +
         ", \"level_list\": [{\"net_layer\": 0, \"net_instance_id\": \"az0\", \"net_type\": \"TOPO_FILE_DESC\", "
         "\"net_attr\": \"\", \"rank_addr_list\": [{\"addr_type\": \"IPV4\", \"addr\": \"127.0.0.1\", "
         "\"ports\": [\"0/0\"]}]}]}" +
         (r == 0 ? ",\n" : "\n");
  }
  std::ofstream(file) << t << "]}\n";
  expect_all_ok(run_ranks("ranktable", 2, file));
}

TEST(RankTable, LegacyTemplateAllReduce) {
  // No host_port in this format: the rendezvous takes HCCL_IF_BASE_PORT (here a free one).
  const std::string file = temp_path("legacy.json");
  std::ofstream(file) << "{\"status\": \"completed\", \"group_count\": \"1\", \"group_list\": [{"
                         "\"group_name\": \"hccl_world_group\", \"instance_count\": \"2\", \"device_count\": \"2\", "
                         "\"instance_list\": ["
                         "{\"pod_name\": \"a\", \"server_id\": \"node_0\", \"devices\": [{\"device_id\": \"0\"}]},"
                         "{\"pod_name\": \"b\", \"server_id\": \"node_1\", \"devices\": [{\"device_id\": \"1\"}]}"
                         "]}]}\n";
  const std::string saved =
      std::getenv("HCCL_HOST_SOCKET_PORT_RANGE") ? std::getenv("HCCL_HOST_SOCKET_PORT_RANGE") : "";
  ::unsetenv("HCCL_HOST_SOCKET_PORT_RANGE");
  ::setenv("HCCL_IF_BASE_PORT", std::to_string(std::max(1024u, free_port() % 65000)).c_str(), 1);
  const auto status = run_ranks("ranktable", 2, file);
  ::unsetenv("HCCL_IF_BASE_PORT");
  if (!saved.empty()) ::setenv("HCCL_HOST_SOCKET_PORT_RANGE", saved.c_str(), 1);
  expect_all_ok(status);
}

TEST(RankTable, BadFieldIsInternalError) {
  const std::string file = temp_path("bad_ranktable.json");
  std::ofstream(file) << rank_table(2, "completed", "\"x7\"");
  std::vector<std::string> errs;
  expect_all_ok(run_ranks("badranktable", 2, file, 30, &errs));
  // The message names the file's field.
  EXPECT_NE(errs[0].find("server_list[0].device[1].device_id = \"x7\" is not an integer"), std::string::npos)
      << errs[0];
}

TEST(RankTable, NotCompletedIsInternalError) {
  const std::string file = temp_path("initializing.json");
  std::ofstream(file) << rank_table(2, "initializing");
  std::vector<std::string> errs;
  expect_all_ok(run_ranks("badranktable", 2, file, 30, &errs));
  EXPECT_NE(errs[1].find("status is \"initializing\", not \"completed\""), std::string::npos) << errs[1];
}

TEST(Failures, MismatchedParametersAreParaErrorsNamingRankAndField) {
  std::vector<std::string> errs;
  const auto status = run_ranks("mismatch", 3, temp_path("root"), 30, &errs);
  expect_all_ok(status);
  // Each rank names itself, the first peer that disagrees, and the field.
  EXPECT_NE(errs[0].find("parameter count: local rank 0 has 8, rank 1 has 16"), std::string::npos) << errs[0];
  EXPECT_NE(errs[1].find("parameter count: local rank 1 has 16, rank 0 has 8"), std::string::npos) << errs[1];
  EXPECT_NE(errs[0].find("parameter data type: local rank 0 has"), std::string::npos) << errs[0];
  EXPECT_NE(errs[2].find("parameter reduce op: local rank 2 has 0, rank 0 has 2"), std::string::npos) << errs[2];
  EXPECT_NE(errs[0].find("parameter root: local rank 0 has 0, rank 2 has 1"), std::string::npos) << errs[0];
  EXPECT_NE(errs[0].find("parameter operation: local rank 0 has AllReduce, rank 1 has Broadcast"), std::string::npos)
      << errs[0];
  for (uint32_t r = 0; r < 2; ++r) {  // both sides of a Send/Recv pair name the same mismatch
    EXPECT_NE(errs[r].find("rank 0 sends 32 bytes in 1 item(s) to rank 1, which expects 16 bytes"), std::string::npos)
        << errs[r];
    EXPECT_NE(errs[r].find("which expects 32 bytes in 1 item(s) (their data types or item sizes differ)"),
              std::string::npos)
        << errs[r];
  }
  for (uint32_t r = 0; r < 3; ++r) {
    EXPECT_NE(errs[r].find("parameter sendCounts/recvCounts: rank 0 sends 2 elements to rank 2, which expects 1"),
              std::string::npos)
        << errs[r];
  }
}

TEST(Failures, RankThatNeverJoinsTimesOut) {
  expect_all_ok(run_ranks("neverjoins", 3, temp_path("root"), 30));
}

// HCCL_WHITELIST_DISABLE=0: the rendezvous serves only the hosts HCCL_WHITELIST_FILE lists. The
// ranks reach it over loopback (HCCL_SOCKET_IFNAME=lo), so 127.0.0.1 is the host to list.
TEST(Whitelist, ListedHostsJoinOthersAreTurnedAway) {
  const std::string allowed = temp_path("allowed.json"), others = temp_path("others.json");
  std::ofstream(allowed) << R"({"host_ip": ["127.0.0.1"], "device_ip": []})";
  std::ofstream(others) << R"({"host_ip": ["10.9.9.9", "::1"]})";
  ::setenv("HCCL_SOCKET_IFNAME", "lo", 1);
  ::setenv("HCCL_WHITELIST_DISABLE", "0", 1);
  ::setenv("HCCL_WHITELIST_FILE", allowed.c_str(), 1);
  expect_all_ok(run_ranks("collectives", 2, temp_path("root")));
  ::setenv("HCCL_WHITELIST_FILE", others.c_str(), 1);
  std::vector<std::string> errs;
  const auto status = run_ranks("refused", 2, temp_path("root"), 30, &errs);
  ::unsetenv("HCCL_WHITELIST_DISABLE");
  ::unsetenv("HCCL_WHITELIST_FILE");
  ::unsetenv("HCCL_SOCKET_IFNAME");
  std::remove(allowed.c_str());
  std::remove(others.c_str());
  for (uint32_t r = 0; r < 2; ++r) EXPECT_EQ(status[r], 0) << "rank " << r << ": " << errs[r];
  EXPECT_NE(errs[0].find("refused a client from 127.0.0.1"), std::string::npos) << errs[0];
}

TEST(Failures, NoCollectivePluginIsNotSupported) {
  // A configuration whose collective plugin does not exist (its own entry replaces default.toml's).
  const std::string config = temp_path("nosuch.toml");
  std::ofstream(config) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n"
                           "[[plugin]]\nkind = \"collective\"\nname = \"nosuch\"\n";
  const char* old = std::getenv("ASCEND_RUN_CONFIG");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("ASCEND_RUN_CONFIG", config.c_str(), 1);
  std::vector<std::string> errs;
  const auto status = run_ranks("noplugin", 1, temp_path("unused"), 30, &errs);
  ::setenv("ASCEND_RUN_CONFIG", saved.c_str(), 1);
  std::remove(config.c_str());
  expect_all_ok(status);
  EXPECT_NE(errs[0].find("needs a collective plugin"), std::string::npos) << errs[0];
  EXPECT_NE(errs[0].find("no network interface matches HCCL_SOCKET_IFNAME=\"=nosuch0\""), std::string::npos) << errs[0];
  EXPECT_NE(errs[0].find("HCCL_SOCKET_FAMILY=\"AF_PACKET\" is not AF_INET or AF_INET6"), std::string::npos) << errs[0];
}

TEST(Failures, KilledRankFailsThePeersCollective) {
  std::vector<std::string> errs;
  const auto status = run_ranks("killed", 3, temp_path("root"), 30, &errs);
  for (uint32_t r = 0; r < 2; ++r) EXPECT_EQ(status[r], 0) << "rank " << r << ": " << errs[r];
  EXPECT_EQ(status[2], 9);
  // The survivors' messages name the failure as the peer's (their operation, their own rank); which
  // peer Gloo blames depends on which link it saw close first (the other survivor may exit first).
  for (uint32_t r = 0; r < 2; ++r) {
    EXPECT_NE(errs[r].find("(rank " + std::to_string(r) + "): gloo"), std::string::npos) << errs[r];
    EXPECT_NE(errs[r].find("by peer"), std::string::npos) << errs[r];
  }
}

}  // namespace
