// edgeadmm-bare-coap-server: the baseline of the load benchmark
// (scripts/load-benchmark): libcoap 4.3.1 driven the plainest way, one
// context, one DTLS-PSK endpoint, coap_io_process in a loop, nothing of the
// gateway (no registry, admission, round engine or store). With --shards S
// it opens S contexts whose endpoints share the port (SO_REUSEPORT, as the
// daemon's [server] shards do) and, after each epoll wait, passes only the
// contexts that are ready (a datagram, or libcoap's timer fd), so that a
// datagram costs one context's walk of its own sessions, as in the daemon.
// It holds the same sessions and takes the same datagrams as the daemon
// does in a benchmark round:
//   GET  v1/task    observable; its body is the round number (text)
//   POST v1/update  any body, answered 2.04 Changed; once --round-size
//                   uploads of the round arrived, the round advances and
//                   every observer of v1/task is notified.
//   edgeadmm-bare-coap-server --port P --psk-dir DIR [--address 127.0.0.1]
//       [--round-size N] [--rounds R] [--shards S]
// The PSK of identity ID is the hex file DIR/ID (as `edgeadmm devices add
// --psk-dir` writes them). Exits 0 after R rounds (0: on SIGTERM/SIGINT);
// prints one line per round (uploads, seconds) to stdout, and at the end
// the uploads and the sessions each shard made. Built twice when
// Debian's GnuTLS flavour of libcoap is there: edgeadmm-bare-coap-server
// (OpenSSL, the daemon's) and edgeadmm-bare-coap-server-gnutls.
#include <arpa/inet.h>
#include <coap3/coap.h>
#include <dirent.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "edgeadmm/host/hex.h"

namespace {

volatile std::sig_atomic_t g_stop = 0;
// Set while a context opens with --shards > 1: its endpoint's bind joins the
// port's SO_REUSEPORT group (libcoap 4.3.1 binds inside coap_new_endpoint
// and sets only SO_REUSEADDR; bind below).
bool g_reuse_port = false;
void OnSignal(int) { g_stop = 1; }

using Clock = std::chrono::steady_clock;

struct Server {
  std::map<std::string, std::vector<uint8_t>> keys;  // identity -> PSK
  coap_bin_const_t key_view{};
  std::vector<coap_resource_t*> tasks;  // v1/task of each context
  std::vector<unsigned long> sessions;  // server sessions each context made
  unsigned long round_size = 1;
  unsigned long rounds = 0;
  unsigned long round = 1;
  unsigned long uploads = 0;  // of this round
  unsigned long long total_uploads = 0;
  Clock::time_point round_start = Clock::now();
};

Server g_server;

bool LoadKeys(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  while (const dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name);
    std::string hex;
    if (!(in >> hex)) continue;
    auto key = edgeadmm::host::FromHex(hex);
    if (key.ok()) g_server.keys[e->d_name] = *key;
  }
  closedir(d);
  return !g_server.keys.empty();
}

const coap_bin_const_t* ValidateIdentity(coap_bin_const_t* identity,
                                         coap_session_t*, void*) {
  const std::string id(reinterpret_cast<const char*>(identity->s),
                       identity->length);
  auto it = g_server.keys.find(id);
  if (it == g_server.keys.end()) return nullptr;
  g_server.key_view.s = it->second.data();
  g_server.key_view.length = it->second.size();
  return &g_server.key_view;
}

void GetTask(coap_resource_t* resource, coap_session_t* session,
             const coap_pdu_t* request, const coap_string_t* query,
             coap_pdu_t* response) {
  const std::string body = std::to_string(g_server.round);
  coap_pdu_set_code(response, COAP_RESPONSE_CODE_CONTENT);
  coap_add_data_large_response(resource, session, request, response, query,
                               COAP_MEDIATYPE_TEXT_PLAIN, -1, 0, body.size(),
                               reinterpret_cast<const uint8_t*>(body.data()),
                               nullptr, nullptr);
}

void PostUpdate(coap_resource_t*, coap_session_t*, const coap_pdu_t*,
                const coap_string_t*, coap_pdu_t* response) {
  coap_pdu_set_code(response, COAP_RESPONSE_CODE_CHANGED);
  ++g_server.total_uploads;
  if (++g_server.uploads < g_server.round_size) return;
  const double seconds =
      std::chrono::duration<double>(Clock::now() - g_server.round_start)
          .count();
  std::printf("bare: round %lu, %lu uploads, %.2f s\n", g_server.round,
              g_server.uploads, seconds);
  std::fflush(stdout);
  if (g_server.rounds != 0 && g_server.round >= g_server.rounds) g_stop = 1;
  ++g_server.round;
  g_server.uploads = 0;
  g_server.round_start = Clock::now();
  for (coap_resource_t* task : g_server.tasks) {
    coap_resource_notify_observers(task, nullptr);
  }
}

// The daemon's one concession to bursts, given to the baseline too: an
// 8 MiB receive buffer (server.receive_buffer_bytes), shared by the UDP
// sockets bound to `port` as the daemon's shards share it, so that a
// round's burst of uploads is not dropped by the kernel (libcoap 4.3.1 has
// no call for it; the sockets are found by port).
void SetReceiveBuffer(uint16_t port, int shards) {
  for (int fd = 3; fd < 256; ++fd) {
    sockaddr_in local{};
    socklen_t length = sizeof(local);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) != 0 ||
        local.sin_family != AF_INET || ntohs(local.sin_port) != port) {
      continue;
    }
    int bytes = (8 << 20) / shards;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
  }
}

// Counts the server sessions each context makes (its index is its app
// data).
int OnEvent(coap_session_t* session, const coap_event_t event) {
  if (event == COAP_EVENT_SERVER_SESSION_NEW) {
    const auto index = reinterpret_cast<uintptr_t>(
        coap_get_app_data(coap_session_get_context(session)));
    ++g_server.sessions[index];
  }
  return 0;
}

// Opens one context listening on `listen` with the PSK callback, block
// mode and both resources; null on failure.
coap_context_t* OpenContext(const coap_address_t& listen) {
  coap_context_t* context = coap_new_context(nullptr);
  if (context == nullptr) return nullptr;
  coap_set_app_data(context, reinterpret_cast<void*>(static_cast<uintptr_t>(
                                 g_server.sessions.size())));
  g_server.sessions.push_back(0);
  coap_register_event_handler(context, &OnEvent);
  coap_dtls_spsk_t psk{};
  psk.version = COAP_DTLS_SPSK_SETUP_VERSION;
  psk.validate_id_call_back = &ValidateIdentity;
  if (!coap_context_set_psk2(context, &psk) ||
      coap_new_endpoint(context, &listen, COAP_PROTO_DTLS) == nullptr) {
    coap_free_context(context);
    return nullptr;
  }
  coap_context_set_block_mode(context, COAP_BLOCK_USE_LIBCOAP);
  coap_resource_t* task = coap_resource_init(
      coap_make_str_const("v1/task"), COAP_RESOURCE_FLAGS_NOTIFY_NON_ALWAYS);
  coap_register_handler(task, COAP_REQUEST_GET, &GetTask);
  coap_resource_set_get_observable(task, 1);
  coap_add_resource(context, task);
  g_server.tasks.push_back(task);
  coap_resource_t* update =
      coap_resource_init(coap_make_str_const("v1/update"), 0);
  coap_register_handler(update, COAP_REQUEST_POST, &PostUpdate);
  coap_add_resource(context, update);
  return context;
}

// Waits up to 100 ms for a ready context (libcoap's epoll descriptor of a
// context turns readable on a datagram and when its timer fd fires), then
// passes the ready ones; every context at least once a second. False on an
// I/O error.
bool RunContexts(int poll_fd, const std::vector<coap_context_t*>& contexts) {
  std::vector<epoll_event> ready(contexts.size());
  const int n =
      epoll_wait(poll_fd, ready.data(), static_cast<int>(ready.size()), 100);
  if (n < 0 && errno != EINTR) return false;
  for (int i = 0; i < n; ++i) {
    if (coap_io_process(contexts[ready[i].data.u32], COAP_IO_NO_WAIT) < 0) {
      return false;
    }
  }
  static Clock::time_point backstop = Clock::now();
  if (Clock::now() - backstop < std::chrono::seconds(1)) return true;
  backstop = Clock::now();
  for (coap_context_t* context : contexts) {
    if (coap_io_process(context, COAP_IO_NO_WAIT) < 0) return false;
  }
  return true;
}

const char* Arg(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  }
  return fallback;
}

}  // namespace

// libcoap's bind goes through this program's: SO_REUSEPORT first while
// g_reuse_port is set (it must precede bind(2) for the socket to join the
// port's group).
extern "C" __attribute__((visibility("default"))) int bind(
    int fd, const sockaddr* address, socklen_t length) {
  using BindFn = int (*)(int, const sockaddr*, socklen_t);
  static const BindFn next = reinterpret_cast<BindFn>(dlsym(RTLD_NEXT, "bind"));
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  const int one = 1;
  if (g_reuse_port &&
      setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
    return -1;
  }
  return next(fd, address, length);
}

int main(int argc, char** argv) {
  const char* port = Arg(argc, argv, "--port", nullptr);
  const char* psk_dir = Arg(argc, argv, "--psk-dir", nullptr);
  const char* address = Arg(argc, argv, "--address", "127.0.0.1");
  g_server.round_size =
      std::strtoul(Arg(argc, argv, "--round-size", "1"), nullptr, 10);
  g_server.rounds = std::strtoul(Arg(argc, argv, "--rounds", "0"), nullptr, 10);
  const int shards = std::atoi(Arg(argc, argv, "--shards", "1"));
  if (port == nullptr || psk_dir == nullptr || g_server.round_size == 0 ||
      shards < 1 || shards > 256) {
    std::fprintf(stderr,
                 "usage: edgeadmm-bare-coap-server --port P --psk-dir DIR "
                 "[--address A] [--round-size N>0] [--rounds R] "
                 "[--shards 1..256]\n");
    return 2;
  }
  if (!LoadKeys(psk_dir)) {
    std::fprintf(stderr, "bare: no PSK files in %s\n", psk_dir);
    return 2;
  }
  coap_startup();
  coap_address_t listen;
  coap_address_init(&listen);
  listen.addr.sin.sin_family = AF_INET;
  listen.addr.sin.sin_port = htons(static_cast<uint16_t>(std::atoi(port)));
  listen.size = sizeof(listen.addr.sin);
  if (inet_pton(AF_INET, address, &listen.addr.sin.sin_addr) != 1) return 2;
  std::vector<coap_context_t*> contexts;
  for (int i = 0; i < shards; ++i) {
    g_reuse_port = shards > 1;
    coap_context_t* context = OpenContext(listen);
    g_reuse_port = false;
    if (context == nullptr) {
      std::fprintf(stderr, "bare: cannot listen on %s:%s with DTLS\n", address,
                   port);
      return 1;
    }
    contexts.push_back(context);
  }
  SetReceiveBuffer(static_cast<uint16_t>(std::atoi(port)), shards);
  const int poll_fd = epoll_create1(EPOLL_CLOEXEC);
  for (size_t i = 0; i < contexts.size(); ++i) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u32 = static_cast<uint32_t>(i);
    if (poll_fd < 0 ||
        epoll_ctl(poll_fd, EPOLL_CTL_ADD, coap_context_get_coap_fd(contexts[i]),
                  &event) != 0) {
      std::fprintf(stderr, "bare: cannot poll the contexts\n");
      return 1;
    }
  }
  std::signal(SIGTERM, &OnSignal);
  std::signal(SIGINT, &OnSignal);
  const coap_tls_version_t* tls = coap_get_tls_library_version();
  std::printf(
      "bare: listening on %s:%s, %zu identities, %d shards, DTLS by "
      "%s\n",
      address, port, g_server.keys.size(), shards,
      tls->type == COAP_TLS_LIBRARY_GNUTLS    ? "GnuTLS"
      : tls->type == COAP_TLS_LIBRARY_OPENSSL ? "OpenSSL"
                                              : "another library");
  std::fflush(stdout);
  while (g_stop == 0) {
    if (!RunContexts(poll_fd, contexts)) break;
  }
  std::printf("bare: %llu uploads; sessions by shard:", g_server.total_uploads);
  for (unsigned long count : g_server.sessions) std::printf(" %lu", count);
  std::printf("\n");
  close(poll_fd);
  for (coap_context_t* context : contexts) coap_free_context(context);
  coap_cleanup();
  return 0;
}
