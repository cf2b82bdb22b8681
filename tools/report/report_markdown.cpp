#include "report/report_markdown.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "report/report_text.h"

namespace cublasspy::tools {

using json = nlohmann::ordered_json;

namespace {

// Text inside a code span: a backtick in it lengthens the fence (CommonMark).
std::string code(const std::string& text) {
  std::string fence = "`";
  while (text.find(fence) != std::string::npos) fence += "`";
  const char* pad = !text.empty() && (text.front() == '`' || text.back() == '`') ? " " : "";
  return fence + pad + text + pad + fence;
}

// A block of preformatted text, fenced so nothing in it ends the block.
std::string code_block(const std::string& text) {
  std::string fence = "```";
  while (text.find(fence) != std::string::npos) fence += "`";
  return fence + "\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") + fence + "\n";
}

// A table cell: pipes escaped, lines joined.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "<br>";
    else out += c;
  }
  return out;
}

// The frameworks a process loaded, as its CUDA libraries show them: the trace records paths,
// not the framework's version.
std::vector<std::string> frameworks(const json& libraries) {
  struct Marker { const char* text; const char* name; };
  static constexpr Marker kMarkers[] = {{"libtorch_cuda", "PyTorch"}, {"/torch/lib/", "PyTorch"},
                                        {"libtensorflow", "TensorFlow"}, {"/jaxlib/", "JAX"},
                                        {"/jax_cuda", "JAX"}, {"/cupy", "CuPy"}};
  std::vector<std::string> out;
  for (const json& lib : libraries) {
    const std::string path = lib.value("path", "");
    for (const Marker& m : kMarkers) {
      if (path.find(m.text) == std::string::npos) continue;
      const std::string line = fmt::format("{} ({})", m.name, code(path.substr(0, path.rfind('/') + 1)));
      if (std::find(out.begin(), out.end(), line) == out.end()) out.push_back(line);
      break;
    }
  }
  return out;
}

// The versions of the CUDA libraries the shim read from the loaded files (process.other's
// "machine.library": family, path, version, origin), else their paths alone.
std::vector<std::string> library_lines(const json& trace) {
  std::vector<std::string> out;
  const json& process = trace["process"];
  if (process.contains("other") && process["other"].contains("machine.library")) {
    for (const json& entry : process["other"]["machine.library"]) {
      std::vector<std::string> fields;
      const std::string text = entry.get<std::string>();
      for (size_t at = 0;;) {
        size_t tab = text.find('\t', at);
        fields.push_back(text.substr(at, tab - at));
        if (tab == std::string::npos) break;
        at = tab + 1;
      }
      if (fields.size() < 3) continue;
      std::string line = fmt::format("{} {}", code(fields[1]), fields[2].empty() ? "version unknown" : fields[2]);
      if (fields.size() > 3 && !fields[3].empty() && fields[3] != "-" && fields[3] != "other") line += fmt::format(" ({})", fields[3]);
      out.push_back(line);
    }
  }
  if (out.empty()) {
    for (const json& lib : trace["environment"]["libraries"]) out.push_back(code(lib.value("path", "")));
  }
  return out;
}

void append_versions(std::string& out, const json& trace) {
  const json& env = trace["environment"];
  out += "| | |\n|---|---|\n";
  out += fmt::format("| CUDA driver | {} |\n", cell(cuda_version_text(env["cuda_driver_version"])));
  std::string runtime = cuda_version_text(env["cuda_runtime_version"]);
  if (env["cuda_runtime_version"].is_null() && env.value("cuda_runtime_linkage", json()) == "static") {
    runtime = "linked statically into the program (its calls are invisible to cublasspy)";
  }
  out += fmt::format("| CUDA runtime | {} |\n", cell(runtime));
  std::vector<std::string> libs = library_lines(trace);
  std::string lib_text;
  for (const std::string& l : libs) lib_text += (lib_text.empty() ? "" : "<br>") + cell(l);
  out += fmt::format("| CUDA libraries | {} |\n", libs.empty() ? "none loaded" : lib_text);
  std::vector<std::string> fw = frameworks(env["libraries"]);
  std::string fw_text;
  for (const std::string& f : fw) fw_text += (fw_text.empty() ? "" : "<br>") + cell(f);
  out += fmt::format("| Framework | {} |\n", fw.empty() ? "none seen (no framework's CUDA library loaded)" : fw_text);
  if (trace["writer_version"].is_string()) {
    out += fmt::format("| Traced by | cublasspy {} |\n", cell(trace["writer_version"].get<std::string>()));
  }
  const json& vars = env["vars"];
  if (!vars.empty()) {
    std::string text;
    for (auto it = vars.begin(); it != vars.end(); ++it) {
      text += (text.empty() ? "" : "<br>") + cell(code(it.key() + "=" + it.value().get<std::string>()));
    }
    out += fmt::format("| Environment | {} |\n", text);
  }
}

void append_trace(std::string& out, const json& trace) {
  const json& p = trace["process"];
  out += fmt::format("## {}\n\n", process_title(trace));
  std::vector<std::string> argv = p["cmdline"].get<std::vector<std::string>>();
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  if (!command.empty()) out += fmt::format("- command: {}\n", code(command));
  out += fmt::format("- ran: {} .. {}\n", p.value("start_time", "?"), ending_text(trace["end"]));
  const json& totals = trace["totals"];
  out += fmt::format("- calls: {} made, {} failed, {} in flight\n\n", totals["calls"].get<uint64_t>(),
                     totals["failed"].get<uint64_t>(), totals["in_flight"].get<uint64_t>());
  append_versions(out, trace);
  if (!trace["first_failure"].is_null()) {
    const json& call = trace["first_failure"];
    out += fmt::format("\n### The failing call: {}\n\n", code(call["function"].get<std::string>() + " -> " + call_outcome_text(call)));
    // "made at train.py:42 in forward <- ...": the Python line (CUBLASSPY_STACKS).
    if (call.contains("location")) out += fmt::format("**Python:** {}\n\n", code(call["location"].get<std::string>()));
    out += code_block(call_block_text(call, true));
  }
  if (!trace["first_async_error"].is_null()) {
    const json& a = trace["first_async_error"];
    out += fmt::format("\nAsynchronous error {} ({}) first seen after call #{}.\n", code(a.value("error_name", "?")),
                       a["error"].get<int>(), a["call"].get<uint64_t>());
  }
  const json& flights = trace["in_flight"];
  if (!flights.empty()) {
    out += "\n### In flight when the trace ended\n\n";
    std::string blocks;
    for (const json& call : flights) blocks += call_block_text(call, true);
    out += code_block(blocks);
  }
  out += "\n";
}

void append_findings(std::string& out, const json& diagnoses) {
  if (diagnoses.empty()) {
    out += "## Findings\n\nNone.\n";
    return;
  }
  std::vector<const json*> ordered;
  for (const json& d : diagnoses) ordered.push_back(&d);
  auto rank = [](const json* d) {
    const std::string sev = d->value("severity", "info");
    return sev == "error" ? 0 : sev == "warning" ? 1 : 2;
  };
  std::stable_sort(ordered.begin(), ordered.end(), [&](auto* a, auto* b) { return rank(a) < rank(b); });
  out += "## Findings\n\n";
  for (const json* d : ordered) {
    std::vector<std::string> where;
    if (!(*d)["pid"].is_null()) where.push_back(fmt::format("pid {}", (*d)["pid"].get<int64_t>()));
    if (!(*d)["call"].is_null()) where.push_back(fmt::format("call #{}", (*d)["call"].get<uint64_t>()));
    if (d->contains("launch") && !(*d)["launch"].is_null()) where.push_back(fmt::format("launch #{}", (*d)["launch"].get<uint64_t>()));
    std::string where_text;
    for (const std::string& w : where) where_text += (where_text.empty() ? " (" : ", ") + w;
    if (!where_text.empty()) where_text += ")";
    out += fmt::format("### {} {}: {}{}\n\n", d->value("severity", "info"), code(d->value("id", "?")),
                       d->value("summary", ""), where_text);
    if (d->contains("location")) out += fmt::format("- **Where:** {}\n", code((*d)["location"].get<std::string>()));
    if (d->contains("native_location")) out += fmt::format("- **Native:** {}\n", code((*d)["native_location"].get<std::string>()));
    for (const auto& [key, title] : {std::pair{"evidence", "Evidence"}, std::pair{"advice", "Advice"}}) {
      const std::string text = d->value(key, "");
      if (!text.empty()) out += fmt::format("- **{}:** {}\n", title, text);
    }
    out += "\n";
  }
}

}  // namespace

std::string render_markdown(const json& report) {
  std::string out = "# cublasspy report\n\n";
  for (const json& trace : report["traces"]) append_trace(out, trace);
  if (report.contains("unreadable")) {
    out += "## Traces that could not be read\n\n";
    for (const json& e : report["unreadable"]) out += "- " + code(e.get<std::string>()) + "\n";
    out += "\n";
  }
  append_findings(out, report["diagnoses"]);
  if (report.contains("notes")) {
    out += "\n## Notes\n\n";
    for (const json& note : report["notes"]) out += "- " + note.get<std::string>() + "\n";
  }
  return out;
}

}  // namespace cublasspy::tools
