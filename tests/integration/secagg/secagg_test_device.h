// A SecAgg+ test device of the loopback CoAP tests: flash, DRBG, session
// memory, a transport (libcoap's, or with `sdk` the SDK's CoapClient over
// DtlsPskLink, what an MCU runs) and a SecAggPhaseClient, with capacities
// of K neighbours and M words (rounds of any number of devices).
#ifndef EDGEADMM_TESTS_INTEGRATION_SECAGG_SECAGG_TEST_DEVICE_H_
#define EDGEADMM_TESTS_INTEGRATION_SECAGG_SECAGG_TEST_DEVICE_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/memory_storage.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/secagg/phase_client.h"
#include "edgeadmm/secagg/phase_frames.h"
#include "sdk_stack.h"

namespace edgeadmm::testing {

template <size_t K, size_t M>
struct SecAggTestDevice {
  using Arrays = SecAggSessionArrays<K, M>;
  static constexpr char kBlobKey[] = "secagg";

  SecAggTestDevice(posix::CoapClientContext& ctx, uint16_t port,
                   std::string name, std::vector<uint8_t> psk, uint64_t seed,
                   bool sdk = false)
      : id(std::move(name)),
        key(std::move(psk)),
        flash(4 * SecAggSessionBlobBytes(K, M)),
        storage(ByteSpan(flash.data(), flash.size())),
        entropy(seed) {
    EXPECT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
    config.host = "127.0.0.1";
    config.port = port;
    config.identity = id.c_str();
    config.key = ConstByteSpan(reinterpret_cast<const std::byte*>(key.data()),
                               key.size());
    config.ack_timeout_ms = 1000;
    if (sdk) {
      sdk_stack = std::make_unique<SdkStack>(port, id.c_str(), key, 1000);
      link = sdk_stack->client.get();
    } else {
      transport = std::make_unique<posix::CoapDtlsTransport>(ctx, config);
      link = transport.get();
    }
    Boot();
  }
  // A fresh session and client over fresh RAM (power-on or reboot).
  void Boot(size_t key_capacity = K) {
    client.reset();
    session.reset();
    arrays = std::make_unique<Arrays>();
    session = std::make_unique<SecAggDeviceSession>(arrays->buffers());
    SecAggClientBuffers b;
    b.request = ByteSpan(request, sizeof(request));
    b.response = ByteSpan(response, sizeof(response));
    b.blob = ByteSpan(blob.data(), blob.size());
    b.keys = Span<SecAggPeerKeys>(keys, key_capacity);
    b.sealed = Span<SecAggSealed>(sealed, K);
    b.survivors = Span<uint32_t>(survivors, K + 1);
    client = std::make_unique<SecAggPhaseClient>(*link, storage, kBlobKey,
                                                 *session, drbg, b);
    client->poll_interval_ms = 100;
  }
  // A reset mid-round: the exchange in flight is dropped, RAM is lost, and
  // the client resumes from the blob in storage.
  Status Reboot() {
    transport->Cancel();
    Boot();
    return client->Resume(Span<const uint32_t>(x.data(), x.size()));
  }

  std::string id;
  std::vector<uint8_t> key;
  std::vector<std::byte> flash;
  MemoryStorage storage;
  TestEntropy entropy;
  Drbg drbg;
  posix::CoapDtlsConfig config;
  std::unique_ptr<posix::CoapDtlsTransport> transport;
  std::unique_ptr<SdkStack> sdk_stack;
  Transport* link = nullptr;  // one of the two
  std::unique_ptr<Arrays> arrays;
  std::unique_ptr<SecAggDeviceSession> session;
  std::unique_ptr<SecAggPhaseClient> client;
  std::byte request[SecAggSealedBytes(K) + SecAggWordsBytes(M)] = {};
  std::byte response[SecAggSealedBytes(K) + SecAggKeysAnswerBytes(K) +
                     SecAggSurvivorsBytes(K + 1)] = {};
  std::vector<std::byte> blob =
      std::vector<std::byte>(SecAggSessionBlobBytes(K, M));
  SecAggPeerKeys keys[K];
  SecAggSealed sealed[K];
  uint32_t survivors[K + 1] = {};
  std::vector<uint32_t> x;  // the encoded update
  bool gone = false;        // powered off for good
};

}  // namespace edgeadmm::testing

#endif  // EDGEADMM_TESTS_INTEGRATION_SECAGG_SECAGG_TEST_DEVICE_H_
