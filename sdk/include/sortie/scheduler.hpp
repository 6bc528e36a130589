// The one header a scheduler author includes: the plugin base classes and SORTIE_PLUGIN, the
// typed payloads (AppDef, dryrun input and output, status, list, log request), field refusal,
// macros, run-option tables, detached local processes and their logs. Link Sortie::plugin_support.
#ifndef SORTIE_SCHEDULER_HPP
#define SORTIE_SCHEDULER_HPP

#include "app_list.hpp"
#include "app_status.hpp"
#include "appdef.hpp"
#include "dryrun.hpp"
#include "dryrun_input.hpp"
#include "error.hpp"
#include "field_support.hpp"
#include "log_request.hpp"
#include "macros.hpp"
#include "plugin.hpp"
#include "process.hpp"
#include "process_logs.hpp"
#include "run_options.hpp"

#endif  // SORTIE_SCHEDULER_HPP
