// File: sortie/model/config_trust.hpp
//
// Which working-directory .sortieconfig files the user has trusted (docs/config-trust.md), after
// direnv's `allow`: `sortie config trust FILE` records the file's absolute path and SHA-256 in
// $XDG_CONFIG_HOME/sortie/trusted-configs (default ~/.config); a file edited since is untrusted
// again. Only a trusted file may set the run options a plugin declares sensitive.
#ifndef SORTIE_MODEL_CONFIG_TRUST_HPP
#define SORTIE_MODEL_CONFIG_TRUST_HPP

#include <string>

namespace sortie::model {

// Where the records live.
std::string trusted_configs_path();

// True when `path` (absolute) was trusted with exactly this content.
bool is_trusted_config(const std::string& path, const std::string& content);

// Records `path` with its current content's digest, replacing an older record of that path;
// returns the digest. The record file is created 0600 in a 0700 directory.
std::string trust_config(const std::string& path);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_CONFIG_TRUST_HPP
