// Job groups, their flattened names, XManager's per-job overrides and full job names.
#include <gtest/gtest.h>

#include <functional>
#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>
#include <sortie/xm/jobs.hpp>
#include <string>
#include <vector>

namespace sortie::xm {
namespace {

xm::Job job_named(const std::string& name, const std::string& executable = "exe") {
  xm::Job job;
  job.executable.name = executable;
  job.name = name;
  return job;
}

std::vector<std::string> names(const std::vector<FlatJob>& jobs) {
  std::vector<std::string> result;
  for (const FlatJob& job : jobs) result.push_back(job.name);
  return result;
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(JobNamesTest, UnnamedJobsTakeTheirKeyPath) {
  xm::JobGroup inner;
  inner.add("learner", job_named("")).add("actor", job_named(""));
  xm::JobGroup group;
  group.add("eval", job_named("")).add("colocated", std::move(inner));
  const auto jobs = flatten(group);
  EXPECT_EQ(names(jobs),
            (std::vector<std::string>{"eval", "colocated_learner", "colocated_actor"}));
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].job, group.members[0].job.get());
  EXPECT_EQ(jobs[2].job, group.members[1].group->members[1].job.get());
}

TEST(JobNamesTest, AJobsOwnNameWins) {
  xm::JobGroup group;
  group.add("server", job_named("ps")).add("client", job_named(""));
  EXPECT_EQ(names(flatten(group)), (std::vector<std::string>{"ps", "client"}));
}

TEST(JobNamesTest, DuplicateNamesFailNamingThem) {
  xm::JobGroup inner;
  inner.add("b", job_named(""));
  xm::JobGroup group;
  group.add("a_b", job_named("")).add("a", std::move(inner));
  const std::string message = error_of([&] { flatten(group); });
  EXPECT_NE(message.find("'a_b' and 'a_b'"), std::string::npos) << message;
  EXPECT_NE(message.find("named 'a_b'"), std::string::npos) << message;

  xm::JobGroup named;
  named.add("x", job_named("same")).add("y", job_named("same"));
  const std::string second = error_of([&] { flatten(named); });
  EXPECT_NE(second.find("'x' and 'y' are both named 'same'"), std::string::npos) << second;
}

TEST(JobNamesTest, AddRefusesARepeatedOrEmptyKey) {
  xm::JobGroup group;
  group.add("a", job_named(""));
  EXPECT_NE(error_of([&] { group.add("a", xm::JobGroup{}); }).find("'a'"), std::string::npos);
  EXPECT_THROW(group.add("", job_named("")), Error);
  EXPECT_EQ(group.members.size(), 1u);
}

TEST(JobNamesTest, ApplyArgsMergesArgsAndUpdatesEnv) {
  xm::Job job = job_named("train");
  job.args = {{"lr", 1}, {"steps", 10}};
  job.args.add_positional("--");
  job.env_vars = {{"A", "1"}, {"B", "2"}};
  xm::JobArgs overrides;
  overrides.args = {{"lr", 2}, {"seed", 7}};
  overrides.env_vars = {{"B", "3"}, {"C", "4"}};
  apply_args(job, overrides);
  EXPECT_EQ(job.args.to_list(),
            (std::vector<std::string>{"--lr=2", "--steps=10", "--", "--seed=7"}));
  EXPECT_EQ(job.env_vars, (xm::EnvVars{{"A", "1"}, {"B", "3"}, {"C", "4"}}));
}

TEST(JobNamesTest, ApplyArgsRefusesABadEnvName) {
  xm::Job job = job_named("train");
  xm::JobArgs overrides;
  overrides.env_vars = {{"NOT-OK", "1"}};
  const std::string message = error_of([&] { apply_args(job, overrides); });
  EXPECT_NE(message.find("job 'train'"), std::string::npos) << message;
  EXPECT_NE(message.find("'NOT-OK'"), std::string::npos) << message;
}

TEST(JobNamesTest, FullJobName) {
  EXPECT_EQ(full_job_name(12, 3, "learner"), "12_3_learner");
  EXPECT_EQ(full_job_name(1700000000000, 1, "colocated_actor"), "1700000000000_1_colocated_actor");
}

TEST(ExecutableNamesTest, KindsAsPackagersNameThem) {
  EXPECT_EQ(xm::kind_of(xm::Binary{"./a"}), "binary");
  EXPECT_EQ(xm::kind_of(xm::BazelBinary{"//a:b", {}}), "bazel_binary");
  EXPECT_EQ(xm::kind_of(xm::Container{"img"}), "container");
  EXPECT_EQ(xm::kind_of(xm::BazelContainer{"//a:b.tar", {}}), "bazel_container");
  EXPECT_EQ(xm::kind_of(xm::PythonContainer{}), "python_container");
  EXPECT_EQ(xm::kind_of(xm::Dockerfile{}), "dockerfile");
}

TEST(ExecutableNamesTest, DefaultNamesAreBasenamesWithNonWordCharactersReplaced) {
  EXPECT_EQ(xm::default_name(xm::Binary{"./bin/train.sh"}), "train_sh");
  EXPECT_EQ(xm::default_name(xm::Binary{"/opt/tools/"}), "tools");
  EXPECT_EQ(xm::default_name(xm::BazelBinary{"//srv:server", {}}), "server");
  EXPECT_EQ(xm::default_name(xm::BazelBinary{"//srv/server", {}}), "server");
  EXPECT_EQ(xm::default_name(xm::BazelContainer{"//img:image.tar", {}}), "image_tar");
  EXPECT_EQ(xm::default_name(xm::Container{"127.0.0.1:5000/team/eval:1.2"}), "eval_1_2");
  EXPECT_EQ(xm::default_name(xm::Container{"/tmp/images/model.tar"}), "model_tar");
  EXPECT_EQ(xm::default_name(xm::Container{"python@sha256:ab"}), "python_sha256_ab");
  xm::PythonContainer python;
  python.path = "./trainer-v2/";
  EXPECT_EQ(xm::default_name(python), "trainer_v2");
  EXPECT_EQ(xm::default_name(xm::PythonContainer{}), "_");  // "." as given
  xm::Dockerfile web;
  web.path = "services/web";
  EXPECT_EQ(xm::default_name(web), "web");
  EXPECT_EQ(xm::default_name(xm::Binary{"./données"}), "données");
}

}  // namespace
}  // namespace sortie::xm
