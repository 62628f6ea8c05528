#include "edgeadmm/fleet/source_addresses.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

namespace edgeadmm::fleet {

bool IsLocalAddress(const std::string& host) {
  sockaddr_storage storage{};
  socklen_t size = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    size = sizeof(*v4);
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    size = sizeof(*v6);
  } else {
    return false;
  }
  const int fd = socket(storage.ss_family, SOCK_DGRAM, 0);
  if (fd < 0) return false;
  const bool bound =
      bind(fd, reinterpret_cast<const sockaddr*>(&storage), size) == 0;
  close(fd);
  return bound;
}

std::string SourceAddresses::Nth(const std::string& first, size_t i) {
  in_addr a{};
  if (inet_pton(AF_INET, first.c_str(), &a) != 1) {
    return i == 0 ? first : std::string();  // IPv6: one address only
  }
  const uint64_t value = static_cast<uint64_t>(ntohl(a.s_addr)) + i;
  if (value > 0xFFFFFFFEu) return std::string();
  a.s_addr = htonl(static_cast<uint32_t>(value));
  char text[INET_ADDRSTRLEN];
  return inet_ntop(AF_INET, &a, text, sizeof(text)) ? text : std::string();
}

host::ErrorOr<SourceAddresses> SourceAddresses::Make(const std::string& first,
                                                     size_t count,
                                                     size_t devices) {
  if (count == 0) {
    return host::Error::InvalidArgument("--local-addresses must be >= 1");
  }
  const std::string last = Nth(first, count - 1);
  if (last.empty() || !IsLocalAddress(first) || !IsLocalAddress(last)) {
    return host::Error::InvalidArgument(
        "cannot bind to local address " + first +
        (count > 1 ? " or the " + std::to_string(count - 1) + " after it"
                   : std::string()));
  }
  const size_t per_address = (devices + count - 1) / count;
  const size_t ports =
      std::min<size_t>(65535 - 1024, std::max<size_t>(64, 4 * per_address));
  SourceAddresses s;
  s.pools_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    s.pools_.push_back(std::make_unique<posix::LocalPortPool>(
        Nth(first, i), uint16_t{1024}, static_cast<uint16_t>(1024 + ports)));
  }
  return s;
}

}  // namespace edgeadmm::fleet
