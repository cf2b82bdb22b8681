// no-kernel-image: a kernel launch failed with cudaErrorNoKernelImageForDevice (the driver's
// CUDA_ERROR_NO_BINARY_FOR_GPU, the same 209): the GPU is one the build has no code for, as an
// RTX 50xx (compute capability 12.0) under PyTorch's cu121/cu124 wheels. The shim records, at
// the first such launch (docs/FORMAT.md, "Kernel images"), the device's compute capability and
// the architectures of the object holding the kernel, read from its fatbins; the finding
// compares them. When the object does carry code for the GPU, the cause is something else that
// gives 209, and the advice says what.
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "diagnose/rule.h"
#include "machine/fatbin_archs.h"

namespace cublasspy::diagnoses {
namespace {

constexpr int kNoKernelImage = 209;

// What the shim recorded at the first such launch.
struct KernelImage {
  std::optional<std::pair<int, int>> device;  // compute capability
  std::string object;                         // the kernel's object, "" when not recorded
  std::string state;                          // read, malformed, none, unreadable
  ArchSet archs;
};

std::optional<std::pair<int, int>> parse_capability(const std::string& text) {
  int major = -1, minor = -1;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%d.%d%c", &major, &minor, &rest) != 2 || major < 0 || minor < 0) return std::nullopt;
  return std::pair{major, minor};
}

KernelImage recorded_image(const TraceFile& trace) {
  KernelImage out;
  out.device = parse_capability(trace.process().get("image.device"));
  const std::string object = trace.process().get("image.object");
  const size_t tab1 = object.find('\t');
  const size_t tab2 = tab1 == std::string::npos ? std::string::npos : object.find('\t', tab1 + 1);
  if (tab2 != std::string::npos) {
    out.object = object.substr(0, tab1);
    out.state = object.substr(tab1 + 1, tab2 - tab1 - 1);
    out.archs = parse_archs(std::string_view(object).substr(tab2 + 1));
  }
  return out;
}

// A kernel launch (not a copy, a memset or a graph) of the runtime or the driver that returned 209.
bool kernel_without_image(const LaunchView& l) {
  const bool cuda = l.library() == format::Library::kCudart || l.library() == format::Library::kCuda;
  return cuda && l.entry.status == kNoKernelImage && l.entry.kernel != format::kNoKernel && l.function != nullptr &&
         l.function->family == static_cast<uint16_t>(format::Family::kLaunch) && l.entry.bytes == 0;
}

// The first kernel launch that returned 209: the first failed launch, or a later one when an
// earlier failure of another kind came first.
std::optional<LaunchView> first_launch_without_image(const TraceFile& trace) {
  if (const std::optional<uint64_t> first = trace.first_failed_launch()) {
    std::optional<LaunchView> l = trace.launch_at(*first);
    if (l && kernel_without_image(*l)) return l;
  }
  std::optional<LaunchView> found;
  trace.for_each_launch([&](const LaunchView& l) {
    if (!found && kernel_without_image(l)) found = l;
  });
  return found;
}

// "SASS for sm_80 and PTX for compute_90", from the text form's two halves.
std::string described(const ArchSet& archs) {
  ArchSet sass = archs, ptx = archs;
  for (int i = 0; i < 4; ++i) {
    sass.ptx[i] = 0;
    ptx.sass[i] = 0;
  }
  char s[256], p[256];
  format_archs(sass, s, sizeof s);
  format_archs(ptx, p, sizeof p);
  if (s[0] == '\0' && p[0] == '\0') return "no SASS and no PTX";
  if (p[0] == '\0') return fmt::format("SASS for {} and no PTX", s);
  if (s[0] == '\0') return fmt::format("no SASS and PTX for {}", p);
  return fmt::format("SASS for {} and PTX for {}", s, p);
}

// PyTorch's CUDA wheels that carry SASS for a compute capability (the x86-64 release matrix:
// sm_90 from cu118, sm_100 and sm_120 from cu128; cu126 is the last with Maxwell and Pascal;
// none of the current ones carries Kepler).
struct Wheels {
  const char* tag;   // the index's name: download.pytorch.org/whl/<tag>; nullptr for none
  const char* note;
};
Wheels pytorch_wheels_for(int major, int minor) {
  if (major >= 10) return {"cu128", " (or later)"};
  if (major >= 8 || (major == 7 && minor >= 5)) return {"cu118", " (or later)"};
  if (major >= 5) return {"cu126", " (the cu128 wheels dropped Maxwell and Pascal)"};
  return {nullptr, ""};
}

bool is_torch(const std::string& object) {
  return object.find("libtorch") != std::string::npos || object.find("/torch/") != std::string::npos;
}

// "Install a build with sm_120, e.g. PyTorch's cu128 (or later) wheels (...), or build with it".
std::string build_advice(const KernelImage& image, int major, int minor) {
  std::string advice = fmt::format("Install a build with sm_{}{}", major, minor);
  const Wheels wheels = pytorch_wheels_for(major, minor);
  if ((is_torch(image.object) || image.object.empty()) && wheels.tag != nullptr) {
    advice += fmt::format(", e.g. PyTorch's {}{} wheels (`pip install torch --index-url "
                          "https://download.pytorch.org/whl/{}`)",
                          wheels.tag, wheels.note, wheels.tag);
  } else if (is_torch(image.object)) {
    advice += " (none of PyTorch's current wheels carries it: build PyTorch from source)";
  }
  advice += fmt::format(", or build with it: nvcc's `-gencode arch=compute_{0}{1},code=sm_{0}{1}` (PyTorch and its "
                        "extensions: `TORCH_CUDA_ARCH_LIST=\"{0}.{1}\"`). `cublasspy doctor --python` shows the "
                        "architectures PyTorch was built for.",
                        major, minor);
  return advice;
}

// The PTX of `archs` that a GPU of major.minor can compile: compute capabilities not above it.
ArchSet ptx_that_fits(const ArchSet& archs, int major, int minor) {
  ArchSet out;
  for (uint32_t a = 0; a <= static_cast<uint32_t>(major * 10 + minor) && a < 256; ++a) {
    if (archs.has(FatbinEntryKind::kPtx, a)) out.add(FatbinEntryKind::kPtx, a);
  }
  return out;
}

// What else gives 209 when the object has SASS for the GPU.
constexpr const char* kOtherCauses =
    "The build has code for this GPU, so the missing image is something else that gives 209: the kernel in "
    "another library than this one, built for another toolkit or GPU (an extension, a second copy of a CUDA "
    "library); arch-specific code (sm_90a, sm_100a) on another GPU of the family; PTX newer than the driver "
    "can compile (update the driver: compare `nvidia-smi`'s CUDA version with the toolkit's); "
    "`CUDA_FORCE_PTX_JIT=1` with code that carries no PTX; a damaged JIT cache (rerun with "
    "`CUDA_CACHE_DISABLE=1`).";

// When it runs only through PTX: why the driver's compilation may have failed.
constexpr const char* kPtxCauses =
    "The build has code for this GPU only as PTX, which the driver compiles when the kernel is loaded; 209 says "
    "it could not: PTX newer than the driver can compile (built by a newer CUDA toolkit than the driver "
    "supports: update the driver, compare `nvidia-smi`'s CUDA version with the toolkit's), or a damaged JIT "
    "cache (rerun with `CUDA_CACHE_DISABLE=1`). ";

}  // namespace

void rule_no_kernel_image(RuleContext& ctx) {
  for (const TraceFacts& f : ctx.traces()) {
    if (ctx.found_for(f, ids::kSetupFailureIds) != nullptr) continue;
    const std::optional<LaunchView> launch = first_launch_without_image(*f.trace);
    if (!launch) continue;
    const KernelImage image = recorded_image(*f.trace);
    const bool archs_known = !image.object.empty() && (image.state == "read" || image.state == "malformed") &&
                             !image.archs.empty();
    const std::string kernel = launch->kernel.empty() ? std::string("a kernel") : launch->kernel;
    const std::string object = image.object.empty() ? std::string() : base_name(image.object);

    Diagnosis d = finding(ids::kNoKernelImage, Severity::kError, f);
    d.launch = launch->ticket + 1;
    d.evidence = fmt::format("{} ({}, launch #{}) returned 209, no kernel image for the device "
                             "(cudaErrorNoKernelImageForDevice, CUDA_ERROR_NO_BINARY_FOR_GPU).",
                             kernel, launch->function_name(), launch->ticket + 1);
    const std::string cc = image.device ? fmt::format("{}.{}", image.device->first, image.device->second) : "";
    d.evidence += image.device ? fmt::format(" The device is of compute capability {}.", cc)
                               : " The device's compute capability was not recorded.";
    if (archs_known) {
      d.evidence += fmt::format(" The kernel's object {} carries {} (its fatbins{}).", image.object,
                                described(image.archs), image.state == "malformed" ? ", read up to a part that did not parse" : "");
      d.evidence += " SASS runs on a GPU of its major and an equal or higher minor; PTX is compiled by the driver "
                    "for its compute capability or any later one.";
    } else if (!image.object.empty()) {
      d.evidence += fmt::format(" The kernel's object {} {}.", image.object,
                                image.state == "none" ? "has no fatbin section (.nv_fatbin)" : "could not be read");
    }

    const ArchFit fit = archs_known && image.device ? archs_fit(image.archs, image.device->first, image.device->second)
                                                    : ArchFit::kNone;
    if (archs_known && image.device && fit == ArchFit::kNone) {
      d.summary = fmt::format("no kernel image for this GPU: compute capability {}, and {} carries only {}", cc,
                              object, described(image.archs));
      d.advice = build_advice(image, image.device->first, image.device->second);
    } else if (fit == ArchFit::kThroughPtx) {
      char ptx[256];
      format_archs(ptx_that_fits(image.archs, image.device->first, image.device->second), ptx, sizeof ptx);
      d.summary = fmt::format("no kernel image for this GPU: compute capability {}, and {} carries {}: for this GPU, "
                              "only PTX ({}) that the driver must compile",
                              cc, object, described(image.archs), ptx);
      d.advice = kPtxCauses + build_advice(image, image.device->first, image.device->second);
    } else if (fit == ArchFit::kSass) {
      d.summary = fmt::format("no kernel image for {} although {} carries code for this GPU (compute capability {})",
                              kernel, object, cc);
      d.advice = kOtherCauses;
    } else {
      d.summary = image.device ? fmt::format("no kernel image for this GPU (compute capability {}) for {}", cc, kernel)
                               : fmt::format("no kernel image for this GPU for {}", kernel);
      d.advice = image.device ? build_advice(image, image.device->first, image.device->second)
                              : "Compare `nvidia-smi --query-gpu=compute_cap --format=csv` with the architectures the "
                                "build has (`cuobjdump --list-elf --list-ptx LIBRARY`; PyTorch: "
                                "`torch.cuda.get_arch_list()`), and install a build for this GPU.";
    }
    ctx.add(std::move(d));
  }
}

}  // namespace cublasspy::diagnoses
