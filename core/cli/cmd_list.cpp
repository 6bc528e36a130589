// `sortie list`: the apps in the store, newest first, with live states for those not yet
// terminal; with -s, also the apps the scheduler itself lists (e.g. launched elsewhere). A thin
// client of the runner API.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/json_text.hpp>

#include "commands.hpp"
#include "durations.hpp"
#include "printable.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

constexpr std::chrono::milliseconds kProgressInterval{250};

}  // namespace

int cmd_list(session::Session& ctx, const Args& args) {
  std::string scheduler_name;
  int limit = 0;
  po::options_description desc("list options");
  desc.add_options()("help,h", "show this help")(
      "scheduler,s", po::value(&scheduler_name),
      "only this scheduler's apps, including those it lists itself")(
      "active", "only apps that are not terminal")(
      "limit", po::value(&limit), "at most N apps (newest first)")("json", "print JSON");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << "usage: sortie list [options]\n\n" << desc;
    return kExitOk;
  }

  runner::ListOptions options;
  options.scheduler = scheduler_name;
  options.active_only = vm.count("active") != 0;
  options.limit = limit;
  // A long refresh (the first list after many apps ended unobserved) shows that it is under way.
  bool progress_shown = false;
  auto last_shown = std::chrono::steady_clock::now();
  if (::isatty(STDERR_FILENO) != 0) {
    options.progress = [&](size_t done, size_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_shown < kProgressInterval && done < total) return;
      last_shown = now;
      progress_shown = true;
      std::fprintf(stderr,
                   "\rsortie list: refreshing the states of apps not ended on record: %zu of %zu",
                   done, total);
    };
  }
  const runner::AppList list = runner::SessionBinding::over(ctx).list(options);
  if (progress_shown) std::fprintf(stderr, "\r\033[K");
  if (!list.scheduler_unlisted.empty()) {
    std::fprintf(stderr, "sortie list: %s; showing the store's apps only\n",
                 model::printable_message(list.scheduler_unlisted).c_str());
  }
  const std::vector<runner::ListedApp>& rows = list.apps;
  if (vm.count("json") != 0) {
    session::JsonText out;
    out.begin_object().key("schema").string("sortie.cli.list/1").key("apps").begin_array();
    for (const auto& row : rows) {
      out.begin_object().key("handle").string(row.handle).key("name").string(row.name);
      out.key("state").string(row.state).key("submitted_at").number(row.submitted_at);
      out.key("unverified").string_or_null(row.unverified).end_object();
    }
    out.end_array().end_object();
    std::printf("%s\n", out.str().c_str());
    return kExitOk;
  }
  size_t width = 6;
  for (const auto& row : rows) width = std::max(width, row.handle.size());
  std::printf("%-*s  %-20s  %-10s  %s\n", static_cast<int>(width), "HANDLE", "NAME", "STATE",
              "SUBMITTED");
  for (const auto& row : rows) {
    const std::string state =
        row.unverified.empty() ? row.state : row.state + " (unverified: " + row.unverified + ")";
    std::printf("%-*s  %-20s  %-10s  %s\n", static_cast<int>(width), printable(row.handle).c_str(),
                printable(row.name).c_str(), printable(state).c_str(),
                age(row.submitted_at).c_str());
  }
  return kExitOk;
}

}  // namespace sortie::cli
