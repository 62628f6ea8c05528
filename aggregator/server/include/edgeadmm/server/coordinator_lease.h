// CoordinatorLease: which gateway coordinates a job when several daemons
// share one PostgreSQL database (docs/aggregator.md, "Several gateways on
// one database"). The lease of job J is a session-level advisory lock,
// pg_try_advisory_lock(kLeaseClass, J), taken on the connection that does
// all of the gateway's writes; the session carries the gateway id as its
// application_name, so any connection can name the holder (pg_locks joined
// with pg_stat_activity).
//
// Why a session lock and not a lease row with a deadline: the lock ends
// with the session, i.e. when the holder's process dies (the kernel closes
// its socket) or its connection is lost, with no deadline to tune, no clock
// to trust and no renewal writes; and a holder that lost its session has
// also lost the connection its writes go through (the store does not
// reconnect), so two gateways never write as coordinator at once. The cost:
// a holder cut off behind a half-open TCP connection keeps the lock until
// the server's TCP keepalive gives up on it (tcp_keepalives_*; the section
// above says what that costs).
//
// On SQLite one daemon owns the file: Acquire always succeeds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "edgeadmm/result.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::server {

// The first key of every lease lock ("EDMM"); the second is the job id.
// (The store's write lock uses the one-key form: another key space.)
inline constexpr int64_t kLeaseClass = 0x45444d4d;

// True if `id` can name a gateway: 1..63 of [A-Za-z0-9._-].
bool ValidGatewayId(std::string_view id);

class CoordinatorLease {
 public:
  // `db` must outlive the lease; `gateway_id` must be ValidGatewayId.
  CoordinatorLease(store::Database& db, std::string gateway_id)
      : db_(&db), gateway_id_(std::move(gateway_id)) {}

  // Takes job `job_id`'s lease for this gateway, or finds it already
  // taken: true when this gateway holds it (then until its session ends).
  // Store errors (a lost connection: UNAVAILABLE).
  Result<bool> Acquire(int64_t job_id);
  // The gateway id of the holder of `job_id`'s lease ("" if none).
  Result<std::string> Holder(int64_t job_id);
  const std::string& gateway_id() const { return gateway_id_; }

 private:
  // Names the session after the gateway, once.
  Status Announce();
  store::Database* db_;
  std::string gateway_id_;
  bool announced_ = false;
  int64_t held_job_ = 0;  // the job whose lease this session took (0: none)
};

}  // namespace edgeadmm::server
