// A throwaway PostgreSQL cluster for the tests of the store's PostgreSQL
// backend: Debian's server binaries, initdb'ed in a temporary folder as the
// unprivileged `postgres` user (initdb refuses root), listening only on a
// Unix socket in that folder, one per test binary, stopped and removed when
// the binary exits.
#pragma once

#include <sys/types.h>

#include <string>
#include <thread>

namespace edgeadmm::testing {

class PostgresCluster {
 public:
  // The binary's cluster, started on first use; null if PostgreSQL's server
  // binaries or the `postgres` user are absent (*why_not says which). Aborts
  // if they are present and the cluster does not start.
  static PostgresCluster* Shared(std::string* why_not);

  // Creates a fresh database owned by the ordinary role `edgeadmm` and
  // returns its connection URI (as that role).
  std::string CreateDatabase();

  // A URI for database `name` of the cluster as `role`.
  std::string Uri(const std::string& name,
                  const std::string& role = "edgeadmm") const;

  ~PostgresCluster();

 private:
  PostgresCluster() = default;
  void Start(const std::string& bin);
  std::string dir_;
  pid_t postmaster_ = -1;
  std::thread drain_;  // reads the server log after the start
  int databases_ = 0;
};

}  // namespace edgeadmm::testing
