#include "machine/machine_evidence.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>

namespace cublasspy {
namespace {

// A fixed buffer that text is appended to; what does not fit is cut.
struct Text {
  char buf[kEvidenceValueMax];
  size_t len = 0;
  Text() { buf[0] = '\0'; }
  Text& add(const char* s, size_t n) {
    if (n > sizeof buf - 1 - len) n = sizeof buf - 1 - len;
    std::memcpy(buf + len, s, n);
    len += n;
    buf[len] = '\0';
    return *this;
  }
  Text& add(const char* s) { return add(s, std::strlen(s)); }
  Text& num(uint64_t v) {
    char digits[24];
    size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) add(&digits[--n], 1);
    return *this;
  }
};

// `root` + `path`: "/x/fake" + "/proc/modules".
Text under(const MachineSource& s, const char* path) {
  Text t;
  const char* root = s.root != nullptr ? s.root : "/";
  size_t n = std::strlen(root);
  while (n > 0 && root[n - 1] == '/') --n;
  t.add(root, n).add(path);
  return t;
}

// Reads up to size-1 bytes of a file; -1 when it cannot be opened.
ssize_t read_file(const char* path, char* buf, size_t size) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t used = 0;
  while (used < size - 1) {
    ssize_t n = ::read(fd, buf + used, size - 1 - used);
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  buf[used] = '\0';
  return static_cast<ssize_t>(used);
}

// Calls fn(name) for each entry of a directory, through getdents64 (opendir allocates).
template <typename Fn>
void for_each_entry(const char* dir, Fn fn) {
  int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) char buf[4096];
  for (;;) {
    long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
      unsigned short reclen;
      std::memcpy(&reclen, buf + at + 16, sizeof reclen);
      const char* name = buf + at + 19;
      if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0) fn(name);
      if (reclen == 0) break;
      at += reclen;
    }
  }
  ::close(fd);
}

bool starts_with(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

// "/dev/nvidia0 crw-rw-rw- uid 0 gid 0 open" (this process may open it for reading and
// writing), "... denied" (it may not), "/dev/nvidiactl missing".
void add_node(const MachineSource& s, EvidenceSink& sink, const char* path, bool report_missing) {
  Text full = under(s, path);
  struct stat st;
  Text t;
  t.add(path);
  if (::stat(full.buf, &st) != 0) {
    if (report_missing) sink.add("machine.node", t.add(" missing").buf);
    return;
  }
  char mode[11] = "-rwxrwxrwx";
  mode[0] = S_ISCHR(st.st_mode) ? 'c' : S_ISDIR(st.st_mode) ? 'd' : '-';
  for (int i = 0; i < 9; ++i) {
    if (!(st.st_mode & (0400 >> i))) mode[i + 1] = '-';
  }
  t.add(" ").add(mode).add(" uid ").num(st.st_uid).add(" gid ").num(st.st_gid);
  // The effective ids decide, as they do for the open() CUDA makes.
  t.add(::faccessat(AT_FDCWD, full.buf, R_OK | W_OK, AT_EACCESS) == 0 ? " open" : " denied");
  sink.add("machine.node", t.buf);
}

bool is_gpu_node(const char* name) {
  if (!starts_with(name, "nvidia") || name[6] == '\0') return false;
  for (const char* c = name + 6; *c; ++c) {
    if (*c < '0' || *c > '9') return false;
  }
  return true;
}

void collect_module(const MachineSource& s, EvidenceSink& sink) {
  char buf[4096];
  Text path = under(s, "/proc/driver/nvidia/version");
  ssize_t n = read_file(path.buf, buf, sizeof buf);
  Text first;
  if (n > 0) {
    const char* end = std::strchr(buf, '\n');
    first.add(buf, end != nullptr ? static_cast<size_t>(end - buf) : std::strlen(buf));
  }
  // Empty: the file does not exist (no module loaded, or not visible here).
  sink.add("machine.nvidia_version", n < 0 ? "" : first.len == 0 ? "(empty)" : first.buf);

  // /proc/modules can be long: read it in pieces and keep the nvidia* lines.
  path = under(s, "/proc/modules");
  int fd = ::open(path.buf, O_RDONLY | O_CLOEXEC);
  sink.add("machine.proc_modules", fd < 0 ? "unreadable" : "read");
  if (fd < 0) return;
  char line[512];
  size_t used = 0;
  bool overlong = false;
  auto finish_line = [&] {
    line[used] = '\0';
    if (!overlong && starts_with(line, "nvidia")) sink.add("machine.module", line);
    used = 0;
    overlong = false;
  };
  for (;;) {
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got <= 0) break;
    for (ssize_t i = 0; i < got; ++i) {
      if (buf[i] == '\n') {
        finish_line();
      } else if (used < sizeof line - 1) {
        line[used++] = buf[i];
      } else {
        overlong = true;
      }
    }
  }
  if (used > 0) finish_line();
  ::close(fd);
}

void collect_nodes(const MachineSource& s, EvidenceSink& sink) {
  add_node(s, sink, "/dev/nvidiactl", true);
  add_node(s, sink, "/dev/nvidia-uvm", true);
  add_node(s, sink, "/dev/nvidia-uvm-tools", false);
  add_node(s, sink, "/dev/nvidia-modeset", false);
  Text dev = under(s, "/dev");
  int gpus = 0;
  for_each_entry(dev.buf, [&](const char* name) {
    // GPUs, NVSwitches (Fabric Manager's machines), not the fixed nodes above.
    if (is_gpu_node(name) || starts_with(name, "nvidia-nvswitch")) {
      Text p;
      add_node(s, sink, p.add("/dev/").add(name).buf, false);
      gpus += is_gpu_node(name);
    }
  });
  if (gpus == 0) sink.add("machine.node", "/dev/nvidia<N> missing");
  // MIG: the capability nodes CUDA opens for a GPU or compute instance.
  Text caps = under(s, "/dev/nvidia-caps");
  for_each_entry(caps.buf, [&](const char* name) {
    Text p;
    add_node(s, sink, p.add("/dev/nvidia-caps/").add(name).buf, false);
  });
  Text nvswitch = under(s, "/proc/driver/nvidia-nvswitch/devices");
  for_each_entry(nvswitch.buf, [&](const char* name) { sink.add("machine.nvswitch", name); });
}

void collect_container(const MachineSource& s, EvidenceSink& sink) {
  for (const char* marker : {"/.dockerenv", "/run/.containerenv"}) {
    struct stat st;
    if (::stat(under(s, marker).buf, &st) == 0) sink.add("machine.container", marker);
  }
  char buf[4096];
  if (read_file(under(s, "/proc/1/cgroup").buf, buf, sizeof buf) > 0) {
    for (const char* word : {"docker", "kubepods", "containerd", "libpod", "lxc"}) {
      if (std::strstr(buf, word) != nullptr) {
        Text t;
        sink.add("machine.container", t.add("/proc/1/cgroup mentions ").add(word).buf);
        break;
      }
    }
  }
  // What container runtimes set: systemd-nspawn and Podman `container=`, Kubernetes its
  // service address (only whether it is set: the address is not the trace's business).
  if (s.get_var == nullptr) return;
  if (const char* runtime = s.get_var(s.var_context, "container"); runtime != nullptr && *runtime != '\0') {
    Text t;
    sink.add("machine.container", t.add("container=").add(runtime).buf);
  }
  if (s.get_var(s.var_context, "KUBERNETES_SERVICE_HOST") != nullptr) {
    sink.add("machine.container", "KUBERNETES_SERVICE_HOST is set");
  }
}

void add_variable(const MachineSource& s, EvidenceSink& sink, const char* name) {
  Text t;
  t.add(name);
  if (const char* v = s.get_var(s.var_context, name)) t.add("=").add(v);
  sink.add("machine.env", t.buf);
}

// The variables as they are now: a program may set them after the trace opened (PyTorch
// scripts set os.environ["CUDA_VISIBLE_DEVICES"] before the first CUDA call). "NAME" alone
// when unset. None of them may hold a secret.
void collect_variables(const MachineSource& s, EvidenceSink& sink) {
  if (s.get_var == nullptr) return;
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
                           "NVIDIA_DRIVER_CAPABILITIES"}) {
    add_variable(s, sink, name);
  }
}

}  // namespace

bool is_ld_library_path_entry(const char* dir, size_t dir_len, const char* ld_library_path) {
  if (ld_library_path == nullptr) return false;
  for (const char* p = ld_library_path; *p;) {
    const char* end = std::strchr(p, ':');
    size_t n = end != nullptr ? static_cast<size_t>(end - p) : std::strlen(p);
    size_t trimmed = n;
    while (trimmed > 1 && p[trimmed - 1] == '/') --trimmed;
    if (trimmed == dir_len && std::strncmp(p, dir, dir_len) == 0) return true;
    if (end == nullptr) break;
    p = end + 1;
  }
  return false;
}

const char* library_origin(const char* path, const char* conda_prefix, const char* root) {
  if (std::strstr(path, "/site-packages/nvidia/") != nullptr || std::strstr(path, "/dist-packages/nvidia/") != nullptr) {
    return "pip-wheel";
  }
  if (conda_prefix != nullptr && *conda_prefix != '\0') {
    size_t n = std::strlen(conda_prefix);
    while (n > 1 && conda_prefix[n - 1] == '/') --n;
    if (std::strncmp(path, conda_prefix, n) == 0 && path[n] == '/') return "conda";
  }
  // <env>/lib/libcublas.so.12 with <env>/conda-meta: a conda environment not activated.
  const char* slash = std::strrchr(path, '/');
  if (slash != nullptr && slash > path) {
    const char* parent_end = slash - 1;
    while (parent_end > path && *parent_end != '/') --parent_end;
    MachineSource s;
    s.root = root;
    Text env;
    env.add(path, static_cast<size_t>(parent_end - path)).add("/conda-meta");
    struct stat st;
    if (parent_end > path && ::stat(under(s, env.buf).buf, &st) == 0) return "conda";
  }
  for (const char* system : {"/usr/", "/lib/", "/lib64/", "/opt/"}) {
    if (starts_with(path, system)) return "system";
  }
  return "other";
}

void collect_machine_state(const MachineSource& source, EvidenceSink& sink) {
  collect_module(source, sink);
  collect_nodes(source, sink);
  collect_container(source, sink);
  collect_variables(source, sink);
  if (source.driver_library != nullptr) sink.add("machine.driver_library", source.driver_library);
}

void collect_library_variables(const MachineSource& source, EvidenceSink& sink) {
  if (source.get_var != nullptr) add_variable(source, sink, "LD_LIBRARY_PATH");
}

void collect_machine_evidence(const MachineSource& source, EvidenceSink& sink) {
  collect_machine_state(source, sink);
  collect_library_variables(source, sink);
}

}  // namespace cublasspy
