// docs/DIAGNOSES.md and docs/CONTRACT.md against src/common/diagnosis_ids.h: every id of the
// registry is explained where its kind says, and promised in the contract's table; every id the
// pages name is the registry's; the pages' list of set-up failures is the registry's; and the
// sources name ids through the registry, never by a literal.
//
// Where DIAGNOSES.md ("## The ids") explains an id, by the registry's IdKind:
//   kRule     a heading "### id (severity)"
//   kMachine  a heading "#### id (severity)" under "### Findings from the machine evidence"
//   kCheck    a `code span` in the text under "### The argument checks ..."
//   kScan     a heading "### id, id, id (...)" naming it, and a bullet "- **id**" under it
// CONTRACT.md ("## Diagnoses"): one row per id in the table | id | severity | when | doctor |.
// Both pages list the set-up failures in a sentence "... could not work at all (`id`, ...)".
#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/diagnosis_ids.h"
#include "support/markdown_text.h"

namespace {

namespace ids = cublasspy::ids;
namespace md = cublasspy::markdown;

bool id_like(const std::string& s) {
  static const std::regex pattern("[a-z0-9]+(-[a-z0-9]+)+");
  return std::regex_match(s, pattern);
}

const ids::IdInfo* registry_entry(const std::string& id) { return ids::find_id(id); }

// ---- docs/DIAGNOSES.md ------------------------------------------------------------------------

struct Heading {
  int line = 0;
  int level = 0;              // 3 or 4
  std::string text;           // after the #s
  std::string parent;         // a level-4 heading's level-3 heading
  std::string body;           // the lines up to the next heading
  std::vector<std::string> ids;  // the ids it names: "a, b (c)" -> {a, b}; none when not ids
};

// "no-driver (error)" -> {no-driver}; "non-finite-input, half-overflow (...)" -> both;
// "Findings from the machine evidence" -> {}.
std::vector<std::string> heading_ids(const std::string& text) {
  std::string names = text.substr(0, text.find(" ("));
  std::vector<std::string> out;
  std::istringstream parts(names);
  for (std::string part; std::getline(parts, part, ',');) {
    part = md::trim(part);
    if (!id_like(part)) return {};
    out.push_back(part);
  }
  return out;
}

// The headings of "## The ids", up to the next level-2 heading.
const std::vector<Heading>& id_headings() {
  static const std::vector<Heading> parsed = [] {
    std::vector<Heading> out;
    const std::string text = md::read_file(CUBLASSPY_DIAGNOSES_DOC);
    EXPECT_FALSE(text.empty()) << "cannot read " << CUBLASSPY_DIAGNOSES_DOC;
    std::istringstream lines(text);
    bool inside = false;
    std::string parent;
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      if (line.rfind("## ", 0) == 0) {
        inside = line == "## The ids";
        continue;
      }
      if (!inside) continue;
      const int level = line.rfind("#### ", 0) == 0 ? 4 : line.rfind("### ", 0) == 0 ? 3 : 0;
      if (level == 0) {
        if (!out.empty()) out.back().body += line + "\n";
        continue;
      }
      Heading h;
      h.line = n;
      h.level = level;
      h.text = line.substr(static_cast<size_t>(level) + 1);
      if (level == 3) parent = h.text;
      h.parent = level == 4 ? parent : "";
      h.ids = heading_ids(h.text);
      out.push_back(h);
    }
    EXPECT_FALSE(out.empty()) << CUBLASSPY_DIAGNOSES_DOC << " has no \"## The ids\" section with headings";
    return out;
  }();
  return parsed;
}

std::string where(const Heading& h) {
  return std::string(CUBLASSPY_DIAGNOSES_DOC) + ":" + std::to_string(h.line) + " (" + h.text + ")";
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
constexpr const char* kMachineSection = "Findings from the machine evidence";
constexpr const char* kChecksSection = "The argument checks";

// The kind an id has where this heading names it (the table at the top of this file).
std::optional<ids::IdKind> kind_named_by(const Heading& h) {
  if (h.level == 3) return h.ids.size() == 1 ? ids::IdKind::kRule : ids::IdKind::kScan;
  if (h.parent == kMachineSection) return ids::IdKind::kMachine;
  if (starts_with(h.parent, kChecksSection)) return ids::IdKind::kCheck;
  return std::nullopt;
}

// The check ids: the code spans of the argument checks' own text (before any "####").
std::vector<std::string> check_section_spans() {
  for (const Heading& h : id_headings()) {
    if (h.level == 3 && starts_with(h.text, kChecksSection)) return md::code_spans(h.body);
  }
  ADD_FAILURE() << CUBLASSPY_DIAGNOSES_DOC << ": no \"### " << kChecksSection << "\" heading";
  return {};
}

// Where DIAGNOSES.md explains `info`, "" when it does not (in the place its kind says).
std::string documented_at(const ids::IdInfo& info) {
  const std::string id = info.id;
  switch (info.kind) {
    case ids::IdKind::kCheck: {
      const std::vector<std::string> spans = check_section_spans();
      return std::count(spans.begin(), spans.end(), id) > 0 ? std::string("the argument checks' list") : "";
    }
    case ids::IdKind::kScan:
      for (const Heading& h : id_headings()) {
        if (h.level == 3 && h.ids.size() > 1 && std::count(h.ids.begin(), h.ids.end(), id) > 0 &&
            h.body.find("- **" + id + "**") != std::string::npos) {
          return where(h);
        }
      }
      return "";
    case ids::IdKind::kRule:
    case ids::IdKind::kMachine:
      for (const Heading& h : id_headings()) {
        if (h.ids == std::vector<std::string>{id} && kind_named_by(h) == info.kind) return where(h);
      }
      return "";
  }
  return "";
}

const char* kind_name(ids::IdKind kind) {
  switch (kind) {
    case ids::IdKind::kRule: return "a rule's (\"### id (severity)\")";
    case ids::IdKind::kMachine: return "the machine evidence's (\"#### id\" under \"### Findings from the machine evidence\")";
    case ids::IdKind::kCheck: return "a check's (a `code span` under \"### The argument checks\")";
    case ids::IdKind::kScan: return "a scan's (in the scans' \"### a, b, c\" heading, with a \"- **id**\" bullet)";
  }
  return "?";
}

// The ids a page lists in its sentence "... could not work at all (`a`, `b`, ...)".
std::set<std::string> setup_failures_listed(const char* path) {
  const std::string text = md::read_file(path);
  // The sentence may break lines anywhere: read it with the line breaks as spaces.
  std::string flat = text;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  const std::string opening = "could not work at all (";
  const size_t at = flat.find(opening);
  if (at == std::string::npos) {
    ADD_FAILURE() << path << ": no sentence \"... " << opening << "`id`, ...)\" listing the set-up failures";
    return {};
  }
  const size_t begin = at + opening.size();
  const size_t end = flat.find(')', begin);
  std::set<std::string> out;
  for (const std::string& span : md::code_spans(flat.substr(begin, end - begin))) out.insert(span);
  return out;
}

// ---- docs/CONTRACT.md -------------------------------------------------------------------------

struct ContractRow {
  int line;
  std::string id;
};

// The rows of the table | id | severity | when | doctor | under "## Diagnoses".
std::vector<ContractRow> contract_rows() {
  std::vector<ContractRow> out;
  std::istringstream lines(md::read_file(CUBLASSPY_CONTRACT_DOC));
  bool inside = false, in_table = false;
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    if (starts_with(line, "## ")) {
      inside = line == "## Diagnoses";
      continue;
    }
    if (!inside) continue;
    if (!starts_with(line, "|")) {
      in_table = false;
      continue;
    }
    const std::vector<std::string> cells = md::cells_of(line);
    if (cells == std::vector<std::string>{"id", "severity", "when", "doctor"}) {
      in_table = true;
      continue;
    }
    if (!in_table || starts_with(cells.empty() ? "" : cells[0], "---")) continue;
    out.push_back({n, md::code_span(cells[0])});
  }
  EXPECT_FALSE(out.empty()) << CUBLASSPY_CONTRACT_DOC << ": no | id | severity | when | doctor | table under \"## Diagnoses\"";
  return out;
}

// ---- The checks -------------------------------------------------------------------------------

TEST(DiagnosisIds, TheRegistryHoldsEachIdOnceWithItsMeaning) {
  std::set<std::string> seen;
  for (const ids::IdInfo& info : ids::kIds) {
    EXPECT_TRUE(id_like(info.id)) << "\"" << info.id << "\" is not a lower-case, hyphenated id";
    EXPECT_TRUE(seen.insert(info.id).second) << info.id << " is in the registry twice";
    EXPECT_GT(std::string(info.meaning).size(), 10u) << info.id << " has no meaning in the registry";
  }
}

// A constant the rules could use but the table lacks would be an id no page has to explain.
TEST(DiagnosisIds, EveryNamedConstantIsInTheTable) {
  const std::string header = md::read_file(CUBLASSPY_DIAGNOSIS_IDS_HEADER);
  ASSERT_FALSE(header.empty()) << "cannot read " << CUBLASSPY_DIAGNOSIS_IDS_HEADER;
  static const std::regex constant(R"re(inline constexpr const char\* (k\w+) = "([^"]*)";)re");
  int constants = 0;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), constant); it != std::sregex_iterator(); ++it) {
    ++constants;
    EXPECT_NE(registry_entry((*it)[2]), nullptr) << "ids::" << (*it)[1] << " (\"" << (*it)[2] << "\") is not in kIds";
  }
  EXPECT_EQ(constants, static_cast<int>(std::size(ids::kIds))) << "kIds and the named constants differ in number";
}

TEST(DiagnosisIds, EveryIdIsExplainedWhereItsKindSays) {
  for (const ids::IdInfo& info : ids::kIds) {
    EXPECT_NE(documented_at(info), "") << CUBLASSPY_DIAGNOSES_DOC << " does not explain " << info.id << " as "
                                       << kind_name(info.kind) << " under \"## The ids\"";
  }
}

TEST(DiagnosisIds, EveryIdTheExplanationsNameIsTheRegistrysOfThatKind) {
  std::map<std::string, std::string> headed;  // id -> the heading that names it
  for (const Heading& h : id_headings()) {
    for (const std::string& id : h.ids) {
      const ids::IdInfo* info = registry_entry(id);
      if (info == nullptr) {
        ADD_FAILURE() << where(h) << ": " << id << " is not an id of src/common/diagnosis_ids.h";
        continue;
      }
      const std::optional<ids::IdKind> here = kind_named_by(h);
      EXPECT_TRUE(here == info->kind) << where(h) << ": " << id << " stands where "
                                      << (here ? kind_name(*here) : "no kind of") << " ids stand, but the registry says it is "
                                      << kind_name(info->kind);
      const auto [it, fresh] = headed.emplace(id, where(h));
      EXPECT_TRUE(fresh) << where(h) << ": " << id << " has a heading already, at " << it->second;
    }
  }
  for (const std::string& span : check_section_spans()) {
    if (id_like(span)) {
      EXPECT_NE(registry_entry(span), nullptr) << CUBLASSPY_DIAGNOSES_DOC << ": the argument checks name `" << span
                                               << "`, which is not an id of src/common/diagnosis_ids.h";
    }
  }
}

TEST(DiagnosisIds, TheContractPromisesEveryIdAndNoOther) {
  std::map<std::string, int> rows;
  for (const ContractRow& row : contract_rows()) {
    const std::string at = std::string(CUBLASSPY_CONTRACT_DOC) + ":" + std::to_string(row.line);
    EXPECT_NE(registry_entry(row.id), nullptr) << at << ": `" << row.id << "` is not an id of src/common/diagnosis_ids.h";
    EXPECT_TRUE(rows.emplace(row.id, row.line).second) << at << ": `" << row.id << "` has a row already";
  }
  for (const ids::IdInfo& info : ids::kIds) {
    EXPECT_EQ(rows.count(info.id), 1u) << CUBLASSPY_CONTRACT_DOC << ": the \"## Diagnoses\" table has no row for `"
                                       << info.id << "`";
  }
}

TEST(DiagnosisIds, BothPagesListTheRegistrysSetUpFailures) {
  const std::set<std::string> registry(ids::kSetupFailureIds.begin(), ids::kSetupFailureIds.end());
  for (const char* page : {CUBLASSPY_DIAGNOSES_DOC, CUBLASSPY_CONTRACT_DOC}) {
    const std::set<std::string> listed = setup_failures_listed(page);
    for (const std::string& id : registry) {
      EXPECT_EQ(listed.count(id), 1u) << page << ": the set-up failures' list lacks `" << id << "`";
    }
    for (const std::string& id : listed) {
      EXPECT_EQ(registry.count(id), 1u) << page << ": the set-up failures' list names `" << id
                                        << "`, which the registry does not mark as a set-up failure";
    }
  }
}

// Rules, the doctor and the report name an id by the registry's constant: a literal there
// would be an id the registry, and so the pages, could miss.
TEST(DiagnosisIds, NoSourceNamesAnIdByALiteral) {
  namespace fs = std::filesystem;
  const fs::path registry = fs::path(CUBLASSPY_DIAGNOSIS_IDS_HEADER);
  int files = 0;
  for (const char* root : {CUBLASSPY_SOURCE_DIR "/src", CUBLASSPY_SOURCE_DIR "/tools", CUBLASSPY_SOURCE_DIR "/interpose"}) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h") || fs::equivalent(e.path(), registry)) continue;
      ++files;
      std::istringstream lines(md::read_file(e.path().c_str()));
      int n = 0;
      for (std::string line; std::getline(lines, line);) {
        ++n;
        const std::string code = line.substr(0, line.find("//"));
        for (const ids::IdInfo& info : ids::kIds) {
          EXPECT_EQ(code.find("\"" + std::string(info.id) + "\""), std::string::npos)
              << e.path().string() << ":" << n << ": \"" << info.id << "\" as a literal; use ids:: of common/diagnosis_ids.h";
        }
      }
    }
  }
  EXPECT_GT(files, 50) << "the sources were not found under " << CUBLASSPY_SOURCE_DIR;
}

}  // namespace
