#include "edgeadmm/fleet/fleet_progress.h"

namespace edgeadmm::fleet {

void PrintSessionEnds(std::FILE* out, const posix::SessionEnds& ends) {
  std::fprintf(out,
               "session ends: %u refresh, %u handshake timeout, %u silence, "
               "%u retries exhausted, %u reset, %u dtls failure, %u lost",
               ends.refreshes, ends.handshake_timeouts, ends.silences,
               ends.retries_exhausted, ends.resets, ends.dtls_failures,
               ends.lost);
}

FleetProgress::FleetProgress(std::FILE* out, uint32_t interval_ms,
                             int watch_pid)
    : out_(out), interval_ms_(interval_ms), watch_pid_(watch_pid) {
  if (watch_pid_ > 0) have_usage_ = ReadProcessUsage(watch_pid_, &last_usage_);
}

void FleetProgress::Print(uint64_t now_ms, const FleetSample& s) {
  if (out_ == nullptr) return;
  const double dt = static_cast<double>(now_ms - last_ms_) / 1000.0;
  const uint64_t uploads = s.counters.uploads_accepted;
  const double handshake_rate =
      dt > 0 ? static_cast<double>(s.handshakes - last_handshakes_) / dt : 0;
  const double upload_rate =
      dt > 0 ? static_cast<double>(uploads - last_uploads_) / dt : 0;
  std::fprintf(out_,
               "fleet: %zu/%zu devices done, %zu connected, %llu steps, "
               "%llu uploads accepted, %llu transport errors; t=%.3f s "
               "sessions=%zu registered=%zu away=%zu handshakes=%llu (%.0f/s) "
               "uploads=%.0f/s",
               s.done, s.devices, s.connected,
               static_cast<unsigned long long>(s.counters.steps_computed),
               static_cast<unsigned long long>(uploads),
               static_cast<unsigned long long>(s.counters.transport_errors),
               static_cast<double>(now_ms) / 1000.0, s.sessions, s.registered,
               s.away, static_cast<unsigned long long>(s.handshakes),
               handshake_rate, upload_rate);
  std::fprintf(out_, " notifications=%llu; ",
               static_cast<unsigned long long>(s.notifications));
  PrintSessionEnds(out_, s.session_ends);
  ProcessUsage usage;
  if (watch_pid_ > 0 && ReadProcessUsage(watch_pid_, &usage)) {
    const double cpu =
        have_usage_ && dt > 0
            ? 100.0 * (usage.cpu_seconds - last_usage_.cpu_seconds) / dt
            : 0;
    std::fprintf(out_, " server_rss_kib=%zu server_cpu_s=%.2f cpu=%.0f%%",
                 usage.rss_bytes / 1024, usage.cpu_seconds, cpu);
    last_usage_ = usage;
    have_usage_ = true;
  }
  std::fprintf(out_, "\n");
  std::fflush(out_);
  last_ms_ = now_ms;
  last_handshakes_ = s.handshakes;
  last_uploads_ = uploads;
}

}  // namespace edgeadmm::fleet
