#include "doctor/doctor_json.h"

namespace cublasspy::doctor {

nlohmann::ordered_json doctor_json(const DoctorReport& r, const DiagnosisToJson& diagnosis_to_json) {
  using json = nlohmann::ordered_json;
  json doc;
  doc["checks"] = json::array();
  for (const CheckResult& c : r.checks) {
    doc["checks"].push_back({{"name", c.name}, {"status", check_status_name(c.status)}, {"detail", c.detail}});
  }
  doc["probe"] = json::parse(r.facts.probe.to_json(), nullptr, false);
  doc["probe"]["timed_out"] = r.facts.probe.timed_out;
  doc["probe"]["crashed"] = r.facts.probe.crashed;
  doc["diagnoses"] = json::array();
  for (const Diagnosis& d : r.diagnoses) doc["diagnoses"].push_back(diagnosis_to_json(d));
  return doc;
}

}  // namespace cublasspy::doctor
