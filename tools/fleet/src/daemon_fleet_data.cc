#include "edgeadmm/fleet/daemon_fleet_data.h"

#include <string>
#include <utility>

#include "edgeadmm/dataio/dataset_source.h"
#include "edgeadmm/fleet/penalty_schedule_options.h"

namespace edgeadmm::fleet {
namespace {

// The parties' column blocks (config.column_blocks) of the first `records`
// records of `data` (0: all), or none.
host::ErrorOr<std::vector<DenseDataset>> ColumnBlocks(
    const DaemonFleetConfig& config, const DenseDataset& data, size_t devices,
    size_t wanted_records) {
  std::vector<DenseDataset> blocks;
  if (config.column_blocks.empty()) return blocks;
  if (config.column_blocks.size() != devices) {
    return host::Error::InvalidArgument(
        "--column-blocks: one block per device (" + std::to_string(devices) +
        " PSK files), got " + std::to_string(config.column_blocks.size()));
  }
  const size_t records = wanted_records != 0 ? wanted_records : data.samples;
  size_t first = 0;
  for (size_t columns : config.column_blocks) {
    Result<DenseDataset> block = ColumnBlock(data, first, columns, records);
    if (!block.ok()) {
      return host::Error(block.status(),
                         "--column-blocks/--records: columns [" +
                             std::to_string(first) + ", +" +
                             std::to_string(columns) + ") of " +
                             std::to_string(records) +
                             " records do not fit "
                             "the data (" +
                             std::to_string(data.samples) + " x " +
                             std::to_string(data.dim) + ")");
    }
    blocks.push_back(std::move(block).value());
    first += columns;
  }
  if (first != data.dim) {
    return host::Error::InvalidArgument(
        "--column-blocks: the blocks cover " + std::to_string(first) +
        " columns, the data has " + std::to_string(data.dim));
  }
  return blocks;
}

}  // namespace

// The penalty schedule of each of `devices` devices (pp-admm): the
// config's, resolved from options, or one given per device.
host::ErrorOr<std::vector<PenaltySchedule>> Schedules(
    const DaemonFleetConfig& config, size_t devices) {
  std::vector<PenaltySchedule> schedules(devices, config.penalty_schedule);
  if (!config.penalty_options.empty()) {
    if (!config.penalty_schedules.empty()) {
      return host::Error::InvalidArgument(
          "penalty schedules given both as options and per device");
    }
    EDGEADMM_HOST_TRY_ASSIGN(
        schedules, ResolvePenaltySchedules(config.penalty_options, devices));
  } else if (!config.penalty_schedules.empty()) {
    if (config.penalty_schedules.size() != devices) {
      return host::Error::InvalidArgument(
          std::to_string(config.penalty_schedules.size()) +
          " penalty schedules for " + std::to_string(devices) + " devices");
    }
    schedules = config.penalty_schedules;
  }
  return schedules;
}

// Loads the data set and splits it among `devices` devices.
host::ErrorOr<FleetData> LoadFleetData(const DaemonFleetConfig& config,
                                       size_t devices) {
  DatasetSource source;
  source.path = config.data_path;
  source.format = config.format;
  source.dim = config.format == DataFormat::kAdultCsv ? 0 : config.dim;
  source.labels = config.labels;
  source.normalization = config.normalization;
  FleetData f;
  EDGEADMM_HOST_TRY_ASSIGN(f.data, LoadDataset(source));
  const DenseDataset& data = f.data;
  if (!config.shard_sizes.empty() &&
      (config.shard_sizes.size() != devices || !config.column_blocks.empty())) {
    return host::Error::InvalidArgument(
        "--shard-sizes: one size per device (" + std::to_string(devices) +
        " PSK files), got " + std::to_string(config.shard_sizes.size()) +
        "; not with --column-blocks");
  }
  auto shards = config.shard_sizes.empty()
                    ? SplitRecords(data.samples, devices)
                    : SplitRecordsBySize(data.samples, config.shard_sizes);
  if (!shards.ok()) {
    return host::Error(shards.status(),
                       config.shard_sizes.empty()
                           ? "more devices than records"
                           : "--shard-sizes: a size is 0 or they add up to "
                             "more than the " +
                                 std::to_string(data.samples) + " records");
  }
  f.shards = std::move(shards).value();
  for (const RecordRange& r : f.shards) {
    f.max_samples = std::max(f.max_samples, r.count);
  }
  // Vertical partition (admm-sharing): device i holds column block i of the
  // same records; its vectors are N = records long.
  EDGEADMM_HOST_TRY_ASSIGN(f.blocks,
                           ColumnBlocks(config, data, devices, config.records));
  // The scoring phase: each party's block of the test records, too.
  if (!config.test_data_path.empty()) {
    if (f.blocks.empty() || config.test_records == 0) {
      return host::Error::InvalidArgument(
          "--test-data needs --column-blocks and --test-records");
    }
    EDGEADMM_HOST_TRY_ASSIGN(const DenseDataset test,
                             ReadLibsvmFile(config.test_data_path, data.dim));
    EDGEADMM_HOST_TRY_ASSIGN(f.test_blocks, ColumnBlocks(config, test, devices,
                                                         config.test_records));
  }
  f.max_dim = data.dim;
  if (!f.blocks.empty()) {
    f.max_samples = f.blocks[0].samples;
    // The last upload of a scoring phase: the share and the test scores.
    f.max_vector = f.blocks[0].samples +
                   (f.test_blocks.empty() ? 0 : f.test_blocks[0].samples);
    f.max_dim = 0;
    for (const DenseDataset& b : f.blocks) {
      f.max_dim = std::max(f.max_dim, b.dim);
    }
  }
  return f;
}

}  // namespace edgeadmm::fleet
