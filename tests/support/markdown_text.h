// What the tests that hold a docs/ page to the code read of its Markdown: a file's text, a table
// row's cells, a cell's `code span`. Header-only: such a test needs nothing else.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cublasspy::markdown {

// The whole file, "" when it cannot be read.
inline std::string read_file(const char* path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

inline std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The cells of "| a | b \| c |" (an escaped bar stays in its cell).
inline std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(trim(cell));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// The first `backticked` word of a cell or heading, "" if none.
inline std::string code_span(const std::string& s) {
  const size_t open = s.find('`');
  if (open == std::string::npos) return "";
  const size_t close = s.find('`', open + 1);
  return close == std::string::npos ? "" : s.substr(open + 1, close - open - 1);
}

// Every `backticked` word of a text, in order.
inline std::vector<std::string> code_spans(const std::string& s) {
  std::vector<std::string> out;
  for (size_t open = s.find('`'); open != std::string::npos; open = s.find('`', open + 1)) {
    const size_t close = s.find('`', open + 1);
    if (close == std::string::npos) break;
    out.push_back(s.substr(open + 1, close - open - 1));
    open = close;
  }
  return out;
}

}  // namespace cublasspy::markdown
