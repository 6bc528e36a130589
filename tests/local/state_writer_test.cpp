// The supervisor outlives its own write failures (finding F5, supervisor/state_writer.hpp):
// with state.json unable to grow (a file-size limit as tight as a full disk), the app's end is
// still recorded, in place, instead of the supervisor dying and the app reading "supervisor died
// unexpectedly".
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "local_plugin_client.hpp"

namespace sortie::local::testing {
namespace {

TEST(StateWriterTest, AnAppEndsRecordedWhenStateJsonCannotGrow) {
  TempDir state;
  SchedulerClient scheduler("local_cwd", state.path());
  const std::string release = state.path() + "/release";
  const std::string role = R"({"name":"w","entrypoint":"sh","args":["-c","while [ ! -e )" +
                           release + R"( ]; do sleep 0.02; done; exit 3"],"num_replicas":4})";
  ASSERT_EQ(scheduler.submit(dryrun_input("tight", "[" + role + "]", "{}")), "tight");
  scheduler.wait_running("tight");

  const std::string state_json = state_json_path(state.path() + "/logs/test/tight");
  std::ifstream file(state_json);
  std::stringstream text;
  text << file.rdbuf();
  const auto supervisor = static_cast<pid_t>(parse(text.str())["supervisor"]["pid"].GetInt64());
  struct stat info {};
  ASSERT_EQ(::stat(state_json.c_str(), &info), 0);
  // No file the supervisor writes may grow past state.json's present size from now on.
  const rlimit tight{static_cast<rlim_t>(info.st_size), static_cast<rlim_t>(info.st_size)};
  ASSERT_EQ(::prlimit(supervisor, RLIMIT_FSIZE, &tight, nullptr), 0);

  std::ofstream(release).close();
  const rapidjson::Document done = scheduler.wait_terminal("tight");
  const std::string msg = done["msg"].GetString();
  EXPECT_STREQ(done["state"].GetString(), "FAILED") << msg;
  EXPECT_NE(msg.find("exited with code 3"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("died unexpectedly"), std::string::npos) << msg;
}

}  // namespace
}  // namespace sortie::local::testing
