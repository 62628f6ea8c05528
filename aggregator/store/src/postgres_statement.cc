#include <endian.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <cstring>

#include "postgres_backend.h"

namespace edgeadmm::store {
namespace {

// Type Oids of the binary parameters and the columns read specially
// (catalog/pg_type.h, stable across PostgreSQL releases).
constexpr unsigned kBoolOid = 16;
constexpr unsigned kByteaOid = 17;
constexpr unsigned kInt8Oid = 20;
constexpr unsigned kFloat8Oid = 701;

}  // namespace

PgStatement::~PgStatement() { PQclear(result_); }

PgStatement::Param* PgStatement::At(int index) {
  if (index < 1 || static_cast<size_t>(index) > params_.size()) return nullptr;
  return &params_[static_cast<size_t>(index) - 1];
}

// Numbers go in binary (network byte order): exact, without formatting.
bool PgStatement::BindInt(int index, int64_t value) {
  Param* p = At(index);
  if (p == nullptr) return false;
  const uint64_t big = htobe64(static_cast<uint64_t>(value));
  *p = Param{kInt8Oid, std::string(reinterpret_cast<const char*>(&big), 8),
             true, false};
  return true;
}

bool PgStatement::BindDouble(int index, double value) {
  Param* p = At(index);
  if (p == nullptr) return false;
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint64_t big = htobe64(bits);
  *p = Param{kFloat8Oid, std::string(reinterpret_cast<const char*>(&big), 8),
             true, false};
  return true;
}

// Text goes untyped: the server gives it the type its place asks for.
bool PgStatement::BindText(int index, std::string_view text) {
  Param* p = At(index);
  if (p == nullptr) return false;
  *p = Param{0, std::string(text), false, false};
  return true;
}

bool PgStatement::BindBytes(int index, const void* data, size_t size) {
  Param* p = At(index);
  if (p == nullptr) return false;
  *p = Param{kByteaOid, std::string(static_cast<const char*>(data), size), true,
             false};
  return true;
}

bool PgStatement::BindNull(int index) {
  Param* p = At(index);
  if (p == nullptr) return false;
  *p = Param{};
  return true;
}

Status PgStatement::Execute() {
  const size_t n = params_.size();
  std::vector<unsigned> types(n);
  std::vector<const char*> values(n);
  std::vector<int> lengths(n);
  std::vector<int> formats(n);
  for (size_t i = 0; i < n; ++i) {
    const Param& p = params_[i];
    types[i] = p.type;
    values[i] = p.null ? nullptr : p.value.data();
    lengths[i] = static_cast<int>(p.value.size());
    formats[i] = p.binary ? 1 : 0;
  }
  // A text value must end in NUL for libpq: std::string's data() does.
  result_ = PQexecParams(connection_->conn(), sql_.c_str(), static_cast<int>(n),
                         types.data(), values.data(), lengths.data(),
                         formats.data(), 0);
  row_ = -1;
  return connection_->Check(result_);
}

Result<bool> PgStatement::Step() {
  if (!last_.ok()) return last_;
  if (result_ == nullptr) {
    last_ = Execute();
    if (!last_.ok()) return last_;
  }
  if (row_ + 1 >= PQntuples(result_)) {
    row_ = PQntuples(result_);
    return false;
  }
  ++row_;
  return true;
}

Status PgStatement::Reset() {
  PQclear(result_);
  result_ = nullptr;
  row_ = -1;
  for (Param& p : params_) p = Param{};
  const Status status = last_;
  last_ = Status::Ok();
  return status;
}

const char* PgStatement::Cell(int column) const {
  if (result_ == nullptr || row_ < 0 || row_ >= PQntuples(result_) ||
      column < 0 || column >= PQnfields(result_) ||
      PQgetisnull(result_, row_, column)) {
    return nullptr;
  }
  return PQgetvalue(result_, row_, column);
}

int64_t PgStatement::ColumnInt(int column) const {
  const char* cell = Cell(column);
  if (cell == nullptr) return 0;
  if (PQftype(result_, column) == kBoolOid) return cell[0] == 't' ? 1 : 0;
  return std::strtoll(cell, nullptr, 10);
}

double PgStatement::ColumnDouble(int column) const {
  const char* cell = Cell(column);
  return cell == nullptr ? 0.0 : std::strtod(cell, nullptr);
}

std::string PgStatement::ColumnText(int column) const {
  const char* cell = Cell(column);
  if (cell == nullptr) return std::string();
  return std::string(cell,
                     static_cast<size_t>(PQgetlength(result_, row_, column)));
}

std::vector<uint8_t> PgStatement::ColumnBlob(int column) const {
  const char* cell = Cell(column);
  if (cell == nullptr) return {};
  if (PQftype(result_, column) != kByteaOid) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(cell);
    return std::vector<uint8_t>(bytes,
                                bytes + PQgetlength(result_, row_, column));
  }
  size_t size = 0;
  unsigned char* bytes =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(cell), &size);
  if (bytes == nullptr) return {};
  std::vector<uint8_t> out(bytes, bytes + size);
  PQfreemem(bytes);
  return out;
}

bool PgStatement::ColumnIsNull(int column) const {
  return Cell(column) == nullptr;
}

}  // namespace edgeadmm::store
