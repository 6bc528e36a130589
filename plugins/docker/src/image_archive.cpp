#include "image_archive.hpp"

#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::docker {
namespace {

constexpr size_t kBlock = 512;

[[noreturn]] void malformed(const std::string& what, const std::string& why) {
  throw Error::invalid_argument(what + " is not a docker save archive (" + why +
                                "); make it with `docker save`");
}

// A header's size field: octal text, or base-256 when its first byte has the high bit set.
uint64_t field_size(const char* field) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(field);
  uint64_t value = 0;
  if ((bytes[0] & 0x80) != 0) {
    for (size_t i = 1; i < 12; ++i) value = (value << 8) | bytes[i];
    return value;
  }
  for (size_t i = 0; i < 12 && field[i] >= '0' && field[i] <= '7'; ++i) {
    value = value * 8 + static_cast<uint64_t>(field[i] - '0');
  }
  return value;
}

// True when the header's checksum field matches its bytes (the field itself counted as spaces).
bool checksum_ok(const char* header) {
  uint64_t sum = 0;
  for (size_t i = 0; i < kBlock; ++i) {
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(header[i]);
  }
  uint64_t recorded = 0;
  size_t i = 148;
  while (i < 156 && header[i] == ' ') ++i;
  for (; i < 156 && header[i] >= '0' && header[i] <= '7'; ++i) {
    recorded = recorded * 8 + static_cast<uint64_t>(header[i] - '0');
  }
  return sum == recorded;
}

std::string c_string(const char* field, size_t width) {
  size_t length = 0;
  while (length < width && field[length] != '\0') ++length;
  return std::string(field, length);
}

// The "path" record of a pax extended header, or "".
std::string pax_path(std::string_view records) {
  while (!records.empty()) {
    const size_t space = records.find(' ');
    if (space == std::string_view::npos) break;
    size_t length = 0;
    for (const char c : records.substr(0, space))
      length = length * 10 + static_cast<size_t>(c - '0');
    if (length == 0 || length > records.size()) break;
    const std::string_view record = records.substr(space + 1, length - space - 2);  // no '\n'
    if (record.rfind("path=", 0) == 0) return std::string(record.substr(5));
    records.remove_prefix(length);
  }
  return "";
}

std::string without_dot_slash(std::string name) {
  while (name.rfind("./", 0) == 0) name.erase(0, 2);
  return name;
}

// The regular file `name` of a tar archive in memory (GNU long names and pax paths understood),
// or false when the archive has none. Throws INVALID_ARGUMENT naming `what` when the archive is
// malformed.
bool tar_member(std::string_view archive, std::string_view name, std::string* content,
                const std::string& what) {
  std::string long_name;
  size_t offset = 0;
  while (offset + kBlock <= archive.size()) {
    const char* header = archive.data() + offset;
    if (header[0] == '\0') return false;  // end-of-archive block
    if (!checksum_ok(header))
      malformed(what, "a tar header at byte " + std::to_string(offset) + " is corrupt");
    const uint64_t size = field_size(header + 124);
    const char type = header[156];
    const size_t data = offset + kBlock;
    if (size > archive.size() - data) malformed(what, "an entry runs past the end of the file");
    const std::string_view body = archive.substr(data, size);
    offset = data + (size + kBlock - 1) / kBlock * kBlock;
    if (type == 'L') {
      long_name = c_string(body.data(), body.size());
      continue;
    }
    if (type == 'x') {
      long_name = pax_path(body);
      continue;
    }
    std::string entry = long_name;
    long_name.clear();
    if (entry.empty()) {
      entry = c_string(header, 100);
      const std::string prefix = c_string(header + 345, 155);
      if (std::string_view(header + 257, 5) == "ustar" && !prefix.empty()) {
        entry = prefix + "/" + entry;
      }
    }
    if ((type == '0' || type == '\0') && without_dot_slash(entry) == name) {
      content->assign(body);
      return true;
    }
  }
  if (offset == 0) malformed(what, "it is shorter than one tar header");
  return false;
}

}  // namespace

std::vector<ArchivedImage> read_image_archive(std::string_view archive, const std::string& what) {
  std::string manifest;
  if (!tar_member(archive, "manifest.json", &manifest, what)) {
    malformed(what, "it has no manifest.json");
  }
  rapidjson::Document document;
  document.Parse(manifest.data(), manifest.size());
  if (document.HasParseError() || !document.IsArray()) {
    malformed(what, "its manifest.json is not a JSON array");
  }
  std::vector<ArchivedImage> images;
  for (const rapidjson::Value& entry : document.GetArray()) {
    const std::string config =
        plugins_common::string_member(entry, "Config", what + " manifest.json");
    std::string digest = config.substr(config.rfind('/') + 1);  // "<hex>.json" or "<hex>"
    if (digest.size() > 5 && digest.compare(digest.size() - 5, 5, ".json") == 0) {
      digest.resize(digest.size() - 5);
    }
    if (digest.empty()) malformed(what, "an image of its manifest.json has no Config");
    ArchivedImage image;
    image.id = "sha256:" + digest;
    if (const rapidjson::Value* tags =
            plugins_common::array_member(entry, "RepoTags", what + " manifest.json")) {
      for (const rapidjson::Value& tag : tags->GetArray()) {
        if (tag.IsString()) image.repo_tags.emplace_back(tag.GetString(), tag.GetStringLength());
      }
    }
    images.push_back(std::move(image));
  }
  return images;
}

}  // namespace sortie::docker
