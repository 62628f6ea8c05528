#include "device_options.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace edgeadmm::device {
namespace {

bool ParseNumber(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && end != nullptr && *end == '\0';
}

template <typename T>
bool ParseUnsigned(const std::string& text, T& out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' ||
      v > static_cast<unsigned long long>(static_cast<T>(-1))) {
    return false;
  }
  out = static_cast<T>(v);
  return true;
}

// "FIRST:COUNT" (0-based first column, COUNT >= 1).
bool ParseColumns(const std::string& text, uint64_t& first, uint64_t& count) {
  const size_t colon = text.find(':');
  return colon != std::string::npos &&
         ParseUnsigned(text.substr(0, colon), first) &&
         ParseUnsigned(text.substr(colon + 1), count) && count >= 1;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  const size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Sets one option by name; false for an unknown name or a bad value.
bool Set(DeviceOptions& o, const std::string& name, const std::string& value) {
  if (name == "host") return o.host = value, !value.empty();
  if (name == "port") return ParseUnsigned(value, o.port);
  if (name == "gateway") {
    // HOST:PORT, the port after the last ':'.
    const size_t colon = value.rfind(':');
    uint16_t port = 0;
    if (colon == std::string::npos || colon == 0 ||
        !ParseUnsigned(value.substr(colon + 1), port) || port == 0) {
      return false;
    }
    o.more_gateways.emplace_back(value.substr(0, colon), port);
    return true;
  }
  if (name == "identity") return o.identity = value, !value.empty();
  if (name == "psk-file") return o.psk_file = value, !value.empty();
  if (name == "data") return o.data = value, !value.empty();
  if (name == "format") {
    o.format = value;
    return value == "libsvm" || value == "csv";
  }
  if (name == "dim") return ParseUnsigned(value, o.dim);
  if (name == "first") return ParseUnsigned(value, o.first);
  if (name == "count") return ParseUnsigned(value, o.count);
  if (name == "columns") {
    return ParseColumns(value, o.first_column, o.columns);
  }
  if (name == "test-data") return o.test_data = value, !value.empty();
  if (name == "test-count") return ParseUnsigned(value, o.test_count);
  if (name == "stream-rows") return ParseUnsigned(value, o.stream_rows);
  if (name == "secagg-neighbours") {
    return ParseUnsigned(value, o.secagg_neighbours);
  }
  if (name == "state-dir") return o.state_dir = value, !value.empty();
  if (name == "epsilon-budget") return ParseNumber(value, o.epsilon_budget);
  if (name == "lifetime-epsilon") {
    return ParseNumber(value, o.lifetime_epsilon);
  }
  if (name == "delta") return ParseNumber(value, o.delta);
  if (name == "refresh-ms") return ParseUnsigned(value, o.refresh_ms);
  if (name == "refresh-max-ms") return ParseUnsigned(value, o.refresh_max_ms);
  if (name == "max-uploads") return ParseUnsigned(value, o.max_uploads);
  if (name == "retry-max-ms") return ParseUnsigned(value, o.retry_max_ms);
  if (name == "ack-timeout-ms") return ParseUnsigned(value, o.ack_timeout_ms);
  if (name == "silence-timeout-ms") {
    return ParseUnsigned(value, o.silence_timeout_ms);
  }
  if (name == "handshake-timeout-ms") {
    return ParseUnsigned(value, o.handshake_timeout_ms) &&
           o.handshake_timeout_ms > 0;
  }
  if (name == "transport") {
    if (value == "libcoap")
      return o.transport = DeviceTransportKind::kLibcoap, true;
    if (value == "sdk") return o.transport = DeviceTransportKind::kSdk, true;
    return false;
  }
  if (name == "timeout-s") return ParseUnsigned(value, o.timeout_s);
  if (name == "pp-eta1") return ParseNumber(value, o.pp_eta1);
  if (name == "pp-eta-growth") return ParseNumber(value, o.pp_eta_growth);
  if (name == "pp-eta-max") return ParseNumber(value, o.pp_eta_max);
  if (name == "pp-alpha1") return ParseNumber(value, o.pp_alpha1);
  if (name == "pp-alpha-growth") return ParseNumber(value, o.pp_alpha_growth);
  if (name == "pp-max-loss") return ParseNumber(value, o.pp_max_loss);
  return false;
}

bool ReadConfigFile(const std::string& path, DeviceOptions& o) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "edgeadmm-device: cannot read %s\n", path.c_str());
    return false;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos ||
        !Set(o, Trim(line.substr(0, eq)), Trim(line.substr(eq + 1)))) {
      std::fprintf(stderr, "edgeadmm-device: %s:%d: bad line\n", path.c_str(),
                   n);
      return false;
    }
  }
  return true;
}

}  // namespace

const char* DeviceUsage() {
  return "usage: edgeadmm-device --identity ID --psk-file F --data FILE "
         "--state-dir DIR\n"
         "  [--host 127.0.0.1] [--port 5684] [--format libsvm|csv] [--dim "
         "123]\n"
         "  [--gateway HOST:PORT (repeatable: further gateways, tried in "
         "turn when the one\n   in use is silent or serves no job)]\n"
         "  [--first N] [--count N] [--epsilon-budget E] [--delta D]\n"
         "  [--columns FIRST:COUNT (admm-sharing: this party's column block, "
         "0-based)]\n"
         "  [--test-data FILE --test-count K (with --columns: the block of "
         "the job's\n   first K test records, scored in the last round)]\n"
         "  [--stream-rows B (with --columns and --transport sdk: stream the "
         "N-vectors\n   in blocks of B rows)]\n"
         "  [--secagg-neighbours K (join secure-aggregation rounds of at "
         "most K\n   neighbours)]\n"
         "  [--lifetime-epsilon E (all jobs; default: no limit)]\n"
         "  [--no-observe] [--refresh-ms MS] [--refresh-max-ms MS] "
         "[--max-uploads N] [--timeout-s "
         "S]\n"
         "  [--halt-after-persist] [--config FILE]\n"
         "  [--transport libcoap|sdk (default libcoap; sdk: the SDK's CoAP "
         "client over\n   Mbed TLS, as on the MCU, which streams)]\n"
         "  [--ack-timeout-ms MS (2000)] [--silence-timeout-ms MS (10000; 0: "
         "none)]\n"
         "  [--handshake-timeout-ms MS (libcoap transport: 5000; raise it on "
         "a lossy link)]\n"
         "  [--version (print the version, exit 0)]\n"
         "  [--pp-eta1 E] [--pp-eta-growth Q1] [--pp-eta-max M] [--pp-alpha1 "
         "A]\n  [--pp-alpha-growth Q2] (pp-admm: this device's private "
         "schedules, never sent)\n"
         "  [--pp-max-loss P] (pp-admm: refuse a job whose epsilon_i(T) "
         "would exceed P)\n"
         "exit: 0 done (job finished or --max-uploads settled), 1 error,\n"
         "  2 usage, 3 halted after persisting (--halt-after-persist), 4 "
         "timeout,\n  5 stopped by SIGTERM/SIGINT\n";
}

bool ParseDeviceOptions(int argc, char** argv, DeviceOptions& o, bool& help) {
  help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help = true;
      return true;
    }
    if (arg == "--no-observe") {
      o.observe = false;
      continue;
    }
    if (arg == "--halt-after-persist") {
      o.halt_after_persist = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || i + 1 >= argc) {
      std::fprintf(stderr, "edgeadmm-device: bad argument %s\n", arg.c_str());
      return false;
    }
    const std::string name = arg.substr(2);
    const std::string value = argv[++i];
    if (name == "config") {
      if (!ReadConfigFile(value, o)) return false;
    } else if (!Set(o, name, value)) {
      std::fprintf(stderr, "edgeadmm-device: bad option --%s %s\n",
                   name.c_str(), value.c_str());
      return false;
    }
  }
  if (o.identity.empty() || o.psk_file.empty() || o.data.empty() ||
      o.state_dir.empty()) {
    std::fprintf(stderr,
                 "edgeadmm-device: --identity, --psk-file, --data and "
                 "--state-dir are required\n");
    return false;
  }
  // admm-sharing's test block: both options, and only for a column block.
  if ((!o.test_data.empty() || o.test_count != 0) &&
      (o.columns == 0 || o.test_data.empty() || o.test_count == 0)) {
    std::fprintf(stderr,
                 "edgeadmm-device: --test-data and --test-count go together, "
                 "with --columns\n");
    return false;
  }
  // A streaming party: a column block, on the stack that streams.
  if (o.stream_rows != 0 &&
      (o.columns == 0 || o.transport != DeviceTransportKind::kSdk)) {
    std::fprintf(stderr,
                 "edgeadmm-device: --stream-rows needs --columns and "
                 "--transport sdk (libcoap does not stream bodies)\n");
    return false;
  }
  // The SDK transport's handshake gives up on Mbed TLS's own timers.
  if (o.handshake_timeout_ms != 0 &&
      o.transport != DeviceTransportKind::kLibcoap) {
    std::fprintf(stderr,
                 "edgeadmm-device: --handshake-timeout-ms is for the libcoap "
                 "transport (the sdk transport's handshake ends on Mbed TLS's "
                 "retransmission timers)\n");
    return false;
  }
  // pp-admm schedules (the same rules as edgeadmm-fleet connect's --pp-*).
  const char* bad = nullptr;
  if (!(o.pp_eta1 > 0) || !std::isfinite(o.pp_eta1)) {
    bad = "--pp-eta1 must be > 0 (and >= the job's theta)";
  } else if (!(o.pp_eta_growth >= 1) || !std::isfinite(o.pp_eta_growth)) {
    bad = "--pp-eta-growth must be >= 1 (a non-decreasing penalty)";
  } else if (!(o.pp_eta_max >= o.pp_eta1) || !std::isfinite(o.pp_eta_max)) {
    bad = "--pp-eta-max must be >= --pp-eta1";
  } else if (!(o.pp_alpha1 > 0) || !std::isfinite(o.pp_alpha1)) {
    bad = "--pp-alpha1 must be > 0";
  } else if (!(o.pp_alpha_growth > 0) || !std::isfinite(o.pp_alpha_growth)) {
    bad = "--pp-alpha-growth must be > 0";
  } else if (!(o.pp_max_loss >= 0)) {
    bad = "--pp-max-loss must be >= 0";
  }
  if (bad != nullptr) {
    std::fprintf(stderr, "edgeadmm-device: %s\n", bad);
    return false;
  }
  return true;
}

}  // namespace edgeadmm::device
