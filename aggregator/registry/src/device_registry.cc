#include "edgeadmm/registry/device_registry.h"

#include <cmath>
#include <ctime>
#include <unordered_set>

#include "edgeadmm/registry/secure_random.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::registry {

bool IsValidDeviceId(std::string_view id) {
  if (id.empty() || id.size() > kMaxDeviceIdLength) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {

constexpr const char* kInsertDevice =
    "INSERT INTO devices(id, psk, enabled, created_at) VALUES (?, ?, 1, ?)";

// Draws a PSK and inserts `id` with `stmt` (kInsertDevice, reset after).
Result<std::vector<uint8_t>> InsertDevice(store::Statement& stmt,
                                          std::string_view id) {
  if (!IsValidDeviceId(id)) return Status::InvalidArgument();
  std::vector<uint8_t> psk(kPskBytes);
  EDGEADMM_TRY(FillSecureRandom(psk.data(), psk.size()));
  EDGEADMM_TRY(stmt.Reset());
  stmt.Bind(1, id).BindBlob(2, psk).Bind(3,
                                         static_cast<int64_t>(time(nullptr)));
  EDGEADMM_TRY(stmt.Run());
  return psk;
}

}  // namespace

Result<std::vector<uint8_t>> DeviceRegistry::Add(std::string_view id) {
  if (!IsValidDeviceId(id)) return Status::InvalidArgument();
  EDGEADMM_TRY_ASSIGN(store::Statement stmt, db_->Prepare(kInsertDevice));
  return InsertDevice(stmt, id);
}

Result<DeviceRegistry::PskList> DeviceRegistry::AddMany(
    const std::vector<std::string>& ids, size_t* failed,
    const std::function<Status(const PskList&)>& before_commit) {
  if (failed != nullptr) *failed = ids.size();
  if (ids.empty()) return Status::InvalidArgument();
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (failed != nullptr) *failed = i;
    if (!IsValidDeviceId(ids[i])) return Status::InvalidArgument();
    if (!seen.insert(ids[i]).second) return Status::AlreadyExists();
  }
  if (failed != nullptr) *failed = ids.size();
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  EDGEADMM_TRY_ASSIGN(store::Statement stmt, db_->Prepare(kInsertDevice));
  PskList psks;
  psks.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (failed != nullptr) *failed = i;
    EDGEADMM_TRY_ASSIGN(std::vector<uint8_t> psk, InsertDevice(stmt, ids[i]));
    psks.push_back(std::move(psk));
  }
  if (failed != nullptr) *failed = ids.size();
  if (before_commit) EDGEADMM_TRY(before_commit(psks));
  EDGEADMM_TRY(tx.Commit());
  return psks;
}

namespace {

constexpr char kRecordColumns[] =
    "SELECT id, enabled, created_at, lifetime_epsilon, lifetime_delta, "
    "central_epsilon, central_delta FROM devices";

DeviceRecord RecordFromRow(const store::Statement& stmt) {
  DeviceRecord record{stmt.ColumnText(0), stmt.ColumnInt(1) != 0,
                      stmt.ColumnInt(2), std::nullopt, std::nullopt};
  if (!stmt.ColumnIsNull(3)) {
    record.lifetime =
        LifetimeBudget{stmt.ColumnDouble(3), stmt.ColumnDouble(4)};
  }
  if (!stmt.ColumnIsNull(5)) {
    record.central = LifetimeBudget{stmt.ColumnDouble(5), stmt.ColumnDouble(6)};
  }
  return record;
}

}  // namespace

Result<std::vector<DeviceRecord>> DeviceRegistry::List() const {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare(std::string(kRecordColumns) + " ORDER BY id"));
  std::vector<DeviceRecord> out;
  EDGEADMM_TRY(stmt.ForEachRow([&] {
    out.push_back(RecordFromRow(stmt));
    return Status::Ok();
  }));
  return out;
}

Result<DeviceRecord> DeviceRegistry::Get(std::string_view id) const {
  // Cached: the round engine asks once per upload (re-preparing it was 18 %
  // of the bookkeeping instructions, docs/aggregator.md).
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached(std::string(kRecordColumns) + " WHERE id = ?"));
  stmt->Bind(1, id);
  EDGEADMM_TRY(stmt->StepRow());
  return RecordFromRow(*stmt);
}

Status DeviceRegistry::SetLifetimeBudget(std::string_view id,
                                         std::optional<LifetimeBudget> budget,
                                         LifetimeLedger ledger) {
  if (budget.has_value() &&
      !(budget->epsilon > 0 && std::isfinite(budget->epsilon) &&
        budget->delta > 0 && budget->delta < 1)) {
    return Status::InvalidArgument();
  }
  EDGEADMM_TRY(Get(id));
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare(ledger == LifetimeLedger::kLocal
                       ? "UPDATE devices SET lifetime_epsilon = ?, "
                         "lifetime_delta = ? WHERE id = ?"
                       : "UPDATE devices SET central_epsilon = ?, "
                         "central_delta = ? WHERE id = ?"));
  if (budget.has_value()) {
    stmt.Bind(1, budget->epsilon).Bind(2, budget->delta);
  } else {
    stmt.BindNull(1).BindNull(2);
  }
  stmt.Bind(3, id);
  return stmt.Run();
}

Status DeviceRegistry::SetEnabled(std::string_view id, bool enabled) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("UPDATE devices SET enabled = ? WHERE id = ?"));
  stmt.Bind(1, static_cast<int64_t>(enabled ? 1 : 0)).Bind(2, id);
  EDGEADMM_TRY(stmt.Run());
  EDGEADMM_TRY(Get(id));
  return CountRevocation();
}

Status DeviceRegistry::CountRevocation() {
  // After the change it announces: a watch that sees the new count sees it.
  return db_->Exec("UPDATE registry_changes SET version = version + 1");
}

Status DeviceRegistry::Disable(std::string_view id) {
  return SetEnabled(id, false);
}

Status DeviceRegistry::Enable(std::string_view id) {
  return SetEnabled(id, true);
}

Status DeviceRegistry::Remove(std::string_view id) {
  EDGEADMM_TRY(Get(id));
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db_->Prepare("DELETE FROM devices WHERE id = ?"));
  stmt.Bind(1, id);
  EDGEADMM_TRY(stmt.Run());
  return CountRevocation();
}

Result<std::vector<uint8_t>> DeviceRegistry::RotatePsk(
    std::string_view id,
    const std::function<Status(const std::vector<uint8_t>&)>& before_commit) {
  std::vector<uint8_t> psk(kPskBytes);
  EDGEADMM_TRY(FillSecureRandom(psk.data(), psk.size()));
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  EDGEADMM_TRY(Get(id));
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db_->Prepare("UPDATE devices SET psk = ? WHERE id = ?"));
  stmt.BindBlob(1, psk).Bind(2, id);
  EDGEADMM_TRY(stmt.Run());
  EDGEADMM_TRY(CountRevocation());
  if (before_commit) EDGEADMM_TRY(before_commit(psk));
  EDGEADMM_TRY(tx.Commit());
  return psk;
}

Result<bool> DeviceRegistry::IsEnabled(std::string_view id) const {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("SELECT enabled FROM devices WHERE id = ?"));
  stmt->Bind(1, id);
  const Status row = stmt->StepRow();
  if (row == Status::NotFound()) return false;
  EDGEADMM_TRY(row);
  return stmt->ColumnInt(0) != 0;
}

Result<std::vector<uint8_t>> DeviceRegistry::LookupPsk(
    std::string_view id) const {
  // Cached: the server asks once per DTLS handshake.
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("SELECT psk, enabled FROM devices WHERE id = ?"));
  stmt->Bind(1, id);
  EDGEADMM_TRY(stmt->StepRow());
  if (stmt->ColumnInt(1) == 0) return Status::PermissionDenied();
  return stmt->ColumnBlob(0);
}

}  // namespace edgeadmm::registry
