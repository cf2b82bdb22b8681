#include "machine/process_info.h"

#include <cctype>
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

namespace {

// The variables a CUDA post-mortem needs, by exact name or by a prefix that a CUDA library, a
// framework or a launcher owns. An allowlist, not a list of prefixes to take whole: TF_ alone
// would take Terraform's TF_TOKEN_*, NVIDIA_ would take NGC's NVIDIA_API_KEY.
struct RecordedName {
  const char* text;
  bool prefix;  // true: every name that starts with `text`
};
constexpr RecordedName kRecordedNames[] = {
    // CUDA, its libraries, the container runtime's device selection
    {"CUDA_", true}, {"CUBLAS_", true}, {"CUBLASLT_", true}, {"CUDNN_", true},
    {"CUBLASSPY_", true}, {"NCCL_", true}, {"NVIDIA_VISIBLE_DEVICES", false},
    {"NVIDIA_DRIVER_CAPABILITIES", false}, {"NVIDIA_REQUIRE_CUDA", false},
    {"NVIDIA_DISABLE_REQUIRE", false}, {"NVIDIA_TF32_OVERRIDE", false},
    {"NVIDIA_MIG_CONFIG_DEVICES", false}, {"NVIDIA_MIG_MONITOR_DEVICES", false},
    // PyTorch
    {"PYTORCH_", true}, {"TORCH_", true}, {"TORCHELASTIC_", true},
    {"DISABLE_ADDMM_CUDA_LT", false},
    // TensorFlow's own GPU and logging settings
    {"TF_CPP_", true}, {"TF_GPU_", true}, {"TF_CUDA_", true}, {"TF_CUDNN_", true},
    {"TF_XLA_FLAGS", false}, {"TF_FORCE_GPU_ALLOW_GROWTH", false},
    {"TF_FORCE_UNIFIED_MEMORY", false}, {"TF_ENABLE_ONEDNN_OPTS", false},
    {"TF_DETERMINISTIC_OPS", false}, {"TF_ENABLE_AUTO_MIXED_PRECISION", false},
    // JAX and XLA
    {"JAX_", true}, {"XLA_FLAGS", false}, {"XLA_PYTHON_CLIENT_", true},
    // the loader and the Python environment: which libraries a process can pick up
    {"LD_LIBRARY_PATH", false}, {"LD_PRELOAD", false}, {"PATH", false}, {"PYTHONPATH", false},
    {"PYTHONHOME", false}, {"CONDA_PREFIX", false}, {"VIRTUAL_ENV", false},
    {"OMP_NUM_THREADS", false},
    // launchers: which rank this is, and of how many
    {"RANK", false}, {"LOCAL_RANK", false}, {"GROUP_RANK", false}, {"WORLD_SIZE", false},
    {"LOCAL_WORLD_SIZE", false}, {"MASTER_ADDR", false}, {"MASTER_PORT", false},
    {"OMPI_COMM_WORLD_RANK", false}, {"OMPI_COMM_WORLD_SIZE", false},
    {"OMPI_COMM_WORLD_LOCAL_RANK", false}, {"PMI_RANK", false}, {"PMI_SIZE", false},
    {"PMIX_RANK", false}, {"SLURM_PROCID", false}, {"SLURM_LOCALID", false},
    {"SLURM_NODEID", false}, {"SLURM_JOB_ID", false}, {"SLURM_STEP_GPUS", false},
    {"SLURM_JOB_GPUS", false}, {"GPU_DEVICE_ORDINAL", false}};

// Words that make a name look like it holds a credential, in any case.
constexpr std::string_view kCredentialWords[] = {"TOKEN",      "SECRET", "PASSWORD", "PASSWD",
                                                 "PASSPHRASE", "CREDENTIAL", "KEY", "AUTH",
                                                 "COOKIE",     "PRIVATE", "SIGNATURE"};

bool contains_ignoring_case(std::string_view text, std::string_view word) {
  if (word.size() > text.size()) return false;
  for (size_t i = 0; i + word.size() <= text.size(); ++i) {
    size_t j = 0;
    while (j < word.size() && std::toupper(static_cast<unsigned char>(text[i + j])) == word[j]) ++j;
    if (j == word.size()) return true;
  }
  return false;
}

}  // namespace

std::string without_url_credentials(std::string_view value) {
  std::string out;
  size_t pos = 0;
  while (pos < value.size()) {
    size_t scheme = value.find("://", pos);
    if (scheme == std::string_view::npos) break;
    size_t start = scheme + 3;
    size_t end = value.find_first_of("/?#@ ;,", start);
    out.append(value.substr(pos, start - pos));
    if (end != std::string_view::npos && value[end] == '@') {
      out.append(kRedacted);
      out.push_back('@');
      pos = end + 1;
    } else {
      pos = start;
    }
  }
  out.append(value.substr(pos));
  return out;
}

bool looks_like_credential_name(std::string_view name) {
  for (std::string_view word : kCredentialWords) {
    if (contains_ignoring_case(name, word)) return true;
  }
  return false;
}

bool is_recorded_environment_name(std::string_view name) {
  for (const RecordedName& r : kRecordedNames) {
    std::string_view text(r.text);
    if (r.prefix ? name.substr(0, text.size()) == text : name == text) return true;
  }
  return false;
}

std::optional<std::string> recorded_environment_entry(const char* name_eq_value) {
  std::string_view entry(name_eq_value);
  size_t eq = entry.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  std::string_view name = entry.substr(0, eq);
  if (!is_recorded_environment_name(name)) return std::nullopt;
  std::string out(name);
  out.push_back('=');
  if (looks_like_credential_name(name)) {
    out.append(kRedacted);
  } else {
    out.append(without_url_credentials(entry.substr(eq + 1)));
  }
  return out;
}

std::vector<std::string> redacted_command_line(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool next_is_secret = false;  // the value of "--token VALUE", given as its own argument
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (next_is_secret) {
      out.emplace_back(kRedacted);
      next_is_secret = false;
      continue;
    }
    size_t eq = arg.find('=');
    std::string_view flag = std::string_view(arg).substr(0, eq);
    // Only options and NAME=value assignments are names; argv[0] and plain operands are not.
    bool named = i > 0 && (flag.substr(0, 1) == "-" || eq != std::string::npos);
    if (named && looks_like_credential_name(flag)) {
      if (eq == std::string::npos) {
        out.push_back(arg);
        next_is_secret = true;
      } else {
        out.push_back(arg.substr(0, eq + 1) + kRedacted);
      }
      continue;
    }
    out.push_back(without_url_credentials(arg));
  }
  return out;
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
  std::vector<std::string> argv;
  for (size_t pos = 0; pos < cmdline.size();) {
    size_t end = cmdline.find('\0', pos);
    if (end == std::string::npos) end = cmdline.size();
    argv.push_back(cmdline.substr(pos, end - pos));
    pos = end + 1;
  }
  for (const std::string& arg : redacted_command_line(argv)) kv.add("argv", arg);
  kv.add("host", host_name());
  kv.add("pid_namespace", pid_namespace());
  kv.add("rank", rank < 0 ? "" : std::to_string(rank));
  kv.add("start_time", start_time);
  // Call stamps are CLOCK_MONOTONIC, which only the processes of one host share: this pair,
  // read back to back, puts them on the wall clock, so traces of several hosts merge in order.
  timespec wall{}, mono{};
  clock_gettime(CLOCK_REALTIME, &wall);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  auto ns = [](const timespec& t) { return std::to_string(t.tv_sec * 1000000000ll + t.tv_nsec); };
  kv.add("clock_realtime_ns", ns(wall));
  kv.add("clock_monotonic_ns", ns(mono));
  for (char** e = environ; e && *e; ++e) {
    if (std::optional<std::string> entry = recorded_environment_entry(*e)) kv.add("env", *entry);
  }
  for (const std::string& lib : loaded_cuda_libraries()) kv.add("library", lib);
  return kv;
}

}  // namespace cublasspy
