#include "edgeadmm/registry/device_registry.h"

#include <ctime>

#include "edgeadmm/registry/secure_random.h"

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

Result<std::vector<uint8_t>> DeviceRegistry::Add(std::string_view id) {
  if (!IsValidDeviceId(id)) return Status::InvalidArgument();
  std::vector<uint8_t> psk(kPskBytes);
  EDGEADMM_TRY(FillSecureRandom(psk.data(), psk.size()));
  EDGEADMM_TRY_ASSIGN(store::Statement stmt,
                      db_->Prepare("INSERT INTO devices(id, psk, enabled, "
                                   "created_at) VALUES (?, ?, 1, ?)"));
  stmt.Bind(1, id).BindBlob(2, psk).Bind(3,
                                         static_cast<int64_t>(time(nullptr)));
  EDGEADMM_TRY(stmt.Run());
  return psk;
}

Result<std::vector<DeviceRecord>> DeviceRegistry::List() const {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT id, enabled, created_at FROM devices ORDER BY id"));
  std::vector<DeviceRecord> out;
  EDGEADMM_TRY(stmt.ForEachRow([&] {
    out.push_back(
        {stmt.ColumnText(0), stmt.ColumnInt(1) != 0, stmt.ColumnInt(2)});
    return Status::Ok();
  }));
  return out;
}

Result<DeviceRecord> DeviceRegistry::Get(std::string_view id) const {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT id, enabled, created_at FROM devices WHERE id = ?"));
  stmt.Bind(1, id);
  EDGEADMM_TRY(stmt.StepRow());
  return DeviceRecord{stmt.ColumnText(0), stmt.ColumnInt(1) != 0,
                      stmt.ColumnInt(2)};
}

Status DeviceRegistry::SetEnabled(std::string_view id, bool enabled) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("UPDATE devices SET enabled = ? WHERE id = ?"));
  stmt.Bind(1, static_cast<int64_t>(enabled ? 1 : 0)).Bind(2, id);
  EDGEADMM_TRY(stmt.Run());
  EDGEADMM_TRY(Get(id));
  return Status::Ok();
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
  return stmt.Run();
}

Result<std::vector<uint8_t>> DeviceRegistry::LookupPsk(
    std::string_view id) const {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT psk, enabled FROM devices WHERE id = ?"));
  stmt.Bind(1, id);
  EDGEADMM_TRY(stmt.StepRow());
  if (stmt.ColumnInt(1) == 0) return Status::PermissionDenied();
  return stmt.ColumnBlob(0);
}

}  // namespace edgeadmm::registry
