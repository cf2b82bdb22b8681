// The machine `cublasspy doctor` examines, behind one small interface so the tests can fake it:
// every file is read under `root` (a test builds a fake /proc, /dev, /etc and library
// directories in a temporary folder), the environment is a map, and the one thing that must
// touch the real driver (loading libcuda and asking it) is a function the test replaces. Whether
// a device node may be opened is asked of the kernel for this process (the machine evidence's
// collector), as CUDA's own open() would be: a test pretends another user in a child process.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/driver_probe.h"

namespace cublasspy::doctor {

struct MachineView {
  std::string root = "/";
  std::map<std::string, std::string> env;
  // Loads the driver library and asks it what it sees; on a fake root a test supplies one.
  std::function<DriverProbe()> probe_driver;

  // `path` (absolute) as seen under root.
  std::string at(const std::string& path) const;
  std::optional<std::string> var(const std::string& name) const;
  std::optional<std::string> read_file(const std::string& path, size_t limit = 1 << 16) const;
  bool exists(const std::string& path) const;
  // Entries of a directory (names only), sorted; empty when it cannot be read.
  std::vector<std::string> list_dir(const std::string& path) const;
};

// This machine: root "/", this process's environment, the real probe (in a child process).
MachineView this_machine();

// The directories the dynamic loader searches for a library, in its order: LD_LIBRARY_PATH,
// then /etc/ld.so.conf (with its includes), then the default directories. Each once.
struct SearchDirectory {
  std::string path;
  std::string source;  // "LD_LIBRARY_PATH", "ld.so.conf", "default"
  bool exists = false;
};
std::vector<SearchDirectory> library_search_path(const MachineView& m);

}  // namespace cublasspy::doctor
