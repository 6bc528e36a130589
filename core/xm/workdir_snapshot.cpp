#include <rapidjson/document.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/session.hpp>
#include <sortie/sha256.hpp>
#include <sortie/xm/workdir_snapshot.hpp>
#include <sstream>

#include "blob_store.hpp"
#include "workdir_files.hpp"

namespace sortie::xm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifestSchema = "sortie.workdir_snapshot/1";

std::string experiment_dir(int64_t experiment_id) {
  return workdir_snapshot_dir() + "/experiments/" + std::to_string(experiment_id);
}

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error::failed_precondition("working-directory snapshot: cannot " + what + " " + path +
                                   ": " + std::strerror(errno));
}

// Places the blob at `to`: a hard link, or a copy where the blob has all the links its file
// system allows or lies on another one.
void place_blob(const std::string& blob, const std::string& to) {
  if (::link(blob.c_str(), to.c_str()) == 0) return;
  if (errno != EMLINK && errno != EXDEV && errno != EPERM) fail("link", to);
  detail::copy_file_content(blob, to, false);
  struct stat info {};
  if (::stat(blob.c_str(), &info) != 0 || ::chmod(to.c_str(), info.st_mode & 0555) != 0) {
    fail("make read-only", to);
  }
}

std::string link_target(const std::string& path) {
  std::string target(4096, '\0');
  const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
  if (n < 0) fail("read the link", path);
  target.resize(static_cast<size_t>(n));
  return target;
}

// What the snapshot's copy of the link at `relative` points to: the link as it is while it stays
// inside the launch directory; one that leaves it (data -> ../data) would dangle in the tree, so
// it is resolved to the absolute path it names in the live file system.
std::string snapshot_link_target(const std::string& launch_dir, const std::string& relative) {
  const std::string target = link_target(launch_dir + "/" + relative);
  if (!target.empty() && target.front() == '/') return target;
  const fs::path resolved =
      (fs::path(launch_dir) / fs::path(relative).parent_path() / target).lexically_normal();
  const fs::path inside = resolved.lexically_relative(fs::path(launch_dir).lexically_normal());
  if (!inside.empty() && *inside.begin() != "..") return target;
  return resolved.string();
}

// The identity of a tree entry in the snapshot's digest: a link's target, else the content's
// digest and whether it is executable.
std::string file_identity(const struct stat& info, const std::string& link_or_digest) {
  if (S_ISLNK(info.st_mode)) return "l " + link_or_digest;
  return ((info.st_mode & 0111) != 0 ? "x " : "f ") + link_or_digest;
}

// Adds one entry to a snapshot's digest, in path order.
void add_to_digest(Sha256& digest, const std::string& relative, const std::string& identity) {
  digest.update(relative);
  digest.update(std::string_view("\0", 1));
  digest.update(identity);
  digest.update("\n");
}

// Creates `dir` (and its parents) readable by its owner only: snapshots hold files the launch
// directory may keep private (an untracked .env), wherever SORTIE_SNAPSHOT_DIR puts them.
void make_private_dir(const std::string& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error || ::chmod(dir.c_str(), 0700) != 0) {
    throw Error::failed_precondition("working-directory snapshot: cannot create " + dir + ": " +
                                     (error ? error.message() : std::strerror(errno)) +
                                     " (set SORTIE_SNAPSHOT_DIR elsewhere)");
  }
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) fail("write", path);
}

void write_manifest(const WorkdirSnapshot& snapshot, const std::string& path) {
  session::JsonText json;
  json.begin_object()
      .key("schema")
      .string(kManifestSchema)
      .key("experiment_id")
      .number(snapshot.experiment_id)
      .key("launch_dir")
      .string(snapshot.launch_dir)
      .key("root")
      .string(snapshot.root)
      .key("digest")
      .string(snapshot.digest)
      .key("rules")
      .string(snapshot.rules)
      .key("files")
      .number(snapshot.files)
      .key("bytes")
      .number(snapshot.bytes)
      .key("files_read")
      .number(snapshot.files_read)
      .key("bytes_read")
      .number(snapshot.bytes_read)
      .key("created_at")
      .number(snapshot.created_at)
      .end_object();
  write_text(path, json.str() + '\n');
}

}  // namespace

std::string workdir_snapshot_dir() {
  const char* configured = std::getenv("SORTIE_SNAPSHOT_DIR");
  if (configured != nullptr && *configured != '\0') return configured;
  return session::state_dir() + "/snapshots";
}

WorkdirSnapshot take_workdir_snapshot(int64_t experiment_id, const std::string& launch_dir) {
  const std::string store_dir = workdir_snapshot_dir();
  const detail::WorkdirFiles listed =
      detail::list_workdir_files(launch_dir, {store_dir, session::state_dir()});
  make_private_dir(store_dir + "/blobs");
  make_private_dir(store_dir + "/experiments");
  detail::BlobStore blobs(store_dir + "/blobs");

  // Built aside and renamed into place, so a snapshot is whole or absent.
  const std::string final_dir = experiment_dir(experiment_id);
  const std::string building = final_dir + ".building-" + std::to_string(::getpid());
  std::error_code error;
  fs::remove_all(building, error);
  const std::string tree = building + "/tree";
  make_private_dir(tree);
  std::set<std::string> made_dirs;
  Sha256 tree_digest;
  std::string checksums;  // tree.sha256
  for (const detail::WorkdirFile& file : listed.files) {
    const std::string from = launch_dir + "/" + file.relative;
    const std::string to = tree + "/" + file.relative;
    const std::string parent = fs::path(to).parent_path().string();
    if (made_dirs.insert(parent).second) fs::create_directories(parent, error);
    std::string identity;
    if (S_ISLNK(file.info.st_mode)) {
      const std::string target = snapshot_link_target(launch_dir, file.relative);
      if (::symlink(target.c_str(), to.c_str()) != 0) fail("create the link", to);
      identity = file_identity(file.info, target);
    } else {
      const detail::Blob blob = blobs.add(from, file.info);
      place_blob(blob.path, to);
      blobs.linked(blob);
      identity = file_identity(file.info, blob.digest);
      checksums += blob.digest + "  " + file.relative + "\n";
    }
    add_to_digest(tree_digest, file.relative, identity);
  }
  blobs.save();

  WorkdirSnapshot snapshot;
  snapshot.experiment_id = experiment_id;
  snapshot.launch_dir = launch_dir;
  snapshot.root = final_dir + "/tree";
  snapshot.digest = "sha256:" + tree_digest.hex_digest();
  snapshot.rules = listed.rules;
  snapshot.files = static_cast<int64_t>(listed.files.size());
  snapshot.bytes = listed.bytes;
  snapshot.files_read = blobs.files_read();
  snapshot.bytes_read = blobs.bytes_read();
  snapshot.created_at = session::now_ns();
  snapshot.warnings = listed.warnings;
  for (const std::string& blob : blobs.set_aside()) {
    snapshot.warnings.push_back(
        "a stored copy had changed since it was stored; it was set aside as " + blob +
        " and copied again from the launch directory (`sortie experiments "
        "verify` checks the whole store)");
  }
  write_manifest(snapshot, building + "/manifest.json");
  write_text(building + "/tree.sha256", checksums);
  fs::remove_all(final_dir, error);
  if (::rename(building.c_str(), final_dir.c_str()) != 0) fail("put in place", final_dir);
  return snapshot;
}

std::optional<WorkdirSnapshot> read_workdir_snapshot(int64_t experiment_id) {
  std::ifstream in(experiment_dir(experiment_id) + "/manifest.json");
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document manifest;
  manifest.Parse(text.str().c_str());
  if (!manifest.IsObject() || !manifest.HasMember("schema") || !manifest["schema"].IsString() ||
      std::string(manifest["schema"].GetString()) != kManifestSchema) {
    return std::nullopt;
  }
  const auto text_of = [&](const char* name) {
    const auto it = manifest.FindMember(name);
    return it != manifest.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString())
                                                              : std::string();
  };
  const auto number_of = [&](const char* name) {
    const auto it = manifest.FindMember(name);
    return it != manifest.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : int64_t{0};
  };
  WorkdirSnapshot snapshot;
  snapshot.experiment_id = number_of("experiment_id");
  snapshot.launch_dir = text_of("launch_dir");
  snapshot.root = text_of("root");
  snapshot.digest = text_of("digest");
  snapshot.rules = text_of("rules");
  snapshot.files = number_of("files");
  snapshot.bytes = number_of("bytes");
  snapshot.files_read = number_of("files_read");
  snapshot.bytes_read = number_of("bytes_read");
  snapshot.created_at = number_of("created_at");
  return snapshot;
}

SnapshotVerification verify_workdir_snapshots(std::optional<int64_t> experiment_id) {
  SnapshotVerification verification;
  if (experiment_id) {
    const std::string dir = experiment_dir(*experiment_id);
    std::ifstream sums(dir + "/tree.sha256");
    if (!sums) {
      throw Error::not_found("experiment " + std::to_string(*experiment_id) +
                             " has no snapshot with checksums in " + dir +
                             " (its units ran from the live directory, or an older sortie "
                             "took it)");
    }
    std::string line;
    while (std::getline(sums, line)) {
      if (line.size() < 67) continue;
      const std::string relative = line.substr(66);
      struct stat info {};
      const std::string path = dir + "/tree/" + relative;
      if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) ||
          detail::file_digest(path) != line.substr(0, 64)) {
        verification.changed_files.push_back(relative);
      }
    }
  }
  detail::BlobStore blobs(workdir_snapshot_dir() + "/blobs");
  detail::BlobCheck check = blobs.check_all();
  verification.blobs = check.blobs;
  verification.bytes = check.bytes;
  verification.corrupt_blobs = std::move(check.corrupt);
  return verification;
}

}  // namespace sortie::xm
