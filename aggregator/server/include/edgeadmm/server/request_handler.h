// RequestHandler: the protocol resources of docs/protocol.md as pure
// functions from (authenticated identity, request body) to a CoAP response.
// No sockets: the libcoap server (coap_server.h) and the tests/fuzz targets
// call it the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/server/job_router.h"

namespace edgeadmm::server {

struct Response {
  uint8_t code = 0;             // CoAP code, class*32 + detail
  uint16_t content_format = 0;  // of `body`
  std::vector<uint8_t> body;
  // Size1 option (RFC 7959 2.9.3: on a 4.13, the largest body accepted);
  // 0: none.
  uint32_t size1 = 0;
  // Max-Age option in seconds (RFC 7252 5.10.5): on a 4.29 or 5.03, when
  // the device may try again; -1: none.
  int32_t max_age_seconds = -1;
};

// Max-Age of the 5.03 an upload gets while the store cannot write
// (RoundEngine::kWriteRetryMs, rounded up).
inline constexpr int32_t kStoreRetrySeconds = 2;

// The canonical status each upload verdict is answered with (2.04 for the
// two successes; see docs/aggregator.md for the table).
Status StatusForVerdict(rounds::UploadVerdict verdict);

class RequestHandler {
 public:
  // `engine` may be null (no job loaded): every resource answers 4.04.
  explicit RequestHandler(rounds::RoundEngine* engine) { set_engine(engine); }
  // One job (null: none).
  void set_engine(rounds::RoundEngine* engine) {
    router_.Set(engine != nullptr ? std::vector<rounds::RoundEngine*>{engine}
                                  : std::vector<rounds::RoundEngine*>{});
  }
  // The loaded jobs (JobHost sets them; JobRouter picks per request).
  JobRouter& router() { return router_; }
  // The task heartbeat every task states (RoundTask.heartbeat_ms; the
  // server's ServerOptions::task_heartbeat_ms). 0: none.
  void set_task_heartbeat_ms(uint32_t ms) { task_heartbeat_ms_ = ms; }
  // The upload spread per expected cohort member of a round's task
  // (UploadSpreadMs; ServerOptions::upload_spread_us). 0: none.
  void set_upload_spread_us(uint32_t us) { upload_spread_us_ = us; }

  // `query` below: the request's Uri-Query, empty or `job=<name>`
  // (JobRouter::ParseQuery): anything else is 4.00, an unknown job 4.04.
  // GET v1/task: the RoundTask of `identity` (2.05) — PARTICIPATE with z in
  // its cohort, IDLE otherwise, DONE when the job ended.
  Response Task(std::string_view identity, int64_t now_ms,
                std::string_view query = {}) const;
  // POST v1/update with the raw body; 4.15 unless Content-Format is 65101
  // (a missing option included). Decodes (bounded by the job's
  // dimension), judges through the engine, answers 2.04 + receipt or the
  // documented error code with a StatusBody. Refused requests change nothing.
  Response Update(std::string_view identity,
                  std::optional<uint16_t> content_format, const uint8_t* body,
                  size_t size, int64_t now_ms);
  // An upload goes to the job its job_id names (JobRouter::ByJobId); one
  // for no loaded job is refused as one for a stopped job (4.12).
  // The largest v1/update body a loaded job takes (0: no job).
  size_t MaxUpdateBody() const;
  // GET v1/model: the last released model (2.05), 4.04 before the first;
  // 4.03 for every device when the algorithm does not release the model to
  // devices (Algorithm::ReleasesModelToDevices: z goes out only in tasks).
  Response Model(std::string_view identity, std::string_view query = {}) const;
  // GET v1/status: 2.05 with code 0 and the current (job, round) for an
  // enrolled device.
  Response StatusOf(std::string_view identity,
                    std::string_view query = {}) const;

 private:
  // The engine a task/model/status request is for, or the response that
  // refuses it.
  Result<rounds::RoundEngine*> Route(std::string_view identity,
                                     std::string_view query,
                                     Response* refusal) const;
  // The engine of the job an upload names, or null and the refusal.
  rounds::RoundEngine* UploadEngine(const uint8_t* body, size_t size,
                                    Response* refusal) const;
  // The largest upload body of `engine`'s job.
  static size_t MaxUpdateBodyOf(const rounds::RoundEngine& engine);

  JobRouter router_;
  uint32_t task_heartbeat_ms_ = 0;
  uint32_t upload_spread_us_ = 0;
};

// A response carrying a StatusBody for `status` (code from the protocol
// table) with a short message.
Response ErrorResponse(Status status, const char* message, uint64_t job_id,
                       uint64_t round_id);

}  // namespace edgeadmm::server
