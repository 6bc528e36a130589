#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sortie/error.hpp>
#include <sortie/process.hpp>
#include <sortie/process_logs.hpp>
#include <string>
#include <vector>

namespace {

struct Read {
  std::string role;
  uint32_t replica;
  std::string data;
};

class ProcessLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("sortie-process-logs-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  sortie::ReplicaProcess start(const std::string& role, int64_t id, const std::string& script) {
    sortie::ReplicaProcess replica{role, id, (dir_ / (role + "." + std::to_string(id))).string()};
    sortie::start_process({"sh", "-c", script}, replica.path);
    return replica;
  }

  // Every line of the stream, calling next() until it ends (at most 60 s of 1 s calls).
  static std::vector<Read> read_all(sortie::LogStream& stream) {
    std::vector<Read> lines;
    sortie_log_sink raw{&lines, [](void* ctx, const sortie_log_line* line) {
                          static_cast<std::vector<Read>*>(ctx)->push_back(
                              {std::string(line->role.ptr, line->role.len), line->replica_id,
                               std::string(line->data.ptr, line->data.len)});
                        }};
    const sortie::LogSink sink(&raw);
    for (int calls = 0; calls < 60 && stream.next(1000, sink); ++calls) {
    }
    return lines;
  }

  std::filesystem::path dir_;
};

// Following reads what replicas print after it opened, each line attributed to its replica, and
// ends once they have all ended; a last line without '\n' is handed over whole.
TEST_F(ProcessLogsTest, FollowReadsEveryReplicaUntilTheyEnd) {
  const std::vector<sortie::ReplicaProcess> replicas = {
      start("main", 0, "echo first; sleep 1; printf last"), start("main", 1, "echo other")};
  auto stream = sortie::open_process_logs(replicas, R"({"follow":true})", "test");
  const std::vector<Read> lines = read_all(*stream);
  ASSERT_EQ(lines.size(), 3u);
  int mine = 0;
  for (const Read& line : lines) {
    EXPECT_EQ(line.role, "main");
    if (line.replica == 0) {
      EXPECT_EQ(line.data, mine++ == 0 ? "first\n" : "last\n");
    } else {
      EXPECT_EQ(line.data, "other\n");
    }
  }
  EXPECT_EQ(sortie::process_state(replicas[0].path), sortie::AppState::kSucceeded);
}

TEST_F(ProcessLogsTest, OneReplicaIsSelectedAndWhatTheLogCannotAnswerIsRefusedByName) {
  const std::vector<sortie::ReplicaProcess> replicas = {start("a", 0, "echo zero"),
                                                        start("a", 1, "echo one")};
  auto stream = sortie::open_process_logs(replicas, R"({"replica":1,"follow":true})", "test");
  const std::vector<Read> lines = read_all(*stream);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].data, "one\n");
  for (const char* request : {R"({"streams":"stderr"})", R"({"since":1})", R"({"tail":3})"}) {
    try {
      sortie::open_process_logs(replicas, request, "test");
      ADD_FAILURE() << request << " was not refused";
    } catch (const sortie::Error& e) {
      EXPECT_EQ(e.status(), SORTIE_UNIMPLEMENTED) << request;
      EXPECT_NE(std::string(e.what()).find("test keeps one combined, untimed log"),
                std::string::npos);
    }
  }
  try {
    sortie::open_process_logs(replicas, R"({"role":"b"})", "test");
    ADD_FAILURE() << "role b was not refused";
  } catch (const sortie::Error& e) {
    EXPECT_EQ(e.status(), SORTIE_NOT_FOUND);
  }
}

}  // namespace
