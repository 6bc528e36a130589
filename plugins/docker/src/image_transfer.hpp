// Moving images with the Engine: make an image present (pull it, with progress, when it is not
// local), tag and push one to a registry, and read the JSON progress messages that pull, push and
// build stream back. Progress goes to the host through sortie::Host::log at INFO level.
#ifndef SORTIE_DOCKER_IMAGE_TRANSFER_HPP
#define SORTIE_DOCKER_IMAGE_TRANSFER_HPP

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "engine.hpp"

namespace sortie::docker {

// Splits a stream of newline-separated JSON progress messages, logs their progress (one line per
// layer and status change, never a line per byte count) and keeps the first error.
class ProgressReader {
 public:
  // prefix starts every logged line, e.g. "pulling busybox:1.36".
  explicit ProgressReader(std::string prefix);
  void feed(std::string_view chunk);
  void finish();
  // Sends the request and reads the whole streamed answer through feed() and finish().
  http::Response stream(Engine& engine, const http::Request& request);
  // Why a streamed request failed: the first {"error": ...} of its progress, else the Engine's
  // message in the body of a refused request (which is never streamed).
  std::string failure(const http::Response& response) const;
  // The message of the first {"error": ...} seen, or "".
  const std::string& error() const { return error_; }
  // The image id of a build's {"aux": {"ID": ...}} message, or "".
  const std::string& built_id() const { return built_id_; }
  // The last kRecentLines lines of build output ("stream" messages), oldest first, so a failed
  // build can show what its step printed.
  static constexpr size_t kRecentLines = 10;
  const std::deque<std::string>& recent_output() const { return recent_output_; }

 private:
  void message(std::string_view line);

  std::string prefix_;
  std::string buffer_;
  std::string error_;
  std::string built_id_;
  std::deque<std::string> recent_output_;
  std::map<std::string, std::string> last_status_;  // layer id -> status last logged
};

// The image's id ("sha256:...") when the Engine has it locally, else "".
std::string local_image_id(Engine& engine, const std::string& image);

// True when the Engine has the image locally.
bool image_exists(Engine& engine, const std::string& image);

// Pulls the image unless it is local. Throws with the Engine's message (NOT_FOUND for an unknown
// image or tag, UNAVAILABLE when the registry cannot be reached).
void ensure_image(Engine& engine, const std::string& image);

// Tags `source` as repository:tag and pushes it (anonymous X-Registry-Auth). Throws with the
// registry's message.
void push_image(Engine& engine, const std::string& source, const std::string& repository,
                const std::string& tag);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_IMAGE_TRANSFER_HPP
