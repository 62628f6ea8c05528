#include "edgeadmm/fake/fake_aggregator.h"

#include <cstring>

#include "edgeadmm/crc32.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"

namespace edgeadmm {
namespace {

uint64_t HashId(const char* id) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (const char* c = id; *c != '\0'; ++c) {
    h = (h ^ static_cast<uint8_t>(*c)) * 0x100000001b3ull;
  }
  return h;
}

bool ValidId(const char* id) {
  const size_t n = id == nullptr ? 0 : std::strlen(id);
  return n > 0 && n <= wire::kMaxDeviceIdLength;
}

}  // namespace

FakeAggregator::FakeAggregator(const FakeAggregatorConfig& config,
                               Span<FakeDeviceEntry> table, Span<Real> model,
                               Span<Real> u_sum, Span<Real> scratch)
    : config_(config),
      table_(table),
      model_(model),
      u_sum_(u_sum),
      scratch_(scratch),
      round_(config.first_round) {
  EDGEADMM_ASSERT(!table.empty() && !model.empty() &&
                  u_sum.size() == model.size() &&
                  scratch.size() >= model.size());
  for (FakeDeviceEntry& e : table_) e = FakeDeviceEntry{};
  for (Real& v : u_sum_) v = 0;
}

size_t FakeAggregator::Slot(const char* id) const {
  size_t i = static_cast<size_t>(HashId(id) % table_.size());
  while (table_[i].used && std::strcmp(table_[i].id, id) != 0) {
    i = (i + 1) % table_.size();
  }
  return i;
}

Status FakeAggregator::AddDevice(const char* id) {
  if (!ValidId(id)) return Status::InvalidArgument();
  if (4 * (devices_ + 1) > 3 * table_.size()) {
    return Status::ResourceExhausted();
  }
  FakeDeviceEntry& e = table_[Slot(id)];
  if (e.used) return Status::AlreadyExists();
  e = FakeDeviceEntry{};
  std::strncpy(e.id, id, sizeof(e.id) - 1);
  e.used = true;
  e.in_cohort = true;
  ++devices_;
  return Status::Ok();
}

FakeDeviceEntry* FakeAggregator::Find(const char* id) {
  if (!ValidId(id)) return nullptr;
  FakeDeviceEntry& e = table_[Slot(id)];
  return e.used ? &e : nullptr;
}

void FakeAggregator::AdvanceRound() {
  // Paper 002 Alg. 3 server step with r = 0: z = prox_{γ·0}(ū) = ū, the mean
  // of u over all n devices (not only this round's participants).
  const Real n = devices_ == 0 ? 1 : static_cast<Real>(devices_);
  for (size_t i = 0; i < model_.size(); ++i) model_[i] = u_sum_[i] / n;
  ++round_;
  ++version_;
  accepted_this_round_ = 0;
}

void FakeAggregator::StartNextJob() {
  ++config_.job_id;
  round_ = config_.first_round;
  finished_ = false;
  ++version_;
  accepted_this_round_ = 0;
  for (Real& v : u_sum_) v = 0;
  // Round ids start over: an old job's receipt must not match a new round.
  for (FakeDeviceEntry& e : table_) e.accepted_round = 0;
}

void FakeAggregator::Finish() {
  finished_ = true;
  ++version_;
}

uint64_t FakeAggregator::ResourceVersion(const char* /*identity*/,
                                         const char* /*path*/) {
  return version_;
}

CoapResponse FakeAggregator::Reply(uint8_t code, Status status,
                                   const char* message, bool duplicate,
                                   ByteSpan out) {
  edgeadmm_wire_StatusBody body =
      wire::MakeStatusBody(status, message, config_.job_id, round_);
  body.duplicate = duplicate;
  CoapResponse r;
  r.code = code;
  r.content_format = wire::kStatusBodyFormat;
  const StatusWithSize encoded = wire::EncodeStatusBody(body, out);
  r.status = encoded.status();
  r.size = encoded.size();
  return r;
}

CoapResponse FakeAggregator::Handle(const char* identity,
                                    const TransportRequest& request,
                                    ByteSpan out) {
  FakeDeviceEntry* device = Find(identity);
  if (device == nullptr) {
    ++totals_.rejected;
    return Reply(wire::kCoapUnauthorized, Status::Unauthenticated(),
                 "unknown identity", false, out);
  }
  const bool get = request.method == CoapMethod::kGet;
  const bool post = request.method == CoapMethod::kPost;
  if (wire::IsTaskPath(request.path) && get) {
    const char* job = request.path + sizeof(wire::kTaskPath) - 1;
    if (*job == '/') job += 1;
    const size_t key = sizeof(wire::kJobQueryKey) - 1;
    if (*job == '?') {
      job = std::strncmp(job + 1, wire::kJobQueryKey, key) == 0 ? job + 1 + key
                                                                : "";
    }
    std::strncpy(last_task_job_, job, sizeof(last_task_job_) - 1);
    return HandleTask(*device, out);
  }
  if (std::strcmp(request.path, wire::kUpdatePath) == 0 && post) {
    return HandleUpdate(*device, request, out);
  }
  if (std::strcmp(request.path, wire::kStatusPath) == 0 && post) {
    return HandleReport(*device, request, out);
  }
  ++totals_.rejected;
  const bool known = wire::IsTaskPath(request.path) ||
                     std::strcmp(request.path, wire::kUpdatePath) == 0 ||
                     std::strcmp(request.path, wire::kStatusPath) == 0;
  return known ? Reply(wire::kCoapMethodNotAllowed, Status::Unimplemented(),
                       "method not allowed", false, out)
               : Reply(wire::kCoapNotFound, Status::NotFound(), "not found",
                       false, out);
}

CoapResponse FakeAggregator::HandleTask(const FakeDeviceEntry& device,
                                        ByteSpan out) {
  edgeadmm_wire_RoundTask task = edgeadmm_wire_RoundTask_init_zero;
  task.job_id = config_.job_id;
  task.round_id = round_;
  task.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM;
  task.loss = config_.squared_loss ? edgeadmm_wire_Loss_LOSS_SQUARED
                                   : edgeadmm_wire_Loss_LOSS_LOGISTIC;
  task.regularizer = edgeadmm_wire_Regularizer_REGULARIZER_NONE;
  task.noise_placement = edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE;
  task.which_params = edgeadmm_wire_RoundTask_federated_tag;
  task.params.federated.lambda = config_.lambda;
  task.params.federated.gamma = config_.gamma;
  task.params.federated.clip = config_.clip;
  task.params.federated.sigma = config_.sigma;
  task.deadline_ms = config_.deadline_ms;
  Span<const Real> model;
  if (finished_) {
    task.role = edgeadmm_wire_Role_ROLE_DONE;
  } else if (!device.in_cohort) {
    task.role = edgeadmm_wire_Role_ROLE_IDLE;
  } else {
    task.role = edgeadmm_wire_Role_ROLE_PARTICIPATE;
    task.dimension = static_cast<uint32_t>(model_.size());
    model = model_;
    task.has_secure_aggregation = config_.secure_aggregation;
    task.secure_aggregation = config_.plan;
    if (!config_.secure_aggregation) {
      task.upload_spread_ms = config_.upload_spread_ms;
    }
  }
  CoapResponse r;
  const StatusWithSize encoded =
      wire::EncodeRoundTask(task, model, Span<const Real>(), out);
  r.status = encoded.status();
  r.code = encoded.ok() ? wire::kCoapContent : wire::kCoapInternalServerError;
  r.content_format = wire::kRoundTaskFormat;
  r.size = encoded.size();
  return r;
}

CoapResponse FakeAggregator::HandleUpdate(FakeDeviceEntry& device,
                                          const TransportRequest& request,
                                          ByteSpan out) {
  if (request.content_format != wire::kUpdateFormat) {
    ++totals_.rejected;
    return Reply(wire::kCoapUnsupportedContentFormat, Status::InvalidArgument(),
                 "content format", false, out);
  }
  wire::DecodedUpdate update;
  const Status decoded = wire::DecodeUpdate(request.payload, scratch_, update);
  if (!decoded.ok()) {
    ++totals_.rejected;
    return Reply(wire::CoapCodeFromStatus(decoded), decoded, "bad update",
                 false, out);
  }
  if (std::strcmp(update.header.device_id, device.id) != 0) {
    ++totals_.rejected;
    return Reply(wire::kCoapForbidden, Status::PermissionDenied(),
                 "device id is not the DTLS identity", false, out);
  }
  if (update.header.job_id != config_.job_id) {
    ++totals_.rejected;
    return Reply(wire::kCoapNotFound, Status::NotFound(), "unknown job", false,
                 out);
  }
  // A repeat of the last accepted upload is answered as a duplicate even
  // after its round closed, so a device whose receipt was lost learns that
  // its upload counted.
  const uint32_t crc = Crc32(request.payload);
  const uint32_t size = static_cast<uint32_t>(request.payload.size());
  if (device.accepted != 0 && device.accepted_round == update.header.round_id) {
    if (device.accepted_crc == crc && device.accepted_size == size) {
      ++device.duplicates;
      ++totals_.duplicates;
      return Reply(wire::kCoapChanged, Status::Ok(), "duplicate", true, out);
    }
    ++device.conflicts;
    ++totals_.conflicts;
    return Reply(wire::kCoapConflict, Status::AlreadyExists(),
                 "a different update was accepted", false, out);
  }
  if (update.header.round_id != round_ || finished_) {
    ++device.stale;
    ++totals_.stale;
    return Reply(wire::kCoapPreconditionFailed, Status::FailedPrecondition(),
                 "round is not open", false, out);
  }
  if (update.vector.size() != model_.size()) {
    ++totals_.rejected;
    return Reply(wire::kCoapBadRequest, Status::InvalidArgument(), "dimension",
                 false, out);
  }
  if (!device.in_cohort) {
    ++totals_.rejected;
    return Reply(wire::kCoapForbidden, Status::PermissionDenied(),
                 "not in this round's cohort", false, out);
  }
  for (size_t i = 0; i < u_sum_.size(); ++i) u_sum_[i] += update.vector[i];
  device.accepted_round = round_;
  device.accepted_crc = crc;
  device.accepted_size = size;
  ++device.accepted;
  ++totals_.accepted;
  ++accepted_this_round_;
  return Reply(wire::kCoapChanged, Status::Ok(), "accepted", false, out);
}

CoapResponse FakeAggregator::HandleReport(FakeDeviceEntry& device,
                                          const TransportRequest& request,
                                          ByteSpan out) {
  edgeadmm_wire_StatusBody body;
  const Status decoded = wire::DecodeStatusBody(request.payload, body);
  if (request.content_format != wire::kStatusBodyFormat || !decoded.ok()) {
    ++totals_.rejected;
    return Reply(wire::kCoapBadRequest, Status::InvalidArgument(),
                 "bad status body", false, out);
  }
  ++device.reports;
  ++totals_.reports;
  device.last_report_code = body.code;
  return Reply(wire::kCoapChanged, Status::Ok(), "noted", false, out);
}

}  // namespace edgeadmm
