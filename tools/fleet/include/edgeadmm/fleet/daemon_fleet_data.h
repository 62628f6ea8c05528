// The data side of DaemonFleet (edgeadmm-fleet connect): the data set read
// and split among the devices (records, or column blocks of the same
// records for a vertical job), and each device's penalty schedule.
#pragma once

#include <cstddef>
#include <vector>

#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/fleet/daemon_fleet.h"
#include "edgeadmm/fleet/data_split.h"
#include "edgeadmm/host/error.h"
#include "edgeadmm/penalty_schedule.h"

namespace edgeadmm::fleet {

// What the devices train on and the sizes their shared buffers need.
struct FleetData {
  DenseDataset data;
  std::vector<RecordRange> shards;        // horizontal: device i's records
  std::vector<DenseDataset> blocks;       // vertical: device i's columns
  std::vector<DenseDataset> test_blocks;  // vertical: its test columns
  size_t max_samples = 0;
  size_t max_dim = 0;
  size_t max_vector = 0;
};

// Loads the data set and splits it among `devices` devices.
host::ErrorOr<FleetData> LoadFleetData(const DaemonFleetConfig& config,
                                       size_t devices);

// The penalty schedule of each of `devices` devices (pp-admm): the
// config's, resolved from options, or one given per device.
host::ErrorOr<std::vector<PenaltySchedule>> Schedules(
    const DaemonFleetConfig& config, size_t devices);

}  // namespace edgeadmm::fleet
