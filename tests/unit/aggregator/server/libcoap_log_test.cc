// libcoap's log lines through the daemon's logger; its RST alerts counted,
// not printed (libcoap_log.h).
#include "edgeadmm/server/libcoap_log.h"

#include <coap3/coap.h>

#include "edgeadmm/server/gateway_metrics.h"
#include "gtest/gtest.h"

namespace edgeadmm::server {
namespace {

TEST(LibcoapLogTest, ResetAlertsAreCountedAndRendered) {
  coap_startup();
  RouteLibcoapLog();
  coap_set_log_level(LOG_WARNING);
  const uint64_t before = LibcoapResetsReceived();
  // What libcoap 4.3.1 logs for every RST it receives (at LOG_ALERT).
  coap_log(LOG_ALERT, "got RST for mid=%u\n", 41u);
  coap_log(LOG_ALERT, "got RST for mid=%u\n", 42u);
  // Other lines are not resets.
  coap_log(LOG_WARNING, "coap_socket_recv: %s\n", "a warning");
  EXPECT_EQ(LibcoapResetsReceived(), before + 2);

  GatewayMetrics metrics;
  metrics.set_coap_resets(LibcoapResetsReceived());
  const std::string text = metrics.Render(JobGauges{});
  EXPECT_NE(text.find("# TYPE edgeadmm_coap_resets_total counter"),
            std::string::npos);
  EXPECT_NE(text.find("edgeadmm_coap_resets_total " +
                      std::to_string(before + 2) + "\n"),
            std::string::npos)
      << text;
  coap_set_log_handler(nullptr);
  coap_cleanup();
}

}  // namespace
}  // namespace edgeadmm::server
