// `cublasspy doctor --json` as a test program of its own: the doctor library run in a fresh
// process, so a test chooses the environment the driver probe sees (LD_LIBRARY_PATH set before
// the process starts, the stand-in's STANDIN_* faults, CUDA_VISIBLE_DEVICES), whether or not the
// tool's subcommand table lists `doctor` yet.
//
//   doctor_json [--probe-timeout SECONDS]    prints the doctor's JSON document; exit 0
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "doctor/doctor.h"
#include "doctor/doctor_json.h"
#include "report/report_model.h"

int main(int argc, char** argv) {
  int seconds = 20;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--probe-timeout") == 0) seconds = std::atoi(argv[i + 1]);
  }
  using namespace cublasspy;
  doctor::MachineView machine = doctor::this_machine();
  machine.probe_driver = [seconds] { return doctor::probe_driver_in_child(seconds); };
  doctor::DoctorReport report = doctor::run_doctor(machine);
  std::printf("%s\n", doctor::doctor_json(report, &tools::diagnosis_to_json).dump(2).c_str());
  return 0;
}
