#include "annotations.hpp"

#include <cctype>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <string_view>

namespace sortie::xm::detail {
namespace {

constexpr size_t kTagMaxLength = 64;

bool is_tag_start(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool is_tag_char(char c) {
  return is_tag_start(c) || std::string_view("_.:/=@+-").find(c) != std::string_view::npos;
}

}  // namespace

void check_tags(const std::vector<std::string>& tags) {
  for (const std::string& tag : tags) {
    bool valid = !tag.empty() && tag.size() <= kTagMaxLength && is_tag_start(tag[0]);
    for (char c : tag) valid = valid && is_tag_char(c);
    if (!valid) {
      throw Error::invalid_argument(
          "tag '" + tag +
          "' is not a tag: use 1 to 64 letters, digits and _ . : / = @ + -, starting with a "
          "letter, digit or _ (e.g. baseline, lr=0.1, v2/ablation)");
    }
  }
}

void check_notes(const std::string& notes) {
  if (notes.size() > limits::value(limits::kExperimentNotesBytes)) {
    throw Error::invalid_argument(limits::exceeded(
        "the notes (" + std::to_string(notes.size()) + " bytes)", limits::kExperimentNotesBytes));
  }
  if (notes.find('\0') != std::string::npos) {
    throw Error::invalid_argument("the notes hold a NUL byte; notes are text");
  }
}

void check_tag_count(size_t count) {
  if (count > limits::value(limits::kExperimentTags)) {
    throw Error::invalid_argument(limits::exceeded(
        "the experiment's " + std::to_string(count) + " tags", limits::kExperimentTags));
  }
}

}  // namespace sortie::xm::detail
