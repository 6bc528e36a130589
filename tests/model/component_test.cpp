#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <map>
#include <sortie/model/component.hpp>
#include <sortie/model/error.hpp>
#include <sstream>
#include <string>

#include "model_test_support.hpp"

namespace sortie::model {
namespace {

using testing::by_name;
using testing::error_of;
using testing::metadata_object;
using testing::test_resources;

const std::string kManifest =
    std::string(SORTIE_TEST_SOURCE_DIR) + "/../../registry/manifests/components.json";

// The builtins of the shipped manifest, read as the registry hands them over.
std::map<std::string, Component> load_builtins() {
  std::ifstream in(kManifest);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document manifest;
  manifest.Parse(text.str().c_str());
  EXPECT_FALSE(manifest.HasParseError());
  EXPECT_STREQ(manifest["file_format_version"].GetString(), "1.0");
  std::map<std::string, Component> components;
  for (const auto& entry : manifest["provides"].GetArray()) {
    EXPECT_STREQ(entry["group"].GetString(), "sortie.components");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    entry["component"].Accept(writer);
    const std::string name = entry["name"].GetString();
    components.emplace(name, parse_component(name, entry["description"].GetString(),
                                             buffer.GetString(), kManifest));
  }
  return components;
}

class ComponentTest : public ::testing::Test {
 protected:
  AppDef run(const std::string& name, const std::vector<std::string>& words,
             const std::map<std::string, std::string>& defaults = {}) {
    std::map<std::string, ConfigValue> configured;
    for (const auto& [key, value] : defaults) configured[key] = {value, "test.sortieconfig:7"};
    return instantiate(builtins_.at(name), words, configured, test_resources,
                       {"gpu.small", "gpu.large"});
  }
  std::string run_error(const std::string& name, const std::vector<std::string>& words,
                        const std::map<std::string, std::string>& defaults = {}) {
    return error_of([&] { run(name, words, defaults); });
  }
  std::map<std::string, Component> builtins_ = load_builtins();
};

TEST_F(ComponentTest, ShipsTheTorchxLikeBuiltins) {
  std::vector<std::string> names;
  for (const auto& [name, component] : builtins_) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"dist.ddp", "dist.spmd", "utils.binary", "utils.echo",
                                             "utils.python", "utils.sh"}));
  EXPECT_EQ(builtins_.at("utils.echo").origin, kManifest);
}

TEST_F(ComponentTest, EchoUsesDefaultsAndFlags) {
  const AppDef app = run("utils.echo", {});
  EXPECT_EQ(app.name, "echo");
  ASSERT_EQ(app.roles.size(), 1u);
  EXPECT_EQ(app.roles[0].name, "echo");
  EXPECT_EQ(app.roles[0].image, ".");
  EXPECT_EQ(app.roles[0].entrypoint, "echo");
  EXPECT_EQ(app.roles[0].args, std::vector<std::string>{"hello world"});
  EXPECT_EQ(app.roles[0].num_replicas, 1);
  EXPECT_EQ(app.roles[0].resource.mem_mb, 1024);
  const AppDef custom = run("utils.echo", {"--msg", "hi there", "--num_replicas=3"});
  EXPECT_EQ(custom.roles[0].args, std::vector<std::string>{"hi there"});
  EXPECT_EQ(custom.roles[0].num_replicas, 3);
}

TEST_F(ComponentTest, ConfigDefaultsSitBetweenFlagsAndBuiltInDefaults) {
  EXPECT_EQ(run("utils.echo", {}, {{"msg", "from config"}}).roles[0].args,
            std::vector<std::string>{"from config"});
  EXPECT_EQ(run("utils.echo", {"--msg", "flag"}, {{"msg", "from config"}}).roles[0].args,
            std::vector<std::string>{"flag"});
  EXPECT_EQ(run("utils.sh", {}, {{"args", "echo from config"}}).roles[0].args,
            (std::vector<std::string>{"-c", "echo from config"}));
  EXPECT_EQ(run_error("utils.echo", {}, {{"mgs", "x"}}),
            "test.sortieconfig:7: [component:utils.echo] mgs: component utils.echo has no "
            "parameter 'mgs' (did you mean 'msg'?)");
  EXPECT_EQ(run_error("utils.echo", {}, {{"num_replicas", "many"}}),
            "test.sortieconfig:7: [component:utils.echo] num_replicas: expected an int, got "
            "'many'");
}

TEST_F(ComponentTest, ShJoinsItsWordsForShC) {
  const AppDef app = run("utils.sh", {"echo", "hi", "-n"});
  EXPECT_EQ(app.roles[0].name, "sh");
  EXPECT_EQ(app.roles[0].entrypoint, "sh");
  EXPECT_EQ(app.roles[0].args, (std::vector<std::string>{"-c", "echo hi -n"}));
  EXPECT_EQ(write_resource(app.roles[0].resource),
            write_resource(Resource{}));  // no --h: the member is dropped
  EXPECT_EQ(run("utils.sh", {"--", "ls", "-l"}).roles[0].args,
            (std::vector<std::string>{"-c", "ls -l"}));
  const AppDef full = run("utils.sh", {"--env", "A=1,B=x=y", "--h", "gpu.small", "--max_retries",
                                       "2", "--num_replicas", "2", "echo", "$HOME"});
  EXPECT_EQ(by_name(full.roles[0].env),
            (std::map<std::string, std::string>{{"A", "1"}, {"B", "x=y"}}));
  EXPECT_EQ(full.roles[0].resource.gpu, 1);
  EXPECT_EQ(full.roles[0].max_retries, 2);
  EXPECT_EQ(full.roles[0].num_replicas, 2);
  EXPECT_EQ(full.roles[0].args, (std::vector<std::string>{"-c", "echo $HOME"}));
}

TEST_F(ComponentTest, ShErrors) {
  EXPECT_EQ(run_error("utils.sh", {}),
            "component utils.sh: positional argument(s) args is required (list: the command; its "
            "words are joined by spaces and run by sh -c); see `sortie run utils.sh --help`");
  EXPECT_EQ(run_error("utils.sh", {"--h", "gpu.smal", "true"}),
            "component utils.sh: roles[0].resource: unknown named resource 'gpu.smal' (did you "
            "mean 'gpu.small'?)");
  EXPECT_EQ(run_error("utils.sh", {"--env", "A", "true"}),
            "component utils.sh: --env: expected KEY=VALUE pairs separated by ',' (item 'A'), got "
            "'A'");
}

TEST_F(ComponentTest, PythonTakesExactlyOneOfModuleCodeOrScript) {
  EXPECT_EQ(run("utils.python", {"-m", "http.server", "8000"}).roles[0].args,
            (std::vector<std::string>{"-m", "http.server", "8000"}));
  EXPECT_EQ(run("utils.python", {"-c", "print(1)"}).roles[0].args,
            (std::vector<std::string>{"-c", "print(1)"}));
  const AppDef script = run("utils.python", {"--script", "train.py", "--", "--lr", "1"});
  EXPECT_EQ(script.roles[0].args, (std::vector<std::string>{"train.py", "--lr", "1"}));
  EXPECT_EQ(script.roles[0].entrypoint, "python3");
  EXPECT_EQ(script.roles[0].name, "python");
  EXPECT_EQ(run_error("utils.python", {}),
            "component utils.python: give exactly one of -m, -c, --script (got 0)");
  EXPECT_EQ(run_error("utils.python", {"-m", "a", "-c", "b"}),
            "component utils.python: give exactly one of -m, -c, --script (got 2)");
}

TEST_F(ComponentTest, BinaryRunsItsEntrypointWithArgs) {
  const AppDef app = run("utils.binary", {"--entrypoint", "/bin/ls", "--", "-l", "/tmp"});
  EXPECT_EQ(app.roles[0].name, "binary");
  EXPECT_EQ(app.roles[0].entrypoint, "/bin/ls");
  EXPECT_EQ(app.roles[0].args, (std::vector<std::string>{"-l", "/tmp"}));
  EXPECT_TRUE(run("utils.binary", {"--entrypoint=/bin/true"}).roles[0].args.empty());
  EXPECT_EQ(run_error("utils.binary", {"x"}),
            "component utils.binary: option --entrypoint is required (str: program to run); see "
            "`sortie run utils.binary --help`");
}

TEST_F(ComponentTest, SpmdSetsDistributedEnvAndKeepsRuntimeMacros) {
  const AppDef app = run("dist.spmd", {"-j", "4", "python3", "train.py"});
  ASSERT_EQ(app.roles.size(), 1u);
  const Role& role = app.roles[0];
  EXPECT_EQ(role.name, "worker");
  EXPECT_EQ(role.num_replicas, 4);
  EXPECT_EQ(role.entrypoint, "env");
  EXPECT_EQ(role.args, (std::vector<std::string>{"python3", "train.py"}));
  EXPECT_EQ(by_name(role.env),
            (std::map<std::string, std::string>{{"MASTER_ADDR", "${rank0_host}"},
                                                {"MASTER_PORT", "${free_port}"},
                                                {"RANK", "${replica_id}"},
                                                {"WORLD_SIZE", "${num_replicas}"}}));
  EXPECT_EQ(
      by_name(run("dist.spmd", {"--master_port", "1234", "true"}).roles[0].env).at("MASTER_PORT"),
      "1234");
  EXPECT_EQ(run("dist.spmd", {"true"}).roles[0].num_replicas, 2);
  EXPECT_EQ(
      run_error("dist.spmd", {"-j", "0", "true"}),
      "component dist.spmd (" + kManifest + "): roles[0].num_replicas: must be at least 1, got 0");
}

TEST_F(ComponentTest, DdpRunsTorchrunWithARendezvousOfItsOwn) {
  const AppDef app = run("dist.ddp", {"-j", "2x4", "--script", "train.py", "--", "--lr", "0.1"});
  ASSERT_EQ(app.roles.size(), 1u);
  const Role& role = app.roles[0];
  EXPECT_EQ(app.name, "ddp");
  EXPECT_EQ(role.num_replicas, 2);
  EXPECT_FALSE(role.min_replicas.has_value());
  EXPECT_EQ(role.entrypoint, "python3");
  EXPECT_EQ(role.args, (std::vector<std::string>{"-m",
                                                 "torch.distributed.run",
                                                 "--nnodes",
                                                 "2",
                                                 "--nproc_per_node",
                                                 "4",
                                                 "--rdzv_backend",
                                                 "c10d",
                                                 "--rdzv_endpoint",
                                                 "${rank0_host}:${free_port}",
                                                 "--rdzv_id",
                                                 "${app_id}",
                                                 "--redirects",
                                                 "1",
                                                 "--tee",
                                                 "1",
                                                 "--role",
                                                 "",
                                                 "train.py",
                                                 "--lr",
                                                 "0.1"}));
  EXPECT_EQ(by_name(role.env), (std::map<std::string, std::string>{{"LOGLEVEL", "WARNING"}}));
  EXPECT_EQ(role.resource.cpu, 2);
  EXPECT_EQ(role.resource.gpu, 0);
  EXPECT_EQ(role.resource.mem_mb, 1024);
  EXPECT_EQ(metadata_object(role), R"({"slurm.ntasks_per_node":1})");

  // -j N is one node; MIN: makes it elastic.
  EXPECT_EQ(run("dist.ddp", {"-j", "3", "-m", "trainer.main"}).roles[0].args[3], "1");
  const Role elastic = run("dist.ddp", {"-j", "1:3x2", "-m", "trainer.main"}).roles[0];
  EXPECT_EQ(elastic.num_replicas, 3);
  EXPECT_EQ(elastic.min_replicas, 1);
  EXPECT_EQ(elastic.args[3], "1:3");
  EXPECT_EQ(std::vector<std::string>(elastic.args.end() - 2, elastic.args.end()),
            (std::vector<std::string>{"-m", "trainer.main"}));
}

TEST_F(ComponentTest, DdpOptionsReachTorchrunEnvAndResource) {
  const Role role = run("dist.ddp", {"--script", "t.py", "--env", "LOGLEVEL=INFO,SEED=3", "--debug",
                                     "--max_restarts", "2", "--rdzv_port", "29501", "-h",
                                     "gpu.small", "--gpu", "7", "--max_retries", "1"})
                        .roles[0];
  EXPECT_EQ(by_name(role.env),
            (std::map<std::string, std::string>{{"CUDA_LAUNCH_BLOCKING", "1"},
                                                {"LOGLEVEL", "INFO"},
                                                {"NCCL_DEBUG", "INFO"},
                                                {"SEED", "3"},
                                                {"TORCH_DISTRIBUTED_DEBUG", "DETAIL"},
                                                {"TORCH_SHOW_CPP_STACKTRACES", "1"}}));
  EXPECT_EQ(role.args[9], "${rank0_host}:29501");
  EXPECT_EQ(std::vector<std::string>(role.args.end() - 3, role.args.end()),
            (std::vector<std::string>{"--max_restarts", "2", "t.py"}));
  EXPECT_EQ(role.resource.gpu, 1);  // the named resource wins over --gpu, as in TorchX
  EXPECT_EQ(role.max_retries, 1);
  EXPECT_EQ(run("dist.ddp", {"--script", "t.py", "--gpu", "2"}).roles[0].resource.gpu, 2);

  EXPECT_EQ(run_error("dist.ddp", {"-j", "2x0", "--script", "t.py"}),
            "component dist.ddp: -j: expected [MIN:]NNODESxNPROC_PER_NODE such as 2x4 or 1:2x4, "
            "or NPROC_PER_NODE such as 4, got '2x0' (NPROC_PER_NODE must be a whole number >= 1)");
  EXPECT_EQ(run_error("dist.ddp", {"-j", "3:2x1", "--script", "t.py"}),
            "component dist.ddp: -j: expected [MIN:]NNODESxNPROC_PER_NODE such as 2x4 or 1:2x4, "
            "or NPROC_PER_NODE such as 4, got '3:2x1' (MIN (3) is more than NNODES (2))");
  EXPECT_EQ(run_error("dist.ddp", {"-j", "1:2", "--script", "t.py"}),
            "component dist.ddp: -j: expected [MIN:]NNODESxNPROC_PER_NODE such as 2x4 or 1:2x4, "
            "or NPROC_PER_NODE such as 4, got '1:2' (MIN: needs NNODESxNPROC_PER_NODE after it)");
  EXPECT_EQ(run_error("dist.ddp", {}),
            "component dist.ddp: give exactly one of --script, -m (got 0)");
}

TEST_F(ComponentTest, DdpTakesTorchxMounts) {
  const Role role = run("dist.ddp", {"--script", "t.py", "--mounts",
                                     "type=bind,src=/data,dst=/mnt/data,readonly,type=volume,"
                                     "src=cache,dst=/cache,type=device,src=/dev/fuse"})
                        .roles[0];
  ASSERT_EQ(role.mounts.size(), 3u);
  EXPECT_EQ(role.mounts[0].type, MountType::kBind);
  EXPECT_EQ(role.mounts[0].src, "/data");
  EXPECT_EQ(role.mounts[0].dst, "/mnt/data");
  EXPECT_TRUE(role.mounts[0].read_only);
  EXPECT_EQ(role.mounts[1].type, MountType::kVolume);
  EXPECT_FALSE(role.mounts[1].read_only);
  EXPECT_EQ(role.mounts[2].type, MountType::kDevice);
  EXPECT_EQ(role.mounts[2].dst, "/dev/fuse");
  EXPECT_EQ(role.mounts[2].permissions, "rwm");
  EXPECT_TRUE(run("dist.ddp", {"--script", "t.py"}).roles[0].mounts.empty());
  const std::string usage =
      "; write type=bind,src=HOST,dst=CONTAINER[,readonly], type=volume,src=NAME,dst=PATH"
      "[,readonly] or type=device,src=PATH[,dst=PATH][,perm=rwm]";
  EXPECT_EQ(run_error("dist.ddp", {"--script", "t.py", "--mounts", "src=/a,type=bind"}),
            "component dist.ddp: --mounts: 'src=/a' comes before any type=" + usage);
  EXPECT_EQ(run_error("dist.ddp", {"--script", "t.py", "--mounts", "type=bind,src=/a"}),
            "component dist.ddp: --mounts: a bind mount needs src= and dst=" + usage);
  EXPECT_EQ(run_error("dist.ddp", {"--script", "t.py", "--mounts", "type=tmpfs,dst=/t"}),
            "component dist.ddp: --mounts: unknown mount type 'tmpfs'" + usage);
  EXPECT_EQ(run_error("dist.ddp", {"--script", "t.py", "--mounts", "type=device,src=/d,readonly"}),
            "component dist.ddp: --mounts: a device mount has no 'readonly'" + usage);
}

TEST_F(ComponentTest, CommandLineErrorsNameTheParameter) {
  EXPECT_EQ(run_error("utils.echo", {"--mgs", "hi"}),
            "component utils.echo: unknown option '--mgs' (did you mean 'msg'?); options: --msg, "
            "--image, --num_replicas");
  EXPECT_EQ(run_error("utils.echo", {"-x", "1"}),
            "component utils.echo: unknown option '-x'; options: --msg, --image, --num_replicas");
  EXPECT_EQ(run_error("utils.echo", {"--msg"}),
            "component utils.echo: option --msg needs a value (str)");
  EXPECT_EQ(run_error("utils.echo", {"--msg", "a", "--msg=b"}),
            "component utils.echo: option --msg is given twice");
  EXPECT_EQ(run_error("utils.echo", {"--num_replicas", "two"}),
            "component utils.echo: --num_replicas: expected an int, got 'two'");
  EXPECT_EQ(run_error("utils.echo", {"extra"}),
            "component utils.echo: unexpected argument 'extra'; this component takes no positional "
            "arguments (see `sortie run utils.echo --help`)");
  EXPECT_EQ(run_error("utils.sh", {"--args", "x"}),
            "component utils.sh: unknown option '--args'; options: --image, --num_replicas, "
            "--max_retries, --env, -h");
}

const char* kTyped = R"({
  "params": [
    {"name": "n", "type": "int", "default": 2},
    {"name": "f", "type": "float", "default": 0.5},
    {"name": "debug", "type": "bool", "default": false},
    {"name": "words", "type": "list", "default": ["a", "b"]},
    {"name": "d", "type": "dict", "default": {"K": "V", "L": "W"}},
    {"name": "opt", "type": "str", "default": null}],
  "app": {"name": "typed", "metadata": {"debug": "{{debug|text}}", "maybe": "{{opt}}"},
          "roles": [{"name": "r-{{n}}", "entrypoint": "e", "num_replicas": "{{n}}",
                     "args": ["{{words|text}}", "{{*words}}", "f={{f}}", "{{d|text}}", "${app_id}",
                              ["--opt", "{{opt}}"], "x{{opt}}"],
                     "env": "{{d}}",
                     "metadata": {"flag": "{{debug}}", "list": "{{words}}", "n": "{{n}}"}}]}})";

TEST(ComponentSubstitutionTest, SubstitutesTypedValuesAndText) {
  const Component component = parse_component("typed", "a test", kTyped, "test.json");
  const AppDef app = instantiate(component, {}, {}, nullptr);
  const Role& role = app.roles.at(0);
  EXPECT_EQ(role.name, "r-2");
  EXPECT_EQ(role.num_replicas, 2);
  EXPECT_EQ(role.args,
            (std::vector<std::string>{"a b", "a", "b", "f=0.5", "K=V,L=W", "${app_id}"}));
  EXPECT_EQ(by_name(role.env), (std::map<std::string, std::string>{{"K", "V"}, {"L", "W"}}));
  EXPECT_EQ(metadata_object(role), R"({"flag":false,"list":["a","b"],"n":2})");
  EXPECT_EQ(by_name(app.metadata), (std::map<std::string, std::string>{{"debug", "false"}}));

  const AppDef flagged =
      instantiate(component, {"--debug", "--opt", "o", "--words", "x,y", "--n=3"}, {}, nullptr);
  EXPECT_EQ(flagged.roles[0].args, (std::vector<std::string>{"x y", "x", "y", "f=0.5", "K=V,L=W",
                                                             "${app_id}", "--opt", "o", "xo"}));
  EXPECT_EQ(metadata_object(flagged.roles[0]), R"({"flag":true,"list":["x","y"],"n":3})");
  EXPECT_EQ(by_name(flagged.metadata).at("maybe"), "o");
  EXPECT_EQ(by_name(instantiate(component, {"--debug=no"}, {}, nullptr).metadata).at("debug"),
            "false");
  EXPECT_EQ(error_of([&] { instantiate(component, {"--debug=maybe"}, {}, nullptr); }),
            "component typed: --debug: expected a bool (true/false, 1/0, yes/no), got 'maybe'");
  EXPECT_EQ(error_of([&] {
              instantiate(component, {"--f", "fast"}, {}, nullptr);
            }),
            "component typed: -f: expected a float, got 'fast'");
}

TEST(ComponentParseTest, RefusesMalformedComponents) {
  const auto parse_error = [](const std::string& json) {
    return error_of([&] { parse_component("c", "", json, "m.json"); });
  };
  EXPECT_EQ(parse_error(R"({"params": [], "app": {"name": "{{mgs}}", "roles": []}})"),
            "m.json: component c: app.name: {{mgs}} names no parameter");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "msg", "type": "str"}],
                           "app": {"name": "{{mgs}}", "roles": []}})"),
            "m.json: component c: app.name: {{mgs}} names no parameter (did you mean 'msg'?)");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "s", "type": "str"}],
                           "app": {"roles": [{"args": ["{{*s}}"]}]}})"),
            "m.json: component c: app.roles[0].args[0]: {{*s}} splices a list parameter and must "
            "be a whole list element");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "a", "type": "list", "positional": true},
                                       {"name": "b", "type": "list", "positional": true}],
                           "app": {}})"),
            "m.json: component c: params[1]: only one parameter may be positional");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "a", "type": "str", "positional": true}],
                           "app": {}})"),
            "m.json: component c: params[0]: positional parameter 'a' must have type list (it "
            "takes the remaining words)");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "a", "type": "string"}], "app": {}})"),
            R"(m.json: component c: params[0].type: expected one of str, int, float, bool, list, )"
            R"(dict, nodes_x_procs, mounts, got "string")");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "a", "type": "int", "default": "1"}], "app": {}})"),
            R"(m.json: component c: params[0].default: expected an integer, got "1")");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "a", "type": "int"}, {"name": "a", "type": "int"}],
                           "app": {}})"),
            "m.json: component c: params[1]: parameter 'a' is declared twice");
  EXPECT_EQ(
      parse_error(R"({"params": [{"name": "a", "type": "str"}], "app": {"env": {"{{a}}": "x"}}})"),
      "m.json: component c: app.env: placeholders are not supported in keys ('{{a}}') but for "
      "\"{{*DICT}}\": null; put them in values");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "a", "type": "str"}],
                           "app": {"env": {"{{*a}}": null}}})"),
            "m.json: component c: app.env: a key {{*a}} splices a dict parameter and takes the "
            "value null");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "j", "type": "nodes_x_procs", "default": "2y3"}],
                           "app": {}})"),
            "m.json: component c: params[0].default: expected [MIN:]NNODESxNPROC_PER_NODE such "
            "as 2x4 or 1:2x4, or NPROC_PER_NODE such as 4, got \"2y3\"");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "j", "type": "nodes_x_procs"}],
                           "app": {"name": "{{j}}"}})"),
            "m.json: component c: app.name: {{j}}: name a field of the nodes_x_procs parameter: "
            "{{j.nnodes}}, .min_nnodes, .nproc_per_node or .nnodes_range");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "s", "type": "str"}],
                           "app": {"name": "{{s.nnodes}}"}})"),
            "m.json: component c: app.name: {{s.nnodes}}: only nodes_x_procs parameters have "
            "fields");
  EXPECT_EQ(parse_error(R"({"params": [], "app": {"name": {"$if": "x", "then": "a"}}})"),
            "m.json: component c: app.name.$if: expected the name of a parameter");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "x", "type": "bool"}],
                           "app": {"name": {"$if": "x", "else": "a"}}})"),
            "m.json: component c: app.name: a {\"$if\": PARAM} needs then");
  EXPECT_EQ(parse_error(R"({"params": [], "app": {"name": "{{oops"}})"),
            "m.json: component c: app.name: template: unclosed '{{' in \"{{oops\"; placeholders "
            "read {{param}}");
  EXPECT_EQ(parse_error(R"({"params": [{"name": "m", "type": "str", "default": "x"}],
                           "one_of": [["m"]], "app": {}})"),
            "m.json: component c: one_of[0]: parameter 'm' must have default null to be one of "
            "a group");
  EXPECT_EQ(parse_error(R"({"params": []})"),
            "m.json: component c: app is required (the AppDef template)");
}

TEST_F(ComponentTest, HelpIsAskedForAmongTheOptionsOnly) {
  const Component& sh = builtins_.at("utils.sh");      // has -h, the named resource
  const Component& echo = builtins_.at("utils.echo");  // has no parameter h
  EXPECT_TRUE(asks_for_help(sh, {"--help"}));
  EXPECT_TRUE(asks_for_help(sh, {"-h", "gpu.small", "--help"}));
  EXPECT_FALSE(asks_for_help(sh, {"-h", "gpu.small", "echo hi"}));
  EXPECT_FALSE(asks_for_help(sh, {"-h"}));              // a missing value, reported by instantiate
  EXPECT_FALSE(asks_for_help(sh, {"grep", "--help"}));  // the command's own option
  EXPECT_FALSE(asks_for_help(sh, {"--", "--help"}));
  EXPECT_FALSE(asks_for_help(echo, {"--msg", "--help"}));  // the value of --msg
  EXPECT_TRUE(asks_for_help(echo, {"--msg=x", "-h"}));
  EXPECT_EQ(run("utils.sh", {"-h", "gpu.small", "nvidia-smi"}).roles[0].resource.gpu, 1);
}

TEST_F(ComponentTest, HelpListsParametersWithTypesDefaultsAndHelp) {
  EXPECT_EQ(component_help(builtins_.at("utils.echo")),
            "utils.echo: Echoes a message to stdout (runs echo)\n"
            "usage: sortie run utils.echo [--msg str] [--image str] [--num_replicas int]\n"
            "\n"
            "parameters:\n"
            "  --msg str  (str, default \"hello world\")\n"
            "      message to echo\n"
            "  --image str  (str, default \".\")\n"
            "      image to run in\n"
            "  --num_replicas int  (int, default 1)\n"
            "      number of replicas\n");
  const std::string sh = component_help(builtins_.at("utils.sh"));
  EXPECT_NE(sh.find("usage: sortie run utils.sh [--] args... [--image str]"), std::string::npos);
  EXPECT_NE(sh.find("  args...  (list, positional, required)\n"), std::string::npos);
  EXPECT_NE(sh.find("  -h str  (str, optional)\n"), std::string::npos);
}

}  // namespace
}  // namespace sortie::model
