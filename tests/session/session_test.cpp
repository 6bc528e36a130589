// Tests for sortie/session/session.hpp: sessions in one process keep their settings apart (no
// process-wide isolation options or print level).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <sortie/model/error.hpp>
#include <sortie/session/session.hpp>
#include <string>

namespace sortie::session {
namespace {

using std::chrono_literals::operator""s;

TEST(SessionTest, TwoSessionsKeepTheirPluginSettingsApart) {
  unsetenv("SORTIE_ISOLATE_PLUGINS");
  unsetenv("SORTIE_PLUGIN_TIMEOUT");
  SessionOptions isolated_options;
  isolated_options.isolate_plugins = true;
  isolated_options.quiet = true;
  isolated_options.plugin_timeout = 5s;
  Session isolated(isolated_options);
  Session plain(SessionOptions{});

  EXPECT_TRUE(isolated.plugin_host().isolation().isolate_all);
  EXPECT_EQ(isolated.plugin_host().isolation().call_timeout, 5s);
  EXPECT_EQ(isolated.plugin_host().print_level(), SORTIE_LOG_WARNING);
  EXPECT_FALSE(plain.plugin_host().isolation().isolate_all);
  EXPECT_EQ(plain.plugin_host().isolation().call_timeout, 120s);
  EXPECT_EQ(plain.plugin_host().print_level(), SORTIE_LOG_INFO);
}

TEST(SessionTest, AMalformedVariableIsAnErrorNamingIt) {
  setenv("SORTIE_ISOLATE_PLUGINS", "maybe", 1);
  try {
    Session session(SessionOptions{});
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("SORTIE_ISOLATE_PLUGINS: 'maybe'"), std::string::npos)
        << error.what();
  }
  unsetenv("SORTIE_ISOLATE_PLUGINS");
}

}  // namespace
}  // namespace sortie::session
