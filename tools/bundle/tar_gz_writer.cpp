#include "bundle/tar_gz_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include <fmt/format.h>
#include <zlib.h>

namespace cublasspy::tools::bundle {
namespace {

constexpr size_t kBlock = 512;
constexpr uint64_t kUstarMaxSize = (uint64_t{1} << 33) - 1;  // 11 octal digits
constexpr size_t kUstarNameField = 100;

// An octal number right-aligned in a field of `width` bytes, NUL-terminated.
void put_octal(char* field, size_t width, uint64_t value) {
  std::string digits = fmt::format("{:0{}o}", value, width - 1);
  std::memcpy(field, digits.data(), width - 1);
  field[width - 1] = '\0';
}

// A pax record: "<length> <key>=<value>\n", the length counting itself.
std::string pax_record(const std::string& key, const std::string& value) {
  const size_t body = 1 + key.size() + 1 + value.size() + 1;
  size_t length = body + 1;
  while (std::to_string(length).size() + body != length) ++length;
  return std::to_string(length) + " " + key + "=" + value + "\n";
}

gzFile as_gz(void* p) { return static_cast<gzFile>(p); }

// Whether a member needs a pax header: its name or its size does not fit ustar's fields.
bool needs_pax(const std::string& name, uint64_t size) {
  return name.size() > kUstarNameField || size > kUstarMaxSize;
}

}  // namespace

TarGzWriter::~TarGzWriter() { discard(); }

bool TarGzWriter::fail(std::string why) {
  if (error_.empty()) error_ = std::move(why);
  discard();
  return false;
}

void TarGzWriter::discard() {
  if (gz_ != nullptr) gzclose(as_gz(gz_));
  gz_ = nullptr;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
}

bool TarGzWriter::open(const std::string& path) {
  path_ = path;
  temp_path_ = fmt::format("{}.partial-{}", path, ::getpid());
  int fd = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    temp_path_.clear();
    return fail(fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
  gz_ = gzdopen(fd, "wb6");
  if (gz_ == nullptr) {
    ::close(fd);
    return fail(fmt::format("cannot start the gzip stream of {}", path));
  }
  mtime_ = static_cast<uint64_t>(std::time(nullptr));
  return true;
}

bool TarGzWriter::write(const void* data, size_t size) {
  if (gz_ == nullptr) return false;
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(size, 1u << 20));
    if (gzwrite(as_gz(gz_), p, chunk) != static_cast<int>(chunk)) {
      int zerr = 0;
      const char* message = gzerror(as_gz(gz_), &zerr);
      return fail(fmt::format("cannot write {}: {}", path_, zerr == Z_ERRNO ? std::strerror(errno) : message));
    }
    p += chunk;
    size -= chunk;
  }
  return true;
}

bool TarGzWriter::pad(uint64_t size) {
  static const char zeros[kBlock] = {};
  const size_t rest = size % kBlock;
  return rest == 0 || write(zeros, kBlock - rest);
}

bool TarGzWriter::header(const std::string& name, uint64_t size, char type) {
  char h[kBlock] = {};
  std::memcpy(h, name.data(), std::min(name.size(), kUstarNameField));
  put_octal(h + 100, 8, 0644);
  put_octal(h + 108, 8, 0);
  put_octal(h + 116, 8, 0);
  put_octal(h + 124, 12, size);
  put_octal(h + 136, 12, mtime_);
  h[156] = type;
  std::memcpy(h + 257, "ustar", 6);
  std::memcpy(h + 263, "00", 2);
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  std::snprintf(h + 148, 8, "%06o", sum);
  h[155] = ' ';
  return write(h, sizeof h);
}

bool TarGzWriter::add(const std::string& name, const std::string& bytes) {
  if (gz_ == nullptr) return false;
  if (needs_pax(name, bytes.size())) {
    std::string pax = pax_record("path", name);
    if (!header("PaxHeader/entry", pax.size(), 'x') || !write(pax.data(), pax.size()) || !pad(pax.size())) return false;
  }
  return header(name, bytes.size(), '0') && write(bytes.data(), bytes.size()) && pad(bytes.size());
}

bool TarGzWriter::add_file(const std::string& name, const std::string& source, uint64_t size) {
  if (gz_ == nullptr) return false;
  int fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(fmt::format("cannot read {}: {}", source, std::strerror(errno)));
  if (needs_pax(name, size)) {
    std::string pax = pax_record("path", name);
    if (size > kUstarMaxSize) pax += pax_record("size", std::to_string(size));
    if (!header("PaxHeader/entry", pax.size(), 'x') || !write(pax.data(), pax.size()) || !pad(pax.size())) {
      ::close(fd);
      return false;
    }
  }
  bool ok = header(name, size > kUstarMaxSize ? 0 : size, '0');
  std::vector<char> buffer(1 << 20);
  uint64_t left = size;
  while (ok && left > 0) {
    ssize_t n = ::read(fd, buffer.data(), std::min<uint64_t>(left, buffer.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = fail(fmt::format("cannot read {}: {}", source, n < 0 ? std::strerror(errno) : "it became shorter while read"));
      break;
    }
    ok = write(buffer.data(), static_cast<size_t>(n));
    left -= static_cast<uint64_t>(n);
  }
  ::close(fd);
  return ok && pad(size);
}

bool TarGzWriter::commit() {
  if (gz_ == nullptr) return fail(error_.empty() ? "the archive is not open" : error_);
  static const char end[2 * kBlock] = {};
  if (!write(end, sizeof end)) return false;
  const int closed = gzclose(as_gz(gz_));
  gz_ = nullptr;
  if (closed != Z_OK) return fail(fmt::format("cannot write {}: {}", path_, closed == Z_ERRNO ? std::strerror(errno) : "zlib error"));
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return fail(fmt::format("cannot write {}: {}", path_, std::strerror(errno)));
  }
  temp_path_.clear();
  return true;
}

}  // namespace cublasspy::tools::bundle
