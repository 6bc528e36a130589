// `sortie log HANDLE[/ROLE[/REPLICA[,REPLICA...]]]`: an app's output, whole lines, prefixed
// with ROLE/REPLICA. A thin client of the runner API.
#include <boost/algorithm/string/split.hpp>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sortie/model/error.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/app_waiter.hpp>

#include "app_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "log_printer.hpp"
#include "time_arg.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

struct LogTarget {
  std::string handle;
  std::string role;
  std::set<uint32_t> replicas;
};

// Splits the role and replica suffixes off SCHEDULER://SESSION/APP_ID/ROLE/REPLICAS.
LogTarget parse_log_target(const std::string& text) {
  LogTarget target;
  const size_t scheme = text.find("://");
  if (scheme == std::string::npos) {
    throw Error::invalid_argument("'" + text +
                                  "' is not SCHEDULER://SESSION/APP_ID[/ROLE[/REPLICA,...]]");
  }
  std::vector<std::string> parts;
  const std::string path = text.substr(scheme + 3);
  boost::split(parts, path, [](char c) { return c == '/'; });
  if (parts.size() < 2 || parts.size() > 4) {
    throw Error::invalid_argument("'" + text +
                                  "' is not SCHEDULER://SESSION/APP_ID[/ROLE[/REPLICA,...]]");
  }
  target.handle = text.substr(0, scheme + 3) + parts[0] + "/" + parts[1];
  if (parts.size() >= 3) target.role = parts[2];
  if (parts.size() == 4) {
    std::vector<std::string> ids;
    boost::split(ids, parts[3], [](char c) { return c == ','; });
    for (const auto& id : ids) {
      if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
        throw Error::invalid_argument("replica '" + id + "' in '" + text + "' is not a number");
      }
      target.replicas.insert(static_cast<uint32_t>(std::stoul(id)));
    }
  }
  return target;
}

std::chrono::system_clock::time_point time_point(int64_t ns_since_epoch) {
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::nanoseconds(ns_since_epoch)));
}

}  // namespace

int cmd_log(session::Session& ctx, const Args& args) {
  std::string regex, since, until, streams = "combined";
  po::options_description desc("log options");
  desc.add_options()("help,h", "show this help")("regex", po::value(&regex),
                                                 "only lines matching this POSIX extended regex")(
      "since", po::value(&since), "only lines written at or after this time")(
      "until", po::value(&until), "only lines written before this time")(
      "follow,f", "keep printing until the app is terminal")(
      "streams", po::value(&streams), "stdout, stderr or combined (default)")(
      "no-prefix", "print lines without the ROLE/REPLICA prefix");
  po::variables_map vm;
  const auto target_text = parse_positional_command(
      "usage: sortie log SCHEDULER://SESSION/APP_ID[/ROLE[/REPLICA,...]] [options]", desc,
      "HANDLE[/ROLE[/REPLICA]]", args, vm);
  if (!target_text) return kExitOk;
  if (streams != "stdout" && streams != "stderr" && streams != "combined") {
    throw Error::invalid_argument("--streams '" + streams +
                                  "': expected stdout, stderr or combined");
  }
  if (auto why = regex.empty() ? std::nullopt : runner::regex_error(regex)) {
    throw Error::invalid_argument("--regex '" + regex + "': " + *why);
  }
  const LogTarget target = parse_log_target(*target_text);
  const int64_t now = session::now_ns();
  runner::LogOptions options;
  options.role = target.role;
  options.replicas = target.replicas;
  options.regex = regex;
  if (!since.empty()) options.since = time_point(parse_time_arg(since, "--since", now));
  if (!until.empty()) options.until = time_point(parse_time_arg(until, "--until", now));
  options.should_tail = vm.count("follow") != 0;
  options.streams = streams == "stdout"   ? runner::Streams::kStdout
                    : streams == "stderr" ? runner::Streams::kStderr
                                          : runner::Streams::kCombined;

  runner::Runner runner = runner::SessionBinding::over(ctx);
  if (!runner.status(target.handle)) return report_unknown_app(target.handle);
  LogPrinter printer(vm.count("no-prefix") == 0);
  session::install_interrupt_handlers();
  const bool ended = runner.log_lines(target.handle, options,
                                      [&](const auto& lines) { return printer.print(lines); });
  return ended ? kExitOk : kExitInterrupted;
}

}  // namespace sortie::cli
