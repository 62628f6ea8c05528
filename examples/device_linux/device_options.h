// Command-line options of edgeadmm-device (flags, or `--config FILE` with one
// `name = value` per line using the same names).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace edgeadmm::device {

// The device's CoAP/DTLS stack (device_transport.h).
enum class DeviceTransportKind { kLibcoap, kSdk };

struct DeviceOptions {
  std::string host = "127.0.0.1";  // aggregator address (numeric)
  uint16_t port = 5684;
  // Further gateways of the deployment, "HOST:PORT" (--gateway, repeatable;
  // either transport): the device moves to the next when the one in use
  // is silent or serves no job (FailoverTransport).
  std::vector<std::pair<std::string, uint16_t>> more_gateways;
  std::string identity;  // device id = DTLS PSK identity
  std::string psk_file;  // hex PSK, as written by `edgeadmm devices add`
  std::string data;      // LIBSVM or Adult CSV (plain or .xz)
  std::string format = "libsvm";
  uint32_t dim = 123;  // LIBSVM dimension
  uint64_t first = 0;  // first record of the shard
  uint64_t count = 0;  // records (0: to the end)
  // admm-sharing (papers 000/003, vertical partition): this party's column
  // block [first_column, first_column + columns) of the file's columns
  // (0-based); columns = 0: every column (horizontal jobs). With a block the
  // device's vectors are N = its record count long (the task's u_m and y,
  // the share).
  uint64_t first_column = 0;
  uint64_t columns = 0;
  // admm-sharing's scoring phase (with --columns): the job's test set
  // (LIBSVM, same dimension) of which the device holds the same column block
  // of the first test_count records.
  std::string test_data;
  uint64_t test_count = 0;
  // A streaming party (with --columns and --transport sdk): the task's and
  // the upload's N-vectors go through in blocks of this many rows, so the
  // device holds O(B), not O(N) (DeviceClientConfig::stream_rows); 0: whole.
  uint64_t stream_rows = 0;
  // Secure-aggregation rounds (DeviceClientConfig::secagg_max_neighbours):
  // the most neighbours k of a round the device joins (of any size); 0: a
  // task with a plan is refused.
  uint64_t secagg_neighbours = 0;
  std::string state_dir;        // persisted record (created if missing)
  double epsilon_budget = 1.0;  // per job
  // All jobs together (the state dir keeps the earlier jobs' ledger); inf:
  // no lifetime limit.
  double lifetime_epsilon = std::numeric_limits<double>::infinity();
  double delta = 1e-5;
  bool observe = true;
  uint32_t refresh_ms = 30000;
  uint32_t refresh_max_ms = 120000;  // quiet refreshes double up to this
  uint32_t retry_max_ms = 60000;     // longest backoff between retries
  uint32_t ack_timeout_ms = 2000;    // CoAP ACK_TIMEOUT
  // An exchange that heard nothing from the daemon for this long fails and
  // the next one handshakes again (a restarted daemon); 0: wait for the CoAP
  // retransmissions.
  uint32_t silence_timeout_ms = 10000;
  // libcoap transport: a DTLS handshake not completed after this long fails
  // the exchange (CoapDtlsConfig::handshake_timeout_ms); 0: that default.
  uint32_t handshake_timeout_ms = 0;
  DeviceTransportKind transport = DeviceTransportKind::kLibcoap;
  // Exit 0 after this many uploads were settled (receipt, stale or
  // rejected; 0: never).
  uint32_t max_uploads = 0;
  uint32_t timeout_s = 0;  // exit 4 after this long (0: never)
  // Fault injection: exit 3 right after persisting a new upload.
  bool halt_after_persist = false;
  // pp-admm (paper 001): this device's private schedules η(t) = min(η₁
  // q₁^{t−1}, η_max), α(t) = α₁ q₂^{t−1} (PenaltySchedule's defaults).
  double pp_eta1 = 0.5;
  double pp_eta_growth = 1.0;
  double pp_eta_max = 1e6;
  double pp_alpha1 = 3.0;
  double pp_alpha_growth = 1.0;
  // β_max: refuse a pp-admm job whose ε_i(T) would exceed it (inf: no cap).
  double pp_max_loss = std::numeric_limits<double>::infinity();
};

// Parses argv (and the config file it names). Returns false and prints why
// on stderr for a bad or missing option; `help` is set for --help.
bool ParseDeviceOptions(int argc, char** argv, DeviceOptions& options,
                        bool& help);

// The usage text.
const char* DeviceUsage();

}  // namespace edgeadmm::device
