// TOML parsing with an operator-friendly error (toml++ throws; this does not).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "edgeadmm/status.h"

namespace edgeadmm::jobs {

// Parses `text` into `out`. On a syntax error returns INVALID_ARGUMENT and
// sets `*error` to "TOML syntax error at line N: <description>".
Status ParseTomlDocument(std::string_view text, toml::table& out,
                         std::string* error);

}  // namespace edgeadmm::jobs
