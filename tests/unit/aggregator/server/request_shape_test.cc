// RequestShape: the shapes the device clients send pass; every other one
// that libcoap would key state on is refused.
#include "edgeadmm/server/request_shape.h"

#include <gtest/gtest.h>

#include "edgeadmm/wire/coap_code.h"

namespace edgeadmm::server {
namespace {

RequestOption Opt(uint16_t number, std::vector<uint8_t> value = {}) {
  return RequestOption{number, std::move(value)};
}

const RequestOption kPathV1 = Opt(11, {'v', '1'});
const RequestOption kPathTask = Opt(11, {'t', 'a', 's', 'k'});
constexpr uint8_t kBadOption = wire::CoapCode(4, 2);
constexpr uint16_t kPort = 5684;

TEST(RequestShapeTest, TheClientsShapesPass) {
  // Observe registration, deregistration, a block of a notification.
  EXPECT_EQ(
      CheckRequestShape(Resource::kTask, {Opt(6), kPathV1, kPathTask}, 0, kPort)
          .code,
      0);
  EXPECT_EQ(CheckRequestShape(Resource::kTask,
                              {Opt(6, {1}), kPathV1, kPathTask}, 0, kPort)
                .code,
            0);
  EXPECT_EQ(CheckRequestShape(Resource::kTask,
                              {kPathV1, kPathTask, Opt(23, {0x16})}, 0, kPort)
                .code,
            0);
  // A Block1 upload's first block.
  EXPECT_EQ(CheckRequestShape(Resource::kUpdate,
                              {kPathV1, Opt(12, {0xfe, 0x4d}), Opt(27, {0x0e}),
                               Opt(60, {0x10, 0x00})},
                              1024, kPort)
                .code,
            0);
  EXPECT_EQ(CheckRequestShape(Resource::kModel, {kPathV1}, 0, kPort).code, 0);
  EXPECT_EQ(CheckRequestShape(Resource::kStatus, {kPathV1}, 0, kPort).code, 0);
}

TEST(RequestShapeTest, SecAggTakesContentFormatBlock1AndSize1) {
  EXPECT_EQ(CheckRequestShape(Resource::kSecAgg,
                              {kPathV1, Opt(12, {0xfe, 0x50})}, 500, kPort)
                .code,
            0);
  EXPECT_EQ(CheckRequestShape(Resource::kSecAgg,
                              {kPathV1, Opt(12, {0xfe, 0x50}), Opt(27, {0x0e}),
                               Opt(60, {0x0f, 0xb2})},
                              1024, kPort)
                .code,
            0);
  // Block2 (the later blocks of a long answer) too; Size2, Observe and a
  // query are not part of the phases.
  EXPECT_EQ(CheckRequestShape(Resource::kSecAgg, {kPathV1, Opt(23, {0x16})},
                              500, kPort)
                .code,
            0);
  EXPECT_EQ(CheckRequestShape(Resource::kSecAgg, {kPathV1, Opt(28, {0x00})},
                              500, kPort)
                .code,
            kBadOption);
  EXPECT_EQ(
      CheckRequestShape(Resource::kSecAgg, {Opt(6), kPathV1}, 0, kPort).code,
      kBadOption);
  EXPECT_EQ(
      CheckRequestShape(Resource::kSecAgg, {kPathV1, Opt(15, {'n'})}, 0, kPort)
          .code,
      kBadOption);
}

TEST(RequestShapeTest,
     QueriesOtherThanTheSelectorAndUnknownOptionsAreBadOptions) {
  for (Resource r : {Resource::kTask, Resource::kUpdate, Resource::kModel,
                     Resource::kStatus, Resource::kSecAggRound}) {
    EXPECT_EQ(CheckRequestShape(r, {kPathV1, Opt(15, {'n'})}, 0, kPort).code,
              kBadOption);
    EXPECT_EQ(CheckRequestShape(r, {kPathV1, Opt(17, {1})}, 0, kPort).code,
              kBadOption);  // Accept: elective, still another observer key
    EXPECT_EQ(CheckRequestShape(r, {Opt(3, {'h'}), kPathV1}, 0, kPort).code,
              kBadOption);  // Uri-Host
  }
  // A job selector (docs/protocol.md): on task, model and status only,
  // once; phase 0 of secure aggregation takes a round selector instead.
  const RequestOption job = Opt(15, {'j', 'o', 'b', '=', 'a'});
  const RequestOption round = Opt(15, {'r', 'o', 'u', 'n', 'd', '=', '7'});
  for (Resource r : {Resource::kTask, Resource::kModel, Resource::kStatus}) {
    EXPECT_EQ(CheckRequestShape(r, {kPathV1, job}, 0, kPort).code, 0);
    EXPECT_EQ(CheckRequestShape(r, {kPathV1, job, job}, 0, kPort).code,
              kBadOption);
    EXPECT_EQ(CheckRequestShape(r, {kPathV1, round}, 0, kPort).code,
              kBadOption);
  }
  // A job's own task (v1/task/<name>) names its job by path: no query.
  EXPECT_EQ(
      CheckRequestShape(Resource::kJobTask, {Opt(6), kPathV1}, 0, kPort).code,
      0);
  EXPECT_EQ(
      CheckRequestShape(Resource::kJobTask, {kPathV1, job}, 0, kPort).code,
      kBadOption);
  EXPECT_EQ(
      CheckRequestShape(Resource::kSecAggRound, {kPathV1, round}, 0, kPort)
          .code,
      0);
  EXPECT_EQ(CheckRequestShape(Resource::kSecAggRound, {kPathV1, round, round},
                              0, kPort)
                .code,
            kBadOption);
  EXPECT_EQ(
      CheckRequestShape(Resource::kSecAggRound, {kPathV1, job}, 0, kPort).code,
      kBadOption);
  EXPECT_EQ(CheckRequestShape(
                Resource::kSecAggRound,
                {kPathV1, Opt(15, {'r', 'o', 'u', 'n', 'd', '='})}, 0, kPort)
                .code,
            kBadOption);  // no id
  for (Resource r : {Resource::kUpdate, Resource::kSecAgg}) {
    EXPECT_EQ(CheckRequestShape(r, {kPathV1, job}, 0, kPort).code, kBadOption);
    EXPECT_EQ(CheckRequestShape(r, {kPathV1, round}, 0, kPort).code,
              kBadOption);
  }
  // Options of another resource.
  EXPECT_EQ(
      CheckRequestShape(Resource::kModel, {Opt(6), kPathV1}, 0, kPort).code,
      kBadOption);
  EXPECT_EQ(
      CheckRequestShape(Resource::kTask, {kPathV1, Opt(27, {8})}, 0, kPort)
          .code,
      kBadOption);
  EXPECT_EQ(
      CheckRequestShape(Resource::kUpdate, {kPathV1, Opt(23, {0})}, 0, kPort)
          .code,
      kBadOption);
}

TEST(RequestShapeTest, UriPortOnlyOfThisServer) {
  EXPECT_EQ(CheckRequestShape(Resource::kStatus,
                              {Opt(7, {0x16, 0x34}), kPathV1}, 0, kPort)
                .code,
            0);
  EXPECT_EQ(CheckRequestShape(Resource::kStatus,
                              {Opt(7, {0x16, 0x35}), kPathV1}, 0, kPort)
                .code,
            kBadOption);
  EXPECT_EQ(CheckRequestShape(Resource::kStatus,
                              {Opt(7, {0, 0x16, 0x34}), kPathV1}, 0, kPort)
                .code,
            kBadOption);  // another spelling, another observer key
}

TEST(RequestShapeTest, RepeatedOptionsAreBadOptions) {
  // RFC 7252 5.4.5: a repeated non-repeatable critical option is 4.02.
  EXPECT_EQ(
      CheckRequestShape(Resource::kUpdate,
                        {kPathV1, Opt(27, {0x0e}), Opt(27, {0x1e})}, 10, kPort)
          .code,
      kBadOption);
  EXPECT_EQ(
      CheckRequestShape(Resource::kTask, {Opt(6), Opt(6), kPathV1}, 0, kPort)
          .code,
      kBadOption);
}

TEST(RequestShapeTest, OtherSpellingsOfARegistrationAreRefused) {
  EXPECT_EQ(
      CheckRequestShape(Resource::kTask, {Opt(6, {0}), kPathV1}, 0, kPort).code,
      wire::kCoapBadRequest);
  EXPECT_EQ(
      CheckRequestShape(Resource::kTask, {Opt(6, {0, 0}), kPathV1}, 0, kPort)
          .code,
      wire::kCoapBadRequest);
  EXPECT_EQ(
      CheckRequestShape(Resource::kTask, {Opt(6, {2}), kPathV1}, 0, kPort).code,
      wire::kCoapBadRequest);
  EXPECT_EQ(CheckRequestShape(Resource::kTask,
                              {Opt(6), kPathV1, Opt(23, {0x06})}, 0, kPort)
                .code,
            wire::kCoapBadRequest);
}

TEST(RequestShapeTest, AGetCarriesNoPayload) {
  EXPECT_EQ(CheckRequestShape(Resource::kTask, {kPathV1}, 1, kPort).code,
            wire::kCoapBadRequest);
  EXPECT_EQ(CheckRequestShape(Resource::kStatus, {kPathV1}, 5, kPort).code,
            wire::kCoapBadRequest);
}

}  // namespace
}  // namespace edgeadmm::server
