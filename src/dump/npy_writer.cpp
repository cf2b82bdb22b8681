#include "dump/npy_writer.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace cublasspy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr size_t kAlign = 64;  // numpy >= 1.14 aligns the data to 64 bytes

int create_exclusive(const std::string& path, std::string* error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 && error) *error = path + ": " + std::strerror(errno);
  return fd;
}

bool write_all(int fd, const void* data, uint64_t bytes) {
  const auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::write(fd, p, bytes > (1u << 30) ? (1u << 30) : bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<uint64_t>(n);
  }
  return true;
}

std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";  // a Python 1-tuple
  return s + ")";
}

// The value text after `'key': ` in the header dictionary, up to the next top-level comma or
// closing brace.
std::optional<std::string> dict_value(const std::string& dict, const std::string& key) {
  size_t k = dict.find("'" + key + "'");
  if (k == std::string::npos) return std::nullopt;
  size_t colon = dict.find(':', k);
  if (colon == std::string::npos) return std::nullopt;
  size_t i = colon + 1;
  while (i < dict.size() && dict[i] == ' ') ++i;
  int depth = 0;
  size_t start = i;
  for (; i < dict.size(); ++i) {
    char c = dict[i];
    if (c == '(') depth++;
    else if (c == ')') depth--;
    else if ((c == ',' || c == '}') && depth == 0) break;
  }
  return dict.substr(start, i - start);
}

}  // namespace

std::optional<NpyDtype> npy_dtype_for(DataType type) {
  switch (type) {
    case DataType::kR16F: return NpyDtype{"<f2", 2, 1};
    case DataType::kR32F: return NpyDtype{"<f4", 4, 1};
    case DataType::kR64F: return NpyDtype{"<f8", 8, 1};
    case DataType::kC32F: return NpyDtype{"<c8", 8, 1};
    case DataType::kC64F: return NpyDtype{"<c16", 16, 1};
    case DataType::kR16BF: return NpyDtype{"<u2", 2, 1};       // raw bf16 bits
    case DataType::kR8F_E4M3: return NpyDtype{"|u1", 1, 1};    // raw fp8 bits
    case DataType::kR8F_E5M2: return NpyDtype{"|u1", 1, 1};
    case DataType::kC16F: return NpyDtype{"<f2", 2, 2};        // (re, im) pairs
    case DataType::kC16BF: return NpyDtype{"<u2", 2, 2};
    case DataType::kR8I: return NpyDtype{"|i1", 1, 1};
    case DataType::kR8U: return NpyDtype{"|u1", 1, 1};
    case DataType::kC8I: return NpyDtype{"|i1", 1, 2};
    case DataType::kR32I: return NpyDtype{"<i4", 4, 1};
    case DataType::kC32I: return NpyDtype{"<i4", 4, 2};
    default: return std::nullopt;
  }
}

std::string npy_header(const std::string& descr, const std::vector<uint64_t>& shape,
                       bool fortran_order) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " +
                     (fortran_order ? "True" : "False") + ", 'shape': " + shape_text(shape) + ", }";
  // magic(6) + version(2) + length(2) + dict + padding + '\n' is a multiple of kAlign.
  size_t unpadded = kMagicBytes + 2 + 2 + dict.size() + 1;
  size_t padding = (kAlign - unpadded % kAlign) % kAlign;
  dict.append(padding, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicBytes);
  out += static_cast<char>(1);  // version 1.0: a 16-bit header length (enough below 64 KiB)
  out += static_cast<char>(0);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  return out + dict;
}

NpyFile::~NpyFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool NpyFile::create(const std::string& path, const std::string& descr,
                     const std::vector<uint64_t>& shape, std::string* error) {
  fd_ = create_exclusive(path, error);
  if (fd_ < 0) return false;
  std::string header = npy_header(descr, shape);
  ok_ = write_all(fd_, header.data(), header.size());
  if (!ok_ && error) *error = path + ": write failed";
  return ok_;
}

bool NpyFile::append(const void* data, uint64_t bytes) {
  ok_ = ok_ && fd_ >= 0 && write_all(fd_, data, bytes);
  return ok_;
}

bool NpyFile::close() {
  if (fd_ < 0) return false;
  bool closed = ::close(fd_) == 0;
  fd_ = -1;
  return ok_ && closed;
}

bool write_npy(const std::string& path, const std::string& descr,
               const std::vector<uint64_t>& shape, const void* data, uint64_t bytes,
               std::string* error) {
  NpyFile file;
  if (!file.create(path, descr, shape, error)) return false;
  file.append(data, bytes);
  if (!file.close()) {
    if (error) *error = path + ": write failed";
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

bool write_new_file(const std::string& path, const std::string& text, std::string* error) {
  int fd = create_exclusive(path, error);
  if (fd < 0) return false;
  bool ok = write_all(fd, text.data(), text.size());
  ok = (::close(fd) == 0) && ok;
  if (!ok) {
    if (error) *error = path + ": write failed";
    ::unlink(path.c_str());
  }
  return ok;
}

std::optional<NpyInfo> read_npy_header(const std::string& path, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<NpyInfo> {
    if (error) *error = path + ": " + why;
    return std::nullopt;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(std::strerror(errno));
  unsigned char pre[12];
  ssize_t n = ::read(fd, pre, sizeof pre);
  if (n < 10 || std::memcmp(pre, kMagic, kMagicBytes) != 0) {
    ::close(fd);
    return fail("not a .npy file");
  }
  NpyInfo info;
  info.major = pre[6];
  info.minor = pre[7];
  uint64_t length = 0, prefix = 0;
  if (info.major == 1) {
    length = pre[8] | (pre[9] << 8);
    prefix = 10;
  } else if ((info.major == 2 || info.major == 3) && n >= 12) {
    length = pre[8] | (pre[9] << 8) | (uint64_t{pre[10]} << 16) | (uint64_t{pre[11]} << 24);
    prefix = 12;
  } else {
    ::close(fd);
    return fail("unsupported .npy version " + std::to_string(info.major));
  }
  std::string dict(length, '\0');
  ssize_t got = ::pread(fd, dict.data(), length, static_cast<off_t>(prefix));
  ::close(fd);
  if (got != static_cast<ssize_t>(length)) return fail("truncated header");
  info.data_offset = prefix + length;
  auto descr = dict_value(dict, "descr");
  auto order = dict_value(dict, "fortran_order");
  auto shape = dict_value(dict, "shape");
  if (!descr || !order || !shape || descr->size() < 2) return fail("malformed header");
  info.descr = descr->substr(1, descr->size() - 2);  // strip the quotes
  info.fortran_order = *order == "True";
  for (size_t i = 0; i < shape->size();) {
    if (std::isdigit(static_cast<unsigned char>((*shape)[i]))) {
      size_t end = i;
      while (end < shape->size() && std::isdigit(static_cast<unsigned char>((*shape)[end]))) ++end;
      info.shape.push_back(std::stoull(shape->substr(i, end - i)));
      i = end;
    } else {
      ++i;
    }
  }
  return info;
}

}  // namespace cublasspy
