#include "machine/library_resolution.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "machine/machine_evidence.h"

namespace cublasspy {
namespace {

// At most this much of the ld.so cache is read (Debian's is tens of KiB).
constexpr size_t kCacheMax = 8u << 20;

std::string under_root(const std::string& root, const std::string& path) {
  std::string base = root;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + path;
}

std::string read_whole(const std::string& path, size_t limit) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[16384];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0 || out.size() + static_cast<size_t>(n) > limit) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

bool is_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// "libcublasLt.so.12.1.3.1" with soname "libcublasLt.so.12" -> "12.1.3.1": the name a release
// installs its file under. A file named only by its soname says nothing more than the major.
std::string version_from_name(const std::string& real_path, const std::string& soname) {
  const std::string name = real_path.substr(real_path.rfind('/') + 1);
  const size_t so = soname.find(".so.");
  if (so == std::string::npos) return "";
  const std::string stem = soname.substr(0, so + 4);  // "libcublasLt.so."
  if (name.rfind(stem, 0) != 0 || name == soname) return "";
  const std::string rest = name.substr(stem.size());
  for (char c : rest) {
    if ((c < '0' || c > '9') && c != '.') return "";
  }
  return rest;
}

std::vector<std::string> split_colons(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    std::string dir = list.substr(start, end - start);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (!dir.empty()) out.push_back(dir);
    start = end + 1;
  }
  return out;
}

template <typename T>
bool read_at(const std::string& bytes, size_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// A NUL-terminated string of the cache at `offset`, or "" when it runs off the end.
std::string cache_string(const std::string& bytes, size_t offset) {
  if (offset >= bytes.size()) return "";
  const size_t end = bytes.find('\0', offset);
  return end == std::string::npos ? "" : bytes.substr(offset, end - offset);
}

}  // namespace

std::vector<std::string> ld_cache_paths(const std::string& cache, const std::string& soname) {
  // glibc's sysdeps/generic/dl-cache.h. The new format's header is 48 bytes, its entries 24
  // (flags int32, key and value uint32 offsets from the header, osversion uint32, hwcap
  // uint64); the old format (magic, nlibs, 12-byte entries) may precede it.
  static constexpr char kOld[] = "ld.so-1.7.0";
  static constexpr char kNew[] = "glibc-ld.so.cache1.1";
  size_t header = 0;
  if (cache.compare(0, sizeof kOld - 1, kOld) == 0) {
    uint32_t old_count = 0;
    if (!read_at(cache, sizeof kOld - 1 + 1, old_count)) return {};  // magic, then a NUL pad to 12
    header = (12 + 4 + static_cast<size_t>(old_count) * 12 + 7) & ~size_t{7};
  }
  if (cache.compare(header, sizeof kNew - 1, kNew) != 0) return {};
  uint32_t count = 0;
  if (!read_at(cache, header + 20, count)) return {};
  std::vector<std::string> out;
  // FLAG_ELF_LIBC6 (3) with FLAG_X8664_LIB64 (0x0300): the entries a 64-bit x86 process loads.
  constexpr int32_t kX8664Libc6 = 0x0303;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t entry = header + 48 + static_cast<size_t>(i) * 24;
    int32_t flags = 0;
    uint32_t key = 0, value = 0;
    if (!read_at(cache, entry, flags) || !read_at(cache, entry + 4, key) || !read_at(cache, entry + 8, value)) break;
    if (flags != kX8664Libc6 || cache_string(cache, header + key) != soname) continue;
    std::string path = cache_string(cache, header + value);
    if (!path.empty()) out.push_back(path);
  }
  return out;
}

std::vector<LibraryCopy> resolve_soname(const std::string& soname, const ResolutionSource& source) {
  std::vector<LibraryCopy> out;
  std::vector<std::string> real_paths;
  auto add = [&](const std::string& path, const std::string& via) {
    const std::string at = under_root(source.root, path);
    if (!is_file(at)) return;
    char real[PATH_MAX];
    const std::string real_path = ::realpath(at.c_str(), real) != nullptr ? std::string(real) : at;
    for (const std::string& seen : real_paths) {
      if (seen == real_path) return;
    }
    real_paths.push_back(real_path);
    LibraryCopy copy;
    copy.soname = soname;
    copy.path = path;
    copy.version = version_from_name(real_path, soname);
    copy.origin = library_origin(path.c_str(), source.conda_prefix.c_str(), source.root.c_str());
    copy.via = via;
    out.push_back(std::move(copy));
  };
  for (const std::string& dir : split_colons(source.ld_library_path)) add(dir + "/" + soname, "LD_LIBRARY_PATH");
  const std::string cache = read_whole(under_root(source.root, "/etc/ld.so.cache"), kCacheMax);
  for (const std::string& path : ld_cache_paths(cache, soname)) add(path, "ld.so.cache");
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    add(std::string(dir) + "/" + soname, "default");
  }
  for (const std::string& dir : source.beside) add(dir + "/" + soname, "beside " + dir);
  return out;
}

std::vector<std::string> cuda_sonames_in(const std::string& text) {
  static const char* const kFamilies[] = {"libcublasLt", "libcublas", "libcudart", "libcuda", "libnvidia-ml", "libcudnn"};
  std::vector<std::string> out;
  auto add = [&](const std::string& soname) {
    for (const std::string& s : out) {
      if (s == soname) return;
    }
    out.push_back(soname);
  };
  for (size_t at = text.find("lib"); at != std::string::npos; at = text.find("lib", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) continue;
    for (const char* family : kFamilies) {
      const std::string prefix = std::string(family) + ".so.";
      if (text.compare(at, prefix.size(), prefix) != 0) continue;
      size_t end = at + prefix.size();
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      if (end == at + prefix.size()) break;
      const std::string soname = text.substr(at, end - at);
      add(soname);
      if (std::strcmp(family, "libcublas") == 0) add("libcublasLt.so." + soname.substr(prefix.size()));
      break;
    }
  }
  return out;
}

std::vector<std::string> cuda_library_directories_in(const std::string& text) {
  std::vector<std::string> out;
  for (size_t at = text.find('/'); at != std::string::npos;) {
    const size_t end = text.find_first_of(" :,()'`", at);
    const std::string path = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    const size_t slash = path.rfind('/');
    if (slash > 0 && names_cuda_library(path.c_str() + slash)) {
      const std::string dir = path.substr(0, slash);
      bool seen = false;
      for (const std::string& d : out) seen = seen || d == dir;
      if (!seen) out.push_back(dir);
    }
    at = end == std::string::npos ? end : text.find('/', end);
  }
  return out;
}

bool names_cuda_library(const char* text) {
  if (text == nullptr) return false;
  for (const char* family : {"libcublas", "libcudart", "libcuda.so", "libnvidia-ml", "libcudnn"}) {
    if (std::strstr(text, family) != nullptr) return true;
  }
  return false;
}

std::string library_copy_entry(const LibraryCopy& c) {
  return c.soname + "\t" + c.path + "\t" + c.version + "\t" + c.origin + "\t" + c.via;
}

bool library_copy_from_entry(const std::string& entry, LibraryCopy& c) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = entry.find('\t', start);
    fields.push_back(entry.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  if (fields.size() != 5 || fields[0].empty() || fields[1].empty()) return false;
  c = LibraryCopy{fields[0], fields[1], fields[2], fields[3], fields[4]};
  return true;
}

}  // namespace cublasspy
