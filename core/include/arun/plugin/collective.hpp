// Collective plugins (plugin kind Collective, ABI minor 8): the transport between processes that
// libhccl uses for communicators whose ranks live in several processes.
//
// The interface is one C table, arunCollectiveOps (arun/collective.h): libhccl is a client of the
// public C API only, so the core hands the configured plugin's table out unchanged through
// arunGetCollectiveOps. A collective plugin's factory returns a CollectivePlugin whose ops() stays
// valid for the object's life; the core keeps the object (and so its library) until the process
// exits, because communicators own sockets and threads running the plugin's code.
//
// Selecting: the first [[plugin]] entry with kind = "collective" (the installed default.toml names
// "gloo"; a configuration without one takes the default's); loaded on first use, not at aclInit.
#pragma once

#include "arun/collective.h"
#include "arun/plugin/plugin_descriptor.hpp"

namespace arun::plugin {

class CollectivePlugin : public PluginObject {
 public:
  virtual const arunCollectiveOps* ops() const = 0;
};

}  // namespace arun::plugin
