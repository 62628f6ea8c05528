// The subcommands of `edgeadmm-fleet` (fleet_cli.cc): `run` and `handshakes`
// (fleet_command.cc) and `connect` (connect_command.cc). A command reports
// failure by printing one line to stderr and ending with its exit code
// (host::ExitCommandLine).
#pragma once

#include "edgeadmm/host/command_line.h"

namespace edgeadmm::fleet {

// `run`: virtual devices against an in-process aggregator (the simulator);
// `handshakes`: DTLS-PSK handshakes per second against a CoAP server.
void AddSimulatorCommands(host::Command& app);

// `connect`: the enrolled devices of a PSK directory against the daemon.
void AddConnectCommand(host::Command& app);
// `edgeadmm-fleet load` (load_command.cc): the bare libcoap baseline's
// devices.
void AddLoadCommand(host::Command& app);

}  // namespace edgeadmm::fleet
