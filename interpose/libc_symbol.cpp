#include "libc_symbol.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace cublasspy {
namespace {

struct Lookup {
  const char* name;
  void* found = nullptr;
};

uint32_t gnu_hash(const char* s) {
  uint32_t h = 5381;
  for (; *s != '\0'; ++s) h = h * 33 + static_cast<unsigned char>(*s);
  return h;
}

// The loader relocates these entries of an object's dynamic section in place on x86-64; an
// unrelocated one (a loader that leaves it read-only) is an offset from the base.
template <typename T>
const T* dynamic_pointer(ElfW(Addr) base, ElfW(Addr) value) {
  return reinterpret_cast<const T*>(value < base ? base + value : value);
}

// DT_GNU_HASH lookup (every glibc since 2.5 is linked with it): the bucket of the name's hash,
// then its chain, comparing hashes (the low bit marks the chain's end) and names.
void* find_in(const dl_phdr_info* info, const char* name) {
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    }
  }
  if (dynamic == nullptr) return nullptr;
  const ElfW(Sym)* symbols = nullptr;
  const char* strings = nullptr;
  const uint32_t* hash = nullptr;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symbols = dynamic_pointer<ElfW(Sym)>(info->dlpi_addr, d->d_un.d_ptr);
    if (d->d_tag == DT_STRTAB) strings = dynamic_pointer<char>(info->dlpi_addr, d->d_un.d_ptr);
    if (d->d_tag == DT_GNU_HASH) hash = dynamic_pointer<uint32_t>(info->dlpi_addr, d->d_un.d_ptr);
  }
  if (symbols == nullptr || strings == nullptr || hash == nullptr) return nullptr;
  const uint32_t buckets = hash[0], first_symbol = hash[1], bloom_words = hash[2];
  if (buckets == 0) return nullptr;
  const auto* bucket = reinterpret_cast<const uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(hash + 4) + bloom_words);
  const uint32_t* chain = bucket + buckets;
  const uint32_t h = gnu_hash(name);
  uint32_t index = bucket[h % buckets];
  if (index < first_symbol) return nullptr;
  for (;; ++index) {
    const uint32_t entry = chain[index - first_symbol];
    const ElfW(Sym)& sym = symbols[index];
    if ((entry | 1) == (h | 1) && sym.st_shndx != SHN_UNDEF && ELF64_ST_TYPE(sym.st_info) == STT_FUNC &&
        std::strcmp(strings + sym.st_name, name) == 0) {
      return reinterpret_cast<void*>(info->dlpi_addr + sym.st_value);
    }
    if ((entry & 1) != 0) return nullptr;
  }
}

}  // namespace

void* libc_symbol(const char* name) {
  Lookup lookup{name};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* l = static_cast<Lookup*>(data);
        const char* object = info->dlpi_name;
        const char* slash = object != nullptr ? std::strrchr(object, '/') : nullptr;
        const char* base = slash != nullptr ? slash + 1 : object;
        if (base == nullptr || std::strncmp(base, "libc.so.", 8) != 0) return 0;
        l->found = find_in(info, l->name);
        return 1;
      },
      &lookup);
  return lookup.found;
}

}  // namespace cublasspy
