#include "edgeadmm/server/gateway_metrics.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "edgeadmm/host/version.h"
#include "edgeadmm/wire/protocol.h"

namespace edgeadmm::server {
namespace {

constexpr const char* kResourceNames[] = {"v1/task", "v1/update", "v1/model",
                                          "v1/status", "other"};
constexpr const char* kSessionEventNames[] = {
    "handshake_started", "handshake_done", "closed", "session_freed"};

int ResourceIndex(std::string_view path) {
  constexpr std::string_view kTask = wire::kTaskPath;
  if (path.substr(0, kTask.size()) == kTask &&
      (path.size() == kTask.size() || path[kTask.size()] == '/')) {
    return 0;  // v1/task and each job's v1/task/<name>
  }
  if (path == wire::kUpdatePath) return 1;
  if (path == wire::kModelPath) return 2;
  if (path == wire::kStatusPath) return 3;
  return 4;
}

// A sample value as Prometheus reads it ("+Inf", "NaN" or a number).
std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // The shortest decimal that reads back as `v` ("1e-05", not
  // "1.0000000000000001e-05"): labels stay readable and exact.
  char text[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {  // "30", not "3e+01"
    std::snprintf(text, sizeof(text), "%.0f", v);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

std::string Count(uint64_t v) { return std::to_string(v); }

// A label value with \, " and newline escaped (the format's rule).
std::string Escaped(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void Header(std::string& out, std::string_view name, const char* type,
            std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help);
  out.append("\n# TYPE ").append(name).append(" ").append(type).append("\n");
}

// {job="<name>"}.
std::string JobLabel(const JobGauges& job) {
  return "{job=\"" + Escaped(job.name) + "\"}";
}

}  // namespace

void GatewayMetrics::CountResponse(std::string_view resource, uint8_t code) {
  ++responses_[ResourceIndex(resource)][code];
}

void GatewayMetrics::CountSession(SessionEvent event) {
  ++sessions_[static_cast<int>(event)];
  if (event == SessionEvent::kHandshakeStarted) ++live_sessions_;
  if (event == SessionEvent::kSessionFreed && live_sessions_ > 0) {
    --live_sessions_;
  }
}

void GatewayMetrics::CountRound(bool committed, double seconds) {
  if (!committed) {
    ++rounds_discarded_;
    return;
  }
  ++rounds_committed_;
  round_durations_.Observe(kRoundBuckets, seconds);
}

void GatewayMetrics::Durations::Observe(const Buckets& bounds, double seconds) {
  ++count;
  sum += seconds;
  if (seconds > max) max = seconds;
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (seconds <= bounds[i]) ++buckets[i];
  }
}

void GatewayMetrics::RenderDurations(std::string& out, const std::string& name,
                                     const char* help, const Buckets& bounds,
                                     const Durations& durations) {
  Header(out, name, "histogram", help);
  for (size_t i = 0; i < bounds.size(); ++i) {
    out += name + "_bucket{le=\"" + Number(bounds[i]) + "\"} " +
           Count(durations.buckets[i]) + "\n";
  }
  out += name + "_bucket{le=\"+Inf\"} " + Count(durations.count) + "\n";
  out += name + "_sum " + Number(durations.sum) + "\n";
  out += name + "_count " + Count(durations.count) + "\n";
  Header(out, name + "_max", "gauge",
         "The longest of " + name + " since the daemon started.");
  out += name + "_max " + Number(durations.max) + "\n";
}

std::string GatewayMetrics::Render(const JobGauges& job) const {
  return Render(job.has_job ? std::vector<JobGauges>{job}
                            : std::vector<JobGauges>{});
}

void GatewayMetrics::RenderSessions(std::string& out) const {
  Header(out, "edgeadmm_dtls_session_events_total", "counter",
         "DTLS server session events (handshakes started and completed, "
         "sessions closed or failed, sessions freed).");
  for (size_t e = 0; e < sessions_.size(); ++e) {
    out += std::string("edgeadmm_dtls_session_events_total{event=\"") +
           kSessionEventNames[e] + "\"} " + Count(sessions_[e]) + "\n";
  }
  Header(out, "edgeadmm_dtls_sessions", "gauge",
         "DTLS server sessions alive (handshaking or established).");
  out += "edgeadmm_dtls_sessions " + std::to_string(live_sessions_) + "\n";
  Header(out, "edgeadmm_devices_connected", "gauge",
         "Devices (DTLS identities) with an established session that no "
         "newer one of theirs superseded.");
  out +=
      "edgeadmm_devices_connected " + std::to_string(devices_connected_) + "\n";
  Header(out, "edgeadmm_coap_resets_total", "counter",
         "CoAP RSTs received: mostly devices that no longer observe v1/task "
         "answering a notification.");
  out += "edgeadmm_coap_resets_total " + Count(coap_resets_) + "\n";
  Header(out, "edgeadmm_state_lock_held_seconds_total", "counter",
         "Time the daemon's state (its handlers, session events and tick) "
         "was held by a thread: the work [server] threads cannot spread.");
  out += "edgeadmm_state_lock_held_seconds_total " +
         Number(static_cast<double>(lock_held_ns_) / 1e9) + "\n";
  Header(out, "edgeadmm_state_lock_held_cpu_seconds_total", "counter",
         "CPU time the threads holding the daemon's state lock spent holding "
         "it (the wall time above also counts a holder descheduled).");
  out += "edgeadmm_state_lock_held_cpu_seconds_total " +
         Number(static_cast<double>(lock_held_cpu_ns_) / 1e9) + "\n";
  Header(out, "edgeadmm_state_lock_wait_seconds_total", "counter",
         "Time threads waited for the daemon's state lock.");
  out += "edgeadmm_state_lock_wait_seconds_total " +
         Number(static_cast<double>(lock_waited_ns_) / 1e9) + "\n";
  Header(out, "edgeadmm_handshake_admission_total", "counter",
         "ClientHellos from addresses without a session by the handshake "
         "admission's verdict, other datagrams from them dropped, and "
         "handshakes evicted for a newcomer.");
  const std::pair<const char*, uint64_t> verdicts[] = {
      {"passed_hello", admission_.passed_hellos},
      {"verify_request", admission_.verify_requests},
      {"over_source_limit", admission_.over_limit},
      {"over_capacity", admission_.over_capacity},
      {"replay", admission_.replays},
      {"evicted", admission_.evicted},
      {"dropped", admission_.dropped}};
  for (const auto& [verdict, count] : verdicts) {
    out += std::string("edgeadmm_handshake_admission_total{verdict=\"") +
           verdict + "\"} " + Count(count) + "\n";
  }
  Header(out, "edgeadmm_shard_sessions_total", "counter",
         "DTLS server sessions started per shard (libcoap context on the "
         "port, server.shards).");
  for (size_t i = 0; i < shards_; ++i) {
    out += "edgeadmm_shard_sessions_total{shard=\"" + std::to_string(i) +
           "\"} " + Count(shard_sessions_[i]) + "\n";
  }
}

std::string GatewayMetrics::Render(const std::vector<JobGauges>& jobs) const {
  std::string out;
  Header(out, "edgeadmm_build_info", "gauge",
         "The daemon's version (value 1).");
  out += std::string("edgeadmm_build_info{version=\"") +
         Escaped(EDGEADMM_VERSION) + "\"} 1\n";
  Header(out, "edgeadmm_coap_responses_total", "counter",
         "CoAP responses sent, by resource and response code (class.detail).");
  for (int r = 0; r < kResources; ++r) {
    for (int code = 0; code < kCodes; ++code) {
      if (responses_[r][code] == 0) continue;
      char code_text[16];
      std::snprintf(code_text, sizeof(code_text), "%d.%02d", code >> 5,
                    code & 31);
      out += std::string("edgeadmm_coap_responses_total{resource=\"") +
             kResourceNames[r] + "\",code=\"" + code_text + "\"} " +
             Count(responses_[r][code]) + "\n";
    }
  }
  RenderSessions(out);
  Header(out, "edgeadmm_store_group_syncs_total", "counter",
         "WAL syncs that ended an I/O pass with commits in it "
         "(server.group_commit: one fsync for the pass's commits).");
  out += "edgeadmm_store_group_syncs_total " + Count(group_syncs_) + "\n";
  Header(out, "edgeadmm_store_group_commits_total", "counter",
         "Commits made durable by those syncs.");
  out += "edgeadmm_store_group_commits_total " + Count(group_commits_) + "\n";
  Header(out, "edgeadmm_held_datagrams_dropped_total", "counter",
         "Datagrams held until their pass's WAL sync and then dropped (past "
         "the hold's limits, refused by the kernel, or a failed sync).");
  out += "edgeadmm_held_datagrams_dropped_total " + Count(held_sends_dropped_) +
         "\n";
  Header(out, "edgeadmm_rounds_total", "counter",
         "Rounds of the jobs served since the daemon started, by outcome.");
  out += "edgeadmm_rounds_total{outcome=\"committed\"} " +
         Count(rounds_committed_) + "\n";
  out += "edgeadmm_rounds_total{outcome=\"discarded\"} " +
         Count(rounds_discarded_) + "\n";
  Header(out, "edgeadmm_release_holds_total", "counter",
         "Trusted-aggregator releases held to deadline + release_delay_ms, "
         "by outcome (overrun: the close took longer, its time not padded).");
  out += "edgeadmm_release_holds_total{outcome=\"held\"} " +
         Count(release_holds_) + "\n";
  out += "edgeadmm_release_holds_total{outcome=\"overrun\"} " +
         Count(release_overruns_) + "\n";
  RenderDurations(out, "edgeadmm_round_duration_seconds",
                  "Time from a round's opening to its commit.", kRoundBuckets,
                  round_durations_);
  RenderDurations(out, "edgeadmm_round_commit_delay_seconds",
                  "Time from the last upload a complete round accepted to "
                  "the round's durable commit.",
                  kCommitDelayBuckets, commit_delay_);
  // One family each, a sample per loaded job.
  if (jobs.empty()) return out;
  Header(out, "edgeadmm_job_iteration", "gauge",
         "Committed rounds of each loaded job.");
  for (const JobGauges& job : jobs) {
    out += "edgeadmm_job_iteration" + JobLabel(job) + " " +
           std::to_string(job.iteration) + "\n";
  }
  Header(out, "edgeadmm_job_rounds", "gauge",
         "Rounds each loaded job is to commit.");
  for (const JobGauges& job : jobs) {
    out += "edgeadmm_job_rounds" + JobLabel(job) + " " +
           std::to_string(job.rounds) + "\n";
  }
  Header(out, "edgeadmm_job_round_open", "gauge",
         "1 while a round of the job is open.");
  for (const JobGauges& job : jobs) {
    out += "edgeadmm_job_round_open" + JobLabel(job) + " " +
           (job.round_open ? "1" : "0") + "\n";
  }
  Header(out, "edgeadmm_job_central_epsilon", "gauge",
         "Central epsilon charged so far to the job's released "
         "models (docs/privacy.md; the labels give delta and accountant).");
  for (const JobGauges& job : jobs) {
    out += "edgeadmm_job_central_epsilon{job=\"" + Escaped(job.name) +
           "\",delta=\"" + Number(job.delta) + "\",accountant=\"" +
           Escaped(job.accountant) + "\"} " + Number(job.central_epsilon) +
           "\n";
  }
  return out;
}

}  // namespace edgeadmm::server
