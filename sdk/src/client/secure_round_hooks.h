// The secure-aggregation part of DeviceClient as a table of its member
// functions (device_client_secagg.cc), reached only through a
// ClientAlgorithmTable that names it, so a firmware whose table does not
// links nothing of SecAgg+.
#pragma once

#include "edgeadmm/device_client.h"

namespace edgeadmm::internal {

struct SecureRoundHooks {
  Status (DeviceClient::*init)(Workspace& ws);
  Status (DeviceClient::*resume)();
  Status (DeviceClient::*charge)(const edgeadmm_wire_RoundTask& h);
  Status (DeviceClient::*encode)(const edgeadmm_wire_RoundTask& h,
                                 Span<const Real> update);
  void (DeviceClient::*start)();
  bool (DeviceClient::*start_due)();
  void (DeviceClient::*step)();
};

}  // namespace edgeadmm::internal
