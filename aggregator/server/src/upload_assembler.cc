#include "edgeadmm/server/upload_assembler.h"

#include <iterator>

namespace edgeadmm::server {

UploadAssembler::Step UploadAssembler::Add(const coap_session_t* session,
                                           const Block& block, size_t limit,
                                           int64_t now_ms,
                                           std::vector<uint8_t>& body) {
  auto it = partials_.find(session);
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
  } else if (it == partials_.end() || block.offset > it->second.body.size()) {
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
