#include "edgeadmm/server/revocation_watch.h"

#include <vector>

#include "edgeadmm/log.h"

namespace edgeadmm::server {

void RevocationWatch::OnEstablished(coap_session_t* session,
                                    std::string identity) {
  sessions_[session] = std::move(identity);
}

bool RevocationWatch::DatabaseChanged() {
  auto stmt = db_->PrepareCached("PRAGMA data_version");
  if (!stmt.ok() || !(*stmt)->StepRow().ok()) return true;  // look anyway
  const int64_t version = (*stmt)->ColumnInt(0);
  const bool changed = version != data_version_;
  data_version_ = version;
  return changed;
}

size_t RevocationWatch::CutRevoked(
    const std::function<bool(std::string_view)>& enabled) {
  std::vector<coap_session_t*> revoked;
  for (const auto& [session, identity] : sessions_) {
    if (!enabled(identity)) revoked.push_back(session);
  }
  for (coap_session_t* session : revoked) {
    EDGEADMM_LOG_INFO("dtls: closing the session of revoked device %s: %s",
                      sessions_[session].c_str(), coap_session_str(session));
    sessions_.erase(session);
    coap_session_disconnected(session, COAP_NACK_TLS_FAILED);
  }
  return revoked.size();
}

}  // namespace edgeadmm::server
