// The POSIX log hook writes one line per call: control characters in a
// logged value (a job name stored with a newline, issue 32 item 6) become
// '?' and cannot start a forged line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "edgeadmm/log.h"

namespace {

// What edgeadmm_log(INFO, "job %s: started", value) writes to stderr.
std::string Logged(const char* value) {
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  std::FILE* capture = std::tmpfile();
  dup2(fileno(capture), STDERR_FILENO);
  edgeadmm_log(EDGEADMM_LOG_LEVEL_INFO, "job %s: started", value);
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::rewind(capture);
  std::string text;
  for (int c; (c = std::fgetc(capture)) != EOF;) text += static_cast<char>(c);
  std::fclose(capture);
  return text;
}

TEST(LogHookTest, ControlCharactersCannotStartALine) {
  EXPECT_EQ(Logged("a9a-lasso"), "[info] job a9a-lasso: started\n");
  EXPECT_EQ(Logged("cli\n[error] forged\r\t\x1b[2J\x7f"),
            "[info] job cli?[error] forged???[2J?: started\n");
}

}  // namespace
