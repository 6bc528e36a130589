#include <gtest/gtest.h>

#include <sortie/error.hpp>
#include <sortie/field_support.hpp>

namespace {

sortie::AppDef app_with(const std::string& role_members) {
  return sortie::read_appdef(R"({"schema":"sortie.appdef/1","name":"a","roles":[{"name":"r",)"
                             R"("entrypoint":"true")" +
                             role_members + "}]}");
}

// The message of the error refuse_unsupported_fields throws, "" if it accepts the app.
std::string refusal(const sortie::AppDef& app, std::initializer_list<std::string_view> honoured) {
  try {
    sortie::refuse_unsupported_fields(app, honoured, "acme");
    return "";
  } catch (const sortie::Error& error) {
    EXPECT_EQ(error.code(), sortie::Code::kInvalidArgument);
    return error.what();
  }
}

TEST(FieldSupportTest, AMinimalAppIsAccepted) { EXPECT_EQ(refusal(app_with(""), {}), ""); }

TEST(FieldSupportTest, EachFieldSetIsRefusedByNameUnlessHonoured) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"image", R"(,"image":"busybox")"},
      {"base_image", R"(,"base_image":"base")"},
      {"args", R"(,"args":["x"])"},
      {"env", R"(,"env":{"K":"V"})"},
      {"min_replicas", R"(,"num_replicas":2,"min_replicas":1)"},
      {"num_replicas", R"(,"num_replicas":2)"},
      {"max_retries", R"(,"max_retries":1)"},
      {"resource", R"(,"resource":{"memMB":512})"},
      {"port_map", R"(,"port_map":{"http":80})"},
      {"mounts", R"(,"mounts":[{"type":"bind","src":"/tmp","dst":"/d"}])"},
      {"metadata", R"(,"metadata":{"acme.k":"v"})"}};
  for (const auto& [field, members] : cases) {
    EXPECT_EQ(refusal(app_with(members), {}),
              "roles[0]." + field +
                  " is not supported by acme; remove it or use a scheduler "
                  "that honours it")
        << field;
  }
  EXPECT_EQ(refusal(app_with(R"(,"port_map":{"http":80},"args":["x"])"), {"port_map", "args"}), "");
}

TEST(FieldSupportTest, MoreThanOneRoleIsRefusedUnlessHonoured) {
  const sortie::AppDef app = sortie::read_appdef(
      R"({"schema":"sortie.appdef/1","name":"a","roles":[{"name":"r","entrypoint":"true"},)"
      R"({"name":"s","entrypoint":"true"}]})");
  EXPECT_NE(refusal(app, {}).find("roles (more than one)"), std::string::npos);
  EXPECT_EQ(refusal(app, {"roles"}), "");
}

}  // namespace
