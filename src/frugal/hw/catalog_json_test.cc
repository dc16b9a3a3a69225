// Parsing and validation of catalog files, on tiny catalogs written to temp
// files.
#include "frugal/hw/catalog_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "frugal/base/file_io.h"
#include "frugal/hw/catalog.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json TinyCatalog() {
  return json::parse(R"({
    "schema_version": 1,
    "references": {
      "sheet": {"url": "https://example.com/sheet.pdf", "title": "datasheet",
                "date": "2020-05-14", "date_kind": "published"},
      "prices": {"url": "https://example.com/prices", "title": "price list",
                 "date": "2026-11-30", "date_kind": "read"}
    },
    "gpus": [
      {"name": "A100-SXM4-80GB", "vendor": "nvidia", "architecture": "ampere",
       "aliases": ["NVIDIA A100-SXM4-80GB"],
       "mem_gib": 80, "mem_bw_gbps": 2039, "fp32_tflops": 19.5,
       "bf16_tensor_tflops": 312, "nvlink_gbps": 600, "source": "sheet"},
      {"name": "T4", "vendor": "nvidia", "architecture": "turing",
       "mem_gib": 16, "mem_bw_gbps": 320, "fp32_tflops": 8.1, "tdp_w": 70,
       "source": "sheet"}
    ],
    "instances": [
      {"name": "p4de.24xlarge", "provider": "aws", "gpu": "nvidia a100 sxm4 80gb",
       "gpu_count": 8, "vcpus": 96, "interconnect": "nvswitch",
       "price_usd_per_hour": 40.97, "price_region": "us-east-1",
       "price_date": "2026-11-30", "source": "sheet",
       "sources": {"price_usd_per_hour": "prices"}}
    ]
  })");
}

class CatalogFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("frugal_catalog_json_test_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = (dir_ / name).string();
    EXPECT_TRUE(WriteStringToFile(path, text).ok());
    return path;
  }

  // Loads `doc` from a file and expects InvalidArgument whose one-line
  // message names the file and contains `needle`.
  void ExpectRejected(const json& doc, const std::string& needle) {
    std::string path = Write("catalog.json", doc.dump());
    auto r = LoadCatalog(path);
    ASSERT_FALSE(r.ok()) << "accepted a catalog lacking: " << needle;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    std::string m = r.status().message();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }

  fs::path dir_;
};

TEST_F(CatalogFileTest, LoadsATinyCatalogAndResolvesAliases) {
  auto r = LoadCatalog(Write("c.json", TinyCatalog().dump()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Catalog& c = *r;
  ASSERT_EQ(c.gpus().size(), 2u);
  const GpuSpec* a100 = c.FindGpu("NVIDIA_A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->name, "A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(*a100->nvlink_gbps, 600);
  EXPECT_FALSE(a100->tf32_tensor_tflops.has_value());
  EXPECT_EQ(a100->sources.at("mem_gib"), "sheet");
  EXPECT_EQ(a100->sources.count("tf32_tensor_tflops"), 0u);
  EXPECT_FALSE(a100->tdp_w.has_value());
  const GpuSpec* t4 = c.FindGpu("T4");
  ASSERT_NE(t4, nullptr);
  ASSERT_TRUE(t4->tdp_w.has_value());
  EXPECT_DOUBLE_EQ(*t4->tdp_w, 70);
  EXPECT_EQ(t4->sources.at("tdp_w"), "sheet");

  const InstanceSpec* p4de = c.FindInstance("P4DE.24XLARGE");
  ASSERT_NE(p4de, nullptr);
  EXPECT_EQ(p4de->gpu, "A100-SXM4-80GB");  // alias resolved
  EXPECT_EQ(p4de->interconnect, Interconnect::kNvswitch);
  EXPECT_EQ(p4de->sources.at("price_usd_per_hour"), "prices");
  EXPECT_EQ(p4de->sources.at("vcpus"), "sheet");
  EXPECT_FALSE(p4de->ram_gib.has_value());
  EXPECT_EQ(c.FindReference("prices")->date_kind, "read");
}

TEST_F(CatalogFileTest, UnknownGpuIsNotFoundAndListsNames) {
  auto r = LoadCatalog(Write("c.json", TinyCatalog().dump()));
  ASSERT_TRUE(r.ok());
  auto g = r->LookupGpu("Voodoo2");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kNotFound);
  EXPECT_NE(g.status().message().find("Voodoo2"), std::string::npos);
  EXPECT_NE(g.status().message().find("A100-SXM4-80GB"), std::string::npos);
  EXPECT_EQ(r->LookupInstance("z9.huge").status().code(),
            StatusCode::kNotFound);
}

TEST_F(CatalogFileTest, WrittenJsonLoadsBackIdentically) {
  auto r = LoadCatalog(Write("c.json", TinyCatalog().dump()));
  ASSERT_TRUE(r.ok());
  json out = CatalogToJson(*r);
  auto again = LoadCatalog(Write("again.json", out.dump()));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(CatalogToJson(*again), out);
  EXPECT_EQ(out["gpus"][1]["tdp_w"], 70);
  EXPECT_TRUE(out["gpus"][0]["tdp_w"].is_null());
}

TEST_F(CatalogFileTest, DirectoryHoldsGpusAndInstancesFiles) {
  json gpus = TinyCatalog(), instances = TinyCatalog();
  gpus.erase("instances");
  instances.erase("gpus");
  instances.erase("references");
  instances["references"] = {{"prices", gpus["references"]["prices"]}};
  gpus["references"].erase("prices");
  Write("gpus.json", gpus.dump());
  Write("instances.json", instances.dump());
  auto r = LoadCatalog(dir_.string());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->gpus().size(), 2u);
  EXPECT_EQ(r->instances().size(), 1u);
  EXPECT_EQ(r->instances()[0].origin, (dir_ / "instances.json").string());
}

TEST_F(CatalogFileTest, MissingPathIsNotFound) {
  auto r = LoadCatalog((dir_ / "nope").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("nope"), std::string::npos);
}

TEST_F(CatalogFileTest, MalformedJsonNamesTheFile) {
  std::string path = Write("bad.json", "{\"gpus\": [");
  auto r = LoadCatalog(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(path), std::string::npos);
}

TEST_F(CatalogFileTest, RejectsMissingRequiredField) {
  json doc = TinyCatalog();
  doc["gpus"][0].erase("mem_gib");
  ExpectRejected(doc,
                 "gpus[0] \"A100-SXM4-80GB\": missing required field mem_gib");
}

TEST_F(CatalogFileTest, RejectsNegativeZeroAndNonNumbers) {
  json doc = TinyCatalog();
  doc["gpus"][1]["fp32_tflops"] = -8.1;
  ExpectRejected(doc, "\"T4\": fp32_tflops must be a positive number");
  doc = TinyCatalog();
  doc["instances"][0]["gpu_count"] = 0;
  ExpectRejected(doc, "gpu_count must be a positive number");
  doc = TinyCatalog();
  doc["gpus"][0]["l2_mib"] = "NaN";
  ExpectRejected(doc, "l2_mib must be a number");
  doc = TinyCatalog();
  doc["instances"][0]["vcpus"] = 9.5;
  ExpectRejected(doc, "vcpus must be a whole number");
  doc = TinyCatalog();
  doc["gpus"][1]["tdp_w"] = 0;
  ExpectRejected(doc, "\"T4\": tdp_w must be a positive number");
}

TEST_F(CatalogFileTest, RejectsFiguresNoGpuOrInstanceHas) {
  json doc = TinyCatalog();
  doc["gpus"][0]["mem_gib"] = 1e308;
  ExpectRejected(doc, "mem_gib must be in [0.01, 4096], got 1e+308");
  doc = TinyCatalog();
  doc["gpus"][0]["mem_bw_gbps"] = 1e-300;
  ExpectRejected(doc, "mem_bw_gbps must be in [1, 100000]");
  doc = TinyCatalog();
  doc["instances"][0]["gpu_count"] = 1000000;
  ExpectRejected(doc, "gpu_count must be in [0, 1024], got 1000000");
  doc = TinyCatalog();
  doc["instances"][0]["price_usd_per_hour"] = 1e308;
  ExpectRejected(doc, "price_usd_per_hour must be in [0, 10000]");
}

TEST_F(CatalogFileTest, RejectsFigureWithoutSource) {
  json doc = TinyCatalog();
  doc["gpus"][1].erase("source");
  ExpectRejected(doc, "has no source");
  doc = TinyCatalog();
  doc["gpus"][1]["sources"] = {{"tf32_tensor_tflops", "sheet"}};
  ExpectRejected(doc, "sources.tf32_tensor_tflops given but");
}

TEST_F(CatalogFileTest, RejectsUnknownReference) {
  json doc = TinyCatalog();
  doc["instances"][0]["sources"]["price_usd_per_hour"] = "rumour";
  ExpectRejected(doc, "unknown reference \"rumour\"");
}

TEST_F(CatalogFileTest, RejectsDuplicateNames) {
  json doc = TinyCatalog();
  doc["gpus"][1]["aliases"] = {"A100_SXM4_80GB"};
  ExpectRejected(doc, "duplicate GPU name");
  doc = TinyCatalog();
  doc["instances"].push_back(doc["instances"][0]);
  ExpectRejected(doc, "duplicate instance name");
}

TEST_F(CatalogFileTest, RejectsInstanceOfUnknownGpu) {
  json doc = TinyCatalog();
  doc["instances"][0]["gpu"] = "B300";
  ExpectRejected(doc, "instance \"p4de.24xlarge\": unknown GPU \"B300\"");
}

TEST_F(CatalogFileTest, RejectsUnknownFieldsAndValues) {
  json doc = TinyCatalog();
  doc["gpus"][0]["mem_gb"] = 80;
  ExpectRejected(doc, "unknown field \"mem_gb\"");
  doc = TinyCatalog();
  doc["instances"][0]["provider"] = "oracle";
  ExpectRejected(doc, "provider must be aws, gcp or azure");
  doc = TinyCatalog();
  doc["instances"][0]["interconnect"] = "infiniband";
  ExpectRejected(doc, "interconnect must be");
  doc = TinyCatalog();
  doc["references"]["sheet"]["date_kind"] = "guessed";
  ExpectRejected(doc, "date_kind must be");
}

TEST_F(CatalogFileTest, PriceNeedsRegionAndDate) {
  json doc = TinyCatalog();
  doc["instances"][0].erase("price_date");
  ExpectRejected(doc, "missing required field price_date");
  doc = TinyCatalog();
  doc["instances"][0]["price_date"] = "last week";
  ExpectRejected(doc, "price_date must be a date");
}

TEST_F(CatalogFileTest, RejectsEmptyAndNonObjectDocuments) {
  ExpectRejected(json::array(), "must be a JSON object");
  ExpectRejected(json{{"references", json::object()}},
                 "neither \"gpus\" nor \"instances\"");
}

TEST_F(CatalogFileTest, FamilyNameResolvesToDefaultVariantWithNote) {
  json doc = TinyCatalog();
  doc["gpus"][0]["default_for"] = {"A100"};
  doc["gpus"].push_back({{"name", "A100-PCIE-40GB"}, {"vendor", "nvidia"},
                         {"architecture", "ampere"}, {"mem_gib", 40},
                         {"mem_bw_gbps", 1555}, {"source", "sheet"}});
  auto r = LoadCatalog(Write("c.json", doc.dump()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto m = r->ResolveGpu("nvidia a100");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->gpu->name, "A100-SXM4-80GB");
  EXPECT_NE(m->note.find("\"nvidia a100\" taken as A100-SXM4-80GB"), std::string::npos)
      << m->note;
  EXPECT_NE(m->note.find("A100-PCIE-40GB"), std::string::npos) << m->note;
  EXPECT_EQ(m->note.find('\n'), std::string::npos);
  // A full name resolves without a note; FindGpu and LookupGpu follow the
  // family name too.
  EXPECT_TRUE(r->ResolveGpu("A100-PCIE-40GB")->note.empty());
  EXPECT_EQ(r->FindGpu("A100")->name, "A100-SXM4-80GB");
  EXPECT_EQ((*r->LookupGpu("a100"))->name, "A100-SXM4-80GB");
  // The family name round-trips through JSON.
  EXPECT_EQ(GpuToJson(*r->FindGpu("A100"))["default_for"], json({"A100"}));
}

TEST_F(CatalogFileTest, RejectsFamilyNamesThatShadowOrRepeat) {
  json doc = TinyCatalog();
  doc["gpus"][0]["default_for"] = {"T4"};
  ExpectRejected(doc, "default_for \"T4\" is already a name of \"T4\"");
  doc = TinyCatalog();
  doc["gpus"][0]["default_for"] = {"Ampere"};
  doc["gpus"][1]["default_for"] = {"ampere"};
  ExpectRejected(doc, "also defaults to");
  doc = TinyCatalog();
  doc["gpus"][0]["default_for"] = {"--"};
  ExpectRejected(doc, "has no letters or digits");
}

TEST_F(CatalogFileTest, SustainedThroughputIsAFigureWithASource) {
  json doc = TinyCatalog();
  doc["gpus"][1]["sustained_fp32_gemm_tflops"] = 3.2;
  auto r = LoadCatalog(Write("c.json", doc.dump()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const GpuSpec* t4 = r->FindGpu("T4");
  ASSERT_TRUE(t4->sustained_fp32_gemm_tflops.has_value());
  EXPECT_DOUBLE_EQ(*t4->sustained_fp32_gemm_tflops, 3.2);
  EXPECT_EQ(t4->sources.at("sustained_fp32_gemm_tflops"), "sheet");
  doc["gpus"][1]["sustained_fp32_gemm_tflops"] = -1;
  ExpectRejected(doc, "sustained_fp32_gemm_tflops must be a positive number");
  doc["gpus"][1]["sustained_fp32_gemm_tflops"] = 3.2;
  doc["gpus"][1]["benchmarked_fp32_gemm_tflops"] = 4.3;
  auto bench = LoadCatalog(Write("c.json", doc.dump()));
  ASSERT_TRUE(bench.ok()) << bench.status().ToString();
  EXPECT_DOUBLE_EQ(*bench->FindGpu("T4")->benchmarked_fp32_gemm_tflops, 4.3);
  doc["gpus"][1]["benchmarked_fp32_gemm_tflops"] = 0;
  ExpectRejected(doc, "benchmarked_fp32_gemm_tflops must be a positive number");
  doc["gpus"][1].erase("benchmarked_fp32_gemm_tflops");
  doc["gpus"][1]["memory_type"] = "SRAM";
  ExpectRejected(doc, "memory_type 'SRAM' is neither GDDR* nor HBM*");
  doc["gpus"][1]["memory_type"] = "HBM2e";
  auto hbm = LoadCatalog(Write("c.json", doc.dump()));
  ASSERT_TRUE(hbm.ok()) << hbm.status().ToString();
  EXPECT_EQ(hbm->FindGpu("T4")->memory_type, "HBM2e");
  doc["gpus"][1].erase("source");
  doc["gpus"][1]["sustained_fp32_gemm_tflops"] = 3.2;
  ExpectRejected(doc, "has no source");
}

TEST_F(CatalogFileTest, MigProfilesAreParsedAndChecked) {
  json doc = TinyCatalog();
  doc["gpus"][1]["mig_profiles"] = json::parse(
      R"([{"name": "1g.5gb", "compute_slices": 1, "memory_slices": 1},
          {"name": "7g.40gb", "compute_slices": 7, "memory_slices": 8}])");
  auto r = LoadCatalog(Write("c.json", doc.dump()));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const GpuSpec* g = r->FindGpu("T4");
  ASSERT_EQ(g->mig_profiles.size(), 2u);
  EXPECT_EQ(g->mig_profiles[1].name, "7g.40gb");
  EXPECT_DOUBLE_EQ(g->mig_profiles[0].mem_gib, g->mem_gib / 8);
  doc["gpus"][1]["mig_profiles"][0]["compute_slices"] = 8;
  ExpectRejected(doc, "mig_profiles[0]: compute_slices must be 1..7");
  doc["gpus"][1]["mig_profiles"][0]["compute_slices"] = 1;
  doc["gpus"][1]["mig_profiles"][1]["memory"] = 8;
  ExpectRejected(doc, "mig_profiles[1]");
  doc["gpus"][1]["mig_profiles"] = "1g.5gb";
  ExpectRejected(doc, "mig_profiles must be a list");
}

TEST_F(CatalogFileTest, UnknownNamesSuggestTheClosest) {
  auto r = LoadCatalog(Write("c.json", TinyCatalog().dump()));
  ASSERT_TRUE(r.ok());
  std::string m = r->LookupGpu("A100 SXM 80").status().message();
  EXPECT_NE(m.find("closest: A100-SXM4-80GB, T4"), std::string::npos) << m;
  m = r->LookupInstance("p4d.24xlarge").status().message();
  EXPECT_NE(m.find("closest: p4de.24xlarge"), std::string::npos) << m;
}

TEST(CatalogKey, IgnoresCasePunctuationAndVendorWords) {
  EXPECT_EQ(CatalogKey("Tesla V100-PCIE-32GB"), CatalogKey("v100_pcie_32gb"));
  EXPECT_EQ(CatalogKey("NVIDIA_H100_80GB_HBM3"), "h10080gbhbm3");
  EXPECT_EQ(CatalogKey("Standard_NC24s_v3"), CatalogKey("nc24s_v3"));
}

}  // namespace
}  // namespace frugal
