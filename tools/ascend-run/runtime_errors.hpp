// How the commands report a runtime that fails to start, without saying it twice.
#pragma once

#include <string>

#include "acl/acl.h"

namespace cli {

// aclInit already logged its failure when its log goes to stderr at error level or finer (the
// default; logging.hpp gives the rules). Prints "ascend-run WHO: the runtime cannot start (error N)",
// with the message only when the log did not already show it on this terminal.
void report_init_failure(const std::string& who, aclError rc);

}  // namespace cli
