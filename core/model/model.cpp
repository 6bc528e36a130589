#include <random>
#include <set>
#include <sortie/core/error.hpp>
#include <sortie/core/model.hpp>
#include <sortie/limits.hpp>

namespace sortie::core {
namespace {

// DNS-1123 labels are at most 63 characters; the id is "{name}-{suffix}".
constexpr size_t kMaxAppIdLength = 63;
constexpr size_t kSuffixLength = 10;

std::string role_context(const AppDef& app, size_t index) {
  return "app '" + app.name + "': roles[" + std::to_string(index) + "] ('" + app.roles[index].name +
         "')";
}

void validate_resource(const Resource& res, const std::string& where) {
  if (res.cpu < 0 && res.cpu != -1) {
    throw Error::invalid_argument(where + ": resource.cpu must be >= 0 (or -1 for unset), got " +
                                  std::to_string(res.cpu));
  }
  if (res.gpu < -1) {
    throw Error::invalid_argument(where + ": resource.gpu must be >= 0 (or -1 for unset), got " +
                                  std::to_string(res.gpu));
  }
  if (res.mem_mb < -1) {
    throw Error::invalid_argument(where + ": resource.memMB must be >= 0 (or -1 for unset), got " +
                                  std::to_string(res.mem_mb));
  }
  for (const auto& [device, count] : res.devices) {
    if (count < 0) {
      throw Error::invalid_argument(where + ": resource.devices." + device + " must be >= 0, got " +
                                    std::to_string(count));
    }
  }
}

void validate_role(const AppDef& app, size_t index) {
  const Role& role = app.roles[index];
  const std::string where = role_context(app, index);
  if (role.entrypoint.empty() && role.image.empty()) {
    throw Error::invalid_argument(where + ": entrypoint is required");
  }
  if (role.num_replicas < 1) {
    throw Error::invalid_argument(where + ": num_replicas must be >= 1, got " +
                                  std::to_string(role.num_replicas));
  }
  if (static_cast<size_t>(role.num_replicas) > limits::value(limits::kReplicasPerRole)) {
    throw Error::invalid_argument(
        where + ": " +
        limits::exceeded("num_replicas (" + std::to_string(role.num_replicas) + ")",
                         limits::kReplicasPerRole));
  }
  if (role.min_replicas && (*role.min_replicas < 1 || *role.min_replicas > role.num_replicas)) {
    throw Error::invalid_argument(where + ": min_replicas must be between 1 and num_replicas (" +
                                  std::to_string(role.num_replicas) + "), got " +
                                  std::to_string(*role.min_replicas));
  }
  if (role.max_retries < 0) {
    throw Error::invalid_argument(where + ": max_retries must be >= 0, got " +
                                  std::to_string(role.max_retries));
  }
  validate_resource(role.resource, where);
  for (const auto& [port_name, port] : role.port_map) {
    if (port < 0 || port > 65535) {
      throw Error::invalid_argument(where + ": port_map." + port_name +
                                    " must be a port number (0-65535), got " +
                                    std::to_string(port));
    }
  }
  for (size_t m = 0; m < role.mounts.size(); ++m) {
    const Mount& mount = role.mounts[m];
    const std::string mount_where = where + ": mounts[" + std::to_string(m) + "]";
    if (mount.src.empty()) throw Error::invalid_argument(mount_where + ": src is required");
    if (mount.dst.empty()) throw Error::invalid_argument(mount_where + ": dst is required");
  }
}

}  // namespace

// The SDK's names are string literals, so their data() is NUL-terminated.
const char* to_string(AppState state) noexcept { return app_state_name(state).data(); }

std::optional<AppState> app_state_from_string(std::string_view name) noexcept {
  return app_state_from_name(name);
}

const char* to_string(RetryPolicy policy) noexcept { return retry_policy_name(policy).data(); }

std::optional<RetryPolicy> retry_policy_from_string(std::string_view name) noexcept {
  return retry_policy_from_name(name);
}

const char* to_string(MountType type) noexcept {
  switch (type) {
    case MountType::kBind:
      return "bind";
    case MountType::kVolume:
      return "volume";
    case MountType::kDevice:
      return "device";
  }
  return "bind";
}

void validate(const AppDef& app) {
  if (app.roles.empty()) {
    throw Error::invalid_argument("app '" + app.name +
                                  "': roles is empty; an app needs at least one role");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < app.roles.size(); ++i) {
    const std::string& name = app.roles[i].name;
    if (name.empty()) {
      throw Error::invalid_argument("app '" + app.name + "': roles[" + std::to_string(i) +
                                    "]: name is required");
    }
    if (!names.insert(name).second) {
      throw Error::invalid_argument("app '" + app.name + "': roles[" + std::to_string(i) +
                                    "]: role name '" + name +
                                    "' is used twice; role names must be unique");
    }
    validate_role(app, i);
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

}  // namespace sortie::core
