#include "edgeadmm/server/coordinator_lease.h"

#include <string>

namespace edgeadmm::server {

bool ValidGatewayId(std::string_view id) {
  if (id.empty() || id.size() > 63) return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status CoordinatorLease::Announce() {
  if (announced_) return Status::Ok();
  // ValidGatewayId: no quote can end the literal.
  if (!ValidGatewayId(gateway_id_)) return Status::InvalidArgument();
  EDGEADMM_TRY(db_->Exec(
      "SET application_name = 'edgeadmm-gateway:" + gateway_id_ + "'"));
  announced_ = true;
  return Status::Ok();
}

Result<bool> CoordinatorLease::Acquire(int64_t job_id) {
  if (!db_->postgresql()) return true;
  // pg_try_advisory_lock stacks a count on every success: take it once and
  // keep it for the session's life.
  if (held_job_ == job_id) return true;
  EDGEADMM_TRY(Announce());
  // Literals, not parameters: the two-key form takes int4 keys.
  EDGEADMM_TRY_ASSIGN(
      store::Statement take,
      db_->Prepare("SELECT CASE WHEN pg_try_advisory_lock(" +
                   std::to_string(kLeaseClass) + ", " + std::to_string(job_id) +
                   ") THEN 1 ELSE 0 END"));
  EDGEADMM_TRY_ASSIGN(const bool row, take.Step());
  if (!row) return Status::Internal();
  if (take.ColumnInt(0) != 1) return false;
  held_job_ = job_id;
  return true;
}

Result<std::string> CoordinatorLease::Holder(int64_t job_id) {
  if (!db_->postgresql()) return gateway_id_;
  EDGEADMM_TRY_ASSIGN(
      store::Statement who,
      db_->Prepare("SELECT a.application_name FROM pg_locks l JOIN "
                   "pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = "
                   "'advisory' AND l.granted AND l.objsubid = 2 AND "
                   "l.classid = " +
                   std::to_string(kLeaseClass) +
                   " AND l.objid = " + std::to_string(job_id)));
  EDGEADMM_TRY_ASSIGN(const bool row, who.Step());
  if (!row) return std::string();
  const std::string name = who.ColumnText(0);
  const std::string prefix = "edgeadmm-gateway:";
  if (name.compare(0, prefix.size(), prefix) != 0) return name;
  return name.substr(prefix.size());
}

}  // namespace edgeadmm::server
