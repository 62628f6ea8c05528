#include "edgeadmm/server/request_handler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/server/job_router.h"
#include "edgeadmm/server/upload_spread.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/task_params.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/released_model.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm::server {
namespace {

using rounds::UploadVerdict;

// Encodes a message with `encode(out_span)` into a response body.
template <typename Encode>
Response Encoded(uint8_t code, uint16_t format, size_t max_bytes,
                 Encode&& encode) {
  Response r;
  r.code = code;
  r.content_format = format;
  r.body.resize(max_bytes);
  const StatusWithSize written = encode(
      ByteSpan(reinterpret_cast<std::byte*>(r.body.data()), r.body.size()));
  if (!written.ok()) {
    // Our own message failed validation: a bug. No body (no recursion).
    return Response{wire::kCoapInternalServerError, 0, {}};
  }
  r.body.resize(written.size());
  return r;
}

Response Unauthenticated() {
  return ErrorResponse(Status::Unauthenticated(), "no DTLS PSK identity", 0, 0);
}

Response NoJob() {
  return ErrorResponse(Status::NotFound(), "no job is loaded", 0, 0);
}

// The wire's label of a job policy (same order, shifted past UNSPECIFIED).
edgeadmm_wire_PrivacyPolicy WirePolicy(privacy::Policy policy) {
  switch (policy) {
    case privacy::Policy::kParticipation:
      return edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_PARTICIPATION;
    case privacy::Policy::kTrustedAggregator:
      return edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_TRUSTED_AGGREGATOR;
    case privacy::Policy::kLocalDp:
      return edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_LOCAL_DP;
    case privacy::Policy::kParticipationOwnNoise:
      return edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_PARTICIPATION_OWN_NOISE;
    case privacy::Policy::kSecureAggregation:
      return edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_SECURE_AGGREGATION;
  }
  return edgeadmm_wire_PrivacyPolicy_PRIVACY_POLICY_UNSPECIFIED;
}

edgeadmm_wire_RdpConversion WireConversion(privacy::Conversion conversion) {
  switch (conversion) {
    case privacy::Conversion::kClassic:
      return edgeadmm_wire_RdpConversion_RDP_CONVERSION_CLASSIC;
    case privacy::Conversion::kImproved:
      return edgeadmm_wire_RdpConversion_RDP_CONVERSION_IMPROVED;
    case privacy::Conversion::kPld:
      return edgeadmm_wire_RdpConversion_RDP_CONVERSION_PLD;
  }
  return edgeadmm_wire_RdpConversion_RDP_CONVERSION_UNSPECIFIED;
}

// Why `id` gets nothing from the job, or null: not enrolled in it, or
// disabled/removed in the registry since (checked on every request, so a
// revoked device's open session gets no task, model or status).
const char* Refusal(const rounds::RoundEngine& engine, std::string_view id) {
  if (!std::binary_search(engine.devices().begin(), engine.devices().end(),
                          std::string(id))) {
    return "not enrolled in the job";
  }
  if (!engine.DeviceEnabled(id)) return "device-disabled";
  return nullptr;
}

// Null when an upload's algorithm_extra suits the job's algorithm (its
// UploadExtra's checks; none at all for an algorithm without one), else
// why not.
const char* ExtraRefusal(const algorithms::Algorithm& algorithm,
                         const jobs::JobConfig& config, int64_t iteration,
                         const std::vector<uint8_t>& extra) {
  const algorithms::UploadExtra* unit = algorithm.upload_extra();
  if (unit == nullptr) {
    return extra.empty() ? nullptr
                         : "algorithm_extra not used by the job's algorithm";
  }
  return unit->Refusal(config, iteration, extra);
}

// RoundTask.secure_aggregation: a secure-aggregation round member's
// encoding (docs/protocol.md, "Secure aggregation in a job").
void FillSecureAggregation(const rounds::Task& task,
                           edgeadmm_wire_RoundTask& h) {
  h.has_secure_aggregation = true;
  edgeadmm_wire_SecureAggregationPlan& s = h.secure_aggregation;
  s.bits = task.ddg.bits;
  s.gamma = task.ddg.gamma;
  s.sigma2_num = task.ddg.sigma2_num;
  s.sigma2_den = task.ddg.sigma2_den;
  s.beta = task.ddg.beta;
  s.clip = task.ddg.clip;
  static_assert(sizeof(s.rotation_seed) == sizeof(task.rotation_seed), "");
  std::memcpy(s.rotation_seed, task.rotation_seed.data(),
              sizeof(s.rotation_seed));
}

}  // namespace

Status StatusForVerdict(UploadVerdict verdict) {
  switch (verdict) {
    case UploadVerdict::kAccepted:
    case UploadVerdict::kDuplicate:
      return Status::Ok();
    case UploadVerdict::kIdentityMismatch:
    case UploadVerdict::kUnknownDevice:
    case UploadVerdict::kDeviceDisabled:
    case UploadVerdict::kNotInCohort:
      return Status::PermissionDenied();
    case UploadVerdict::kWrongJob:
      return Status::NotFound();
    case UploadVerdict::kStaleRound:
    case UploadVerdict::kJobNotRunning:
    case UploadVerdict::kSecureAggregationOnly:
      return Status::FailedPrecondition();
    case UploadVerdict::kConflictingDuplicate:
      return Status::AlreadyExists();
    case UploadVerdict::kMalformed:
    case UploadVerdict::kNormAboveBound:
    case UploadVerdict::kSumAboveBound:
      return Status::InvalidArgument();
    case UploadVerdict::kStoreUnavailable:
      return Status::Unavailable();
  }
  return Status::Internal();
}

Response ErrorResponse(Status status, const char* message, uint64_t job_id,
                       uint64_t round_id) {
  const edgeadmm_wire_StatusBody body =
      wire::MakeStatusBody(status, message, job_id, round_id);
  Response r =
      Encoded(wire::CoapCodeFromStatus(status), wire::kStatusBodyFormat,
              wire::kMaxStatusBodyBytes,
              [&](ByteSpan out) { return wire::EncodeStatusBody(body, out); });
  r.code = wire::CoapCodeFromStatus(status);
  return r;
}

Result<rounds::RoundEngine*> RequestHandler::Route(std::string_view identity,
                                                   std::string_view query,
                                                   Response* refusal) const {
  if (identity.empty()) {
    *refusal = Unauthenticated();
    return Status::Unauthenticated();
  }
  const Result<std::optional<std::string>> name = JobRouter::ParseQuery(query);
  if (!name.ok()) {
    *refusal = ErrorResponse(Status::InvalidArgument(),
                             "Uri-Query must be job=<job name>", 0, 0);
    return name.status();
  }
  rounds::RoundEngine* engine =
      name->has_value() ? router_.ByName(**name) : router_.ForDevice(identity);
  if (engine == nullptr) {
    *refusal = NoJob();
    return Status::NotFound();
  }
  if (const char* why = Refusal(*engine, identity)) {
    *refusal = ErrorResponse(Status::PermissionDenied(), why, 0, 0);
    return Status::PermissionDenied();
  }
  return engine;
}

Response RequestHandler::Task(std::string_view identity, int64_t now_ms,
                              std::string_view query) const {
  Response refusal;
  const Result<rounds::RoundEngine*> routed = Route(identity, query, &refusal);
  if (!routed.ok()) return refusal;
  rounds::RoundEngine* const engine = *routed;
  const jobs::JobConfig& c = engine->job().config;
  const rounds::Task task = engine->TaskFor(identity);
  edgeadmm_wire_RoundTask h = edgeadmm_wire_RoundTask_init_zero;
  h.job_id = static_cast<uint64_t>(task.job_id);
  h.round_id = static_cast<uint64_t>(task.round_id);
  h.heartbeat_ms = task_heartbeat_ms_;
  switch (task.kind) {
    case rounds::Task::Kind::kTrain:
      h.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
      break;
    case rounds::Task::Kind::kWait:
      h.role = edgeadmm_wire_Role_ROLE_IDLE;
      break;
    case rounds::Task::Kind::kFinished:
      h.role = edgeadmm_wire_Role_ROLE_DONE;
      break;
  }
  h.loss = c.loss == jobs::Loss::kLogistic ? edgeadmm_wire_Loss_LOSS_LOGISTIC
                                           : edgeadmm_wire_Loss_LOSS_SQUARED;
  // l1 and l2 go to the devices (to report with, or to apply where the
  // algorithm's step does). Elastic net is applied on the server only, so
  // it is announced as none (an algorithm whose devices apply the
  // regularizer refuses it in its Validate).
  h.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_NONE;
  if (c.regularizer.kind == RegularizerKind::kL1) {
    h.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_L1;
    h.regularizer_weight = c.regularizer.l1;
  } else if (c.regularizer.kind == RegularizerKind::kL2) {
    h.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_L2;
    h.regularizer_weight = c.regularizer.l2;
  }
  const bool trusted = c.policy == privacy::Policy::kTrustedAggregator;
  h.noise_placement =
      trusted ? edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_AGGREGATOR
              : edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE;
  // The algorithm and its params oneof (docs/protocol.md).
  const algorithms::Algorithm& algorithm = algorithms::Get(c.algorithm);
  algorithm.FillTask(c, engine->job().n, task.iteration, h);
  const algorithms::NodeTasks* node_tasks = algorithm.node_tasks();
  if (task.node >= 0 && node_tasks != nullptr && node_tasks->PerNodeTasks(c)) {
    node_tasks->FillNodeTask(c, task.node, h);  // its own S_i and V_i
  }
  if (task.secure) FillSecureAggregation(task, h);
  // The task vector is the model, then the algorithm's auxiliary vector
  // (Algorithm::TaskAuxiliaryLength; most have none).
  const size_t aux_length =
      static_cast<size_t>(algorithm.TaskAuxiliaryLength(c));
  const size_t model_length =
      static_cast<size_t>(algorithm.ModelLength(c)) - aux_length;
  h.dimension = static_cast<uint32_t>(model_length);
  if (task.deadline_ms > now_ms) {
    h.deadline_ms = static_cast<uint32_t>(
        std::min<int64_t>(task.deadline_ms - now_ms, UINT32_MAX));
  }
  if (task.kind == rounds::Task::Kind::kTrain) {
    // A secure round's spread (its devices' waits before phase 0) falls in
    // phase 1: at most a quarter of a phase's time too.
    const uint32_t time_left = task.secure
                                   ? SecurePhaseSpreadWindowMs(c, h.deadline_ms)
                                   : h.deadline_ms;
    h.upload_spread_ms =
        UploadSpreadMs(c, engine->job().n, upload_spread_us_, time_left);
  }
  const bool send_model = task.kind == rounds::Task::Kind::kTrain &&
                          task.z.size() == model_length + aux_length;
  const Span<const Real> model =
      send_model ? Span<const Real>(task.z.data(), model_length)
                 : Span<const Real>();
  const Span<const Real> auxiliary =
      send_model && aux_length > 0
          ? Span<const Real>(task.z.data() + model_length, aux_length)
          : Span<const Real>();
  return Encoded(wire::kCoapContent, wire::kRoundTaskFormat,
                 wire::MaxRoundTaskBytes(model_length), [&](ByteSpan out) {
                   // The codec checks the generic fields; the algorithm's
                   // device unit its params (as the device will).
                   const Status params = CheckTaskParams(h);
                   if (!params.ok()) return StatusWithSize(params, 0);
                   return wire::EncodeRoundTask(h, model, auxiliary, out);
                 });
}

size_t RequestHandler::MaxUpdateBodyOf(const rounds::RoundEngine& engine) {
  return wire::MaxUpdateBytes(
      static_cast<size_t>(algorithms::Get(engine.job().config.algorithm)
                              .MaxUploadLength(engine.job().config)));
}

size_t RequestHandler::MaxUpdateBody() const {
  size_t most = 0;
  for (const rounds::RoundEngine* engine : router_.engines()) {
    most = std::max(most, MaxUpdateBodyOf(*engine));
  }
  return most;
}

rounds::RoundEngine* RequestHandler::UploadEngine(const uint8_t* body,
                                                  size_t size,
                                                  Response* refusal) const {
  // With one job loaded, that job judges the upload (a wrong or unreadable
  // job_id gets its own verdict there).
  if (router_.engines().size() == 1) return router_.engines().front();
  const std::optional<uint64_t> named = PeekUpdateJobId(body, size);
  if (!named.has_value()) {
    *refusal = ErrorResponse(Status::InvalidArgument(),
                             "update does not decode", 0, 0);
    return nullptr;
  }
  rounds::RoundEngine* engine = router_.ByJobId(static_cast<int64_t>(*named));
  if (engine == nullptr) {
    // As for an upload to a stopped job.
    *refusal = ErrorResponse(
        StatusForVerdict(UploadVerdict::kJobNotRunning),
        rounds::UploadVerdictName(UploadVerdict::kJobNotRunning), *named, 0);
  }
  return engine;
}

Response RequestHandler::Update(std::string_view identity,
                                std::optional<uint16_t> content_format,
                                const uint8_t* body, size_t size,
                                int64_t now_ms) {
  if (identity.empty()) return Unauthenticated();
  if (router_.empty()) return NoJob();
  Response refusal;
  rounds::RoundEngine* const engine = UploadEngine(body, size, &refusal);
  if (engine == nullptr) return refusal;
  const uint64_t job_id = static_cast<uint64_t>(engine->job().id);
  const uint64_t round_id = static_cast<uint64_t>(engine->round_id());
  // Required: a body without the option is not taken as an Update.
  if (!content_format.has_value() || *content_format != wire::kUpdateFormat) {
    Response r =
        ErrorResponse(Status::InvalidArgument(), "content-format must be 65101",
                      job_id, round_id);
    r.code = wire::kCoapUnsupportedContentFormat;
    return r;
  }
  // The upload's length and kind in the open round (Algorithm::
  // UploadLengthAt, UpdateKindAt: p, or the algorithm's own per phase).
  const algorithms::Algorithm& algorithm =
      algorithms::Get(engine->job().config.algorithm);
  const size_t p = static_cast<size_t>(
      algorithm.UploadLengthAt(engine->job().config, engine->iteration()));
  if (size > MaxUpdateBodyOf(*engine)) {
    Response r = ErrorResponse(Status::OutOfRange(),
                               "body larger than the job's", job_id, round_id);
    r.size1 = static_cast<uint32_t>(MaxUpdateBodyOf(*engine));
    return r;
  }
  std::vector<Real> values(p);
  wire::DecodedUpdate decoded{};
  const Status status = wire::DecodeUpdate(
      ConstByteSpan(reinterpret_cast<const std::byte*>(body), size),
      Span<Real>(values.data(), values.size()), decoded);
  if (!status.ok()) {
    return ErrorResponse(status, "update does not decode", job_id, round_id);
  }
  if (decoded.header.dimension != p) {
    return ErrorResponse(Status::InvalidArgument(),
                         "dimension differs from the job's", job_id, round_id);
  }
  if (decoded.header.kind !=
      algorithm.UpdateKindAt(engine->job().config, engine->iteration())) {
    return ErrorResponse(Status::InvalidArgument(),
                         "update kind does not fit the algorithm", job_id,
                         round_id);
  }
  // The algorithm's own bytes (bounded at decode), checked by its unit;
  // opaque from here on.
  std::vector<uint8_t> extra(decoded.header.algorithm_extra.bytes,
                             decoded.header.algorithm_extra.bytes +
                                 decoded.header.algorithm_extra.size);
  if (const char* why = ExtraRefusal(algorithm, engine->job().config,
                                     engine->iteration(), extra)) {
    return ErrorResponse(Status::InvalidArgument(), why, job_id, round_id);
  }
  rounds::Upload upload;
  upload.extra = std::move(extra);
  upload.device_id = decoded.header.device_id;
  upload.job_id = static_cast<int64_t>(decoded.header.job_id);
  upload.round_id = static_cast<int64_t>(decoded.header.round_id);
  upload.vector = store::EncodeFloats(
      std::vector<double>(decoded.vector.begin(), decoded.vector.end()));
  upload.fingerprint.assign(body, body + size);
  // The device's own ledger (validated at decode: ε finite >= 0, δ in
  // [0, 1), classic or improved), kept with a per-party charge.
  upload.ledger.present = true;
  upload.ledger.participations = decoded.header.ledger.participations;
  upload.ledger.epsilon = decoded.header.ledger.epsilon;
  upload.ledger.delta = decoded.header.ledger.delta;
  upload.ledger.conversion =
      decoded.header.ledger.conversion ==
              edgeadmm_wire_RdpConversion_RDP_CONVERSION_CLASSIC
          ? "classic"
          : "improved";
  const UploadVerdict verdict =
      engine->Submit(identity, std::move(upload), now_ms);
  const Status verdict_status = StatusForVerdict(verdict);
  if (!verdict_status.ok()) {
    Response refused = ErrorResponse(
        verdict_status, rounds::UploadVerdictName(verdict), job_id, round_id);
    // Not stored, not acknowledged: the device keeps its upload and retries.
    if (verdict == UploadVerdict::kStoreUnavailable) {
      refused.max_age_seconds = kStoreRetrySeconds;
    }
    return refused;
  }
  edgeadmm_wire_StatusBody receipt =
      wire::MakeStatusBody(Status::Ok(), rounds::UploadVerdictName(verdict),
                           decoded.header.job_id, decoded.header.round_id);
  receipt.duplicate = verdict == UploadVerdict::kDuplicate;
  return Encoded(
      wire::kCoapChanged, wire::kStatusBodyFormat, wire::kMaxStatusBodyBytes,
      [&](ByteSpan out) { return wire::EncodeStatusBody(receipt, out); });
}

Response RequestHandler::Model(std::string_view identity,
                               std::string_view query) const {
  Response refusal;
  const Result<rounds::RoundEngine*> routed = Route(identity, query, &refusal);
  if (!routed.ok()) return refusal;
  const rounds::RoundEngine* const engine = *routed;
  if (!algorithms::Get(engine->job().config.algorithm)
           .ReleasesModelToDevices()) {
    // The algorithm hands z out only in tasks (ReleasesModelToDevices;
    // docs/protocol.md).
    return ErrorResponse(Status::PermissionDenied(),
                         "z goes only to the walk's holder, in its task",
                         static_cast<uint64_t>(engine->job().id), 0);
  }
  if (engine->released_round_id() == 0) {
    return ErrorResponse(Status::NotFound(), "no model released yet",
                         static_cast<uint64_t>(engine->job().id), 0);
  }
  edgeadmm_wire_ReleasedModel h = edgeadmm_wire_ReleasedModel_init_zero;
  h.job_id = static_cast<uint64_t>(engine->job().id);
  h.round_id = static_cast<uint64_t>(engine->released_round_id());
  h.dimension = static_cast<uint32_t>(engine->model().z.size());
  // Under trusted-aggregator the count would reveal cohort membership that
  // the subsampled charge assumes secret: it is not released (0).
  if (engine->job().config.policy != privacy::Policy::kTrustedAggregator) {
    h.participants = static_cast<uint32_t>(engine->released_participants());
  }
  // σ = 0 has no finite guarantee; the wire needs a finite number, so the
  // largest double stands for "unbounded" (docs/aggregator.md).
  h.epsilon = std::isfinite(engine->central_epsilon())
                  ? engine->central_epsilon()
                  : std::numeric_limits<double>::max();
  h.delta = engine->job().config.delta;
  h.policy = WirePolicy(engine->job().config.policy);
  h.conversion = WireConversion(engine->conversion());
  const std::vector<double>& z = engine->model().z;
  return Encoded(wire::kCoapContent, wire::kReleasedModelFormat,
                 wire::MaxReleasedModelBytes(z.size()), [&](ByteSpan out) {
                   return wire::EncodeReleasedModel(
                       h, Span<const Real>(z.data(), z.size()), out);
                 });
}

Response RequestHandler::StatusOf(std::string_view identity,
                                  std::string_view query) const {
  Response refusal;
  const Result<rounds::RoundEngine*> routed = Route(identity, query, &refusal);
  if (!routed.ok()) return refusal;
  const rounds::RoundEngine* const engine = *routed;
  const edgeadmm_wire_StatusBody body = wire::MakeStatusBody(
      Status::Ok(), jobs::JobStateName(engine->job().state),
      static_cast<uint64_t>(engine->job().id),
      static_cast<uint64_t>(engine->round_id()));
  return Encoded(
      wire::kCoapContent, wire::kStatusBodyFormat, wire::kMaxStatusBodyBytes,
      [&](ByteSpan out) { return wire::EncodeStatusBody(body, out); });
}

}  // namespace edgeadmm::server
