// `sortie cancel HANDLE`: asks the scheduler to cancel, then waits (bounded) for the app to be
// terminal so the user learns the outcome.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sortie/core/error.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/app_waiter.hpp>

#include "app_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

int cmd_cancel(session::Session& ctx, const Args& args) {
  double timeout_s = 60;
  po::options_description desc("cancel options");
  desc.add_options()("help,h", "show this help")(
      "timeout", po::value(&timeout_s),
      "seconds to wait for the app to stop (default 60; 0 = return at once)");
  po::variables_map vm;
  const auto handle_text =
      parse_positional_command("usage: sortie cancel HANDLE [options]", desc,
                               "HANDLE (SCHEDULER://SESSION/APP_ID)", args, vm);
  if (!handle_text) return kExitOk;

  session::AppLookup app = session::lookup_app(ctx, *handle_text);
  const std::string handle = app.handle.str();
  if (!app.status) return report_unknown_app(handle);
  if (core::is_terminal(app.status->state)) {
    std::printf("%s is already %s\n", handle.c_str(), core::to_string(app.status->state));
    return kExitOk;
  }
  app.loaded_scheduler().cancel(app.handle.app_id);
  if (ctx.store().get(handle)) ctx.store().add_event(handle, "cancel_requested", "sortie cancel");
  if (timeout_s <= 0) {
    std::printf("cancel requested for %s\n", handle.c_str());
    return kExitOk;
  }
  session::install_interrupt_handlers();
  session::AppWaiter waiter(app.loaded_scheduler(), ctx.store(), handle, app.handle.app_id);
  auto final_status = waiter.until_terminal(static_cast<int64_t>(timeout_s * 1000));
  if (!final_status) {
    std::printf("cancel requested for %s; still %s\n", handle.c_str(),
                waiter.last() ? core::to_string(waiter.last()->state) : "running");
    return kExitBackend;
  }
  std::printf("%s %s\n", handle.c_str(), core::to_string(final_status->state));
  return kExitOk;
}

}  // namespace sortie::cli
