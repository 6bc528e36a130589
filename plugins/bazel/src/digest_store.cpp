#include "digest_store.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sortie/sha256.hpp>

namespace sortie::bazel {
namespace {

// One file per key, named by the SHA-256 of the key's text: no shared file to rewrite, so
// concurrent packagings never lose each other's records.
std::string key_hash(const DigestStore::Key& key) {
  std::string text = key.workspace + '\0' + key.label;
  for (const std::string& arg : key.bazel_args) text += '\0' + arg;
  Sha256 hash;
  hash.update(text);
  return hash.hex_digest();
}

}  // namespace

std::string DigestStore::path_of(const Key& key) const {
  return state_dir_ + "/binary_digests/" + key_hash(key);
}

std::string DigestStore::previous(const Key& key) const {
  if (state_dir_.empty()) return "";
  std::ifstream file(path_of(key));
  std::string digest;
  std::getline(file, digest);
  return digest;
}

void DigestStore::record(const Key& key, const std::string& digest) const {
  if (state_dir_.empty()) return;
  const std::string path = path_of(key);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << digest << '\n';
    if (!file) {
      throw Error::failed_precondition("cannot write the packager state file " + temporary +
                                       " (state_dir " + state_dir_ +
                                       "): check its permissions and free space");
    }
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    throw Error::failed_precondition("cannot rename " + temporary + " to " + path + ": " +
                                     ec.message());
  }
}

}  // namespace sortie::bazel
