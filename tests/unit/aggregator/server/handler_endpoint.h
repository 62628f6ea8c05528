// A CoapEndpoint serving v1/task, v1/update and v1/status from a
// RequestHandler and its RoundEngine, for LoopbackTransport tests of device
// clients against the gateway's real request handling (no sockets). A body
// larger than the buffer is RESOURCE_EXHAUSTED (a notification that does
// not fit); the update bodies each device sent are kept.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "edgeadmm/fake/coap_endpoint.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/server/request_handler.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::server {

class HandlerEndpoint final : public CoapEndpoint {
 public:
  HandlerEndpoint(RequestHandler& handler, rounds::RoundEngine& engine)
      : handler_(handler), engine_(engine) {}

  CoapResponse Handle(const char* identity, const TransportRequest& request,
                      ByteSpan out) override {
    Response r;
    if (std::strcmp(request.path, wire::kTaskPath) == 0) {
      r = handler_.Task(identity, now_ms_);
    } else if (std::strcmp(request.path, wire::kUpdatePath) == 0) {
      const auto* body =
          reinterpret_cast<const uint8_t*>(request.payload.data());
      updates_[identity].emplace_back(body, body + request.payload.size());
      last_update_ = updates_[identity].back();
      r = handler_.Update(identity, request.content_format, body,
                          request.payload.size(), now_ms_);
    } else {
      r = handler_.StatusOf(identity);
    }
    CoapResponse response;
    response.code = r.code;
    response.content_format = r.content_format;
    if (r.body.size() > out.size()) {
      response.status = Status::ResourceExhausted();
      return response;
    }
    response.size = r.body.size();
    std::memcpy(out.data(), r.body.data(), response.size);
    return response;
  }

  uint64_t ResourceVersion(const char*, const char*) override {
    return static_cast<uint64_t>(engine_.round_id());
  }

  // The handler's clock for the requests that follow.
  void set_now_ms(int64_t now) { now_ms_ = now; }
  // Every update body `identity` sent, in order.
  const std::vector<std::vector<uint8_t>>& updates(const std::string& id) {
    return updates_[id];
  }
  // The last update body of any device.
  const std::vector<uint8_t>& last_update() const { return last_update_; }

 private:
  RequestHandler& handler_;
  rounds::RoundEngine& engine_;
  int64_t now_ms_ = 0;
  std::map<std::string, std::vector<std::vector<uint8_t>>> updates_;
  std::vector<uint8_t> last_update_;
};

}  // namespace edgeadmm::server
