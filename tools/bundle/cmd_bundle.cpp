// `cublasspy bundle -o FILE.tar.gz [--max-dump-bytes N] [--no-doctor] TRACE|DIR...`: one file for
// a bug report (docs/CONTRACT.md, "Bundle"): report.md, report.json, the traces, the failing
// GEMMs' reproducers, the operand dumps up to a cap, doctor.json when made on the machine that
// made the traces, and a MANIFEST. Exit 0 when every trace was read; 2 when one was missing,
// truncated or corrupt (the bundle holds the others and names it) or none could be read (no
// bundle); 1 when the archive could not be written (nothing is left at FILE).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bundle/bundle_contents.h"
#include "bundle/redaction.h"
#include "bundle/tar_gz_writer.h"
#include "cli/subcommand.h"
#include "report/trace_paths.h"

extern char** environ;

namespace cublasspy::tools {
namespace {

using namespace cublasspy::tools::bundle;

struct BundleArgs {
  std::string output;
  uint64_t max_dump_bytes = BundleOptions{}.max_dump_bytes;
  bool no_doctor = false;
  std::vector<std::string> traces;
};

// The archive's top folder: its file name without .tar.gz (.tgz).
std::string top_folder(const std::string& output) {
  std::string name = output.substr(output.rfind('/') + 1);
  for (const char* suffix : {".tar.gz", ".tgz", ".gz"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
      break;
    }
  }
  return name.empty() || name == "." || name == ".." ? "cublasspy-bundle" : name;
}

int run_bundle(const BundleArgs& a) {
  std::vector<std::string> errors;
  std::vector<std::string> paths = expand_directories(a.traces, errors);
  OpenedTraces opened = open_traces(paths);
  errors.insert(errors.end(), opened.errors.begin(), opened.errors.end());
  opened.errors = errors;
  for (const std::string& e : errors) std::fprintf(stderr, "cublasspy bundle: %s\n", e.c_str());
  if (opened.traces.empty()) {
    std::fprintf(stderr, "cublasspy bundle: no trace could be read; %s was not written\n", a.output.c_str());
    return kExitUsage;
  }

  BundleOptions options;
  options.max_dump_bytes = a.max_dump_bytes;
  options.doctor = !a.no_doctor;
  const Redactor redactor(environ);
  BundleContents contents = collect_contents(opened, options, redactor);

  TarGzWriter archive;
  const std::string top = top_folder(a.output) + "/";
  bool ok = archive.open(a.output);
  for (size_t i = 0; ok && i < contents.members.size(); ++i) {
    const Member& m = contents.members[i];
    ok = m.source.empty() ? archive.add(top + m.name, m.text) : archive.add_file(top + m.name, m.source, m.bytes);
  }
  ok = ok && archive.commit();
  if (!ok) {
    std::fprintf(stderr, "cublasspy bundle: %s; nothing was written\n", archive.error().c_str());
    return 1;
  }
  std::printf("cublasspy bundle: wrote %s (%zu members", a.output.c_str(), contents.members.size());
  if (!contents.left_out.empty()) std::printf(", %zu left out: see its MANIFEST", contents.left_out.size());
  std::printf(")\n");
  return errors.empty() ? kExitOk : kExitUsage;
}

}  // namespace

SubcommandAction attach_bundle(CLI::App& app) {
  auto a = std::make_shared<BundleArgs>();
  app.add_option("-o,--output", a->output, "The archive to write (a gzip'd tar, FILE.tar.gz)")
      ->required()
      ->type_name("FILE");
  app.add_option("--max-dump-bytes", a->max_dump_bytes,
                 "Operand dumps kept, in all (default 16MiB; suffixes K, M, G, with or without iB, count in 1024s); "
                 "the MANIFEST lists those left out")
      ->transform(CLI::AsSizeValue(false))
      ->type_name("BYTES");
  app.add_flag("--no-doctor", a->no_doctor, "Leave out `cublasspy doctor --json` even on the machine that made the traces");
  app.add_option("TRACE", a->traces, "Trace files (.cbt), one per process or rank, or directories of them")
      ->required();
  app.footer(
      "Writes report.md (the report in Markdown, to paste into an issue), report.json, the traces,\n"
      "C++ and PyTorch reproducers of each failing GEMM, the operand dumps up to the cap, doctor.json\n"
      "(only on the machine that made the traces) and a MANIFEST. Values of credential-like\n"
      "variables (*TOKEN*, *KEY*, *SECRET*, *PASSWORD*) and URL passwords are redacted.\n"
      "Exit status: 0 when every trace was read, 2 when one is missing, truncated or corrupt (the\n"
      "others are bundled) or none could be read, 1 when the archive could not be written.");
  return [a] { return run_bundle(*a); };
}

}  // namespace cublasspy::tools
