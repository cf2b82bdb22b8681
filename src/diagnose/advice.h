// Advice shared by the trace rules and `cublasspy doctor`, so a finding reads the same whether
// a trace or the machine showed it. Each text is what a user can do, in the order to try it.
#pragma once

#include <string>

namespace cublasspy::diagnoses {

inline constexpr const char* kInstallDriverAdvice =
    "Install the NVIDIA driver for this GPU and reboot, then check that `nvidia-smi` lists the "
    "GPU and that `ldconfig -p | grep libcuda.so.1` finds the driver library. In a container, "
    "start it with the NVIDIA Container Toolkit (`docker run --gpus all ...`, or a GPU resource "
    "in Kubernetes): it mounts libcuda.so.1 and /dev/nvidia* into the container. If the driver is "
    "installed but not found, add its directory (e.g. /usr/lib/x86_64-linux-gnu) to the loader's "
    "path. `cublasspy doctor` runs these checks.";

inline constexpr const char* kStubAdvice =
    "Take the CUDA toolkit's `lib64/stubs` directory out of LD_LIBRARY_PATH (and out of "
    "/etc/ld.so.conf.d): its libcuda.so is a link-time stub that fails every call. The real "
    "libcuda.so.1 comes with the NVIDIA driver; if the driver is not installed, install it and "
    "check that `nvidia-smi` lists the GPU.";

inline constexpr const char* kMultiGpuAdvice =
    "This \"out of memory\" is not GPU memory: CUDA failed while enumerating the GPUs, which "
    "happens on multi-GPU hosts when the enumeration order and the PCI layout disagree or one GPU "
    "fails to initialize. Set CUDA_DEVICE_ORDER=PCI_BUS_ID (CUDA then numbers GPUs in PCI bus "
    "order, like nvidia-smi), PYTORCH_NVML_BASED_CUDA_CHECK=1 (torch.cuda.is_available() asks "
    "NVML instead of initializing CUDA), and list the GPUs explicitly, e.g. "
    "CUDA_VISIBLE_DEVICES=0,1,2,3 (indices from `nvidia-smi -L`). Then read the kernel log: "
    "`sudo dmesg | grep -i NVRM` shows Xid errors and GPUs that failed to initialize (a PCIe slot "
    "or power problem). In a container pass the same variables with `-e`.";

inline constexpr const char* kUnknownAdvice =
    "Check the basics in order: `nvidia-smi` must list the GPU; the driver must support the "
    "program's CUDA version; no stale process may hold the GPU (`nvidia-smi`, `sudo fuser -v "
    "/dev/nvidia*`); this user must be able to open /dev/nvidia* (`ls -l /dev/nvidia*`, join the "
    "video/render group); after a kernel update the nvidia module may need rebuilding (DKMS) or be "
    "blocked by Secure Boot, and after a suspend `sudo modprobe -r nvidia_uvm && sudo modprobe "
    "nvidia_uvm` often clears it; `sudo dmesg | grep -i NVRM` shows what the kernel driver saw. "
    "In a container, start it with `--gpus all`. `cublasspy doctor` checks most of this; a reboot "
    "is the last resort.";

inline constexpr const char* kMismatchAdvice =
    "The driver's user-space library (libcuda.so.1) and the loaded kernel module are different "
    "versions, usually after a driver upgrade without a reboot: reboot (or unload and reload the "
    "nvidia kernel modules). In a container, libcuda must come from the host through the NVIDIA "
    "Container Toolkit; do not install a driver inside the image.";

inline constexpr const char* kUnavailableAdvice =
    "The GPU is busy or reserved: it is in exclusive-process compute mode and another process "
    "holds it, or it is being reset. `nvidia-smi` lists the processes and `nvidia-smi -q -d "
    "COMPUTE` the compute mode; wait for or stop the other process, or use another GPU.";

inline constexpr const char* kMixedLibrariesAdvice =
    "A process must use one CUDA: libcudart, libcublas and libcublasLt of one CUDA version, from "
    "one directory. Find who brings the other copy: `ldd` on your framework's CUDA libraries, pip's "
    "nvidia-*-cu1x wheels, conda's cudatoolkit, /usr/local/cuda-*. Keep one source: everything "
    "from conda/pip, or everything from the system CUDA; rebuilding the environment is often the "
    "quickest way. Remove stale CUDA directories from LD_LIBRARY_PATH (~/.bashrc), or test with a "
    "clean one: `LD_LIBRARY_PATH= python train.py`. `cublasspy doctor` lists the copies on the "
    "library search path.";

inline constexpr const char* kVisibleDevicesAdvice =
    "List the GPUs with `nvidia-smi -L` and set CUDA_VISIBLE_DEVICES to indices below "
    "that count, or to their UUIDs (GPU-..., or MIG-... for MIG instances), comma "
    "separated without spaces; unset it to see every GPU. Indices count the GPUs visible "
    "to this process (inside a container: the ones passed to it) in CUDA's order: set "
    "CUDA_DEVICE_ORDER=PCI_BUS_ID so they match nvidia-smi's numbering. Inside a job "
    "scheduler (Slurm, Kubernetes) leave the variable the scheduler set alone.";

inline constexpr const char* kNoDeviceAdvice =
    "`nvidia-smi -L` should list the GPU. In a container, start it with `--gpus all` "
    "(or NVIDIA_VISIBLE_DEVICES=all with the NVIDIA runtime) so the GPU and "
    "/dev/nvidia* are passed in. Check that /dev/nvidiactl and /dev/nvidia0 exist and "
    "that this user can read and write them (`ls -l /dev/nvidia*`; join the video or "
    "render group, then log in again). On a GPU in MIG mode, CUDA sees only MIG "
    "instances: create one and select it by its MIG- UUID. `cublasspy doctor` checks "
    "the device nodes, the container and MIG.";

// Device enumeration (cudaGetDeviceCount, cuInit) failed with `status`.
inline const char* advice_for_enumeration(int status) {
  switch (status) {
    case 2: return kMultiGpuAdvice;
    case 46: return kUnavailableAdvice;
    case 803: return kMismatchAdvice;
    default: return kUnknownAdvice;
  }
}

inline std::string driver_too_old_advice(const std::string& runtime_version) {
  return "Upgrade the NVIDIA driver to one that supports CUDA " + runtime_version +
         " (`nvidia-smi` shows the highest CUDA version the driver supports; it must be at least " +
         runtime_version + "), or install the build of your framework made for the CUDA version your "
         "driver supports (for PyTorch: the wheel for that CUDA, e.g. `pip install torch "
         "--index-url https://download.pytorch.org/whl/cu<version>`). Compare `nvidia-smi` with "
         "`python -c \"import torch; print(torch.version.cuda)\"`.";
}

}  // namespace cublasspy::diagnoses
