#include "log_frames.hpp"

#include <gtest/gtest.h>
#include <sortie/plugin_abi.h>

#include <vector>

namespace sortie::docker {
namespace {

std::string frame(char stream, const std::string& payload) {
  std::string header(8, '\0');
  header[0] = stream;
  const uint32_t size = static_cast<uint32_t>(payload.size());
  header[4] = static_cast<char>(size >> 24);
  header[5] = static_cast<char>(size >> 16);
  header[6] = static_cast<char>(size >> 8);
  header[7] = static_cast<char>(size);
  return header + payload;
}

struct Seen {
  int32_t stream;
  int64_t ts;
  std::string line;
};

TEST(DockerLogFrames, DemultiplexesSplitFramesAndJoinsPartialEntries) {
  const std::string bytes =
      frame(1, "2024-05-01T10:00:00.5Z hello\n") +
      frame(2, "2024-05-01T10:00:01.000000001Z oops\n") + frame(1, "2024-05-01T10:00:02Z par") +
      frame(1, "2024-05-01T10:00:03Z tial\n") + frame(1, "2024-05-01T10:00:04Z no newline");
  std::vector<Seen> seen;
  LogFrameDecoder decoder;
  const LineHandler handler = [&](int32_t stream, int64_t ts, std::string_view line) {
    seen.push_back({stream, ts, std::string(line)});
  };
  for (size_t i = 0; i < bytes.size(); i += 3) decoder.feed(bytes.substr(i, 3), handler);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].line, "hello\n");
  EXPECT_EQ(seen[0].stream, SORTIE_STREAM_STDOUT);
  EXPECT_EQ(seen[0].ts, 1714557600500000000);
  EXPECT_EQ(seen[1].line, "oops\n");
  EXPECT_EQ(seen[1].stream, SORTIE_STREAM_STDERR);
  EXPECT_EQ(seen[1].ts, 1714557601000000001);
  EXPECT_EQ(seen[2].line, "partial\n");
  EXPECT_EQ(seen[2].ts, 1714557602000000000);  // the first piece's time
  EXPECT_EQ(decoder.last_entry_ns(), 1714557604000000000);
  decoder.finish(handler);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[3].line, "no newline");
}

TEST(DockerLogFrames, AnInterruptedFrameIsDroppedNotHalfDelivered) {
  std::vector<std::string> lines;
  LogFrameDecoder decoder;
  const LineHandler handler = [&](int32_t, int64_t, std::string_view line) {
    lines.emplace_back(line);
  };
  const std::string whole = frame(1, "2024-05-01T10:00:00Z one\n");
  decoder.feed(whole + frame(1, "2024-05-01T10:00:01Z two\n").substr(0, 12), handler);
  decoder.drop_partial_frame();
  decoder.feed(frame(1, "2024-05-01T10:00:01Z two\n"), handler);
  EXPECT_EQ(lines, (std::vector<std::string>{"one\n", "two\n"}));
}

}  // namespace
}  // namespace sortie::docker
