// The shape checks of StaticDeviceClient (static_device_client.h).
#include "edgeadmm/static_device_client.h"

namespace edgeadmm {

Status CheckDeviceShape(const DeviceShapeLimits& shape,
                        const DatasetView& data) {
  if (data.dim() == 0 || data.samples() == 0) return Status::InvalidArgument();
  if (data.dim() > shape.dimension || data.samples() > shape.max_records) {
    return Status::ResourceExhausted();
  }
  return Status::Ok();
}

Status CheckJobShape(const DeviceShapeLimits& shape, AlgorithmKind algorithm,
                     LossKind loss, size_t dimension) {
  if ((shape.algorithms & AlgorithmBit(algorithm)) == 0 ||
      (shape.losses & LossBit(loss)) == 0) {
    return Status::Unimplemented();
  }
  if (dimension == 0) return Status::InvalidArgument();
  if (dimension > shape.dimension) return Status::ResourceExhausted();
  return Status::Ok();
}

}  // namespace edgeadmm
