// The state of a CoapServer that its libcoap callbacks share (private to
// the server library): coap_server.cc runs the contexts and the DTLS side,
// coap_resources.cc serves the four resources.
#pragma once

#include <coap3/coap.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/posix/coap_batched_io.h"
#include "edgeadmm/posix/coap_shard_set.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/server/coap_server.h"
#include "edgeadmm/server/dtls_session_janitor.h"
#include "edgeadmm/server/gateway_metrics.h"
#include "edgeadmm/server/handshake_admission.h"
#include "edgeadmm/server/held_sends.h"
#include "edgeadmm/server/request_budget.h"
#include "edgeadmm/server/revocation_watch.h"
#include "edgeadmm/server/timed_lock.h"
#include "edgeadmm/server/upload_assembler.h"

namespace edgeadmm::server {

// One libcoap context with its DTLS endpoint on the server's port
// (ServerOptions::shards): its sessions, its resources, its I/O loop.
struct CoapShard {
  coap_context_t* context = nullptr;
  std::unique_ptr<posix::CoapBatchedIo> io;  // null: coap_io_process
  coap_resource_t* task = nullptr;           // the observable v1/task
  // Each hosted job's own task, v1/task/<name>, by job name (added when the
  // job is first hosted, kept for the context's life).
  std::map<std::string, coap_resource_t*> job_tasks;
  int endpoint_fd = -1;  // attached to the read filter
  // The PSK the identity callback hands to libcoap (which copies it when
  // the callback returns): one per shard, since the shards' handshakes run
  // on several threads (ServerOptions::threads).
  std::vector<uint8_t> psk;
  coap_bin_const_t psk_bin{0, nullptr};
};

struct CoapServer::Impl {
  // With several threads (ServerOptions::threads) the shards' passes run at
  // once: every callback from libcoap into the server (resource handlers,
  // session events, the identity, record and nack callbacks) and every held
  // send takes this lock, so the state below, the jobs' engines, the store
  // and the registry have one owner at a time; libcoap's and OpenSSL's own
  // work per datagram (reads, records, handshakes) runs outside it.
  // Recursive: a handler's sends and the events libcoap raises inside a
  // handler take it again. Between passes no pass runs; the tick takes it
  // too, so that its held time (metrics) is all the daemon's serial work.
  TimedLock state;
  std::vector<CoapShard> shards;
  // With several shards: runs the ready and due ones (null: one shard).
  std::unique_ptr<posix::CoapShardSet> shard_set;
  registry::DeviceRegistry* registry = nullptr;
  std::unique_ptr<registry::DeviceRegistry> registry_owner;
  // Handed out for an unknown, disabled or ill-formed identity, so that its
  // handshake fails at Finished exactly like a wrong key (silence, no
  // alert): the network cannot tell enrolled ids from others. Random per
  // process, never stored, never any device's key.
  std::vector<uint8_t> decoy_psk;
  // Server DTLS sessions to drop (a stalled handshake, a client that
  // started over), handled outside libcoap's I/O.
  DtlsSessionJanitor janitor;
  // Established sessions, cut when their device is revoked.
  RevocationWatch revocations;
  // Partial v1/update bodies (Block1), bounded by the job.
  UploadAssembler uploads;
  // Requests per identity (issue 32 item 7).
  RequestBudget budget;
  // The cookie exchange and per-source handshake limit in front of
  // libcoap, on the endpoint socket (issue 14 item 1).
  std::optional<HandshakeAdmission> admission;
  // Counters for operators (ServerOptions::metrics_file).
  GatewayMetrics metrics;
  // The endpoints' datagrams of an I/O pass, until its writes are
  // synced (ServerOptions::group_commit).
  HeldSends held;
  // The HeldSends of the running pass (null: none), which the shard set's
  // workers hold their sends in (RunShards sets it).
  HeldSends* pass_held = nullptr;
  Impl(store::Database& db, const ServerOptions& options)
      : janitor(static_cast<int64_t>(options.handshake_timeout_ms)),
        revocations(db),
        budget(options.request_budget),
        held(HeldSendsLimits{options.held_datagrams, size_t{8} << 20}) {
    held.set_lock(&state);
  }
};

// Adds v1/task, v1/update, v1/model, v1/status and the secure-aggregation
// phases to `context` (each shard's; coap_resources.cc); returns the task
// resource, the observable one.
coap_resource_t* AddResources(coap_context_t* context,
                              const ServerOptions& options);

// Adds job `job`'s own observable task, v1/task/<job>, to `shard` unless it
// has it.
void AddJobTaskResource(CoapShard& shard, const ServerOptions& options,
                        const std::string& job);

// The server a libcoap session belongs to (the context's app data).
inline CoapServer* ServerOf(coap_session_t* session) {
  return static_cast<CoapServer*>(
      coap_get_app_data(coap_session_get_context(session)));
}

// Held by each libcoap callback into the server (Impl::state).
using StateLock = std::lock_guard<TimedLock>;

// The DTLS PSK identity of `session`; empty before the handshake.
inline std::string_view IdentityOf(coap_session_t* session) {
  const coap_bin_const_t* id = coap_session_get_psk_identity(session);
  if (id == nullptr || id->length == 0) return {};
  return std::string_view(reinterpret_cast<const char*>(id->s), id->length);
}

}  // namespace edgeadmm::server
