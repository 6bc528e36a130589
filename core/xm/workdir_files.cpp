#include "workdir_files.hpp"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sstream>

#include "git_output.hpp"
#include "model_files.hpp"

namespace sortie::xm::detail {
namespace {

namespace fs = std::filesystem;

// One line of a .sortieignore (or of the default list): a glob over a path's last component, or,
// when it holds a '/', over the whole path from the launch directory.
struct IgnorePattern {
  std::string glob;
  bool anchored = false;
  bool dir_only = false;  // written with a trailing '/'
};

// What a launch directory outside git leaves out: version-control metadata, caches and virtual
// environments, rebuilt or fetched rather than edited.
const char* const kDefaultExcludes[] = {".git/",
                                        ".hg/",
                                        ".svn/",
                                        "__pycache__/",
                                        "*.pyc",
                                        ".venv/",
                                        "venv/",
                                        "node_modules/",
                                        ".mypy_cache/",
                                        ".tox/",
                                        "bazel-*",
                                        ".pytest_cache/",
                                        ".ipynb_checkpoints/"};

IgnorePattern parse_pattern(std::string line, const std::string& where) {
  IgnorePattern pattern;
  if (line.front() == '!' || line.find("**") != std::string::npos) {
    throw Error::invalid_argument(
        where + ": '" + line +
        "': negation ('!') and '**' are not supported in a .sortieignore; write a glob of a name "
        "(build) or of a path from the launch directory (data/raw/*.csv)");
  }
  if (line.back() == '/') {
    pattern.dir_only = true;
    line.pop_back();
  }
  const bool rooted = !line.empty() && line.front() == '/';
  if (rooted) line.erase(0, 1);
  if (line.empty()) throw Error::invalid_argument(where + ": '/' alone names nothing");
  pattern.anchored = rooted || line.find('/') != std::string::npos;
  pattern.glob = line;
  return pattern;
}

std::vector<IgnorePattern> sortieignore_patterns(const std::string& launch_dir) {
  std::vector<IgnorePattern> patterns;
  const std::string path = launch_dir + "/.sortieignore";
  // A regular file of bounded size or refused at once: a FIFO there would hold the launch for
  // ever, a device would never end.
  const std::optional<std::string> text = model::read_text_file_if_exists(
      path, "the launch directory's ignore file", limits::kConfigFileBytes);
  std::istringstream in(text.value_or(""));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    patterns.push_back(parse_pattern(line, path + ":" + std::to_string(number)));
  }
  return patterns;
}

bool matches(const IgnorePattern& pattern, const std::string& path, bool is_dir) {
  if (pattern.dir_only && !is_dir) return false;
  if (pattern.anchored) return ::fnmatch(pattern.glob.c_str(), path.c_str(), FNM_PATHNAME) == 0;
  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  return ::fnmatch(pattern.glob.c_str(), name.c_str(), 0) == 0;
}

// Whether `relative` or a directory above it is excluded.
bool excluded(const std::vector<IgnorePattern>& patterns, const std::string& relative) {
  for (size_t end = relative.find('/'); end != std::string::npos;
       end = relative.find('/', end + 1)) {
    const std::string dir = relative.substr(0, end);
    for (const IgnorePattern& pattern : patterns) {
      if (matches(pattern, dir, true)) return true;
    }
  }
  for (const IgnorePattern& pattern : patterns) {
    if (matches(pattern, relative, false)) return true;
  }
  return false;
}

// The paths `git ls-files` keeps under `dir`, or nothing when `dir` is not in a git work tree
// (or git is not installed), or when git keeps none of it: a launch directory that .gitignore
// leaves out as a whole is taken by the rules outside git, not as an empty tree. A repository
// git refuses as another user's is still read (its .gitignore honoured), with a warning that
// names git's safe.directory.
std::optional<std::vector<std::string>> git_kept_files(const std::string& dir,
                                                       std::vector<std::string>& warnings) {
  // The names are bounded as the files are (L-18): a listing that long names more than a
  // snapshot may hold.
  const std::vector<std::string> args = {"ls-files", "-z", "--cached", "--others",
                                         "--exclude-standard"};
  const size_t max_bytes = limits::value(limits::kWorkdirSnapshotBytes);
  GitOutput listing = git_output(dir, args, max_bytes);
  if (listing.refused_ownership) {
    listing = git_output(dir, args, max_bytes, true);
    warnings.push_back("git refuses the repository of " + dir +
                       " as another user's (its safe.directory rule); its file list was read "
                       "with every program its config names turned off, so .gitignore still "
                       "applies. To trust it: git config --global --add safe.directory " +
                       dir);
  }
  if (listing.truncated) {
    throw Error::resource_exhausted(
        limits::exceeded("the list of files git keeps in " + dir, limits::kWorkdirSnapshotBytes));
  }
  if (!listing.started || listing.exit_status != 0 || listing.out.empty()) return std::nullopt;
  std::vector<std::string> paths;
  for (size_t start = 0; start < listing.out.size();) {
    const size_t end = listing.out.find('\0', start);
    paths.push_back(listing.out.substr(start, end - start));
    start = end == std::string::npos ? listing.out.size() : end + 1;
  }
  return paths;
}

bool under(const std::string& path, const std::vector<std::string>& dirs) {
  return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& dir) {
    return path == dir || path.rfind(dir + "/", 0) == 0;
  });
}

class Collector {
 public:
  Collector(std::string launch_dir, std::vector<std::string> skipped_dirs,
            std::vector<IgnorePattern> patterns)
      : launch_dir_(std::move(launch_dir)),
        skipped_dirs_(std::move(skipped_dirs)),
        patterns_(std::move(patterns)) {}

  // Adds `relative` when it is a regular file or a link; walks it when it is a directory (a git
  // submodule, or the whole launch directory outside git).
  void add(const std::string& relative) {
    if (relative.empty() || excluded(patterns_, relative)) return;
    const std::string path = launch_dir_ + "/" + relative;
    if (under(path, skipped_dirs_)) return;
    WorkdirFile file{relative, {}};
    if (::lstat(path.c_str(), &file.info) != 0) return;  // deleted since git listed it
    if (S_ISDIR(file.info.st_mode)) {
      walk(relative);
    } else if (S_ISREG(file.info.st_mode) || S_ISLNK(file.info.st_mode)) {
      if (S_ISREG(file.info.st_mode)) found_.bytes += file.info.st_size;
      found_.files.push_back(std::move(file));
    }
  }

  void walk(const std::string& relative) {
    const fs::path dir =
        relative.empty() ? fs::path(launch_dir_) : fs::path(launch_dir_) / relative;
    std::error_code error;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
      const std::string name = entry.path().filename().string();
      add(relative.empty() ? name : relative + "/" + name);
    }
    if (error) {
      throw Error::failed_precondition("cannot list " + dir.string() +
                                       " to snapshot it: " + error.message());
    }
  }

  WorkdirFiles take(std::string rules) {
    found_.rules = std::move(rules);
    std::sort(found_.files.begin(), found_.files.end(),
              [](const WorkdirFile& a, const WorkdirFile& b) { return a.relative < b.relative; });
    return std::move(found_);
  }

 private:
  std::string launch_dir_;
  std::vector<std::string> skipped_dirs_;
  std::vector<IgnorePattern> patterns_;
  WorkdirFiles found_;
};

// Refuses a snapshot past L-16, naming the biggest files so the user knows what to exclude.
void check_size(const WorkdirFiles& listed, const std::string& launch_dir) {
  if (static_cast<size_t>(listed.bytes) <= limits::value(limits::kWorkdirSnapshotBytes)) return;
  std::vector<const WorkdirFile*> biggest;
  for (const WorkdirFile& file : listed.files) biggest.push_back(&file);
  const size_t shown = std::min<size_t>(5, biggest.size());
  std::partial_sort(
      biggest.begin(), biggest.begin() + static_cast<ptrdiff_t>(shown), biggest.end(),
      [](const WorkdirFile* a, const WorkdirFile* b) { return a->info.st_size > b->info.st_size; });
  std::string names;
  for (size_t i = 0; i < shown; ++i) {
    names += (i == 0 ? "" : ", ") + biggest[i]->relative + " (" +
             std::to_string(biggest[i]->info.st_size) + " bytes)";
  }
  throw Error::resource_exhausted(
      limits::exceeded("the snapshot of launch directory " + launch_dir + " (" +
                           std::to_string(listed.bytes) + " bytes in " +
                           std::to_string(listed.files.size()) + " files)",
                       limits::kWorkdirSnapshotBytes) +
      "; the biggest files: " + names +
      ". Exclude them (.gitignore, or .sortieignore outside git), or run the units from the "
      "live directory (live_workdir)");
}

}  // namespace

WorkdirFiles list_workdir_files(const std::string& launch_dir,
                                const std::vector<std::string>& skipped_dirs) {
  std::vector<IgnorePattern> patterns = sortieignore_patterns(launch_dir);
  std::vector<std::string> warnings;
  const std::optional<std::vector<std::string>> kept = git_kept_files(launch_dir, warnings);
  if (!kept) {
    for (const char* line : kDefaultExcludes) patterns.push_back(parse_pattern(line, "default"));
  }
  Collector collector(launch_dir, skipped_dirs, std::move(patterns));
  if (kept) {
    for (const std::string& relative : *kept) collector.add(relative);
  } else {
    collector.walk("");
  }
  WorkdirFiles listed = collector.take(kept ? "git" : "default");
  listed.warnings = std::move(warnings);
  check_size(listed, launch_dir);
  return listed;
}

}  // namespace sortie::xm::detail
