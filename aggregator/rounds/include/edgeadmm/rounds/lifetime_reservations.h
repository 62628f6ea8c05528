// LifetimeReservations: the worst-case charge of every open round of the
// jobs one daemon runs at once, per cohort member (docs/privacy.md,
// "Lifetime budget across concurrent jobs"). A job's lifetime check at round
// open counts the other jobs' reservations on top of their stored curves, so
// two rounds that open while neither has charged cannot together exceed a
// device's budget. A round reserves at open and releases at its commit or
// discard (its charges are in the store by then).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace edgeadmm::rounds {

class LifetimeReservations {
 public:
  // RDP curves at the accountant's orders (empty: none of that kind).
  struct Charge {
    std::vector<double> local;
    std::vector<double> central;
  };
  // Job `job_id`'s open round reserves `charge.local` for each of
  // `local_devices` (its cohort) and `charge.central` for each of
  // `central_devices` (its cohort, or under trusted-aggregator, whose one
  // central curve every device of the job is charged, all of them);
  // replaces the job's earlier reservation.
  void Reserve(int64_t job_id, std::unordered_set<std::string> local_devices,
               std::unordered_set<std::string> central_devices, Charge charge);
  void Release(int64_t job_id) { by_job_.erase(job_id); }
  // Composes into `local` and `central` (RDP: added order by order) the
  // reservation of every job but `job_id` whose open round holds `device`.
  void AddOthers(int64_t job_id, const std::string& device,
                 std::vector<double>& local,
                 std::vector<double>& central) const;
  bool empty() const { return by_job_.empty(); }
  // True once a job other than `job_id` has reserved: its curves may have
  // grown since `job_id`'s engine read them.
  bool OthersSeen(int64_t job_id) const {
    return seen_.size() > 1 || (seen_.size() == 1 && *seen_.begin() != job_id);
  }

 private:
  struct Reservation {
    std::unordered_set<std::string> local_devices;
    std::unordered_set<std::string> central_devices;
    Charge charge;
  };
  std::map<int64_t, Reservation> by_job_;
  std::set<int64_t> seen_;  // every job that reserved
};

}  // namespace edgeadmm::rounds
