// File: core/xm/include/sortie/xm/session_binding.hpp
//
// The launch API over an existing session, for the CLI: `sortie launch` and `sortie experiments`
// share the command's session (its plugin host with --isolate-plugins and --plugin-timeout, its
// store) and are thin clients of sortie/xm.hpp. Not installed.
#ifndef SORTIE_XM_SESSION_BINDING_HPP
#define SORTIE_XM_SESSION_BINDING_HPP

#include <memory>
#include <sortie/session/session.hpp>
#include <sortie/xm.hpp>
#include <string>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

// The session of Experiment::create and list_experiments for `options`.
session::SessionOptions session_options(const Options& options);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

namespace sortie::xm {

struct SessionBinding {
  // As Experiment::create and Experiment::get, over `session`, which must outlive the experiment.
  static Experiment create(session::Session& session, const std::string& title,
                           const std::string& launch_dir, const std::string& launch_script);
  static Experiment get(session::Session& session, int64_t id);
  // Options::live_workdir for an experiment made by create (`sortie launch --live-workdir`).
  static void use_live_workdir(Experiment& experiment);
  // As list_experiments.
  static std::vector<ExperimentSummary> list(session::Session& session, int limit,
                                             const std::string& tag = "");

 private:
  friend class Experiment;
  // The recorded experiment `id` (NOT_FOUND if none), with its recorded launch directory when
  // `recorded_launch_dir`.
  static Experiment reopened(std::unique_ptr<Experiment::Impl> impl, int64_t id,
                             bool recorded_launch_dir);
};

}  // namespace sortie::xm

#endif  // SORTIE_XM_SESSION_BINDING_HPP
