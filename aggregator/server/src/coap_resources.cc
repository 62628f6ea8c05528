// The daemon's CoAP resources (docs/protocol.md) as libcoap handlers:
// each request is admitted once (RequestBudget, then RequestShape), then
// answered by the RequestHandler.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "coap_server_impl.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/server/request_shape.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::server {

struct CoapResources {
  // PDU ownership (libcoap 4.3.1, server side): the daemon never creates or
  // frees a PDU. libcoap owns the request and the response it passes to a
  // handler, sends the response when the handler returns, and keeps a
  // confirmable one (an Observe notification) in its retransmission queue
  // until it is acknowledged or the session ends. A body handed to
  // coap_add_data_large_response stays ours until libcoap calls Release
  // (on every path, also on failure and when the session is freed). Server
  // sessions are freed by libcoap (idle timeout, coap_free_context), never
  // released by us; the janitor only disconnects them, which ends their
  // queued messages (the client side's rule: coap_dtls_transport.cc).
  // `handler` under the server's state lock (Impl::state): the shards'
  // passes may run on several threads.
  template <coap_method_handler_t handler>
  static void Locked(coap_resource_t* resource, coap_session_t* session,
                     const coap_pdu_t* request, const coap_string_t* query,
                     coap_pdu_t* response) {
    const StateLock lock(ServerOf(session)->impl_->state);
    handler(resource, session, request, query, response);
  }

  static void Release(coap_session_t*, void* app_ptr) {
    delete static_cast<std::vector<uint8_t>*>(app_ptr);
  }

  static void Send(coap_resource_t* resource, coap_session_t* session,
                   const coap_pdu_t* request, const coap_string_t* query,
                   coap_pdu_t* response, Response r) {
    coap_pdu_set_code(response, static_cast<coap_pdu_code_t>(r.code));
    const coap_str_const_t* path = coap_resource_get_uri_path(resource);
    ServerOf(session)->impl_->metrics.CountResponse(
        path != nullptr
            ? std::string_view(reinterpret_cast<const char*>(path->s),
                               path->length)
            : std::string_view(),
        r.code);
    if (r.size1 != 0) {
      uint8_t size1[4];
      coap_add_option(response, COAP_OPTION_SIZE1,
                      coap_encode_var_safe(size1, sizeof(size1), r.size1),
                      size1);
    }
    if (r.body.empty()) {
      if (r.max_age_seconds >= 0) {
        uint8_t max_age[4];
        coap_add_option(
            response, COAP_OPTION_MAXAGE,
            coap_encode_var_safe(max_age, sizeof(max_age),
                                 static_cast<unsigned>(r.max_age_seconds)),
            max_age);
      }
      return;
    }
    auto* copy = new std::vector<uint8_t>(std::move(r.body));
    coap_add_data_large_response(resource, session, request, response, query,
                                 r.content_format, r.max_age_seconds, 0,
                                 copy->size(), copy->data(), &Release, copy);
  }

  // A session whose device was disabled, removed or re-keyed since its
  // handshake, or which a newer session of the same device superseded, gets
  // 4.03 "session-revoked" on every resource, from the first request after
  // the CLI's commit or the newer handshake (the next tick closes it).
  static bool Revoked(coap_session_t* session) {
    CoapServer* s = ServerOf(session);
    if (s->impl_->revocations.Superseded(session)) return true;
    return s->impl_->revocations.Refuses(
        session, [s](std::string_view id, const std::vector<uint8_t>& key) {
          return s->SessionStillValid(id, key);
        });
  }
  static Response RevokedResponse() {
    return ErrorResponse(Status::PermissionDenied(), "session-revoked", 0, 0);
  }

  // Whether `request` is a Block1 block past the first: charged to the
  // budget only if it does not continue an upload (AddBlock).
  static bool IsBlock1Continuation(const coap_pdu_t* request) {
    coap_opt_iterator_t it;
    const coap_opt_t* block1 =
        coap_check_option(request, COAP_OPTION_BLOCK1, &it);
    return block1 != nullptr &&
           (coap_decode_var_bytes(coap_opt_value(block1),
                                  coap_opt_length(block1)) >>
            4) != 0;
  }

  static std::vector<RequestOption> OptionsOf(const coap_pdu_t* request) {
    std::vector<RequestOption> options;
    coap_opt_iterator_t it;
    if (coap_option_iterator_init(request, &it, COAP_OPT_ALL) == nullptr) {
      return options;
    }
    while (const coap_opt_t* option = coap_option_next(&it)) {
      const uint8_t* value = coap_opt_value(option);
      options.push_back(RequestOption{
          it.number,
          std::vector<uint8_t>(value, value + coap_opt_length(option))});
    }
    return options;
  }

  // Every request once, before it is served: its identity's budget
  // (RequestBudget), its shape (RequestShape), its session's standing. The
  // answer when it is refused.
  static std::optional<Response> Refusal(coap_session_t* session,
                                         const coap_pdu_t* request,
                                         Resource resource) {
    CoapServer* s = ServerOf(session);
    if (!IsBlock1Continuation(request)) {
      const int wait = s->impl_->budget.Take(
          IdentityOf(session), static_cast<int64_t>(posix::MonotonicMs()));
      if (wait > 0) {
        Response r = ErrorResponse(Status::ResourceExhausted(),
                                   "request budget spent", 0, 0);
        r.max_age_seconds = wait;
        return r;
      }
    }
    size_t length = 0;
    const uint8_t* data = nullptr;
    if (!coap_get_data(request, &length, &data)) length = 0;
    const ShapeVerdict shape =
        CheckRequestShape(resource, OptionsOf(request), length, s->port_);
    if (shape.code != 0) {
      Response r = ErrorResponse(Status::InvalidArgument(), shape.reason, 0, 0);
      r.code = shape.code;
      return r;
    }
    if (Revoked(session)) return RevokedResponse();
    return std::nullopt;
  }

  // Whether libcoap calls the task handler for a notification: it has put
  // the Observe option in the response, whose type is CON or NON. A request
  // (even one registering) is answered with an ACK, except a non-confirmable
  // registration, which this therefore also counts (its answer is 2.03).
  static bool IsNotification(const coap_pdu_t* response) {
    coap_opt_iterator_t it;
    return coap_pdu_get_type(response) != COAP_MESSAGE_ACK &&
           coap_check_option(response, COAP_OPTION_OBSERVE, &it) != nullptr;
  }

  // The Uri-Query (a job selector, RequestHandler), empty if none.
  static std::string_view QueryOf(const coap_string_t* query) {
    return query == nullptr
               ? std::string_view()
               : std::string_view(reinterpret_cast<const char*>(query->s),
                                  query->length);
  }

  // A task request or notification for the job `selector` picks ("job=<name>",
  // or empty: the device's), on v1/task (kTask) or a job's own task
  // resource (kJobTask).
  static void ServeTask(coap_resource_t* resource, coap_session_t* session,
                        const coap_pdu_t* request, const coap_string_t* query,
                        coap_pdu_t* response, Resource kind,
                        std::string_view selector) {
    CoapServer* s = ServerOf(session);
    // A notification is the daemon's, not a request: no budget, no shape
    // (the registration it renews passed both).
    const bool notification = IsNotification(response);
    std::optional<Response> refused =
        notification ? std::nullopt : Refusal(session, request, kind);
    if (notification && Revoked(session)) refused = RevokedResponse();
    Response answer =
        refused ? std::move(*refused)
                : s->handler_.Task(IdentityOf(session), s->NowMs(), selector);
    if (answer.code >= wire::CoapCode(3, 0) && notification) {
      // libcoap 4.3.1 frees the observer of a notification answered 4.xx or
      // 5.xx and then reads it to send that answer: a use after free that
      // crashed the daemon (fixed upstream in 4.3.2, commit 64de2ba4). A
      // notification the daemon cannot serve (superseded or revoked session,
      // device outside the running job, a job no longer loaded) is 2.03
      // without a task instead: the device registers again and gets the
      // error as a response.
      answer = Response{};
      answer.code = wire::kCoapValid;
    }
    Send(resource, session, request, query, response, std::move(answer));
  }

  static void GetTask(coap_resource_t* resource, coap_session_t* session,
                      const coap_pdu_t* request, const coap_string_t* query,
                      coap_pdu_t* response) {
    ServeTask(resource, session, request, query, response, Resource::kTask,
              QueryOf(query));
  }

  // v1/task/<name> (AddJobTaskResource): the task of the job the path
  // names, as v1/task?job=<name> but observed on its own.
  static void GetJobTask(coap_resource_t* resource, coap_session_t* session,
                         const coap_pdu_t* request, const coap_string_t* query,
                         coap_pdu_t* response) {
    const coap_str_const_t* path = coap_resource_get_uri_path(resource);
    const std::string_view name =
        std::string_view(reinterpret_cast<const char*>(path->s), path->length)
            .substr(sizeof(wire::kTaskPath));
    const std::string selector = wire::kJobQueryKey + std::string(name);
    ServeTask(resource, session, request, query, response, Resource::kJobTask,
              selector);
  }

  // One block of a Block1 request body (RFC 7959) into the session's
  // partial body, for `resource` (kPhase of v1/secagg, 0 for v1/update),
  // bounded by `limit` bytes: false if the request is answered here (2.31
  // for the next block, or a refusal); true with the whole body in `body`
  // after the last block. Shared by every resource that takes Block1.
  static bool AddBlock(CoapServer& s, coap_session_t* session,
                       const coap_pdu_t* request, const coap_opt_t* block1,
                       const uint8_t* data, size_t length, int resource,
                       size_t limit, Response& answer,
                       std::vector<uint8_t>& body) {
    UploadAssembler::Block block =
        UploadAssembler::Read(request, block1, data, length);
    block.resource = resource;
    const auto now = static_cast<int64_t>(posix::MonotonicMs());
    const UploadAssembler::Step step =
        s.impl_->uploads.Add(session, block, limit, now, body);
    if (block.offset != 0 && step != UploadAssembler::Step::kContinue &&
        step != UploadAssembler::Step::kComplete) {
      s.impl_->budget.Debit(IdentityOf(session), now);
    }
    switch (step) {
      case UploadAssembler::Step::kComplete:
        return true;
      case UploadAssembler::Step::kContinue:
        answer.code = wire::kCoapContinue;
        return false;
      case UploadAssembler::Step::kTooLarge:
        answer = ErrorResponse(Status::OutOfRange(),
                               resource == 0 ? "body larger than the job's"
                                             : "body larger than the phase's",
                               0, 0);
        answer.size1 = static_cast<uint32_t>(limit);
        return false;
      case UploadAssembler::Step::kIncomplete:
        answer =
            ErrorResponse(Status::DataLoss(), "block out of sequence", 0, 0);
        answer.code = wire::kCoapRequestEntityIncomplete;
        return false;
      case UploadAssembler::Step::kBusy:
        answer = ErrorResponse(Status::Unavailable(),
                               "too many uploads in progress", 0, 0);
        return false;
      case UploadAssembler::Step::kBadOption:
        answer =
            ErrorResponse(Status::InvalidArgument(), "Block1 repeated", 0, 0);
        answer.code = wire::kCoapBadOption;
        return false;
      case UploadAssembler::Step::kBadBlock:
        answer = ErrorResponse(Status::InvalidArgument(),
                               "payload larger than its block", 0, 0);
        return false;
    }
    return false;
  }

  static void PostUpdate(coap_resource_t* resource, coap_session_t* session,
                         const coap_pdu_t* request, const coap_string_t* query,
                         coap_pdu_t* response) {
    CoapServer* s = ServerOf(session);
    if (std::optional<Response> refused =
            Refusal(session, request, Resource::kUpdate)) {
      Send(resource, session, request, query, response, std::move(*refused));
      return;
    }
    size_t length = 0;
    const uint8_t* data = nullptr;
    if (!coap_get_data(request, &length, &data)) {
      length = 0;
      data = nullptr;
    }
    std::optional<uint16_t> format;
    coap_opt_iterator_t it;
    if (coap_opt_t* opt =
            coap_check_option(request, COAP_OPTION_CONTENT_FORMAT, &it)) {
      format = static_cast<uint16_t>(
          coap_decode_var_bytes(coap_opt_value(opt), coap_opt_length(opt)));
    }
    std::vector<uint8_t> body;
    if (const coap_opt_t* block1 =
            coap_check_option(request, COAP_OPTION_BLOCK1, &it);
        block1 != nullptr && s->handler_.MaxUpdateBody() != 0) {
      Response answer;
      if (!AddBlock(*s, session, request, block1, data, length, 0,
                    s->handler_.MaxUpdateBody(), answer, body)) {
        Send(resource, session, request, query, response, std::move(answer));
        return;
      }
      data = body.data();
      length = body.size();
    }
    Send(resource, session, request, query, response,
         s->handler_.Update(IdentityOf(session), format, data, length,
                            s->NowMs()));
    s->NotifyTaskObservers();
  }

  static void GetModel(coap_resource_t* resource, coap_session_t* session,
                       const coap_pdu_t* request, const coap_string_t* query,
                       coap_pdu_t* response) {
    std::optional<Response> refused =
        Refusal(session, request, Resource::kModel);
    Send(resource, session, request, query, response,
         refused ? std::move(*refused)
                 : ServerOf(session)->handler_.Model(IdentityOf(session),
                                                     QueryOf(query)));
  }

  static void GetStatus(coap_resource_t* resource, coap_session_t* session,
                        const coap_pdu_t* request, const coap_string_t* query,
                        coap_pdu_t* response) {
    std::optional<Response> refused =
        Refusal(session, request, Resource::kStatus);
    Send(resource, session, request, query, response,
         refused ? std::move(*refused)
                 : ServerOf(session)->handler_.StatusOf(IdentityOf(session),
                                                        QueryOf(query)));
  }
};

// The round id of phase 0's `round=<id>` query: 0 without a query, nullopt
// for another query or an id that is not 1..2^64-1 in decimal without
// leading zeros.
std::optional<uint64_t> RoundQuery(const coap_string_t* query) {
  constexpr std::string_view kKey = kSecAggRoundQueryKey;
  if (query == nullptr) return 0;
  const std::string_view whole(reinterpret_cast<const char*>(query->s),
                               query->length);
  if (whole.substr(0, kKey.size()) != kKey) return std::nullopt;
  const std::string_view digits = whole.substr(kKey.size());
  if (digits.empty() || digits[0] < '1' || digits[0] > '9') return std::nullopt;
  uint64_t id = 0;
  const char* end = digits.data() + digits.size();
  const auto [stop, error] = std::from_chars(digits.data(), end, id);
  if (error != std::errc() || stop != end) return std::nullopt;
  return id;
}

// GET v1/secagg/round (SecAggRounds::Round): phase 0, no body.
void GetSecAggRound(coap_resource_t* resource, coap_session_t* session,
                    const coap_pdu_t* request, const coap_string_t* query,
                    coap_pdu_t* response) {
  std::optional<Response> refused =
      CoapResources::Refusal(session, request, Resource::kSecAggRound);
  const std::optional<uint64_t> round =
      refused ? std::nullopt : RoundQuery(query);
  if (!refused && !round) {
    refused = ErrorResponse(Status::InvalidArgument(),
                            "Uri-Query must be round=<decimal round id>", 0, 0);
  }
  CoapResources::Send(resource, session, request, query, response,
                      refused ? std::move(*refused)
                              : ServerOf(session)->secagg_rounds().Round(
                                    IdentityOf(session), *round));
}

// Sends a phase's answer. An error answer to a request carrying Block2 (a
// later block of an answer libcoap no longer holds) goes without body:
// libcoap would answer the body's missing block with 4.00 instead.
void SendPhaseAnswer(coap_resource_t* resource, coap_session_t* session,
                     const coap_pdu_t* request, const coap_string_t* query,
                     coap_pdu_t* response, Response r) {
  coap_opt_iterator_t it;
  if (r.code >= wire::CoapCode(4, 0) &&
      coap_check_option(request, COAP_OPTION_BLOCK2, &it) != nullptr) {
    r.body.clear();
  }
  CoapResources::Send(resource, session, request, query, response,
                      std::move(r));
}

// POST v1/secagg/<phase> (SecAggService): a body above one datagram comes
// with Block1 and is assembled as v1/update's (AddBlock), bounded by the
// phase's largest frame; the service sees it only whole.
template <int kPhase>
void PostSecAgg(coap_resource_t* resource, coap_session_t* session,
                const coap_pdu_t* request, const coap_string_t* query,
                coap_pdu_t* response) {
  CoapServer* s = ServerOf(session);
  if (std::optional<Response> refused =
          CoapResources::Refusal(session, request, Resource::kSecAgg)) {
    SendPhaseAnswer(resource, session, request, query, response,
                    std::move(*refused));
    return;
  }
  coap_opt_iterator_t it;
  const coap_opt_t* format =
      coap_check_option(request, COAP_OPTION_CONTENT_FORMAT, &it);
  if (format == nullptr ||
      coap_decode_var_bytes(coap_opt_value(format), coap_opt_length(format)) !=
          kSecAggFrameFormat) {
    Response r = ErrorResponse(Status::InvalidArgument(),
                               "content-format must be 65104", 0, 0);
    r.code = wire::kCoapUnsupportedContentFormat;
    SendPhaseAnswer(resource, session, request, query, response, std::move(r));
    return;
  }
  size_t length = 0;
  const uint8_t* data = nullptr;
  if (!coap_get_data(request, &length, &data)) {
    length = 0;
    data = nullptr;
  }
  std::vector<uint8_t> body;
  const size_t limit = s->secagg_rounds().MaxBody(kPhase);
  // Without a round (limit 0) the service refuses whatever comes (4.04).
  if (const coap_opt_t* block1 =
          coap_check_option(request, COAP_OPTION_BLOCK1, &it);
      block1 != nullptr && limit != 0) {
    Response answer;
    if (!CoapResources::AddBlock(*s, session, request, block1, data, length,
                                 kPhase, limit, answer, body)) {
      SendPhaseAnswer(resource, session, request, query, response,
                      std::move(answer));
      return;
    }
    data = body.data();
    length = body.size();
  }
  SendPhaseAnswer(resource, session, request, query, response,
                  s->secagg_rounds().Handle(kPhase, IdentityOf(session), data,
                                            length, s->NowMs()));
}

namespace {

// The flags of an observable task resource.
int TaskResourceFlags(const ServerOptions& options) {
  return options.non_confirmable_notifications
             ? COAP_RESOURCE_FLAGS_NOTIFY_NON_ALWAYS
             : 0;
}

}  // namespace

coap_resource_t* AddResources(coap_context_t* context,
                              const ServerOptions& options) {
  struct ResourceSpec {
    const char* path;
    coap_request_t method;
    coap_method_handler_t handler;
    bool task;  // the observable v1/task
  };
  using R = CoapResources;
  const ResourceSpec specs[] = {
      {wire::kTaskPath, COAP_REQUEST_GET, &R::Locked<&R::GetTask>, true},
      {wire::kUpdatePath, COAP_REQUEST_POST, &R::Locked<&R::PostUpdate>,
       false},
      {wire::kModelPath, COAP_REQUEST_GET, &R::Locked<&R::GetModel>, false},
      {wire::kStatusPath, COAP_REQUEST_GET, &R::Locked<&R::GetStatus>, false},
      {kSecAggRoundPath, COAP_REQUEST_GET, &R::Locked<&GetSecAggRound>, false},
      {kSecAggPaths[0], COAP_REQUEST_POST, &R::Locked<&PostSecAgg<1>>, false},
      {kSecAggPaths[1], COAP_REQUEST_POST, &R::Locked<&PostSecAgg<2>>, false},
      {kSecAggPaths[2], COAP_REQUEST_POST, &R::Locked<&PostSecAgg<3>>, false},
      {kSecAggPaths[3], COAP_REQUEST_POST, &R::Locked<&PostSecAgg<4>>, false},
  };
  coap_resource_t* task_resource = nullptr;
  for (const ResourceSpec& spec : specs) {
    const bool task = spec.task;
    coap_resource_t* r = coap_resource_init(
        coap_make_str_const(spec.path), task ? TaskResourceFlags(options) : 0);
    coap_register_handler(r, spec.method, spec.handler);
    coap_add_resource(context, r);
    if (task) {
      coap_resource_set_get_observable(r, 1);
      task_resource = r;
    }
  }
  return task_resource;
}

void AddJobTaskResource(CoapShard& shard, const ServerOptions& options,
                        const std::string& job) {
  if (shard.job_tasks.count(job) != 0) return;
  const std::string path = std::string(wire::kTaskPath) + "/" + job;
  coap_resource_t* r = coap_resource_init(
      coap_new_str_const(reinterpret_cast<const uint8_t*>(path.data()),
                         path.size()),
      TaskResourceFlags(options) | COAP_RESOURCE_FLAGS_RELEASE_URI);
  coap_register_handler(r, COAP_REQUEST_GET,
                        &CoapResources::Locked<&CoapResources::GetJobTask>);
  coap_resource_set_get_observable(r, 1);
  coap_add_resource(shard.context, r);
  shard.job_tasks.emplace(job, r);
}

}  // namespace edgeadmm::server
