// The versioned schema of the aggregator database and its migrations.
//
// Version 1 tables:
//   devices(id, psk, enabled, created_at)       registry, PSK per identity
//   jobs(id, name, config (TOML), state, sigma (resolved), n, dimension, ...)
//   job_devices(job_id, device_id)              the n devices enrolled in a job
//   rounds(job_id, round_id, state, iteration, participants, ...)
//   uploads(job_id, round_id, device_id, digest, payload)  accepted uploads
//   models(job_id, iteration, round_id, z, server_state)   released models
//   ledger(job_id, scope, round_id, epsilon, rdp)          privacy ledgers
// Later versions: ledger.conversion (2); devices.lifetime_epsilon/_delta (3);
// models.validation_loss/_objective/_accuracy and jobs.end_reason (4);
// an upload's algorithm-specific REAL (5);
// models.test_records/_log_loss/_accuracy (6);
// ledger.reported_participations/_epsilon/_delta/_conversion (7);
// uploads.fingerprint and rounds.retries (8: open rounds that survive a
// restart); upload_sums(job_id, device_id, uploads, sum) (9: each device's
// influence across rounds); devices.central_epsilon/_delta (10: the
// lifetime budget on a device's central ledgers); uploads.extra, an
// algorithm's own bytes, in place of version 5's column (11);
// rounds.deadline_at, uploads.gateway and round_cohorts(job_id, round_id,
// device_id) (12: rounds shared by a coordinator and its standbys);
// secure_rounds(job_id, round_id, cohort, rotation_seed, charged) (13: the
// open secure round a restart resumes).
#pragma once

#include "edgeadmm/status.h"

namespace edgeadmm::store {

class Database;

// The schema version this build writes.
inline constexpr int kSchemaVersion = 13;

// Reads PRAGMA user_version and applies every migration above it, each in
// its own transaction. FAILED_PRECONDITION if the file is newer than
// kSchemaVersion; INTERNAL on SQL errors.
Status MigrateSchema(Database& db);

}  // namespace edgeadmm::store
