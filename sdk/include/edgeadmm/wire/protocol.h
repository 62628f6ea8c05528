// Constants of the EdgeADMM wire protocol (docs/protocol.md): the protocol
// version, the CoAP resources and content formats, and size bounds.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/config.h"

namespace edgeadmm::wire {

// The `version` field of every message; decoders refuse any other value.
inline constexpr uint32_t kProtocolVersion = 1;

// CoAP resources (Uri-Path segments joined by '/', no leading slash).
inline constexpr const char kTaskPath[] = "v1/task";      // GET, Observe
inline constexpr const char kUpdatePath[] = "v1/update";  // POST (Block1)
inline constexpr const char kModelPath[] = "v1/model";    // GET (Block2)
inline constexpr const char kStatusPath[] = "v1/status";  // GET
// A path may end in "?<query>": the Uri-Query option (one). The job
// selector of a model or status request is "job=<name>" (a job name:
// 1..kMaxJobNameLength of [A-Za-z0-9._-]); without it the gateway picks the
// device's job (docs/protocol.md, "Several jobs"). A task request names its
// job by path, "v1/task/<name>": each job's task is a resource of its own,
// so a round change of one job notifies only that job's observers (the
// query form "v1/task?job=<name>" is served too, observed as v1/task).
inline constexpr const char kJobQueryKey[] = "job=";
inline constexpr size_t kMaxJobNameLength = 64;
// Whether `path` is v1/task: alone, a job's ("v1/task/<name>") or with a
// query.
inline bool IsTaskPath(const char* path) {
  for (const char* t = kTaskPath; *t != '\0'; ++t, ++path) {
    if (*path != *t) return false;
  }
  return *path == '\0' || *path == '?' || *path == '/';
}
// The longest task path with a job name, its NUL included.
inline constexpr size_t kMaxTaskPathBytes =
    sizeof(kTaskPath) + 1 + kMaxJobNameLength;

// CoAP Content-Format numbers (experimental range 65000..65535, RFC 7252
// section 12.3), one per message type.
inline constexpr uint16_t kRoundTaskFormat = 65100;
inline constexpr uint16_t kUpdateFormat = 65101;
inline constexpr uint16_t kReleasedModelFormat = 65102;
inline constexpr uint16_t kStatusBodyFormat = 65103;

// Longest upload spread a task may state (RoundTask.upload_spread_ms; a
// longer one is refused at decode).
inline constexpr uint32_t kMaxUploadSpreadMs = 60'000;

// Largest model dimension a message may carry (coordinates).
inline constexpr size_t kMaxDimension = EDGEADMM_CFG_MAX_FEATURES;
// Largest dimension of a record-space message (one value per record of the
// job, config.h): such a task's vectors and an upload's values (N + K with
// partial scores) are at most this long.
inline constexpr size_t kMaxRecordDimension = EDGEADMM_CFG_MAX_RECORD_DIMENSION;
// Longest vector field any message carries: a model, or a released model of
// two record-space vectors (2N). The decoders refuse longer ones before
// reading a value, whatever the caller's buffer.
inline constexpr size_t kMaxVectorLength =
    kMaxDimension > 2 * kMaxRecordDimension ? kMaxDimension
                                            : 2 * kMaxRecordDimension;
// The dimension bound of a task or upload: N when its vectors are indexed
// by records, else p.
constexpr size_t MaxMessageDimension(bool per_record) {
  return per_record ? kMaxRecordDimension : kMaxDimension;
}
// A device id (the DTLS PSK identity): 1..64 printable ASCII characters.
inline constexpr size_t kMaxDeviceIdLength = 64;
// StatusBody.message: at most 96 printable ASCII characters.
inline constexpr size_t kMaxStatusMessageLength = 96;
// Update.algorithm_extra: the job algorithm's own bytes of an upload, opaque
// to the wire codecs (edgeadmm.options gives nanopb the same bound).
inline constexpr size_t kMaxAlgorithmExtraBytes = 32;

// Bytes of one encoded float32 vector field of `dimension` coordinates:
// tag (<= 2 bytes) + length varint (<= 5 bytes) + 4 bytes per coordinate.
constexpr size_t VectorFieldBytes(size_t dimension) {
  return dimension == 0 ? 0 : 2 + 5 + 4 * dimension;
}

// Upper bounds of the encoded size of each message for a given dimension:
// the scalar fields at their largest plus the vector fields. Use them to size
// static buffers; the encoders never write more.
// RoundTask's scalars: at most 273 bytes with a secure-aggregation plan
// (protocol_wire_test, LargestScalarsFitTheBound), 288 with a margin.
constexpr size_t MaxRoundTaskBytes(size_t dimension) {
  return 288 + 2 * VectorFieldBytes(dimension);
}
constexpr size_t MaxUpdateBytes(size_t dimension) {
  return 184 + VectorFieldBytes(dimension);
}
constexpr size_t MaxReleasedModelBytes(size_t dimension) {
  return 64 + VectorFieldBytes(dimension);
}
inline constexpr size_t kMaxStatusBodyBytes = 160;

}  // namespace edgeadmm::wire
