#include "edgeadmm/lwip/network.h"

#include <cstddef>

#include "lwip/dhcp.h"
#include "lwip/etharp.h"
#include "lwip/init.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"

namespace edgeadmm::lwip {
namespace {

// Pieces of one outgoing frame (lwIP pbuf chain) handed to the MAC.
constexpr size_t kMaxFramePieces = 4;
// How often PollNetwork() asks the PHY for the link state.
constexpr uint64_t kLinkCheckMs = 100;

NetworkConfig config;
netif interface;
bool started = false;
uint64_t next_link_check_ms = 0;
uint32_t rand_state = 0;

err_t LinkOutput(netif*, pbuf* p) {
  ConstByteSpan pieces[kMaxFramePieces];
  size_t count = 0;
  for (pbuf* q = p; q != nullptr; q = q->next) {
    if (count == kMaxFramePieces) return ERR_BUF;
    pieces[count++] =
        ConstByteSpan(static_cast<const std::byte*>(q->payload), q->len);
  }
  return config.mac->Send(pieces, count).ok() ? ERR_OK : ERR_IF;
}

err_t InitInterface(netif* n) {
  n->name[0] = 'e';
  n->name[1] = 'n';
  n->output = etharp_output;
  n->linkoutput = LinkOutput;
  n->mtu = 1500;
  n->hwaddr_len = ETH_HWADDR_LEN;
  config.mac->MacAddress(n->hwaddr);
  n->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
  return ERR_OK;
}

ip4_addr_t Ip4(const uint8_t a[4]) {
  ip4_addr_t address;
  IP4_ADDR(&address, a[0], a[1], a[2], a[3]);
  return address;
}

void FollowLink(uint64_t now) {
  if (now < next_link_check_ms) return;
  next_link_check_ms = now + kLinkCheckMs;
  const bool up = config.mac->LinkUp();
  if (up && !netif_is_link_up(&interface)) netif_set_link_up(&interface);
  if (!up && netif_is_link_up(&interface)) netif_set_link_down(&interface);
}

}  // namespace

Status StartNetwork(const NetworkConfig& c) {
  if (started) return Status::FailedPrecondition();
  if (c.mac == nullptr || c.now_ms == nullptr) return Status::InvalidArgument();
  if (c.dhcp && !LWIP_DHCP) return Status::Unimplemented();
  config = c;
  started = true;
  uint8_t mac[6];
  config.mac->MacAddress(mac);
  rand_state = static_cast<uint32_t>(config.now_ms()) ^ 0x9E3779B9u;
  for (uint8_t b : mac) rand_state = rand_state * 31u + b;
  lwip_init();
  ip4_addr_t address = Ip4(config.address);
  ip4_addr_t netmask = Ip4(config.netmask);
  ip4_addr_t gateway = Ip4(config.gateway);
  if (config.dhcp) {
    ip4_addr_set_zero(&address);
    ip4_addr_set_zero(&netmask);
    ip4_addr_set_zero(&gateway);
  }
  netif_add(&interface, &address, &netmask, &gateway, nullptr, InitInterface,
            ethernet_input);
  netif_set_default(&interface);
  netif_set_up(&interface);
  FollowLink(config.now_ms());
#if LWIP_DHCP
  if (config.dhcp && dhcp_start(&interface) != ERR_OK) {
    return Status::ResourceExhausted();
  }
#endif
  return Status::Ok();
}

bool NetworkStarted() { return started; }

void PollNetwork() {
  if (!started) return;
  while (config.mac->FramePending()) {
    // One pool buffer holds a whole frame (PBUF_POOL_BUFSIZE); with the pool
    // exhausted the frame is read and dropped.
    pbuf* p =
        pbuf_alloc(PBUF_RAW, baremetal::EthernetMac::kMaxFrameBytes, PBUF_POOL);
    if (p != nullptr && p->next != nullptr) {
      pbuf_free(p);
      p = nullptr;
    }
    const size_t size = config.mac->Receive(
        p == nullptr ? ByteSpan()
                     : ByteSpan(static_cast<std::byte*>(p->payload), p->len));
    if (p == nullptr) continue;
    if (size == 0) {
      pbuf_free(p);
      continue;
    }
    pbuf_realloc(p, static_cast<u16_t>(size));
    if (interface.input(p, &interface) != ERR_OK) pbuf_free(p);
  }
  FollowLink(config.now_ms());
  sys_check_timeouts();
}

bool NetworkReady() {
  if (!started || !netif_is_link_up(&interface)) return false;
#if LWIP_DHCP
  if (config.dhcp) return dhcp_supplied_address(&interface) != 0;
#endif
  return !ip4_addr_isany_val(*netif_ip4_addr(&interface));
}

Status WaitNetworkReady(uint32_t timeout_ms) {
  if (!started) return Status::FailedPrecondition();
  const uint64_t deadline = config.now_ms() + timeout_ms;
  while (!NetworkReady()) {
    if (config.now_ms() >= deadline) return Status::DeadlineExceeded();
    PollNetwork();
  }
  return Status::Ok();
}

void NetworkAddress(uint8_t address[4]) {
  const uint32_t a = ip4_addr_get_u32(netif_ip4_addr(&interface));
  for (int i = 0; i < 4; ++i) address[i] = static_cast<uint8_t>(a >> (8 * i));
}

uint64_t NetworkNowMs() { return started ? config.now_ms() : 0; }

}  // namespace edgeadmm::lwip

// lwIP's clock and random numbers (NO_SYS ports provide them).
extern "C" u32_t sys_now(void) {
  return static_cast<u32_t>(edgeadmm::lwip::NetworkNowMs());
}

extern "C" unsigned int edgeadmm_lwip_rand(void) {
  // xorshift32: DHCP transaction ids only, not secret.
  uint32_t x =
      edgeadmm::lwip::rand_state == 0 ? 1u : edgeadmm::lwip::rand_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  edgeadmm::lwip::rand_state = x;
  return x;
}
