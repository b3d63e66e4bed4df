// Reads a plugin's descriptor from its ELF file without loading it (no constructor of the plugin
// runs): the dynamic symbol `arun_plugin_descriptor` (ARUN_DECLARE_PLUGIN's pointer), the
// relocation that points it at the descriptor, the descriptor's bytes and its strings. Every offset,
// size and count read from the file is bounds-checked before use; a file this reader cannot follow
// is refused with the reason, never guessed at. Discovery (`ascend-run info`, the lists of valid
// names in messages) uses only this; the loader also uses it to refuse a bad plugin before dlopen.
#pragma once

#include <cstdint>
#include <string>

#include "arun/core/status.hpp"

namespace arun {

// What a plugin file's descriptor says, read from the file.
struct FileDescriptor {
  uint32_t magic = 0;
  uint16_t abi_major = 0, abi_minor = 0;
  uint32_t struct_size = 0;
  uint32_t kind = 0;
  std::string name, version, build_id, description;
  uint32_t option_count = 0;
  bool has_factory = false;
};

// Longest string the core accepts from a plugin (name, version, build id, option keys and
// defaults); a description or an option's help may be longer.
inline constexpr size_t kPluginStringMax = 256;
inline constexpr size_t kPluginTextMax = 4096;
// Most options a plugin may declare.
inline constexpr uint32_t kPluginOptionMax = 256;

// Reads `path` (an ELF64 shared object for this machine). Errors (Errc::invalid_file) say what is
// wrong: not ELF, no descriptor symbol, a symbol that is not data of a pointer's size, a descriptor
// outside the file's loaded bytes, an unterminated or overlong string.
Status read_plugin_descriptor_file(const std::string& path, FileDescriptor* out);

}  // namespace arun
