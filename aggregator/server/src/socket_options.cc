#include "edgeadmm/server/socket_options.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace edgeadmm::server {

int FindEndpointSocket(uint16_t port) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;
    int type = 0;
    socklen_t length = sizeof(type);
    if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &length) !=
            0 ||
        type != SOCK_DGRAM) {
      continue;
    }
    sockaddr_storage local{};
    length = sizeof(local);
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local),
                    &length) != 0) {
      continue;
    }
    uint16_t bound = 0;
    if (local.ss_family == AF_INET) {
      bound = ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    } else if (local.ss_family == AF_INET6) {
      bound = ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
    } else {
      continue;
    }
    sockaddr_storage remote{};
    length = sizeof(remote);
    const bool connected =
        getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&remote),
                    &length) == 0;
    if (bound == port && !connected) {
      found = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

int SetReceiveBuffer(int fd, int bytes) {
  if (fd < 0 ||
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)) != 0) {
    return -1;
  }
  int granted = -1;
  socklen_t length = sizeof(granted);
  return getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &length) == 0 ? granted
                                                                       : -1;
}

bool UdpAddressIsFree(const sockaddr* address, socklen_t length) {
  const int probe = socket(address->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  const bool free = bind(probe, address, length) == 0;
  close(probe);
  return free;
}

bool RefuseLaterReuseAddrBinds(int fd) {
  const int off = 0;
  return fd >= 0 &&
         setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &off, sizeof(off)) == 0;
}

}  // namespace edgeadmm::server
