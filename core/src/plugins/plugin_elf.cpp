#include "plugins/plugin_elf.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "arun/plugin/plugin_descriptor.hpp"

namespace arun {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
constexpr uint32_t kRelRelative = R_X86_64_RELATIVE;
constexpr uint32_t kRelAbs64 = R_X86_64_64;
constexpr uint32_t kRelGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
constexpr uint32_t kRelRelative = R_AARCH64_RELATIVE;
constexpr uint32_t kRelAbs64 = R_AARCH64_ABS64;
constexpr uint32_t kRelGlobDat = R_AARCH64_GLOB_DAT;
#else
#error "plugin_elf.cpp knows the relocations of x86-64 and AArch64 only"
#endif

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "plugin_elf.cpp reads little-endian ELF files");

constexpr const char* kSymbol = "arun_plugin_descriptor";
// Bounds on what is read from a file: plugins are small, and a hostile file must not make the
// reader allocate much.
constexpr uint64_t kMaxTableBytes = 64ull << 20;  // one symbol, string or relocation table

// A file read by offset, every read bounds-checked against the file's size.
class File {
 public:
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status open(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd_ < 0) return Status(Errc::invalid_file, "cannot open plugin " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      return Status(Errc::invalid_file, "plugin " + path + " is not a regular file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
    return Status::Ok();
  }
  uint64_t size() const { return size_; }
  // Reads [off, off + n) into dst; false if that range is not inside the file.
  bool read(uint64_t off, uint64_t n, void* dst) const {
    if (off > size_ || n > size_ - off) return false;
    auto* p = static_cast<char*>(dst);
    while (n > 0) {
      ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(off));
      if (r <= 0) return false;
      p += r, off += static_cast<uint64_t>(r), n -= static_cast<uint64_t>(r);
    }
    return true;
  }
  bool read_table(uint64_t off, uint64_t n, std::vector<char>* out) const {
    if (n > kMaxTableBytes) return false;
    out->resize(n);
    return read(off, n, out->data());
  }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

struct Segment {
  uint64_t vaddr, filesz, offset;
};

class Reader {
 public:
  Reader(const File& f, std::string path) : f_(f), path_(std::move(path)) {}

  Status run(FileDescriptor* out) {
    ARUN_RETURN_IF_ERROR(read_headers());
    ARUN_RETURN_IF_ERROR(read_dynamic_symbols());
    const Elf64_Sym* sym = find_symbol(kSymbol);
    if (sym == nullptr) {
      return fail(std::string("does not export the symbol ") + kSymbol +
                  " (is it an ascend-run plugin? declare it with ARUN_DECLARE_PLUGIN)");
    }
    const unsigned type = ELF64_ST_TYPE(sym->st_info);
    if (type != STT_OBJECT) {
      return fail(std::string("exports ") + kSymbol + " as " + (type == STT_FUNC ? "a function" : "a non-data symbol") +
                  ", not as the data object ARUN_DECLARE_PLUGIN makes");
    }
    if (sym->st_size != sizeof(void*)) {
      return fail(std::string("exports ") + kSymbol + " with size " + std::to_string(sym->st_size) + " (expected " +
                  std::to_string(sizeof(void*)) + ": the pointer ARUN_DECLARE_PLUGIN makes)");
    }
    if (sym->st_shndx == SHN_UNDEF) return fail(std::string("imports ") + kSymbol + " instead of defining it");
    ARUN_RETURN_IF_ERROR(read_relocations());
    uint64_t desc = 0;
    if (!pointer_at(sym->st_value, &desc) || desc == 0) {
      return fail(std::string("has a null or unresolvable ") + kSymbol + " pointer");
    }
    unsigned char bytes[sizeof(plugin::PluginDescriptor)];
    if (!read_vaddr(desc, sizeof bytes, bytes)) {
      return fail(
          "has a descriptor outside the file's loaded data (is it initialised at run time? the "
          "descriptor must be a constant)");
    }
    using D = plugin::PluginDescriptor;
    std::memcpy(&out->magic, bytes + offsetof(D, magic), sizeof out->magic);
    std::memcpy(&out->abi_major, bytes + offsetof(D, abi_major), sizeof out->abi_major);
    std::memcpy(&out->abi_minor, bytes + offsetof(D, abi_minor), sizeof out->abi_minor);
    std::memcpy(&out->struct_size, bytes + offsetof(D, struct_size), sizeof out->struct_size);
    std::memcpy(&out->kind, bytes + offsetof(D, kind), sizeof out->kind);
    std::memcpy(&out->option_count, bytes + offsetof(D, option_count), sizeof out->option_count);
    // The strings matter only for a descriptor whose header is right; the caller checks that first.
    if (out->magic != plugin::kPluginMagic || out->abi_major != plugin::kAbiMajor || out->struct_size < sizeof(D)) {
      return Status::Ok();
    }
    ARUN_RETURN_IF_ERROR(string_field(desc + offsetof(D, name), "name", kPluginStringMax, true, &out->name));
    ARUN_RETURN_IF_ERROR(string_field(desc + offsetof(D, version), "version", kPluginStringMax, true, &out->version));
    ARUN_RETURN_IF_ERROR(
        string_field(desc + offsetof(D, build_id), "build id", kPluginStringMax, false, &out->build_id));
    ARUN_RETURN_IF_ERROR(
        string_field(desc + offsetof(D, description), "description", kPluginTextMax, false, &out->description));
    uint64_t create = 0;
    out->has_factory = pointer_at(desc + offsetof(D, create), &create) && create != 0;
    return Status::Ok();
  }

 private:
  Status fail(const std::string& why) const { return Status(Errc::invalid_file, "plugin " + path_ + " " + why); }

  Status read_headers() {
    Elf64_Ehdr eh{};
    if (!f_.read(0, sizeof eh, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
      return Status(Errc::invalid_file, "cannot load plugin " + path_ + ": not an ELF file");
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != kMachine) {
      return Status(Errc::invalid_file,
                    "cannot load plugin " + path_ + ": an ELF file for another machine (class, byte order or CPU)");
    }
    if (eh.e_type != ET_DYN) return Status(Errc::invalid_file, "cannot load plugin " + path_ + ": not a shared object");
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
        eh.e_phnum == 0 || eh.e_phnum == PN_XNUM) {
      return fail("has ELF headers this reader does not accept (no section headers, or unusual sizes)");
    }
    std::vector<char> ph;
    if (!f_.read_table(eh.e_phoff, uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr), &ph)) {
      return fail("has program headers outside the file");
    }
    for (size_t i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr p;
      std::memcpy(&p, ph.data() + i * sizeof p, sizeof p);
      if (p.p_type != PT_LOAD) continue;
      if (p.p_offset > f_.size() || p.p_filesz > f_.size() - p.p_offset || p.p_vaddr + p.p_filesz < p.p_vaddr) {
        return fail("has a loadable segment outside the file");
      }
      segments_.push_back({p.p_vaddr, p.p_filesz, p.p_offset});
    }
    std::vector<char> sh;
    if (!f_.read_table(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr), &sh)) {
      return fail("has section headers outside the file");
    }
    sections_.resize(eh.e_shnum);
    std::memcpy(sections_.data(), sh.data(), sh.size());
    return Status::Ok();
  }

  Status read_dynamic_symbols() {
    for (const auto& s : sections_) {
      if (s.sh_type != SHT_DYNSYM) continue;
      if (s.sh_entsize != sizeof(Elf64_Sym) || s.sh_link >= sections_.size() ||
          sections_[s.sh_link].sh_type != SHT_STRTAB) {
        return fail("has a malformed dynamic symbol table");
      }
      std::vector<char> raw;
      const Elf64_Shdr& str = sections_[s.sh_link];
      if (!f_.read_table(s.sh_offset, s.sh_size - s.sh_size % sizeof(Elf64_Sym), &raw) ||
          !f_.read_table(str.sh_offset, str.sh_size, &dynstr_)) {
        return fail("has a dynamic symbol table outside the file");
      }
      symbols_.resize(raw.size() / sizeof(Elf64_Sym));
      if (!raw.empty()) std::memcpy(symbols_.data(), raw.data(), raw.size());
      return Status::Ok();
    }
    return fail("has no dynamic symbol table");
  }

  const Elf64_Sym* find_symbol(const char* name) const {
    const size_t len = std::strlen(name);
    for (const auto& sym : symbols_) {
      if (sym.st_name >= dynstr_.size()) continue;
      const size_t left = dynstr_.size() - sym.st_name;
      if (left > len && std::memcmp(dynstr_.data() + sym.st_name, name, len + 1) == 0) return &sym;
    }
    return nullptr;
  }

  Status read_relocations() {
    for (const auto& s : sections_) {
      if (s.sh_type != SHT_RELA) continue;
      if (s.sh_entsize != sizeof(Elf64_Rela)) return fail("has a malformed relocation table");
      std::vector<char> raw;
      if (!f_.read_table(s.sh_offset, s.sh_size - s.sh_size % sizeof(Elf64_Rela), &raw)) {
        return fail("has a relocation table outside the file");
      }
      for (size_t i = 0; i + sizeof(Elf64_Rela) <= raw.size(); i += sizeof(Elf64_Rela)) {
        Elf64_Rela r;
        std::memcpy(&r, raw.data() + i, sizeof r);
        relocations_[r.r_offset] = r;
      }
    }
    return Status::Ok();
  }

  // The value the dynamic loader would leave in the pointer at `vaddr`, relative to the load base.
  bool pointer_at(uint64_t vaddr, uint64_t* value) const {
    auto it = relocations_.find(vaddr);
    if (it == relocations_.end()) {
      // No relocation: a position-dependent value, which a loaded shared object cannot use
      // unless it is null.
      uint64_t raw = 0;
      if (!read_vaddr(vaddr, sizeof raw, &raw)) return false;
      *value = 0;
      return raw == 0;
    }
    const Elf64_Rela& r = it->second;
    const uint32_t type = ELF64_R_TYPE(r.r_info);
    if (type == kRelRelative) {
      *value = static_cast<uint64_t>(r.r_addend);
      return true;
    }
    if (type == kRelAbs64 || type == kRelGlobDat) {
      const uint64_t index = ELF64_R_SYM(r.r_info);
      if (index >= symbols_.size() || symbols_[index].st_shndx == SHN_UNDEF) return false;
      *value = symbols_[index].st_value + static_cast<uint64_t>(r.r_addend);
      return true;
    }
    return false;
  }

  // Reads [vaddr, vaddr + n) from the file bytes of one loadable segment.
  bool read_vaddr(uint64_t vaddr, uint64_t n, void* dst) const {
    for (const auto& s : segments_) {
      if (vaddr < s.vaddr || vaddr - s.vaddr > s.filesz || n > s.filesz - (vaddr - s.vaddr)) continue;
      return f_.read(s.offset + (vaddr - s.vaddr), n, dst);
    }
    return false;
  }

  // The NUL-terminated string at `vaddr`, at most `max` bytes before the NUL.
  bool string_at(uint64_t vaddr, size_t max, std::string* out) const {
    for (const auto& s : segments_) {
      if (vaddr < s.vaddr || vaddr - s.vaddr >= s.filesz) continue;
      const uint64_t avail = s.filesz - (vaddr - s.vaddr);
      std::string buf(static_cast<size_t>(std::min<uint64_t>(avail, max + 1)), '\0');
      if (!f_.read(s.offset + (vaddr - s.vaddr), buf.size(), buf.data())) return false;
      const size_t len = strnlen(buf.data(), buf.size());
      if (len == buf.size()) return false;  // no NUL within the bound or the segment
      buf.resize(len);
      *out = std::move(buf);
      return true;
    }
    return false;
  }

  Status string_field(uint64_t field_vaddr, const char* what, size_t max, bool required, std::string* out) const {
    uint64_t p = 0;
    if (!pointer_at(field_vaddr, &p)) return fail(std::string("has an unresolvable descriptor ") + what);
    if (p == 0) {
      if (required) return fail(std::string("has a descriptor without ") + what);
      return Status::Ok();
    }
    if (!string_at(p, max, out)) {
      return fail(std::string("has a descriptor ") + what + " that is not a NUL-terminated string of at most " +
                  std::to_string(max) + " bytes in the file");
    }
    return Status::Ok();
  }

  const File& f_;
  std::string path_;
  std::vector<Segment> segments_;
  std::vector<Elf64_Shdr> sections_;
  std::vector<Elf64_Sym> symbols_;
  std::vector<char> dynstr_;
  std::unordered_map<uint64_t, Elf64_Rela> relocations_;
};

}  // namespace

Status read_plugin_descriptor_file(const std::string& path, FileDescriptor* out) {
  File f;
  ARUN_RETURN_IF_ERROR(f.open(path));
  *out = FileDescriptor{};
  return Reader(f, path).run(out);
}

}  // namespace arun
