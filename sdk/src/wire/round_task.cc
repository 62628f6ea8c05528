#include "edgeadmm/wire/round_task.h"

#include <cfloat>

#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/vector_field.h"
#include "message.h"
#include "task_params_shapes.h"

namespace edgeadmm::wire {
namespace {

using internal::EnumValue;
using internal::InRange;

bool NonNegative(double v) { return InRange(v, 0.0, DBL_MAX); }

// The registered shape of the task's algorithm (task_params_shapes.h);
// null for an algorithm not registered.
const internal::TaskParamsShape* ShapeOf(const edgeadmm_wire_RoundTask& t) {
  const int32_t algorithm = EnumValue(t.algorithm);
  for (const internal::TaskParamsShape& shape : internal::TaskParamsShapes()) {
    if (shape.algorithm == algorithm) return &shape;
  }
  return nullptr;
}

// The params variant and auxiliary length the task's algorithm needs.
Status ValidateShape(const edgeadmm_wire_RoundTask& t, size_t aux_size) {
  const internal::TaskParamsShape* shape = ShapeOf(t);
  if (shape == nullptr || t.which_params != shape->params_tag ||
      aux_size != (shape->auxiliary ? t.dimension : 0)) {
    return Status::InvalidArgument();
  }
  return Status::Ok();
}

}  // namespace

size_t AuxiliaryLength(const edgeadmm_wire_RoundTask& t) {
  const internal::TaskParamsShape* shape = ShapeOf(t);
  return shape != nullptr && shape->auxiliary ? t.dimension : 0;
}

size_t MaxTaskDimension(const edgeadmm_wire_RoundTask& t) {
  const internal::TaskParamsShape* shape = ShapeOf(t);
  return MaxMessageDimension(shape != nullptr && shape->per_record);
}

Status ValidateRoundTask(const edgeadmm_wire_RoundTask& t, size_t model_size,
                         size_t auxiliary_size) {
  if (t.version != kProtocolVersion) return Status::InvalidArgument();
  const int32_t role = EnumValue(t.role);
  if (role < edgeadmm_wire_Role_ROLE_PARTICIPATE ||
      role > edgeadmm_wire_Role_ROLE_DONE) {
    return Status::InvalidArgument();
  }
  if (t.dimension > MaxTaskDimension(t)) return Status::OutOfRange();
  if (role != edgeadmm_wire_Role_ROLE_PARTICIPATE) {
    // Idle / done: nothing to compute; a model, if sent, must match.
    return model_size == 0 || model_size == t.dimension
               ? Status::Ok()
               : Status::InvalidArgument();
  }
  if (t.dimension == 0) return Status::OutOfRange();
  if (model_size != t.dimension || t.upload_spread_ms > kMaxUploadSpreadMs) {
    return Status::InvalidArgument();
  }
  const int32_t loss = EnumValue(t.loss);
  if (loss != edgeadmm_wire_Loss_LOSS_LOGISTIC &&
      loss != edgeadmm_wire_Loss_LOSS_SQUARED) {
    return Status::InvalidArgument();
  }
  const int32_t regularizer = EnumValue(t.regularizer);
  if (regularizer < edgeadmm_wire_Regularizer_REGULARIZER_NONE ||
      regularizer > edgeadmm_wire_Regularizer_REGULARIZER_L2 ||
      !NonNegative(t.regularizer_weight)) {
    return Status::InvalidArgument();
  }
  const int32_t noise = EnumValue(t.noise_placement);
  if (noise != edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE &&
      noise != edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_AGGREGATOR) {
    return Status::InvalidArgument();
  }
  return ValidateShape(t, auxiliary_size);
}

StatusWithSize EncodeRoundTask(const edgeadmm_wire_RoundTask& header,
                               Span<const Real> model,
                               Span<const Real> auxiliary, ByteSpan out) {
  edgeadmm_wire_RoundTask task = header;
  task.version = kProtocolVersion;
  const Status valid = ValidateRoundTask(task, model.size(), auxiliary.size());
  if (!valid.ok()) return StatusWithSize(valid, 0);
  VectorEncodeContext model_context{model, Status::Ok()};
  VectorEncodeContext aux_context{auxiliary, Status::Ok()};
  BindVectorEncode(task.model, model_context);
  BindVectorEncode(task.auxiliary, aux_context);
  return internal::EncodeMessage(edgeadmm_wire_RoundTask_fields, &task, out,
                                 &model_context, &aux_context);
}

Status DecodeRoundTask(ConstByteSpan bytes, Span<Real> model_buffer,
                       Span<Real> auxiliary_buffer, DecodedRoundTask& out) {
  out.header = edgeadmm_wire_RoundTask_init_zero;
  VectorDecodeContext model_context;
  model_context.buffer = model_buffer;
  VectorDecodeContext aux_context;
  aux_context.buffer = auxiliary_buffer;
  BindVectorDecode(out.header.model, model_context);
  BindVectorDecode(out.header.auxiliary, aux_context);
  const Status decoded =
      internal::DecodeMessage(edgeadmm_wire_RoundTask_fields, &out.header,
                              bytes, &model_context, &aux_context);
  out.header.model = pb_callback_t{};
  out.header.auxiliary = pb_callback_t{};
  if (!decoded.ok()) return decoded;
  out.model = model_buffer.first(model_context.count);
  out.auxiliary = auxiliary_buffer.first(aux_context.count);
  return ValidateRoundTask(out.header, model_context.count, aux_context.count);
}

}  // namespace edgeadmm::wire
