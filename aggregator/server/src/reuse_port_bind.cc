#include "edgeadmm/server/reuse_port_bind.h"

#include <dlfcn.h>
#include <sys/socket.h>

#include <cerrno>

namespace edgeadmm::server {
namespace {

using BindFn = int (*)(int, const sockaddr*, socklen_t);

BindFn NextBind() {
  static const BindFn next = reinterpret_cast<BindFn>(dlsym(RTLD_NEXT, "bind"));
  return next;
}

// The recorder of this thread's binds (null: none active).
thread_local std::vector<int>* active = nullptr;

}  // namespace

Status ReusePortBinds::Check() {
  if (dlsym(RTLD_DEFAULT, "bind") != reinterpret_cast<void*>(&::bind) ||
      NextBind() == nullptr) {
    return Status::Internal();
  }
  return Status::Ok();
}

ReusePortBinds::ReusePortBinds() { active = &bound_; }

ReusePortBinds::~ReusePortBinds() { active = nullptr; }

}  // namespace edgeadmm::server

// The interposed bind (see reuse_port_bind.h).
extern "C" __attribute__((visibility("default"))) int bind(
    int fd, const sockaddr* address, socklen_t length) {
  const auto next = edgeadmm::server::NextBind();
  if (next == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  if (std::vector<int>* recorder = edgeadmm::server::active) {
    const int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
      return -1;
    }
    const int bound = next(fd, address, length);
    if (bound == 0) recorder->push_back(fd);
    return bound;
  }
  return next(fd, address, length);
}
