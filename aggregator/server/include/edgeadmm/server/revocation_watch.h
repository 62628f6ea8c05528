// RevocationWatch: cuts the DTLS sessions of devices the admin CLI disabled
// or removed while the daemon runs (docs/security.md, "Revocation"). The CLI
// is another process on the same database: SQLite's data_version tells the
// daemon's connection that another one committed, and the watch then
// re-checks the identity of every established session.
#pragma once

#include <coap3/coap.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "edgeadmm/store/database.h"

namespace edgeadmm::server {

class RevocationWatch {
 public:
  // `db` (the daemon's connection) must outlive the watch.
  explicit RevocationWatch(store::Database& db) : db_(&db) {}

  // A DTLS session completed its handshake as `identity`.
  void OnEstablished(coap_session_t* session, std::string identity);
  // The session closed or is being freed.
  void OnEnded(coap_session_t* session) { sessions_.erase(session); }

  // True if another connection committed since the last call (and on the
  // first call). Cheap: one PRAGMA.
  bool DatabaseChanged();
  // Disconnects (observations dropped, DTLS state freed) every established
  // session whose identity `enabled` refuses; returns how many.
  size_t CutRevoked(const std::function<bool(std::string_view)>& enabled);

 private:
  store::Database* db_;
  int64_t data_version_ = -1;
  std::unordered_map<coap_session_t*, std::string> sessions_;
};

}  // namespace edgeadmm::server
