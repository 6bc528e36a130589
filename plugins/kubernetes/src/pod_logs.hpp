// log_open()/log_next() of the kubernetes scheduler (payloads.md P-10): the container logs of
// each selected replica's newest pod, read with timestamps=true so that since/until are exact.
// With follow, one worker per replica streams its pod's log (follow=true), moves on to a retried
// pod, and ends once the app is terminal and everything was read. Besides P-10's members the
// request may carry "tail": N, the last N lines of each replica (the API's tailLines).
#ifndef SORTIE_KUBERNETES_POD_LOGS_HPP
#define SORTIE_KUBERNETES_POD_LOGS_HPP

#include <memory>
#include <sortie/plugin.hpp>
#include <string_view>

#include "app_ref.hpp"
#include "kubeconfig.hpp"

namespace sortie::kubernetes {

class PodLogStream : public LogStream {
 public:
  // Throws NOT_FOUND for an unknown app, role or replica; UNIMPLEMENTED for streams other than
  // "combined" (Kubernetes keeps one log per container).
  PodLogStream(const ClusterConnection& connection, const AppRef& ref, std::string_view request);
  ~PodLogStream() override;

  bool next(int64_t timeout_ms, const LogSink& sink) override;

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_POD_LOGS_HPP
