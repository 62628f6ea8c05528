// RequestBudget: how many requests each device identity may make, as a
// token bucket per DTLS identity (issue 32 item 7).
//
// Before it, one enrolled identity had 179,212 GETs answered in 15 s, each
// a handler call and most a database read. An honest device makes a few
// requests per round (a task registration or poll, the first block of its
// upload, a model or status GET; the following Block1 blocks of an upload
// in sequence are not charged), so the defaults leave it untouched. Past
// the budget a request is answered 4.29 Too Many Requests with Max-Age =
// the seconds until the bucket holds a request again (RFC 8516); the
// devices' client backs off on 4.29.
//
// Memory: one entry per identity that made a request, pruned once its
// bucket is full again; identities are authenticated, so the table holds
// at most the enrolled devices.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace edgeadmm::server {

struct RequestBudgetOptions {
  // Sustained requests per second per identity; 0 turns the budget off.
  double requests_per_second = 20;
  // Requests an identity may make at once (the bucket's size).
  double burst = 100;
};

class RequestBudget {
 public:
  explicit RequestBudget(const RequestBudgetOptions& options)
      : options_(options) {}

  // Charges one request of `identity` at `now_ms`. Returns 0 when it is
  // within the budget, else the Max-Age to answer with (whole seconds, at
  // least 1) and charges nothing.
  int Take(std::string_view identity, int64_t now_ms);
  // Charges one request that was served anyway (a Block1 block out of
  // sequence): the bucket may go below zero, so the next requests wait.
  void Debit(std::string_view identity, int64_t now_ms);
  // Drops the entries whose bucket has refilled (nothing to remember), at
  // most once per kPruneIntervalMs (a walk of the table).
  void Prune(int64_t now_ms);
  static constexpr int64_t kPruneIntervalMs = 10'000;
  size_t tracked() const { return buckets_.size(); }

 private:
  struct Bucket {
    double tokens = 0;
    int64_t updated_ms = 0;
  };
  Bucket& Refilled(std::string_view identity, int64_t now_ms);

  RequestBudgetOptions options_;
  std::unordered_map<std::string, Bucket> buckets_;
  int64_t last_prune_ms_ = 0;
};

}  // namespace edgeadmm::server
