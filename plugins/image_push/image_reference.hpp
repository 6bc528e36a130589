// Container image references as the Docker Engine and registries read them
// ([REGISTRY/]PATH[:TAG]), for push_image_tag: the remote tag a role's local image is pushed to
// before the CustomJob is created.
#ifndef SORTIE_IMAGE_PUSH_IMAGE_REFERENCE_HPP
#define SORTIE_IMAGE_PUSH_IMAGE_REFERENCE_HPP

#include <string>
#include <string_view>

namespace sortie::image_push {

struct ImageReference {
  std::string registry;    // "127.0.0.1:5000", "us-docker.pkg.dev"; "docker.io" when not named
  std::string repository;  // the name without its tag, as written: "127.0.0.1:5000/team/trainer"
  std::string tag;         // "latest" when the reference names none

  std::string str() const { return repository + ":" + tag; }
};

// Parses where an image is pushed to. Throws INVALID_ARGUMENT naming `what` for a digest
// (a push creates a tag), upper-case or empty path components, or a malformed tag.
ImageReference parse_push_target(std::string_view text, const std::string& what);

// Refuses text that cannot name a local image in an Engine API path (spaces, '?', '#', ...).
void check_local_image_name(std::string_view text, const std::string& what);

}  // namespace sortie::image_push

#endif  // SORTIE_IMAGE_PUSH_IMAGE_REFERENCE_HPP
