// RFC 4180 CSV for the msprof_csv tests: quoted fields (msprof's shapes hold commas), "" for a quote.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace arun::test {

inline std::vector<std::vector<std::string>> read_csv(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n') {
      row.push_back(std::move(cell));
      cell.clear();
      rows.push_back(std::move(row));
      row.clear();
    } else {
      cell += c;
    }
  }
  if (!cell.empty() || !row.empty()) {
    row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}

// The raw text of the line that starts with `prefix` (to check how a field is quoted), or "".
inline std::string csv_line_with(const std::filesystem::path& file, const std::string& needle) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.find(needle) != std::string::npos) return line;
  return {};
}

// The CSV files of the msprof session under `out` (PROF_*/mindstudio_profiler_output/
// <view>_<timestamp>.csv) by view; empty when there is none.
inline std::map<std::string, std::filesystem::path> msprof_views(const std::filesystem::path& out) {
  std::map<std::string, std::filesystem::path> views;
  for (const auto& session : std::filesystem::directory_iterator(out)) {
    if (session.path().filename().string().rfind("PROF_", 0) != 0) continue;
    for (const auto& e : std::filesystem::directory_iterator(session.path() / "mindstudio_profiler_output")) {
      const std::string name = e.path().filename().string();
      views[name.substr(0, name.rfind('_'))] = e.path();
    }
  }
  return views;
}

}  // namespace arun::test
