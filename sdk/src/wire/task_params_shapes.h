// The wire shape of each algorithm's round task: which params variant of the
// RoundTask's oneof it carries, whether it carries an auxiliary vector
// (`dimension` entries) and whether its dimension counts records (bounded by
// kMaxRecordDimension) or features (kMaxDimension). The codec
// (round_task.cc) looks a task up here and names no algorithm; the list
// itself is a registration file, one line per algorithm
// (task_params_shapes.cc). The params' values are the algorithm's own: its
// task adapter checks them on the device (steps/<name>_task.cc).
#pragma once

#include <edgeadmm.pb.h>

#include "edgeadmm/span.h"

namespace edgeadmm::wire::internal {

struct TaskParamsShape {
  edgeadmm_wire_Algorithm algorithm;
  pb_size_t params_tag;
  bool auxiliary;
  bool per_record;
};

// Every algorithm a RoundTask may name; one not listed (UNSPECIFIED, a
// removed or unknown value) is refused by the codec.
Span<const TaskParamsShape> TaskParamsShapes();

}  // namespace edgeadmm::wire::internal
