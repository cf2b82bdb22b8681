// dlopen of a CUDA library by bare name from a program whose RUNPATH ($ORIGIN/../standin) is
// the only thing pointing at the stand-in: glibc searches the CALLER's RUNPATH, so a shim that
// made itself the caller would load another copy (here: the real one, from ld.so.cache).
// Prints the path that was loaded.
#include <dlfcn.h>
#include <link.h>

#include <cstdio>

int main() {
  void* h = dlopen("libcublas.so.13", RTLD_NOW);
  if (h == nullptr) {
    std::printf("dlopen failed: %s\n", dlerror());
    return 2;
  }
  link_map* map = nullptr;
  dlinfo(h, RTLD_DI_LINKMAP, &map);
  std::printf("loaded %s\n", map && map->l_name ? map->l_name : "?");
  return 0;
}
