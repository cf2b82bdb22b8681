#include "machine/object_fatbins.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

namespace cublasspy {
namespace {

constexpr char kSectionName[] = ".nv_fatbin";
constexpr uint32_t kMaxSections = 1u << 16;

bool pread_all(int fd, void* out, size_t n, uint64_t offset) {
  auto* bytes = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t got = ::pread(fd, bytes, n, static_cast<off_t>(offset));
    if (got <= 0) return false;
    bytes += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

// A section of the file, read through pread.
struct FileSection {
  int fd;
  uint64_t offset;
};

bool read_section(const void* context, uint64_t offset, void* out, size_t n) {
  const auto* s = static_cast<const FileSection*>(context);
  return pread_all(s->fd, out, n, s->offset + offset);
}

// The header of the section named kSectionName, if the file has one.
bool find_section(int fd, const Elf64_Ehdr& eh, Elf64_Shdr& found) {
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > kMaxSections || eh.e_shstrndx >= eh.e_shnum) {
    return false;
  }
  Elf64_Shdr names;
  if (!pread_all(fd, &names, sizeof names, eh.e_shoff + uint64_t{eh.e_shstrndx} * sizeof names)) return false;
  for (uint32_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!pread_all(fd, &sh, sizeof sh, eh.e_shoff + uint64_t{i} * sizeof sh)) return false;
    if (sh.sh_name >= names.sh_size || names.sh_size - sh.sh_name < sizeof kSectionName) continue;
    char name[sizeof kSectionName];
    if (!pread_all(fd, name, sizeof name, names.sh_offset + sh.sh_name)) continue;
    if (std::memcmp(name, kSectionName, sizeof name) == 0 && sh.sh_type != SHT_NOBITS) {
      found = sh;
      return true;
    }
  }
  return false;
}

}  // namespace

ObjectFatbins object_fatbins(const char* path) {
  ObjectFatbins out;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  Elf64_Ehdr eh;
  if (pread_all(fd, &eh, sizeof eh, 0) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB) {
    out.readable = true;
    Elf64_Shdr sh;
    if (find_section(fd, eh, sh)) {
      out.has_section = true;
      const FileSection section{fd, sh.sh_offset};
      out.archs = fatbin_archs(ByteSource{sh.sh_size, &section, read_section});
    }
  }
  ::close(fd);
  return out;
}

}  // namespace cublasspy
