#include "bundle/bundle_contents.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "bundle/doctor_here.h"
#include "bundle/manifest.h"
#include "bundle/operand_dumps.h"
#include "bundle/redaction.h"
#include "bundle/reproducers.h"
#include "report/report_markdown.h"

namespace cublasspy::tools::bundle {
namespace {

using json = nlohmann::ordered_json;

// A failure storm fails thousands of GEMMs alike: the first ones carry the report.
constexpr size_t kReproducersPerTrace = 16;

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

uint64_t size_now(const std::string& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

// Each trace's name in the archive: its file name, numbered when two traces share one (ranks
// writing into directories of their own).
std::vector<std::string> trace_members(const std::vector<TraceFile>& traces) {
  std::vector<std::string> out;
  std::set<std::string> taken;
  for (size_t i = 0; i < traces.size(); ++i) {
    std::string name = file_name(traces[i].path());
    if (!taken.insert(name).second) {
      name = fmt::format("{}-{}", i + 1, name);
      taken.insert(name);
    }
    out.push_back("traces/" + name);
  }
  return out;
}

Member text_member(std::string name, std::string what, std::string text) {
  Member m{std::move(name), std::move(what), std::move(text), "", 0};
  m.bytes = m.text.size();
  return m;
}

class Collector {
 public:
  Collector(const OpenedTraces& opened, const BundleOptions& options, const Redactor& redactor)
      : opened_(opened), options_(options), redactor_(redactor), names_(trace_members(opened.traces)) {}

  BundleContents collect() {
    json report = build_report(opened_.pointers(), ReportOptions{});
    for (const std::string& e : opened_.errors) report["unreadable"].push_back(e);
    redactor_.json(report);
    traces_and_dumps();
    reproducers();
    doctor();
    contents_.members = std::move(generated_);
    contents_.members.insert(contents_.members.end(), files_.begin(), files_.end());
    std::string markdown = render_markdown(report) + bundle_section(reproducers_, contents_.left_out, options_.max_dump_bytes);
    std::vector<Member> head;
    head.push_back(text_member("report.md", "the report as Markdown, to paste into a GitHub issue", redactor_.text(markdown)));
    head.push_back(text_member("report.json", "the report as `cublasspy report --json` prints it",
                               report.dump(2, ' ', false, json::error_handler_t::replace) + "\n"));
    contents_.members.insert(contents_.members.begin(), head.begin(), head.end());
    const std::string manifest = manifest_text(contents_, options_.max_dump_bytes, dump_bytes_);
    contents_.members.insert(contents_.members.begin(),
                             text_member("MANIFEST", "this list", redactor_.text(manifest)));
    return std::move(contents_);
  }

 private:
  // A file copied as it is, unless it holds a credential of this environment.
  void copy(const std::string& name, const std::string& what, const std::string& source, uint64_t bytes) {
    if (redactor_.file_contains_secret(source)) {
      contents_.left_out.push_back({name, "it holds the value of a credential variable (*TOKEN*, *KEY*, *SECRET*, "
                                          "*PASSWORD*, ...) of the environment the bundle was made in"});
      return;
    }
    files_.push_back({name, what, "", source, bytes});
  }

  void traces_and_dumps() {
    std::vector<std::string> paths;
    for (const TraceFile& t : opened_.traces) paths.push_back(t.path());
    for (size_t i = 0; i < opened_.traces.size(); ++i) {
      const TraceFile& t = opened_.traces[i];
      copy(names_[i], fmt::format("the trace of process {} ({})", t.process().get("pid"), t.path()), t.path(), size_now(t.path()));
    }
    DumpSelection dumps = select_dumps(paths, options_.max_dump_bytes);
    for (const CallDumps& call : dumps.kept) {
      const std::string folder = member_folder(call.trace_path);
      for (const DumpFile& f : call.files) {
        copy(folder + f.name, fmt::format("operand dump of call #{}", call.seq), f.path, f.bytes);
      }
    }
    dump_bytes_ = dumps.kept_bytes;
    for (const CallDumps& call : dumps.left_out) {
      contents_.left_out.push_back(
          {fmt::format("the operand dumps of call #{} of {} ({} files, {} bytes)", call.seq, file_name(call.trace_path),
                       call.files.size(), call.bytes()),
           fmt::format("over the cap of {} bytes for dumps (--max-dump-bytes); the trace's {} remain next to it",
                       options_.max_dump_bytes, call.files.size() == 1 ? "file" : "files")});
    }
  }

  // "traces/" (or the numbered name's) folder: the dumps lie next to their trace, named after it.
  std::string member_folder(const std::string& trace_path) const {
    for (size_t i = 0; i < opened_.traces.size(); ++i) {
      if (opened_.traces[i].path() == trace_path) return names_[i].substr(0, names_[i].rfind('/') + 1);
    }
    return "traces/";
  }

  void reproducers() {
    for (size_t i = 0; i < opened_.traces.size(); ++i) {
      size_t more = 0;
      std::vector<Reproducer> made = reproducers_of(opened_.traces[i], names_[i], kReproducersPerTrace, more);
      if (more != 0) {
        contents_.left_out.push_back(
            {fmt::format("reproducers of {} more failing GEMMs of {}", more, names_[i]),
             fmt::format("only the first {} of a trace are bundled; `cublasspy replay TRACE --call SEQ --emit-cpp FILE "
                         "--emit-python FILE --no-run` writes any other",
                         kReproducersPerTrace)});
      }
      for (Reproducer& r : made) {
        if (r.refusal.empty()) {
          const std::string what = fmt::format("reproducer of call #{} {} of {}", r.seq, r.function, names_[i]);
          generated_.push_back(text_member("reproducers/" + r.cpp_name, "C++ " + what + "; build: " + r.build_command,
                                           redactor_.text(r.cpp)));
          generated_.push_back(text_member("reproducers/" + r.python_name, "PyTorch " + what, redactor_.text(r.python)));
        } else {
          contents_.left_out.push_back({fmt::format("a reproducer of call #{} {} of {}", r.seq, r.function, names_[i]),
                                        r.refusal});
        }
        reproducers_.push_back(std::move(r));
      }
    }
  }

  void doctor() {
    std::string why_not;
    if (!options_.doctor) {
      contents_.left_out.push_back({"doctor.json", "--no-doctor"});
    } else if (!made_here(opened_.pointers(), why_not)) {
      contents_.left_out.push_back({"doctor.json", "the traces were made on another machine: " + why_not});
    } else {
      json doc = doctor_document();
      redactor_.json(doc);
      generated_.push_back(text_member("doctor.json", "`cublasspy doctor --json` on the machine that made the traces",
                                       doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n"));
    }
  }

  const OpenedTraces& opened_;
  const BundleOptions& options_;
  const Redactor& redactor_;
  std::vector<std::string> names_;
  std::vector<Member> generated_, files_;
  std::vector<Reproducer> reproducers_;
  uint64_t dump_bytes_ = 0;
  BundleContents contents_;
};

}  // namespace

BundleContents collect_contents(const OpenedTraces& opened, const BundleOptions& options, const Redactor& redactor) {
  Collector c(opened, options, redactor);
  return c.collect();
}

}  // namespace cublasspy::tools::bundle
