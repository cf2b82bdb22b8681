// A gzip'd tar archive written member by member: POSIX ustar headers, with a pax extended header
// where a name or a size does not fit ustar's fields, through zlib's gzip stream. The CLI links
// zlib statically (the installed tool needs nothing but glibc: cmake/SelfContained.cmake), which
// rules out libarchive, whose static library pulls in lzma, bzip2, nettle, libxml2 and more.
//
// The archive is written to `<path>.partial-<pid>` and renamed to `path` by commit(): a run that
// fails half-way, or is killed, never leaves a file under the asked-for name that looks complete.
#pragma once

#include <cstdint>
#include <string>

namespace cublasspy::tools::bundle {

class TarGzWriter {
 public:
  TarGzWriter() = default;
  TarGzWriter(const TarGzWriter&) = delete;
  TarGzWriter& operator=(const TarGzWriter&) = delete;
  ~TarGzWriter();  // an archive not committed is removed

  // Starts the archive; false (error() says why) when the temporary file cannot be created.
  bool open(const std::string& path);
  // A regular file of mode 0644 named `name` ("dir/file") holding `bytes`.
  bool add(const std::string& name, const std::string& bytes);
  // A regular file copied from `source` as it is now (`size` bytes, its size when listed).
  bool add_file(const std::string& name, const std::string& source, uint64_t size);
  // Ends the archive and gives it its name. After a false return nothing is left at `path`.
  bool commit();

  const std::string& error() const { return error_; }

 private:
  bool write(const void* data, size_t size);
  bool header(const std::string& name, uint64_t size, char type);
  bool pad(uint64_t size);
  bool fail(std::string why);
  void discard();

  void* gz_ = nullptr;  // gzFile, kept opaque so users need not include zlib.h
  std::string path_, temp_path_, error_;
  uint64_t mtime_ = 0;
};

}  // namespace cublasspy::tools::bundle
