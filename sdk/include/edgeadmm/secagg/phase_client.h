// The device's side of a SecAgg+ round over the network: drives a
// SecAggDeviceSession through the gateway's four phase resources
// (phase_frames.h, docs/protocol.md "Secure aggregation phases") on any
// Transport, non-blocking (Step), so one thread can drive many devices.
//
// Phase 0 (Join): GET v1/secagg/round (no body; ?round=<id> when the caller
// names the round its input is for); its 2.05 answer is the round's
// parameters with this device's index (phase_frames.h), checked against
// the named round, the buffers and the input, then Start. A transport failure,
// 4.29 or 5.03 is asked again after the interval; any other answer ends
// the client with that outcome and leaves the session idle (a later Join
// may ask again). The parameters travel in the blob, so a device
// restarted after phase 0 Resume()s without asking again.
//
// Each phase: POST the session's message (the transport sends one above a
// block with Block1 and fetches a longer answer with Block2, so a round is
// bounded by the buffers below, not the datagram); 2.04 means "accepted, the
// phase is still open": after poll_interval_ms the client polls with the
// frame's header alone (EncodeSecAggPoll; the gateway answers it as an
// identical resend) until the answer, 2.05 with the phase's answer frame,
// comes (without a 2.04, e.g. a lost answer, the message itself is sent
// again, identical); the session then
// takes the next step and its blob is written to Storage before the next
// message leaves. Phase 4's 2.04 ends the round (Finish). A transport
// failure, 4.08 (the gateway lost a Block1 body's partial), 4.29 or 5.03
// is retried after the interval; any other answer
// aborts the session (Abort) and is the outcome. A device restarted in any
// phase Resume()s from the stored blob and resends the same message (whole:
// whether it was accepted is not stored).
// No heap: all memory is the caller's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/random_byte_source.h"
#include "edgeadmm/secagg/device_session.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"
#include "edgeadmm/transport.h"

namespace edgeadmm {

struct SecAggClientBuffers {
  ByteSpan request;   // >= the largest request frame (SecAggSealedBytes(k))
  ByteSpan response;  // >= the largest answer frame
  ByteSpan blob;      // >= SecAggSessionBlobBytes(k, m)
  // The decoded answers of phases 1-3.
  //
  // request, blob, keys, sealed and survivors may all be one memory region:
  // their uses never overlap in time. The request frame lives from its
  // encoding until the exchange's result is taken; an answer is decoded
  // after that, read by the session's step (which copies what it keeps)
  // and dead before Persist writes the blob; the blob is written and read
  // only between exchanges (Start, Resume, after an answer). The blob may
  // also cover `response`: an answer frame is dead once it was decoded and
  // used, before the blob is written, and no exchange is in flight while
  // the blob is read. The client begins an answer array's lifetime
  // (zeroed, as the session's regions, device_session_overlay.h) before it
  // decodes into it.
  Span<SecAggPeerKeys> keys;  // k
  Span<SecAggSealed> sealed;  // k
  Span<uint32_t> survivors;   // k + 1 (phase 3's listed survivors)
};

class SecAggPhaseClient {
 public:
  // Everything must outlive the client; `storage_key` names the blob.
  SecAggPhaseClient(Transport& transport, Storage& storage,
                    const char* storage_key, SecAggDeviceSession& session,
                    RandomByteSource& random, const SecAggClientBuffers& buf);

  // Phase 1 from an idle session: Advertise and persist. `input` (m words
  // < 2^b) must stay valid until the masked input is made.
  Status Start(const SecAggSessionParams& params, Span<const uint32_t> input);
  // Phase 0 from an idle session: asks the gateway for the round (Step
  // sends). `input` as for Start. FAILED_PRECONDITION when the session is
  // not idle or a Join is under way; RESOURCE_EXHAUSTED when the response
  // buffer cannot hold phase 0's answer (SecAggRoundBytes()). The answer ends
  // the client, before anything is sent, with RESOURCE_EXHAUSTED for a round
  // this client's buffers cannot hold (min(k, n - 1) keys or sealed messages,
  // min(k, n - 1) + 1 listed survivors, its frames or blob) and
  // INVALID_ARGUMENT for an input of another length than m or a word >= 2^b;
  // with Start's errors otherwise (e.g. session buffers). `round_id` 0: phase 0
  // asks v1/secagg/round (the gateway picks the joinable round whose cohort
  // holds the device). Otherwise it asks v1/secagg/round?round=<round_id>
  // (SecAggRoundId of the task the input was computed for), and an answer for
  // any other round ends the client with INVALID_ARGUMENT before anything is
  // sent: an input is never masked into another round's sum.
  Status Join(Span<const uint32_t> input, uint64_t round_id = 0);
  // After a restart: the session from the stored blob (Restore's errors,
  // NOT_FOUND without a blob). The round's input is the first mask_length
  // words of `words` (DATA_LOSS when it is shorter); the caller may fill
  // them after Resume, before the next Step.
  Status Resume(Span<const uint32_t> words);

  // Sends, or takes the answer of, the exchange in flight; call after the
  // transport's Poll. `now_ms`: any monotonic clock.
  void Step(uint64_t now_ms);

  bool finished() const { return finished_; }
  // OK when the round ended with this device's answer accepted.
  Status outcome() const { return outcome_; }

  uint32_t poll_interval_ms = 50;

 private:
  Status Persist();
  StatusWithSize Encode();
  Status Advance(ConstByteSpan answer);
  Status Joined(ConstByteSpan answer);
  bool Fits(const SecAggSessionParams& params) const;
  void End(Status status);

  Transport& transport_;
  Storage& storage_;
  const char* key_;
  SecAggDeviceSession& session_;
  RandomByteSource& random_;
  SecAggClientBuffers buf_;
  Span<const uint32_t> input_;
  bool joining_ = false;  // phase 0 asked, not answered yet
  // The open phase's message was accepted (2.04): the phase is polled with
  // the header alone (EncodeSecAggPoll) until its answer comes.
  bool accepted_ = false;
  uint64_t join_round_ = 0;  // the round phase 0 names (0: any)
  char round_path_[kMaxSecAggRoundPathBytes] = {};  // phase 0's path
  bool in_flight_ = false;
  bool finished_ = false;
  Status outcome_;
  uint64_t next_ms_ = 0;
  TransportRequest request_;
};

}  // namespace edgeadmm
