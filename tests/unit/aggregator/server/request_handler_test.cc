// The protocol handler without sockets: codes and bodies for every request
// class, and random / mutated bodies never change state (a deterministic
// stand-in for the fuzz target on the update decoder path).
#include "edgeadmm/server/request_handler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/penalty_perturbation_extra.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/wire/coap_code.h"
#include "edgeadmm/wire/protocol.h"
#include "edgeadmm/wire/released_model.h"
#include "edgeadmm/wire/round_task.h"
#include "edgeadmm/wire/status_body.h"
#include "edgeadmm/wire/update.h"
#include "test_database.h"
#include "wire_bodies.h"

namespace edgeadmm::server {
namespace {

std::vector<uint8_t> UpdateBody(const std::string& id, int64_t job,
                                int64_t round, const std::vector<double>& v,
                                uint32_t participations = 0) {
  return testing::EncodeUpdateBody(id, static_cast<uint64_t>(job),
                                   static_cast<uint64_t>(round), v,
                                   participations);
}

// An Update body whose algorithm_extra holds `extra`.
std::vector<uint8_t> UpdateBodyWithExtra(
    const std::string& id, int64_t job, int64_t round,
    const std::vector<double>& v, const std::vector<uint8_t>& extra,
    edgeadmm_wire_UpdateKind kind =
        edgeadmm_wire_UpdateKind_UPDATE_KIND_MODEL) {
  return testing::EncodeUpdateBody(id, static_cast<uint64_t>(job),
                                   static_cast<uint64_t>(round), v, 0, kind,
                                   extra);
}

std::vector<uint8_t> PpLossBytes(double loss) {
  std::vector<uint8_t> bytes(kPpLossExtraBytes);
  EncodePpLossExtra(loss, 1e-5, bytes.data());
  return bytes;
}

uint32_t BodyCode(const Response& r) {
  return testing::DecodeStatusBodyOrZero(r.body).code;
}

// Decodes the RoundTask body of `r` (model into `model`).
Status DecodeTask(const Response& r, std::vector<Real>& model,
                  wire::DecodedRoundTask& task) {
  return wire::DecodeRoundTask(
      ConstByteSpan(reinterpret_cast<const std::byte*>(r.body.data()),
                    r.body.size()),
      Span<Real>(model.data(), model.size()), Span<Real>(), task);
}

class RequestHandlerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::EnrollDevices(t_.db(), 6);
    job_ = testing::CreateJobOrDie(
        t_.db(),
        testing::JobToml("h", "prox-admm", testing::DefaultPrivacyTable(),
                         testing::DefaultSamplingTable()));
    ASSERT_TRUE(
        jobs::SetJobState(t_.db(), job_, jobs::JobState::kRunning).ok());
    auto engine = rounds::RoundEngine::Open(t_.db(), job_, accountant_);
    ASSERT_TRUE(engine.ok());
    engine_ = std::move(engine).value();
    ASSERT_TRUE(engine_->Advance(now_).ok());
    handler_.set_engine(engine_.get());
    cohort_ = engine_->CohortForTesting();
    for (const std::string& d : engine_->devices()) {
      if (std::find(cohort_.begin(), cohort_.end(), d) == cohort_.end()) {
        outsider_ = d;
      }
    }
  }

  // The header of `d`'s task as asked for a second after the round opened
  // (a test failure if it does not decode).
  edgeadmm_wire_RoundTask TaskHeaderOf(const std::string& d) {
    std::vector<Real> model(3);
    wire::DecodedRoundTask task{};
    EXPECT_EQ(DecodeTask(handler_.Task(d, now_ + 1000), model, task),
              Status::Ok())
        << d;
    return task.header;
  }

  Response Post(const std::string& identity, const std::vector<uint8_t>& b,
                std::optional<uint16_t> format = wire::kUpdateFormat) {
    return handler_.Update(identity, format, b.data(), b.size(), now_);
  }

  testing::TempDatabase t_;
  rounds::PrivacyRoundAccountant accountant_;
  int64_t job_ = 0;
  int64_t now_ = 5000;
  std::unique_ptr<rounds::RoundEngine> engine_;
  RequestHandler handler_{nullptr};
  std::vector<std::string> cohort_;
  std::string outsider_;
};

TEST_F(RequestHandlerTest, TaskTellsRoleAndCarriesModelOnlyToParticipants) {
  for (const std::string& d : engine_->devices()) {
    const Response r = handler_.Task(d, now_ + 1000);
    ASSERT_EQ(r.code, wire::kCoapContent);
    EXPECT_EQ(r.content_format, wire::kRoundTaskFormat);
    std::vector<Real> model(3);
    wire::DecodedRoundTask task{};
    ASSERT_EQ(DecodeTask(r, model, task), Status::Ok());
    const bool member =
        std::find(cohort_.begin(), cohort_.end(), d) != cohort_.end();
    EXPECT_EQ(task.header.role, member ? edgeadmm_wire_Role_ROLE_PARTICIPATE
                                       : edgeadmm_wire_Role_ROLE_IDLE);
    EXPECT_EQ(task.model.size(), member ? 3u : 0u);
    EXPECT_EQ(task.header.round_id, static_cast<uint64_t>(engine_->round_id()));
    EXPECT_EQ(task.header.deadline_ms, 9000u);  // 10 s from 5 s, asked at 6 s
    EXPECT_DOUBLE_EQ(task.header.params.federated.sigma, 2.0);
  }
  EXPECT_EQ(handler_.Task("", now_).code, wire::kCoapUnauthorized);
  EXPECT_EQ(handler_.Task("stranger", now_).code, wire::kCoapForbidden);
}

TEST_F(RequestHandlerTest, EveryTaskStatesTheHeartbeat) {
  // The device waits at least twice it before it takes the gateway for
  // dead (docs/device.md, "Refresh interval"); 0 without one.
  for (const uint32_t heartbeat_ms : {0u, 7000u}) {
    handler_.set_task_heartbeat_ms(heartbeat_ms);
    for (const std::string& d : engine_->devices()) {
      EXPECT_EQ(TaskHeaderOf(d).heartbeat_ms, heartbeat_ms) << d;
    }
  }
}

TEST_F(RequestHandlerTest, APlainRoundsTaskStatesItsUploadSpread) {
  // m = 4 expected cohort members at 1.5 s each: 6 s, within a quarter of
  // the 9 s the round has left (2.25 s) -> 2,250 ms; 0 us: none. Devices
  // outside the cohort upload nothing and are told no spread.
  for (const auto& [us, spread] : {std::pair<uint32_t, uint32_t>{0, 0},
                                   {100'000, 400},
                                   {1'500'000, 2250}}) {
    handler_.set_upload_spread_us(us);
    for (const std::string& d : engine_->devices()) {
      const bool member =
          std::find(cohort_.begin(), cohort_.end(), d) != cohort_.end();
      EXPECT_EQ(TaskHeaderOf(d).upload_spread_ms, member ? spread : 0u) << d;
    }
  }
}

TEST_F(RequestHandlerTest, EveryBadUploadHasItsCodeAndChangesNothing) {
  const std::string a = cohort_[0];
  const std::string b = cohort_[1];
  const int64_t round = engine_->round_id();
  const std::vector<uint8_t> good = UpdateBody(a, job_, round, {1, 2, 3});
  Response r = Post(a, good);
  ASSERT_EQ(r.code, wire::kCoapChanged);
  EXPECT_EQ(BodyCode(r), 0u);
  ASSERT_TRUE(registry::DeviceRegistry(t_.db()).Disable(cohort_[2]).ok());
  const std::string before = testing::Snapshot(t_.db());

  struct Case {
    const char* what;
    std::string identity;
    std::vector<uint8_t> body;
    std::optional<uint16_t> format;
    uint8_t code;
  };
  const std::vector<Case> cases = {
      {"no identity", "", good, wire::kUpdateFormat, wire::kCoapUnauthorized},
      {"identity mismatch", b, UpdateBody(a, job_, round, {1, 2, 3}),
       wire::kUpdateFormat, wire::kCoapForbidden},
      {"not in cohort", outsider_,
       UpdateBody(outsider_, job_, round, {1, 1, 1}), wire::kUpdateFormat,
       wire::kCoapForbidden},
      {"disabled device", cohort_[2],
       UpdateBody(cohort_[2], job_, round, {1, 1, 1}), wire::kUpdateFormat,
       wire::kCoapForbidden},
      {"stale round", b, UpdateBody(b, job_, round - 1, {1, 1, 1}),
       wire::kUpdateFormat, wire::kCoapPreconditionFailed},
      {"wrong job", b, UpdateBody(b, job_ + 1, round, {1, 1, 1}),
       wire::kUpdateFormat, wire::kCoapNotFound},
      {"different duplicate", a, UpdateBody(a, job_, round, {1, 2, 4}),
       wire::kUpdateFormat, wire::kCoapConflict},
      {"same vector, different body", a,
       UpdateBody(a, job_, round, {1, 2, 3}, 7), wire::kUpdateFormat,
       wire::kCoapConflict},
      {"wrong dimension", b, UpdateBody(b, job_, round, {1, 1}),
       wire::kUpdateFormat, wire::kCoapBadRequest},
      {"garbage",
       b,
       {0xff, 0xff, 0xff},
       wire::kUpdateFormat,
       wire::kCoapBadRequest},
      {"oversize", b, std::vector<uint8_t>(wire::MaxUpdateBytes(3) + 1, 0),
       wire::kUpdateFormat, wire::kCoapRequestEntityTooLarge},
      {"content-format", b, UpdateBody(b, job_, round, {1, 1, 1}),
       wire::kRoundTaskFormat, wire::kCoapUnsupportedContentFormat},
      // Issue 14 item 8: the option is required, not only checked.
      {"no content-format", b, UpdateBody(b, job_, round, {1, 1, 1}),
       std::nullopt, wire::kCoapUnsupportedContentFormat},
  };
  for (const Case& c : cases) {
    r = Post(c.identity, c.body, c.format);
    EXPECT_EQ(r.code, c.code) << c.what;
    EXPECT_EQ(r.content_format, wire::kStatusBodyFormat) << c.what;
    EXPECT_NE(BodyCode(r), 0u) << c.what;
    EXPECT_EQ(testing::Snapshot(t_.db()), before) << c.what;
  }
  r = Post(a, good);
  EXPECT_EQ(r.code, wire::kCoapChanged);
  const edgeadmm_wire_StatusBody receipt =
      testing::DecodeStatusBodyOrZero(r.body);
  EXPECT_TRUE(receipt.duplicate);
  EXPECT_EQ(handler_.Model(a).code, wire::kCoapNotFound);  // nothing released
}

// An algorithm without an UploadExtra takes no algorithm_extra: 4.00,
// nothing stored.
TEST_F(RequestHandlerTest, ExtraBytesForAnAlgorithmWithoutThemAreRefused) {
  const std::string a = cohort_[0];
  const std::string before = testing::Snapshot(t_.db());
  const Response r = Post(
      a, UpdateBodyWithExtra(a, job_, engine_->round_id(), {1, 2, 3}, {1, 2, 3},
                             edgeadmm_wire_UpdateKind_UPDATE_KIND_DELTA_U));
  EXPECT_EQ(r.code, wire::kCoapBadRequest);
  EXPECT_STREQ(testing::DecodeStatusBodyOrZero(r.body).message,
               "algorithm_extra not used by the job's algorithm");
  EXPECT_EQ(testing::Snapshot(t_.db()), before);
}

// pp-admm's unit checks its own extra (8 bytes, a finite P_i >= 0): anything
// else is a 4.00 with its reason and changes nothing; a good one is taken.
TEST(RequestHandlerPpAdmmTest, MalformedExtraIsRefusedByTheAlgorithm) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 2);
  const int64_t job = testing::CreateJobOrDie(
      t.db(),
      "[job]\nname = \"pp\"\nalgorithm = \"pp-admm\"\nloss = "
      "\"logistic\"\ndimension = 3\nrounds = 1\n[pp_admm]\nnodes = 2\n"
      "theta = 0.5\nloss_weight = 1.0\nreg_weight = 0.1\nmin_samples = 10\n"
      "[sampling]\ndeadline_seconds = 10\n");
  ASSERT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  ASSERT_TRUE(engine.ok());
  rounds::RoundEngine& e = **engine;
  ASSERT_TRUE(e.Advance(0).ok());
  RequestHandler handler(&e);
  const std::string d = e.devices()[0];
  const std::string before = testing::Snapshot(t.db());
  // ε NaN (LE), δ 0; and a well-formed ε with δ = 2.
  std::vector<uint8_t> nan = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
  nan.resize(16, 0);
  std::vector<uint8_t> big_delta = PpLossBytes(0.5);
  const std::vector<uint8_t> two = {0, 0, 0, 0, 0, 0, 0, 0x40};  // 2.0 LE
  std::copy(two.begin(), two.end(), big_delta.begin() + 8);
  for (const std::vector<uint8_t>& extra :
       {std::vector<uint8_t>{1, 2, 3}, PpLossBytes(-1.0), nan, big_delta,
        std::vector<uint8_t>(8, 0), std::vector<uint8_t>(17, 0)}) {
    const std::vector<uint8_t> body =
        UpdateBodyWithExtra(d, job, e.round_id(), {1, 2, 3}, extra);
    const Response r =
        handler.Update(d, wire::kUpdateFormat, body.data(), body.size(), 0);
    EXPECT_EQ(r.code, wire::kCoapBadRequest) << extra.size();
    EXPECT_STREQ(testing::DecodeStatusBodyOrZero(r.body).message,
                 "algorithm_extra of pp-admm: 16 bytes, (epsilon, delta)");
    EXPECT_EQ(testing::Snapshot(t.db()), before);
  }
  const std::vector<uint8_t> body =
      UpdateBodyWithExtra(d, job, e.round_id(), {1, 2, 3}, PpLossBytes(0.5));
  EXPECT_EQ(
      handler.Update(d, wire::kUpdateFormat, body.data(), body.size(), 0).code,
      wire::kCoapChanged);
}

TEST_F(RequestHandlerTest, RandomAndMutatedBodiesNeverChangeState) {
  const std::string a = cohort_[0];
  const std::vector<uint8_t> seed =
      UpdateBody(a, job_, engine_->round_id(), {0.5, -0.5, 0.25});
  const std::string before = testing::Snapshot(t_.db());
  std::mt19937 gen(2024);  // test inputs only
  int accepted = 0;
  std::vector<uint8_t> first_accepted;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> body = seed;
    if (i % 2 == 0) {
      body.resize(gen() % 80);
      for (uint8_t& x : body) x = static_cast<uint8_t>(gen());
    } else {
      const int flips = 1 + static_cast<int>(gen() % 4);
      for (int f = 0; f < flips; ++f) {
        body[gen() % body.size()] ^= static_cast<uint8_t>(1u << (gen() % 8));
      }
    }
    const Response r = Post(a, body);
    if (r.code == wire::kCoapChanged) {
      // A mutation that still decodes to a valid upload by `a`: only the
      // first can be accepted; a byte-identical repeat is a duplicate.
      ++accepted;
      EXPECT_TRUE(body == first_accepted || first_accepted.empty()) << i;
      first_accepted = body;
    } else {
      EXPECT_GE(r.code >> 5, 4) << i;
    }
  }
  // Nothing reaches the store before the round commits, except the one
  // accepted upload with its local ledger charge, stored before its receipt
  // (docs/privacy.md, "local-dp"; docs/security.md, "Durable receipts and
  // write failures").
  const int expected = accepted > 0 ? 1 : 0;
  for (const char* sql :
       {"SELECT count(*) FROM ledger WHERE scope = 'local:' || ?",
        "SELECT count(*) FROM uploads WHERE device_id = ?"}) {
    auto count = t_.db().Prepare(sql);
    ASSERT_TRUE(count.ok());
    count->Bind(1, a);
    ASSERT_TRUE(count->StepRow().ok());
    EXPECT_EQ(count->ColumnInt(0), expected) << sql;
  }
  ASSERT_TRUE(t_.db().Exec("DELETE FROM ledger; DELETE FROM uploads").ok());
  EXPECT_EQ(testing::Snapshot(t_.db()), before);
}

// The federated parameters a participant's task carries for a job whose
// [privacy] table is `privacy_table` (Poisson q = 1: everyone participates).
edgeadmm_wire_RoundTask TaskUnderPolicy(const std::string& privacy_table) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 3);
  const int64_t job = testing::StartEveryoneJob(t.db(), "p", privacy_table);
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  EXPECT_TRUE(engine.ok());
  if (!engine.ok()) return edgeadmm_wire_RoundTask_init_zero;
  EXPECT_TRUE((*engine)->Advance(0).ok());
  RequestHandler handler(nullptr);
  handler.set_engine(engine->get());
  const Response r = handler.Task((*engine)->devices()[0], 0);
  std::vector<Real> model(3);
  wire::DecodedRoundTask task{};
  EXPECT_EQ(DecodeTask(r, model, task), Status::Ok());
  EXPECT_EQ(task.header.role, edgeadmm_wire_Role_ROLE_PARTICIPATE);
  EXPECT_EQ(task.header.which_params, edgeadmm_wire_RoundTask_federated_tag);
  return task.header;
}

TEST(RequestHandlerPolicyTest, TaskCarriesTheJobsNoiseInStateFlag) {
  // participation: the noise stays out of u_i (the default and only choice).
  edgeadmm_wire_RoundTask t =
      TaskUnderPolicy(testing::PrivacyTableWithPolicy("participation", ""));
  EXPECT_EQ(t.noise_placement,
            edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_DEVICE);
  EXPECT_FALSE(t.params.federated.noise_in_state);
  EXPECT_DOUBLE_EQ(t.params.federated.sigma, 2.0);
  // participation-own-noise may ask for paper 002 as printed.
  t = TaskUnderPolicy(testing::PrivacyTableWithPolicy("participation-own-noise",
                                                      "noise_in_state = true"));
  EXPECT_TRUE(t.params.federated.noise_in_state);
  EXPECT_DOUBLE_EQ(t.params.federated.sigma, 2.0);
  t = TaskUnderPolicy(testing::PrivacyTableWithPolicy(
      "participation-own-noise", "noise_in_state = false"));
  EXPECT_FALSE(t.params.federated.noise_in_state);
}

TEST(RequestHandlerPolicyTest, TrustedAggregatorTellsDevicesToAddNoNoise) {
  const edgeadmm_wire_RoundTask t = TaskUnderPolicy(
      testing::PrivacyTableWithPolicy("trusted-aggregator", ""));
  EXPECT_EQ(t.noise_placement,
            edgeadmm_wire_NoisePlacement_NOISE_PLACEMENT_AGGREGATOR);
  EXPECT_EQ(t.params.federated.sigma, 0.0);
  EXPECT_FALSE(t.params.federated.noise_in_state);
  EXPECT_DOUBLE_EQ(t.params.federated.clip, 1.0);
}

// Under trusted-aggregator the released model does not carry the number of
// accepted uploads: with the other devices' membership it would reveal the
// target's (issue 13, defect 1). Other policies still report it.
TEST(RequestHandlerPolicyTest, TrustedAggregatorDoesNotReleaseTheCount) {
  for (const char* policy : {"trusted-aggregator", "participation"}) {
    testing::TempDatabase t;
    testing::EnrollDevices(t.db(), 3);
    const int64_t job = testing::StartEveryoneJob(
        t.db(), "p", testing::PrivacyTableWithPolicy(policy, ""));
    rounds::PrivacyRoundAccountant accountant;
    auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
    ASSERT_TRUE(engine.ok());
    rounds::RoundEngine& e = **engine;
    ASSERT_TRUE(e.Advance(0).ok());
    RequestHandler handler(nullptr);
    handler.set_engine(&e);
    const int64_t round = e.round_id();
    for (const std::string& d : e.devices()) {
      const std::vector<uint8_t> body = UpdateBody(d, job, round, {0.1, 0, 0});
      const Response r =
          handler.Update(d, wire::kUpdateFormat, body.data(), body.size(), 0);
      ASSERT_EQ(r.code, wire::kCoapChanged) << policy << " " << d;
    }
    ASSERT_TRUE(e.Advance(e.deadline_ms()).ok());
    ASSERT_EQ(e.released_round_id(), round) << policy;
    const Response model = handler.Model(e.devices()[0]);
    ASSERT_EQ(model.code, wire::kCoapContent);
    std::vector<Real> z(3);
    wire::DecodedReleasedModel released{};
    ASSERT_EQ(
        wire::DecodeReleasedModel(
            ConstByteSpan(reinterpret_cast<const std::byte*>(model.body.data()),
                          model.body.size()),
            Span<Real>(z.data(), z.size()), released),
        Status::Ok());
    EXPECT_EQ(released.header.participants,
              std::string(policy) == "participation" ? 3u : 0u)
        << policy;
  }
}

TEST_F(RequestHandlerTest, NoEngineMeansNotFound) {
  RequestHandler idle(nullptr);
  EXPECT_EQ(idle.Task("dev-000", 0).code, wire::kCoapNotFound);
  EXPECT_EQ(idle.Model("dev-000").code, wire::kCoapNotFound);
  EXPECT_EQ(idle.StatusOf("dev-000").code, wire::kCoapNotFound);
}

}  // namespace
}  // namespace edgeadmm::server

namespace edgeadmm::server {
namespace {

// random-walk-admm (paper 002 Alg. 4): only the walk's holder receives z, in
// its task; v1/model is refused to every device, before and after a step
// committed (a non-holder must not learn z: Def. 3's view).
TEST(RequestHandlerRandomWalkTest, OnlyTheHolderSeesZ) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 4);
  const int64_t job = testing::CreateJobOrDie(
      t.db(),
      testing::JobToml(
          "walk", "random-walk-admm",
          "[privacy]\npolicy = \"participation-own-noise\"\nclip = 1.0\n"
          "sigma = 10.0\ndelta = 1e-5\ncentral_budget = 1000.0\n"
          "device_budget = 1000.0\n",
          "[sampling]\nscheme = \"fixed\"\nm = 1\nm_min = 1\n"
          "deadline_seconds = 10\n"));
  ASSERT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  rounds::PrivacyRoundAccountant accountant;
  auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
  ASSERT_TRUE(engine.ok());
  rounds::RoundEngine& e = **engine;
  RequestHandler handler(&e);
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE(e.Advance(1000 * step).ok());
    const std::vector<std::string> cohort = e.CohortForTesting();
    ASSERT_EQ(cohort.size(), 1u);
    int holders = 0;
    for (const std::string& d : e.devices()) {
      const Response r = handler.Task(d, 1000 * step);
      ASSERT_EQ(r.code, wire::kCoapContent);
      std::vector<Real> model(3);
      wire::DecodedRoundTask task{};
      ASSERT_EQ(DecodeTask(r, model, task), Status::Ok());
      const bool holder = d == cohort[0];
      holders += holder ? 1 : 0;
      EXPECT_EQ(task.model.size(), holder ? 3u : 0u) << d;
      EXPECT_EQ(task.header.algorithm,
                edgeadmm_wire_Algorithm_ALGORITHM_FEDERATED_PRIVATE_ADMM);
      EXPECT_TRUE(task.header.params.federated.noise_in_state);
      const Response m = handler.Model(d);
      EXPECT_EQ(m.code, wire::kCoapForbidden) << d;
      EXPECT_EQ(BodyCode(m),
                static_cast<uint32_t>(StatusCode::kPermissionDenied));
    }
    EXPECT_EQ(holders, 1);
    const std::vector<uint8_t> body =
        UpdateBody(cohort[0], job, e.round_id(), {0.1, 0, -0.1}, step);
    ASSERT_EQ(handler
                  .Update(cohort[0], wire::kUpdateFormat, body.data(),
                          body.size(), 1000 * step)
                  .code,
              wire::kCoapChanged);
  }
  ASSERT_TRUE(e.Advance(5000).ok());
  EXPECT_GE(e.released_round_id(), 1);
  for (const std::string& d : e.devices()) {
    EXPECT_EQ(handler.Model(d).code, wire::kCoapForbidden) << d;
  }
}

}  // namespace
}  // namespace edgeadmm::server
