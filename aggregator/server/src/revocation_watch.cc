#include "edgeadmm/server/revocation_watch.h"

#include <vector>

#include "edgeadmm/log.h"

namespace edgeadmm::server {

void RevocationWatch::OnEstablished(coap_session_t* session,
                                    std::string identity) {
  auto key = keys_.find(session);
  Established established{std::move(identity), {}};
  if (key != keys_.end()) {
    established.key = std::move(key->second);
    keys_.erase(key);
  }
  auto started = started_.find(session);
  if (started != started_.end()) {
    established.started = started->second;
    started_.erase(started);
  } else {
    established.started = ++handshakes_started_;  // not seen: the newest
  }
  auto [newest, first] = newest_.try_emplace(established.identity, session);
  if (!first && newest->second != session) {
    auto other = sessions_.find(newest->second);
    if (other != sessions_.end() &&
        other->second.started > established.started) {
      // A handshake the device gave up on (its own timeout under load, then
      // a new session) completed after the one it went on with: this one is
      // the older. Superseding the live session instead refused its
      // uploads 4.03 and the device dropped them.
      established.superseded = true;
      ++superseded_;
      sessions_[session] = std::move(established);
      return;
    }
    if (other != sessions_.end() && !other->second.superseded) {
      other->second.superseded = true;
      ++superseded_;
    }
    newest->second = session;
  }
  sessions_[session] = std::move(established);
}

void RevocationWatch::OnEnded(coap_session_t* session) {
  keys_.erase(session);
  started_.erase(session);
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  if (it->second.superseded) --superseded_;
  auto newest = newest_.find(it->second.identity);
  if (newest != newest_.end() && newest->second == session) {
    newest_.erase(newest);
  }
  sessions_.erase(it);
}

bool RevocationWatch::Superseded(coap_session_t* session) const {
  const auto it = sessions_.find(session);
  return it != sessions_.end() && it->second.superseded;
}

size_t RevocationWatch::CutSuperseded() {
  if (superseded_ == 0) return 0;
  std::vector<coap_session_t*> older;
  for (const auto& [session, established] : sessions_) {
    if (established.superseded) older.push_back(session);
  }
  for (coap_session_t* session : older) {
    EDGEADMM_LOG_INFO("dtls: closing an older session of %s: %s",
                      sessions_[session].identity.c_str(),
                      coap_session_str(session));
    OnEnded(session);
    coap_session_disconnected(session, COAP_NACK_TLS_FAILED);
  }
  return older.size();
}

bool RevocationWatch::DatabaseChanged() {
  // SQLite: any other connection's commit. PostgreSQL, where the gateways
  // and their uploads share one database: the registry's own counter, so
  // that the uploads stored by every gateway do not wake every watch.
  auto stmt = db_->PrepareCached(db_->postgresql()
                                     ? "SELECT version FROM registry_changes"
                                     : "PRAGMA data_version");
  if (!stmt.ok() || !(*stmt)->StepRow().ok()) return true;  // look anyway
  const int64_t version = (*stmt)->ColumnInt(0);
  const bool changed = version != data_version_;
  data_version_ = version;
  return changed;
}

bool RevocationWatch::Refuses(coap_session_t* session,
                              const StillValid& valid) const {
  const auto it = sessions_.find(session);
  return it != sessions_.end() && !valid(it->second.identity, it->second.key);
}

size_t RevocationWatch::CutRevoked(const StillValid& valid) {
  std::vector<coap_session_t*> revoked;
  for (const auto& [session, established] : sessions_) {
    if (!valid(established.identity, established.key)) {
      revoked.push_back(session);
    }
  }
  for (coap_session_t* session : revoked) {
    EDGEADMM_LOG_INFO(
        "dtls: closing the session of %s (disabled, removed or re-keyed): %s",
        sessions_[session].identity.c_str(), coap_session_str(session));
    OnEnded(session);
    coap_session_disconnected(session, COAP_NACK_TLS_FAILED);
  }
  return revoked.size();
}

}  // namespace edgeadmm::server
