// UploadAssembler: the daemon's own Block1 (RFC 7959) reassembly of
// request bodies (v1/update, v1/secagg/<phase>), bounded before anything is
// stored.
//
// libcoap 4.3.1's reassembly (COAP_BLOCK_SINGLE_BODY) allocates the size a
// client declares in Size1 on the first block and hands the handler the
// body only when it is complete: Size1 = 4 GiB grew the daemon's virtual
// memory to 4.2 GB, and a 20 MB body was reassembled before the 4.13
// (issue 14 item 6). Here every block reaches the handler, which adds it:
//   - a body larger than `limit` (the job's largest Update, the phase's
//     largest frame) is refused at
//     the first block that shows it: Size1 above the limit on block 0, or a
//     block ending past it;
//   - blocks must follow each other (a repeated block replaces what it
//     covers; a gap is refused);
//   - one partial body per session (a new block 0, of any resource, starts
//     over; a later block of another resource is out of sequence), at most
//     max_partials in all, each dropped after lifetime_ms without a block;
//   - a request with more than one Block1 option is refused with 4.02 (RFC
//     7252 section 5.4.5: a critical option repeated), a block whose
//     payload exceeds its size 2^(SZX+4) (or with the reserved SZX 7) with
//     4.00; either drops the session's partial body.
#pragma once

#include <coap3/coap.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace edgeadmm::server {

struct UploadAssemblerOptions {
  size_t max_partials = 1024;
  int64_t lifetime_ms = 30'000;
};

class UploadAssembler {
 public:
  enum class Step {
    kContinue,    // block stored: answer 2.31 Continue
    kComplete,    // last block stored: the body is in `body`
    kTooLarge,    // 4.13, Size1 = the limit; the partial body is dropped
    kIncomplete,  // 4.08: a gap, or a block without its start
    kBusy,        // 5.03: max_partials reached
    kBadOption,   // 4.02: Block1 repeated
    kBadBlock,    // 4.00: payload larger than the block size, or SZX 7
  };
  struct Block {
    size_t offset = 0;  // num << (szx + 4)
    const uint8_t* data = nullptr;
    size_t length = 0;
    bool more = false;   // M bit
    uint64_t size1 = 0;  // Size1 on block 0 (0: none)
    size_t size = 0;     // 2^(SZX+4); 0 for the reserved SZX 7
    int block1s = 1;     // Block1 options in the request
    int resource = 0;    // the caller's tag of the resource the body is for
  };

  // The block a request carrying `block1` (its first Block1 option) and
  // `length` bytes of payload at `data` sends.
  static Block Read(const coap_pdu_t* request, const coap_opt_t* block1,
                    const uint8_t* data, size_t length);

  explicit UploadAssembler(const UploadAssemblerOptions& options = {})
      : options_(options) {}

  // Adds `block` of `session`'s upload, bounded by `limit` bytes.
  Step Add(const coap_session_t* session, const Block& block, size_t limit,
           int64_t now_ms, std::vector<uint8_t>& body);
  // The session is gone.
  void Forget(const coap_session_t* session) { partials_.erase(session); }
  // Drops partial bodies without a block for lifetime_ms.
  void DropStale(int64_t now_ms);

  size_t partials() const { return partials_.size(); }
  size_t bytes() const;

 private:
  struct Partial {
    std::vector<uint8_t> body;
    int64_t last_ms = 0;
    int resource = 0;
  };
  UploadAssemblerOptions options_;
  std::unordered_map<const coap_session_t*, Partial> partials_;
};

}  // namespace edgeadmm::server
