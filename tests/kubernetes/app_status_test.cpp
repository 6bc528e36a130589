// App and replica states from API objects: Job conditions, pod phases and container states,
// Volcano phases and JobSet conditions, with the reasons carried into the messages.
#include "app_status.hpp"

#include <gtest/gtest.h>

namespace sortie::kubernetes {
namespace {

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

std::string pod(const std::string& role, int index, const std::string& created,
                const std::string& status) {
  return R"({"metadata":{"name":"p-)" + std::to_string(index) + "-" + created +
         R"(","creationTimestamp":"2024-01-01T00:00:0)" + created +
         R"(Z","labels":{"batch.kubernetes.io/job-completion-index":")" + std::to_string(index) +
         R"("},"annotations":{"sortie.dev/role-name":")" + role + R"("}},"spec":{"nodeName":"n1"},
         "status":)" +
         status + "}";
}

std::string job(const std::string& role, int completions, const std::string& status) {
  return R"({"metadata":{"name":"j-)" + role + R"(","annotations":{"sortie.dev/role-name":")" +
         role + R"(","sortie.dev/app-name":"My App"}},"spec":{"completions":)" +
         std::to_string(completions) + R"(},"status":)" + status + "}";
}

TEST(KubernetesAppStatusTest, RetriedReplicaUsesItsNewestPodAndCountsRestarts) {
  const auto jobs = parse(R"({"items":[)" + job("trainer", 1, R"({"active":1})") + "]}");
  const auto pods = parse(
      R"({"items":[)" +
      pod("trainer", 0, "1",
          R"({"phase":"Failed","containerStatuses":[{"state":{"terminated":{"exitCode":2,"reason":"Error"}}}]})") +
      "," +
      pod("trainer", 0, "2",
          R"({"phase":"Running","startTime":"2024-01-01T00:00:03Z","containerStatuses":[{"restartCount":0,"state":{"running":{"startedAt":"2024-01-01T00:00:04Z"}}}]})") +
      "]}");
  const KubernetesApp app = status_from_jobs(jobs, pods);
  const AppStatus& status = app.status;
  EXPECT_EQ(app.name, "My App");
  EXPECT_EQ(status.state, AppState::kRunning);
  ASSERT_EQ(status.roles.size(), 1u);
  const ReplicaStatus& replica = status.roles[0].replicas[0];
  EXPECT_EQ(replica.state, AppState::kRunning);
  EXPECT_EQ(replica.restarts, 1);
  EXPECT_EQ(app.pod_of("trainer", 0), "p-0-2");
  EXPECT_EQ(replica.started_at, 1704067204000000000);
  EXPECT_EQ(status.num_restarts, 1);
}

TEST(KubernetesAppStatusTest, OneFailedRoleFailsTheAppWithItsReason) {
  const auto jobs = parse(
      R"({"items":[)" + job("ps", 1, R"({"conditions":[{"type":"Complete","status":"True"}]})") +
      "," +
      job("trainer", 1,
          R"({"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded","message":"Job was active longer than specified deadline"}]})") +
      "]}");
  const AppStatus status = status_from_jobs(jobs, parse(R"({"items":[]})")).status;
  EXPECT_EQ(status.state, AppState::kFailed);
  EXPECT_NE(status.msg.find("role trainer: Job failed: DeadlineExceeded: Job was active longer"),
            std::string::npos)
      << status.msg;
  EXPECT_EQ(status.roles[1].replicas[0].state, AppState::kFailed)
      << "pods may be gone; the Job is not";
}

TEST(KubernetesAppStatusTest, SuspendedJobWaitsForItsQueue) {
  const auto jobs =
      parse(R"({"items":[)" +
            job("r", 2, R"({"conditions":[{"type":"Suspended","status":"True"}]})") + "]}");
  const AppStatus status = status_from_jobs(jobs, parse(R"({"items":[]})")).status;
  EXPECT_EQ(status.state, AppState::kPending);
  EXPECT_NE(status.msg.find("Job is suspended (waiting for its queue to admit it)"),
            std::string::npos);
  EXPECT_EQ(status.roles[0].replicas.size(), 2u);
}

TEST(KubernetesAppStatusTest, EvictedPodShowsThePodReason) {
  const auto jobs = parse(R"({"items":[)" + job("r", 1, R"({"active":1})") + "]}");
  const auto pods = parse(
      R"({"items":[)" +
      pod("r", 0, "1",
          R"({"phase":"Failed","reason":"Evicted","message":"The node was low on resource: memory."})") +
      "]}");
  const AppStatus status = status_from_jobs(jobs, pods).status;
  EXPECT_EQ(status.roles[0].replicas[0].state, AppState::kFailed);
  EXPECT_EQ(status.roles[0].replicas[0].msg, "Evicted: The node was low on resource: memory.");
}

TEST(KubernetesAppStatusTest, VolcanoPhasesMapAsTorchXMapsThem) {
  const auto pods = parse(R"({"items":[]})");
  for (const auto& [phase, state] :
       std::vector<std::pair<std::string, AppState>>{{"Pending", AppState::kPending},
                                                     {"Inqueue", AppState::kPending},
                                                     {"Running", AppState::kRunning},
                                                     {"Restarting", AppState::kRunning},
                                                     {"Completed", AppState::kSucceeded},
                                                     {"Failed", AppState::kFailed},
                                                     {"Terminated", AppState::kFailed},
                                                     {"Aborted", AppState::kCancelled}}) {
    const auto job = parse(
        R"({"spec":{"tasks":[{"name":"t-0","template":{"metadata":{"annotations":{"sortie.dev/role-name":"t"}}}}]},"status":{"state":{"phase":")" +
        phase + R"(","reason":"PodFailed"}}})");
    EXPECT_EQ(status_from_volcano_job(job, pods).status.state, state) << phase;
    EXPECT_EQ(state_of_object(Gang::kVolcano, job), state) << phase;
  }
}

TEST(KubernetesAppStatusTest, JobSetConditionsDecide) {
  const auto pods = parse(R"({"items":[]})");
  const auto failed = parse(
      R"({"spec":{"replicatedJobs":[{"name":"w","template":{"spec":{"completions":2}}}]},
          "status":{"restarts":3,"conditions":[{"type":"Failed","status":"True","reason":"FailedJobs","message":"jobset failed due to one or more job failures"}]}})");
  const AppStatus status = status_from_jobset(failed, pods).status;
  EXPECT_EQ(status.state, AppState::kFailed);
  EXPECT_EQ(status.num_restarts, 3);
  EXPECT_EQ(status.roles[0].replicas.size(), 2u);
  EXPECT_NE(status.msg.find("JobSet failed: FailedJobs"), std::string::npos);
  EXPECT_EQ(
      state_of_object(Gang::kJobSet,
                      parse(R"({"status":{"conditions":[{"type":"Completed","status":"True"}]}})")),
      AppState::kSucceeded);
}

// One table maps pod phases; a phase Kubernetes reports for an unreachable node stays UNKNOWN.
TEST(KubernetesAppStatusTest, PodPhasesMapThroughOneTable) {
  EXPECT_EQ(state_of_pod_phase(""), AppState::kPending);
  EXPECT_EQ(state_of_pod_phase("Pending"), AppState::kPending);
  EXPECT_EQ(state_of_pod_phase("Running"), AppState::kRunning);
  EXPECT_EQ(state_of_pod_phase("Succeeded"), AppState::kSucceeded);
  EXPECT_EQ(state_of_pod_phase("Failed"), AppState::kFailed);
  EXPECT_EQ(state_of_pod_phase("Unknown"), AppState::kUnknown);
  const auto jobs = parse(R"({"items":[)" + job("r", 1, R"({"active":1})") + "]}");
  const auto pods = parse(R"({"items":[)" + pod("r", 0, "1", R"({"phase":"Unknown"})") + "]}");
  const ReplicaStatus replica = status_from_jobs(jobs, pods).status.roles[0].replicas[0];
  EXPECT_EQ(replica.state, AppState::kUnknown);
  EXPECT_EQ(replica.msg, "pod phase Unknown");
}

}  // namespace
}  // namespace sortie::kubernetes
