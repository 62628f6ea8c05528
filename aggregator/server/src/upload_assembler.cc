#include "edgeadmm/server/upload_assembler.h"

#include <iterator>

namespace edgeadmm::server {

UploadAssembler::Block UploadAssembler::Read(const coap_pdu_t* request,
                                             const coap_opt_t* block1,
                                             const uint8_t* data,
                                             size_t length) {
  const uint32_t value =
      coap_decode_var_bytes(coap_opt_value(block1), coap_opt_length(block1));
  Block block;
  const uint32_t szx = value & 0x07u;
  block.offset = szx == 7 ? SIZE_MAX : size_t{value >> 4} << (szx + 4);
  block.size = szx == 7 ? 0 : size_t{1} << (szx + 4);
  block.more = (value & 0x08u) != 0;
  block.data = data;
  block.length = length;
  coap_opt_iterator_t it;
  if (const coap_opt_t* size1 =
          coap_check_option(request, COAP_OPTION_SIZE1, &it)) {
    block.size1 =
        coap_decode_var_bytes8(coap_opt_value(size1), coap_opt_length(size1));
  }
  coap_opt_filter_t only_block1;
  coap_option_filter_clear(&only_block1);
  coap_option_filter_set(&only_block1, COAP_OPTION_BLOCK1);
  coap_option_iterator_init(request, &it, &only_block1);
  block.block1s = 0;
  while (coap_option_next(&it) != nullptr) ++block.block1s;
  return block;
}

UploadAssembler::Step UploadAssembler::Add(const coap_session_t* session,
                                           const Block& block, size_t limit,
                                           int64_t now_ms,
                                           std::vector<uint8_t>& body) {
  auto it = partials_.find(session);
  if (block.block1s > 1 || block.length > block.size) {
    if (it != partials_.end()) partials_.erase(it);
    return block.block1s > 1 ? Step::kBadOption : Step::kBadBlock;
  }
  if (block.offset == 0) {
    if (block.size1 > limit || block.length > limit) {
      if (it != partials_.end()) partials_.erase(it);
      return Step::kTooLarge;
    }
    if (it == partials_.end()) {
      if (partials_.size() >= options_.max_partials) return Step::kBusy;
      it = partials_.emplace(session, Partial{}).first;
    }
    it->second.body.clear();
    it->second.resource = block.resource;
  } else if (it == partials_.end() || block.offset > it->second.body.size() ||
             it->second.resource != block.resource) {
    if (it != partials_.end()) partials_.erase(it);
    return Step::kIncomplete;
  }
  Partial& partial = it->second;
  if (block.length > limit || block.offset > limit - block.length) {
    partials_.erase(it);
    return Step::kTooLarge;
  }
  // A repeated block (the client re-sent it) replaces what it covers.
  partial.body.resize(block.offset);
  partial.body.insert(partial.body.end(), block.data,
                      block.data + block.length);
  partial.last_ms = now_ms;
  if (block.more) return Step::kContinue;
  body = std::move(partial.body);
  partials_.erase(it);
  return Step::kComplete;
}

void UploadAssembler::DropStale(int64_t now_ms) {
  for (auto it = partials_.begin(); it != partials_.end();) {
    it = now_ms - it->second.last_ms >= options_.lifetime_ms
             ? partials_.erase(it)
             : std::next(it);
  }
}

size_t UploadAssembler::bytes() const {
  size_t total = 0;
  for (const auto& [session, partial] : partials_) {
    total += partial.body.size();
  }
  return total;
}

}  // namespace edgeadmm::server
