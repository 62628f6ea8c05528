#include "edgeadmm/server/socket_options.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

namespace edgeadmm::server {

int SetUdpReceiveBuffer(uint16_t port, int bytes) {
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return -1;
  int granted = -1;
  while (const dirent* e = readdir(fds)) {
    const int fd = std::atoi(e->d_name);
    if (e->d_name[0] == '.' || fd == dirfd(fds)) continue;
    int type = 0;
    socklen_t length = sizeof(type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 ||
        type != SOCK_DGRAM) {
      continue;
    }
    sockaddr_storage bound{};
    length = sizeof(bound);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) {
      continue;
    }
    uint16_t bound_port = 0;
    if (bound.ss_family == AF_INET) {
      bound_port = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    } else if (bound.ss_family == AF_INET6) {
      bound_port = ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
    }
    if (bound_port != port) continue;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
    length = sizeof(granted);
    getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &length);
  }
  closedir(fds);
  return granted;
}

}  // namespace edgeadmm::server
