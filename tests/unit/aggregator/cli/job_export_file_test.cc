// `edgeadmm job export -o FILE` (issue 32 item 6): the file is created 0600
// whatever the umask, and a symlink planted at FILE is replaced, never
// followed (before, the export went through it into the link's target, and
// a new file was 0644).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "job_cli_fixture.h"

namespace edgeadmm {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(JobCliTest, ExportFileIsOwnerOnlyAndNeverFollowsASymlink) {
  CreateAndTrain(testing::DefaultPrivacyTable());
  const mode_t old_mask = umask(022);
  const std::string victim = WriteFile("victim", "precious\n");
  const std::string link = t_.dir() + "/model.json";
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  const testing::CommandResult planted =
      Cli("export cli --format json -o " + link);
  const std::string fresh = t_.dir() + "/fresh.json";
  const testing::CommandResult created =
      Cli("export cli --format json -o " + fresh);
  umask(old_mask);
  ASSERT_EQ(planted.exit_code, 0) << planted.output;
  ASSERT_EQ(created.exit_code, 0) << created.output;
  EXPECT_EQ(Read(victim), "precious\n");
  for (const std::string& path : {link, fresh}) {
    struct stat st {};
    ASSERT_EQ(lstat(path.c_str(), &st), 0) << path;
    EXPECT_TRUE(S_ISREG(st.st_mode)) << path;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << path;
    EXPECT_EQ(Read(path).rfind("{\"job\": \"cli\"", 0), 0u) << Read(path);
  }
  // A folder that does not exist: exit 1, nothing written.
  EXPECT_EQ(Cli("export cli -o " + t_.dir() + "/no/such.json").exit_code, 1);
}

}  // namespace
}  // namespace edgeadmm
