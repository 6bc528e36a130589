#include "code_summary.hpp"

#include <rapidjson/document.h>

#include "printable.hpp"

namespace sortie::cli {
namespace {

std::string member_text(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

std::string git_summary(const rapidjson::Value& git) {
  if (!git.IsObject()) return "not in a git work tree";
  if (const std::string error = member_text(git, "error"); !error.empty()) return error;
  const std::string commit = member_text(git, "commit");
  const std::string branch = member_text(git, "branch");
  std::string text =
      "git " + (commit.empty() ? std::string("(no commit yet)") : commit.substr(0, 12));
  text += branch.empty() ? " (detached)" : " on " + branch;
  const std::string diff = member_text(git, "diff");
  size_t changed = 0;
  for (size_t at = diff.find("diff --git "); at != std::string::npos;
       at = diff.find("\ndiff --git ", at + 1)) {
    ++changed;
  }
  const auto untracked = git.FindMember("untracked");
  const size_t untracked_count =
      untracked != git.MemberEnd() && untracked->value.IsArray() ? untracked->value.Size() : 0;
  if (changed == 0 && untracked_count == 0) return text + ", clean";
  if (changed > 0)
    text += ", " + std::to_string(changed) + (changed == 1 ? " file" : " files") + " changed";
  if (untracked_count > 0) text += ", " + std::to_string(untracked_count) + " untracked";
  return text;
}

}  // namespace

std::string shell_word(const std::string& word) {
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-.,:/=@+%") == std::string::npos;
  if (safe) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string code_summary(const std::string& code_json) {
  rapidjson::Document record;
  if (code_json.empty() || record.Parse(code_json.c_str()).HasParseError() || !record.IsObject()) {
    return "";
  }
  std::string command;
  if (const auto words = record.FindMember("command");
      words != record.MemberEnd() && words->value.IsArray()) {
    for (const auto& word : words->value.GetArray()) {
      if (word.IsString()) command += (command.empty() ? "" : " ") + shell_word(word.GetString());
    }
  }
  const auto git = record.FindMember("git");
  const std::string where = member_text(record, "launch_dir");
  return "launched by: " + printable(command) +
         "\ncode: " + printable(git == record.MemberEnd() ? "unknown" : git_summary(git->value)) +
         " (" + printable(where) + ")\n";
}

}  // namespace sortie::cli
