// What dryrun() is given, sortie.dryrun_input/1 (docs/payloads.md P-6), with its reader and
// writer, and what an image provider answers, sortie.image/1 (P-11). Part of
// Sortie::plugin_support. The run options ("cfg") are the scheduler's own: they are handed over
// as JSON text for it to read.
#ifndef SORTIE_DRYRUN_INPUT_HPP
#define SORTIE_DRYRUN_INPUT_HPP

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "appdef.hpp"

namespace sortie {

// Where an image provider put a role's files (sortie.image/1).
struct ProvidedImage {
  std::string img_root;
  std::string cwd;    // defaults to img_root
  std::string image;  // "" unless the provider built an image
};

struct DryrunInput {
  AppDef app;
  std::string app_json;  // the app as received, for a scheduler whose request is the app itself
  std::string app_id;    // "" when the host proposed none
  std::string session;   // "" when the host sent none
  std::string cfg_json = "{}";
  std::vector<std::pair<std::string, ProvidedImage>> images;  // role name -> image

  // The image provided for a role, or nullptr when no provider ran for it.
  const ProvidedImage* image_of(std::string_view role) const;
};

// Reads sortie.dryrun_input/1 JSON text. Errors name the field path; the app's fields from the
// app's own root ("roles[0].args[1]: expected a string, got 1"), as read_appdef does.
DryrunInput read_dryrun_input(std::string_view json);

// The sortie.dryrun_input/1 JSON text: `app` written by write_appdef (app_json is not read),
// `cfg_json` as it is, `images` only when there are some.
std::string write_dryrun_input(const DryrunInput& input);

// Reads sortie.image/1 JSON text, as an image provider's fetch() answers.
ProvidedImage read_provided_image(std::string_view json);

}  // namespace sortie

#endif  // SORTIE_DRYRUN_INPUT_HPP
