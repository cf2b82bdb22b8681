#include "trace/process_info.h"

#include <climits>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

extern char** environ;

namespace cublasspy {

void KeyValueBlob::add(const std::string& key, const std::string& value) {
  bytes_.append(key);
  bytes_.push_back('\0');
  bytes_.append(value);
  bytes_.push_back('\0');
}

bool is_recorded_environment_variable(const char* entry) {
  static constexpr const char* kPrefixes[] = {
      "CUDA_", "CUBLAS", "CUBLASSPY_", "NVIDIA_", "PYTORCH_", "TORCH_", "NCCL_", "TF_", "XLA_",
      "JAX_", "CUDNN_", "LD_LIBRARY_PATH=", "LD_PRELOAD=", "PATH=", "RANK=", "LOCAL_RANK=",
      "WORLD_SIZE=", "LOCAL_WORLD_SIZE=", "MASTER_ADDR=", "MASTER_PORT=", "OMPI_COMM_WORLD_",
      "PMI_RANK=", "PMI_SIZE=", "SLURM_PROCID=", "SLURM_LOCALID=", "SLURM_JOB_ID=",
      "CONDA_PREFIX=", "VIRTUAL_ENV=", "OMP_NUM_THREADS="};
  for (const char* p : kPrefixes) {
    if (std::strncmp(entry, p, std::strlen(p)) == 0) return true;
  }
  return false;
}

bool is_cuda_library_path(const std::string& path) {
  auto slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  static constexpr const char* kNames[] = {"libcuda.so", "libcudart.so", "libcublas.so",
                                           "libcublasLt.so", "libnvidia-ml.so", "libcudnn",
                                           "libnvrtc", "libcusparse", "libcusolver", "libcufft",
                                           "libnccl", "libtorch_cuda", "libcublasspy"};
  for (const char* n : kNames) {
    if (name.rfind(n, 0) == 0) return true;
  }
  return false;
}

std::vector<std::string> loaded_cuda_libraries() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* list = static_cast<std::vector<std::string>*>(data);
        if (info->dlpi_name && *info->dlpi_name && is_cuda_library_path(info->dlpi_name)) {
          list->emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &out);
  return out;
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string pid_namespace() {
  char buf[64] = {};
  ssize_t n = readlink("/proc/self/ns/pid", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, n) : "";
}

std::string start_time_text() {
  time_t now = time(nullptr);
  struct tm tm_now;
  localtime_r(&now, &tm_now);
  char buf[32];
  strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm_now);
  return buf;
}

namespace {

std::string read_small_file(const char* path) {
  std::string out;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 && out.size() < 32768) out.append(buf, n);
  ::close(fd);
  return out;
}

}  // namespace

KeyValueBlob collect_process_info(int rank, const std::string& start_time) {
  KeyValueBlob kv;
  kv.add("pid", std::to_string(getpid()));
  kv.add("ppid", std::to_string(getppid()));
  char exe[PATH_MAX] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  kv.add("exe", n > 0 ? std::string(exe, n) : "");
  std::string cmdline = read_small_file("/proc/self/cmdline");
  for (size_t pos = 0; pos < cmdline.size();) {
    size_t end = cmdline.find('\0', pos);
    if (end == std::string::npos) end = cmdline.size();
    kv.add("argv", cmdline.substr(pos, end - pos));
    pos = end + 1;
  }
  kv.add("host", host_name());
  kv.add("pid_namespace", pid_namespace());
  kv.add("rank", rank < 0 ? "" : std::to_string(rank));
  kv.add("start_time", start_time);
  for (char** e = environ; e && *e; ++e) {
    if (is_recorded_environment_variable(*e)) kv.add("env", *e);
  }
  for (const std::string& lib : loaded_cuda_libraries()) kv.add("library", lib);
  return kv;
}

}  // namespace cublasspy
