// What the store tests that fail SQLite's I/O through the FaultyVfs shim
// share: a fixture that installs the shim healthy (and heals it after each
// test), and a Transaction that adds one device row.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "edgeadmm/store/database.h"
#include "edgeadmm/store/transaction.h"
#include "faulty_vfs.h"

namespace edgeadmm::store {

class FaultyVfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    vfs_ = &testing::FaultyVfs::Install();
    vfs_->Heal();
  }
  void TearDown() override { vfs_->Heal(); }
  testing::FaultyVfs* vfs_ = nullptr;
};

// A Transaction that adds device `id`, committed or dropped (rolled back).
inline Status AddDevice(Database& db, const std::string& id, bool commit) {
  auto tx = Transaction::Begin(db);
  if (!tx.ok()) return tx.status();
  EDGEADMM_TRY(db.Exec("INSERT INTO devices(id, psk, created_at) VALUES ('" +
                       id + "', x'00', 1)"));
  return commit ? tx->Commit() : Status::Ok();
}

}  // namespace edgeadmm::store
