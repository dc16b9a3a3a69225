#include "frugal/base/file_io.h"

#include <sys/stat.h>
#include <unistd.h>

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

TEST(FileIo, CharacterDeviceIsRefusedBeforeReading) {
  // /dev/zero never ends: reading it would hang and grow without bound.
  auto r = ReadFileToString("/dev/zero");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "/dev/zero: is a character device, expected a regular file");
  EXPECT_FALSE(ReadJsonFile("/dev/null").ok());
}

TEST(FileIo, FifoIsRefusedWithoutBlocking) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("frugal_file_io_fifo_" + std::to_string(::getpid())))
                         .string();
  std::filesystem::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  // Opening a FIFO with no writer blocks forever; the check must come first.
  auto r = ReadFileToString(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is a FIFO"), std::string::npos);
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
}

TEST(FileIo, FileOverTheLimitIsRefused) {
  std::string path =
      (std::filesystem::temp_directory_path() / "frugal_file_io_limit.txt").string();
  ASSERT_TRUE(WriteStringToFile(path, std::string(2048, 'x')).ok());
  auto r = ReadFileToString(path, 1024);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(path + ": file is 2.00 KiB, over the 1.00 KiB limit"),
            std::string::npos)
      << r.status().message();
  EXPECT_TRUE(ReadFileToString(path, 2048).ok());
  EXPECT_TRUE(CheckInputFile(path, -1).ok());
  std::filesystem::remove(path);
}

TEST(FileIo, CheckInputFileNamesMissingFiles) {
  Status s = CheckInputFile("/nonexistent/trace.frt", -1);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "/nonexistent/trace.frt: no such file");
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

namespace frugal {
namespace {

TEST(ParseUbjson, ReadsWhatToUbjsonWrote) {
  nlohmann::json j = {{"a", {1, 2, 3}}, {"b", "x"}};
  std::vector<uint8_t> bytes = nlohmann::json::to_ubjson(j);
  auto r = ParseUbjson(std::string(bytes.begin(), bytes.end()), "m.ubj");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, j);
}

TEST(ParseUbjson, RefusesDeepNestingAndGarbage) {
  // 100,000 nested arrays would overflow the recursive UBJSON reader.
  auto deep = ParseUbjson(std::string(100000, '['), "deep.ubj");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("deep.ubj: UBJSON nested deeper than 64"),
            std::string::npos)
      << deep.status().message();
  auto bad = ParseUbjson("not ubjson at all", "bad.ubj");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.ubj"), std::string::npos);
}

}  // namespace
}  // namespace frugal
