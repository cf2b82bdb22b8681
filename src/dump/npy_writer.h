// Writing (and reading back the header of) NumPy .npy files, format version 1.0: the operand
// dumps of CUBLASSPY_DUMP. The data is streamed in after the header, so an operand copied from
// the GPU in chunks never has to be held in memory whole.
//
// Types numpy has no dtype for are written as their raw bits: bf16 as '<u2', fp8 as '|u1'; the
// JSON written beside each dump names the real type. Complex types without a numpy dtype (the
// 16-bit and integer complex types) get a trailing dimension of 2 (re, im).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gemm/gemm_call.h"

namespace cublasspy {

struct NpyDtype {
  const char* descr;   // '<f4', '<u2', ...
  int item_bytes;      // bytes of one numpy item
  int parts;           // numpy items per element: 2 for complex types stored as pairs, else 1
};

// nullopt for a type the dumps do not know.
std::optional<NpyDtype> npy_dtype_for(DataType type);

// The complete preamble: magic, version 1.0, header length and the header dictionary, padded
// with spaces and a newline so the data starts at a multiple of 64 bytes.
std::string npy_header(const std::string& descr, const std::vector<uint64_t>& shape,
                       bool fortran_order = false);

// A .npy file being written. Created exclusively (O_EXCL: an existing file is never replaced),
// never through a symbolic link, with mode 0666 less the umask.
class NpyFile {
 public:
  NpyFile() = default;
  NpyFile(const NpyFile&) = delete;
  NpyFile& operator=(const NpyFile&) = delete;
  ~NpyFile();

  // Creates `path` and writes the header; append() then adds the data the shape describes.
  bool create(const std::string& path, const std::string& descr,
              const std::vector<uint64_t>& shape, std::string* error);
  bool append(const void* data, uint64_t bytes);
  // Closes the file; false if any write failed (the caller removes the partial file).
  bool close();

 private:
  int fd_ = -1;
  bool ok_ = true;
};

// Writes a whole host buffer as a .npy file.
bool write_npy(const std::string& path, const std::string& descr,
               const std::vector<uint64_t>& shape, const void* data, uint64_t bytes,
               std::string* error);

// Creates a small text file the same way (exclusive, no symbolic link): the JSON beside a dump.
bool write_new_file(const std::string& path, const std::string& text, std::string* error);

// What a .npy file's header says (for the tests and the tools).
struct NpyInfo {
  int major = 0, minor = 0;
  std::string descr;
  bool fortran_order = false;
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;  // where the data starts in the file
};
std::optional<NpyInfo> read_npy_header(const std::string& path, std::string* error);

}  // namespace cublasspy
