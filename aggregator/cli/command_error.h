// The CLI's edge for failures: a command's body returns host::Error (or
// host::ErrorOr<T>); its callback turns a failure into the printed line and
// the exit code here (1: the command failed, 2: a usage error).
#pragma once

#include <string>
#include <utility>

#include "edgeadmm/host/error.h"

namespace edgeadmm::cli {

// Prints "<command>: <text>" to stderr and ends the command with
// `exit_code` (host::ExitCommandLine).
[[noreturn]] void Exit(const std::string& command, const std::string& text,
                       int exit_code);
// Exit(command, error.message(), 1) unless `error` is OK.
void ExitOnError(const std::string& command, const host::Error& error);

// A code-only store or registry failure as "<what>: <CODE>" (OK stays OK).
host::Error Failed(const std::string& what, Status status);
template <typename T>
host::ErrorOr<T> Checked(Result<T> result, const std::string& what) {
  if (!result.ok()) return Failed(what, result.status());
  return std::move(result).value();
}

}  // namespace edgeadmm::cli
