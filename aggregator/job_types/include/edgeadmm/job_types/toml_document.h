// TOML parsing with an operator-friendly error (toml++ throws; this does not).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::jobs {

// Parses `text`. On a syntax error INVALID_ARGUMENT with the message
// "TOML syntax error at line N: <description>".
host::ErrorOr<toml::table> ParseTomlDocument(std::string_view text);

// Refuses a document with a table or key outside `known` (dotted paths
// "table.key"; the documents have tables of keys only). INVALID_ARGUMENT
// for the first such name with the nearest known one when it is close:
// "unknown key step.rhoo; did you mean step.rho?", "unknown table [stepp];
// did you mean [step]?", "unknown key port outside the tables; did you
// mean server.port?". A misspelled key would otherwise keep its default.
host::Error RefuseUnknownKeys(const toml::table& root,
                              const std::vector<std::string>& known);

}  // namespace edgeadmm::jobs
