// The daemon end to end over real DTLS-PSK on loopback: handshakes (unknown,
// disabled, wrong key), every bad request class with its documented code and
// an unchanged database, idempotent retransmission, a job run to the end,
// the released model against the reference math, clean SIGTERM shutdown.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "daemon_process.h"
#include "edgeadmm/host/hex.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/released_model.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"
#include "run_command.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm {
namespace {

constexpr int kDimension = 3;
constexpr int kEnrolled = 5;  // dev-000 .. dev-004 are in the job

struct Reply {
  Status status;  // transport outcome
  uint8_t code = 0;
  std::vector<uint8_t> body;
};

// One simulated device: its identity, key and DTLS transport.
class Device {
 public:
  Device(posix::CoapClientContext& context, unsigned port, std::string id,
         std::vector<uint8_t> key)
      : id_(std::move(id)), key_(std::move(key)) {
    config_.host = "127.0.0.1";
    config_.port = static_cast<uint16_t>(port);
    config_.identity = id_.c_str();
    config_.key = ConstByteSpan(reinterpret_cast<const std::byte*>(key_.data()),
                                key_.size());
    config_.ack_timeout_ms = 1000;
    config_.handshake_timeout_ms = 2000;
    transport_ = std::make_unique<posix::CoapDtlsTransport>(context, config_);
  }

  Reply Call(CoapMethod method, const char* path,
             const std::vector<uint8_t>& payload = {},
             uint16_t format = wire::kUpdateFormat) {
    TransportRequest request;
    request.method = method;
    request.path = path;
    request.content_format = format;
    request.payload = ConstByteSpan(
        reinterpret_cast<const std::byte*>(payload.data()), payload.size());
    Reply reply;
    reply.body.resize(4096);
    TransportResult result;
    reply.status = transport_->Request(
        request,
        ByteSpan(reinterpret_cast<std::byte*>(reply.body.data()),
                 reply.body.size()),
        8000, result);
    reply.code = result.code;
    reply.body.resize(reply.status.ok() ? result.payload_size : 0);
    return reply;
  }

  const std::string& id() const { return id_; }

 private:
  std::string id_;
  std::vector<uint8_t> key_;
  posix::CoapDtlsConfig config_;
  std::unique_ptr<posix::CoapDtlsTransport> transport_;
};

struct Task {
  edgeadmm_wire_Role role = edgeadmm_wire_Role_ROLE_UNSPECIFIED;
  uint64_t job_id = 0;
  uint64_t round_id = 0;
  std::vector<double> z;
};

Task GetTask(Device& d) {
  const Reply r = d.Call(CoapMethod::kGet, wire::kTaskPath);
  EXPECT_TRUE(r.status.ok()) << d.id() << " " << r.status.str();
  EXPECT_EQ(r.code, wire::kCoapContent);
  std::vector<Real> model(kDimension);
  wire::DecodedRoundTask decoded{};
  Task task;
  const Status s = wire::DecodeRoundTask(
      ConstByteSpan(reinterpret_cast<const std::byte*>(r.body.data()),
                    r.body.size()),
      Span<Real>(model.data(), model.size()), Span<Real>(), decoded);
  EXPECT_TRUE(s.ok()) << s.str();
  if (!s.ok()) return task;
  task.role = decoded.header.role;
  task.job_id = decoded.header.job_id;
  task.round_id = decoded.header.round_id;
  task.z.assign(decoded.model.begin(), decoded.model.end());
  return task;
}

std::vector<double> DeltaFor(const std::string& device, uint64_t round_id) {
  const double d = static_cast<double>(device.back() - '0');
  return {d / 8 - 0.25, static_cast<double>(round_id) / 16, -0.125};
}

using testing::EncodeUpdateBody;

edgeadmm_wire_StatusBody DecodeBody(const Reply& r) {
  return testing::DecodeStatusBodyOrZero(r.body);
}

class DaemonDtlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry::DeviceRegistry reg(t_.db());
    for (int i = 0; i <= kEnrolled; ++i) {
      char id[16];
      std::snprintf(id, sizeof(id), "dev-%03d", i);
      auto psk = reg.Add(id);
      ASSERT_TRUE(psk.ok());
      keys_[id] = *psk;
    }
    // dev-005 is disabled before the job: not enrolled, no handshake.
    ASSERT_TRUE(reg.Disable("dev-005").ok());
    const std::string sampling =
        "[sampling]\nscheme = \"fixed\"\nm = 3\nm_min = 2\n"
        "deadline_seconds = 60\nseed = 99\n";
    std::string toml = testing::JobToml(
        "dtls", "prox-admm", testing::DefaultPrivacyTable(), sampling);
    toml.replace(toml.find("rounds = 5"), 10, "rounds = 4");
    job_id_ = testing::CreateJobOrDie(t_.db(), toml);
    ASSERT_TRUE(
        jobs::SetJobState(t_.db(), job_id_, jobs::JobState::kRunning).ok());
    // The metrics file (written again at a clean shutdown) tells a failed
    // handshake's story: the admission's verdicts and the session events.
    daemon_ = std::make_unique<testing::DaemonProcess>(
        EDGEADMM_DAEMON_PATH,
        testing::DaemonArgs(t_.dir(), t_.path(),
                            "[metrics]\nfile = \"" + MetricsPath() +
                                "\"\ninterval_seconds = 1\n"));
    ASSERT_TRUE(daemon_->started());
    ASSERT_TRUE(context_.status().ok());
  }

  std::string MetricsPath() const { return t_.dir() + "/metrics.prom"; }
  // The daemon's handshake, session and state-lock counters (after
  // Terminate: its last write), for a failure message.
  std::string HandshakeMetrics() const {
    return testing::RunCommand(
               "grep -E '^edgeadmm_(dtls|handshake|state_lock)' " +
               MetricsPath())
        .output;
  }

  std::unique_ptr<Device> MakeDevice(const std::string& id,
                                     std::vector<uint8_t> key) {
    return std::make_unique<Device>(context_, daemon_->port(), id,
                                    std::move(key));
  }

  // dev-000 .. dev-004, each with its key.
  std::vector<std::unique_ptr<Device>> MakeEnrolledDevices() {
    std::vector<std::unique_ptr<Device>> devices;
    for (int i = 0; i < kEnrolled; ++i) {
      char id[16];
      std::snprintf(id, sizeof(id), "dev-%03d", i);
      devices.push_back(MakeDevice(id, keys_[id]));
    }
    return devices;
  }

  testing::TempDatabase t_;
  std::map<std::string, std::vector<uint8_t>> keys_;
  int64_t job_id_ = 0;
  std::unique_ptr<testing::DaemonProcess> daemon_;
  posix::CoapClientContext context_;
};

TEST_F(DaemonDtlsTest, HandshakeNeedsAnEnabledIdentityAndItsKey) {
  auto ghost = MakeDevice("ghost", std::vector<uint8_t>(16, 7));
  EXPECT_EQ(ghost->Call(CoapMethod::kGet, wire::kTaskPath).status,
            Status::Unauthenticated());
  std::vector<uint8_t> wrong = keys_["dev-000"];
  wrong[0] ^= 1;
  auto impostor = MakeDevice("dev-000", wrong);
  EXPECT_EQ(impostor->Call(CoapMethod::kGet, wire::kTaskPath).status,
            Status::Unauthenticated());
  auto disabled = MakeDevice("dev-005", keys_["dev-005"]);
  EXPECT_EQ(disabled->Call(CoapMethod::kGet, wire::kTaskPath).status,
            Status::Unauthenticated());
  auto good = MakeDevice("dev-000", keys_["dev-000"]);
  EXPECT_TRUE(good->Call(CoapMethod::kGet, wire::kTaskPath).status.ok());
  EXPECT_EQ(daemon_->Terminate(), 0);
}

// Issue 14 item 2: after `devices disable` (another connection, as the CLI)
// the device's open session gets no task, model or status and its upload is
// refused from its next request on; it is never sampled again (the other
// devices' PARTICIPATE tasks add up to every later round's stored cohort).
TEST_F(DaemonDtlsTest, DisabledDeviceIsCutAtOnceAndNeverSampledAgain) {
  std::vector<std::unique_ptr<Device>> devices = MakeEnrolledDevices();
  Device& revoked = *devices[1];
  // Its session is established.
  ASSERT_NE(GetTask(revoked).role, edgeadmm_wire_Role_ROLE_UNSPECIFIED);
  ASSERT_TRUE(registry::DeviceRegistry(t_.db()).Disable(revoked.id()).ok());
  for (const char* path :
       {wire::kTaskPath, wire::kModelPath, wire::kStatusPath}) {
    const Reply r = revoked.Call(CoapMethod::kGet, path);
    EXPECT_FALSE(r.status.ok() && r.code / 32 == 2) << path;
    if (r.status.ok()) {
      EXPECT_EQ(r.code, wire::kCoapForbidden) << path;
    }
  }
  const Reply upload = revoked.Call(
      CoapMethod::kPost, wire::kUpdatePath,
      EncodeUpdateBody(revoked.id(), job_id_, 1, {0.1, 0.1, 0.1}));
  EXPECT_FALSE(upload.status.ok() && upload.code / 32 == 2);

  // Rounds with the four others: the revoked device is never in a cohort.
  uint64_t previous_round = 0;
  int rounds = 0;
  for (int attempt = 0; attempt < 2000 && rounds < 4; ++attempt) {
    std::vector<Device*> cohort;
    std::set<uint64_t> seen;  // round ids the four devices were told
    bool done = false;
    for (auto& d : devices) {
      if (d.get() == &revoked) continue;
      const Task task = GetTask(*d);
      done = done || task.role == edgeadmm_wire_Role_ROLE_DONE;
      seen.insert(task.round_id);
      if (task.role == edgeadmm_wire_Role_ROLE_PARTICIPATE) {
        cohort.push_back(d.get());
      }
    }
    if (done) break;
    const uint64_t round = *seen.begin();
    if (seen.size() != 1 || round == previous_round) {
      // The next round opens at the daemon's next tick, maybe between two
      // of these requests: ask again until all four saw the same new one.
      usleep(10'000);
      continue;
    }
    const std::string sql =
        "SELECT cohort_size FROM rounds WHERE round_id = " +
        std::to_string(round);
    auto stmt = t_.db().Prepare(sql);
    ASSERT_TRUE(stmt.ok());
    ASSERT_TRUE(stmt->StepRow().ok());
    EXPECT_EQ(stmt->ColumnInt(0), static_cast<int64_t>(cohort.size()))
        << "round " << round;
    for (Device* d : cohort) {
      const Reply r =
          d->Call(CoapMethod::kPost, wire::kUpdatePath,
                  EncodeUpdateBody(d->id(), job_id_, round,
                                   DeltaFor(d->id(), round)));
      EXPECT_EQ(r.code, wire::kCoapChanged) << d->id();
    }
    previous_round = round;
    ++rounds;
  }
  EXPECT_GE(rounds, 3);
  EXPECT_EQ(daemon_->Terminate(), 0);
}

// Issue 14 item 2: a DTLS session resumed from a ticket or a cached
// session skips the PSK lookup, so a disabled device could come back with
// a session from before. Debian's `openssl s_client` (a real DTLS 1.2 PSK
// client) saves what it got; the daemon must give nothing resumable (no
// ticket, no session id), and nothing saved may resume after the disable.
TEST_F(DaemonDtlsTest, SessionResumptionCannotBypassThePskLookup) {
  const std::string session = t_.dir() + "/s_client.session";
  const std::string client =
      "timeout 20 openssl s_client -dtls1_2 -cipher PSK -connect 127.0.0.1:" +
      std::to_string(daemon_->port()) + " -psk_identity dev-002 -psk " +
      host::ToHex(keys_["dev-002"]) + " </dev/null 2>&1";
  const testing::CommandResult first =
      testing::RunCommand(client + " -sess_out " + session);
  ASSERT_NE(first.output.find("New, TLSv1.2"), std::string::npos)
      << first.output;
  EXPECT_NE(access(session.c_str(), F_OK), 0)
      << "the daemon gave the client a session it could resume";
  if (access(session.c_str(), F_OK) == 0) {
    const testing::CommandResult again =
        testing::RunCommand(client + " -sess_in " + session);
    EXPECT_EQ(again.output.find("Reused,"), std::string::npos)
        << again.output;
  }
  ASSERT_TRUE(registry::DeviceRegistry(t_.db()).Disable("dev-002").ok());
  const bool saved = access(session.c_str(), F_OK) == 0;
  // A refused identity gets silence (the decoy key, issue 14 item 7): 4 s.
  std::string revoked_client = client;
  revoked_client.replace(0, sizeof("timeout 20") - 1, "timeout 4");
  const testing::CommandResult revoked = testing::RunCommand(
      "stdbuf -oL " + revoked_client + (saved ? " -sess_in " + session : ""));
  EXPECT_EQ(revoked.output.find("Reused,"), std::string::npos)
      << revoked.output;
  EXPECT_EQ(revoked.output.find("New, TLSv1.2"), std::string::npos)
      << revoked.output;
  EXPECT_NE(revoked.output.find("CONNECTED"), std::string::npos)
      << revoked.output;
  EXPECT_EQ(daemon_->Terminate(), 0);
}

// Issue 14 item 7: an unknown identity used to get a fatal alert (and a
// wrong key only silence), so a network attacker could tell enrolled ids
// from others. Now every refused identity gets the decoy key and fails at
// its Finished like a wrong key: no alert, no completed handshake. Debian's
// `openssl s_client` is the attacker (four handshakes at once, 4 s each).
TEST_F(DaemonDtlsTest, RefusedIdentitiesLookLikeAWrongKey) {
  std::vector<uint8_t> wrong = keys_["dev-000"];
  wrong[0] ^= 1;
  const std::vector<std::pair<std::string, std::string>> attempts = {
      {"wrong-key", "-psk_identity dev-000 -psk " + host::ToHex(wrong)},
      {"unknown", "-psk_identity ghost-17 -psk " + host::ToHex(wrong)},
      {"disabled",
       "-psk_identity dev-005 -psk " + host::ToHex(keys_["dev-005"])},
      {"ill-formed", "-psk_identity 'two words' -psk " + host::ToHex(wrong)},
  };
  std::string script;
  for (const auto& [name, args] : attempts) {
    script +=
        "(timeout 4 stdbuf -oL openssl s_client -dtls1_2 -cipher PSK "
        "-connect "
        "127.0.0.1:" +
        std::to_string(daemon_->port()) + " " + args + " </dev/null >" +
        t_.dir() + "/" + name + ".out 2>&1) & ";
  }
  script += "wait";
  testing::RunCommand(script);
  for (const auto& [name, args] : attempts) {
    const testing::CommandResult out =
        testing::RunCommand("cat " + t_.dir() + "/" + name + ".out");
    EXPECT_NE(out.output.find("CONNECTED"), std::string::npos)
        << name << ": " << out.output;
    EXPECT_EQ(out.output.find("alert"), std::string::npos)
        << name << " got an alert: " << out.output;
    EXPECT_EQ(out.output.find("New, TLSv1.2"), std::string::npos)
        << name << " completed a handshake: " << out.output;
  }
  // The decoy is nobody's key: the real device still gets in.
  auto good = MakeDevice("dev-000", keys_["dev-000"]);
  EXPECT_TRUE(good->Call(CoapMethod::kGet, wire::kTaskPath).status.ok());
  EXPECT_EQ(daemon_->Terminate(), 0);
}

// `devices rotate-key`: the old PSK fails from the next handshake on, the
// new one works (issue 14, item 5), and a session opened with the old key
// is closed at once (it used to go on until it ended).
TEST_F(DaemonDtlsTest, RotatedKeyFailsFromTheNextHandshake) {
  auto open_session = MakeDevice("dev-001", keys_["dev-001"]);
  ASSERT_TRUE(
      open_session->Call(CoapMethod::kGet, wire::kTaskPath).status.ok());
  registry::DeviceRegistry reg(t_.db());
  auto fresh = reg.RotatePsk("dev-001");
  ASSERT_TRUE(fresh.ok());
  // Each step's outcome and time since the rotation, for a failure message:
  // the new key's request failed once under ASan in CI (not reproduced).
  const auto rotated = std::chrono::steady_clock::now();
  std::string steps;
  const auto step = [&](const char* name, const Reply& r) {
    steps +=
        std::string(name) + ": " + r.status.str() + " code " +
        std::to_string(r.code) + " at " +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - rotated)
                           .count()) +
        " ms\n";
  };
  const Reply after = open_session->Call(CoapMethod::kGet, wire::kTaskPath);
  step("old session", after);
  EXPECT_FALSE(after.status.ok() && after.code == wire::kCoapContent)
      << "the session opened with the old key still got its task";
  auto old_key = MakeDevice("dev-001", keys_["dev-001"]);
  const Reply with_old = old_key->Call(CoapMethod::kGet, wire::kTaskPath);
  step("old key", with_old);
  EXPECT_EQ(with_old.status, Status::Unauthenticated());
  auto new_key = MakeDevice("dev-001", *fresh);
  const Reply with_new = new_key->Call(CoapMethod::kGet, wire::kTaskPath);
  step("new key", with_new);
  EXPECT_EQ(daemon_->Terminate(), 0);
  EXPECT_TRUE(with_new.status.ok()) << steps << HandshakeMetrics();
}

// Issue 14 item 3: under `participation` an enrolled device's ±3e38 upload
// used to be accepted (z overflowed float32 after six). Uploads above the
// clip-implied norm plus the noise allowance (docs/security.md) get 4.00
// "norm-above-bound" and change nothing; an honest-sized one still counts.
TEST_F(DaemonDtlsTest, PoisonedUploadIsRefusedUnderParticipation) {
  std::vector<std::unique_ptr<Device>> devices = MakeEnrolledDevices();
  Device* member = nullptr;
  Task task;
  for (auto& d : devices) {
    task = GetTask(*d);
    if (task.role == edgeadmm_wire_Role_ROLE_PARTICIPATE) {
      member = d.get();
      break;
    }
  }
  ASSERT_NE(member, nullptr);
  const std::string before = testing::Snapshot(t_.db());
  // λ = 0.5, C = 1, σ = 2, p = 3: bound 2λC + λσ(√3 + 10) ≈ 12.73.
  const std::vector<std::vector<double>> poison = {
      {3e38, -3e38, 3e38}, {13, 0, 0}, {-8, 8, 8}};
  for (const std::vector<double>& v : poison) {
    const Reply r = member->Call(
        CoapMethod::kPost, wire::kUpdatePath,
        EncodeUpdateBody(member->id(), task.job_id, task.round_id, v));
    ASSERT_TRUE(r.status.ok());
    EXPECT_EQ(r.code, wire::kCoapBadRequest) << v[0];
    const edgeadmm_wire_StatusBody body = DecodeBody(r);
    EXPECT_EQ(body.code, static_cast<uint32_t>(StatusCode::kInvalidArgument));
    EXPECT_STREQ(body.message, "norm-above-bound");
    EXPECT_EQ(testing::Snapshot(t_.db()), before) << v[0];
  }
  const Reply ok = member->Call(
      CoapMethod::kPost, wire::kUpdatePath,
      EncodeUpdateBody(member->id(), task.job_id, task.round_id, {12, 0, 0}));
  EXPECT_EQ(ok.code, wire::kCoapChanged);
  EXPECT_EQ(daemon_->Terminate(), 0);
}

TEST_F(DaemonDtlsTest, BadRequestsThenFullJobThenCleanShutdown) {
  std::vector<std::unique_ptr<Device>> devices = MakeEnrolledDevices();
  std::vector<double> s(kDimension, 0.0);  // reference ŝ
  bool checked_bad_requests = false;
  int rounds = 0;
  uint64_t previous_round = 0;
  for (; rounds < 10; ++rounds) {
    std::vector<Device*> cohort;
    std::vector<Device*> idle;
    Task task;
    // The daemon commits a complete round in its next tick, after the last
    // receipt went out: until then the task is still the previous round's.
    for (int attempt = 0; attempt < 500; ++attempt) {
      cohort.clear();
      idle.clear();
      bool all_new = true;  // every device saw the same, new round
      for (auto& d : devices) {
        const uint64_t seen = task.round_id;
        task = GetTask(*d);
        all_new = all_new && task.round_id != previous_round &&
                  (d == devices.front() || task.round_id == seen);
        if (task.role == edgeadmm_wire_Role_ROLE_PARTICIPATE) {
          cohort.push_back(d.get());
        } else if (task.role == edgeadmm_wire_Role_ROLE_IDLE) {
          idle.push_back(d.get());
        }
      }
      if (task.role == edgeadmm_wire_Role_ROLE_DONE || all_new) break;
      usleep(10'000);
    }
    if (task.role == edgeadmm_wire_Role_ROLE_DONE) break;
    ASSERT_NE(task.round_id, previous_round) << "round " << rounds;
    previous_round = task.round_id;
    ASSERT_EQ(cohort.size(), 3u) << "round " << rounds;
    const uint64_t round = task.round_id;
    const uint64_t job = task.job_id;
    Device& a = *cohort[0];
    const std::vector<uint8_t> a_body =
        EncodeUpdateBody(a.id(), job, round, DeltaFor(a.id(), round));
    Reply r = a.Call(CoapMethod::kPost, wire::kUpdatePath, a_body);
    ASSERT_EQ(r.code, wire::kCoapChanged);
    EXPECT_FALSE(DecodeBody(r).duplicate);
    for (int j = 0; j < kDimension; ++j) {
      s[j] +=
          static_cast<double>(static_cast<float>(DeltaFor(a.id(), round)[j])) /
          kEnrolled;
    }

    if (!checked_bad_requests) {
      checked_bad_requests = true;
      const std::string before = testing::Snapshot(t_.db());
      Device& b = *cohort[1];
      struct Bad {
        const char* what;
        Device* from;
        std::vector<uint8_t> body;
        uint16_t format;
        uint8_t code;
        StatusCode body_code;
      };
      std::vector<uint8_t> oversize(wire::MaxUpdateBytes(kDimension) + 1, 0);
      const std::vector<Bad> bad = {
          {"not in cohort", idle[0],
           EncodeUpdateBody(idle[0]->id(), job, round, {0.1, 0.1, 0.1}),
           wire::kUpdateFormat, wire::kCoapForbidden,
           StatusCode::kPermissionDenied},
          {"identity mismatch", &b,
           EncodeUpdateBody(cohort[2]->id(), job, round, {0.1, 0.1, 0.1}),
           wire::kUpdateFormat, wire::kCoapForbidden,
           StatusCode::kPermissionDenied},
          {"stale round", &b,
           EncodeUpdateBody(b.id(), job, round - 1, {0.1, 0.1, 0.1}),
           wire::kUpdateFormat, wire::kCoapPreconditionFailed,
           StatusCode::kFailedPrecondition},
          {"duplicate with different content", &a,
           EncodeUpdateBody(a.id(), job, round, {0.5, 0.5, 0.5}),
           wire::kUpdateFormat, wire::kCoapConflict,
           StatusCode::kAlreadyExists},
          {"malformed",
           &b,
           {0x08, 0x01, 0xff, 0xff},
           wire::kUpdateFormat,
           wire::kCoapBadRequest,
           StatusCode::kDataLoss},
          {"wrong dimension", &b,
           EncodeUpdateBody(b.id(), job, round, {0.1, 0.1}),
           wire::kUpdateFormat, wire::kCoapBadRequest,
           StatusCode::kInvalidArgument},
          {"oversize", &b, oversize, wire::kUpdateFormat,
           wire::kCoapRequestEntityTooLarge, StatusCode::kOutOfRange},
          {"content-format", &b,
           EncodeUpdateBody(b.id(), job, round, {0.1, 0.1, 0.1}),
           wire::kRoundTaskFormat, wire::kCoapUnsupportedContentFormat,
           StatusCode::kInvalidArgument},
      };
      for (const Bad& x : bad) {
        const Reply reply = x.from->Call(CoapMethod::kPost, wire::kUpdatePath,
                                         x.body, x.format);
        ASSERT_TRUE(reply.status.ok()) << x.what;
        EXPECT_EQ(reply.code, x.code) << x.what;
        EXPECT_EQ(DecodeBody(reply).code, static_cast<uint32_t>(x.body_code))
            << x.what;
        EXPECT_EQ(testing::Snapshot(t_.db()), before) << x.what;
      }
      // A byte-identical retransmission gets the same success.
      r = a.Call(CoapMethod::kPost, wire::kUpdatePath, a_body);
      EXPECT_EQ(r.code, wire::kCoapChanged);
      EXPECT_TRUE(DecodeBody(r).duplicate);
      EXPECT_EQ(testing::Snapshot(t_.db()), before);
    }

    for (size_t i = 1; i < cohort.size(); ++i) {
      Device& d = *cohort[i];
      const std::vector<double> delta = DeltaFor(d.id(), round);
      r = d.Call(CoapMethod::kPost, wire::kUpdatePath,
                 EncodeUpdateBody(d.id(), job, round, delta));
      ASSERT_EQ(r.code, wire::kCoapChanged) << d.id();
      for (int j = 0; j < kDimension; ++j) {
        s[j] += static_cast<double>(static_cast<float>(delta[j])) / kEnrolled;
      }
    }
  }
  EXPECT_EQ(rounds, 4);

  // The released model: z = soft-threshold(ŝ, γ·l1) with γ = 2, l1 = 0.01.
  const Reply model = devices[0]->Call(CoapMethod::kGet, wire::kModelPath);
  ASSERT_EQ(model.code, wire::kCoapContent);
  std::vector<Real> z(kDimension);
  wire::DecodedReleasedModel decoded{};
  ASSERT_TRUE(
      wire::DecodeReleasedModel(
          ConstByteSpan(reinterpret_cast<const std::byte*>(model.body.data()),
                        model.body.size()),
          Span<Real>(z.data(), z.size()), decoded)
          .ok());
  EXPECT_EQ(decoded.header.participants, 3u);
  EXPECT_GT(decoded.header.epsilon, 0);
  for (int j = 0; j < kDimension; ++j) {
    const double expected =
        std::copysign(std::max(std::abs(s[j]) - 0.02, 0.0), s[j]);
    EXPECT_NEAR(z[j], expected, 1e-6) << j;  // float32 on the wire
  }
  auto job = jobs::LoadJob(t_.db(), job_id_);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, jobs::JobState::kCompleted);
  EXPECT_EQ(daemon_->Terminate(), 0);
}

// random-walk-admm (paper 002 Alg. 4) over the real transport: each step
// hands z to exactly one device, in its task; every other device, and the
// holder itself, is refused z on v1/model (4.03) before, during and after
// the walk: a non-holder cannot fetch the token (Def. 3's view). The next
// holder's z is prox_{γr}(ŝ) with ŝ += Δu/n (the relay's update).
TEST(DaemonDtlsRandomWalkTest, NonHolderCannotFetchZ) {
  testing::TempDatabase t;
  std::map<std::string, std::vector<uint8_t>> keys;
  registry::DeviceRegistry reg(t.db());
  constexpr int kWalkers = 4;
  for (int i = 0; i < kWalkers; ++i) {
    char id[16];
    std::snprintf(id, sizeof(id), "dev-%03d", i);
    auto psk = reg.Add(id);
    ASSERT_TRUE(psk.ok());
    keys[id] = *psk;
  }
  std::string toml = testing::JobToml(
      "walk", "random-walk-admm",
      "[privacy]\npolicy = \"participation-own-noise\"\nclip = 1.0\n"
      "sigma = 10.0\ndelta = 1e-5\ncentral_budget = 1000.0\n"
      "device_budget = 1000.0\n",
      "[sampling]\nscheme = \"fixed\"\nm = 1\nm_min = 1\n"
      "deadline_seconds = 60\n");
  toml.replace(toml.find("rounds = 5"), 10, "rounds = 4");
  const int64_t job_id = testing::CreateJobOrDie(t.db(), toml);
  ASSERT_TRUE(jobs::SetJobState(t.db(), job_id, jobs::JobState::kRunning).ok());
  testing::DaemonProcess daemon(EDGEADMM_DAEMON_PATH,
                                testing::DaemonArgs(t.dir(), t.path()));
  ASSERT_TRUE(daemon.started());
  posix::CoapClientContext context;
  ASSERT_TRUE(context.status().ok());
  std::vector<std::unique_ptr<Device>> devices;
  for (auto& [id, key] : keys) {
    devices.push_back(
        std::make_unique<Device>(context, daemon.port(), id, key));
  }
  auto expect_refused = [](Device& d) {
    const Reply m = d.Call(CoapMethod::kGet, wire::kModelPath);
    ASSERT_TRUE(m.status.ok()) << d.id();
    EXPECT_EQ(m.code, wire::kCoapForbidden) << d.id();
    EXPECT_EQ(DecodeBody(m).code,
              static_cast<uint32_t>(StatusCode::kPermissionDenied));
  };
  std::vector<double> s(kDimension, 0.0);  // reference ŝ
  uint64_t previous_round = 0;
  int steps = 0;
  for (; steps < 10; ++steps) {
    Device* holder = nullptr;
    Task held;
    bool done = false;
    for (int attempt = 0; attempt < 500 && holder == nullptr && !done;
         ++attempt) {
      for (auto& d : devices) {
        const Task task = GetTask(*d);
        done = done || task.role == edgeadmm_wire_Role_ROLE_DONE;
        if (task.role == edgeadmm_wire_Role_ROLE_PARTICIPATE &&
            task.round_id != previous_round) {
          ASSERT_EQ(holder, nullptr) << "two holders in one step";
          holder = d.get();
          held = task;
        } else if (task.role != edgeadmm_wire_Role_ROLE_PARTICIPATE) {
          EXPECT_TRUE(task.z.empty()) << d->id();  // no z without the token
        }
      }
      if (holder == nullptr && !done) usleep(10'000);
    }
    if (done) break;
    ASSERT_NE(holder, nullptr) << "step " << steps;
    previous_round = held.round_id;
    // The token: z = soft-threshold(ŝ, γ·l1), γ = 2, l1 = 0.01.
    ASSERT_EQ(held.z.size(), static_cast<size_t>(kDimension));
    for (int j = 0; j < kDimension; ++j) {
      const double expected =
          std::copysign(std::max(std::abs(s[j]) - 0.02, 0.0), s[j]);
      EXPECT_NEAR(held.z[j], expected, 1e-6) << j;
    }
    for (auto& d : devices) expect_refused(*d);  // holder included
    const std::vector<double> delta = DeltaFor(holder->id(), held.round_id);
    const Reply r = holder->Call(
        CoapMethod::kPost, wire::kUpdatePath,
        EncodeUpdateBody(holder->id(), held.job_id, held.round_id, delta));
    ASSERT_EQ(r.code, wire::kCoapChanged);
    for (int j = 0; j < kDimension; ++j) {
      s[j] += static_cast<double>(static_cast<float>(delta[j])) / kWalkers;
    }
  }
  EXPECT_EQ(steps, 4);
  for (auto& d : devices) expect_refused(*d);
  auto job = jobs::LoadJob(t.db(), job_id);
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->state, jobs::JobState::kCompleted);
  EXPECT_EQ(daemon.Terminate(), 0);
}

}  // namespace
}  // namespace edgeadmm
