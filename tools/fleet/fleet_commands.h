// The subcommands of `edgeadmm-fleet` (fleet_cli.cc): `run` and `handshakes`
// (fleet_command.cc) and `connect` (connect_command.cc). A command reports
// failure by printing one line to stderr and throwing CLI::RuntimeError.
#pragma once

#include <CLI/CLI.hpp>

namespace edgeadmm::fleet {

// `run`: virtual devices against an in-process aggregator (the simulator);
// `handshakes`: DTLS-PSK handshakes per second against a CoAP server.
void AddSimulatorCommands(CLI::App& app);

// `connect`: the enrolled devices of a PSK directory against the daemon.
void AddConnectCommand(CLI::App& app);
// `edgeadmm-fleet load` (load_command.cc): the bare libcoap baseline's
// devices.
void AddLoadCommand(CLI::App& app);

}  // namespace edgeadmm::fleet
