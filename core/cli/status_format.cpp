#include "status_format.hpp"

#include <fmt/format.h>

#include "printable.hpp"

namespace sortie::cli {

namespace {

std::string replica_line(const std::string& role, const model::ReplicaStatus& replica) {
  std::string line =
      fmt::format("    {}[{}]: {}", printable(role), replica.id, model::to_string(replica.state));
  if (replica.exit_code) line += fmt::format(" (exit code {})", *replica.exit_code);
  if (replica.pid) line += fmt::format(" pid {}", *replica.pid);
  if (replica.restarts > 0) line += fmt::format(" restarts {}", replica.restarts);
  if (!replica.msg.empty()) line += ": " + printable(replica.msg);
  return line + "\n";
}

}  // namespace

std::string format_status(const std::string& handle, const model::AppStatus& status,
                          const std::set<std::string>& roles) {
  std::string out = fmt::format("{}\n  State: {}\n  Num restarts: {}\n", printable(handle),
                                model::to_string(status.state), status.num_restarts);
  if (!status.roles.empty()) out += "  Replicas:\n";
  for (const auto& role : status.roles) {
    if (!roles.empty() && roles.count(role.role) == 0) continue;
    for (const auto& replica : role.replicas) out += replica_line(role.role, replica);
  }
  if (!status.msg.empty()) out += "  Msg: " + printable(status.msg) + "\n";
  if (!status.structured_error_msg.empty()) {
    out += "  Structured error: " + printable(status.structured_error_msg) + "\n";
  }
  if (!status.ui_url.empty()) out += "  UI URL: " + printable(status.ui_url) + "\n";
  return out;
}

std::string format_app(const AppDef& app) {
  std::string out = fmt::format("App: {}\n", printable(app.name));
  if (!app.output_dir.empty()) {
    out += fmt::format("  output dir: {}\n", printable(app.output_dir));
  }
  for (const auto& role : app.roles) {
    out += fmt::format("  Role {}: {} replica(s)\n    entrypoint: {}\n", printable(role.name),
                       role.num_replicas, printable(role.entrypoint));
    if (!role.args.empty()) {
      out += fmt::format("    args: {}\n", printable(fmt::format("{}", fmt::join(role.args, " "))));
    }
    if (!role.image.empty()) out += fmt::format("    image: {}\n", printable(role.image));
    for (const auto& [key, value] : role.env) {
      out += fmt::format("    env {}={}\n", printable(key), printable(value));
    }
    const Resource& res = role.resource;
    if (res.cpu >= 0 || res.gpu >= 0 || res.mem_mb >= 0) {
      out += fmt::format("    resource: cpu {} gpu {} memMB {}\n", res.cpu, res.gpu, res.mem_mb);
    }
    if (role.max_retries > 0) {
      out += fmt::format("    retries: {} ({})\n", role.max_retries,
                         retry_policy_name(role.retry_policy));
    }
  }
  return out;
}

}  // namespace sortie::cli
