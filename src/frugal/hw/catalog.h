// The hardware catalog: GPU specifications and cloud GPU instances with
// on-demand prices, every figure tied to the public document it came from.
// LoadCatalog reads and validates the JSON in data/catalog/ (schema in
// docs/catalog.md); the resulting Catalog is a value that owns all its specs
// and never changes afterwards. Lookups are const and safe to call from many
// threads at once; LoadCatalog itself keeps no state.
//
// Units are in member names: mem_gib (GiB), mem_bw_gbps and nvlink_gbps
// (gigabytes per second, 10^9 B/s), network_gbit_per_s (gigabits per second,
// as clouds quote it), fp32_tflops (10^12 FLOP/s), price_usd_per_hour.
#ifndef FRUGAL_HW_CATALOG_H_
#define FRUGAL_HW_CATALOG_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frugal/base/status.h"

namespace frugal {

// A document that figures are taken from. Entries name it by its id.
struct SourceRef {
  std::string id;     // "nvidia-a100-datasheet"
  std::string url;    // a URL, or a path such as ../shared/data/...
  std::string title;  // one line: what the document is
  std::string date;   // YYYY-MM-DD
  // "published": the date printed on the document; "read": the date it was
  // read from a stored copy, used when the document carries no date.
  std::string date_kind;
};

// One Multi-Instance GPU profile (NVIDIA's MIG user guide, "Supported MIG
// profiles"): a GPU has 7 compute slices and 8 memory slices; profile
// "3g.40gb" holds 3 compute slices and 4 memory slices (with their share of
// memory bandwidth and L2).
struct MigProfile {
  std::string name;        // "3g.40gb"
  int compute_slices = 0;  // of 7
  int memory_slices = 0;   // of 8
  double mem_gib = 0;      // memory_slices / 8 of the GPU's memory
};

struct GpuSpec {
  std::string name;          // canonical: "A100-SXM4-80GB"
  std::string vendor;        // "nvidia"
  std::string architecture;  // "ampere"
  std::string form_factor;   // "pcie", "sxm4", ...; empty when not stated
  // "GDDR5", "GDDR6", "HBM2", "HBM2e", "HBM3", "HBM3e", ...; empty when not
  // stated.
  std::string memory_type;
  std::vector<std::string> aliases;  // other spellings, e.g. nvidia-smi names
  // Family names that are ambiguous ("A100" is four parts) and resolve to
  // this GPU, the variant clouds rent most, with a note naming the others.
  std::vector<std::string> default_for;

  // Required figures.
  double mem_gib = 0;      // device memory
  double mem_bw_gbps = 0;  // peak memory bandwidth, GB/s

  // Optional figures: absent when the GPU lacks the feature or no public
  // document states it. Tensor figures are dense (no 2:4 sparsity).
  std::optional<double> fp32_tflops;  // peak FP32 on CUDA cores
  std::optional<double> fp16_tensor_tflops;
  std::optional<double> bf16_tensor_tflops;
  std::optional<double> tf32_tensor_tflops;
  std::optional<int> sm_count;
  std::optional<double> l2_mib;
  std::optional<int> boost_clock_mhz;
  // Total NVLink bandwidth of one GPU, both directions added (600 for an
  // A100 SXM4). Absent when the part has no NVLink.
  std::optional<double> nvlink_gbps;
  std::optional<int> pcie_gen;
  // Board power limit (TDP, W) of this form factor: the power the board may
  // draw at most, which bounds the sustained clock of small cards.
  std::optional<double> tdp_w;
  // Measured FP32 GEMM throughput that a real workload sustains (TFLOPS),
  // where a source measured it: small boards hit their power limit and run
  // far below fp32_tflops. The catalog only exposes it; time models that
  // want it read it here.
  std::optional<double> sustained_fp32_gemm_tflops;
  // FP32 GEMM throughput a public benchmark measured on this GPU (TFLOPS):
  // the best over square torch.mm sizes of a third party's run, so it is
  // independent of the op timings frugal's models are trained on. The
  // efficiency model scales it to a sustained rate (docs/perf.md).
  std::optional<double> benchmarked_fp32_gemm_tflops;
  // Derived, not a catalog file field: for a GPU without
  // benchmarked_fp32_gemm_tflops, the median fraction of its FP32 peak the
  // benchmark reached on the catalog's GPUs of the same chip (architecture
  // and SM count) that have a figure: a V100 PCIe gets the V100 SXM2's run
  // scaled to its own clock. Catalog::Build fills it; absent otherwise.
  std::optional<double> same_chip_benchmarked_fraction;
  // The GPU's MIG profiles, smallest first; empty when it has no MIG.
  std::vector<MigProfile> mig_profiles;

  std::string notes;
  // Field name -> SourceRef id, for every figure present above.
  std::map<std::string, std::string> sources;
  std::string origin;  // the file it was read from, for error messages
};

enum class Provider { kAws, kGcp, kAzure };
// "aws", "gcp", "azure".
const char* ProviderName(Provider p);
std::optional<Provider> ParseProvider(std::string_view name);

// How the GPUs of one instance talk to each other.
enum class Interconnect { kNone, kPcie, kNvlink, kNvswitch };  // kNone: 1 GPU
// "none", "pcie", "nvlink", "nvswitch".
const char* InterconnectName(Interconnect i);
std::optional<Interconnect> ParseInterconnect(std::string_view name);

struct InstanceSpec {
  std::string name;  // as the provider spells it: "p3.2xlarge"
  Provider provider = Provider::kAws;
  std::string family;  // "p3", "a2-highgpu", "NCv3"
  std::string gpu;     // canonical GpuSpec::name
  int gpu_count = 0;

  std::optional<int> vcpus;
  std::optional<double> ram_gib;
  std::optional<double> network_gbit_per_s;
  bool network_burst = false;  // the figure is an "up to" burst rate
  std::optional<Interconnect> interconnect;

  // On-demand Linux price; price_region and price_date say where and when.
  std::optional<double> price_usd_per_hour;
  std::string price_region;  // "us-east-1", "us-central1", "eastus"
  std::string price_date;    // YYYY-MM-DD, see the source's date_kind

  std::string notes;
  std::map<std::string, std::string> sources;  // as in GpuSpec
  std::string origin;
};

// The parts of a catalog before cross-checks; what a catalog file holds.
struct CatalogData {
  std::vector<GpuSpec> gpus;
  std::vector<InstanceSpec> instances;
  std::map<std::string, SourceRef> references;  // by id
};

class Catalog {
 public:
  Catalog() = default;

  // Checks what no single entry can: unique GPU names and aliases (after
  // CatalogKey), unique instance names, instances naming known GPUs (an
  // alias is resolved to the canonical name), and source ids that exist.
  // Errors are InvalidArgument and name the entry's origin file.
  static Result<Catalog> Build(CatalogData data);

  const std::vector<GpuSpec>& gpus() const { return data_.gpus; }
  const std::vector<InstanceSpec>& instances() const { return data_.instances; }
  const std::map<std::string, SourceRef>& references() const {
    return data_.references;
  }

  // Finds a GPU by canonical name, alias or family name (default_for),
  // ignoring case, spaces, punctuation and a leading "NVIDIA"/"Tesla":
  // "Tesla V100-PCIE-32GB", "v100_pcie_32gb" and "V100-PCIE-32GB" are the
  // same GPU. nullptr if none. The pointer lives as long as this Catalog.
  const GpuSpec* FindGpu(std::string_view name) const;
  // As FindGpu; NotFound names the closest catalog GPUs.
  Result<const GpuSpec*> LookupGpu(std::string_view name) const;

  // A GPU found by LookupGpu, and a note when `name` was a family name:
  // "A100" taken as A100-SXM4-40GB, which other variants exist and how to
  // pick one. Callers show the note to the user (stderr, a JSON "notes").
  struct GpuMatch {
    const GpuSpec* gpu = nullptr;
    std::string note;  // empty unless a family name was resolved
  };
  Result<GpuMatch> ResolveGpu(std::string_view name) const;

  // Finds an instance by name, ignoring case and punctuation; Azure's
  // "Standard_" prefix is optional.
  const InstanceSpec* FindInstance(std::string_view name) const;
  // As FindInstance; NotFound names the closest catalog instances.
  Result<const InstanceSpec*> LookupInstance(std::string_view name) const;

  const SourceRef* FindReference(std::string_view id) const;

 private:
  CatalogData data_;
  std::unordered_map<std::string, size_t> gpu_index_;       // key -> gpus_[i]
  std::unordered_map<std::string, size_t> family_index_;    // default_for keys
  std::unordered_map<std::string, size_t> instance_index_;  // key -> ...
};

// The lookup key of a hardware name: lower case, letters and digits only,
// without a leading "nvidia" or "tesla" (GPUs) or "standard" (instances).
std::string CatalogKey(std::string_view name);

// Reads a catalog. `path` is a directory holding gpus.json (required) and
// instances.json (optional), or one JSON file with "gpus" and/or
// "instances". NotFound when the path does not exist; InvalidArgument, with
// the file and entry named on one line, for malformed JSON, unknown or
// missing fields, numbers that are not positive and finite, figures without
// a source, duplicate names and instances of unknown GPUs.
Result<Catalog> LoadCatalog(const std::string& path);

// $FRUGAL_CATALOG if set, else $FRUGAL_DATA_DIR/catalog if set, else the
// source tree's data/catalog.
std::string DefaultCatalogPath();

}  // namespace frugal

#endif  // FRUGAL_HW_CATALOG_H_
