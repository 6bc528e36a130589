#include <random>
#include <sortie/appdef.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model.hpp>

namespace sortie::model {
namespace {

// DNS-1123 labels are at most 63 characters; the id is "{name}-{suffix}".
constexpr size_t kMaxAppIdLength = 63;
constexpr size_t kSuffixLength = 10;

}  // namespace

// The SDK's names are string literals, so their data() is NUL-terminated.
const char* to_string(AppState state) noexcept { return app_state_name(state).data(); }

void validate(const AppDef& app) {
  try {
    check_appdef(app);
  } catch (const Error& e) {
    throw Error(e.status(), "app '" + app.name + "': " + e.what());
  }
}

std::string make_app_id(std::string_view app_name) {
  std::string name;
  for (const char c : app_name) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool allowed = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (allowed) {
      name += lower;
    } else if (!name.empty() && name.back() != '-') {
      name += '-';  // runs of other characters become one '-'
    }
  }
  name.resize(std::min(name.size(), kMaxAppIdLength - kSuffixLength - 1));
  while (!name.empty() && name.back() == '-') name.pop_back();
  if (name.empty()) name = "app";

  static constexpr std::string_view kBase36 = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::random_device device;
  std::uniform_int_distribution<size_t> digit(0, kBase36.size() - 1);
  std::string id = name + "-";
  for (size_t i = 0; i < kSuffixLength; ++i) id += kBase36[digit(device)];
  return id;
}

std::string AppHandle::str() const { return scheduler + "://" + session + "/" + app_id; }

AppHandle parse_app_handle(std::string_view text) {
  const auto fail = [&](const std::string& why) -> Error {
    return Error::invalid_argument(
        "'" + std::string(text) + "' is not an app handle (" + why +
        "); expected SCHEDULER://SESSION/APP_ID, e.g. local_cwd://default/echo-k3x9q2a0b1 "
        "(SESSION may be empty: local_cwd:///echo-k3x9q2a0b1)");
  };
  const size_t separator = text.find("://");
  if (separator == std::string_view::npos) throw fail("no '://'");
  if (separator == 0) throw fail("SCHEDULER is empty");
  const std::string_view rest = text.substr(separator + 3);
  const size_t slash = rest.rfind('/');
  if (slash == std::string_view::npos) throw fail("no '/' before APP_ID");
  if (slash + 1 == rest.size()) throw fail("APP_ID is empty");
  return AppHandle{std::string(text.substr(0, separator)), std::string(rest.substr(0, slash)),
                   std::string(rest.substr(slash + 1))};
}

}  // namespace sortie::model
