// The plugin boundary: what every plugin shared object exports and what the core hands it.
//
// A plugin exports exactly one descriptor under the alias `arun_plugin_descriptor`
// (use ARUN_DECLARE_PLUGIN). The descriptor has a C layout so the loader can read and check it
// before trusting anything else in the library: magic, ABI major/minor, struct size, kind, name,
// version, build id, option schema and factory. The factory returns a C++ object of the interface
// that belongs to the plugin's kind (DevicePlugin for kind Device, SchedulerPlugin for kind
// Scheduler, ...). Rules across the boundary:
//  - no exception escapes a plugin entry point: errors are Status values or error strings;
//  - plugins log through the HostServices the core passes in (spdlog registries do not cross .so files);
//  - plugins and the core must be built with the same C++ standard library ABI; the ABI major number
//    changes whenever an interface class in this directory changes incompatibly.
#pragma once

#include <boost/dll/alias.hpp>

#include "arun/plugin/plugin_descriptor.hpp"

// Exports `descriptor` (a PluginDescriptor object with static storage) from the plugin library.
#define ARUN_DECLARE_PLUGIN(descriptor) BOOST_DLL_ALIAS(descriptor, arun_plugin_descriptor)
