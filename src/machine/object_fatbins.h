// The architectures of the device code a loaded object (a shared library or the executable)
// carries: the fatbins of its .nv_fatbin section, where nvcc puts the fatbin of each of its
// translation units and from which it registers them with the runtime at load time
// (__cudaRegisterFatBinary). Read from the object's file, at a failure: its section headers
// (not mapped in memory) locate the section, and each fatbin and entry header is read with
// pread, bounds-checked (fatbin_archs.h), so a file that does not parse reads as malformed,
// never as a fault. Allocates nothing.
#pragma once

#include "machine/fatbin_archs.h"

namespace cublasspy {

struct ObjectFatbins {
  bool readable = false;     // the file opened and is a 64-bit ELF of this machine's byte order
  bool has_section = false;  // it has a .nv_fatbin section
  ArchSet archs;
};

ObjectFatbins object_fatbins(const char* path);

}  // namespace cublasspy
