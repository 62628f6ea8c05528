// RevocationWatch: cuts the DTLS sessions of devices the admin CLI disabled,
// removed or gave a new key while the daemon runs (docs/security.md,
// "Revocation"). The CLI is another process on the same database: SQLite's
// data_version tells the daemon's connection that another one committed (on
// PostgreSQL the registry's revocation counter, registry_changes), and
// the watch then re-checks the identity and key of every established
// session. It also keeps one live session per device: of two established
// sessions of the same identity, the one whose handshake started later
// supersedes the other (issue 14 item 6: sessions per identity were
// unlimited), whichever completed first.
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

  // `session`'s handshake started (libcoap created the server session): its
  // place in the order that decides which session of a device is newer.
  void OnHandshakeStarted(coap_session_t* session) {
    started_[session] = ++handshakes_started_;
  }
  // The PSK callback handed `key` to `session`'s handshake.
  void OnKeyChosen(coap_session_t* session, std::vector<uint8_t> key) {
    keys_[session] = std::move(key);
  }
  // A DTLS session completed its handshake as `identity` (with the key of
  // the last OnKeyChosen).
  void OnEstablished(coap_session_t* session, std::string identity);
  // The session closed or is being freed.
  void OnEnded(coap_session_t* session);

  // True if another connection committed since the last call (and on the
  // first call); on PostgreSQL, if the registry counted a revocation
  // (DeviceRegistry: disable, remove, rotate-key) since then. Cheap: one
  // PRAGMA or one single-row read.
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
  // Whether the same device has an established session whose handshake
  // started after `session`'s (a request on it is refused; CutSuperseded
  // closes it).
  bool Superseded(coap_session_t* session) const;
  // Disconnects the superseded sessions; returns how many. Cheap when
  // there are none (call every tick).
  size_t CutSuperseded();
  // Devices (DTLS identities) with an established session that no newer
  // one superseded: the devices connected now.
  size_t devices() const { return newest_.size(); }

 private:
  struct Established {
    std::string identity;
    std::vector<uint8_t> key;
    uint64_t started = 0;  // OnHandshakeStarted's number
    bool superseded = false;
  };
  store::Database* db_;
  int64_t data_version_ = -1;
  std::unordered_map<coap_session_t*, Established> sessions_;
  // The established session of each identity whose handshake started last.
  std::unordered_map<std::string, coap_session_t*> newest_;
  size_t superseded_ = 0;  // sessions marked and not yet cut
  // Keys and start numbers of handshakes still in progress.
  std::unordered_map<coap_session_t*, std::vector<uint8_t>> keys_;
  std::unordered_map<coap_session_t*, uint64_t> started_;
  uint64_t handshakes_started_ = 0;
};

}  // namespace edgeadmm::server
