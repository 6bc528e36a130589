// File: core/ui/request_input.hpp
//
// Checks of what a request brings (query parameters, Last-Event-ID), each with a bound on its
// size and form. A failed check is Error::invalid_argument naming the parameter (answered 400);
// a handle the store has not recorded is Error::not_found (404), so no text from a request ever
// reaches a scheduler plugin, and through it a path, unless sortie recorded it.
#ifndef SORTIE_UI_REQUEST_INPUT_HPP
#define SORTIE_UI_REQUEST_INPUT_HPP

#include <httplib.h>

#include <cstdint>
#include <sortie/runner.hpp>
#include <sortie/session/session.hpp>
#include <string>

#include "curve_downsampling.hpp"
#include "event_streams.hpp"

namespace sortie::ui {

// A decimal integer in [minimum, maximum], as parameter `name`.
int64_t bounded_integer(const std::string& name, const std::string& text, int64_t minimum,
                        int64_t maximum);
// A recorded app's handle, as parameter `name`.
std::string recorded_handle(session::Session& session, const std::string& text);
// A POSIX extended regex of reasonable length that compiles.
std::string checked_regex(const std::string& text);
runner::Streams streams_named(const std::string& text);
// The id a reconnecting EventSource sends (Last-Event-ID), else the `after` parameter, else 0.
int64_t resume_after(const std::string& last_event_id, const std::string& after_parameter);

// A chart's `width` (1 to kMaxChartWidth; absent: every point) and the steps `from` and `to` of
// the curves it asks for (absent: unbounded).
CurveWindow curve_window_of(const httplib::Request& request);

// A log stream's request out of `params` (handle, role, replica, regex, stream, follow, tail);
// `already_sent` is the Last-Event-ID or `after` of the stream it continues ("" for none).
LogStreamRequest log_request_of(session::Session& session, const httplib::Params& params,
                                const std::string& already_sent);

}  // namespace sortie::ui

#endif  // SORTIE_UI_REQUEST_INPUT_HPP
