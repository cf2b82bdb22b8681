// The libraries beside the test programs that each link one cuBLAS major
// (gemm_on_own_cublas.cpp, built as libshim_own_cublas12.so and libshim_own_cublas13.so), loaded
// as plug-ins are: dlopen from the program's own directory, RTLD_LOCAL.
#pragma once

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <string>

struct OwnCublas {
  void* library = nullptr;  // dlopen's handle, for dlclose
  void* (*open)() = nullptr;
  double (*round)(void*, int) = nullptr;
  int (*close)(void*) = nullptr;
  int (*last_error)() = nullptr;
  int (*peek_error)() = nullptr;
};

// Loads libshim_own_cublasMAJOR.so and finds its entry points; prints dlerror() when it cannot.
// global: loaded RTLD_GLOBAL and its entry points found by name alone (dlsym(RTLD_DEFAULT)), as
// a plug-in that registers itself is, with no look-up on its handle.
inline bool load_own_cublas(int major, OwnCublas& own, bool global = false) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return false;
  std::string dir(self, static_cast<size_t>(n));
  dir.resize(dir.rfind('/') + 1);
  const std::string lib = dir + "libshim_own_cublas" + std::to_string(major) + ".so";
  void* loaded = dlopen(lib.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (loaded == nullptr) {
    std::printf("%s\n", dlerror());
    return false;
  }
  const std::string prefix = "own_cublas" + std::to_string(major);
  own.library = loaded;
  void* h = global ? RTLD_DEFAULT : loaded;
  own.open = reinterpret_cast<void* (*)()>(dlsym(h, (prefix + "_open").c_str()));
  own.round = reinterpret_cast<double (*)(void*, int)>(dlsym(h, (prefix + "_round").c_str()));
  own.close = reinterpret_cast<int (*)(void*)>(dlsym(h, (prefix + "_close").c_str()));
  own.last_error = reinterpret_cast<int (*)()>(dlsym(h, (prefix + "_last_error").c_str()));
  own.peek_error = reinterpret_cast<int (*)()>(dlsym(h, (prefix + "_peek_error").c_str()));
  return own.open != nullptr && own.round != nullptr && own.close != nullptr && own.last_error != nullptr &&
         own.peek_error != nullptr;
}
