// A complete third-party scheduler. "serial" runs an app's replicas one after another inside
// schedule(), then keeps the outcome in its state_dir so that any later sortie process can
// describe the app (rule ABI-8).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>
#include <sstream>
#include <vector>

extern char** environ;

namespace {

rapidjson::Document parse(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    throw sortie::Error(sortie::Code::kInvalidArgument, "payload is not a JSON object");
  }
  return doc;
}

// Runs argv to completion; returns its exit status (127 if it could not start).
int run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) return 127;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class SerialScheduler final : public sortie::Scheduler {
 public:
  explicit SerialScheduler(std::string_view config) {
    state_dir_ = parse(config)["state_dir"].GetString();
  }

  // The request is the app itself, under the app id the host proposed.
  std::string dryrun(std::string_view input) override {
    rapidjson::Document doc = parse(input);
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> writer(out);
    writer.StartObject();
    writer.Key("schema"), writer.String("sortie.dryrun/1");
    writer.Key("app_id"), writer.String(doc["app_id"].GetString());
    writer.Key("request"), doc["app"].Accept(writer);
    writer.EndObject();
    return out.GetString();
  }

  std::string schedule(std::string_view request) override {
    rapidjson::Document doc = parse(request);
    const std::string app_id = doc["app_id"].GetString();
    std::string state = "SUCCEEDED";
    std::ostringstream replicas;
    for (const auto& role : doc["request"]["roles"].GetArray()) {
      const int count = role.HasMember("num_replicas") ? role["num_replicas"].GetInt() : 1;
      replicas << (replicas.tellp() > 0 ? "," : "") << R"({"role":")" << role["name"].GetString()
               << R"(","replicas":[)";
      for (int id = 0; id < count; ++id) {
        sortie::MacroValues macros;
        macros.set("app_id", app_id).set("replica_id", std::to_string(id));
        std::vector<std::string> argv{role["entrypoint"].GetString()};
        for (const auto& arg : role["args"].GetArray())
          argv.push_back(macros.apply(arg.GetString()));
        const int code = run(argv);
        if (code != 0) state = "FAILED";
        replicas << (id > 0 ? "," : "") << R"({"id":)" << id << R"(,"state":")"
                 << (code == 0 ? "SUCCEEDED" : "FAILED") << R"(","exit_code":)" << code << "}";
      }
      replicas << "]}";
    }
    std::ofstream(state_dir_ + "/" + app_id + ".json")
        << R"({"schema":"sortie.status/1","app_id":")" << app_id << R"(","state":")" << state
        << R"(","roles":[)" << replicas.str() << "]}";
    return app_id;
  }

  std::string describe(std::string_view app_id) override {
    std::ifstream file(state_dir_ + "/" + std::string(app_id) + ".json");
    if (!file) throw sortie::Error(sortie::Code::kNotFound, "no app " + std::string(app_id));
    return std::string(std::istreambuf_iterator<char>(file), {});
  }

  // Apps are finished when schedule() returns: nothing is left to cancel.
  void cancel(std::string_view app_id) override { describe(app_id); }

 private:
  std::string state_dir_;
};

}  // namespace

SORTIE_PLUGIN("serial", "1.0.0",
              SORTIE_SCHEDULER("serial", "Runs an app's replicas one after another",
                               SerialScheduler));
