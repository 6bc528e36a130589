// Turns a sortie.dryrun_input/1 into local_docker's sortie.dryrun/1: the exact Engine calls that
// schedule() will make (one network per app, one container create body per replica, the images
// to make present and the workspace images to push), or an error naming the role and field
// local_docker cannot honour.
#ifndef SORTIE_DOCKER_APP_PLAN_HPP
#define SORTIE_DOCKER_APP_PLAN_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json_fields.hpp"

namespace sortie::docker {

struct SchedulerContext {
  std::string scheduler_name;  // "local_docker"
  std::string session;
  std::string state_dir;
};

struct ContainerPlan {
  std::string name;  // container name: <app_id>-<hostname>
  std::string hostname;
  std::string role;
  int64_t replica_id = 0;
  std::string create_body;  // POST /containers/create body (JSON text)
};

struct PushPlan {
  std::string source;      // local workspace image, e.g. sortie-workspace:3f2a...
  std::string repository;  // image_repo
  std::string tag;
};

struct RoleLayout {
  std::string name;
  int64_t num_replicas = 1;
};

// The "roles" array of the dryrun request and of the app record: [{"name", "num_replicas"}].
void write_role_layouts(plugins_common::JsonWriter& writer, const std::vector<RoleLayout>& roles);
std::vector<RoleLayout> read_role_layouts(const rapidjson::Value& object, const std::string& what);

struct AppPlan {
  std::string app_id;
  std::string app_name;
  std::string session;
  std::string network;  // user-defined bridge network of the app
  int64_t cancel_grace_seconds = 10;
  std::vector<std::string> images;  // distinct images the containers run (pulled when missing)
  std::vector<PushPlan> pushes;
  std::vector<RoleLayout> roles;
  std::vector<ContainerPlan> containers;
};

std::string build_dryrun(std::string_view input, const SchedulerContext& context);

// Reads the "request" member written by build_dryrun.
AppPlan read_plan(const rapidjson::Value& request);

// The DNS label a role's replica answers to on the app network: role name lower-cased with
// characters outside [a-z0-9-] replaced by '-', then "-<replica>".
std::string replica_hostname(std::string_view role, int64_t replica_id);

// The app's network name.
std::string network_name(std::string_view app_id);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_APP_PLAN_HPP
