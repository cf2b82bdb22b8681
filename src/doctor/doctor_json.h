// The doctor's report as one JSON document: {"checks": [{name, status, detail}], "probe": {...},
// "diagnoses": [...]}, the diagnoses in the report's shape (the caller's diagnosis_to_json,
// so `doctor --json` and `report --json` print findings identically).
#pragma once

#include <functional>

#include <nlohmann/json.hpp>

#include "doctor/doctor.h"

namespace cublasspy::doctor {

using DiagnosisToJson = std::function<nlohmann::ordered_json(const Diagnosis&)>;
nlohmann::ordered_json doctor_json(const DoctorReport& report, const DiagnosisToJson& diagnosis_to_json);

}  // namespace cublasspy::doctor
