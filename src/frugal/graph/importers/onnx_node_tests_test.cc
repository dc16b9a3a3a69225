// Imports every model of ONNX's own node tests (Debian's libonnx-testdata,
// /usr/share/libonnx-testdata/data/node/*/model.onnx): each import must come
// back, with a graph or an error Status, within a time bound; a crash fails
// the binary, a hang trips the watchdog. Labelled slow.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "frugal/graph/importer.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;

constexpr char kNodeTests[] = "/usr/share/libonnx-testdata/data/node";
constexpr auto kPerFileLimit = std::chrono::seconds(30);

std::vector<std::string> NodeTestModels() {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(kNodeTests, ec)) {
    fs::path model = dir.path() / "model.onnx";
    if (fs::is_regular_file(model)) paths.push_back(model.string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(OnnxNodeTests, EveryModelImportsOrFailsCleanlyInTime) {
  std::vector<std::string> models = NodeTestModels();
  if (models.empty()) {
    GTEST_SKIP() << kNodeTests << " is absent: install libonnx-testdata";
  }
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::string current;
  auto started = std::chrono::steady_clock::now();
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mu);
    while (!done) {
      cv.wait_for(lock, std::chrono::seconds(1));
      if (!done && std::chrono::steady_clock::now() - started > kPerFileLimit) {
        std::fprintf(stderr, "hang: %s took over %lld s\n", current.c_str(),
                     static_cast<long long>(kPerFileLimit.count()));
        std::abort();
      }
    }
  });
  int ok = 0, errors = 0;
  for (const std::string& path : models) {
    {
      std::lock_guard<std::mutex> lock(mu);
      current = path;
      started = std::chrono::steady_clock::now();
    }
    Result<OpGraph> g = ImportGraph(path);
    if (g.ok()) {
      ++ok;
    } else {
      ++errors;
      EXPECT_FALSE(g.status().message().empty()) << path;
      EXPECT_EQ(g.status().message().find('\n'), std::string::npos) << path;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  std::printf("%zu node-test models: %d imported, %d clean errors\n", models.size(), ok,
              errors);
  EXPECT_GT(ok, 0);
}

}  // namespace
}  // namespace frugal
