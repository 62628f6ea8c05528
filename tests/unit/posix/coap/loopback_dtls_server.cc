#include "loopback_dtls_server.h"

#include <arpa/inet.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace edgeadmm::testing {
namespace {

using State = LoopbackDtlsServer::State;
constexpr uint16_t kTextPlain = 0;

coap_bin_const_t Bin(const std::string& s) {
  coap_bin_const_t b;
  b.s = reinterpret_cast<const uint8_t*>(s.data());
  b.length = s.size();
  return b;
}

// The port of an endpoint bound to port 0, from "127.0.0.1:PORT DTLS".
uint16_t BoundPort(const coap_endpoint_t* endpoint) {
  const char* text = coap_endpoint_str(endpoint);
  const char* colon = std::strrchr(text, ':');
  if (colon == nullptr) return 0;
  return static_cast<uint16_t>(std::strtoul(colon + 1, nullptr, 10));
}

void AddUintOption(coap_pdu_t* pdu, coap_option_num_t number, uint32_t value) {
  uint8_t buffer[4];
  coap_add_option(pdu, number,
                  coap_encode_var_safe(buffer, sizeof(buffer), value), buffer);
}

State& StateOf(coap_resource_t* resource) {
  return *static_cast<State*>(coap_resource_get_userdata(resource));
}

// The request body (empty if none).
std::pair<const uint8_t*, size_t> Body(const coap_pdu_t* request) {
  size_t length = 0;
  const uint8_t* data = nullptr;
  if (coap_get_data(request, &length, &data) == 0) return {nullptr, 0};
  return {data, length};
}

// "ADDRESS:PORT" of an IPv4 or IPv6 peer.
std::string PeerText(const coap_address_t* peer) {
  char text[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (peer->addr.sa.sa_family == AF_INET) {
    inet_ntop(AF_INET, &peer->addr.sin.sin_addr, text, sizeof(text));
    port = ntohs(peer->addr.sin.sin_port);
  } else if (peer->addr.sa.sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &peer->addr.sin6.sin6_addr, text, sizeof(text));
    port = ntohs(peer->addr.sin6.sin6_port);
  }
  return std::string(text) + ":" + std::to_string(port);
}

const coap_bin_const_t* CheckIdentity(coap_bin_const_t* identity,
                                      coap_session_t* session, void* arg) {
  State& state = *static_cast<State*>(arg);
  const std::string offered(reinterpret_cast<const char*>(identity->s),
                            identity->length);
  state.identities.push_back(offered);
  state.peers.push_back(PeerText(coap_session_get_addr_remote(session)));
  return offered == state.identity ? &state.key_bin : &state.default_key_bin;
}

void GetPing(coap_resource_t* /*resource*/, coap_session_t* /*session*/,
             const coap_pdu_t* /*request*/, const coap_string_t* /*query*/,
             coap_pdu_t* response) {
  coap_pdu_set_code(response, COAP_RESPONSE_CODE_CONTENT);
  AddUintOption(response, COAP_OPTION_CONTENT_FORMAT, kTextPlain);
  coap_add_data(response, 4, reinterpret_cast<const uint8_t*>("pong"));
}

void PostEcho(coap_resource_t* /*resource*/, coap_session_t* /*session*/,
              const coap_pdu_t* request, const coap_string_t* /*query*/,
              coap_pdu_t* response) {
  coap_pdu_set_code(response, COAP_RESPONSE_CODE_CHANGED);
  coap_opt_iterator_t iterator;
  const coap_opt_t* format =
      coap_check_option(request, COAP_OPTION_CONTENT_FORMAT, &iterator);
  if (format != nullptr) {
    AddUintOption(response, COAP_OPTION_CONTENT_FORMAT,
                  coap_decode_var_bytes(coap_opt_value(format),
                                        coap_opt_length(format)));
  }
  const auto [data, length] = Body(request);
  if (length > 0) coap_add_data(response, length, data);
}

// Block1 (RFC 7959) by hand, as an application must with libcoap 4.3.1
// unless it asks for COAP_BLOCK_USE_LIBCOAP: blocks in order, 2.31 until M=0.
void PutBlob(coap_resource_t* resource, coap_session_t* /*session*/,
             const coap_pdu_t* request, const coap_string_t* /*query*/,
             coap_pdu_t* response) {
  State& state = StateOf(resource);
  const auto [data, length] = Body(request);
  coap_block_t block;
  if (coap_get_block(request, COAP_OPTION_BLOCK1, &block) == 0) {
    state.blob.assign(data, data + length);
    state.blob_blocks = 1;
    coap_pdu_set_code(response, COAP_RESPONSE_CODE_CREATED);
    return;
  }
  const size_t offset = static_cast<size_t>(block.num) << (block.szx + 4);
  if (offset == 0) {
    state.blob.clear();
    state.blob_blocks = 0;
  }
  if (offset != state.blob.size()) {
    coap_pdu_set_code(response, COAP_RESPONSE_CODE_INCOMPLETE);
    return;
  }
  state.blob.insert(state.blob.end(), data, data + length);
  ++state.blob_blocks;
  AddUintOption(response, COAP_OPTION_BLOCK1,
                (block.num << 4) | (block.m ? 0x08u : 0u) | block.szx);
  coap_pdu_set_code(response, block.m ? COAP_RESPONSE_CODE_CONTINUE
                                      : COAP_RESPONSE_CODE_CREATED);
}

void GetBlob(coap_resource_t* resource, coap_session_t* /*session*/,
             const coap_pdu_t* request, const coap_string_t* /*query*/,
             coap_pdu_t* response) {
  const State& state = StateOf(resource);
  // Block2 as the request asks (libcoap picks the size of the first block).
  coap_add_data_blocked_response(request, response,
                                 COAP_MEDIATYPE_APPLICATION_OCTET_STREAM, -1,
                                 state.blob.size(), state.blob.data());
}

void AddResource(
    coap_context_t* context, State* state, const char* path,
    std::initializer_list<std::pair<coap_request_t, coap_method_handler_t>>
        handlers) {
  coap_resource_t* resource = coap_resource_init(coap_make_str_const(path), 0);
  coap_resource_set_userdata(resource, state);
  for (const auto& [method, handler] : handlers) {
    coap_register_handler(resource, method, handler);
  }
  coap_add_resource(context, resource);
}

}  // namespace

LoopbackDtlsServer::LoopbackDtlsServer(const std::string& identity,
                                       const std::string& key,
                                       const std::string& default_key) {
  state_.identity = identity;
  state_.key = key;
  state_.default_key = default_key;
  state_.key_bin = Bin(state_.key);
  state_.default_key_bin = Bin(state_.default_key);
  coap_startup();
  if (!coap_dtls_is_supported()) return;
  context_ = coap_new_context(nullptr);
  if (context_ == nullptr) return;
  coap_dtls_spsk_t setup;
  std::memset(&setup, 0, sizeof(setup));
  setup.version = COAP_DTLS_SPSK_SETUP_VERSION;
  setup.validate_id_call_back = &CheckIdentity;
  setup.id_call_back_arg = &state_;
  setup.psk_info.key = state_.default_key_bin;
  if (coap_context_set_psk2(context_, &setup) == 0) return;
  coap_address_t address;
  coap_address_init(&address);
  address.addr.sin.sin_family = AF_INET;
  address.addr.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.addr.sin.sin_port = 0;  // the kernel picks a free port
  address.size = sizeof(address.addr.sin);
  coap_endpoint_t* endpoint =
      coap_new_endpoint(context_, &address, COAP_PROTO_DTLS);
  if (endpoint == nullptr) return;
  port_ = BoundPort(endpoint);
  AddResource(context_, &state_, "v1/ping", {{COAP_REQUEST_GET, &GetPing}});
  AddResource(context_, &state_, "v1/echo", {{COAP_REQUEST_POST, &PostEcho}});
  AddResource(context_, &state_, "v1/blob",
              {{COAP_REQUEST_PUT, &PutBlob}, {COAP_REQUEST_GET, &GetBlob}});
}

LoopbackDtlsServer::~LoopbackDtlsServer() {
  if (context_ != nullptr) coap_free_context(context_);
}

void LoopbackDtlsServer::Poll(uint32_t timeout_ms) {
  if (context_ != nullptr) {
    coap_io_process(context_, timeout_ms == 0 ? COAP_IO_NO_WAIT : timeout_ms);
  }
}

}  // namespace edgeadmm::testing
