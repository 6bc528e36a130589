#include "bazel_packager.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sortie/sha256.hpp>
#include <utility>
#include <vector>

#include "bazel_build.hpp"
#include "bazel_command.hpp"
#include "digest_store.hpp"
#include "package_result.hpp"

namespace sortie::bazel {
namespace {

// One element of sortie.package_result/1: a process (bazel_binary) or a container tarball
// handed on to the `container` packager (bazel_container).
struct Packaged {
  std::string entrypoint;  // process
  std::string digest;      // process
  bool cached = false;     // process
  std::string image_path;  // container
};

// The executables of a request that share bazel_args, which one `bazel build` makes together.
struct BuildGroup {
  std::vector<std::string> bazel_args;
  std::vector<size_t> executables;  // indexes into the request
  std::vector<std::string> labels;  // distinct, in request order
};

std::vector<BuildGroup> group_by_bazel_args(const PackageRequest& request) {
  std::vector<BuildGroup> groups;
  for (size_t i = 0; i < request.executables.size(); ++i) {
    const BazelExecutable& executable = request.executables[i];
    auto group = std::find_if(groups.begin(), groups.end(), [&](const BuildGroup& candidate) {
      return candidate.bazel_args == executable.bazel_args;
    });
    if (group == groups.end()) {
      group = groups.insert(groups.end(), BuildGroup{executable.bazel_args, {}, {}});
    }
    group->executables.push_back(i);
    if (std::find(group->labels.begin(), group->labels.end(), executable.label) ==
        group->labels.end()) {
      group->labels.push_back(executable.label);
    }
  }
  return groups;
}

std::string describe_group(const PackageRequest& request, const BuildGroup& group) {
  std::string text;
  for (const size_t index : group.executables) {
    text += (text.empty() ? "" : ", ") + request.executables[index].described;
  }
  return text;
}

bool is_tarball(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  for (const char* suffix : {".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"}) {
    if (name.ends_with(suffix)) return true;
  }
  return false;
}

[[noreturn]] void refuse(const BazelExecutable& executable, const std::string& why) {
  throw Error::failed_precondition(executable.described + ": " + why);
}

DigestStore::Key digest_key(const BazelExecutable& executable, const Workspace& workspace) {
  return {workspace.root, executable.label, executable.bazel_args};
}

Packaged package_binary(const BazelExecutable& executable, const TargetOutputs& outputs,
                        const Workspace& workspace, const DigestStore& digests) {
  if (outputs.executable.empty()) {
    refuse(executable,
           "Bazel reports no executable for the target (files_to_run.executable); name a "
           "*_binary target or an executable file");
  }
  if (::access(outputs.executable.c_str(), X_OK) != 0) {
    refuse(executable, outputs.executable + " was not built or is not executable");
  }
  Packaged packaged;
  packaged.entrypoint = outputs.executable;
  packaged.digest = file_sha256(outputs.executable);
  packaged.cached = digests.previous(digest_key(executable, workspace)) == packaged.digest;
  return packaged;
}

Packaged package_container(const BazelExecutable& executable, const TargetOutputs& outputs) {
  std::string listed;
  for (const std::string& file : outputs.files) listed += " " + file;
  if (outputs.files.size() != 1 || !is_tarball(outputs.files.front())) {
    refuse(executable,
           "a bazel_container target must make exactly one output, a `docker save` tarball "
           "(.tar, .tar.gz, .tgz, .tar.bz2 or .tar.xz); it made " +
               std::to_string(outputs.files.size()) + ":" + (listed.empty() ? " none" : listed));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(outputs.files.front(), ec)) {
    refuse(executable, outputs.files.front() + " was not built");
  }
  Packaged packaged;
  packaged.image_path = outputs.files.front();
  return packaged;
}

std::string package_result(const PackageRequest& request, const std::vector<Packaged>& packaged) {
  plugins_common::PackageResultWriter result;
  for (size_t i = 0; i < packaged.size(); ++i) {
    if (request.executables[i].kind == kBinaryKind) {
      result.add_process(packaged[i].entrypoint, packaged[i].digest, packaged[i].cached);
    } else {
      result.add_container_archive(packaged[i].image_path);
    }
  }
  return result.finish();
}

}  // namespace

BazelPackager::BazelPackager(std::string_view config, std::string_view name)
    : config_(read_packager_config(config, name)) {}

std::string BazelPackager::package(std::string_view text) {
  const PackageRequest request = read_package_request(text, config_.name);
  if (request.executables.empty()) return package_result(request, {});
  std::error_code ec;
  if (!std::filesystem::is_directory(request.launch_dir, ec)) {
    throw Error::invalid_argument("sortie.package_request/1: launch_dir " + request.launch_dir +
                                  " is not a directory");
  }
  const BazelCommand bazel = BazelCommand::from_environment();
  const Workspace workspace = locate_workspace(bazel, request.launch_dir);
  const DigestStore digests(config_.state_dir);

  std::vector<Packaged> packaged(request.executables.size());
  for (const BuildGroup& group : group_by_bazel_args(request)) {
    build_targets(bazel, workspace, group.labels, group.bazel_args, describe_group(request, group));
    const auto outputs = query_outputs(bazel, workspace, group.labels, group.bazel_args);
    for (const size_t index : group.executables) {
      const BazelExecutable& executable = request.executables[index];
      const TargetOutputs& target = outputs.at(executable.label);
      packaged[index] = executable.kind == kBinaryKind
                            ? package_binary(executable, target, workspace, digests)
                            : package_container(executable, target);
    }
  }
  // Recorded once every build succeeded, so a label listed twice compares with the previous
  // packaging, not with itself.
  for (size_t i = 0; i < packaged.size(); ++i) {
    if (request.executables[i].kind == kBinaryKind) {
      digests.record(digest_key(request.executables[i], workspace), packaged[i].digest);
    }
  }
  return package_result(request, packaged);
}

}  // namespace sortie::bazel
