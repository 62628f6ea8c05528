// StreamingParty: the part of a DeviceClient that lets a record-space party
// (its task and upload hold one value per record, N of them) run with less
// RAM than one N-vector (DeviceClient with stream_rows = B > 0; docs/sdk.md,
// "Streaming party"):
//
//   - the task is fetched into a BodySink (Block2) and decoded as it comes
//     (wire::RoundTaskStreamReader); its u_m and y rows go to the trainer
//     B at a time (the task adapter's accumulate_stream); a task that fits
//     the client's task buffer is also kept whole for the usual path;
//   - at the end of the body the step is finished (the adapter's
//     finish_stream, which draws the round's noise key), and the record is
//     persisted with the upload's recipe (streamed_share_upload.h) in place
//     of the upload;
//   - the upload is produced while it is sent (Block1) by a
//     StreamedShareSource bound to that recipe, x̃_m and the data.
//
// It is created by the client's ClientAlgorithmTable (create_streaming),
// so a firmware whose shape has no streamed algorithm links none of it.
#pragma once

#include <cstddef>

#include "edgeadmm/device_client.h"
#include "edgeadmm/status.h"
#include "edgeadmm/streamed_share_upload.h"
#include "edgeadmm/transport.h"
#include "edgeadmm/wire/round_task_stream.h"
#include "edgeadmm/workspace.h"
#include "steps/algorithm_task.h"

namespace edgeadmm::internal {

// What DeviceClient asks of its streaming part.
class ClientStreaming {
 public:
  // A fetch starts: the sink to give the transport (state reset).
  virtual BodySink* StartFetch() = 0;
  // The streamed fetch ended with `result`: true if the sink had stopped
  // it (the task refused or not wanted at its header, or invalid), which is
  // then handled here; false for the client's usual handling.
  virtual bool OnStopped(const TransportResult& result) = 0;
  // The body arrived whole (2.05, `size` bytes): finishes the step, or
  // hands a task that fit the client's buffer to its usual path.
  virtual void OnBody(size_t size) = 0;
  // The source of the pending streamed upload in the client's record; null
  // (and `error` set) if it cannot be bound.
  virtual BodySource* UploadSource(Status& error) = 0;

 protected:
  ~ClientStreaming() = default;
};

class StreamingParty final : public ClientStreaming,
                             public BodySink,
                             public wire::RoundTaskStreamHandler {
 public:
  explicit StreamingParty(DeviceClient& client) : client_(client) {}
  // Carves the buffers (B = stream_rows rows each for the reader's values,
  // the zero block and the source's values; x̃; the header, prefix and
  // recipe buffers).
  Status Init(Workspace& memory);

  BodySink* StartFetch() override;
  bool OnStopped(const TransportResult& result) override;
  void OnBody(size_t size) override;
  BodySource* UploadSource(Status& error) override;

  // BodySink: the task body.
  Status Write(size_t offset, ConstByteSpan bytes) override;
  // RoundTaskStreamHandler.
  Status OnHeader(const edgeadmm_wire_RoundTask& h) override;
  Status OnValues(wire::TaskVector which, size_t first,
                  Span<const Real> values) override;

 private:
  Status FinishStep(const edgeadmm_wire_RoundTask& h);

  DeviceClient& client_;
  bool overflow_ = false;  // the body did not fit the client's task buffer
  bool step_ = false;      // a streamed step is accumulating
  const AlgorithmTask* adapter_ = nullptr;  // the step's task adapter
  Status refusal_;  // why the task was refused at its header
  StreamPlan plan_;
  DevicePrivacyLedger earlier_jobs_;
  ByteSpan header_;   // the task's scalar fields (reader)
  Span<Real> block_;  // values in (reader), then out (source)
  Span<Real> zeros_;  // the own share removed from u: zeros
  Span<Real> x_;      // x̃_m of the pending upload
  ByteSpan prefix_;   // EncodeUpdatePrefix
  ByteSpan recipe_;   // WriteStreamedShareRecipe
  wire::RoundTaskStreamReader reader_;
  StreamedShareSource source_;
};

}  // namespace edgeadmm::internal
