// The documented glibc floor is 2.34 (cmake/SelfContained.cmake), but libstdc++.a and libgcc_eh.a
// of GCC 12, built on glibc 2.36, reference two newer glibc functions. Linked statically into a
// binary, each reference alone makes the binary need that glibc, although nothing of ours calls
// them. The hidden definitions below, linked into the binary itself, answer those references
// with what glibc 2.34 has, so the binary never asks for GLIBC_2.35 or GLIBC_2.36.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

// std::random_device (libstdc++'s random.o, pulled in by its string instantiations): getrandom(2)
// is glibc 2.25.
__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t value = 0;
  while (getrandom(&value, sizeof value, 0) != (ssize_t)sizeof value && errno == EINTR) {
  }
  return value;
}

// The unwinder (libgcc_eh's _Unwind_Find_FDE) looks up the object holding a PC and its
// PT_GNU_EH_FRAME with _dl_find_object (glibc 2.35). The same answer comes from
// dl_iterate_phdr, which is what libgcc itself used before 2.35.
struct found_object {
  uintptr_t pc;
  struct dl_find_object* result;
  int found;
};

static int match_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct found_object* f = data;
  uintptr_t start = UINTPTR_MAX, end = 0, eh_frame = 0;
  int holds_pc = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      if (lo < start) start = lo;
      if (lo + ph->p_memsz > end) end = lo + ph->p_memsz;
      if (f->pc >= lo && f->pc < lo + ph->p_memsz) holds_pc = 1;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh_frame = lo;
    }
  }
  if (!holds_pc) return 0;
  memset(f->result, 0, sizeof *f->result);
  f->result->dlfo_map_start = (void*)start;
  f->result->dlfo_map_end = (void*)end;
  f->result->dlfo_eh_frame = (void*)eh_frame;
  f->found = 1;
  return 1;
}

__attribute__((visibility("hidden"))) int _dl_find_object(void* address, struct dl_find_object* result) {
  struct found_object f = {(uintptr_t)address, result, 0};
  dl_iterate_phdr(match_object, &f);
  if (!f.found) return -1;
  Dl_info info;
  struct link_map* map = NULL;
  if (dladdr1(address, &info, (void**)&map, RTLD_DL_LINKMAP) != 0) result->dlfo_link_map = map;
  return 0;
}
