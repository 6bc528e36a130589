#include "json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <ctime>
#include <sortie/plugin.hpp>

namespace sortie::kubernetes {
namespace {

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool read_digits(std::string_view text, size_t pos, size_t count, int* out) {
  if (pos + count > text.size()) return false;
  int value = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  *out = value;
  return true;
}

}  // namespace

const Json* value_at(const Json& object, std::string_view path) {
  const Json* current = &object;
  while (current != nullptr && !path.empty()) {
    const size_t dot = path.find('.');
    current = plugins_common::find_member(*current, path.substr(0, dot));
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return current;
}

std::string text_at(const Json& object, std::string_view path) {
  const Json* value = value_at(object, path);
  return value != nullptr && value->IsString()
             ? std::string(value->GetString(), value->GetStringLength())
             : std::string();
}

std::optional<int64_t> int_at(const Json& object, std::string_view path) {
  const Json* value = value_at(object, path);
  if (value == nullptr || !value->IsInt64()) return std::nullopt;
  return value->GetInt64();
}

void set_member(Json& object, std::string_view key, Json value, Allocator& allocator) {
  const auto it = object.FindMember(
      Json(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it != object.MemberEnd()) {
    it->value = std::move(value);
    return;
  }
  object.AddMember(plugins_common::string_value(key, allocator), value, allocator);
}

void set_string(Json& object, std::string_view key, std::string_view text, Allocator& allocator) {
  set_member(object, key, plugins_common::string_value(text, allocator), allocator);
}

void push_string(Json& array, std::string_view text, Allocator& allocator) {
  array.PushBack(plugins_common::string_value(text, allocator), allocator);
}

std::optional<int64_t> parse_rfc3339(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(text, 0, 4, &year) || text.size() < 20 || text[4] != '-' ||
      !read_digits(text, 5, 2, &month) || text[7] != '-' || !read_digits(text, 8, 2, &day) ||
      (text[10] != 'T' && text[10] != 't') || !read_digits(text, 11, 2, &hour) || text[13] != ':' ||
      !read_digits(text, 14, 2, &minute) || text[16] != ':' || !read_digits(text, 17, 2, &second)) {
    return std::nullopt;
  }
  size_t pos = 19;
  int64_t fraction_ns = 0;
  if (pos < text.size() && text[pos] == '.') {
    int64_t scale = 100000000;
    for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
      fraction_ns += (text[pos] - '0') * scale;
      scale /= 10;
    }
  }
  int64_t offset_s = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int oh = 0, om = 0;
    if (!read_digits(text, pos + 1, 2, &oh) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !read_digits(text, pos + 4, 2, &om)) {
      return std::nullopt;
    }
    offset_s = (text[pos] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != text.size() || month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  const int64_t days =
      days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  return seconds * 1000000000 + fraction_ns;
}

std::string format_rfc3339(int64_t ns) {
  int64_t seconds = ns / 1000000000;
  int64_t fraction = ns % 1000000000;
  if (fraction < 0) {
    fraction += 1000000000;
    --seconds;
  }
  const auto time = static_cast<std::time_t>(seconds);
  std::tm parts{};
  gmtime_r(&time, &parts);
  char buffer[64];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%S", &parts);
  std::string text = buffer;
  if (fraction != 0) {
    char digits[16];
    std::snprintf(digits, sizeof(digits), ".%09lld", static_cast<long long>(fraction));
    text += digits;
  }
  return text + "Z";
}

}  // namespace sortie::kubernetes
