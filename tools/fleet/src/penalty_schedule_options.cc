// Device-held pp-admm schedules from edgeadmm-fleet connect's options (see
// the header).
#include "edgeadmm/fleet/penalty_schedule_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace edgeadmm::fleet {

host::ErrorOr<std::vector<double>> ParseValueList(const std::string& text,
                                                  const std::string& option) {
  std::vector<double> values;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const std::string item = text.substr(
        begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (item.empty()) {
      return host::Error::InvalidArgument(option + ": empty value in '" + text +
                                          "'");
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0' || errno == ERANGE ||
        !std::isfinite(v)) {
      return host::Error::InvalidArgument(option + ": '" + item +
                                          "' is not a finite number");
    }
    values.push_back(v);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return values;
}

namespace {

// Sets `field` of every schedule from `text` (one value or one per device).
host::Error Apply(const std::string& text, const std::string& option,
                  double PenaltySchedule::*field,
                  std::vector<PenaltySchedule>& schedules) {
  if (text.empty()) return host::Error::Ok();
  EDGEADMM_HOST_TRY_ASSIGN(const std::vector<double> values,
                           ParseValueList(text, option));
  if (values.size() != 1 && values.size() != schedules.size()) {
    return host::Error::InvalidArgument(
        option + ": " + std::to_string(values.size()) + " values for " +
        std::to_string(schedules.size()) +
        " devices (give one value for all, or one per device in PSK file "
        "order)");
  }
  for (size_t i = 0; i < schedules.size(); ++i) {
    schedules[i].*field = values.size() == 1 ? values[0] : values[i];
  }
  return host::Error::Ok();
}

std::string Where(const std::string& option, size_t i, size_t n) {
  return n == 1 ? option : option + " (device " + std::to_string(i) + ")";
}

}  // namespace

host::ErrorOr<std::vector<PenaltySchedule>> ResolvePenaltySchedules(
    const PenaltyScheduleOptions& options, size_t devices) {
  if (devices == 0) return host::Error::InvalidArgument("no devices");
  std::vector<PenaltySchedule> s(devices);
  EDGEADMM_HOST_TRY(
      Apply(options.eta1, "--pp-eta1", &PenaltySchedule::eta1, s));
  EDGEADMM_HOST_TRY(Apply(options.eta_growth, "--pp-eta-growth",
                          &PenaltySchedule::eta_growth, s));
  EDGEADMM_HOST_TRY(
      Apply(options.eta_max, "--pp-eta-max", &PenaltySchedule::eta_max, s));
  EDGEADMM_HOST_TRY(
      Apply(options.alpha1, "--pp-alpha1", &PenaltySchedule::alpha1, s));
  EDGEADMM_HOST_TRY(Apply(options.alpha_growth, "--pp-alpha-growth",
                          &PenaltySchedule::alpha_growth, s));
  EDGEADMM_HOST_TRY(
      Apply(options.max_loss, "--pp-max-loss", &PenaltySchedule::max_loss, s));
  for (size_t i = 0; i < devices; ++i) {
    const PenaltySchedule& p = s[i];
    if (!(p.eta1 > 0)) {
      return host::Error::InvalidArgument(Where("--pp-eta1", i, devices) +
                                          " must be > 0 (and >= the job's "
                                          "theta), got " +
                                          std::to_string(p.eta1));
    }
    if (!(p.eta_growth >= 1)) {
      return host::Error::InvalidArgument(
          Where("--pp-eta-growth", i, devices) +
          " must be >= 1 (paper 001 Thm. 3.1: a non-decreasing penalty), "
          "got " +
          std::to_string(p.eta_growth));
    }
    if (!(p.eta_max >= p.eta1)) {
      return host::Error::InvalidArgument(
          Where("--pp-eta-max", i, devices) + " must be >= --pp-eta1 (" +
          std::to_string(p.eta1) + "), got " + std::to_string(p.eta_max));
    }
    if (!(p.alpha1 > 0)) {
      return host::Error::InvalidArgument(Where("--pp-alpha1", i, devices) +
                                          " must be > 0, got " +
                                          std::to_string(p.alpha1));
    }
    if (!(p.alpha_growth > 0)) {
      return host::Error::InvalidArgument(
          Where("--pp-alpha-growth", i, devices) + " must be > 0, got " +
          std::to_string(p.alpha_growth));
    }
    if (!(p.max_loss >= 0)) {
      return host::Error::InvalidArgument(Where("--pp-max-loss", i, devices) +
                                          " must be >= 0, got " +
                                          std::to_string(p.max_loss));
    }
  }
  return s;
}

}  // namespace edgeadmm::fleet
