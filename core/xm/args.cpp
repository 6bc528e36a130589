// File: core/xm/args.cpp
//
// XManager's SequentialArgs (xm/job_blocks.py) and argument values. Words are produced the way
// XManager's str() would print them, but never shell-quoted: sortie execs jobs without a shell.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>

namespace sortie::xm {
namespace {

// Python's repr(float): the shortest digits that read back as the same double, in fixed
// notation for decimal exponents in [-4, 16) (with ".0" when integral), scientific otherwise.
std::string python_float_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string scientific(buffer, result.ptr);  // "-d.ddde+XX"
  const bool negative = scientific.front() == '-';
  if (negative) scientific.erase(0, 1);
  const size_t e = scientific.find('e');
  std::string digits = scientific.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  const int exponent = std::atoi(scientific.c_str() + e + 1);

  std::string text;
  if (exponent < -4 || exponent >= 16) {
    text = digits.substr(0, 1);
    if (digits.size() > 1) text += "." + digits.substr(1);
    const std::string magnitude = std::to_string(std::abs(exponent));
    text += exponent < 0 ? "e-" : "e+";
    text += (magnitude.size() < 2 ? "0" : "") + magnitude;
  } else if (exponent < 0) {
    text = "0." + std::string(-exponent - 1, '0') + digits;
  } else {
    const size_t integer_digits = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= integer_digits) {
      text = digits + std::string(integer_digits - digits.size(), '0') + ".0";
    } else {
      text = digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
    }
  }
  return negative ? "-" + text : text;
}

// Python's repr(str): single quotes unless the text holds a single quote and no double quote.
std::string python_string_repr(const std::string& text) {
  const bool double_quoted =
      text.find('\'') != std::string::npos && text.find('"') == std::string::npos;
  const char quote = double_quoted ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c == quote) out += '\\';
        out += c;
    }
  }
  return out + quote;
}

// An element inside a printed list: strings are repr()'d, as Python prints list items.
std::string list_item_text(const ArgValue& item) {
  return item.kind() == ArgValue::Kind::kString ? python_string_repr(item.text())
                                                : item.to_string();
}

bool holds_a_list(const ArgValue& value) {
  for (const ArgValue& item : value.list()) {
    if (item.kind() == ArgValue::Kind::kList) return true;
  }
  return false;
}

bool is_env_var_name(const std::string& name) {
  if (name.empty()) return false;
  const auto word = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  if (name[0] >= '0' && name[0] <= '9') return false;
  for (const char c : name) {
    if (!word(c)) return false;
  }
  return true;
}

}  // namespace

ArgValue::ArgValue(double value) : kind_(Kind::kNumber), text_(python_float_text(value)) {}

ArgValue ArgValue::number(std::string literal) {
  char* end = nullptr;
  std::strtod(literal.c_str(), &end);
  if (literal.empty() || end != literal.c_str() + literal.size()) {
    throw Error::invalid_argument("ArgValue::number: '" + literal +
                                  "' is not a number; pass it as a string instead");
  }
  ArgValue value;
  value.kind_ = Kind::kNumber;
  value.text_ = std::move(literal);
  return value;
}

std::string ArgValue::to_string() const {
  switch (kind_) {
    case Kind::kNull:
      return "None";
    case Kind::kBool:
      return bool_ ? "True" : "False";
    case Kind::kNumber:
    case Kind::kString:
      return text_;
    case Kind::kList:
      break;
  }
  std::string text = "[";
  for (size_t i = 0; i < list_.size(); ++i) {
    if (i > 0) text += ", ";
    text += list_item_text(list_[i]);
  }
  return text + "]";
}

bool ArgValue::operator==(const ArgValue& other) const {
  return kind_ == other.kind_ && bool_ == other.bool_ && text_ == other.text_ &&
         list_ == other.list_;
}

Args::Args(std::initializer_list<std::pair<std::string, ArgValue>> keywords) {
  for (const auto& [name, value] : keywords) set(name, value);
}

Args Args::list(std::vector<std::string> items) {
  Args args;
  for (std::string& item : items) args.add_positional(ArgValue(std::move(item)));
  return args;
}

Args& Args::add_positional(ArgValue item) {
  items_.push_back(Item{std::nullopt, std::move(item)});
  return *this;
}

Args& Args::set(const std::string& name, ArgValue value) {
  for (Item& item : items_) {
    if (item.name == name) {
      item.value = std::move(value);
      return *this;
    }
  }
  items_.push_back(Item{name, std::move(value)});
  return *this;
}

Args& Args::merge(const Args& later) {
  for (const Item& item : later.items_) {
    if (item.name) {
      set(*item.name, item.value);
    } else {
      add_positional(item.value);
    }
  }
  return *this;
}

std::vector<std::string> Args::to_list() const {
  std::vector<std::string> words;
  for (const Item& item : items_) {
    if (!item.name) {
      words.push_back(item.value.to_string());
      continue;
    }
    const std::string& name = *item.name;
    const ArgValue& value = item.value;
    switch (value.kind()) {
      case ArgValue::Kind::kNull:  // omitted, so the program keeps its default
        break;
      case ArgValue::Kind::kBool:  // absl style
        words.push_back((value.boolean() ? "--" : "--no") + name);
        break;
      case ArgValue::Kind::kList:
        if (holds_a_list(value)) {
          words.push_back("--" + name + "=" + value.to_string());
        } else {
          for (const ArgValue& element : value.list()) {
            words.push_back("--" + name + "=" + element.to_string());
          }
        }
        break;
      case ArgValue::Kind::kNumber:
      case ArgValue::Kind::kString:
        words.push_back("--" + name + "=" + value.text());
        break;
    }
  }
  return words;
}

void validate_env_vars(const EnvVars& env, const std::string& where) {
  for (const auto& entry : env) {
    if (!is_env_var_name(entry.first)) {
      throw Error::invalid_argument(where + ": '" + entry.first +
                                    "' is not a valid environment variable name; names must match "
                                    "[a-zA-Z_][a-zA-Z0-9_]*");
    }
  }
}

}  // namespace sortie::xm
