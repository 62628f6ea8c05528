#include "postgres_cluster.h"

#include <fcntl.h>
#include <glob.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

namespace edgeadmm::testing {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "postgres cluster: %s\n", what.c_str());
  std::abort();
}

// The bin folder of the newest installed server (Debian:
// /usr/lib/postgresql/<major>/bin), or "" if none is installed.
std::string ServerBin() {
  glob_t found{};
  std::string bin;
  if (glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &found) == 0 &&
      found.gl_pathc > 0) {
    bin = std::filesystem::path(found.gl_pathv[found.gl_pathc - 1])
              .parent_path()
              .string();
  }
  globfree(&found);
  return bin;
}

// Starts `argv` as user `pw` with the parent's death as its SIGQUIT (the
// postmaster's immediate shutdown), so that a test binary that aborts does
// not leave a server behind; its stderr goes to `stderr_fd` if >= 0.
pid_t SpawnAs(const struct passwd* pw, const std::vector<std::string>& argv,
              int stderr_fd = -1) {
  const pid_t pid = fork();
  if (pid < 0) Die("fork failed");
  if (pid > 0) return pid;
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0) _exit(126);
  prctl(PR_SET_PDEATHSIG, SIGQUIT);
  const int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) dup2(devnull, 1);  // initdb's progress
  if (stderr_fd >= 0) dup2(stderr_fd, 2);
  execv(args[0], args.data());
  _exit(127);
}

int Wait(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void Run(PGconn* conn, const std::string& sql) {
  PGresult* result = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  PQclear(result);
  if (!ok) Die(sql + ": " + PQerrorMessage(conn));
}

}  // namespace

PostgresCluster* PostgresCluster::Shared(std::string* why_not) {
  static std::unique_ptr<PostgresCluster> cluster;
  static std::string reason;
  if (cluster == nullptr && reason.empty()) {
    const std::string bin = ServerBin();
    if (bin.empty()) {
      reason =
          "PostgreSQL server binaries absent (/usr/lib/postgresql/*/bin; "
          "scripts/setup installs them)";
    } else if (getpwnam("postgres") == nullptr) {
      reason = "no `postgres` user to run the server as";
    } else {
      cluster.reset(new PostgresCluster());
      cluster->Start(bin);
    }
  }
  if (why_not != nullptr) *why_not = reason;
  return cluster.get();
}

void PostgresCluster::Start(const std::string& bin) {
  const struct passwd* pw = getpwnam("postgres");
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base ? base : "/tmp") + "/edgeadmm-pg-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) Die("mkdtemp failed");
  dir_ = templ;
  if (chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) Die("chown " + dir_);
  const std::string data = dir_ + "/data";
  // --no-sync and fsync=off: a throwaway cluster needs no crash safety;
  // the store's own sessions still commit synchronously.
  if (Wait(SpawnAs(
          pw, {bin + "/initdb", "-D", data, "-A", "trust", "-U", "postgres",
               "-E", "UTF8", "--locale=C", "--no-sync"})) != 0) {
    Die("initdb failed");
  }
  // The server's log (LOG and FATAL lines: log_min_messages = log ranks
  // above ERROR) comes through a pipe: its "ready to accept connections"
  // line is the start, as pg_ctl -w waits for; the rest is drained.
  int log[2];
  if (pipe2(log, O_CLOEXEC) != 0) Die("pipe failed");
  postmaster_ =
      SpawnAs(pw,
              {bin + "/postgres", "-D", data, "-k", dir_, "-p", "5432", "-c",
               "listen_addresses=", "-c", "fsync=off", "-c",
               "shared_buffers=16MB", "-c", "max_connections=40", "-c",
               "log_min_messages=log", "-c", "log_min_error_statement=panic"},
              log[1]);
  close(log[1]);
  std::FILE* lines = fdopen(log[0], "r");
  if (lines == nullptr) Die("fdopen failed");
  std::string seen;
  char line[1024];
  for (;;) {
    if (std::fgets(line, sizeof(line), lines) == nullptr) {
      Die("the server exited while starting:\n" + seen);
    }
    seen += line;
    if (std::strstr(line, "ready to accept connections") != nullptr) break;
  }
  drain_ = std::thread([lines] {
    char rest[1024];
    while (std::fgets(rest, sizeof(rest), lines) != nullptr) {
    }
    std::fclose(lines);
  });
  // The tests' databases belong to an ordinary role, as in production
  // (docs/aggregator.md, "PostgreSQL backend"), not to the superuser.
  PGconn* conn = PQconnectdb(Uri("postgres", "postgres").c_str());
  if (PQstatus(conn) != CONNECTION_OK) Die(PQerrorMessage(conn));
  Run(conn, "CREATE ROLE edgeadmm LOGIN");
  PQfinish(conn);
}

std::string PostgresCluster::Uri(const std::string& name,
                                 const std::string& role) const {
  std::string host;
  for (char c : dir_) host += c == '/' ? std::string("%2F") : std::string(1, c);
  return "postgresql://" + role + "@" + host + ":5432/" + name;
}

std::string PostgresCluster::CreateDatabase() {
  const std::string name =
      "t" + std::to_string(getpid()) + "_" + std::to_string(++databases_);
  PGconn* conn = PQconnectdb(Uri("postgres", "postgres").c_str());
  if (PQstatus(conn) != CONNECTION_OK) Die(PQerrorMessage(conn));
  Run(conn, "CREATE DATABASE " + name + " OWNER edgeadmm TEMPLATE template0");
  PQfinish(conn);
  return Uri(name);
}

PostgresCluster::~PostgresCluster() {
  if (postmaster_ > 0) {
    kill(postmaster_, SIGQUIT);  // immediate shutdown: nothing to keep
    Wait(postmaster_);
  }
  if (drain_.joinable()) drain_.join();  // the log's end: every process gone
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace edgeadmm::testing
