// ServeUntilStopped: the daemon's server from its start to a stop signal.
// Creates a CoapServer on `db` and runs it until `*stop`; if a pass's write
// batch is lost (Run returns DATA_LOSS: the server's memory counts writes
// the store no longer has, ServerOptions::write_batch), it discards that
// server and starts a new one on the same database, as a restart of the
// process would, but without write batches, so that further write failures
// are answered request by request (5.03) and retried in place
// (docs/security.md, "Write batches"). While the store refuses that new
// server (loading a job may need a write: a full disk), it tries again
// every second until it starts or `*stop`.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>

#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/status.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::server {

// `on_listening` is called with the port after each server is created
// (the first: the daemon tells its supervisor). Returns the status that
// ended the last server (OK after a stop), or the error of the first
// Create.
Status ServeUntilStopped(
    store::Database& db, ServerOptions options,
    const volatile std::sig_atomic_t* stop,
    const std::function<void(uint16_t port)>& on_listening);

}  // namespace edgeadmm::server
