#include "experiment_diff.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <sortie/session/work_unit_args.hpp>
#include <vector>

#include "code_summary.hpp"
#include "printable.hpp"

namespace sortie::cli {
namespace {

// Texts longer than this many lines are compared whole: the line diff is quadratic.
constexpr size_t kMaxDiffLines = 4000;

// The parts of a code record (sortie.code_record/1) that are compared.
struct Recorded {
  std::string command;
  std::string script;  // its text
  std::string commit;
  std::string branch;
  std::string changes;  // the uncommitted diff
};

std::string text_member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return "";
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

Recorded recorded(const std::string& code_json) {
  Recorded found;
  rapidjson::Document record;
  if (code_json.empty() || record.Parse(code_json.c_str()).HasParseError() || !record.IsObject()) {
    return found;
  }
  if (const auto words = record.FindMember("command");
      words != record.MemberEnd() && words->value.IsArray()) {
    for (const auto& word : words->value.GetArray()) {
      if (word.IsString())
        found.command += (found.command.empty() ? "" : " ") + shell_word(word.GetString());
    }
  }
  if (const auto script = record.FindMember("script"); script != record.MemberEnd()) {
    found.script = text_member(script->value, "text");
  }
  if (const auto git = record.FindMember("git"); git != record.MemberEnd()) {
    found.commit = text_member(git->value, "commit");
    found.branch = text_member(git->value, "branch");
    found.changes = text_member(git->value, "diff");
  }
  return found;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The lines only `a` has ("  - ") and only `b` has ("  + "), in order, from a longest common
// subsequence of the two.
std::string line_diff(const std::string& a, const std::string& b) {
  const std::vector<std::string> left = lines_of(a);
  const std::vector<std::string> right = lines_of(b);
  if (left.size() > kMaxDiffLines || right.size() > kMaxDiffLines) {
    return "  (" + std::to_string(left.size()) + " and " + std::to_string(right.size()) +
           " lines, too long to compare line by line)\n";
  }
  // common[i][j]: the longest common subsequence of left[i..] and right[j..].
  std::vector<std::vector<uint16_t>> common(left.size() + 1,
                                            std::vector<uint16_t>(right.size() + 1, 0));
  for (size_t i = left.size(); i-- > 0;) {
    for (size_t j = right.size(); j-- > 0;) {
      common[i][j] = left[i] == right[j] ? common[i + 1][j + 1] + 1
                                         : std::max(common[i + 1][j], common[i][j + 1]);
    }
  }
  std::string out;
  size_t i = 0;
  size_t j = 0;
  while (i < left.size() || j < right.size()) {
    if (i < left.size() && j < right.size() && left[i] == right[j]) {
      ++i;
      ++j;
    } else if (j == right.size() || (i < left.size() && common[i + 1][j] >= common[i][j + 1])) {
      out += "  - " + printable(left[i++]) + "\n";
    } else {
      out += "  + " + printable(right[j++]) + "\n";
    }
  }
  return out;
}

std::string changed(const std::string& what, const std::string& before, const std::string& after) {
  if (before == after) return "";
  const auto shown = [](const std::string& text) {
    return text.empty() ? std::string("(none)") : printable(text);
  };
  return what + ": " + shown(before) + " -> " + shown(after) + "\n";
}

}  // namespace

std::string experiment_diff(xm::Experiment& before, xm::Experiment& after) {
  const Recorded a = recorded(before.code_record());
  const Recorded b = recorded(after.code_record());
  std::string out = changed("title", before.title(), after.title());
  out += changed("command", a.command, b.command);
  out += changed("commit", a.commit, b.commit);
  out += changed("branch", a.branch, b.branch);
  if (a.script != b.script) out += "script:\n" + line_diff(a.script, b.script);
  if (a.changes != b.changes) out += "uncommitted changes:\n" + line_diff(a.changes, b.changes);

  std::map<int, std::pair<std::optional<std::string>, std::optional<std::string>>> units;
  for (const xm::WorkUnit& unit : before.work_units())
    units[unit.id].first = session::hyperparameters_text(unit.args_json);
  for (const xm::WorkUnit& unit : after.work_units())
    units[unit.id].second = session::hyperparameters_text(unit.args_json);
  for (const auto& [id, settings] : units) {
    const std::string unit = "work unit " + std::to_string(id);
    const auto& [was, is] = settings;
    if (!was || !is) {
      const xm::Experiment& owner = was ? before : after;
      out += unit + ": only in experiment " + std::to_string(owner.id()) + " (" +
             printable(was ? *was : *is) + ")\n";
    } else {
      out += changed(unit, *was, *is);
    }
  }
  return out;
}

}  // namespace sortie::cli
