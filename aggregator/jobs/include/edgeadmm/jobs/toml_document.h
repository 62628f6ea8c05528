// TOML parsing with an operator-friendly error (toml++ throws; this does not).
#pragma once

#include <toml++/toml.h>

#include <string_view>

#include "edgeadmm/host/error.h"

namespace edgeadmm::jobs {

// Parses `text`. On a syntax error INVALID_ARGUMENT with the message
// "TOML syntax error at line N: <description>".
host::ErrorOr<toml::table> ParseTomlDocument(std::string_view text);

}  // namespace edgeadmm::jobs
