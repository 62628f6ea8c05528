// `edgeadmm-fleet load`: the load benchmark's devices against the bare
// libcoap server (bare_load.h, tools/bare_coap):
//   edgeadmm-fleet load --port P --psk-dir DIR [--host 127.0.0.1]
//       [--local-address 127.0.1.0 --local-addresses K]
//       [--start-rate R] [--max-starting N] [--payload-bytes B]
//       [--rounds T] [--upload-spread-ms S] [--progress-ms MS]
//       [--watch-pid PID]
//       [--part I --parts K]
#include <csignal>
#include <cstdio>

#include "edgeadmm/fleet/bare_load.h"
#include "fleet_commands.h"

namespace edgeadmm::fleet {
namespace {

volatile std::sig_atomic_t g_stop = 0;

void OnSignal(int) { g_stop = 1; }

}  // namespace

void AddLoadCommand(host::Command& app) {
  static BareLoadConfig c;
  host::Command cmd = app.AddSubcommand(
      "load",
      "Devices that observe v1/task and POST one upload per notified round "
      "(the bare libcoap baseline of the load benchmark)");
  cmd.AddOption("--host", c.host, "numeric server address").CaptureDefault();
  cmd.AddOption("--port", c.port, "server DTLS port").Required();
  cmd.AddOption("--psk-dir", c.psk_dir,
                "one hex PSK file per device, named after its id")
      .Required();
  cmd.AddOption("--local-address", c.local_address,
                "first numeric source address of the sessions");
  cmd.AddOption("--local-addresses", c.local_addresses,
                "spread the devices over this many consecutive addresses")
      .Positive();
  cmd.AddOption("--part", c.part,
                "run only the devices whose index is PART modulo --parts");
  cmd.AddOption("--parts", c.parts, "processes sharing the devices").Positive();
  cmd.AddOption("--start-rate", c.start_per_second,
                "start at most this many devices per second (0: all)");
  cmd.AddOption("--max-starting", c.max_starting,
                "at most this many devices in their first handshake");
  cmd.AddOption("--payload-bytes", c.payload_bytes, "bytes per upload")
      .CaptureDefault();
  cmd.AddOption("--rounds", c.rounds, "uploads per device")
      .Positive()
      .CaptureDefault();
  cmd.AddOption("--upload-spread-ms", c.upload_spread_ms,
                "wait a uniform draw in [0, S) ms after a new round's "
                "notification before the upload, as the daemon's devices "
                "wait its upload spread")
      .CaptureDefault();
  cmd.AddOption("--progress-ms", c.progress_ms,
                "a progress line every this many ms")
      .Positive();
  cmd.AddOption("--watch-pid", c.watch_pid,
                "add this process's memory and CPU use to the progress "
                "lines");
  cmd.OnRun([] {
    std::signal(SIGTERM, &OnSignal);
    std::signal(SIGINT, &OnSignal);
    auto r = RunBareLoad(c, &g_stop, stdout);
    if (!r.ok()) {
      std::fprintf(stderr, "edgeadmm-fleet load: %s\n",
                   r.error().ToString().c_str());
      host::ExitCommandLine(1);
    }
    std::printf(
        "load: %zu devices, %zu registered (all by %.2f s), %llu "
        "handshakes; uploads %llu accepted, %llu refused; %llu transport "
        "errors; %.2f s\n",
        r->devices, r->registered, r->start_seconds,
        static_cast<unsigned long long>(r->handshakes),
        static_cast<unsigned long long>(r->uploads_accepted),
        static_cast<unsigned long long>(r->uploads_refused),
        static_cast<unsigned long long>(r->transport_errors), r->seconds);
    if (r->uploads_accepted == 0) host::ExitCommandLine(1);
  });
}

}  // namespace edgeadmm::fleet
