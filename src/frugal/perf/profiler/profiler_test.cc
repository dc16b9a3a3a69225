#include "frugal/perf/profiler/profiler.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace frugal {
namespace {

std::unique_ptr<ProfileBackend> Cpu() {
  const auto* row = FindRow(ProfileBackends(), "cpu");
  EXPECT_NE(row, nullptr);
  auto b = row->factory();
  EXPECT_TRUE(b.ok());
  return std::move(b).value();
}

TEST(Profiler, CpuBackendMeasuresEveryOpType) {
  auto cpu = Cpu();
  ProfileOptions opts;
  opts.warmup = 1;
  opts.repetitions = 3;
  std::vector<OpShape> shapes;
  for (PerfOp op : AllPerfOps()) {
    OpShape s = DefaultSweep(op).front();
    shapes.push_back(s);
  }
  size_t calls = 0;
  opts.progress = [&](size_t done, size_t total) {
    ++calls;
    EXPECT_LE(done, total);
  };
  auto r = ProfileShapes(*cpu, shapes, opts);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->samples.size(), shapes.size());
  EXPECT_EQ(calls, shapes.size());
  for (const OpSample& s : r->samples) {
    EXPECT_GT(s.latency_ms, 0) << s.shape.ToString();
    EXPECT_EQ(s.device.rfind("cpu:", 0), 0u);
  }
}

TEST(Profiler, BiggerGemmTakesLonger) {
  auto cpu = Cpu();
  OpShape small, big;
  small.op = big.op = PerfOp::kLinear;
  small.m = small.n = small.k = 32;
  big.m = big.n = big.k = 256;  // 512x the FLOPs
  ProfileOptions opts;
  double t_small = *cpu->MeasureMs(small, opts), t_big = *cpu->MeasureMs(big, opts);
  EXPECT_GT(t_big, 10 * t_small);
}

TEST(Profiler, WrittenCsvsLoadBackAsTimingData) {
  std::vector<OpSample> samples;
  OpShape conv;
  conv.op = PerfOp::kConv;
  conv.b = 2;
  conv.in_channels = 3;
  conv.out_channels = 8;
  conv.kernel = 3;
  conv.image = 9;
  conv.stride = 2;
  conv.padding = 1;
  OpShape ln;
  ln.op = PerfOp::kLayerNorm;
  ln.b = 4;
  ln.h = 768;
  samples.push_back({conv, "cpu:Test CPU, 2 cores", 1.25});
  samples.push_back({ln, "cpu:Test CPU, 2 cores", 0.5});
  const std::string dir =
      (std::filesystem::temp_directory_path() / "frugal_profile_test").string();
  std::filesystem::remove_all(dir);
  auto paths = WriteTimingCsvs(samples, dir);
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  EXPECT_EQ(paths->size(), 2u);
  auto data = LoadTimingData(dir);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  ASSERT_EQ(data->samples.size(), 2u);
  EXPECT_EQ(data->samples[0].shape, conv);
  EXPECT_EQ(data->samples[0].device, "cpu:Test CPU, 2 cores");
  EXPECT_DOUBLE_EQ(data->samples[0].latency_ms, 1.25);
  EXPECT_EQ(data->samples[1].shape, ln);
  std::filesystem::remove_all(dir);
}

TEST(Profiler, RejectsBadShapesAndOptions) {
  auto cpu = Cpu();
  OpShape bad;
  bad.op = PerfOp::kBmm;
  bad.m = 0;
  EXPECT_FALSE(ProfileShapes(*cpu, {bad}, {}).ok());
  ProfileOptions opts;
  opts.repetitions = 0;
  EXPECT_FALSE(ProfileShapes(*cpu, DefaultSweep(PerfOp::kAdd), opts).ok());
}

TEST(Profiler, SkipsShapesOverTheMemoryCap) {
  auto cpu = Cpu();
  OpShape big;
  big.op = PerfOp::kAdd;
  big.b = 1 << 20;
  big.h = 1 << 10;  // 4 GiB per tensor
  auto r = ProfileShapes(*cpu, {big}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->samples.empty());
  ASSERT_EQ(r->skipped.size(), 1u);
  EXPECT_NE(r->skipped[0].find("too large"), std::string::npos);
}

TEST(Profiler, CudaBackendFailsCleanlyWithoutAGpu) {
  const auto* row = FindRow(ProfileBackends(), "cuda");
  ASSERT_NE(row, nullptr);
  auto b = row->factory();
  if (b.ok()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_TRUE(b.status().code() == StatusCode::kUnimplemented ||
              b.status().code() == StatusCode::kFailedPrecondition)
      << b.status().ToString();
}

// The CUDA libraries live in a module loaded on demand; a bad module path
// is one error naming the file, never a crash.
TEST(Profiler, CudaBackendNamesAModuleItCannotLoad) {
  const auto* row = FindRow(ProfileBackends(), "cuda");
  ASSERT_NE(row, nullptr);
  const std::string garbage = ::testing::TempDir() + "/not_a_module.so";
  { std::ofstream(garbage) << "not an ELF file"; }
  for (const std::string& path : {garbage, garbage + ".missing"}) {
    ASSERT_EQ(setenv("FRUGAL_CUDA_MODULE", path.c_str(), 1), 0);
    auto b = row->factory();
    unsetenv("FRUGAL_CUDA_MODULE");
    ASSERT_FALSE(b.ok());
    if (b.status().code() == StatusCode::kUnimplemented) GTEST_SKIP() << "built without CUDA";
    EXPECT_EQ(b.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(b.status().message().find(path), std::string::npos) << b.status().ToString();
  }
}

}  // namespace
}  // namespace frugal
