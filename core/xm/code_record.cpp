#include "code_record.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sortie/limits.hpp>
#include <sortie/model/secret_env.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/sha256.hpp>
#include <vector>

#include "git_output.hpp"

namespace sortie::xm::detail {
namespace {

namespace fs = std::filesystem;
using session::JsonText;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// `text` with every byte that does not start a well-formed UTF-8 sequence replaced by U+FFFD, so
// that a diff of a Latin-1 file still records as valid JSON.
std::string valid_utf8(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80           ? 1
                    : (lead >> 5) == 0x6  ? 2
                    : (lead >> 4) == 0xE  ? 3
                    : (lead >> 3) == 0x1E ? 4
                                          : 0;
    if (lead == 0xC0 || lead == 0xC1 || lead > 0xF4 || i + length > text.size()) length = 0;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) length = 0;
    }
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out;
}

// The enclosing git work tree's marker (a `.git` directory or file), searched upwards.
bool in_git_work_tree(const std::string& dir) {
  std::error_code ignored;
  for (fs::path at = fs::path(dir); !at.empty(); at = at.parent_path()) {
    if (fs::exists(at / ".git", ignored)) return true;
    if (at == at.root_path()) break;
  }
  return false;
}

void write_git(JsonText& json, const std::string& launch_dir) {
  if (!in_git_work_tree(launch_dir)) {
    json.null();
    return;
  }
  json.begin_object();
  constexpr size_t kLineBytes = 4096;
  const GitOutput root = git_output(launch_dir, {"rev-parse", "--show-toplevel"}, kLineBytes);
  if (!root.started || root.exit_status != 0) {
    json.key("error").string(
        !root.started ? std::string("git could not be run (is it installed and on PATH?)")
        : root.refused_ownership
            ? "git refuses the repository of " + launch_dir +
                  " as another user's (its safe.directory rule), so no commit or diff is "
                  "recorded; to trust it: git config --global --add safe.directory " +
                  launch_dir
            : "git rev-parse failed in " + launch_dir + " (not a work tree git can read)");
    json.end_object();
    return;
  }
  json.key("root").string(first_line(root.out));
  const GitOutput commit =
      git_output(launch_dir, {"rev-parse", "--verify", "-q", "HEAD"}, kLineBytes);
  json.key("commit").string(commit.exit_status == 0 ? first_line(commit.out) : "");
  const GitOutput branch =
      git_output(launch_dir, {"symbolic-ref", "-q", "--short", "HEAD"}, kLineBytes);
  json.key("branch").string(branch.exit_status == 0 ? first_line(branch.out) : "");

  // Staged and unstaged changes against the commit (against nothing before the first one).
  const size_t diff_limit = limits::value(limits::kCodeDiffBytes);
  std::vector<std::string> diff_args = {"diff", "--no-ext-diff", "--no-textconv"};
  diff_args.push_back(commit.exit_status == 0 ? "HEAD" : "--cached");
  const GitOutput diff = git_output(launch_dir, diff_args, diff_limit);
  json.key("diff").string(valid_utf8(diff.out)).key("diff_truncated").boolean(diff.truncated);

  const size_t untracked_limit = limits::value(limits::kUntrackedFiles);
  const GitOutput others =
      git_output(launch_dir, {"ls-files", "-z", "--others", "--exclude-standard"},
                 untracked_limit * kLineBytes);
  json.key("untracked").begin_array();
  size_t listed = 0;
  bool untracked_truncated = others.truncated;
  for (size_t start = 0; start < others.out.size();) {
    const size_t end = others.out.find('\0', start);
    if (end == std::string::npos) break;  // cut mid-name
    if (listed == untracked_limit) {
      untracked_truncated = true;
      break;
    }
    json.string(valid_utf8(others.out.substr(start, end - start)));
    ++listed;
    start = end + 1;
  }
  json.end_array().key("untracked_truncated").boolean(untracked_truncated);
  json.key("dirty").boolean(!diff.out.empty() || listed > 0);
  json.end_object();
}

// A word `[--]NAME=VALUE` whose NAME names a secret (TRUST-7) keeps its name only: a token given
// on a launcher's command line is not recorded.
std::string masked_word(const std::string& word) {
  const size_t equals = word.find('=');
  if (equals == std::string::npos) return word;
  const size_t name_start = word.find_first_not_of('-');
  if (name_start >= equals || !model::is_secret_env(word.substr(name_start, equals - name_start),
                                                    word.substr(equals + 1))) {
    return word;
  }
  return word.substr(0, equals + 1) + std::string(model::kMaskedSecret);
}

void write_script(JsonText& json, const std::string& script) {
  if (script.empty()) {
    json.null();
    return;
  }
  const std::string path = fs::absolute(script).lexically_normal().string();
  json.begin_object().key("path").string(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    json.key("error").string(std::string("cannot read it: ") + std::strerror(errno)).end_object();
    return;
  }
  const size_t limit = limits::value(limits::kLaunchScriptBytes);
  Sha256 digest;
  std::string text;
  bool truncated = false;
  char buffer[65536];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    const std::string_view chunk(buffer, static_cast<size_t>(in.gcount()));
    digest.update(chunk);
    const size_t room = limit - std::min(limit, text.size());
    text.append(chunk.substr(0, room));
    truncated = truncated || chunk.size() > room;
  }
  json.key("sha256").string(digest.hex_digest()).key("text").string(valid_utf8(text));
  json.key("text_truncated").boolean(truncated).end_object();
}

}  // namespace

std::string code_record_json(const std::string& launch_dir, const std::string& script) {
  std::vector<std::string> command;
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  for (std::string word; std::getline(cmdline, word, '\0');) command.push_back(word);
  JsonText json;
  json.begin_object().key("schema").string("sortie.code_record/1");
  json.key("launch_dir").string(valid_utf8(launch_dir)).key("command").begin_array();
  for (const std::string& word : command) json.string(valid_utf8(masked_word(word)));
  json.end_array().key("script");
  write_script(json, script);
  json.key("git");
  write_git(json, launch_dir);
  json.end_object();
  return json.str();
}

std::string masked_code_record(const std::string& record, const std::vector<std::string>& secrets) {
  rapidjson::Document document;
  if (secrets.empty() || document.Parse(record.c_str()).HasParseError() || !document.IsObject()) {
    return record;
  }
  auto& allocator = document.GetAllocator();
  const auto mask = [&](rapidjson::Value& value) {
    if (!value.IsString()) return;
    const std::string masked = model::mask_secrets(value.GetString(), secrets);
    value.SetString(masked.c_str(), static_cast<rapidjson::SizeType>(masked.size()), allocator);
  };
  if (auto command = document.FindMember("command");
      command != document.MemberEnd() && command->value.IsArray()) {
    for (auto& word : command->value.GetArray()) mask(word);
  }
  for (const char* holder : {"script", "git"}) {
    auto object = document.FindMember(holder);
    if (object == document.MemberEnd() || !object->value.IsObject()) continue;
    for (const char* text : {"text", "diff"}) {
      if (auto member = object->value.FindMember(text); member != object->value.MemberEnd()) {
        mask(member->value);
      }
    }
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  document.Accept(writer);
  return buffer.GetString();
}

}  // namespace sortie::xm::detail
