// JobRouter: which of the daemon's loaded jobs a request is for
// (docs/aggregator.md, "Several jobs at once"). An upload names its job in
// its job_id; a task, model or status request in an optional Uri-Query
// `job=<name>`, else the device's enrolment decides. Every choice is a walk
// over the loaded engines (a few), with no store query.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/rounds/round_engine.h"

namespace edgeadmm::server {

class JobRouter {
 public:
  // The loaded engines (none null); a job whose engine stays loaded after
  // it stopped still answers its devices (DONE).
  void Set(std::vector<rounds::RoundEngine*> engines);
  const std::vector<rounds::RoundEngine*>& engines() const { return engines_; }
  bool empty() const { return engines_.empty(); }

  // The job named by a Uri-Query: nullopt for none (empty), the name for
  // exactly "job=<name>" with a valid job name, INVALID_ARGUMENT otherwise.
  static Result<std::optional<std::string>> ParseQuery(std::string_view query);

  // The engine of job `job_id`, or null.
  rounds::RoundEngine* ByJobId(int64_t job_id) const;
  // The engine of the job named `name`, or null.
  rounds::RoundEngine* ByName(std::string_view name) const;
  // The job a request without a query from `device` is for: the one running
  // job it is enrolled in; among several, the one whose open round waits for
  // its upload, earliest deadline first, else the enrolled running job of
  // lowest id; else an enrolled stopped job; else (not enrolled anywhere)
  // the first engine, whose refusal the device gets. Null when none loaded.
  rounds::RoundEngine* ForDevice(std::string_view device) const;

 private:
  std::vector<rounds::RoundEngine*> engines_;  // by job id
};

// The job_id (field 2) of an encoded Update, read without decoding the
// rest; nullopt when the bytes do not parse that far.
std::optional<uint64_t> PeekUpdateJobId(const uint8_t* body, size_t size);

}  // namespace edgeadmm::server
