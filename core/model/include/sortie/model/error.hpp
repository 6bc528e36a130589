// File: sortie/model/error.hpp
//
// The core throws the SDK's sortie::Error (sortie/error.hpp), so errors from plugins and from the
// core are one type, made by name: Error::invalid_argument(...), Error::not_found(...), ... Its
// message names the file, field, plugin or option at fault and, where there is one, what to do
// about it.
#ifndef SORTIE_MODEL_ERROR_HPP
#define SORTIE_MODEL_ERROR_HPP

#include <sortie/plugin_abi.h>

#include <sortie/error.hpp>

namespace sortie::model {

// The canonical name of a status code ("NOT_FOUND"), "UNKNOWN" for values outside the set.
const char* status_name(sortie_status status) noexcept;

}  // namespace sortie::model

#endif  // SORTIE_MODEL_ERROR_HPP
