// Debian's coap-client-openssl against the daemon over DTLS-PSK: the tool's
// OUTPUT is checked (it exits 0 even on failure): with the device's key the
// task body it prints decodes as this device's RoundTask; with a wrong key or
// an unknown identity it prints no task.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/round_task.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

constexpr int kDimension = 3;
// coap-client takes the PSK as a command-line string, so the test device gets
// a printable key (set in the registry table directly).
constexpr char kKey[] = "edgeadmm-test-key";

// Runs coap-client-openssl and returns what it wrote to stdout.
std::string RunCoapClient(unsigned port, const std::string& identity,
                          const std::string& key, const std::string& path) {
  const std::string command =
      "coap-client-openssl -B 8 -m get -u '" + identity + "' -k '" + key +
      "' -o - coaps://127.0.0.1:" + std::to_string(port) + "/" + path +
      " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"),
                                             pclose);
  std::string out;
  if (!pipe) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe.get())) > 0) {
    out.append(buffer, n);
  }
  return out;
}

// True if `out` is exactly one RoundTask body for a kDimension model.
bool DecodesAsTask(const std::string& out, wire::DecodedRoundTask* task,
                   std::vector<Real>* model) {
  model->assign(kDimension, 0);
  return wire::DecodeRoundTask(
             ConstByteSpan(reinterpret_cast<const std::byte*>(out.data()),
                           out.size()),
             Span<Real>(model->data(), model->size()), Span<Real>(), *task)
      .ok();
}

class CoapClientToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v coap-client-openssl >/dev/null") != 0) {
      GTEST_SKIP() << "coap-client-openssl not installed (libcoap3-bin)";
    }
    registry::DeviceRegistry reg(t_.db());
    for (const char* id : {"dev-000", "dev-001", "dev-002"}) {
      ASSERT_TRUE(reg.Add(id).ok());
    }
    ASSERT_TRUE(t_.db()
                    .Exec(std::string("UPDATE devices SET psk = CAST('") +
                          kKey + "' AS BLOB) WHERE id = 'dev-000'")
                    .ok());
    const std::string sampling =
        "[sampling]\nscheme = \"fixed\"\nm = 3\nm_min = 2\n"
        "deadline_seconds = 60\nseed = 5\n";
    job_id_ = testing::CreateJobOrDie(
        t_.db(), testing::JobToml("tool", "prox-admm",
                                  testing::DefaultPrivacyTable(), sampling));
    ASSERT_TRUE(
        jobs::SetJobState(t_.db(), job_id_, jobs::JobState::kRunning).ok());
    daemon_ = std::make_unique<testing::DaemonProcess>(
        EDGEADMM_DAEMON_PATH, testing::DaemonArgs(t_.dir(), t_.path()));
    ASSERT_TRUE(daemon_->started());
  }

  testing::TempDatabase t_;
  int64_t job_id_ = 0;
  std::unique_ptr<testing::DaemonProcess> daemon_;
};

TEST_F(CoapClientToolTest, TaskFetchedWithTheDeviceKeyDecodes) {
  const std::string out =
      RunCoapClient(daemon_->port(), "dev-000", kKey, wire::kTaskPath);
  ASSERT_FALSE(out.empty()) << "coap-client printed nothing";
  std::vector<Real> model;
  wire::DecodedRoundTask task{};
  ASSERT_TRUE(DecodesAsTask(out, &task, &model)) << out.size() << " bytes";
  EXPECT_EQ(task.header.job_id, static_cast<uint64_t>(job_id_));
  EXPECT_EQ(task.header.role, edgeadmm_wire_Role_ROLE_PARTICIPATE);
  EXPECT_EQ(task.model.size(), static_cast<size_t>(kDimension));
  EXPECT_EQ(daemon_->Terminate(), 0);
}

TEST_F(CoapClientToolTest, WrongKeyOrUnknownIdentityGetsNoTask) {
  std::vector<Real> model;
  wire::DecodedRoundTask task{};
  // The tool prints its own error line (and exits 0); never a task.
  const std::string wrong_key =
      RunCoapClient(daemon_->port(), "dev-000", "not-the-key", wire::kTaskPath);
  EXPECT_FALSE(DecodesAsTask(wrong_key, &task, &model));
  EXPECT_NE(wrong_key.find("ERR"), std::string::npos) << wrong_key;
  const std::string ghost =
      RunCoapClient(daemon_->port(), "ghost", kKey, wire::kTaskPath);
  EXPECT_FALSE(DecodesAsTask(ghost, &task, &model));
  EXPECT_NE(ghost.find("ERR"), std::string::npos) << ghost;
  // The daemon is unharmed: the right key still works.
  EXPECT_TRUE(DecodesAsTask(
      RunCoapClient(daemon_->port(), "dev-000", kKey, wire::kTaskPath), &task,
      &model));
  EXPECT_EQ(daemon_->Terminate(), 0);
}

}  // namespace
}  // namespace edgeadmm
