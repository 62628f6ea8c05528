// RevocationWatch: cuts the DTLS sessions of devices the admin CLI disabled,
// removed or gave a new key while the daemon runs (docs/security.md,
// "Revocation"). The CLI is another process on the same database: SQLite's
// data_version tells the daemon's connection that another one committed, and
// the watch then re-checks the identity and key of every established
// session.
#pragma once

#include <coap3/coap.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "edgeadmm/store/database.h"

namespace edgeadmm::server {

class RevocationWatch {
 public:
  // `db` (the daemon's connection) must outlive the watch.
  explicit RevocationWatch(store::Database& db) : db_(&db) {}

  // The PSK callback handed `key` to `session`'s handshake.
  void OnKeyChosen(coap_session_t* session, std::vector<uint8_t> key) {
    keys_[session] = std::move(key);
  }
  // A DTLS session completed its handshake as `identity` (with the key of
  // the last OnKeyChosen).
  void OnEstablished(coap_session_t* session, std::string identity);
  // The session closed or is being freed.
  void OnEnded(coap_session_t* session) {
    sessions_.erase(session);
    keys_.erase(session);
  }

  // True if another connection committed since the last call (and on the
  // first call). Cheap: one PRAGMA.
  bool DatabaseChanged();
  // Whether a session established as (identity, key) may go on.
  using StillValid =
      std::function<bool(std::string_view, const std::vector<uint8_t>&)>;
  // Disconnects (observations dropped, DTLS state freed) every established
  // session that `valid` refuses; returns how many.
  size_t CutRevoked(const StillValid& valid);
  // Whether `valid` refuses the established `session` (a request on it is
  // then refused, before the next CutRevoked closes it); false for a
  // session the watch does not know.
  bool Refuses(coap_session_t* session, const StillValid& valid) const;

 private:
  struct Established {
    std::string identity;
    std::vector<uint8_t> key;
  };
  store::Database* db_;
  int64_t data_version_ = -1;
  std::unordered_map<coap_session_t*, Established> sessions_;
  // Keys of handshakes still in progress.
  std::unordered_map<coap_session_t*, std::vector<uint8_t>> keys_;
};

}  // namespace edgeadmm::server
