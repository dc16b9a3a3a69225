#include "frugal/share/cluster.h"

#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "frugal/base/file_io.h"
#include "frugal/share/node_trace.h"
#include "frugal/share/pod_trace.h"

namespace frugal::share {
namespace {

std::string Temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + std::to_string(::getpid()) + "_" + name;
  EXPECT_TRUE(WriteStringToFile(path, text).ok());
  return path;
}

const char kPodHeader[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                          "creation_time,deletion_time,scheduled_time\n";

std::string PodError(const std::string& row) {
  GpuModelTable models;
  auto pods = ReadPodTrace(Temp("pods.csv", std::string(kPodHeader) + row + "\n"), &models);
  EXPECT_FALSE(pods.ok()) << row;
  return pods.ok() ? "" : pods.status().message();
}

std::string NodeError(const std::string& text) {
  GpuModelTable models;
  auto nodes = ReadNodeList(Temp("nodes.csv", text), &models);
  EXPECT_FALSE(nodes.ok()) << text;
  return nodes.ok() ? "" : nodes.status().message();
}

TEST(NodeList, ReadsTheTinyCluster) {
  GpuModelTable models;
  auto nodes = ReadNodeList("testdata/share/tiny_nodes.csv", &models);
  ASSERT_TRUE(nodes.ok()) << nodes.status().message();
  ASSERT_EQ(nodes->size(), 4u);
  EXPECT_EQ((*nodes)[1].name, "n1");
  EXPECT_EQ((*nodes)[1].num_gpus, 4);
  EXPECT_EQ(models.Name((*nodes)[1].model), "V100M16");
  EXPECT_EQ((*nodes)[3].num_gpus, 0);
  EXPECT_EQ((*nodes)[3].model, 0);
}

TEST(PodTrace, ReadsFieldsTimesAndGpuSpec) {
  GpuModelTable models;
  auto pods = ReadPodTrace("testdata/share/tiny_pods.csv", &models);
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  ASSERT_EQ(pods->size(), 10u);
  const PodSpec& p5 = (*pods)[5];
  EXPECT_EQ(p5.gpu_milli, 250);
  EXPECT_TRUE(p5.IsGpuShare());
  EXPECT_EQ(p5.gpu_spec, "V100M16|V100M32");
  EXPECT_TRUE((p5.models >> models.Find("V100M16")) & 1u);
  EXPECT_TRUE((p5.models >> models.Find("V100M32")) & 1u);
  EXPECT_EQ((*pods)[4].qos, Qos::kBurstable);
  EXPECT_EQ((*pods)[4].scheduled_time_s, -1);
  EXPECT_EQ((*pods)[6].deletion_time_s, -1);
  EXPECT_EQ((*pods)[8].TotalGpuMilli(), 8000);
}

TEST(PodTrace, ColumnsBeyondTheRequiredOnesAreOptional) {
  GpuModelTable models;
  auto pods = ReadPodTrace(Temp("short.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                                             "a,1000,1024,2,1000\n"),
                           &models);
  ASSERT_TRUE(pods.ok()) << pods.status().message();
  EXPECT_EQ((*pods)[0].creation_time_s, -1);
  EXPECT_EQ((*pods)[0].models, 0u);
}

TEST(PodTrace, BadRowsNameFileLineAndProblem) {
  EXPECT_NE(PodError("p,4000,8192,1,1200,,LS,Running,0,1,0").find("pods.csv:2: gpu_milli 1200 is out of range"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,-5,,LS,Running,0,1,0").find(":2: gpu_milli -5 is negative"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,500,V100M16||T4,LS,Running,0,1,0").find(":2: empty GPU model in gpu_spec"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,500,,LS,Running,0,1,0\np,1000,8192,1,500,,LS,Running,0,1,0")
                .find("pods.csv:3: pod 'p' is listed again (first on line 2)"),
            std::string::npos);
  EXPECT_NE(PodError("p,40000000000000000000000,8192,1,500,,LS,Running,0,1,0").find(":2: cpu_milli '4000000000000000000000"),
            std::string::npos);
  EXPECT_NE(PodError("p,40000000000000000000000,8192,1,500,,LS,Running,0,1,0").find("is out of range"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,500,,LS,Running,-3,1,0").find(":2: creation_time -3 is negative"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,99999,1000,,LS,Running,0,1,0").find("num_gpu 99999 is absurd"),
            std::string::npos);
  EXPECT_NE(PodError("p,,8192,1,500,,LS,Running,0,1,0").find(":2: missing cpu_milli"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,500").find(":2: expected 11 fields, got 5"), std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,500,K9000,LS,Running,0,1,0").find("unknown GPU model 'K9000' in gpu_spec"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,500,,VIP,Running,0,1,0").find("unknown qos 'VIP'"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,2,500,,LS,Running,0,1,0").find("only a one-GPU pod may share"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,0,,LS,Running,0,1,0").find("gpu_milli 0 with num_gpu 1"),
            std::string::npos);
  EXPECT_NE(PodError("p,4000,8192,1,500,,LS,Running,10,5,0").find("deletion_time 5 is before"),
            std::string::npos);
  EXPECT_NE(PodError("p,4x00,8192,1,500,,LS,Running,0,1,0").find("cpu_milli '4x00' is not an integer"),
            std::string::npos);
}

TEST(PodTrace, RefusesHeaderlessEmptyBinaryAndDirectories) {
  GpuModelTable models;
  auto missing = ReadPodTrace(Temp("nocol.csv", "name,cpu_milli,memory_mib,num_gpu\na,1,1,0\n"), &models);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(":1: missing column 'gpu_milli'"), std::string::npos);
  auto empty = ReadPodTrace(Temp("empty.csv", ""), &models);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("empty file"), std::string::npos);
  auto none = ReadPodTrace("testdata/share/empty_pods.csv", &models);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("empty_pods.csv: no pods"), std::string::npos);
  auto binary = ReadPodTrace(Temp("bin.csv", std::string("name,a\n\x01\0\x02", 10)), &models);
  ASSERT_FALSE(binary.ok());
  EXPECT_NE(binary.status().message().find(":2: binary data"), std::string::npos);
  auto dir = ReadPodTrace(::testing::TempDir(), &models);
  EXPECT_FALSE(dir.ok());
}

TEST(NodeList, BadRowsNameFileLineAndProblem) {
  const std::string h = "sn,cpu_milli,memory_mib,gpu,model\n";
  EXPECT_NE(NodeError(h + "n,1000,1000,2,K9000\n").find("nodes.csv:2: unknown GPU model 'K9000'"),
            std::string::npos);
  EXPECT_NE(NodeError(h + "n,1000,1000,2,\n").find(":2: missing model"), std::string::npos);
  EXPECT_NE(NodeError(h + "n,1000,1000,64,T4\n").find("at most 16 GPUs per node"), std::string::npos);
  EXPECT_NE(NodeError(h + "n,-1,1000,2,T4\n").find("cpu_milli -1 is negative"), std::string::npos);
  EXPECT_NE(NodeError(h).find("nodes.csv: no nodes"), std::string::npos);
  EXPECT_NE(NodeError(h + "n,1000,1000,2,T4\nn,1000,1000,2,T4\n").find("nodes.csv:3: node 'n' is listed again (first on line 2)"),
            std::string::npos);
  // A spreadsheet's byte-order mark is not part of the first column's name.
  GpuModelTable models;
  auto bom = ReadNodeList(Temp("bom.csv", "\xEF\xBB\xBF" + h + "n,1000,1000,2,T4\n"), &models);
  ASSERT_TRUE(bom.ok()) << bom.status().ToString();
  EXPECT_EQ((*bom)[0].name, "n");
}

TEST(NodeState, PlacesSharedAndWholeGpusAndTracksAffinity) {
  NodeSpec spec{"n", 32000, 65536, 4, 1};
  NodeState s = NodeState::FromSpec(spec);
  const PodShape share{4000, 600, 1, 0};
  ASSERT_TRUE(s.Fits(share, 1024));
  s.Place(share, 1024, BestFitGpus(s, share));
  EXPECT_EQ(s.gpu_left[0], 400);
  EXPECT_EQ(s.FullyFreeGpus(), 3);
  // Best fit: the next 300-milli pod goes to the partly used GPU.
  const PodShape small{1000, 300, 1, 0};
  EXPECT_EQ(BestFitGpus(s, small), GpuSet{1});
  const PodShape three{1000, 1000, 3, 0};
  EXPECT_EQ(ExclusiveGpus(s, three), GpuSet{0b1110});
  s.Place(three, 0, ExclusiveGpus(s, three));
  EXPECT_FALSE(s.Fits(PodShape{1000, 1000, 1, 0}, 0));
  EXPECT_TRUE(s.Fits(small, 0));
  EXPECT_EQ(s.NumAffinities(), 2);
  EXPECT_EQ(s.cpu_left, 32000 - 5000);
  EXPECT_FALSE(s.Fits(PodShape{1000, 100, 1, ModelMask{1} << 2}, 0)) << "wrong GPU model";
  EXPECT_FALSE(s.Fits(PodShape{40000, 0, 0, 0}, 0)) << "too little CPU";
  EXPECT_FALSE(s.Fits(PodShape{1000, 0, 0, 0}, 70000)) << "too little memory";
}

TEST(GpuModels, AlibabaNamesMapToCatalogPartsWhereTheyExist) {
  EXPECT_EQ(CatalogGpuForModel("V100M32"), "V100-SXM2-32GB");
  EXPECT_EQ(CatalogGpuForModel("P100"), "P100-PCIE-16GB");
  EXPECT_EQ(CatalogGpuForModel("G2"), "");
  EXPECT_EQ(CatalogGpuForModel("A10"), "");
}

}  // namespace
}  // namespace frugal::share
