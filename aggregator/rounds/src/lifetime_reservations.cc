#include "edgeadmm/rounds/lifetime_reservations.h"

#include <utility>

namespace edgeadmm::rounds {
namespace {

// RDP composition: ε(α) adds order by order (Mironov 2017, Prop. 1).
void Compose(std::vector<double>& into, const std::vector<double>& curve) {
  if (into.size() < curve.size()) into.resize(curve.size(), 0.0);
  for (size_t i = 0; i < curve.size(); ++i) into[i] += curve[i];
}

}  // namespace

void LifetimeReservations::Reserve(
    int64_t job_id, std::unordered_set<std::string> local_devices,
    std::unordered_set<std::string> central_devices, Charge charge) {
  seen_.insert(job_id);
  by_job_[job_id] = Reservation{std::move(local_devices),
                                std::move(central_devices), std::move(charge)};
}

void LifetimeReservations::AddOthers(int64_t job_id, const std::string& device,
                                     std::vector<double>& local,
                                     std::vector<double>& central) const {
  for (const auto& [other, reservation] : by_job_) {
    if (other == job_id) continue;
    if (reservation.local_devices.count(device) != 0) {
      Compose(local, reservation.charge.local);
    }
    if (reservation.central_devices.count(device) != 0) {
      Compose(central, reservation.charge.central);
    }
  }
}

}  // namespace edgeadmm::rounds
