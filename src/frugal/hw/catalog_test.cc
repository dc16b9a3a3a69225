// Checks on the real catalog in data/catalog/: it loads, holds what the
// models need, and every figure in it names a document it came from.
#include "frugal/hw/catalog.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "frugal/hw/catalog_json.h"

namespace frugal {
namespace {

const Catalog& RealCatalog() {
  static const Catalog* catalog = [] {
    auto r = LoadCatalog(std::string(FRUGAL_SOURCE_ROOT) + "/data/catalog");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return new Catalog(r.ok() ? *r : Catalog());
  }();
  return *catalog;
}

TEST(RealCatalog, HoldsEveryRequiredGpu) {
  const char* const kRequired[] = {"K80",
                                   "M60",
                                   "P4",
                                   "P100-PCIE-16GB",
                                   "V100-PCIE-16GB",
                                   "V100-PCIE-32GB",
                                   "V100-SXM2-16GB",
                                   "V100-SXM2-32GB",
                                   "T4",
                                   "A10G",
                                   "L4",
                                   "A100-PCIE-40GB",
                                   "A100-PCIE-80GB",
                                   "A100-SXM4-40GB",
                                   "A100-SXM4-80GB",
                                   "H100-PCIE-80GB",
                                   "H100-SXM5-80GB",
                                   "H200-SXM5-141GB"};
  for (const char* name : kRequired) {
    const GpuSpec* g = RealCatalog().FindGpu(name);
    ASSERT_NE(g, nullptr) << name;
    EXPECT_EQ(g->name, name);
  }
}

TEST(RealCatalog, ResolvesNamesUsedInSharedData) {
  const std::pair<const char*, const char*> kAliases[] = {
      {"Tesla V100-PCIE-32GB", "V100-PCIE-32GB"},
      {"NVIDIA A100-PCIE-40GB", "A100-PCIE-40GB"},
      {"NVIDIA A100-SXM4-40GB", "A100-SXM4-40GB"},
      {"NVIDIA A100 80GB PCIe", "A100-PCIE-80GB"},
      {"Tesla P4", "P4"},
      {"Tesla P100-PCIE-16GB", "P100-PCIE-16GB"},
      {"Tesla T4", "T4"},
      {"NVIDIA L4", "L4"},
      {"NVIDIA_H100_80GB_HBM3", "H100-SXM5-80GB"},
      {"NVIDIA H100 80GB HBM3", "H100-SXM5-80GB"},
      {"k80", "K80"},
      {"p100", "P100-PCIE-16GB"},
      {"v100", "V100-SXM2-16GB"},  // Gavel's name, now a family name
  };
  for (const auto& [alias, name] : kAliases) {
    auto g = RealCatalog().LookupGpu(alias);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ((*g)->name, name) << alias;
  }
}

TEST(RealCatalog, FindsA100Sxm4By80GbAlias) {
  auto g = RealCatalog().LookupGpu("NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ((*g)->name, "A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ((*g)->mem_gib, 80);
  EXPECT_EQ((*g)->architecture, "ampere");
  ASSERT_TRUE((*g)->nvlink_gbps.has_value());
  EXPECT_DOUBLE_EQ(*(*g)->nvlink_gbps, 600);
}

TEST(RealCatalog, UnknownGpuListsTheClosestNames) {
  auto g = RealCatalog().LookupGpu("GeForce 256");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kNotFound);
  EXPECT_NE(g.status().message().find("closest: "), std::string::npos);
  // A near miss names its neighbours first, not the first GPUs in the file.
  std::string m = RealCatalog().LookupGpu("A100-40G").status().message();
  EXPECT_NE(m.find("closest: A100-PCIE-40GB, A100-SXM4-40GB"), std::string::npos) << m;
  EXPECT_EQ(m.find("K80"), std::string::npos) << m;
  m = RealCatalog().LookupGpu("H100 NVL").status().message();
  EXPECT_EQ(m.find("closest: H100-"), m.find("closest: ")) << m;
  m = RealCatalog().LookupInstance("g5.96xlarge").status().message();
  EXPECT_NE(m.find("closest: g5."), std::string::npos) << m;
}

TEST(RealCatalog, FamilyNamesResolveToTheCommonVariantWithANote) {
  const std::pair<const char*, const char*> kFamilies[] = {
      {"A100", "A100-SXM4-40GB"}, {"A10", "A10G"},
      {"H100", "H100-SXM5-80GB"}, {"V100", "V100-SXM2-16GB"}};
  for (const auto& [family, name] : kFamilies) {
    auto m = RealCatalog().ResolveGpu(family);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(m->gpu->name, name) << family;
    EXPECT_NE(m->note.find(std::string("taken as ") + name), std::string::npos)
        << m->note;
  }
  // The note names the other variants, and nothing of another family.
  std::string note = RealCatalog().ResolveGpu("A100")->note;
  for (const char* other : {"A100-PCIE-40GB", "A100-PCIE-80GB", "A100-SXM4-80GB"}) {
    EXPECT_NE(note.find(other), std::string::npos) << note;
  }
  EXPECT_EQ(RealCatalog().ResolveGpu("A10")->note.find("A100"), std::string::npos);
  // L4 is one part: its name resolves with no note.
  auto l4 = RealCatalog().ResolveGpu("L4");
  ASSERT_TRUE(l4.ok());
  EXPECT_EQ(l4->gpu->name, "L4");
  EXPECT_TRUE(l4->note.empty());
}

TEST(RealCatalog, L4CarriesSmCountAndSustainedThroughputIsBelowPeak) {
  const GpuSpec* l4 = RealCatalog().FindGpu("L4");
  ASSERT_NE(l4, nullptr);
  ASSERT_TRUE(l4->sm_count.has_value());
  EXPECT_EQ(*l4->sm_count, 58);
  // Measured FP32 GEMM rates, on real layers and in a public benchmark,
  // are under the nameplate peak: counts the GPUs that state `field`.
  auto below_peak = [](std::optional<double> GpuSpec::*field) {
    int n = 0;
    for (const GpuSpec& g : RealCatalog().gpus()) {
      if (!(g.*field)) continue;
      ++n;
      if (!g.fp32_tflops) {
        ADD_FAILURE() << g.name << " has no fp32_tflops";
        continue;
      }
      EXPECT_LT(*(g.*field), *g.fp32_tflops) << g.name;
    }
    return n;
  };
  EXPECT_GE(below_peak(&GpuSpec::sustained_fp32_gemm_tflops), 5);
  EXPECT_GE(below_peak(&GpuSpec::benchmarked_fp32_gemm_tflops), 5);
  // The power-limited T4 sustains well under half its FP32 peak.
  const GpuSpec* t4 = RealCatalog().FindGpu("T4");
  EXPECT_LT(*t4->sustained_fp32_gemm_tflops, 0.5 * *t4->fp32_tflops);
}

// A board without a benchmark figure takes the fraction of peak its chip's
// benchmarked boards reached (same architecture and SM count), never a
// figure of another chip, and a board with its own figure keeps it alone.
TEST(Catalog, DerivesTheSameChipBenchmarkFraction) {
  auto gpu = [](const char* name, const char* arch, int sms, double peak,
                std::optional<double> bench) {
    GpuSpec g;
    g.name = name;
    g.architecture = arch;
    g.sm_count = sms;
    g.fp32_tflops = peak;
    g.mem_gib = 16;
    g.mem_bw_gbps = 900;
    g.benchmarked_fp32_gemm_tflops = bench;
    return g;
  };
  CatalogData data;
  data.gpus = {gpu("SXM", "volta", 80, 15.7, 14.5), gpu("PCIE", "volta", 80, 14, std::nullopt),
               gpu("SXM-B", "volta", 80, 16, 12.0), gpu("SMALL", "volta", 40, 7, std::nullopt),
               gpu("OTHER", "turing", 80, 14, std::nullopt)};
  auto c = Catalog::Build(data);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const GpuSpec* pcie = c->FindGpu("PCIE");
  ASSERT_TRUE(pcie->same_chip_benchmarked_fraction.has_value());
  EXPECT_DOUBLE_EQ(*pcie->same_chip_benchmarked_fraction, (14.5 / 15.7 + 12.0 / 16) / 2);
  EXPECT_FALSE(c->FindGpu("SXM")->same_chip_benchmarked_fraction.has_value());
  EXPECT_FALSE(c->FindGpu("SMALL")->same_chip_benchmarked_fraction.has_value());
  EXPECT_FALSE(c->FindGpu("OTHER")->same_chip_benchmarked_fraction.has_value());
  // In the bundled catalog the V100 PCIe boards take the V100 SXM2's run.
  const GpuSpec* v100 = RealCatalog().FindGpu("V100-PCIE-32GB");
  ASSERT_TRUE(v100->same_chip_benchmarked_fraction.has_value());
  EXPECT_NEAR(*v100->same_chip_benchmarked_fraction, 14.51 / 15.7, 1e-9);
}

TEST(RealCatalog, HoldsEveryRequiredInstance) {
  const char* const kRequired[] = {
      // AWS
      "p2.xlarge", "p2.8xlarge", "p2.16xlarge", "g3s.xlarge", "g4dn.xlarge",
      "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.8xlarge", "g4dn.16xlarge",
      "g4dn.12xlarge", "g4dn.metal", "g5.xlarge", "g5.2xlarge", "g5.4xlarge",
      "g5.8xlarge", "g5.16xlarge", "g5.12xlarge", "g5.24xlarge", "g5.48xlarge",
      "p3.2xlarge", "p3.8xlarge", "p3.16xlarge", "p3dn.24xlarge",
      "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5en.48xlarge",
      // GCP
      "a2-highgpu-1g", "a2-highgpu-2g", "a2-highgpu-4g", "a2-highgpu-8g",
      "a2-megagpu-16g", "a2-ultragpu-1g", "a2-ultragpu-2g", "a2-ultragpu-4g",
      "a2-ultragpu-8g", "g2-standard-4", "g2-standard-8", "g2-standard-12",
      "g2-standard-16", "g2-standard-24", "g2-standard-32", "g2-standard-48",
      "g2-standard-96", "a3-highgpu-1g", "a3-highgpu-8g",
      // Azure
      "Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3",
      "Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3",
      "Standard_NC64as_T4_v3", "Standard_NC24ads_A100_v4",
      "Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4",
      "Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5",
      "Standard_ND40rs_v2", "Standard_ND96asr_v4", "Standard_ND96amsr_A100_v4",
      "Standard_ND96isr_H100_v5"};
  for (const char* name : kRequired) {
    const InstanceSpec* i = RealCatalog().FindInstance(name);
    ASSERT_NE(i, nullptr) << name;
    EXPECT_EQ(i->name, name);
  }
}

TEST(RealCatalog, EveryFigureHasADatedSource) {
  const Catalog& c = RealCatalog();
  auto check = [&](const nlohmann::json& entry, const auto& fields,
                   const std::map<std::string, std::string>& sources) {
    for (const char* field : fields) {
      if (entry.at(field).is_null()) continue;
      auto it = sources.find(field);
      ASSERT_NE(it, sources.end()) << entry["name"] << " " << field;
      const SourceRef* ref = c.FindReference(it->second);
      ASSERT_NE(ref, nullptr) << it->second;
      EXPECT_FALSE(ref->url.empty());
      EXPECT_EQ(ref->date.size(), 10u) << ref->id;
    }
  };
  for (const GpuSpec& g : c.gpus()) {
    check(GpuToJson(g), kGpuFigureFields, g.sources);
  }
  for (const InstanceSpec& i : c.instances()) {
    check(InstanceToJson(i), kInstanceFigureFields, i.sources);
  }
}

TEST(RealCatalog, FiguresAreInternallyConsistent) {
  for (const GpuSpec& g : RealCatalog().gpus()) {
    // Dense tensor peaks exceed the plain FP32 peak on every part we list.
    if (g.fp16_tensor_tflops && g.fp32_tflops) {
      EXPECT_GT(*g.fp16_tensor_tflops, *g.fp32_tflops) << g.name;
    }
    if (g.bf16_tensor_tflops && g.fp16_tensor_tflops) {
      EXPECT_DOUBLE_EQ(*g.bf16_tensor_tflops, *g.fp16_tensor_tflops) << g.name;
    }
    EXPECT_LT(g.mem_gib, 200) << g.name;
  }
  for (const InstanceSpec& i : RealCatalog().instances()) {
    if (i.price_usd_per_hour) {
      EXPECT_FALSE(i.price_region.empty()) << i.name;
      EXPECT_FALSE(i.price_date.empty()) << i.name;
    }
    if (i.gpu_count == 1 && i.interconnect) {
      EXPECT_EQ(*i.interconnect, Interconnect::kNone) << i.name;
    }
  }
}

TEST(RealCatalog, GcpAcceleratorFamiliesAndAwsNetworksArePriced) {
  for (const char* name :
       {"g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16",
        "g2-standard-24", "g2-standard-32", "g2-standard-48", "g2-standard-96",
        "a2-ultragpu-1g", "a2-ultragpu-2g", "a2-ultragpu-4g", "a2-ultragpu-8g",
        "a3-highgpu-1g", "a3-highgpu-8g"}) {
    const InstanceSpec* i = RealCatalog().FindInstance(name);
    ASSERT_NE(i, nullptr) << name;
    ASSERT_TRUE(i->price_usd_per_hour.has_value()) << name;
    EXPECT_EQ(i->price_region, "us-central1") << name;
  }
  // Same GPUs cost the same per GPU across a family's sizes.
  auto per_gpu = [](const char* name) {
    const InstanceSpec* i = RealCatalog().FindInstance(name);
    return *i->price_usd_per_hour / i->gpu_count;
  };
  EXPECT_NEAR(per_gpu("a2-ultragpu-8g"), per_gpu("a2-ultragpu-1g"), 1e-6);
  EXPECT_GT(per_gpu("a3-highgpu-8g"), per_gpu("a2-ultragpu-8g"));
  for (const char* name : {"p4de.24xlarge", "p5en.48xlarge", "g5.xlarge", "g5.48xlarge"}) {
    const InstanceSpec* i = RealCatalog().FindInstance(name);
    ASSERT_TRUE(i->network_gbit_per_s.has_value()) << name;
  }
  EXPECT_DOUBLE_EQ(*RealCatalog().FindInstance("p5en.48xlarge")->network_gbit_per_s, 3200);
  EXPECT_DOUBLE_EQ(*RealCatalog().FindInstance("p4de.24xlarge")->network_gbit_per_s, 400);
}

TEST(RealCatalog, EveryProviderHasPricedInstances) {
  std::set<Provider> priced;
  for (const InstanceSpec& i : RealCatalog().instances()) {
    if (i.price_usd_per_hour) priced.insert(i.provider);
  }
  EXPECT_EQ(priced.size(), 3u);
}

}  // namespace
}  // namespace frugal
