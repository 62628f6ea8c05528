#include "edgeadmm/server/coap_server.h"

#include <coap3/coap.h>
#include <dirent.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "coap_server_impl.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/log.h"
#include "edgeadmm/posix/coap_batched_io.h"
#include "edgeadmm/posix/coap_shard_set.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/registry/secure_random.h"
#include "edgeadmm/server/dtls_session_janitor.h"
#include "edgeadmm/server/endpoint_read_filter.h"
#include "edgeadmm/server/handshake_admission.h"
#include "edgeadmm/server/held_sends.h"
#include "edgeadmm/server/libcoap_log.h"
#include "edgeadmm/server/reuse_port_bind.h"
#include "edgeadmm/server/revocation_watch.h"
#include "edgeadmm/server/socket_options.h"
#include "edgeadmm/server/upload_assembler.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "listen_address.h"
#include "openssl_dtls_context.h"

namespace edgeadmm::server {

// libcoap C callbacks. None of them lets an exception escape: everything
// they call reports errors as Status values.
struct CoapCallbacks {
  static CoapServer* Server(coap_session_t* session) {
    return ServerOf(session);
  }
  static std::string_view Identity(coap_session_t* session) {
    return IdentityOf(session);
  }

  // libcoap freeing `session` without COAP_EVENT_SERVER_SESSION_DEL
  // (openssl_dtls_context.h): its end, as the event would have announced.
  static void EndedUnannounced(coap_session_t* session) {
    Event(session, COAP_EVENT_SERVER_SESSION_DEL);  // locks
  }

  // DTLS: the PSK for `identity`; the decoy key when the device is unknown,
  // disabled or its id ill-formed, so the handshake fails at the client's
  // Finished as with a wrong key (issue 14 item 7, docs/security.md).
  static const coap_bin_const_t* ValidateIdentity(coap_bin_const_t* identity,
                                                  coap_session_t* session,
                                                  void* arg) {
    auto& impl = *static_cast<CoapServer*>(arg)->impl_;
    const StateLock lock(impl.state);
    CoapShard& shard = impl.shards[ShardOf(session)];
    ApplySessionSettings(session);
    const std::string id(reinterpret_cast<const char*>(identity->s),
                         identity->length);
    Result<std::vector<uint8_t>> psk = Status::PermissionDenied();
    if (registry::IsValidDeviceId(id)) psk = impl.registry->LookupPsk(id);
    if (!psk.ok()) {
      // Printable ids only reach the log (IsValidDeviceId); others by length.
      if (registry::IsValidDeviceId(id)) {
        EDGEADMM_LOG_WARN("dtls: refused identity %s: %s", id.c_str(),
                          psk.status().str());
      } else {
        EDGEADMM_LOG_WARN("dtls: refused an ill-formed identity (%zu bytes)",
                          id.size());
      }
      shard.psk_bin = {impl.decoy_psk.size(), impl.decoy_psk.data()};
      return &shard.psk_bin;
    }
    shard.psk = std::move(psk).value();
    shard.psk_bin = {shard.psk.size(), shard.psk.data()};
    impl.revocations.OnKeyChosen(session, shard.psk);
    return &shard.psk_bin;
  }

  // OpenSSL's record callback of a server session: sees every record
  // header, also of records the DTLS layer then drops (an epoch-0
  // ClientHello on an established session is dropped without a word).
  static void Record(int write_p, int, int content_type, const void* buf,
                     size_t len, SSL*, void* arg) {
    if (write_p != 0 || content_type != SSL3_RT_HEADER ||
        !IsFirstClientHelloHeader(static_cast<const uint8_t*>(buf), len)) {
      return;
    }
    auto* session = static_cast<coap_session_t*>(arg);
    const StateLock lock(Server(session)->impl_->state);
    Server(session)->impl_->janitor.OnClientStartedOver(
        session, static_cast<int64_t>(posix::MonotonicMs()));
  }

  // libcoap's nack handler: an RST that answers one of the janitor's pings
  // proves the peer still holds its session.
  static void Nack(coap_session_t* session, const coap_pdu_t*,
                   const coap_nack_reason_t reason, const coap_mid_t mid) {
    if (reason != COAP_NACK_RST) return;
    const StateLock lock(Server(session)->impl_->state);
    Server(session)->impl_->janitor.OnPingAnswered(session, mid);
  }

  // Installs Record on the session's SSL object (libcoap creates it after
  // COAP_EVENT_SERVER_SESSION_NEW, with the first handshake record).
  static void WatchRecords(coap_session_t* session) {
    coap_tls_library_t library = COAP_TLS_LIBRARY_NOTLS;
    void* tls = coap_session_get_tls(session, &library);
    if (tls == nullptr || library != COAP_TLS_LIBRARY_OPENSSL) return;
    SSL* ssl = static_cast<SSL*>(tls);
    SSL_set_msg_callback(ssl, &Record);
    SSL_set_msg_callback_arg(ssl, session);
  }

  // The index of the shard whose context holds `session`.
  static size_t ShardOf(coap_session_t* session) {
    const coap_context_t* context = coap_session_get_context(session);
    const std::vector<CoapShard>& shards = Server(session)->impl_->shards;
    for (size_t i = 0; i < shards.size(); ++i) {
      if (shards[i].context == context) return i;
    }
    return 0;
  }

  // Tracks handshakes in progress for the janitor and watches each
  // established DTLS server session for a client that starts over.
  static int Event(coap_session_t* session, const coap_event_t event) {
    // Server sessions only: the shard's one client session is
    // TakeOverDtlsContext's, which ends before the server starts.
    if (coap_session_get_proto(session) != COAP_PROTO_DTLS ||
        coap_session_get_type(session) == COAP_SESSION_TYPE_CLIENT) {
      return 0;
    }
    const StateLock lock(Server(session)->impl_->state);
    DtlsSessionJanitor& janitor = Server(session)->impl_->janitor;
    RevocationWatch& revocations = Server(session)->impl_->revocations;
    std::optional<HandshakeAdmission>& admission =
        Server(session)->impl_->admission;
    const coap_address_t* peer = coap_session_get_addr_remote(session);
    GatewayMetrics& metrics = Server(session)->impl_->metrics;
    if (event == COAP_EVENT_SERVER_SESSION_NEW) {
      metrics.CountSession(GatewayMetrics::SessionEvent::kHandshakeStarted);
      metrics.CountShardSession(ShardOf(session));
      if (admission && peer != nullptr) {
        admission->OnSessionNew(&peer->addr.sa, peer->size);
      }
      janitor.OnHandshakeStarted(session,
                                 static_cast<int64_t>(posix::MonotonicMs()));
      revocations.OnHandshakeStarted(session);
    } else if (event == COAP_EVENT_DTLS_CONNECTED) {
      metrics.CountSession(GatewayMetrics::SessionEvent::kHandshakeDone);
      if (admission && peer != nullptr) {
        admission->OnHandshakeEnded(&peer->addr.sa, peer->size);
      }
      janitor.OnHandshakeEnded(session);
      WatchRecords(session);
      revocations.OnEstablished(session, std::string(Identity(session)));
    } else if (event == COAP_EVENT_DTLS_CLOSED ||
               event == COAP_EVENT_DTLS_ERROR) {
      metrics.CountSession(GatewayMetrics::SessionEvent::kClosed);
      if (admission && peer != nullptr) {
        admission->OnHandshakeEnded(&peer->addr.sa, peer->size);
      }
      janitor.OnHandshakeEnded(session);
      revocations.OnEnded(session);
    } else if (event == COAP_EVENT_SERVER_SESSION_DEL) {
      metrics.CountSession(GatewayMetrics::SessionEvent::kSessionFreed);
      Server(session)->impl_->uploads.Forget(session);
      if (admission && peer != nullptr) {
        admission->OnSessionFreed(&peer->addr.sa, peer->size);
      }
      janitor.OnSessionFreed(session);
      revocations.OnEnded(session);
    }
    return 0;
  }

  // Opens one shard (CoapShard) on `address` and appends it to the
  // server's: its context, callbacks, DTLS PSK, endpoint (joining the
  // port's SO_REUSEPORT group when there are several), read filter, SSL_CTX
  // settings, receive buffer and resources. `first` sets the server's port.
  static Status OpenShard(CoapServer& server, const coap_address_t& address,
                          bool first);
};

Status CoapCallbacks::OpenShard(CoapServer& server,
                                const coap_address_t& address, bool first) {
  CoapServer::Impl& impl = *server.impl_;
  const ServerOptions& options = server.options_;
  CoapShard& shard = impl.shards.emplace_back();
  shard.context = coap_new_context(nullptr);
  if (shard.context == nullptr) return Status::Unavailable();
  coap_set_app_data(shard.context, &server);
  if (options.io_batch_reads > 0) {
    posix::CoapBatchedIoOptions io;
    io.max_endpoint_reads = options.io_batch_reads;
    // Several shards: libcoap's timer fd wakes a shard for its timers and
    // the daemon's session drops ask for a walk (Tick), so the periodic
    // walk of an idle shard is only a backstop.
    if (impl.shard_set) io.walk_interval_ms = posix::kShardBackstopWalkMs;
    shard.io = std::make_unique<posix::CoapBatchedIo>(shard.context, io);
  }
  coap_register_event_handler(shard.context, &Event);
  coap_register_nack_handler(shard.context, &Nack);
  // Block2 (large tasks and models) by libcoap; Block1 bodies reach the
  // handler block by block (UploadAssembler: v1/update, v1/secagg/<phase>),
  // not reassembled by libcoap.
  coap_context_set_block_mode(shard.context, COAP_BLOCK_USE_LIBCOAP);
  coap_context_set_session_timeout(shard.context,
                                   options.session_timeout_seconds);
  // The caps are HandshakeAdmission's (libcoap's idle-session cap would
  // evict an established session for a half-open one). libcoap's own
  // handshake cap stays above it: evicted handshakes linger until the next
  // tick drops them.
  coap_context_set_max_handshake_sessions(shard.context,
                                          2 * options.max_handshakes);

  coap_dtls_spsk_t psk{};
  psk.version = COAP_DTLS_SPSK_SETUP_VERSION;
  psk.validate_id_call_back = &ValidateIdentity;
  psk.id_call_back_arg = &server;
  if (!coap_context_set_psk2(shard.context, &psk)) {
    return Status::Unavailable();
  }
  // A daemon already on this port (or any other socket there) would share
  // its datagrams with this one: refuse to start instead. Port 0 lets the
  // kernel pick a free port.
  if (first && options.port != 0 &&
      !UdpAddressIsFree(&address.addr.sa, address.size)) {
    EDGEADMM_LOG_ERROR(
        "server: [%s]:%u is in use by another socket (another daemon?)",
        options.address.c_str(), options.port);
    return Status::Unavailable();
  }
  coap_endpoint_t* endpoint = nullptr;
  if (impl.shard_set) {
    const ReusePortBinds binds;
    endpoint = coap_new_endpoint(shard.context, &address, COAP_PROTO_DTLS);
    if (binds.bound().size() == 1) shard.endpoint_fd = binds.bound().front();
  } else {
    endpoint = coap_new_endpoint(shard.context, &address, COAP_PROTO_DTLS);
  }
  if (endpoint == nullptr) {
    EDGEADMM_LOG_ERROR("server: cannot listen on [%s]:%u",
                       options.address.c_str(), options.port);
    return Status::Unavailable();
  }
  if (first) server.port_ = BoundPort(endpoint, options.port);
  if (!impl.shard_set) shard.endpoint_fd = FindEndpointSocket(server.port_);
  if (!RefuseLaterReuseAddrBinds(shard.endpoint_fd)) {
    EDGEADMM_LOG_ERROR("server: cannot close the port to other sockets");
    return Status::Unavailable();
  }
  static_assert(GatewayMetrics::kMaxShards <= EndpointReadFilter::kMaxAttached);
  if (const Status attached =
          EndpointReadFilter::Attach(shard.endpoint_fd, &*impl.admission);
      !attached.ok()) {
    EDGEADMM_LOG_ERROR("server: cannot filter the endpoint's handshakes: %s",
                       attached.str());
    shard.endpoint_fd = -1;
    return attached;
  }
  impl.held.Watch(shard.endpoint_fd);
  EDGEADMM_TRY(
      TakeOverDtlsContext(shard.context, &CoapCallbacks::EndedUnannounced));

  if (options.receive_buffer_bytes > 0) {
    // The shards share the budget: a burst spreads over their sockets.
    const unsigned bytes =
        options.receive_buffer_bytes / std::max(1u, options.shards);
    const int granted =
        SetReceiveBuffer(shard.endpoint_fd, static_cast<int>(bytes));
    EDGEADMM_LOG_INFO("server: endpoint receive buffer %d bytes (asked %u)",
                      granted, bytes);
  }
  shard.task = AddResources(shard.context, options);
  if (impl.shard_set && !impl.shard_set->Add(shard.context, shard.io.get())) {
    return Status::Unavailable();
  }
  return Status::Ok();
}

CoapServer::CoapServer(store::Database& db, const ServerOptions& options)
    : db_(&db), options_(options), impl_(std::make_unique<Impl>(db, options)) {
  jobs_.set_metrics(&impl_->metrics);
  jobs_.set_release_delay_ms(options.release_delay_ms);
  handler_.set_task_heartbeat_ms(options.task_heartbeat_ms);
  handler_.set_upload_spread_us(options.upload_spread_us);
  if (!options.gateway_id.empty()) jobs_.set_gateway_id(options.gateway_id);
  if (!options.metrics_file.empty()) {
    metrics_writer_ = std::make_unique<MetricsFileWriter>(options.metrics_file);
  }
}

CoapServer::~CoapServer() {
  for (CoapShard& shard : impl_->shards) {
    if (shard.endpoint_fd >= 0) EndpointReadFilter::Detach(shard.endpoint_fd);
    impl_->held.Unwatch(shard.endpoint_fd);
    shard.io.reset();
    if (shard.context != nullptr) coap_free_context(shard.context);
  }
  coap_cleanup();
}

Result<std::unique_ptr<CoapServer>> CoapServer::Create(
    store::Database& db, const ServerOptions& options) {
  coap_startup();
  RouteLibcoapLog();
  coap_set_log_level(LOG_WARNING);
  coap_dtls_set_log_level(LOG_WARNING);
  std::unique_ptr<CoapServer> server(new CoapServer(db, options));
  if (!coap_dtls_is_supported()) {
    EDGEADMM_LOG_ERROR("server: libcoap has no DTLS support");
    return Status::Unavailable();
  }
  if (options.group_commit && !db.postgresql()) {
    if (const Status check = HeldSends::Check(); !check.ok()) {
      EDGEADMM_LOG_ERROR("server: cannot hold answers until their commit");
      return check;
    }
    // Armed before anything commits (the job pick-up below), for the
    // server's lifetime: no per-pass setting or allocation.
    server->group_.emplace(db);
    // A pass that sends more than the hold's limits (a notification to
    // every observer) syncs what it committed so far and sends on.
    CoapServer* const owner = server.get();
    server->impl_->held.set_release_when_full(
        [owner] { return owner->MakeDurableSoFar(); });
  }
  Impl& impl = *server->impl_;
  // The lock's CPU time is a metric: read only when metrics are written.
  impl.state.set_time_cpu(!options.metrics_file.empty());
  impl.registry_owner = std::make_unique<registry::DeviceRegistry>(db);
  impl.registry = impl.registry_owner.get();
  impl.decoy_psk.resize(registry::kPskBytes);
  EDGEADMM_TRY(
      registry::FillSecureRandom(impl.decoy_psk.data(), impl.decoy_psk.size()));

  coap_address_t address;
  if (!ParseListenAddress(options.address, options.port, address)) {
    EDGEADMM_LOG_ERROR("server: bad listen address %s",
                       options.address.c_str());
    return Status::InvalidArgument();
  }

  HandshakeAdmissionOptions admission_options = options.admission;
  admission_options.max_pending = static_cast<int>(options.max_handshakes);
  admission_options.max_sessions = static_cast<int>(options.max_sessions);
  auto admission = HandshakeAdmission::Create(
      admission_options, static_cast<int64_t>(posix::MonotonicMs()));
  if (!admission.ok()) return admission.status();
  impl.admission.emplace(std::move(admission).value());

  const unsigned shards = std::max(1u, options.shards);
  if (options.threads < 1 || options.threads > shards) {
    EDGEADMM_LOG_ERROR("server: %u threads for %u shards (1..shards)",
                       options.threads, shards);
    return Status::InvalidArgument();
  }
  if (shards > 1) {
    if (const Status check = ReusePortBinds::Check(); !check.ok()) {
      EDGEADMM_LOG_ERROR("server: cannot share the port between shards");
      return check;
    }
    impl.shard_set = std::make_unique<posix::CoapShardSet>(options.threads);
    // A worker's sends belong to the caller's pass (Durably).
    impl.shard_set->set_worker_scope([&impl](const std::function<void()>& run) {
      HeldSends::Scope hold(impl.pass_held);
      run();
    });
  }
  impl.shards.reserve(shards);
  impl.metrics.set_shards(shards);
  for (unsigned i = 0; i < shards; ++i) {
    // The first shard picks the port (options.port may be 0); the others
    // join it.
    if (i == 1) coap_address_set_port(&address, server->port_);
    EDGEADMM_TRY(CoapCallbacks::OpenShard(*server, address, i == 0));
  }
  EDGEADMM_LOG_INFO("server: listening on coaps://[%s]:%u",
                    options.address.c_str(), server->port_);
  server->secure_rounds_.set_log_prefix(options.secagg_log_prefix);
  EDGEADMM_TRY(server->jobs_.PickUpRunningJob(server->NowMs()));
  return server;
}

void CoapServer::NotifyTaskObservers() {
  if (impl_->shards.empty()) return;
  const std::vector<rounds::RoundEngine*>& engines = jobs_.engines();
  for (CoapShard& shard : impl_->shards) {
    for (const rounds::RoundEngine* engine : engines) {
      AddJobTaskResource(shard, options_, engine->job().config.name);
    }
  }
  const TaskNotifier::Due due =
      task_notifier_.Take(engines, static_cast<int64_t>(posix::MonotonicMs()));
  // v1/task's observers (no job named, or the query form) hear every
  // job's changes; v1/task/<name>'s only their job's.
  for (CoapShard& shard : impl_->shards) {
    if (due.task) coap_resource_notify_observers(shard.task, nullptr);
    for (const std::string& name : due.jobs) {
      const auto job_task = shard.job_tasks.find(name);
      if (job_task != shard.job_tasks.end()) {
        coap_resource_notify_observers(job_task->second, nullptr);
      }
    }
  }
}

size_t CoapServer::ApplyRevocations() {
  if (!impl_->revocations.DatabaseChanged()) return 0;
  // Another process committed.
  for (rounds::RoundEngine* engine : jobs_.engines()) {
    const Status status = engine->RegistryChanged();
    if (!status.ok()) {
      EDGEADMM_LOG_ERROR("server: revoked cohort members: %s", status.str());
    }
  }
  // Maybe a `devices disable`, `remove` or `rotate-key`: a session goes on
  // only while its identity is enabled with the key of its handshake.
  return impl_->revocations.CutRevoked(
      [this](std::string_view id, const std::vector<uint8_t>& key) {
        return SessionStillValid(id, key);
      });
}

bool CoapServer::SessionStillValid(std::string_view identity,
                                   const std::vector<uint8_t>& key) const {
  auto psk = impl_->registry->LookupPsk(identity);
  if (psk.status() == Status::NotFound() ||
      psk.status() == Status::PermissionDenied()) {
    return false;
  }
  return !psk.ok() || *psk == key;  // a store error cuts nobody
}

size_t CoapServer::DropEvictedHandshakes() {
  if (!impl_->admission) return 0;
  const std::vector<std::string> evicted = impl_->admission->TakeEvictions();
  if (evicted.empty()) return 0;
  const std::unordered_set<std::string> peers(evicted.begin(), evicted.end());
  return impl_->janitor.DropHandshakesIf([&peers](coap_session_t* session) {
    const coap_address_t* peer = coap_session_get_addr_remote(session);
    return peer != nullptr && peers.count(HandshakeAdmission::PeerKey(
                                  &peer->addr.sa, peer->size)) != 0;
  });
}

Status CoapServer::Tick() {
  size_t dropped = ApplyRevocations();
  jobs_.Tick(NowMs());
  secure_rounds_.Tick(jobs_.engines(), NowMs());  // ticks secagg_
  NotifyTaskObservers();
  const auto now = static_cast<int64_t>(posix::MonotonicMs());
  dropped += DropEvictedHandshakes();
  dropped += impl_->janitor.DropStalled(now);
  dropped += impl_->revocations.CutSuperseded();
  // libcoap frees a disconnected session in its context's next walk, and
  // the walk sets the timer of a ping sent here (libcoap 4.3.1 arms it
  // from the send queue's relative time, which can be late).
  if (dropped > 0 && impl_->shard_set) impl_->shard_set->RequestWalks();
  impl_->uploads.DropStale(now);
  impl_->budget.Prune(now);
  WriteMetricsIfDue(now, false);
  return Status::Ok();
}

void CoapServer::WriteMetricsIfDue(int64_t now_ms, bool now) {
  if (options_.metrics_file.empty()) return;
  if (!now && metrics_written_ms_ != 0 &&
      now_ms - metrics_written_ms_ <
          static_cast<int64_t>(options_.metrics_interval_ms)) {
    return;
  }
  metrics_written_ms_ = now_ms;
  impl_->metrics.set_devices_connected(impl_->revocations.devices());
  impl_->metrics.set_coap_resets(LibcoapResetsReceived());
  impl_->metrics.set_state_lock(impl_->state.held_ns(),
                                impl_->state.held_cpu_ns(),
                                impl_->state.waited_ns());
  if (impl_->admission)
    impl_->metrics.set_admission(impl_->admission->counts());
  metrics_writer_->Submit(impl_->metrics.Render(jobs_.AllGauges()));
}

bool CoapServer::WaitMetricsWritten(int64_t timeout_ms) {
  return !metrics_writer_ || metrics_writer_->WaitWritten(timeout_ms);
}

namespace {

// One pass of `shard`'s I/O, waiting up to `timeout_ms`; false on an I/O
// error.
bool ProcessShard(CoapShard& shard, uint32_t timeout_ms) {
  const int spent =
      shard.io != nullptr
          ? shard.io->Process(timeout_ms)
          : coap_io_process(shard.context,
                            timeout_ms == 0 ? COAP_IO_NO_WAIT : timeout_ms);
  return spent >= 0;
}

}  // namespace

Status CoapServer::RunShards(int timeout_ms) {
  std::vector<CoapShard>& shards = impl_->shards;
  if (shards.size() == 1) {
    return ProcessShard(shards.front(), static_cast<uint32_t>(timeout_ms))
               ? Status::Ok()
               : Status::Internal();
  }
  // Several shards: a pass for each ready shard (a datagram or a libcoap
  // timer) and each whose walk is due; idle ones cost nothing.
  impl_->pass_held = HeldSends::Current();
  return impl_->shard_set->RunOnce(timeout_ms) >= 0 ? Status::Ok()
                                                    : Status::Internal();
}

}  // namespace edgeadmm::server
