#include "edgeadmm/server/libcoap_log.h"

#include <coap3/coap.h>

#include <atomic>
#include <cstring>

#include "edgeadmm/log.h"

namespace edgeadmm::server {
namespace {

std::atomic<uint64_t> g_resets{0};

constexpr char kResetLine[] = "got RST for mid=";

int DaemonLevel(coap_log_t level) {
  if (level <= LOG_ERR) return EDGEADMM_LOG_LEVEL_ERROR;
  if (level == LOG_WARNING) return EDGEADMM_LOG_LEVEL_WARN;
  if (level <= LOG_INFO) return EDGEADMM_LOG_LEVEL_INFO;
  return EDGEADMM_LOG_LEVEL_DEBUG;
}

void OnLibcoapLine(coap_log_t level, const char* message) {
  size_t length = std::strlen(message);
  while (length > 0 && message[length - 1] == '\n') --length;
  const bool reset =
      std::strncmp(message, kResetLine, sizeof(kResetLine) - 1) == 0;
  if (reset) g_resets.fetch_add(1, std::memory_order_relaxed);
  EDGEADMM_LOG_AT(reset ? EDGEADMM_LOG_LEVEL_DEBUG : DaemonLevel(level),
                  "coap: %.*s", static_cast<int>(length), message);
}

}  // namespace

void RouteLibcoapLog() { coap_set_log_handler(&OnLibcoapLine); }

uint64_t LibcoapResetsReceived() {
  return g_resets.load(std::memory_order_relaxed);
}

}  // namespace edgeadmm::server
