#include "image_build.hpp"

#include <algorithm>
#include <cctype>
#include <sortie/plugin.hpp>
#include <sortie/sha256.hpp>

#include "image_transfer.hpp"
#include "json_fields.hpp"

namespace sortie::docker {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The whitespace-separated words of one line.
std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < line.size()) {
    while (start < line.size() && std::isspace(static_cast<unsigned char>(line[start]))) ++start;
    size_t end = start;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
    if (end > start) out.emplace_back(line.substr(start, end - start));
    start = end;
  }
  return out;
}

}  // namespace

std::vector<std::string> dockerfile_base_images(std::string_view dockerfile) {
  std::vector<std::string> images;
  std::vector<std::string> stages;
  size_t start = 0;
  while (start < dockerfile.size()) {
    size_t end = dockerfile.find('\n', start);
    if (end == std::string_view::npos) end = dockerfile.size();
    const std::vector<std::string> line = words(dockerfile.substr(start, end - start));
    start = end + 1;
    if (line.empty() || lower(line[0]) != "from") continue;
    size_t at = 1;
    while (at < line.size() && line[at].rfind("--", 0) == 0) ++at;  // --platform=...
    if (at >= line.size()) continue;
    const std::string& image = line[at];
    const bool is_stage = std::find(stages.begin(), stages.end(), lower(image)) != stages.end();
    if (!is_stage && lower(image) != "scratch" && image.find('$') == std::string::npos &&
        std::find(images.begin(), images.end(), image) == images.end()) {
      images.push_back(image);
    }
    if (at + 2 < line.size() && lower(line[at + 1]) == "as") stages.push_back(lower(line[at + 2]));
  }
  return images;
}

std::string build_digest(Engine& engine, std::string_view dockerfile,
                         std::string_view context_entries) {
  Sha256 hash;
  hash.update("sortie-xm-build/1\n");
  for (const std::string& image : dockerfile_base_images(dockerfile)) {
    hash.update("base " + image + " " + local_image_id(engine, image) + "\n");
  }
  hash.update("dockerfile " + std::to_string(dockerfile.size()) + "\n");
  hash.update(dockerfile);
  hash.update(context_entries);
  return hash.hex_digest();
}

std::string content_image_name(std::string_view name, const std::string& digest) {
  // A repository path component: [a-z0-9]+ joined by single separators.
  std::string component;
  for (const char c : lower(name)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (plain) {
      component.push_back(c);
    } else if (!component.empty() && component.back() != '-') {
      component.push_back('-');
    }
  }
  while (!component.empty() && component.back() == '-') component.pop_back();
  if (component.empty()) component = "image";
  if (component.size() > 128) component.resize(128);
  return "sortie-xm/" + component + ":" + digest.substr(0, 16);
}

BuiltImage build_or_reuse(Engine& engine, const std::string& tag, ContextPacker& context,
                          const std::string& dockerfile) {
  BuiltImage built;
  built.id = local_image_id(engine, tag);
  if (!built.id.empty()) {
    Host::log(SORTIE_LOG_INFO, "inputs of " + tag + " unchanged: reusing it");
    built.cached = true;
    return built;
  }
  Host::log(SORTIE_LOG_INFO, "building " + tag);
  http::Request request;
  request.method = "POST";
  request.path = "/build?t=" + http::url_encode(tag) +
                 "&dockerfile=" + http::url_encode(dockerfile) + "&rm=1&forcerm=1";
  request.body = context.finish_tar();
  request.content_type = "application/x-tar";
  ProgressReader progress("building " + tag);
  const http::Response response = progress.stream(engine, request);
  if (!response.ok() || !progress.error().empty()) {
    std::string message = "building image " + tag + " failed: " + progress.failure(response);
    if (!progress.recent_output().empty()) {
      message += "\nlast build output:";
      for (const std::string& line : progress.recent_output()) message += "\n  " + line;
    }
    throw Error::failed_precondition(message);
  }
  built.id = local_image_id(engine, tag);
  if (built.id.empty()) {
    throw Error::internal("the Docker Engine built " + tag + " but does not list it");
  }
  return built;
}

}  // namespace sortie::docker
