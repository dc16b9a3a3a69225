#include "frugal/cache/fuse/remote_link.h"

#include <chrono>

#include <gtest/gtest.h>

namespace frugal::cache::fuse {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Lower bounds only: a transfer never takes less than bytes / bandwidth.
TEST(RemoteLink, TransfersTakeAtLeastTheirShareOfThePipe) {
  RemoteLink link(10, 0);  // 10 MB/s
  const auto t0 = Clock::now();
  link.Download(500'000);
  link.Download(500'000);
  EXPECT_GE(Seconds(t0), 0.099);
  EXPECT_TRUE(link.throttled());
}

TEST(RemoteLink, LatencyIsPaidPerRequest) {
  RemoteLink link(0, 20);
  const auto t0 = Clock::now();
  link.Request();
  link.Request();
  EXPECT_GE(Seconds(t0), 0.039);
}

TEST(RemoteLink, UnsetFiguresCostNothing) {
  RemoteLink link(0, 0);
  EXPECT_FALSE(link.throttled());
  link.Download(int64_t{1} << 40);  // returns at once
}

}  // namespace
}  // namespace frugal::cache::fuse
