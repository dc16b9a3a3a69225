#include "frugal/hw/catalog.h"

#include <cctype>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "frugal/base/stats.h"
#include "frugal/hw/name_match.h"

namespace frugal {
namespace {

// How many suggestions a NotFound message lists.
constexpr size_t kNamesInError = 5;

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// The GPUs of the family `family_key` names: their key starts with it and
// goes on with a letter ("v100" -> v100pcie16gb, not "a10" -> a100...).
std::vector<std::string> FamilyMembers(const std::vector<GpuSpec>& gpus,
                                       const std::string& family_key) {
  std::vector<std::string> out;
  for (const GpuSpec& g : gpus) {
    std::string key = CatalogKey(g.name);
    if (key == family_key ||
        (StartsWith(key, family_key) &&
         std::isalpha(static_cast<unsigned char>(key[family_key.size()])))) {
      out.push_back(g.name);
    }
  }
  return out;
}

Status CheckSources(const std::map<std::string, std::string>& sources,
                    const std::map<std::string, SourceRef>& refs,
                    const std::string& where) {
  for (const auto& [field, id] : sources) {
    if (refs.find(id) == refs.end()) {
      return InvalidArgument(where + ": source of " + field +
                             " names unknown reference \"" + id + "\"");
    }
  }
  return Status::Ok();
}

// GpuSpec::same_chip_benchmarked_fraction of every GPU.
void FillSameChipBenchmarks(std::vector<GpuSpec>& gpus) {
  for (GpuSpec& g : gpus) {
    g.same_chip_benchmarked_fraction.reset();
    if (g.benchmarked_fp32_gemm_tflops || !g.sm_count || g.architecture.empty()) continue;
    std::vector<double> fractions;
    for (const GpuSpec& m : gpus) {
      if (m.benchmarked_fp32_gemm_tflops && m.fp32_tflops && m.sm_count == g.sm_count &&
          m.architecture == g.architecture) {
        fractions.push_back(*m.benchmarked_fp32_gemm_tflops / *m.fp32_tflops);
      }
    }
    if (!fractions.empty()) g.same_chip_benchmarked_fraction = Median(std::move(fractions));
  }
}

}  // namespace

const char* ProviderName(Provider p) {
  switch (p) {
    case Provider::kAws:
      return "aws";
    case Provider::kGcp:
      return "gcp";
    case Provider::kAzure:
      return "azure";
  }
  return "?";
}

std::optional<Provider> ParseProvider(std::string_view name) {
  if (name == "aws") return Provider::kAws;
  if (name == "gcp") return Provider::kGcp;
  if (name == "azure") return Provider::kAzure;
  return std::nullopt;
}

const char* InterconnectName(Interconnect i) {
  switch (i) {
    case Interconnect::kNone:
      return "none";
    case Interconnect::kPcie:
      return "pcie";
    case Interconnect::kNvlink:
      return "nvlink";
    case Interconnect::kNvswitch:
      return "nvswitch";
  }
  return "?";
}

std::optional<Interconnect> ParseInterconnect(std::string_view name) {
  if (name == "none") return Interconnect::kNone;
  if (name == "pcie") return Interconnect::kPcie;
  if (name == "nvlink") return Interconnect::kNvlink;
  if (name == "nvswitch") return Interconnect::kNvswitch;
  return std::nullopt;
}

std::string CatalogKey(std::string_view name) {
  std::string key;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) key += static_cast<char>(std::tolower(u));
  }
  // Vendor words and Azure's size prefix say nothing about which part it is;
  // "NVIDIA Tesla V100" and "V100" must meet.
  for (std::string_view prefix : {"nvidia", "tesla", "standard"}) {
    if (StartsWith(key, prefix)) key.erase(0, prefix.size());
  }
  return key;
}

Result<Catalog> Catalog::Build(CatalogData data) {
  Catalog c;
  for (size_t i = 0; i < data.gpus.size(); ++i) {
    const GpuSpec& g = data.gpus[i];
    std::string where = g.origin + ": GPU \"" + g.name + "\"";
    FRUGAL_RETURN_IF_ERROR(CheckSources(g.sources, data.references, where));
    std::vector<std::string> names = g.aliases;
    names.insert(names.begin(), g.name);
    std::set<std::string> own_keys;
    for (const std::string& n : names) {
      std::string key = CatalogKey(n);
      if (key.empty()) {
        return InvalidArgument(where + ": name \"" + n +
                               "\" has no letters or digits");
      }
      if (!own_keys.insert(key).second) continue;  // same GPU, spelt twice
      auto [it, inserted] = c.gpu_index_.emplace(key, i);
      if (!inserted) {
        return InvalidArgument(where + ": duplicate GPU name \"" + n +
                               "\" (also names \"" +
                               data.gpus[it->second].name + "\")");
      }
    }
  }
  // Family names only after every name is known: a family name that is
  // also some GPU's name would shadow nothing and mislead.
  for (size_t i = 0; i < data.gpus.size(); ++i) {
    const GpuSpec& g = data.gpus[i];
    std::string where = g.origin + ": GPU \"" + g.name + "\"";
    for (const std::string& n : g.default_for) {
      std::string key = CatalogKey(n);
      if (key.empty()) {
        return InvalidArgument(where + ": default_for \"" + n +
                               "\" has no letters or digits");
      }
      if (auto it = c.gpu_index_.find(key); it != c.gpu_index_.end()) {
        return InvalidArgument(where + ": default_for \"" + n +
                               "\" is already a name of \"" +
                               data.gpus[it->second].name + "\"");
      }
      auto [it, inserted] = c.family_index_.emplace(key, i);
      if (!inserted) {
        return InvalidArgument(where + ": default_for \"" + n +
                               "\" also defaults to \"" +
                               data.gpus[it->second].name + "\"");
      }
    }
  }
  for (size_t i = 0; i < data.instances.size(); ++i) {
    InstanceSpec& inst = data.instances[i];
    std::string where = inst.origin + ": instance \"" + inst.name + "\"";
    FRUGAL_RETURN_IF_ERROR(CheckSources(inst.sources, data.references, where));
    auto gpu = c.gpu_index_.find(CatalogKey(inst.gpu));
    if (gpu == c.gpu_index_.end()) {
      return InvalidArgument(where + ": unknown GPU \"" + inst.gpu + "\"");
    }
    inst.gpu = data.gpus[gpu->second].name;
    std::string key = CatalogKey(inst.name);
    if (key.empty()) {
      return InvalidArgument(where + ": name has no letters or digits");
    }
    auto [it, inserted] = c.instance_index_.emplace(key, i);
    if (!inserted) {
      return InvalidArgument(where + ": duplicate instance name (also \"" +
                             data.instances[it->second].name + "\")");
    }
  }
  FillSameChipBenchmarks(data.gpus);
  c.data_ = std::move(data);
  return c;
}

const GpuSpec* Catalog::FindGpu(std::string_view name) const {
  const std::string key = CatalogKey(name);
  if (auto it = gpu_index_.find(key); it != gpu_index_.end()) {
    return &data_.gpus[it->second];
  }
  auto it = family_index_.find(key);
  return it == family_index_.end() ? nullptr : &data_.gpus[it->second];
}

Result<const GpuSpec*> Catalog::LookupGpu(std::string_view name) const {
  FRUGAL_ASSIGN_OR_RETURN(GpuMatch m, ResolveGpu(name));
  return m.gpu;
}

Result<Catalog::GpuMatch> Catalog::ResolveGpu(std::string_view name) const {
  const std::string key = CatalogKey(name);
  if (auto it = gpu_index_.find(key); it != gpu_index_.end()) {
    return GpuMatch{&data_.gpus[it->second], ""};
  }
  if (auto it = family_index_.find(key); it != family_index_.end()) {
    const GpuSpec& g = data_.gpus[it->second];
    std::vector<std::string> others;
    for (const std::string& m : FamilyMembers(data_.gpus, key)) {
      if (m != g.name) others.push_back(m);
    }
    std::string note = fmt::format("\"{}\" taken as {}, the variant clouds rent most",
                                   name, g.name);
    if (!others.empty()) {
      note += fmt::format("; name one of {} for another variant", Join(others));
    }
    return GpuMatch{&g, note};
  }
  std::vector<NameCandidate> candidates;
  for (const GpuSpec& g : data_.gpus) {
    candidates.push_back({g.name, g.name});
    for (const std::string& a : g.aliases) candidates.push_back({a, g.name});
    for (const std::string& a : g.default_for) candidates.push_back({a, g.name});
  }
  return NotFound("unknown GPU \"" + std::string(name) + "\"; closest: " +
                  Join(ClosestNames(name, candidates, kNamesInError)) +
                  " (`frugal catalog list --gpus` lists all)");
}

const InstanceSpec* Catalog::FindInstance(std::string_view name) const {
  auto it = instance_index_.find(CatalogKey(name));
  return it == instance_index_.end() ? nullptr : &data_.instances[it->second];
}

Result<const InstanceSpec*> Catalog::LookupInstance(
    std::string_view name) const {
  if (const InstanceSpec* i = FindInstance(name)) return i;
  std::vector<NameCandidate> candidates;
  for (const InstanceSpec& i : data_.instances) candidates.push_back({i.name, i.name});
  return NotFound("unknown instance \"" + std::string(name) + "\"; closest: " +
                  Join(ClosestNames(name, candidates, kNamesInError)) +
                  " (`frugal catalog list --instances` lists all)");
}

const SourceRef* Catalog::FindReference(std::string_view id) const {
  auto it = data_.references.find(std::string(id));
  return it == data_.references.end() ? nullptr : &it->second;
}

}  // namespace frugal
