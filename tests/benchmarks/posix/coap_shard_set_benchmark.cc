// K libcoap contexts (plain CoAP over UDP on 127.0.0.1) holding S idle
// server sessions between them; D requests, one at a time at R per second
// (0: back to back), round robin over the shards. Two loops over the same
// contexts:
//   all    wait on the contexts' epoll set, then a pass for every shard,
//          each walking when 20 ms passed since its last walk (the daemon's
//          loop before CoapShardSet);
//   ready  CoapShardSet: a pass for the ready shards only (backstop walk 1 s,
//          as the daemon).
// Prints libcoap walks per request (a count, not disturbed by other load)
// and the process's CPU ms per request, then the same for one idle second.
// Then the throughput of CoapShardSet on 1 and on 2 threads (issue 36):
// F requests sent back to back by another thread (at most 256 in flight),
// round robin over the sessions, twice each, and the ratio 2 / 1 threads.
//   coap_shard_set_benchmark [S=8000] [D=4000] [K=8] [R=1000] [F=200000]
#include <coap3/coap.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <memory>
#include <thread>
#include <vector>

#include "coap_udp_loopback.h"
#include "edgeadmm/posix/coap_batched_io.h"
#include "edgeadmm/posix/coap_shard_set.h"
#include "edgeadmm/posix/monotonic_clock.h"

namespace {

using edgeadmm::posix::CoapBatchedIo;
using edgeadmm::posix::CoapBatchedIoOptions;
using edgeadmm::posix::CoapShardSet;
using edgeadmm::posix::kShardBackstopWalkMs;
using edgeadmm::posix::MonotonicMs;

using edgeadmm::posix::coap_loopback::HandledRequests;

double CpuMs() {
  rusage use{};
  getrusage(RUSAGE_SELF, &use);
  return (use.ru_utime.tv_sec + use.ru_stime.tv_sec) * 1e3 +
         (use.ru_utime.tv_usec + use.ru_stime.tv_usec) / 1e3;
}

struct Shards {
  std::vector<coap_context_t*> contexts;
  std::vector<uint16_t> ports;
};

bool Open(size_t k, Shards& shards) {
  for (size_t i = 0; i < k; ++i) {
    uint16_t port = 0;
    coap_context_t* context =
        edgeadmm::posix::coap_loopback::NewLoopbackUdpContext(&port);
    if (context == nullptr) return false;
    shards.contexts.push_back(context);
    shards.ports.push_back(port);
  }
  return true;
}

// One loop over the shards; returns false on an I/O error.
class Loop {
 public:
  Loop(const Shards& shards, bool ready_only) : ready_only_(ready_only) {
    CoapBatchedIoOptions options;
    options.max_endpoint_reads = 128;
    options.walk_interval_ms = ready_only ? kShardBackstopWalkMs : 20;
    poll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    for (size_t i = 0; i < shards.contexts.size(); ++i) {
      ios_.push_back(
          std::make_unique<CoapBatchedIo>(shards.contexts[i], options));
      set_.Add(shards.contexts[i], ios_.back().get());
      epoll_event event{};
      event.events = EPOLLIN;
      event.data.u64 = i;
      epoll_ctl(poll_fd_, EPOLL_CTL_ADD, ios_.back()->epoll_fd(), &event);
    }
  }
  ~Loop() { close(poll_fd_); }
  bool RunOnce(int timeout_ms) {
    if (ready_only_) return set_.RunOnce(timeout_ms) >= 0;
    epoll_event ready[64];
    epoll_wait(poll_fd_, ready, 64, timeout_ms);
    for (auto& io : ios_) {
      if (io->Process(0) < 0) return false;
    }
    return true;
  }
  uint64_t walks() const {
    uint64_t total = 0;
    for (const auto& io : ios_) total += io->walks();
    return total;
  }

 private:
  bool ready_only_;
  int poll_fd_ = -1;
  std::vector<std::unique_ptr<CoapBatchedIo>> ios_;
  CoapShardSet set_;
};

void SleepUntil(uint64_t ms) {
  const uint64_t now = MonotonicMs();
  if (ms <= now) return;
  const timespec pause{0, static_cast<long>((ms - now) * 1000000)};
  nanosleep(&pause, nullptr);
}

void Measure(const Shards& shards, const std::vector<int>& clients,
             long requests, long rate, bool ready_only) {
  Loop loop(shards, ready_only);
  loop.RunOnce(0);  // first walks
  const size_t k = shards.contexts.size();
  const uint64_t walks = loop.walks();
  double cpu = CpuMs();
  const uint64_t begin = MonotonicMs();
  for (long i = 0; i < requests; ++i) {
    if (rate > 0) SleepUntil(begin + static_cast<uint64_t>(i * 1000 / rate));
    const long want = HandledRequests() + 1;
    edgeadmm::posix::coap_loopback::SendNonGet(
        clients[static_cast<size_t>(i) % clients.size()],
        shards.ports[static_cast<size_t>(i) % k], static_cast<uint16_t>(i));
    while (HandledRequests() < want) {
      if (!loop.RunOnce(100)) return;
    }
  }
  const double busy_cpu = (CpuMs() - cpu) / static_cast<double>(requests);
  const double busy_walks =
      static_cast<double>(loop.walks() - walks) / static_cast<double>(requests);
  const uint64_t idle_walks = loop.walks();
  cpu = CpuMs();
  const uint64_t end = MonotonicMs() + 1000;
  while (MonotonicMs() < end) loop.RunOnce(100);
  std::printf("%-6s %10.2f %12.4f %12llu %12.2f\n",
              ready_only ? "ready" : "all", busy_walks, busy_cpu,
              static_cast<unsigned long long>(loop.walks() - idle_walks),
              CpuMs() - cpu);
}

// F requests from a sender thread, handled by a CoapShardSet of `threads`
// threads; prints and returns the requests handled per second.
double Flood(const Shards& shards, const std::vector<int>& clients,
             long requests, size_t threads) {
  constexpr long kInFlight = 256;
  CoapBatchedIoOptions options;
  options.max_endpoint_reads = 128;
  options.walk_interval_ms = kShardBackstopWalkMs;
  std::vector<std::unique_ptr<CoapBatchedIo>> ios;
  CoapShardSet set(threads);
  for (coap_context_t* context : shards.contexts) {
    ios.push_back(std::make_unique<CoapBatchedIo>(context, options));
    set.Add(context, ios.back().get());
  }
  set.RunOnce(0);  // first walks
  const long base = HandledRequests();
  const size_t k = shards.contexts.size();
  const double cpu = CpuMs();
  const uint64_t begin = MonotonicMs();
  std::atomic<bool> failed{false};
  std::thread sender([&] {
    const timespec pause{0, 20000};
    for (long i = 0; i < requests && !failed; ++i) {
      while (i - (HandledRequests() - base) >= kInFlight && !failed) {
        nanosleep(&pause, nullptr);
      }
      edgeadmm::posix::coap_loopback::SendNonGet(
          clients[static_cast<size_t>(i) % clients.size()],
          shards.ports[static_cast<size_t>(i) % k], static_cast<uint16_t>(i));
    }
  });
  while (HandledRequests() - base < requests) {
    if (set.RunOnce(100) < 0) {
      failed = true;
      break;
    }
  }
  sender.join();
  const double seconds = static_cast<double>(MonotonicMs() - begin) / 1e3;
  const double per_second = static_cast<double>(requests) / seconds;
  std::printf("%-8zu %12.0f %14.4f\n", threads, per_second,
              (CpuMs() - cpu) / static_cast<double>(requests));
  return failed ? 0 : per_second;
}

}  // namespace

int main(int argc, char** argv) {
  const long sessions = argc > 1 ? atol(argv[1]) : 8000;
  const long requests = argc > 2 ? atol(argv[2]) : 4000;
  const size_t k = argc > 3 ? static_cast<size_t>(atol(argv[3])) : 8;
  const long rate = argc > 4 ? atol(argv[4]) : 1000;
  const long flood = argc > 5 ? atol(argv[5]) : 200000;
  coap_startup();
  coap_set_log_level(LOG_ERR);
  Shards shards;
  if (!Open(k, shards)) return 1;
  // One socket per session (libcoap keys a session by the peer's address).
  std::vector<int> clients;
  for (long s = 0; s < sessions; ++s) {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    if (fd < 0) return 1;
    clients.push_back(fd);
  }
  {
    Loop setup(shards, true);
    for (long s = 0; s < sessions; ++s) {
      edgeadmm::posix::coap_loopback::SendNonGet(
          clients[static_cast<size_t>(s)],
          shards.ports[static_cast<size_t>(s) % k], 0);
      if (s % 64 == 63) {
        while (HandledRequests() < s + 1) setup.RunOnce(100);
      }
    }
    while (HandledRequests() < sessions) setup.RunOnce(100);
  }
  std::printf("%ld sessions on %zu shards, %ld requests round robin, %ld/s\n",
              sessions, k, requests, rate);
  std::printf("%-6s %10s %12s %12s %12s\n", "loop", "walks/req", "cpu ms/req",
              "idle walks/s", "idle cpu ms/s");
  for (int pass = 0; pass < 2; ++pass) {
    Measure(shards, clients, requests, rate, false);
    Measure(shards, clients, requests, rate, true);
  }
  std::printf("\n%ld requests back to back, at most 256 in flight\n", flood);
  std::printf("%-8s %12s %14s\n", "threads", "requests/s",
              "cpu ms/req (sender too)");
  double one = 0, two = 0;
  for (int pass = 0; pass < 2; ++pass) {
    one += Flood(shards, clients, flood, 1);
    two += Flood(shards, clients, flood, 2);
  }
  if (one <= 0 || two <= 0) return 1;
  std::printf("throughput 2 threads / 1 thread: %.2f\n", two / one);
  for (int fd : clients) close(fd);
  for (coap_context_t* context : shards.contexts) coap_free_context(context);
  coap_cleanup();
  return 0;
}
