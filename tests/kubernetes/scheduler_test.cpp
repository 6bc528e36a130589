// The kubernetes scheduler against the fake API server over mutual TLS: submission, status
// through the pod and Job state sequences (with the reasons shown), list, logs, cancel, and every
// API error turned into a clear message with the right code.
#include <gtest/gtest.h>
#include <rapidjson/pointer.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "fake_cluster.hpp"
#include "kubernetes_scheduler.hpp"

namespace sortie::kubernetes {
namespace {

using testing::FakeApiServer;
using testing::TempDir;
using testing::test_pki;

struct CollectedLine {
  std::string role;
  uint32_t replica;
  std::string data;
};

class KubernetesSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (test_pki().dir.empty()) {
      if (testing::in_ci()) FAIL() << "openssl is required (CI=true)";
      GTEST_SKIP() << "openssl is not installed";
    }
    // Hermetic: no default kubeconfig of the machine running the tests is ever read.
    ::setenv("KUBECONFIG", (files_.path() + "/no-default-kubeconfig").c_str(), 1);
    ::unsetenv("KUBERNETES_SERVICE_HOST");
    server_ = std::make_unique<FakeApiServer>(options_);
    kubeconfig_ =
        kubeconfig_for(server_->url(), "    client-certificate: " + test_pki().client_cert +
                                           "\n    client-key: " + test_pki().client_key + "\n");
    scheduler_ = make_scheduler();
  }

  std::string kubeconfig_for(const std::string& url, const std::string& user) {
    static int count = 0;
    const std::string dir = files_.path() + "/kc" + std::to_string(count++);
    std::filesystem::create_directories(dir);
    return testing::write_kubeconfig(
        dir, url, "    certificate-authority: " + test_pki().ca_cert + "\n", user);
  }

  std::unique_ptr<KubernetesScheduler> make_scheduler() {
    return std::make_unique<KubernetesScheduler>(
        R"({"schema":"sortie.scheduler_config/1","scheduler":"kubernetes","session":"exp","state_dir":")" +
        state_.path() + "\"}");
  }

  // Dry-runs and submits; returns the app id.
  std::string submit(const std::string& image, int replicas = 2, const std::string& extra_cfg = "",
                     const std::string& name = "trainer-abc") {
    return scheduler_->schedule(dryrun(image, replicas, extra_cfg, name));
  }

  std::string dryrun(const std::string& image, int replicas, const std::string& extra_cfg,
                     const std::string& name, const std::string& kubeconfig = "") {
    const std::string app = R"({"name":"trainer","roles":[{"name":"trainer","image":")" + image +
                            R"(","entrypoint":"python","num_replicas":)" +
                            std::to_string(replicas) + "}]}";
    const std::string cfg = R"({"kubeconfig":")" + (kubeconfig.empty() ? kubeconfig_ : kubeconfig) +
                            "\"" + extra_cfg + "}";
    return scheduler_->dryrun(R"({"schema":"sortie.dryrun_input/1","app":)" + app + R"(,"cfg":)" +
                              cfg + R"(,"app_id":")" + name + R"(","session":"exp"})");
  }

  rapidjson::Document describe(const std::string& app_id) {
    rapidjson::Document doc;
    doc.Parse(make_scheduler()->describe(app_id).c_str());  // a new process would do the same
    return doc;
  }

  static std::string field(const rapidjson::Document& doc, const char* pointer) {
    const Json* value = rapidjson::Pointer(pointer).Get(doc);
    return value != nullptr && value->IsString() ? value->GetString() : "<absent>";
  }

  template <class Call>
  static Code code_of(Call&& call, std::string* message = nullptr) {
    try {
      call();
    } catch (const Error& e) {
      if (message != nullptr) *message = e.what();
      return e.code();
    }
    return Code::kOk;
  }

  std::vector<CollectedLine> read_logs(const std::string& app_id, const std::string& request,
                                       const std::function<void()>& while_open = {}) {
    std::unique_ptr<LogStream> stream = make_scheduler()->log_open(app_id, request);
    std::vector<CollectedLine> lines;
    sortie_log_sink sink{};
    sink.ctx = &lines;
    sink.line = [](void* ctx, const sortie_log_line* line) {
      static_cast<std::vector<CollectedLine>*>(ctx)->push_back(
          {std::string(line->role.ptr, line->role.len), line->replica_id,
           std::string(line->data.ptr, line->data.len)});
    };
    std::atomic<bool> done{false};
    std::thread driver([&] {
      if (while_open) while_open();
      done = true;
    });
    for (int i = 0; i < 200 && stream->next(100, LogSink(&sink)); ++i) {
    }
    driver.join();
    EXPECT_TRUE(done);
    return lines;
  }

  testing::FakeServerOptions options_;
  TempDir files_, state_;
  std::unique_ptr<FakeApiServer> server_;
  std::string kubeconfig_;
  std::unique_ptr<KubernetesScheduler> scheduler_;
};

TEST_F(KubernetesSchedulerTest, StatusGoesPendingRunningSucceeded) {
  const std::string app_id = submit("registry.local/fake/succeed:1");
  EXPECT_EQ(app_id, "team-a:trainer-abc");
  rapidjson::Document status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "PENDING");
  EXPECT_EQ(field(status, "/roles/0/role"), "trainer");
  EXPECT_EQ(rapidjson::Pointer("/roles/0/replicas").Get(status)->Size(), 2u);
  server_->advance();
  status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "RUNNING");
  EXPECT_EQ(field(status, "/roles/0/replicas/1/state"), "RUNNING");
  EXPECT_EQ(field(status, "/roles/0/replicas/1/hostname"), "node-1");
  server_->advance();
  status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "SUCCEEDED");
  EXPECT_EQ(rapidjson::Pointer("/roles/0/replicas/0/exit_code").Get(status)->GetInt(), 0);
  EXPECT_EQ(field(status, "/metadata/name"), "trainer");

  // Created with strict field validation; the Service is owned by the Job (collected with it).
  const std::string requests = server_->requests_json();
  EXPECT_NE(requests.find("/apis/batch/v1/namespaces/team-a/jobs?fieldValidation=Strict"),
            std::string::npos);
  EXPECT_NE(requests.find("ownerReferences"), std::string::npos);
  EXPECT_NE(requests.find(R"(\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\")"),
            std::string::npos);
  EXPECT_EQ(requests.find(R"(\"uid\":\"\")"), std::string::npos)
      << "the owner reference carries the Job's uid";
}

TEST_F(KubernetesSchedulerTest, FailureShowsTheReasonAndExitCode) {
  const std::string app_id = submit("fake/fail:1", 1);
  server_->advance();
  server_->advance();
  const rapidjson::Document status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "FAILED");
  const std::string msg = field(status, "/msg");
  EXPECT_NE(msg.find("Job failed: BackoffLimitExceeded: Job has reached the specified backoff "
                     "limit"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("trainer/0: Error (exit code 3)"), std::string::npos) << msg;
  EXPECT_EQ(field(status, "/structured_error_msg"), msg);
  EXPECT_EQ(rapidjson::Pointer("/roles/0/replicas/0/exit_code").Get(status)->GetInt(), 3);
}

TEST_F(KubernetesSchedulerTest, OomKillIsNamed) {
  const std::string app_id = submit("fake/oomkilled:1", 1);
  server_->advance();
  server_->advance();
  EXPECT_NE(field(describe(app_id), "/msg").find("OOMKilled (exit code 137)"), std::string::npos);
}

TEST_F(KubernetesSchedulerTest, ImagePullErrorsAreShownWhilePending) {
  const std::string app_id = submit("fake/errimagepull:1", 1);
  rapidjson::Document status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "PENDING");
  EXPECT_NE(field(status, "/msg").find("trainer/0: ErrImagePull: failed to pull and unpack image"),
            std::string::npos)
      << field(status, "/msg");
  server_->advance();
  status = describe(app_id);
  EXPECT_NE(field(status, "/msg").find("ImagePullBackOff: Back-off pulling image"),
            std::string::npos);
  EXPECT_NE(field(status, "/roles/0/replicas/0/msg").find("ImagePullBackOff"), std::string::npos);
}

TEST_F(KubernetesSchedulerTest, UnschedulablePodsSayWhy) {
  const std::string app_id = submit("fake/unschedulable:1", 1);
  const rapidjson::Document status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "PENDING");
  EXPECT_NE(field(status, "/msg")
                .find("Unschedulable: 0/3 nodes are available: 3 Insufficient "
                      "nvidia.com/gpu"),
            std::string::npos)
      << field(status, "/msg");
}

TEST_F(KubernetesSchedulerTest, CrashLoopBackOffIsShownWhileRunning) {
  const std::string app_id = submit("fake/crashloop:1", 1);
  server_->advance();
  server_->advance();
  const rapidjson::Document status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "RUNNING");
  EXPECT_NE(field(status, "/msg")
                .find("CrashLoopBackOff: back-off 20s restarting failed "
                      "container=trainer (last exit code 1)"),
            std::string::npos)
      << field(status, "/msg");
  EXPECT_EQ(rapidjson::Pointer("/num_restarts").Get(status)->GetInt(), 2);
}

TEST_F(KubernetesSchedulerTest, ListFindsAppsByLabel) {
  const std::string done = submit("fake/succeed:1", 1, "", "first-app");
  const std::string running =
      submit("fake/succeed:1", 1, R"(,"gang_scheduler":"volcano")", "second-app");
  server_->advance();
  server_->advance();
  rapidjson::Document list;
  list.Parse(
      make_scheduler()->list(R"({"schema":"sortie.list_filter/1","session":"exp"})").c_str());
  ASSERT_EQ(list["apps"].Size(), 2u);
  EXPECT_EQ(field(list, "/apps/0/app_id"), done);
  EXPECT_EQ(field(list, "/apps/0/state"), "SUCCEEDED");
  EXPECT_EQ(field(list, "/apps/0/name"), "trainer");
  EXPECT_EQ(field(list, "/apps/1/app_id"), running);
  list.Parse(
      make_scheduler()->list(R"({"schema":"sortie.list_filter/1","session":"other"})").c_str());
  EXPECT_EQ(list["apps"].Size(), 0u);
  EXPECT_NE(
      server_->requests_json().find(
          "labelSelector=app.kubernetes.io%2Fmanaged-by%3Dsortie%2Csortie.dev%2Fsession%3Dexp"),
      std::string::npos);
}

TEST_F(KubernetesSchedulerTest, LogFollowStreamsEveryReplicaUntilTheAppEnds) {
  const std::string app_id = submit("fake/succeed:1", 2);
  const auto lines = read_logs(
      app_id, R"({"schema":"sortie.log_request/1","streams":"combined","follow":true})", [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        server_->advance();  // running: "starting ..." and "loss=0.5"
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        server_->advance();  // succeeded: "exit succeeded"
      });
  std::map<uint32_t, std::string> by_replica;
  for (const auto& line : lines) {
    EXPECT_EQ(line.role, "trainer");
    by_replica[line.replica] += line.data;
  }
  ASSERT_EQ(by_replica.size(), 2u);
  EXPECT_EQ(by_replica[0], "starting trainer replica 0\nloss=0.5\nexit succeeded\n");
  EXPECT_EQ(by_replica[1], "starting trainer replica 1\nloss=0.5\nexit succeeded\n");
}

TEST_F(KubernetesSchedulerTest, LogTailAndReplicaSelection) {
  const std::string app_id = submit("fake/succeed:1", 2);
  server_->advance();
  server_->advance();
  const auto lines = read_logs(
      app_id, R"({"schema":"sortie.log_request/1","role":"trainer","replica":1,"tail":1})");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].replica, 1u);
  EXPECT_EQ(lines[0].data, "exit succeeded\n");
  std::string message;
  EXPECT_EQ(code_of([&] { make_scheduler()->log_open(app_id, R"({"role":"eval"})"); }, &message),
            Code::kNotFound);
  EXPECT_NE(message.find("has no role 'eval' (roles: trainer)"), std::string::npos) << message;
  EXPECT_EQ(code_of([&] { make_scheduler()->log_open(app_id, R"({"streams":"stderr"})"); }),
            Code::kUnimplemented);
}

TEST_F(KubernetesSchedulerTest, CancelDeletesWithPropagationAndReportsCancelled) {
  const std::string app_id = submit("fake/succeed:1", 2);
  server_->advance();
  make_scheduler()->cancel(app_id);
  const std::string requests = server_->requests_json();
  EXPECT_NE(requests.find("\"DELETE\", \"path\": \"/apis/batch/v1/namespaces/team-a/jobs/"
                          "trainer-abc-trainer\""),
            std::string::npos)
      << requests;
  EXPECT_NE(requests.find("propagationPolicy\\\":\\\"Background"), std::string::npos);
  const rapidjson::Document status = describe(app_id);
  EXPECT_EQ(field(status, "/state"), "CANCELLED");
  make_scheduler()->cancel(app_id);  // cancelling again is not an error
}

TEST_F(KubernetesSchedulerTest, VolcanoAndJobSetAppsRunThrough) {
  for (const char* gang : {"volcano", "jobset"}) {
    const std::string app_id =
        submit("fake/succeed:1", 2, std::string(R"(,"gang_scheduler":")") + gang + "\"",
               std::string(gang) + "-app");
    EXPECT_EQ(app_id, std::string(gang) + ":team-a:" + gang + "-app");
    EXPECT_EQ(field(describe(app_id), "/state"), "PENDING") << gang;
    server_->advance();
    const rapidjson::Document running = describe(app_id);
    EXPECT_EQ(field(running, "/state"), "RUNNING") << gang;
    EXPECT_EQ(field(running, "/roles/0/replicas/1/state"), "RUNNING") << gang;
    server_->advance();
    EXPECT_EQ(field(describe(app_id), "/state"), "SUCCEEDED") << gang;
    make_scheduler()->cancel(app_id);  // terminal: keeps the objects
    EXPECT_EQ(field(describe(app_id), "/state"), "SUCCEEDED") << gang;
  }
}

TEST_F(KubernetesSchedulerTest, ApiErrorsBecomeClearMessages) {
  std::string message;
  // 401: credentials the server does not know.
  const std::string stranger = kubeconfig_for(server_->url(), "    token: expired\n");
  EXPECT_EQ(
      code_of([&] { scheduler_->schedule(dryrun("fake/succeed:1", 1, "", "a401", stranger)); },
              &message),
      Code::kUnauthenticated);
  EXPECT_NE(message.find("create Job 'a401-trainer' in namespace 'team-a': HTTP 401"),
            std::string::npos)
      << message;
  // 403: a user without RBAC permission.
  const std::string bob = kubeconfig_for(server_->url(), "    token: bob-token\n");
  EXPECT_EQ(code_of([&] { scheduler_->schedule(dryrun("fake/succeed:1", 1, "", "a403", bob)); },
                    &message),
            Code::kPermissionDenied);
  EXPECT_NE(message.find("User \"bob\" cannot create resource \"jobs\""), std::string::npos)
      << message;
  // 404: an app that does not exist (unknown here too, so $KUBECONFIG says where to look).
  ::setenv("KUBECONFIG", kubeconfig_.c_str(), 1);
  EXPECT_EQ(code_of([&] { describe("team-a:nothing-here"); }, &message), Code::kNotFound);
  EXPECT_NE(message.find("no Jobs labelled sortie.dev/app=nothing-here in namespace 'team-a'"),
            std::string::npos)
      << message;
  // 409: the same objects twice.
  const std::string request = dryrun("fake/succeed:1", 1, "", "twice");
  scheduler_->schedule(request);
  EXPECT_EQ(code_of([&] { scheduler_->schedule(request); }, &message), Code::kAlreadyExists);
  EXPECT_NE(message.find("jobs.batch \"twice-trainer\" already exists; submit again for a fresh "
                         "app id"),
            std::string::npos)
      << message;
  // 422: a manifest the server finds invalid (edited by hand after the dry run).
  std::string edited = dryrun("fake/succeed:1", 1, "", "edited");
  const std::string name = "\"name\":\"edited-trainer\"";
  edited.replace(edited.find(name), name.size(), "\"name\":\"Edited_Trainer\"");
  EXPECT_EQ(code_of([&] { scheduler_->schedule(edited); }, &message), Code::kInvalidArgument);
  EXPECT_NE(message.find("HTTP 422 (rejected by the API server)"), std::string::npos) << message;
  EXPECT_NE(message.find("metadata.name: Invalid value: \"Edited_Trainer\""), std::string::npos);
  // 5xx: the server fails; a retry may help.
  server_->fail_next(503, 1, "/jobs");
  EXPECT_EQ(code_of([&] { describe("team-a:twice"); }, &message), Code::kUnavailable);
  EXPECT_NE(message.find("HTTP 503 server error"), std::string::npos) << message;
  EXPECT_NE(message.find("retry later"), std::string::npos) << message;
}

TEST_F(KubernetesSchedulerTest, AFailedSubmissionLeavesNothingBehind) {
  server_->fail_next(500, 1, "/services");
  std::string message;
  EXPECT_EQ(code_of([&] { submit("fake/succeed:1", 1, "", "half"); }, &message),
            Code::kUnavailable);
  EXPECT_NE(message.find("deleted the 1 object(s) this submission had created"), std::string::npos)
      << message;
  EXPECT_EQ(code_of([&] { describe("team-a:half"); }), Code::kNotFound);
}

TEST_F(KubernetesSchedulerTest, MissingCrdIsExplained) {
  server_.reset();
  options_.without = {"volcano"};
  server_ = std::make_unique<FakeApiServer>(options_);
  kubeconfig_ = kubeconfig_for(server_->url(), "    token: good-token\n");
  std::string message;
  EXPECT_EQ(
      code_of([&] { submit("fake/succeed:1", 1, R"(,"gang_scheduler":"volcano")"); }, &message),
      Code::kNotFound);
  EXPECT_NE(message.find("gang_scheduler=volcano needs Volcano installed"), std::string::npos)
      << message;
}

TEST_F(KubernetesSchedulerTest, ConnectionRefusedIsUnavailable) {
  const std::string url = server_->url();
  server_.reset();  // nothing listens there any more
  std::string message;
  EXPECT_EQ(code_of([&] { submit("fake/succeed:1", 1); }, &message), Code::kUnavailable);
  EXPECT_NE(message.find("kubernetes: create Job"), std::string::npos) << message;
  EXPECT_NE(message.find(url.substr(8)), std::string::npos) << message;
}

}  // namespace
}  // namespace sortie::kubernetes
