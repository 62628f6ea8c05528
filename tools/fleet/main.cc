// `edgeadmm-fleet`: virtual devices on a host, for the demo, the paper
// reproductions and load tests (docs/device.md). Device-side tooling: it
// links the SDK, the POSIX port and the test doubles of testing/, which the
// admin CLI (`edgeadmm`) does not.
#include "fleet_cli.h"

#ifdef EDGEADMM_AUDIT_NOISELESS
#include <cstdio>
#endif

int main(int argc, char** argv) {
#ifdef EDGEADMM_AUDIT_NOISELESS
  std::fprintf(stderr,
               "edgeadmm-fleet-noiseless: AUDIT BUILD, the devices add NO "
               "noise although they report it; for the privacy audit only\n");
#endif
  return edgeadmm::fleet::RunFleetCommandLine(argc, argv);
}
