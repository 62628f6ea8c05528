// The PostgreSQL backend of a build without libpq (the aarch64 preset: Debian
// has no multiarch libpq-dev): opening a PostgreSQL database fails with a
// clear message; nothing else is reachable without a connection.
#include "edgeadmm/log.h"
#include "postgres_backend.h"

namespace edgeadmm::store {

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(
    const std::string& /*conninfo*/) {
  EDGEADMM_LOG_ERROR(
      "store: this build has no PostgreSQL backend (libpq-dev was absent)");
  return Status::Unimplemented();
}

PgConnection::~PgConnection() = default;
Status PgConnection::Exec(std::string_view) { return Status::Unimplemented(); }
Result<std::unique_ptr<PgStatement>> PgConnection::Prepare(std::string_view) {
  return Status::Unimplemented();
}
int64_t PgConnection::LastInsertId() { return 0; }
bool PgConnection::InTransaction() const { return false; }

PgStatement::~PgStatement() = default;
bool PgStatement::BindInt(int, int64_t) { return false; }
bool PgStatement::BindDouble(int, double) { return false; }
bool PgStatement::BindText(int, std::string_view) { return false; }
bool PgStatement::BindBytes(int, const void*, size_t) { return false; }
bool PgStatement::BindNull(int) { return false; }
Result<bool> PgStatement::Step() { return Status::Unimplemented(); }
Status PgStatement::Reset() { return Status::Ok(); }
int64_t PgStatement::ColumnInt(int) const { return 0; }
double PgStatement::ColumnDouble(int) const { return 0; }
std::string PgStatement::ColumnText(int) const { return std::string(); }
std::vector<uint8_t> PgStatement::ColumnBlob(int) const { return {}; }
bool PgStatement::ColumnIsNull(int) const { return true; }

}  // namespace edgeadmm::store
