// Experiment files (docs/experiments.md): YAML and JSON read alike, work units and sweeps, and
// every error names the file and the field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sortie/model/error.hpp>
#include <sortie/xm/experiment_file.hpp>
#include <sortie/xm/jobs.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hostile_inputs.hpp"
#include "scoped_env.hpp"

namespace sortie::xm {
namespace {

namespace fs = std::filesystem;
using Words = std::vector<std::string>;

class ExperimentFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sortie-xm-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (fs::path(dir_) / name).string();
    std::ofstream(path) << text;
    return path;
  }

  ExperimentFile read_yaml(const std::string& text) {
    return read_experiment_file(write("exp.yaml", text));
  }

  // The message of the error reading `text`, with the file's path replaced by "FILE":
  // "FILE:LINE:COL: field: ..." (JSON text gives no line: "FILE: field: ...").
  std::string located_error_of(const std::string& text, const std::string& name = "exp.yaml") {
    const std::string path = write(name, text);
    try {
      read_experiment_file(path);
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), SORTIE_INVALID_ARGUMENT);
      std::string message = e.what();
      EXPECT_EQ(message.rfind(path + ":", 0), 0u) << message;
      if (message.rfind(path, 0) == 0) message.replace(0, path.size(), "FILE");
      return message;
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
  }

  // The same without the line and column ("FILE: field: ..."): most tests are about the words;
  // ErrorsNameTheLine checks the locations.
  std::string error_of(const std::string& text, const std::string& name = "exp.yaml") {
    static const std::regex kLocation(R"(^FILE:\d+:\d+)");
    return std::regex_replace(located_error_of(text, name), kLocation, "FILE");
  }

  std::string dir_;
};

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- a canonical text of everything read, to compare the YAML and JSON forms ----

std::string words(const xm::Args& args) {
  std::string text;
  for (const auto& word : args.to_list()) text += "<" + word + ">";
  return text;
}

std::string env(const xm::EnvVars& vars) {
  std::string text;
  for (const auto& [name, value] : vars) text += name + "=" + value + ";";
  return text;
}

std::string describe(const xm::ExecutableSpec& spec) {
  std::ostringstream out;
  out << xm::kind_of(spec) << " ";
  std::visit(
      [&](const auto& s) {
        using Spec = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<Spec, xm::Binary>) out << s.path;
        if constexpr (std::is_same_v<Spec, xm::Container>) out << s.image_path;
        if constexpr (std::is_same_v<Spec, xm::BazelBinary> ||
                      std::is_same_v<Spec, xm::BazelContainer>) {
          out << s.label;
          for (const auto& arg : s.bazel_args) out << " " << arg;
        }
        if constexpr (std::is_same_v<Spec, xm::PythonContainer>) {
          out << s.path << " module=" << s.module << " base=" << s.base_image
              << " deep=" << s.use_deep_module << " commands=";
          for (const auto& c : s.commands) out << c << ";";
          if (s.docker_instructions) {
            out << " instructions=";
            for (const auto& i : *s.docker_instructions) out << i << ";";
          }
        }
        if constexpr (std::is_same_v<Spec, xm::Dockerfile>) out << s.path << " " << s.dockerfile;
      },
      spec);
  return out.str();
}

std::string describe(const xm::Executor& executor) {
  std::ostringstream out;
  const xm::JobRequirements& r = executor.requirements;
  out << executor.type << " cpu=" << r.cpu.value_or(-1) << " ram=" << r.ram_bytes.value_or(-1)
      << " disk=" << r.disk_bytes.value_or(-1) << " acc=" << r.accelerator << "x"
      << r.accelerator_count << " topo=" << r.topology << " replicas=" << r.replicas.value_or(-1)
      << " location=" << r.location << " ports=";
  for (const auto& [c, h] : executor.docker_options.ports) out << c << ":" << h << ";";
  out << " volumes=" << env(executor.docker_options.volumes)
      << " options=" << env(executor.options);
  return out.str();
}

std::string describe(const FileJob& job) {
  return job.name + " <- " + job.executable + " on " + describe(job.executor) + " args " +
         words(job.args) + " env " + env(job.env_vars);
}

std::string describe(const FileJobGroup& group) {
  std::string text = "{";
  for (const auto& member : group.members) {
    text += member.name + ": " + (member.group ? describe(*member.group) : describe(*member.job)) +
            "\n";
  }
  return text + "}";
}

std::string describe(const ExperimentFile& file) {
  std::string text = "title " + file.title + "\n";
  for (const auto& [name, p] : file.executables) {
    text += "exe " + name + " (" + p.name + ") " + describe(p.spec) + " args " + words(p.args) +
            " env " + env(p.env_vars) + "\n";
  }
  text += file.job ? describe(*file.job) : describe(*file.group);
  for (size_t i = 0; i < file.work_units.size(); ++i) {
    text += "\nwu " + std::to_string(i + 1) + ":";
    for (const auto& [job, overrides] : file.work_units[i]) {
      text += " " + job + " " + words(overrides.args) + " " + env(overrides.env_vars);
    }
  }
  return text;
}

const char* const kGroupYaml = R"(
# a server and two clients, swept over two learning rates and two batch sizes
title: mnist
executables:
  srv: {binary: ./server.sh, args: {port: 8080}, env_vars: {MODE: serve}}
  cli: {bazel_binary: "//client:main", bazel_args: [-c, opt]}
  img: {container: "127.0.0.1:5000/eval:1"}
  tar: {bazel_container: "//img:image.tar"}
  py:
    kind: python_container
    path: ./trainer
    module: trainer.main
    base_image: python:3.11
    docker_instructions: ["COPY . /app", "WORKDIR /app"]
    use_deep_module: true
  web: {kind: dockerfile, path: ./web, dockerfile: web/Dockerfile.dev}
executors:
  cpu:
    type: local
    requirements: {cpu: 2, ram: 4GiB, local_gpu: 1}
    docker_options: {ports: {8080: 18080}, volumes: {/data: /mnt/data}}
    options: {log_dir: /tmp/logs}
  tpu: {type: vertex, requirements: {tpu_v4: 2x2x1, location: us-central2}}
job_group:
  server: {executable: srv, executor: cpu, args: [--verbose]}
  clients:
    job_group:
      a: {executable: cli, executor: {type: local, requirements: {cpu: 0.5}}}
      b: {executable: cli, name: special, env_vars: {ID: 2}}
work_units:
  - {server: {args: {lr: 0.5}}, clients_a: {env_vars: {X: "1"}}}
sweep:
  product: {lr: [0.1, 1e-5], batch_size: [16, 32]}
)";

const char* const kGroupJson = R"({
  "title": "mnist",
  "executables": {
    "srv": {"binary": "./server.sh", "args": {"port": 8080}, "env_vars": {"MODE": "serve"}},
    "cli": {"bazel_binary": "//client:main", "bazel_args": ["-c", "opt"]},
    "img": {"container": "127.0.0.1:5000/eval:1"},
    "tar": {"bazel_container": "//img:image.tar"},
    "py": {"kind": "python_container", "path": "./trainer", "module": "trainer.main",
           "base_image": "python:3.11", "docker_instructions": ["COPY . /app", "WORKDIR /app"],
           "use_deep_module": true},
    "web": {"kind": "dockerfile", "path": "./web", "dockerfile": "web/Dockerfile.dev"}
  },
  "executors": {
    "cpu": {"type": "local", "requirements": {"cpu": 2, "ram": "4GiB", "local_gpu": 1},
            "docker_options": {"ports": {"8080": 18080}, "volumes": {"/data": "/mnt/data"}},
            "options": {"log_dir": "/tmp/logs"}},
    "tpu": {"type": "vertex", "requirements": {"tpu_v4": "2x2x1", "location": "us-central2"}}
  },
  "job_group": {
    "server": {"executable": "srv", "executor": "cpu", "args": ["--verbose"]},
    "clients": {"job_group": {
      "a": {"executable": "cli", "executor": {"type": "local", "requirements": {"cpu": 0.5}}},
      "b": {"executable": "cli", "name": "special", "env_vars": {"ID": 2}}}}
  },
  "work_units": [{"server": {"args": {"lr": 0.5}}, "clients_a": {"env_vars": {"X": "1"}}}],
  "sweep": {"product": {"lr": [0.1, 1e-5], "batch_size": [16, 32]}}
})";

// docs/limits.md L-1, L-3, L-5 (F2, F3 of issue 16: 25,000 levels of JSON crashed `launch`, a
// 409-byte alias bomb took 6 GB).
TEST_F(ExperimentFileTest, FilesPastTheLimitsAreRefused) {
  EXPECT_EQ(error_of(sortie::testing::nested_json_objects(25000), "deep.json"),
            "FILE: the JSON nesting exceeds the limit of 128 levels of nesting (docs/limits.md "
            "L-1); raise it with SORTIE_LIMIT_JSON_DEPTH=<n>");
  const std::string bomb = sortie::testing::yaml_alias_bomb();
  EXPECT_LE(bomb.size(), 409u);
  EXPECT_NE(error_of(bomb).find(": the YAML document (aliases expanded) exceeds the limit of "
                                "100000 nodes (aliases expanded) (docs/limits.md L-3)"),
            std::string::npos);
  const sortie::testing::ScopedEnv small("SORTIE_LIMIT_EXPERIMENT_FILE_BYTES", "10");
  EXPECT_EQ(error_of("jobs: [1, 2, 3]\n"),
            "FILE: the experiment file exceeds the limit of 10 bytes (docs/limits.md L-5); raise "
            "it with SORTIE_LIMIT_EXPERIMENT_FILE_BYTES=<n>");
}

// Issue 26, A1: "title: &a [*a]" (15 bytes) is a list holding itself, and crashed `launch` with
// a stack overflow in the reader; an executable whose args alias the executable did the same.
TEST_F(ExperimentFileTest, AnAliasInsideTheNodeItNamesIsRefused) {
  EXPECT_EQ(located_error_of("title: &a [*a]\n"),
            "FILE:1:12: an alias refers to a node that contains it (a cycle); *a is inside the "
            "node anchored &a at 1:8, and an alias may name only a node that ends before it");
  // A flow mapping is tried as JSON first, then read as YAML alike.
  EXPECT_TRUE(starts_with(located_error_of("{title: &a [*a]}\n"),
                          "FILE:1:13: an alias refers to a node that contains it (a cycle)"));
  const std::string in_own_args =
      "executables:\n  trainer: &t\n    binary: ./train.sh\n    args: {again: *t}\n"
      "executors:\n  cpu: {type: local}\njob: {executable: trainer, executor: cpu}\n";
  EXPECT_TRUE(starts_with(located_error_of(in_own_args),
                          "FILE:4:19: an alias refers to a node that contains it (a cycle); *t "
                          "is inside the node anchored &t at 2:12"))
      << located_error_of(in_own_args);
  // An alias of a node that has ended is read as a copy of it.
  const ExperimentFile shared = read_yaml(
      "title: shared\nexecutables:\n  a: {binary: ./a.sh, args: &args {epochs: 2}}\n"
      "  b: {binary: ./b.sh, args: *args}\nexecutors:\n  cpu: {type: local}\n"
      "job: {executable: b, executor: cpu}\n");
  ASSERT_EQ(shared.executables.size(), 2u);
  EXPECT_EQ(shared.executables[1].second.args.to_list(), (Words{"--epochs=2"}));
}

// Every input of the experiment_file fuzz harness's corpus (tests/fuzz/corpus/experiment_file/,
// where crash inputs stay as regressions) is read as the harness reads it, here in every test
// run: an experiment or sortie::Error, never a crash or another exception.
TEST_F(ExperimentFileTest, TheFuzzCorpusIsReadOrRefused) {
  const fs::path corpus =
      fs::path(SORTIE_TEST_SOURCE_DIR) / ".." / "fuzz" / "corpus" / "experiment_file";
  size_t inputs = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    SCOPED_TRACE(entry.path().string());
    try {
      read_experiment_file(entry.path().string());
    } catch (const Error&) {
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 2u);
}

TEST_F(ExperimentFileTest, ReadsAGroupExperiment) {
  const ExperimentFile file = read_yaml(kGroupYaml);
  EXPECT_EQ(file.title, "mnist");
  EXPECT_EQ(file.launch_dir, fs::path(dir_).lexically_normal().string());
  ASSERT_EQ(file.executables.size(), 6u);
  EXPECT_EQ(file.executables[0].first, "srv");
  EXPECT_EQ(file.executables[0].second.name, "srv");
  EXPECT_EQ(std::get<xm::Binary>(file.executables[0].second.spec).path, "./server.sh");
  EXPECT_EQ(file.executables[0].second.args.to_list(), (Words{"--port=8080"}));
  EXPECT_EQ(file.executables[0].second.env_vars.at("MODE"), "serve");
  const auto& cli = std::get<xm::BazelBinary>(file.executables[1].second.spec);
  EXPECT_EQ(cli.label, "//client:main");
  EXPECT_EQ(cli.bazel_args, (Words{"-c", "opt"}));
  EXPECT_EQ(std::get<xm::Container>(file.executables[2].second.spec).image_path,
            "127.0.0.1:5000/eval:1");
  EXPECT_EQ(std::get<xm::BazelContainer>(file.executables[3].second.spec).label, "//img:image.tar");
  const auto& py = std::get<xm::PythonContainer>(file.executables[4].second.spec);
  EXPECT_EQ(py.path, "./trainer");
  EXPECT_EQ(py.module, "trainer.main");
  EXPECT_EQ(py.base_image, "python:3.11");
  EXPECT_EQ(py.docker_instructions, (Words{"COPY . /app", "WORKDIR /app"}));
  EXPECT_TRUE(py.use_deep_module);
  const auto& web = std::get<xm::Dockerfile>(file.executables[5].second.spec);
  EXPECT_EQ(web.path, "./web");
  EXPECT_EQ(web.dockerfile, "web/Dockerfile.dev");

  ASSERT_TRUE(file.group);
  EXPECT_FALSE(file.job);
  ASSERT_EQ(file.group->members.size(), 2u);
  const FileJob& server = *file.group->members[0].job;
  EXPECT_EQ(server.name, "server");
  EXPECT_EQ(server.executable, "srv");
  EXPECT_EQ(server.args.to_list(), (Words{"--verbose"}));
  EXPECT_EQ(server.executor.type, "local");
  EXPECT_EQ(server.executor.requirements.cpu, 2);
  EXPECT_EQ(server.executor.requirements.ram_bytes, 4LL << 30);
  EXPECT_EQ(server.executor.requirements.accelerator, "local_gpu");
  EXPECT_EQ(server.executor.docker_options.ports, (std::map<int, int>{{8080, 18080}}));
  EXPECT_EQ(server.executor.docker_options.volumes.at("/data"), "/mnt/data");
  EXPECT_EQ(server.executor.options.at("log_dir"), "/tmp/logs");
  const FileJobGroup& clients = *file.group->members[1].group;
  EXPECT_EQ(clients.members[0].job->name, "clients_a");
  EXPECT_EQ(clients.members[0].job->executor.requirements.cpu, 0.5);
  EXPECT_EQ(clients.members[1].job->name, "special");
  EXPECT_EQ(clients.members[1].job->env_vars.at("ID"), "2");
  EXPECT_EQ(clients.members[1].job->executor.type, "local");  // the default executor

  // One explicit work unit, then the sweep's 2x2 in itertools.product order.
  ASSERT_EQ(file.work_units.size(), 5u);
  EXPECT_EQ(file.work_units[0].at("server").args.to_list(), (Words{"--lr=0.5"}));
  EXPECT_EQ(file.work_units[0].at("clients_a").env_vars.at("X"), "1");
  EXPECT_EQ(file.work_units[0].count("special"), 0u);
  const std::vector<Words> swept = {{"--lr=0.1", "--batch_size=16"},
                                    {"--lr=0.1", "--batch_size=32"},
                                    {"--lr=1e-5", "--batch_size=16"},
                                    {"--lr=1e-5", "--batch_size=32"}};
  for (size_t i = 0; i < swept.size(); ++i) {
    const xm::GroupArgs& unit = file.work_units[i + 1];
    ASSERT_EQ(unit.size(), 3u);  // every job of the group
    for (const std::string job : {"server", "clients_a", "special"}) {
      EXPECT_EQ(unit.at(job).args.to_list(), swept[i]) << job << " in work unit " << i + 2;
    }
  }
}

TEST_F(ExperimentFileTest, YamlAndJsonFormsAreEqual) {
  const ExperimentFile yaml = read_yaml(kGroupYaml);
  const ExperimentFile json = read_experiment_file(write("exp.json", kGroupJson));
  EXPECT_EQ(describe(yaml), describe(json));
  EXPECT_TRUE(contains(describe(json), "<--lr=1e-5>"));  // the number's text survives JSON
}

TEST_F(ExperimentFileTest, AJsonFileMayBeNamedAnything) {
  const ExperimentFile json = read_experiment_file(write("exp.conf", kGroupJson));
  EXPECT_EQ(json.work_units.size(), 5u);
}

TEST_F(ExperimentFileTest, ASingleJobWithDefaults) {
  const ExperimentFile file = read_yaml(R"(
title: 2024
executables:
  trainer: {binary: ./train.sh}
job: {executable: trainer}
)");
  EXPECT_EQ(file.title, "2024");
  ASSERT_TRUE(file.job);
  EXPECT_EQ(file.job->name, "trainer");
  EXPECT_EQ(file.job->executor.type, "local");
  EXPECT_TRUE(file.job->args.empty());
  ASSERT_EQ(file.work_units.size(), 1u);  // neither work_units nor sweep: one plain work unit
  EXPECT_TRUE(file.work_units[0].empty());
}

TEST_F(ExperimentFileTest, ScalarsKeepTheirYamlMeaning) {
  const ExperimentFile file = read_yaml(R"(
title: t
executables:
  t: {binary: ./t}
job:
  executable: t
  args: {lr: 1e-5, steps: 010, quoted: "16", yes: true, no: False, skip: null, tilde: ~,
         word: yes, list: [1, two, 3.0], nested: [[1, 2], ['a']]}
  env_vars: {A: 1, B: true, C: "x y"}
)");
  EXPECT_EQ(file.job->args.to_list(),
            (Words{"--lr=1e-5", "--steps=010", "--quoted=16", "--yes", "--nono", "--word=yes",
                   "--list=1", "--list=two", "--list=3.0", "--nested=[[1, 2], ['a']]"}));
  const auto& items = file.job->args.items();
  EXPECT_EQ(items[0].value.kind(), xm::ArgValue::Kind::kNumber);
  EXPECT_EQ(items[2].value.kind(), xm::ArgValue::Kind::kString);
  EXPECT_EQ(file.job->env_vars, (xm::EnvVars{{"A", "1"}, {"B", "true"}, {"C", "x y"}}));
}

TEST_F(ExperimentFileTest, ListArgsArePositional) {
  const ExperimentFile file = read_yaml(R"(
title: t
executables: {t: {binary: ./t}}
job: {executable: t, args: [--port, 8080, "a b"]}
)");
  EXPECT_EQ(file.job->args.to_list(), (Words{"--port", "8080", "a b"}));
}

TEST_F(ExperimentFileTest, WorkUnitsOfASingleJob) {
  const ExperimentFile file = read_yaml(R"(
title: t
executables: {t: {binary: ./t}}
job: {executable: t, name: train, args: {lr: 1}}
work_units:
  - {args: {lr: 0.1}}
  - {args: {lr: 0.2}, env_vars: {SEED: "2"}}
  - {}
)");
  ASSERT_EQ(file.work_units.size(), 3u);
  EXPECT_EQ(file.work_units[0].at("train").args.to_list(), (Words{"--lr=0.1"}));
  EXPECT_EQ(file.work_units[1].at("train").env_vars.at("SEED"), "2");
  EXPECT_TRUE(file.work_units[2].at("train").args.empty());
}

TEST_F(ExperimentFileTest, ZipSweep) {
  const ExperimentFile file = read_yaml(R"(
title: t
executables: {t: {binary: ./t}}
job: {executable: t}
sweep:
  zip: {lr: [0.1, 0.2, 0.3], seed: [1, 2, 3]}
)");
  ASSERT_EQ(file.work_units.size(), 3u);
  EXPECT_EQ(file.work_units[2].at("t").args.to_list(), (Words{"--lr=0.3", "--seed=3"}));
}

TEST_F(ExperimentFileTest, SweepAxesOfEnvVarsVaryTheEnvironment) {
  const ExperimentFile file = read_yaml(R"(
title: t
executables: {t: {binary: ./t}}
job: {executable: t, env_vars: {SEED: "0", KEEP: x}}
sweep:
  product: {lr: [0.1, 0.2], env_vars.SEED: [1, true]}
)");
  ASSERT_EQ(file.work_units.size(), 4u);
  EXPECT_EQ(file.work_units[1].at("t").args.to_list(), (Words{"--lr=0.1"}));
  EXPECT_EQ(file.work_units[1].at("t").env_vars, (xm::EnvVars{{"SEED", "true"}}));
  EXPECT_EQ(file.work_units[2].at("t").env_vars, (xm::EnvVars{{"SEED", "1"}}));
  const std::string job = "title: t\nexecutables: {t: {binary: ./t}}\njob: {executable: t}\n";
  EXPECT_EQ(error_of(job + "sweep: {zip: {env_vars.A-B: [1]}}\n"),
            "FILE: sweep.zip.env_vars.A-B: 'A-B' is not a valid environment variable name; "
            "names must match [a-zA-Z_][a-zA-Z0-9_]*");
  EXPECT_EQ(error_of(job + "sweep: {zip: {env_vars.A: [[1]]}}\n"),
            "FILE: sweep.zip.env_vars.A[0]: expected a string, got a list");
}

TEST_F(ExperimentFileTest, ShortAndLongFormsAreTheSame) {
  const ExperimentFile file = read_yaml(R"(
title: t
executables:
  a: {binary: ./run}
  b: {kind: binary, path: ./run}
  c: {python_container: ., commands: [pip install -e ., python -m x]}
  d: {kind: dockerfile}
job: {executable: a}
)");
  EXPECT_EQ(describe(file.executables[0].second.spec), describe(file.executables[1].second.spec));
  const auto& c = std::get<xm::PythonContainer>(file.executables[2].second.spec);
  EXPECT_EQ(c.path, ".");
  EXPECT_EQ(c.commands, (Words{"pip install -e .", "python -m x"}));
  EXPECT_FALSE(c.docker_instructions.has_value());
  const auto& d = std::get<xm::Dockerfile>(file.executables[3].second.spec);
  EXPECT_EQ(d.path, ".");
  EXPECT_EQ(d.dockerfile, "");
}

TEST_F(ExperimentFileTest, ResolvesJobsWithPackagedExecutables) {
  const ExperimentFile file = read_yaml(kGroupYaml);
  std::map<std::string, xm::Executable> packaged;
  packaged["srv"] = xm::Executable{"srv", "process", "/abs/server.sh", "", {}, {}, "sha256:1"};
  packaged["cli"] = xm::Executable{"cli", "process", "/abs/cli", "", {}, {}, "sha256:2"};
  const xm::JobGroup group = resolve_group(*file.group, packaged);
  const std::vector<FlatJob> jobs = flatten(group);
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].name, "server");
  EXPECT_EQ(jobs[0].job->executable.entrypoint, "/abs/server.sh");
  EXPECT_EQ(jobs[0].job->args.to_list(), (Words{"--verbose"}));
  EXPECT_EQ(jobs[1].name, "clients_a");
  EXPECT_EQ(jobs[2].name, "special");
  EXPECT_EQ(jobs[2].job->executable.digest, "sha256:2");

  packaged.erase("cli");
  try {
    resolve_group(*file.group, packaged);
    ADD_FAILURE() << "resolved without a packaged executable";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "'cli' was not packaged")) << e.what();
  }
}

TEST_F(ExperimentFileTest, MissingFileIsNotFound) {
  try {
    read_experiment_file(dir_ + "/missing.yaml");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), SORTIE_NOT_FOUND);
    EXPECT_TRUE(contains(e.what(), "missing.yaml")) << e.what();
  }
}

// ---- errors: each names the file (checked in error_of) and the field ----

const char* const kHead = "title: t\nexecutables: {t: {binary: ./t}, u: {binary: ./u}}\n";

TEST_F(ExperimentFileTest, UnknownTopLevelKeySuggestsTheClosest) {
  const std::string message = error_of("titel: t\n");
  EXPECT_TRUE(starts_with(message, "FILE: titel: unknown key (did you mean 'title'?)")) << message;
  EXPECT_TRUE(contains(message, "'executables'")) << message;
}

TEST_F(ExperimentFileTest, DocumentErrors) {
  EXPECT_EQ(error_of(""),
            "FILE: the file is empty; an experiment needs title, executables and "
            "job or job_group");
  EXPECT_TRUE(starts_with(error_of("[1, 2]"), "FILE: expected a mapping")) << error_of("[1, 2]");
  EXPECT_EQ(located_error_of("title: [unclosed\n"),
            "FILE:2:1: invalid YAML/JSON: end of sequence flow not found");
  EXPECT_TRUE(starts_with(error_of("{\"title\": \"t\",, }"), "FILE: invalid JSON at line 1: "));
  EXPECT_EQ(error_of("title: a\ntitle: b\n"), "FILE: title: the key appears twice; keep one");
  EXPECT_EQ(error_of(R"({"title": "a", "title": "b"})"),
            "FILE: title: the key appears twice; keep one");
  EXPECT_EQ(error_of("title: t\nexecutables: {e: {binary: a, binary: b}}\n"),
            "FILE: executables.e.binary: the key appears twice; keep one");
  // A flow mapping without quoted keys is YAML.
  EXPECT_EQ(error_of("{title: t}"), "FILE: executables: is required");
}

TEST_F(ExperimentFileTest, RequiredFields) {
  EXPECT_EQ(error_of("executables: {t: {binary: ./t}}\njob: {executable: t}\n"),
            "FILE: title: is required");
  EXPECT_EQ(error_of("title: t\njob: {executable: t}\n"), "FILE: executables: is required");
  EXPECT_EQ(error_of(kHead), "FILE: job or job_group is required: what every work unit runs");
  EXPECT_EQ(
      error_of(std::string(kHead) + "job: {executable: t}\njob_group: {a: {executable: t}}\n"),
      "FILE: job_group: give either job or job_group, not both");
  EXPECT_EQ(error_of(std::string(kHead) + "job: {executor: x}\n"),
            "FILE: job.executable: is required");
}

TEST_F(ExperimentFileTest, ExecutableErrors) {
  const auto job = [](const std::string& executable) {
    return "title: t\nexecutables: {e: " + executable + "}\njob: {executable: e}\n";
  };
  EXPECT_TRUE(
      starts_with(error_of(job("{path: ./x}")), "FILE: executables.e: the kind is missing"));
  EXPECT_EQ(error_of(job("{binary: ./x, container: y}")),
            "FILE: executables.e.container: an executable has one kind, and binary is given too; "
            "keep one");
  EXPECT_TRUE(starts_with(error_of(job("{kind: binary, binary: ./x}")),
                          "FILE: executables.e.binary: give the kind either as kind: binary"));
  EXPECT_TRUE(starts_with(error_of(job("{kind: binery, path: ./x}")),
                          "FILE: executables.e.kind: unknown kind 'binery' (did you mean "
                          "'binary'?)"));
  EXPECT_TRUE(starts_with(error_of(job("{binary: ./x, bazel_args: [a]}")),
                          "FILE: executables.e.bazel_args: unknown key"));
  EXPECT_EQ(error_of(job("{kind: binary, label: ./x}")),
            "FILE: executables.e.label: unknown key; the keys here are 'kind', 'args', "
            "'env_vars', 'path'");
  EXPECT_TRUE(starts_with(error_of(job("{kind: dockerfile, container: x}")),
                          "FILE: executables.e.container: give the kind either as kind: "
                          "container or as container: VALUE, not both"));
  EXPECT_EQ(error_of(job("{kind: binary}")), "FILE: executables.e.path: is required for a binary");
  EXPECT_TRUE(starts_with(error_of(job("{bazel_binary: srv:main}")),
                          "FILE: executables.e.bazel_binary: 'srv:main' is not an absolute "
                          "Bazel label"));
  EXPECT_TRUE(starts_with(error_of(job("{python_container: .}")),
                          "FILE: executables.e: a python_container needs module"));
  EXPECT_EQ(error_of(job("{python_container: ., module: m, commands: [c]}")),
            "FILE: executables.e.commands: give module or commands, not both");
  EXPECT_EQ(error_of(job("{python_container: ., module: m, use_deep_module: maybe}")),
            "FILE: executables.e.use_deep_module: expected true or false, got \"maybe\"");
  EXPECT_EQ(error_of(job("{binary: ./x, env_vars: {1X: a}}")),
            "FILE: executables.e.env_vars: '1X' is not a valid environment variable name; names "
            "must match [a-zA-Z_][a-zA-Z0-9_]*");
  EXPECT_EQ(error_of(job("{binary: ./x, args: {a: {b: c}}}")),
            "FILE: executables.e.args.a: expected a string, number, true/false, null or a list, "
            "got a mapping");
  EXPECT_EQ(error_of(job("{binary: [a]}")),
            "FILE: executables.e.binary: expected a string, got a list");
  EXPECT_EQ(error_of("title: t\nexecutables: {}\njob: {executable: e}\n"),
            "FILE: executables: define at least one executable");
}

TEST_F(ExperimentFileTest, JobErrorsListWhatExists) {
  const std::string unknown_exe = error_of(std::string(kHead) + "job: {executable: tt}\n");
  EXPECT_EQ(unknown_exe,
            "FILE: job.executable: no executable named 'tt' (did you mean 't' or 'u'?); the "
            "executables are 't', 'u'");
  EXPECT_TRUE(starts_with(error_of(std::string(kHead) + "job: {executable: t, executor: gpu}\n"),
                          "FILE: job.executor: no executor named 'gpu': the file defines no "
                          "executors"));
  EXPECT_EQ(error_of(std::string(kHead) + "executors: {cpu: {type: local}, gpu: {type: local}}\n"
                                          "job: {executable: t, executor: gpux}\n"),
            "FILE: job.executor: no executor named 'gpux' (did you mean 'gpu' or 'cpu'?); the "
            "executors are 'cpu', 'gpu'");
  EXPECT_TRUE(starts_with(error_of(std::string(kHead) + "job: {executable: t, nmae: x}\n"),
                          "FILE: job.nmae: unknown key (did you mean 'name'?)"));
  EXPECT_TRUE(starts_with(error_of(std::string(kHead) + "job: {executable: t, name: a/b}\n"),
                          "FILE: job.name: 'a/b' is not a valid job name"));
  EXPECT_EQ(error_of(std::string(kHead) + "job: {executable: t, env_vars: {A-B: x}}\n"),
            "FILE: job.env_vars: 'A-B' is not a valid environment variable name; names must "
            "match [a-zA-Z_][a-zA-Z0-9_]*");
  EXPECT_EQ(error_of(std::string(kHead) + "job: {executable: t, args: oops}\n"),
            "FILE: job.args: expected a mapping (passed as --key=value) or a list (passed word "
            "for word), got \"oops\"");
}

TEST_F(ExperimentFileTest, ExecutorErrors) {
  const auto executor = [](const std::string& text) {
    return std::string(kHead) + "executors: {gpu: " + text + "}\njob: {executable: t}\n";
  };
  EXPECT_TRUE(starts_with(error_of(executor("{type: local, requirements: {ram: 4GB1}}")),
                          "FILE: executors.gpu.requirements.ram: expected a size in bytes"));
  EXPECT_TRUE(starts_with(error_of(executor("{requirements: {v100: 1, t4: 1}}")),
                          "FILE: executors.gpu.requirements.t4: a job takes one accelerator"));
  EXPECT_TRUE(starts_with(error_of(executor("{requirements: {gpus: 1}}")),
                          "FILE: executors.gpu.requirements.gpus: unknown resource"));
  EXPECT_EQ(error_of(executor("{requirements: {cpu: true}}")),
            "FILE: executors.gpu.requirements.cpu: expected a number or a text such as 16GiB or "
            "2x2, got true");
  EXPECT_TRUE(starts_with(error_of(executor("{tpye: local}")),
                          "FILE: executors.gpu.tpye: unknown key (did you mean 'type'?)"));
  EXPECT_EQ(error_of(executor("{docker_options: {ports: {http: 80}}}")),
            "FILE: executors.gpu.docker_options.ports.http: expected a port number from 1 to "
            "65535, got 'http'");
  EXPECT_EQ(error_of(executor("{docker_options: {ports: {80: 70000}}}")),
            "FILE: executors.gpu.docker_options.ports.80: expected a port number from 0 to 65535, "
            "got '70000'");
  const std::string inline_error =
      error_of(std::string(kHead) + "job: {executable: t, executor: {requirements: {cpu: x}}}\n");
  EXPECT_TRUE(starts_with(inline_error, "FILE: job.executor.requirements.cpu: expected"))
      << inline_error;
}

TEST_F(ExperimentFileTest, JobGroupErrors) {
  const std::string clash = error_of(std::string(kHead) +
                                     "job_group:\n"
                                     "  a_b: {executable: t}\n"
                                     "  a: {job_group: {b: {executable: u}}}\n");
  EXPECT_EQ(clash,
            "FILE: job_group.a.job_group.b: the job name 'a_b' is also the name of job_group.a_b "
            "(nested names join with '_'); give one of them another name");
  const std::string named = error_of(std::string(kHead) +
                                     "job_group: {x: {executable: t, name: same}, "
                                     "y: {executable: u, name: same}}\n");
  EXPECT_TRUE(starts_with(named,
                          "FILE: job_group.y: the job name 'same' is also the name of "
                          "job_group.x"))
      << named;
  EXPECT_EQ(error_of(std::string(kHead) + "job_group: {}\n"),
            "FILE: job_group: a job group needs at least one job");
  EXPECT_EQ(error_of(std::string(kHead) + "job_group: {a: {job_group: {b: {executable: t}}, "
                                          "args: [x]}}\n"),
            "FILE: job_group.a: a nested group holds only job_group; move the other keys into "
            "its jobs");
  EXPECT_TRUE(starts_with(error_of(std::string(kHead) + "job_group: {a: {executable: x}}\n"),
                          "FILE: job_group.a.executable: no executable named 'x'"));
}

TEST_F(ExperimentFileTest, WorkUnitErrors) {
  const std::string group =
      std::string(kHead) + "job_group: {server: {executable: t}, client: {executable: u}}\n";
  EXPECT_EQ(error_of(group + "work_units: [{sever: {args: {a: 1}}}]\n"),
            "FILE: work_units[0].sever: no job named 'sever' in job_group (did you mean "
            "'server'?); the jobs are 'server', 'client'");
  EXPECT_TRUE(starts_with(error_of(group + "work_units: [{server: {arg: {a: 1}}}]\n"),
                          "FILE: work_units[0].server.arg: unknown key (did you mean 'args'?)"));
  const std::string job = std::string(kHead) + "job: {executable: t}\n";
  EXPECT_TRUE(starts_with(error_of(job + "work_units:\n  - {args: {a: 1}}\n  - {t: {args: {}}}\n"),
                          "FILE: work_units[1].t: unknown key"));
  EXPECT_TRUE(
      starts_with(error_of(job + "work_units: []\n"), "FILE: work_units: the list is empty"));
  EXPECT_EQ(error_of(job + "work_units: {args: {}}\n"),
            "FILE: work_units: expected a list of work units, got a mapping");
}

TEST_F(ExperimentFileTest, SweepErrors) {
  const std::string job = std::string(kHead) + "job: {executable: t}\n";
  EXPECT_EQ(error_of(job + "sweep: {product: {a: [1]}, zip: {b: [2]}}\n"),
            "FILE: sweep: give product or zip, not both");
  EXPECT_EQ(error_of(job + "sweep: {zip: {lr: [1, 2], batch_size: [16, 32, 64]}}\n"),
            "FILE: sweep.zip: axes have different lengths (lr has 2, batch_size has 3); give "
            "every axis the same number of values, or use product");
  EXPECT_EQ(error_of(job + "sweep: {product: {lr: 0.1}}\n"),
            "FILE: sweep.product.lr: expected a list of values, got 0.1");
  EXPECT_EQ(error_of(job + "sweep: {product: {lr: []}}\n"),
            "FILE: sweep.product.lr: the list is empty; give at least one value");
  EXPECT_TRUE(starts_with(error_of(job + "sweep: {prodcut: {a: [1]}}\n"),
                          "FILE: sweep.prodcut: unknown key (did you mean 'product'?)"));
}

TEST_F(ExperimentFileTest, ErrorsNameTheLine) {
  const std::string head = "title: t\nexecutables: {t: {binary: ./t}}\n";
  EXPECT_EQ(located_error_of(head + "job:\n  executable: t\n  executor: x\n"),
            "FILE:5:13: job.executor: no executor named 'x': the file defines no executors; "
            "define it under executors, or write the executor inline ({type: local, ...})");
  EXPECT_EQ(located_error_of(head + "job: {executable: t}\nwork_units: []\n"),
            "FILE:4:13: work_units: the list is empty; remove it to run one work unit, or list "
            "one mapping per work unit");
  EXPECT_EQ(located_error_of(head + "job: {executable: t}\nsweep: {prodcut: {a: [1]}}\n")
                .rfind("FILE:4:18: sweep.prodcut: unknown key (did you mean 'product'?)", 0),
            0u);
}

// The same bad field reads the same in an app spec (tests/model/spec_file_test.cpp,
// "roles[0].env.A: expected a string, got a list"): one vocabulary reads both files.
TEST_F(ExperimentFileTest, ErrorsReadLikeSpecErrors) {
  EXPECT_EQ(located_error_of("title: t\nexecutables: {t: {binary: ./t}}\n"
                             "job: {executable: t, env_vars: {A: [1]}}\n"),
            "FILE:3:36: job.env_vars.A: expected a string, got a list");
  EXPECT_EQ(located_error_of("title: t\nexecutables: {t: {binary: ./t, args: [x], "
                             "env_vars: y}}\njob: {executable: t}\n"),
            "FILE:2:53: executables.t.env_vars: expected a mapping of names to strings, got \"y\"");
}

TEST_F(ExperimentFileTest, YamlAndJsonFailAlike) {
  const std::string yaml =
      error_of("title: t\nexecutables: {t: {binary: ./t}}\njob: {executable: t, executor: x}\n");
  const std::string json = error_of(
      R"({"title": "t", "executables": {"t": {"binary": "./t"}},
          "job": {"executable": "t", "executor": "x"}})",
      "exp.json");
  EXPECT_EQ(yaml, json);
  EXPECT_TRUE(starts_with(json, "FILE: job.executor: no executor named 'x'")) << json;
}

}  // namespace
}  // namespace sortie::xm
