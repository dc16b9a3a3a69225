// `frugal catalog list`: the GPU and cloud-instance catalog as tables or JSON.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_util.h"
#include "frugal/hw/catalog.h"
#include "frugal/hw/catalog_json.h"
#include "verbs.h"

namespace frugal::cli {
namespace {

struct ListFlags {
  bool gpus_only = false;
  bool instances_only = false;
  std::string provider;  // empty: all
  std::string catalog;   // empty: DefaultCatalogPath()
  bool json = false;
};

template <typename T>
std::string Num(const std::optional<T>& v, const char* spec = "{}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : "-";
}

void PrintGpus(const Catalog& c) {
  std::vector<std::vector<std::string>> rows;
  for (const GpuSpec& g : c.gpus()) {
    rows.push_back({g.name, g.architecture, fmt::format("{}", g.mem_gib),
                    fmt::format("{}", g.mem_bw_gbps), Num(g.fp32_tflops),
                    Num(g.fp16_tensor_tflops), Num(g.bf16_tensor_tflops),
                    Num(g.tf32_tensor_tflops), Num(g.sm_count), Num(g.l2_mib),
                    Num(g.boost_clock_mhz), Num(g.nvlink_gbps),
                    Num(g.pcie_gen), Num(g.sustained_fp32_gemm_tflops)});
  }
  PrintTable({"GPU", "ARCH", "MEM_GIB", "BW_GB/S", "FP32_TF", "FP16_TC_TF",
              "BF16_TC_TF", "TF32_TC_TF", "SMS", "L2_MIB", "BOOST_MHZ",
              "NVLINK_GB/S", "PCIE", "SUSTAINED_FP32_TF"},
             rows);
  // Family names, so users see what "A100" means before they type it.
  for (const GpuSpec& g : c.gpus()) {
    for (const std::string& f : g.default_for) {
      fmt::print("{} means {} unless a full name is given\n", f, g.name);
    }
  }
}

void PrintInstances(const Catalog& c, std::optional<Provider> provider) {
  std::vector<std::vector<std::string>> rows;
  for (const InstanceSpec& i : c.instances()) {
    if (provider && i.provider != *provider) continue;
    std::string net = Num(i.network_gbit_per_s);
    if (i.network_burst && i.network_gbit_per_s) net = "<=" + net;
    rows.push_back({i.name, ProviderName(i.provider), i.gpu,
                    fmt::format("{}", i.gpu_count), Num(i.vcpus),
                    Num(i.ram_gib), net,
                    i.interconnect ? InterconnectName(*i.interconnect) : "-",
                    Num(i.price_usd_per_hour, "{:.4f}"),
                    i.price_region.empty() ? "-" : i.price_region,
                    i.price_date.empty() ? "-" : i.price_date});
  }
  PrintTable({"INSTANCE", "PROVIDER", "GPU", "GPUS", "VCPUS", "RAM_GIB",
              "NET_GBIT/S", "LINK", "USD/H", "REGION", "PRICE_DATE"},
             rows);
}

int RunList(const ListFlags& f) {
  std::optional<Provider> provider;
  if (!f.provider.empty()) provider = ParseProvider(f.provider);
  std::string path = f.catalog.empty() ? DefaultCatalogPath() : f.catalog;
  Result<Catalog> catalog = LoadCatalog(path);
  if (!catalog.ok()) return ReportError(catalog.status());
  bool gpus = !f.instances_only;
  bool instances = !f.gpus_only;

  if (f.json) {
    nlohmann::json out = CatalogToJson(*catalog);
    if (!gpus) out.erase("gpus");
    if (!instances) {
      out.erase("instances");
    } else if (provider) {
      nlohmann::json kept = nlohmann::json::array();
      for (const auto& i : out["instances"]) {
        if (i["provider"] == ProviderName(*provider)) kept.push_back(i);
      }
      out["instances"] = kept;
    }
    PrintJson(out);
    return 0;
  }
  if (gpus) PrintGpus(*catalog);
  if (gpus && instances) fmt::print("\n");
  if (instances) PrintInstances(*catalog, provider);
  return 0;
}

}  // namespace

void SetupCatalog(CLI::App& sub, int* exit_code) {
  sub.require_subcommand(1);
  CLI::App* list = sub.add_subcommand(
      "list",
      "List GPUs (specs) and cloud instances (prices), with sources "
      "in --json");
  auto flags = std::make_shared<ListFlags>();
  CLI::Option* gpus =
      list->add_flag("--gpus", flags->gpus_only, "Only the GPUs");
  CLI::Option* instances = list->add_flag("--instances", flags->instances_only,
                                          "Only the instances");
  gpus->excludes(instances);
  list->add_option("--provider", flags->provider,
                   "Only instances of this cloud")
      ->check(CLI::IsMember({"aws", "gcp", "azure"}))
      ->excludes(gpus);  // --gpus lists no instances to filter
  list->add_option("--catalog", flags->catalog,
                   "Catalog directory or JSON file (default: $FRUGAL_CATALOG, "
                   "$FRUGAL_DATA_DIR/catalog, or the bundled data/catalog)");
  list->add_flag(
      "--json", flags->json,
      "Print JSON: the catalog schema, every figure with its source");
  list->callback([flags, exit_code] { *exit_code = RunList(*flags); });
}

}  // namespace frugal::cli
