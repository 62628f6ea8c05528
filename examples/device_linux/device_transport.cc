#include "device_transport.h"

#include <vector>

#include "edgeadmm/failover_transport.h"
#include "edgeadmm/posix/coap_client_context.h"
#include "edgeadmm/posix/coap_dtls_transport.h"
#include "edgeadmm/result.h"

#if EDGEADMM_DEVICE_SDK_TRANSPORT
#include "edgeadmm/coap/coap_client.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/dtls/dtls_psk_link.h"
#include "edgeadmm/posix/monotonic_clock.h"
#include "edgeadmm/posix/udp_datagram_link.h"
#endif

namespace edgeadmm::device {

struct DeviceTransport::Libcoap {
  posix::CoapClientContext context;
  std::unique_ptr<posix::CoapDtlsTransport> transport;
  // --gateway: one transport per further gateway, and the FailoverTransport
  // over all of them (null: one gateway).
  std::vector<std::unique_ptr<posix::CoapDtlsTransport>> more;
  std::vector<Transport*> gateways;
  std::unique_ptr<FailoverTransport> failover;
};

#if EDGEADMM_DEVICE_SDK_TRANSPORT
namespace {
uint64_t NowMs() { return posix::MonotonicMs(); }
}  // namespace

struct DeviceTransport::Sdk {
  posix::UdpDatagramLink udp;
  Drbg drbg;  // the DTLS handshake's randomness
  std::unique_ptr<dtls::DtlsPskLink> dtls;
  std::unique_ptr<coap::CoapClient> client;
  // One datagram of a 1024-byte block each way.
  std::byte tx[coap::CoapDatagramBytes(1024)];
  std::byte rx[coap::CoapDatagramBytes(1024)];
  // --gateway: every gateway's address (the first is --host/--port), and a
  // FailoverTransport over the one client whose move hook points the UDP
  // link at the next, as the MCU does (null: one gateway).
  std::vector<std::pair<std::string, uint16_t>> addresses;
  std::vector<Transport*> gateways;
  std::unique_ptr<FailoverTransport> failover;

  static void PointAt(void* self, size_t index) {
    auto* sdk = static_cast<Sdk*>(self);
    const auto& [host, port] = sdk->addresses[index];
    // A failed Open leaves the link closed: the next exchange fails and
    // the transport moves on again.
    sdk->udp.Open(host.c_str(), port).IgnoreError();
  }

  Status Open(const DeviceOptions& o, ConstByteSpan key,
              EntropySource& entropy) {
    EDGEADMM_TRY(udp.Open(o.host.c_str(), o.port));
    static constexpr char kPersonalization[] = "edgeadmm-device dtls";
    EDGEADMM_TRY(drbg.Init(
        entropy,
        ConstByteSpan(reinterpret_cast<const std::byte*>(kPersonalization),
                      sizeof(kPersonalization) - 1)));
    dtls::DtlsPskLinkConfig d;
    d.lower = &udp;
    d.now_ms = &NowMs;
    d.random = &drbg;
    d.identity = o.identity.c_str();
    d.key = key;
    dtls = std::make_unique<dtls::DtlsPskLink>(d);
    coap::CoapClientConfig c;
    c.link = dtls.get();
    c.now_ms = &NowMs;
    c.tx_buffer = ByteSpan(tx, sizeof(tx));
    c.rx_buffer = ByteSpan(rx, sizeof(rx));
    c.ack_timeout_ms = o.ack_timeout_ms;
    c.silence_timeout_ms = o.silence_timeout_ms;
    uint8_t seed[4];
    EDGEADMM_TRY(drbg.Generate(
        ByteSpan(reinterpret_cast<std::byte*>(seed), sizeof(seed))));
    c.seed = static_cast<uint32_t>(seed[0]) | uint32_t{seed[1]} << 8 |
             uint32_t{seed[2]} << 16 | uint32_t{seed[3]} << 24;
    client = std::make_unique<coap::CoapClient>(c);
    if (o.more_gateways.empty()) return Status::Ok();
    addresses.emplace_back(o.host, o.port);
    addresses.insert(addresses.end(), o.more_gateways.begin(),
                     o.more_gateways.end());
    gateways.assign(addresses.size(), client.get());
    failover = std::make_unique<FailoverTransport>(
        gateways.data(), gateways.size(), 0, FailoverMoveHook{&PointAt, this});
    return Status::Ok();
  }
};
#else
struct DeviceTransport::Sdk {};
#endif

DeviceTransport::DeviceTransport() = default;
DeviceTransport::~DeviceTransport() = default;

Status DeviceTransport::Open(const DeviceOptions& o, ConstByteSpan key,
                             EntropySource& entropy) {
  if (o.transport == DeviceTransportKind::kSdk) {
#if EDGEADMM_DEVICE_SDK_TRANSPORT
    sdk_ = std::make_unique<Sdk>();
    return sdk_->Open(o, key, entropy);
#else
    (void)entropy;
    return Status::Unimplemented();
#endif
  }
  libcoap_ = std::make_unique<Libcoap>();
  EDGEADMM_TRY(libcoap_->context.status());
  posix::CoapDtlsConfig link;
  link.host = o.host.c_str();
  link.port = o.port;
  link.identity = o.identity.c_str();
  link.key = key;
  link.ack_timeout_ms = o.ack_timeout_ms;
  link.silence_timeout_ms = o.silence_timeout_ms;
  if (o.handshake_timeout_ms != 0) {
    link.handshake_timeout_ms = o.handshake_timeout_ms;
  }
  libcoap_->transport =
      std::make_unique<posix::CoapDtlsTransport>(libcoap_->context, link);
  if (o.more_gateways.empty()) return Status::Ok();
  libcoap_->gateways.push_back(libcoap_->transport.get());
  for (const auto& [host, port] : o.more_gateways) {
    link.host = host.c_str();
    link.port = port;
    libcoap_->more.push_back(
        std::make_unique<posix::CoapDtlsTransport>(libcoap_->context, link));
    libcoap_->gateways.push_back(libcoap_->more.back().get());
  }
  libcoap_->failover = std::make_unique<FailoverTransport>(
      libcoap_->gateways.data(), libcoap_->gateways.size());
  return Status::Ok();
}

Transport& DeviceTransport::get() {
#if EDGEADMM_DEVICE_SDK_TRANSPORT
  if (sdk_ != nullptr && sdk_->failover != nullptr) return *sdk_->failover;
  if (sdk_ != nullptr) return *sdk_->client;
#endif
  if (libcoap_->failover != nullptr) return *libcoap_->failover;
  return *libcoap_->transport;
}

}  // namespace edgeadmm::device
