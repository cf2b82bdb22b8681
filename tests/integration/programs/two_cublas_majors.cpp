// A program that holds cuBLAS 12 and cuBLAS 13 at once, through two libraries beside it that
// link one each (gemm_on_own_cublas.cpp), as a process whose framework links one major and a
// plug-in the other. Both are loaded (dlopen, as plug-ins are) and both handles made first,
// then the rounds alternate between them, so that each call must be routed by its handle and
// not by the last one made. Prints each round's result (the sum of C: 24 * (round + 1)), which
// does not depend on a shim.
//
//   two_cublas_majors ROUNDS
#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct OwnCublas {
  void* (*open)();
  double (*round)(void*, int);
  int (*close)(void*);
  int (*last_error)();
};

// libshim_own_cublasMAJOR.so from this program's directory.
bool load(int major, OwnCublas& own) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return false;
  std::string dir(self, static_cast<size_t>(n));
  dir.resize(dir.rfind('/') + 1);
  const std::string lib = dir + "libshim_own_cublas" + std::to_string(major) + ".so";
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::printf("%s\n", dlerror());
    return false;
  }
  const std::string prefix = "own_cublas" + std::to_string(major);
  own.open = reinterpret_cast<void* (*)()>(dlsym(h, (prefix + "_open").c_str()));
  own.round = reinterpret_cast<double (*)(void*, int)>(dlsym(h, (prefix + "_round").c_str()));
  own.close = reinterpret_cast<int (*)(void*)>(dlsym(h, (prefix + "_close").c_str()));
  own.last_error = reinterpret_cast<int (*)()>(dlsym(h, (prefix + "_last_error").c_str()));
  return own.open != nullptr && own.round != nullptr && own.close != nullptr && own.last_error != nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  OwnCublas own12{}, own13{};
  if (!load(12, own12) || !load(13, own13)) return 4;
  void* on12 = own12.open();
  void* on13 = own13.open();
  if (on12 == nullptr || on13 == nullptr) {
    std::printf("open failed: cuBLAS 12 %s, cuBLAS 13 %s\n", on12 ? "ok" : "failed", on13 ? "ok" : "failed");
    return 3;
  }
  for (int i = 0; i < rounds; ++i) {
    const double on_12 = own12.round(on12, i);  // 12 first, then 13: the order the calls are made in
    const double on_13 = own13.round(on13, i);
    std::printf("round %d cuBLAS 12 %g cuBLAS 13 %g\n", i, on_12, on_13);
  }
  const int last_error_12 = own12.last_error();  // 10 each: the error stays in its own runtime
  const int last_error_13 = own13.last_error();
  std::printf("runtime errors kept: cuBLAS 12's runtime %d cuBLAS 13's runtime %d\n", last_error_12, last_error_13);
  std::printf("closed %d %d\n", own12.close(on12), own13.close(on13));
  return 0;
}
