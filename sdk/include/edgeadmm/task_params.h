// The params check of a RoundTask by its algorithm's own unit, for an encoder
// that must send only what a device accepts (the aggregator's request
// handler). The wire codec (wire/round_task.h) checks the generic fields, the
// params variant and the vector lengths; the values of the params are each
// algorithm's own, checked by its task adapter (sdk/src/steps/<name>_task.cc,
// registered in sdk/src/steps/algorithm_tasks.cc). The device client runs the
// same check right after it decodes a task (docs/protocol.md, "Validation at
// decode").
#pragma once

#include <edgeadmm.pb.h>

#include "edgeadmm/status.h"

namespace edgeadmm {

// OK for an idle or final task, or a participating task whose params its
// algorithm's unit accepts; INVALID_ARGUMENT otherwise (params out of range,
// or an algorithm no unit runs).
Status CheckTaskParams(const edgeadmm_wire_RoundTask& task);

}  // namespace edgeadmm
