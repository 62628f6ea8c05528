// The consumer's device mode (device_run.cc).
#pragma once

#include <cstdint>

namespace consumer {

struct DeviceArgs {
  const char* host = "127.0.0.1";
  uint16_t port = 5684;
  const char* identity = "";
  const char* psk_file = "";
  const char* state_dir = "";
  unsigned timeout_s = 120;
};

// Runs the device until the job is done (0) or it halts or times out (1).
int RunDevice(const DeviceArgs& args);

}  // namespace consumer
