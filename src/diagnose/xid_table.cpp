#include "diagnose/xid_table.h"

namespace cublasspy::diagnoses {
namespace {

constexpr XidInfo kXids[] = {
    {13, XidCause::kProgram, "graphics engine exception",
     "usually the program's own fault (an out-of-range index, an illegal instruction): the "
     "asynchronous-error finding names the launch; seen again with correct programs, test the GPU"},
    {31, XidCause::kProgram, "GPU memory page fault",
     "usually the program's illegal memory access; rarely the driver or the hardware"},
    {43, XidCause::kProgram, "GPU stopped processing (a channel was stopped after a fault)",
     "usually follows the program's own fault: the GPU itself goes on working"},
    {48, XidCause::kHardware, "double-bit ECC error (uncorrectable)",
     "reset the GPU (`nvidia-smi -r`) or reboot; if it recurs, the memory is failing: report the "
     "GPU to the administrator for replacement"},
    {63, XidCause::kHardware, "ECC page retirement or row remapping recorded",
     "a reset (or reboot) applies the pending retirement or remapping; watch whether it recurs"},
    {64, XidCause::kHardware, "ECC page retirement or row remapping failed",
     "the memory is failing: take the GPU out of service and report it to the administrator"},
    {74, XidCause::kHardware, "NVLink error",
     "check the NVLink/NVSwitch fabric (`nvidia-smi nvlink -s`, Fabric Manager's log); reset the GPUs "
     "or reboot the node, and report it if it recurs"},
    {79, XidCause::kHardware, "the GPU has fallen off the bus",
     "the GPU is gone from PCIe: nothing on it can work until the node is rebooted (often a cold "
     "power cycle); check power, cooling and the PCIe slot or riser, and report the node"},
    {92, XidCause::kHardware, "high single-bit ECC error rate",
     "the memory corrects errors at a high rate: schedule the GPU for inspection"},
    {94, XidCause::kHardware, "contained ECC error (uncorrectable, confined to the faulting program)",
     "only programs that used the bad memory are stopped: reset the GPU to remap the row, then rerun"},
    {95, XidCause::kHardware, "uncontained ECC error (uncorrectable)",
     "every program on the GPU is affected: reset the GPU (`nvidia-smi -r`) or reboot the node; "
     "report it if it recurs"},
    {119, XidCause::kHardware, "GSP RPC timeout (the GPU's system processor did not answer)",
     "reset the GPU or reboot the node; if it recurs, update the driver and report it"},
    {120, XidCause::kHardware, "GSP error (the GPU's system processor failed)",
     "reset the GPU or reboot the node; if it recurs, update the driver and report it"},
};

}  // namespace

const XidInfo* xid_info(uint64_t xid) {
  for (const XidInfo& info : kXids) {
    if (info.xid == xid) return &info;
  }
  return nullptr;
}

}  // namespace cublasspy::diagnoses
