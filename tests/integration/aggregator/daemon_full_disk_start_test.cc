// A daemon that cannot write its database at start says why on stderr and
// exits 1 (issue 32 item 4: under systemd's Restart=on-failure it was a
// silent crash loop). The write limit is RLIMIT_FSIZE at the size of the
// database's WAL (SIGXFSZ ignored, so a write past it fails with EFBIG, as
// on a full disk): the daemon opens the database, then marking the round a
// crash left open as `lost` fails.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "daemon_process.h"
#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_engine.h"
#include "test_database.h"

namespace edgeadmm {
namespace {

// Runs `binary` `args` with file writes limited to `limit` bytes; returns
// its exit code and what it wrote to stderr.
int RunLimited(const std::vector<std::string>& args, rlim_t limit,
               std::string* err) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    signal(SIGXFSZ, SIG_IGN);  // kept across exec: writes fail with EFBIG
    const rlimit fsize{limit, limit};
    setrlimit(RLIMIT_FSIZE, &fsize);
    std::vector<char*> argv{const_cast<char*>(EDGEADMM_DAEMON_PATH)};
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(EDGEADMM_DAEMON_PATH, argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  char buffer[512];
  ssize_t got = 0;
  while ((got = read(pipe_fds[0], buffer, sizeof(buffer))) > 0) {
    err->append(buffer, static_cast<size_t>(got));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(DaemonFullDiskStartTest, SaysWhyAndExits1) {
  testing::TempDatabase t;
  testing::EnrollDevices(t.db(), 6);
  const int64_t job = testing::CreateJobOrDie(
      t.db(),
      testing::JobToml("full", "prox-admm", testing::DefaultPrivacyTable(),
                       testing::DefaultSamplingTable()));
  ASSERT_TRUE(jobs::SetJobState(t.db(), job, jobs::JobState::kRunning).ok());
  {
    // A round left open, as by a crash: the daemon must mark it lost.
    rounds::PrivacyRoundAccountant accountant;
    auto engine = rounds::RoundEngine::Open(t.db(), job, accountant);
    ASSERT_TRUE(engine.ok());
    ASSERT_TRUE((*engine)->Advance(1000).ok());
    ASSERT_TRUE((*engine)->round_open());
  }
  // The WAL stays as a crash leaves it (no checkpoint at close), larger
  // than the shared-memory file the daemon maps (32 KiB).
  ASSERT_TRUE(t.db()
                  .Exec("CREATE TABLE pad(x BLOB); INSERT INTO pad "
                        "VALUES (zeroblob(65536))")
                  .ok());
  ASSERT_EQ(sqlite3_db_config(t.db().handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                              1, nullptr),
            SQLITE_OK);
  struct stat wal {};
  ASSERT_EQ(stat((t.path() + "-wal").c_str(), &wal), 0);
  const std::vector<std::string> args = testing::DaemonArgs(t.dir(), t.path());
  t.Reopen();  // closes our connection (the WAL stays); not used below

  std::string err;
  EXPECT_EQ(RunLimited(args, static_cast<rlim_t>(wal.st_size), &err), 1);
  EXPECT_NE(err.find("edgeadmm-aggregatord: cannot start"), std::string::npos)
      << err;
  EXPECT_NE(err.find(t.path()), std::string::npos) << err;
  std::printf("%s", err.c_str());  // what the operator sees
}

}  // namespace
}  // namespace edgeadmm
