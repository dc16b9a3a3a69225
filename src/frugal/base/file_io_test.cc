#include "frugal/base/file_io.h"

#include <filesystem>

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(FileIo, MissingFileIsNotFoundAndNamesThePath) {
  auto r = ReadFileToString("/nonexistent/dir/x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("/nonexistent/dir/x.json"),
            std::string::npos);
}

TEST(FileIo, DirectoryIsRejected) {
  auto r = ReadFileToString(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST(FileIo, RoundTripsAFile) {
  std::string path =
      (std::filesystem::temp_directory_path() / "frugal_file_io_test.txt").string();
  ASSERT_TRUE(WriteStringToFile(path, std::string("a\0b", 3)).ok());
  auto r = ReadFileToString(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, std::string("a\0b", 3));
  std::filesystem::remove(path);
}

TEST(FileIo, MalformedJsonNamesFileAndByte) {
  auto r = ParseJson("{\"a\": [1, 2", "g.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("g.json: malformed JSON at byte"),
            std::string::npos);
}

TEST(FileIo, ExtensionIsLowerCase) {
  EXPECT_EQ(FileExtension("a/b/Model.ONNX"), "onnx");
  EXPECT_EQ(FileExtension("noext"), "");
}

}  // namespace
}  // namespace frugal
