#include "edgeadmm/server/serve_until_stopped.h"

#include <time.h>

#include <memory>
#include <utility>

#include "edgeadmm/log.h"

namespace edgeadmm::server {
namespace {
// How often a restart in place tries again while the store refuses it.
constexpr long kRestartRetryMs = 1000;

// Sleeps up to `ms` (a signal cuts it short: the loop checks its stop flag).
void Pause(long ms) {
  const timespec pause{ms / 1000, (ms % 1000) * 1'000'000};
  nanosleep(&pause, nullptr);
}
}  // namespace

Status ServeUntilStopped(
    store::Database& db, ServerOptions options,
    const volatile std::sig_atomic_t* stop,
    const std::function<void(uint16_t port)>& on_listening) {
  bool restarting = false;  // after a lost write batch
  bool refused = false;     // a restart's Create failed (logged once)
  for (;;) {
    auto created = CoapServer::Create(db, options);
    if (!created.ok()) {
      if (!restarting) return created.status();
      // Loading a job may need a write (a round left open is marked lost)
      // that a full disk refuses: the process stays up and tries again,
      // as a supervisor's restarts would, without exhausting them.
      if (!refused) {
        EDGEADMM_LOG_ERROR(
            "server: cannot restart from the store yet (%s: %s); trying "
            "again every %ld ms",
            created.status().str(), db.LastError().c_str(), kRestartRetryMs);
      }
      refused = true;
      if (*stop != 0) return Status::Ok();
      Pause(kRestartRetryMs);
      continue;
    }
    if (refused) EDGEADMM_LOG_INFO("server: restarted from the store");
    refused = false;
    std::unique_ptr<CoapServer> server = std::move(created).value();
    on_listening(server->port());
    const Status status = server->Run(stop);
    if (status.code() != StatusCode::kDataLoss || !options.write_batch ||
        *stop != 0) {
      return status;
    }
    // What the lost batch had told the engines is gone with the server;
    // the new one reads the state from the store, as after a crash.
    server.reset();
    options.write_batch = false;
    restarting = true;
    EDGEADMM_LOG_ERROR(
        "server: restarting in place from the store, without write batches "
        "(requests write one transaction each from now on)");
  }
}

}  // namespace edgeadmm::server
