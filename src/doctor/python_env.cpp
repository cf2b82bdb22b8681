#include "doctor/python_env.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "process/child.h"

namespace cublasspy::doctor {
namespace {

// Asks only what import torch already loaded; the versions come from functions that initialize
// nothing (cublasGetProperty, cublasLtGetVersion, cudaRuntimeGetVersion), through ctypes on the
// mapped file, which dlopen finds already loaded.
constexpr const char* kScript = R"PY(
import json, os, sys
out = {"python": sys.version.split()[0]}
try:
    import torch
    out["torch"] = torch.__version__
    out["torch_cuda"] = torch.version.cuda or ""
    # torch.cuda.get_arch_list() without its is_available(), which would initialize CUDA.
    flags = getattr(torch._C, "_cuda_getArchFlags", None)
    out["torch_arch_list"] = (flags() or "").split() if flags else []
except Exception as e:
    out["torch_error"] = (type(e).__name__ + ": " + str(e)).splitlines()[0][:300]
libs = []
try:
    for line in open("/proc/self/maps"):
        parts = line.split()
        path = parts[5] if len(parts) >= 6 else ""
        name = os.path.basename(path)
        if name.startswith(("libcublas", "libcudart", "libcuda.so", "libcudnn", "libnccl", "libnvrtc")) and path not in [l["path"] for l in libs]:
            libs.append({"path": path, "version": ""})
except OSError:
    pass
try:
    import ctypes
    for lib in libs:
        name = os.path.basename(lib["path"])
        so = ctypes.CDLL(lib["path"])
        if name.startswith("libcublasLt"):
            so.cublasLtGetVersion.restype = ctypes.c_size_t
            v = so.cublasLtGetVersion()
            lib["version"] = "%d.%d.%d" % (v // 10000, v // 100 % 100, v % 100)
        elif name.startswith("libcublas."):
            parts = []
            for prop in (0, 1, 2):
                x = ctypes.c_int(0)
                if so.cublasGetProperty(prop, ctypes.byref(x)) == 0:
                    parts.append(str(x.value))
            lib["version"] = ".".join(parts) if len(parts) == 3 else ""
        elif name.startswith("libcudart"):
            x = ctypes.c_int(0)
            if so.cudaRuntimeGetVersion(ctypes.byref(x)) == 0 and x.value > 0:
                lib["version"] = "%d.%d" % (x.value // 1000, x.value % 1000 // 10)
except Exception:
    pass
out["libraries"] = libs
wheels = {}
try:
    from importlib import metadata
    for d in metadata.distributions():
        name = d.metadata["Name"] or ""
        if name.lower().startswith("nvidia-"):
            wheels[name] = d.version
except Exception:
    pass
out["wheels"] = wheels
print(json.dumps(out))
)PY";

}  // namespace

PythonEnv python_env_from_json(const std::string& text) {
  PythonEnv env;
  env.ran = true;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    env.error = "the interpreter's answer is not JSON";
    return env;
  }
  auto str = [&](const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; };
  env.python_version = str("python");
  env.torch_version = str("torch");
  env.torch_cuda = str("torch_cuda");
  env.torch_error = str("torch_error");
  if (j.contains("torch_arch_list") && j["torch_arch_list"].is_array()) {
    for (const auto& a : j["torch_arch_list"]) {
      if (a.is_string()) env.torch_arch_list.push_back(a.get<std::string>());
    }
  }
  if (j.contains("libraries") && j["libraries"].is_array()) {
    for (const auto& l : j["libraries"]) {
      if (l.is_object() && l.contains("path") && l["path"].is_string()) {
        env.libraries.push_back({l["path"].get<std::string>(), l.value("version", std::string())});
      }
    }
  }
  if (j.contains("wheels") && j["wheels"].is_object()) {
    for (const auto& [k, v] : j["wheels"].items()) {
      if (v.is_string()) env.wheels[k] = v.get<std::string>();
    }
  }
  return env;
}

PythonEnv probe_python(const std::string& python, int seconds) {
  PythonEnv env;
  process::Spawn spawn;
  spawn.argv = {python, "-c", kScript};
  spawn.search_path = true;
  spawn.out = {process::Output::Mode::kCapture, 1 << 20};
  spawn.err.mode = process::Output::Mode::kDiscard;
  spawn.own_process_group = true;  // a timeout kills whatever it started too
  spawn.limit = std::chrono::seconds(seconds);
  const process::Outcome ran = process::run(spawn);
  if (ran.failed_step == process::Outcome::Step::kPipe || ran.failed_step == process::Outcome::Step::kFork) {
    env.error = ran.failed_step == process::Outcome::Step::kPipe ? "pipe failed" : "fork failed";
    return env;
  }
  env.timed_out = ran.timed_out;
  if (ran.timed_out) {
    env.error = "the interpreter did not answer within " + std::to_string(seconds) + " s (killed)";
    return env;
  }
  if (!ran.started || (ran.exited && ran.exit_code == 127 && ran.out.empty())) {
    env.error = "could not run " + python;
    return env;
  }
  return python_env_from_json(ran.out);
}

}  // namespace cublasspy::doctor
