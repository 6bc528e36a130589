// File: sortie/limits.hpp
//
// Every size, depth and count limit on what sortie reads, in one table (docs/limits.md gives each
// as a numbered rule). A small input must never cost unbounded memory, time or stack, so each
// reader checks its input against one of these before it builds anything from it. A limit is
// raised for one command with the environment variable SORTIE_LIMIT_<NAME>=<n>; the error that
// names a limit names that variable too.
//
// Standard C++17 only (rule ABI-9 of sdk/README.md).
#ifndef SORTIE_LIMITS_HPP
#define SORTIE_LIMITS_HPP

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <sortie/error.hpp>
#include <string>

namespace sortie::limits {

struct Limit {
  const char* name;  // SORTIE_LIMIT_<name> raises it
  const char* rule;  // its rule in docs/limits.md
  std::size_t default_value;
  const char* unit;
};

inline constexpr std::size_t kMiB = std::size_t{1} << 20;

inline constexpr Limit kJsonDepth{"JSON_DEPTH", "L-1", 128, "levels of nesting"};
inline constexpr Limit kYamlDepth{"YAML_DEPTH", "L-2", 128, "levels of nesting"};
inline constexpr Limit kYamlNodes{"YAML_NODES", "L-3", 100000, "nodes (aliases expanded)"};
inline constexpr Limit kSpecFileBytes{"SPEC_FILE_BYTES", "L-4", 4 * kMiB, "bytes"};
inline constexpr Limit kExperimentFileBytes{"EXPERIMENT_FILE_BYTES", "L-5", 4 * kMiB, "bytes"};
inline constexpr Limit kManifestBytes{"MANIFEST_BYTES", "L-6", 1 * kMiB, "bytes"};
inline constexpr Limit kConfigFileBytes{"CONFIG_FILE_BYTES", "L-7", 1 * kMiB, "bytes"};
inline constexpr Limit kAppIdBytes{"APP_ID_BYTES", "L-8", 1024, "bytes"};
inline constexpr Limit kStatusAnswerBytes{"STATUS_ANSWER_BYTES", "L-9", 4 * kMiB, "bytes"};
inline constexpr Limit kListAnswerBytes{"LIST_ANSWER_BYTES", "L-10", 64 * kMiB, "bytes"};
inline constexpr Limit kPluginAnswerBytes{"PLUGIN_ANSWER_BYTES", "L-11", 64 * kMiB, "bytes"};
inline constexpr Limit kPluginMessageBytes{"PLUGIN_MESSAGE_BYTES", "L-12", 64 * 1024, "bytes"};
inline constexpr Limit kReplicasPerRole{"REPLICAS_PER_ROLE", "L-13", 10000, "replicas"};
inline constexpr Limit kWorkUnitsPerSweep{"WORK_UNITS_PER_SWEEP", "L-14", 10000, "work units"};
inline constexpr Limit kRegexAtoms{"REGEX_ATOMS", "L-15", 2000, "atoms"};
inline constexpr Limit kWorkdirSnapshotBytes{"WORKDIR_SNAPSHOT_BYTES", "L-18", 2048 * kMiB,
                                             "bytes"};
inline constexpr Limit kUiStreamsPerClient{"UI_STREAMS_PER_CLIENT", "L-16", 32, "open streams"};
inline constexpr Limit kUiStreams{"UI_STREAMS", "L-17", 256, "open streams"};
inline constexpr Limit kCodeDiffBytes{"CODE_DIFF_BYTES", "L-19", 1 * kMiB, "bytes"};
inline constexpr Limit kUntrackedFiles{"UNTRACKED_FILES", "L-20", 1000, "file names"};
inline constexpr Limit kLaunchScriptBytes{"LAUNCH_SCRIPT_BYTES", "L-21", 1 * kMiB, "bytes"};
inline constexpr Limit kExperimentNotesBytes{"EXPERIMENT_NOTES_BYTES", "L-22", 64 * 1024, "bytes"};
inline constexpr Limit kExperimentTags{"EXPERIMENT_TAGS", "L-23", 100, "tags"};
inline constexpr Limit kMeasurementPoints{"MEASUREMENT_POINTS", "L-24", 10000, "points per series"};
inline constexpr Limit kMeasurementSeries{"MEASUREMENT_SERIES", "L-25", 1000, "series per app"};
inline constexpr Limit kLogLineBytes{"LOG_LINE_BYTES", "L-26", 4 * kMiB, "bytes"};

inline std::string variable_of(const Limit& limit) {
  return std::string("SORTIE_LIMIT_") + limit.name;
}

// The limit in force: SORTIE_LIMIT_<name> when set, else the default. A value that is not a
// positive integer is refused rather than read as "no limit".
inline std::size_t value(const Limit& limit) {
  const std::string variable = variable_of(limit);
  const char* text = std::getenv(variable.c_str());
  if (text == nullptr || *text == '\0') return limit.default_value;
  char* end = nullptr;
  errno = 0;
  const unsigned long long parsed = std::strtoull(text, &end, 10);
  if (*text < '1' || *text > '9' || *end != '\0' || errno == ERANGE) {
    throw Error::invalid_argument(variable + "='" + text +
                                  "' is not a positive integer; set it to the new limit (" +
                                  std::to_string(limit.default_value) + " " + limit.unit +
                                  " by default, docs/limits.md " + limit.rule + ") or unset it");
  }
  return static_cast<std::size_t>(parsed);
}

// "<what> exceeds the limit of N <unit> (docs/limits.md L-n); raise it with SORTIE_LIMIT_X=<n>",
// for an error message.
inline std::string exceeded(const std::string& what, const Limit& limit) {
  return what + " exceeds the limit of " + std::to_string(value(limit)) + " " + limit.unit +
         " (docs/limits.md " + limit.rule + "); raise it with " + variable_of(limit) + "=<n>";
}

}  // namespace sortie::limits

#endif  // SORTIE_LIMITS_HPP
