// A device's model and ledger after each local step, for harnesses that
// score every round (tests/repro/admm_sharing/run.py): `edgeadmm-fleet
// connect --history DIR` appends one line per step to DIR/<device id>.tsv.
//
// Line format (tab-separated): round_id, local_iteration, the device
// ledger's ε at the fleet's δ (DevicePrivacyLedger::Epsilon: RDP of its
// Gaussian charges, improved conversion; "inf" if above the reportable
// range or none charged), the ε of the device's pending upload (the
// Update.ledger.epsilon it reports on the wire; "nan" when no upload is
// pending any more), then the persisted primary vector (admm-sharing:
// the party's x̃_m, papers 000/003) as %.17g values. The values are read
// back from the ClientRecord the device persisted after the step, so they
// are exactly what the device holds, not a second computation.
#pragma once

#include <cstdio>

#include "edgeadmm/status.h"
#include "edgeadmm/storage.h"

namespace edgeadmm::fleet {

// Reads `storage`'s "client" record (at most `record_bytes` long) and
// appends its line to `out`. DATA_LOSS for a missing or corrupt record,
// UNAVAILABLE if the line cannot be written.
Status AppendStepHistory(Storage& storage, size_t record_bytes, double delta,
                         std::FILE* out);

}  // namespace edgeadmm::fleet
