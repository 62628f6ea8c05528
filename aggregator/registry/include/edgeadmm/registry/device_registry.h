// DeviceRegistry: enrolled devices and their PSKs, kept in the store.
//
// The DTLS PSK identity of a device is its id. A disabled or removed device
// has no PSK to offer, so it cannot complete a handshake.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "edgeadmm/result.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::registry {

// Length of generated PSKs in bytes (128 bits, the DTLS PSK cipher suites'
// key strength).
inline constexpr size_t kPskBytes = 16;
// Longest device id accepted (it is also the PSK identity on the wire).
inline constexpr size_t kMaxDeviceIdLength = 64;

// A device's privacy budget across all its jobs (docs/privacy.md,
// "Lifetime budget"), enforced by an RDP filter (privacy/rdp_filter.h) on
// the sum of one kind of its ledgers: the local ones (every job's
// `local:<id>` curve, against the gateway) or the central ones (every job's
// `central:<id>` curve, or `central` for a trusted-aggregator job, against
// release observers).
struct LifetimeBudget {
  double epsilon = 0;  // > 0, finite
  double delta = 0;    // in (0, 1)
};

struct DeviceRecord {
  std::string id;
  bool enabled = true;
  int64_t created_at = 0;                  // Unix seconds.
  std::optional<LifetimeBudget> lifetime;  // local; none: no limit
  std::optional<LifetimeBudget> central;   // central; none: no limit
};

// Which of a device's ledgers a lifetime budget bounds.
enum class LifetimeLedger { kLocal, kCentral };

// True if `id` is 1..kMaxDeviceIdLength characters of [A-Za-z0-9._-].
bool IsValidDeviceId(std::string_view id);

class DeviceRegistry {
 public:
  explicit DeviceRegistry(store::Database& db) : db_(&db) {}

  // Enrolls `id` with a fresh random PSK and returns the PSK (the only time
  // it leaves the registry in clear). INVALID_ARGUMENT for a bad id,
  // ALREADY_EXISTS if enrolled, UNAVAILABLE without entropy.
  Result<std::vector<uint8_t>> Add(std::string_view id);
  // Bulk enrolment: enrolls every id of `ids` in ONE transaction (all or
  // none) with one prepared statement, and returns their PSKs in the same
  // order. INVALID_ARGUMENT for a bad or empty list or a bad id,
  // ALREADY_EXISTS if an id is enrolled or repeated in the list; on error
  // `*failed` (if not null) is the index of the offending id (ids.size() when
  // no single id is to blame) and nothing is enrolled. `before_commit` (if
  // set) sees the PSKs inside the transaction (e.g. to write key files); an
  // error from it rolls everything back and is returned.
  using PskList = std::vector<std::vector<uint8_t>>;
  Result<PskList> AddMany(
      const std::vector<std::string>& ids, size_t* failed = nullptr,
      const std::function<Status(const PskList&)>& before_commit = {});
  // All devices ordered by id. INTERNAL on store errors.
  Result<std::vector<DeviceRecord>> List() const;
  // One device; NOT_FOUND if unknown.
  Result<DeviceRecord> Get(std::string_view id) const;
  // Disables / re-enables a device. NOT_FOUND if unknown.
  Status Disable(std::string_view id);
  Status Enable(std::string_view id);
  // Deletes the device and its PSK. NOT_FOUND if unknown.
  Status Remove(std::string_view id);
  // Replaces the PSK of `id` with a fresh random one and returns it; the
  // next handshake needs it (sessions already open keep theirs until they
  // end). `before_commit` (if set) sees it inside the transaction; its
  // error rolls back. NOT_FOUND if unknown, UNAVAILABLE without entropy.
  Result<std::vector<uint8_t>> RotatePsk(
      std::string_view id,
      const std::function<Status(const std::vector<uint8_t>&)>& before_commit =
          {});
  // Sets the lifetime budget of `id` on its `ledger`s, or removes it
  // (nullopt: no limit). INVALID_ARGUMENT unless 0 < epsilon < inf and
  // 0 < delta < 1; NOT_FOUND if unknown.
  Status SetLifetimeBudget(std::string_view id,
                           std::optional<LifetimeBudget> budget,
                           LifetimeLedger ledger = LifetimeLedger::kLocal);
  // True if `id` is enrolled and enabled; false if disabled or unknown
  // (asked on every request: a cached statement).
  Result<bool> IsEnabled(std::string_view id) const;
  // The PSK for a handshake by `id`: NOT_FOUND if unknown,
  // PERMISSION_DENIED if disabled.
  Result<std::vector<uint8_t>> LookupPsk(std::string_view id) const;

 private:
  Status SetEnabled(std::string_view id, bool enabled);
  // Raises registry_changes.version: every gateway's RevocationWatch on
  // PostgreSQL looks at its sessions when it moves.
  Status CountRevocation();
  store::Database* db_;
};

}  // namespace edgeadmm::registry
