// Entry point of the conformance suite: the tests are instantiated over the configurations that
// conformance::configPaths() lists (ARUN_CONFORMANCE_CONFIGS or the build tree's defaults).
#include <gtest/gtest.h>

#include <cstdio>

#include "conformance.hpp"

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (const auto &path : conformance::configPaths()) std::printf("conformance config: %s\n", path.c_str());
  return RUN_ALL_TESTS();
}
