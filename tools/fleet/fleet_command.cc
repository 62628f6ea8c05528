// `edgeadmm-fleet run|handshakes`: the device fleet simulator.
//   edgeadmm-fleet run --data a9a.xz --dim 123 --devices 10000 --rounds 5
//       --loss 0.3 --dropout 0.1 --reboot 0.05 [--state-dir DIR]
//   edgeadmm-fleet handshakes --port 5684 --psk-hex KEY --sessions 2000
#include <cstdio>
#include <string>

#include "edgeadmm/dataio/data_options.h"
#include "edgeadmm/fleet/fleet_simulator.h"
#include "edgeadmm/fleet/handshake_benchmark.h"
#include "edgeadmm/host/hex.h"
#include "fleet_commands.h"

namespace edgeadmm::fleet {
namespace {

using cli::AddDataOptions;
using cli::DataOptions;
using cli::ResolveDataOptions;

[[noreturn]] void Fail(const char* command, const std::string& what) {
  std::fprintf(stderr, "edgeadmm-fleet %s: %s\n", command, what.c_str());
  host::ExitCommandLine(1);
}

void PrintRunReport(const FleetReport& r) {
  std::printf(
      "fleet: %zu devices, p = %zu, %u rounds in %.2f s (setup %.2f s)\n"
      "fleet: server accepted %llu, duplicates %llu, conflicts %llu, stale "
      "%llu, rejected %llu, refusal reports %llu\n"
      "fleet: devices computed %llu steps, %llu upload attempts, %llu "
      "receipts, %llu resumed after %llu reboots, %llu transport errors\n"
      "fleet: datagrams %llu (lost %llu = %.1f%%), bytes %llu\n"
      "fleet: memory %.0f bytes per virtual device (RSS %zu -> %zu)\n"
      "fleet: exactly once: %s\n",
      r.devices, r.dim, r.rounds, r.run_seconds, r.setup_seconds,
      static_cast<unsigned long long>(r.accepted),
      static_cast<unsigned long long>(r.duplicates),
      static_cast<unsigned long long>(r.conflicts),
      static_cast<unsigned long long>(r.stale),
      static_cast<unsigned long long>(r.rejected),
      static_cast<unsigned long long>(r.reports),
      static_cast<unsigned long long>(r.steps_computed),
      static_cast<unsigned long long>(r.upload_attempts),
      static_cast<unsigned long long>(r.uploads_acknowledged),
      static_cast<unsigned long long>(r.resumed_uploads),
      static_cast<unsigned long long>(r.reboots),
      static_cast<unsigned long long>(r.transport_errors),
      static_cast<unsigned long long>(r.datagrams),
      static_cast<unsigned long long>(r.datagrams_lost),
      r.datagrams == 0 ? 0.0 : 100.0 * r.datagrams_lost / r.datagrams,
      static_cast<unsigned long long>(r.bytes), r.bytes_per_device,
      r.rss_before_bytes, r.rss_after_bytes, r.exactly_once ? "yes" : "NO");
}

}  // namespace

void AddSimulatorCommands(host::Command& app) {
  static FleetConfig run;
  static DataOptions data;
  host::Command run_cmd = app.AddSubcommand(
      "run", "Run N virtual devices against an in-process aggregator");
  run_cmd.AddOption("--data", run.data_path, "LIBSVM or Adult CSV (.xz ok)")
      .Required();
  AddDataOptions(run_cmd, &data);
  run_cmd.AddOption("--dim", run.dim, "LIBSVM dimension");
  run_cmd.AddOption("--devices", run.devices, "virtual devices");
  run_cmd.AddOption("--rounds", run.rounds, "rounds");
  run_cmd.AddOption("--loss", run.loss, "datagram loss probability");
  run_cmd.AddOption("--dropout", run.dropout,
                    "probability a device is offline for a round");
  run_cmd.AddOption("--reboot", run.reboot,
                    "probability a device loses power between persisting "
                    "and uploading");
  run_cmd.AddOption("--max-retransmit", run.max_retransmit,
                    "CoAP MAX_RETRANSMIT of the simulated link");
  run_cmd.AddOption("--seed", run.seed, "seed of the link and faults");
  run_cmd.AddOption("--state-dir", run.state_dir,
                    "per-device state directories (default: RAM)");
  run_cmd.AddFlag("--deterministic", run.deterministic_entropy,
                  "seeded test entropy (UNSAFE: reproducible noise)");
  run_cmd.AddOption("--lambda", run.lambda, "paper 002 lambda");
  run_cmd.AddOption("--gamma", run.gamma, "paper 002 prox step");
  run_cmd.AddOption("--clip", run.clip, "clipping norm C");
  run_cmd.AddOption("--sigma", run.sigma, "noise multiplier sigma");
  run_cmd.AddOption("--epsilon-budget", run.epsilon_budget,
                    "local epsilon budget of every device (default inf: "
                    "no limit, the epsilon spent is still reported)");
  run_cmd.OnRun([] {
    ResolveDataOptions(data, "edgeadmm-fleet run", &run.format,
                       &run.normalization);
    auto report = RunFleet(run, stdout);
    if (!report.ok()) Fail("run", report.error().ToString());
    PrintRunReport(*report);
    if (!report->exactly_once) host::ExitCommandLine(2);
  });

  static HandshakeConfig hs;
  static std::string psk_hex;
  host::Command hs_cmd = app.AddSubcommand(
      "handshakes", "DTLS-PSK handshakes per second against a CoAP server");
  hs_cmd.AddOption("--host", hs.host, "numeric server address");
  hs_cmd.AddOption("--port", hs.port, "DTLS port").Required();
  hs_cmd.AddOption("--psk-hex", psk_hex, "the PSK (hex) of every identity")
      .Required();
  hs_cmd.AddOption("--identity-prefix", hs.identity_prefix,
                   "identity i is PREFIX + i");
  hs_cmd.AddOption("--sessions", hs.sessions, "sessions to open");
  hs_cmd.AddOption("--concurrency", hs.concurrency,
                   "handshakes in flight at once");
  hs_cmd.AddOption("--path", hs.path, "resource to GET once per session");
  hs_cmd.AddOption("--timeout-ms", hs.timeout_ms, "give up after");
  hs_cmd.AddFlag("--keep-open", hs.keep_open,
                 "keep sessions open (memory per session)");
  hs_cmd.OnRun([] {
    auto key = host::FromHex(psk_hex);
    if (!key.ok()) Fail("handshakes", "--psk-hex is not hex");
    hs.key.assign(key->begin(), key->end());
    auto report = MeasureHandshakes(hs);
    if (!report.ok()) Fail("handshakes", report.status().str());
    std::printf(
        "handshakes: %zu ok, %zu failed%s%s, %.2f s, %.0f handshakes/s",
        report->ok, report->failed,
        report->first_error.empty() ? "" : " (first: ",
        report->first_error.empty() ? "" : (report->first_error + ")").c_str(),
        report->seconds, report->per_second);
    if (hs.keep_open) {
      std::printf(", %.0f bytes per open session", report->bytes_per_session);
    }
    std::printf("\n");
    if (report->ok == 0) host::ExitCommandLine(1);
  });
}

}  // namespace edgeadmm::fleet
