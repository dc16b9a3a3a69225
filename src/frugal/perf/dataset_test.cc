#include "frugal/perf/dataset.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace frugal {
namespace {

namespace fs = std::filesystem;

class TimingCsv : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("frugal_perf_dataset_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::string p = (dir_ / name).string();
    fs::create_directories(fs::path(p).parent_path());
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(TimingCsv, ReadsNeuSightRowsAndIgnoresProfilerColumns) {
  std::string p =
      Write("bmm.csv",
            "OPName,Latency,Device,Kernel Name,Grid x,B,M,N,K\n"
            "bmm,0.5,Tesla T4,\"void k<4, float>(int, float)\",3,12,128,64,32\n"
            "bmm,1.5,Tesla T4,sgemm,1,1,2,3,4\r\n");
  Result<Dataset> d = LoadTimingCsv(p);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->samples.size(), 2u);
  const OpSample& s = d->samples[0];
  EXPECT_EQ(s.shape.op, PerfOp::kBmm);
  EXPECT_EQ(s.shape.b, 12);
  EXPECT_EQ(s.shape.m, 128);
  EXPECT_EQ(s.shape.n, 64);
  EXPECT_EQ(s.shape.k, 32);
  EXPECT_DOUBLE_EQ(s.latency_ms, 0.5);
  EXPECT_EQ(s.device, "Tesla T4");
  EXPECT_EQ(d->Devices(), std::vector<std::string>{"Tesla T4"});
}

TEST_F(TimingCsv, ReadsProfileSchemaWithLatencyInMs) {
  std::string p =
      Write("conv.csv",
            "OPName,Latency (ms),Device,B,Input_Channel,Output_Channel,"
            "Kernel_Size,Input_Size,Stride,Padding\n"
            "conv,2.0,NVIDIA H100 80GB HBM3,8,64,128,3,56,1,1\n");
  Result<Dataset> d = LoadTimingCsv(p);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const OpShape& s = d->samples[0].shape;
  EXPECT_EQ(s.op, PerfOp::kConv);
  EXPECT_EQ(s.in_channels, 64);
  EXPECT_EQ(s.out_channels, 128);
  EXPECT_EQ(s.kernel, 3);
  EXPECT_EQ(s.ConvOutSize(), 56);
}

struct BadCase {
  const char* text;
  const char* needle;
};

TEST_F(TimingCsv, MalformedFilesNameFileAndLine) {
  const BadCase cases[] = {
      {"", "bad.csv:1: empty file"},
      {"OPName,Latency,Device,B,H\n", "bad.csv:2: no data rows"},
      {"OPName,Latency,Device,B,H\nadd,0.1,T4,1,2\nadd,0.1,T4,1\n",
       "bad.csv:3: 4 fields"},
      {"OPName,Latency,Device,B,H\nadd,-1,T4,1,2\n", "bad.csv:2: latency '-1'"},
      {"OPName,Latency,Device,B,H\nadd,1e-320,T4,1,2\n", "bad.csv:2: latency '1e-320' ms is outside [1e-6, 1e9]"},
      {"OPName,Latency,Device,B,H\nadd,1e300,T4,1,2\n", "bad.csv:2: latency '1e300' ms is outside"},
      {"OPName,Latency,Device,B,H,B\nadd,0.1,T4,1,2,3\n", "bad.csv:1: column 'B' appears twice in the header"},
      {"OPName,Latency,Device,B,H\nadd,abc,T4,1,2\n",
       "bad.csv:2: latency 'abc'"},
      {"OPName,Latency,Device,B,H\nadd,0.1,T4,1,2.5\n", "bad.csv:2: H '2.5'"},
      {"OPName,Latency,Device,B,H\nfoo,0.1,T4,1,2\n",
       "bad.csv:2: unknown OPName 'foo'"},
      {"OPName,Device,B,H\nadd,T4,1,2\n",
       "bad.csv:1: header lacks the 'Latency (ms)'"},
      {"OPName,Latency,Device,B\nadd,0.1,T4,1\n",
       "bad.csv:2: header lacks the 'H' column"},
      {"OPName,Latency,Device,B,H\nadd,0.1,\"T4,1,2\n",
       "bad.csv:2: unterminated"},
      {"OPName,Latency,Device,B,Input_Channel,Output_Channel,Kernel_Szie,Input_"
       "Size,"
       "Stride,Padding\nconv,1,T4,1,3,3,7,5,1,0\n",
       "bad.csv:2: conv: kernel 7 does not fit"},
  };
  for (const auto& c : cases) {
    std::string p = Write("bad.csv", c.text);
    Result<Dataset> d = LoadTimingCsv(p);
    ASSERT_FALSE(d.ok()) << c.needle;
    EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(d.status().message().find(c.needle), std::string::npos)
        << d.status().message() << " lacks " << c.needle;
    EXPECT_EQ(d.status().message().find('\n'), std::string::npos);
  }
}

TEST_F(TimingCsv, MissingFileIsNotFound) {
  EXPECT_EQ(LoadTimingData((dir_ / "nope").string()).status().code(),
            StatusCode::kNotFound);
}

TEST_F(TimingCsv, FolderLoadsEveryCsvInSortedOrder) {
  Write("relu/b.csv", "OPName,Latency,Device,B,H\nrelu,0.2,T4,1,2\n");
  Write("add/a.csv", "OPName,Latency,Device,B,H\nadd,0.1,T4,1,2\n");
  Write("notes.txt", "ignored");
  Result<Dataset> d = LoadTimingData(dir_.string());
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->samples.size(), 2u);
  EXPECT_EQ(d->samples[0].shape.op, PerfOp::kAdd);
  EXPECT_EQ(d->samples[1].shape.op, PerfOp::kRelu);
}

TEST(PerfOpNames, RoundTrip) {
  ASSERT_EQ(AllPerfOps().size(), static_cast<size_t>(kNumPerfOps));
  for (PerfOp op : AllPerfOps()) {
    PerfOp back;
    ASSERT_TRUE(ParsePerfOp(PerfOpName(op), &back));
    EXPECT_EQ(back, op);
  }
  PerfOp op;
  EXPECT_TRUE(ParsePerfOp("LayerNorm", &op));
  EXPECT_EQ(op, PerfOp::kLayerNorm);
  EXPECT_FALSE(ParsePerfOp("exp", &op));
}

TEST(ShuffledIndices, IsASeededPermutation) {
  std::vector<size_t> a = ShuffledIndices(100, 7), b = ShuffledIndices(100, 7),
                      c = ShuffledIndices(100, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(std::set<size_t>(a.begin(), a.end()).size(), 100u);
  EXPECT_EQ(SplitMix64(1).Next(), 0x910a2dec89025cc1ULL);  // reference value
}

TEST(SharedTimings, LoadsTwelveOpsOnSixDevices) {
  std::string path = DefaultTimingDataPath();
  if (!fs::exists(path)) GTEST_SKIP() << path << " not present";
  Result<Dataset> d = LoadTimingData(path);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_GT(d->samples.size(), 200000u);
  std::set<PerfOp> ops;
  for (const auto& s : d->samples) ops.insert(s.shape.op);
  EXPECT_EQ(ops.size(), static_cast<size_t>(kNumPerfOps));
  EXPECT_EQ(d->Devices().size(), 6u);  // conv was measured on an A100 80GB
}

}  // namespace
}  // namespace frugal
