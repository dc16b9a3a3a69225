#include "frugal/share/k8s/objects.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace frugal::share::k8s {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

const nlohmann::json* FindObject(const nlohmann::json& parent, std::string_view key) {
  const nlohmann::json* v = FindKey(parent, key);
  return v != nullptr && v->is_object() ? v : nullptr;
}

std::string StringAt(const nlohmann::json& parent, std::string_view key) {
  const nlohmann::json* v = FindKey(parent, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

// A quantity written as a JSON string or number.
Result<double> QuantityOf(const nlohmann::json& v, std::string_view what) {
  if (v.is_number()) {
    const double d = v.get<double>();
    if (!(d >= 0) || d > 1e18) return InvalidArgument(std::string(what) + ": bad quantity");
    return d;
  }
  if (!v.is_string()) return InvalidArgument(std::string(what) + ": quantity is not a string");
  auto q = ParseQuantity(v.get<std::string>());
  if (!q.ok()) return q.status().WithPrefix(std::string(what));
  return q;
}

// A resource list (requests, limits, allocatable): the quantity of `name`,
// or nullopt when absent.
Result<std::optional<double>> ResourceOf(const nlohmann::json* list, std::string_view name) {
  if (list == nullptr) return std::optional<double>();
  const nlohmann::json* v = FindKey(*list, name);
  if (v == nullptr) return std::optional<double>();
  auto q = QuantityOf(*v, name);
  if (!q.ok()) return q.status();
  return std::optional<double>(*q);
}

// The quantity a non-negative integer count must be.
Result<int64_t> CountOf(double q, std::string_view what) {
  if (q != std::floor(q) || q > 1e9) {
    return InvalidArgument(std::string(what) + ": not a whole number");
  }
  return static_cast<int64_t>(q);
}

struct Requests {
  double cpu = 0, memory = 0;
  std::optional<double> gpu_milli, gpu_count, nvidia_gpu;
};

// One container's requests, a limit standing for a missing request.
Result<Requests> ContainerRequests(const nlohmann::json& c) {
  Requests r;
  const nlohmann::json* resources = FindObject(c, "resources");
  const nlohmann::json* requests = resources ? FindObject(*resources, "requests") : nullptr;
  const nlohmann::json* limits = resources ? FindObject(*resources, "limits") : nullptr;
  auto one = [&](std::string_view name) -> Result<std::optional<double>> {
    auto q = ResourceOf(requests, name);
    if (!q.ok() || q->has_value()) return q;
    return ResourceOf(limits, name);
  };
  auto cpu = one("cpu");
  if (!cpu.ok()) return cpu.status();
  auto mem = one("memory");
  if (!mem.ok()) return mem.status();
  auto milli = one(kGpuMilliKey);
  if (!milli.ok()) return milli.status();
  auto count = one(kGpuCountKey);
  if (!count.ok()) return count.status();
  auto nvidia = one(kNvidiaGpuKey);
  if (!nvidia.ok()) return nvidia.status();
  r.cpu = cpu->value_or(0);
  r.memory = mem->value_or(0);
  r.gpu_milli = *milli;
  r.gpu_count = *count;
  r.nvidia_gpu = *nvidia;
  return r;
}

void AddOptional(std::optional<double>& into, const std::optional<double>& v) {
  if (v) into = into.value_or(0) + *v;
}

Result<Requests> PodRequests(const nlohmann::json& spec) {
  Requests sum;
  if (const nlohmann::json* cs = FindKey(spec, "containers"); cs != nullptr && cs->is_array()) {
    for (const nlohmann::json& c : *cs) {
      if (!c.is_object()) return InvalidArgument("a container is not an object");
      auto r = ContainerRequests(c);
      if (!r.ok()) return r.status();
      sum.cpu += r->cpu;
      sum.memory += r->memory;
      AddOptional(sum.gpu_milli, r->gpu_milli);
      AddOptional(sum.gpu_count, r->gpu_count);
      AddOptional(sum.nvidia_gpu, r->nvidia_gpu);
    }
  }
  // Init containers run one at a time before the others: the pod needs
  // the largest of them or the sum of the rest, whichever is more.
  if (const nlohmann::json* cs = FindKey(spec, "initContainers"); cs != nullptr && cs->is_array()) {
    for (const nlohmann::json& c : *cs) {
      if (!c.is_object()) return InvalidArgument("an init container is not an object");
      auto r = ContainerRequests(c);
      if (!r.ok()) return r.status();
      sum.cpu = std::max(sum.cpu, r->cpu);
      sum.memory = std::max(sum.memory, r->memory);
    }
  }
  if (const nlohmann::json* over = FindObject(spec, "overhead"); over != nullptr) {
    auto cpu = ResourceOf(over, "cpu");
    if (!cpu.ok()) return cpu.status();
    auto mem = ResourceOf(over, "memory");
    if (!mem.ok()) return mem.status();
    sum.cpu += cpu->value_or(0);
    sum.memory += mem->value_or(0);
  }
  return sum;
}

// An annotation's value as a quantity, or nullopt when absent.
Result<std::optional<double>> AnnotationQuantity(const nlohmann::json* annotations,
                                                 std::string_view key) {
  if (annotations == nullptr) return std::optional<double>();
  const nlohmann::json* v = FindKey(*annotations, key);
  if (v == nullptr) return std::optional<double>();
  if (!v->is_string()) return InvalidArgument(std::string(key) + ": annotation is not a string");
  auto q = ParseQuantity(v->get<std::string>());
  if (!q.ok()) return q.status().WithPrefix(std::string(key));
  return std::optional<double>(*q);
}

Status FillGpus(const nlohmann::json* annotations, const Requests& req, PodSpec* spec) {
  auto a_milli = AnnotationQuantity(annotations, kGpuMilliKey);
  if (!a_milli.ok()) return a_milli.status();
  auto a_count = AnnotationQuantity(annotations, kGpuCountKey);
  if (!a_count.ok()) return a_count.status();
  // FGD's simulator writes the annotations; a real pod asks through its
  // containers' resources. Either source, annotations first.
  std::optional<double> milli = *a_milli ? *a_milli : req.gpu_milli;
  std::optional<double> count = *a_count ? *a_count : req.gpu_count;
  if (req.nvidia_gpu && *req.nvidia_gpu > 0) {
    if ((milli && *milli > 0) || (count && *count > 0)) {
      return InvalidArgument(std::string("asks for both ") + kNvidiaGpuKey + " and " +
                             kGpuCountKey + " / " + kGpuMilliKey);
    }
    count = req.nvidia_gpu;
    milli = kMilliPerGpu;
  }
  int64_t n = 0, m = 0;
  if (count) {
    auto c = CountOf(*count, kGpuCountKey);
    if (!c.ok()) return c.status();
    n = *c;
  }
  if (milli) {
    auto c = CountOf(*milli, kGpuMilliKey);
    if (!c.ok()) return c.status();
    m = *c;
  }
  if (n == 0 && m > 0) n = 1;  // gpu-milli alone: a share of one GPU
  if (n > 0 && !milli) m = kMilliPerGpu;
  if (n == 0) return Status::Ok();
  if (n > kMaxGpusPerNode) {
    return InvalidArgument("asks for " + std::to_string(n) + " GPUs (at most " +
                           std::to_string(kMaxGpusPerNode) + ")");
  }
  if (m < 1 || m > kMilliPerGpu) {
    return InvalidArgument(std::string(kGpuMilliKey) + " " + std::to_string(m) +
                           " is outside 1..1000");
  }
  if (n > 1 && m < kMilliPerGpu) {
    return InvalidArgument("a shared GPU (" + std::to_string(m) + " milli) asked of " +
                           std::to_string(n) + " GPUs");
  }
  spec->num_gpu = static_cast<int>(n);
  spec->gpu_milli = static_cast<int>(m);
  return Status::Ok();
}

Status FillModels(const nlohmann::json* annotations, GpuModelTable* models, PodSpec* spec) {
  if (annotations == nullptr) return Status::Ok();
  const nlohmann::json* v = FindKey(*annotations, kGpuModelKey);
  if (v == nullptr) return Status::Ok();
  if (!v->is_string()) return InvalidArgument(std::string(kGpuModelKey) + ": not a string");
  spec->gpu_spec = v->get<std::string>();
  std::string_view rest = spec->gpu_spec;
  while (!rest.empty()) {
    const size_t bar = rest.find('|');
    const std::string_view name = rest.substr(0, bar);
    if (!name.empty()) {
      auto id = models->Intern(name);
      if (!id.ok()) return id.status();
      spec->models |= ModelMask{1} << *id;
    }
    if (bar == std::string_view::npos) break;
    rest.remove_prefix(bar + 1);
  }
  return Status::Ok();
}

int64_t MilliCpu(double cores, bool round_up) {
  const double m = cores * 1000.0;
  return static_cast<int64_t>(round_up ? std::ceil(m - 1e-6) : std::floor(m + 1e-6));
}

int64_t Mib(double bytes, bool round_up) {
  const double m = bytes / (1024.0 * 1024.0);
  return static_cast<int64_t>(round_up ? std::ceil(m - 1e-9) : std::floor(m + 1e-9));
}

}  // namespace

const nlohmann::json* FindKey(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto exact = object.find(key);
  if (exact != object.end()) return &*exact;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (EqualsIgnoreCase(it.key(), key)) return &it.value();
  }
  return nullptr;
}

Result<double> ParseQuantity(std::string_view text) {
  auto bad = [&]() { return InvalidArgument("bad quantity '" + std::string(text.substr(0, 40)) + "'"); };
  size_t i = 0;
  if (i < text.size() && text[i] == '+') ++i;
  const size_t num_begin = i;
  size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, ++digits;
  }
  if (digits == 0) return bad();
  const std::string number(text.substr(num_begin, i - num_begin));
  const std::string_view suffix = text.substr(i);
  double scale = 1;
  static const std::pair<const char*, double> kSuffixes[] = {
      {"Ki", 1024.0},     {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
      {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0},
      {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
      {"P", 1e15}, {"E", 1e18}};
  if (!suffix.empty()) {
    bool found = false;
    for (const auto& [s, f] : kSuffixes) {
      if (suffix == s) {
        scale = f;
        found = true;
        break;
      }
    }
    if (!found) {
      // A decimal exponent: e3, E-2.
      if (suffix[0] != 'e' && suffix[0] != 'E') return bad();
      int exp = 0;
      std::string_view e = suffix.substr(1);
      if (!e.empty() && e[0] == '+') e.remove_prefix(1);
      const auto [p, ec] = std::from_chars(e.data(), e.data() + e.size(), exp);
      if (ec != std::errc() || p != e.data() + e.size() || e.empty() || exp < -18 || exp > 18) {
        return bad();
      }
      scale = std::pow(10.0, exp);
    }
  }
  const double v = std::strtod(number.c_str(), nullptr) * scale;
  if (!std::isfinite(v) || v > 1e18) return bad();
  return v;
}

Result<GpuSet> ParseGpuIndex(std::string_view text) {
  GpuSet set = 0;
  std::string_view rest = text;
  while (true) {
    const size_t dash = rest.find('-');
    const std::string_view part = rest.substr(0, dash);
    int g = -1;
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), g);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size() || g < 0 ||
        g >= kMaxGpusPerNode || ((set >> g) & 1u)) {
      return InvalidArgument(std::string(kGpuIndexKey) + ": bad GPU list '" +
                             std::string(text.substr(0, 40)) + "'");
    }
    set |= GpuSet{1} << g;
    if (dash == std::string_view::npos) break;
    rest.remove_prefix(dash + 1);
  }
  return set;
}

std::string GpuIndexString(GpuSet gpus) {
  std::string out;
  for (int i = 0; i < kMaxGpusPerNode; ++i) {
    if (((gpus >> i) & 1u) == 0) continue;
    if (!out.empty()) out += '-';
    out += std::to_string(i);
  }
  return out;
}

Result<Node> NodeFromJson(const nlohmann::json& object, GpuModelTable* models) {
  if (!object.is_object()) return InvalidArgument("node: not a JSON object");
  const nlohmann::json* meta = FindObject(object, "metadata");
  Node node;
  node.spec.name = meta ? StringAt(*meta, "name") : "";
  if (node.spec.name.empty()) return InvalidArgument("node: no metadata.name");
  auto fail = [&](const Status& s) { return s.WithPrefix("node " + node.spec.name); };
  if (const nlohmann::json* spec = FindObject(object, "spec")) {
    if (const nlohmann::json* u = FindKey(*spec, "unschedulable"); u && u->is_boolean()) {
      node.schedulable = !u->get<bool>();
    }
  }
  const nlohmann::json* status = FindObject(object, "status");
  const nlohmann::json* alloc = status ? FindObject(*status, "allocatable") : nullptr;
  if (alloc == nullptr && status != nullptr) alloc = FindObject(*status, "capacity");
  auto cpu = ResourceOf(alloc, "cpu");
  if (!cpu.ok()) return fail(cpu.status());
  auto mem = ResourceOf(alloc, "memory");
  if (!mem.ok()) return fail(mem.status());
  auto count = ResourceOf(alloc, kGpuCountKey);
  if (!count.ok()) return fail(count.status());
  auto nvidia = ResourceOf(alloc, kNvidiaGpuKey);
  if (!nvidia.ok()) return fail(nvidia.status());
  node.spec.cpu_milli = MilliCpu(cpu->value_or(0), false);
  node.spec.memory_mib = Mib(mem->value_or(0), false);
  const double gpus = count->value_or(nvidia->value_or(0));
  auto n = CountOf(gpus, "GPU count");
  if (!n.ok()) return fail(n.status());
  if (*n > kMaxGpusPerNode) {
    return fail(InvalidArgument(std::to_string(*n) + " GPUs (at most " +
                                std::to_string(kMaxGpusPerNode) + ")"));
  }
  node.spec.num_gpus = static_cast<int>(*n);
  if (node.spec.num_gpus > 0) {
    const nlohmann::json* labels = meta ? FindObject(*meta, "labels") : nullptr;
    std::string model = labels ? StringAt(*labels, kGpuModelKey) : "";
    if (model.empty() && labels) model = StringAt(*labels, kNvidiaProductKey);
    // An unlabelled GPU node serves pods that name no model.
    if (!model.empty()) {
      auto id = models->Intern(model);
      if (!id.ok()) return fail(id.status());
      node.spec.model = *id;
    }
  }
  return node;
}

Result<Pod> PodFromJson(const nlohmann::json& object, GpuModelTable* models) {
  if (!object.is_object()) return InvalidArgument("pod: not a JSON object");
  const nlohmann::json* meta = FindObject(object, "metadata");
  Pod pod;
  if (meta != nullptr) {
    pod.name = StringAt(*meta, "name");
    pod.uid = StringAt(*meta, "uid");
    if (std::string ns = StringAt(*meta, "namespace"); !ns.empty()) pod.namespace_name = ns;
    if (const nlohmann::json* d = FindKey(*meta, "deletionTimestamp"); d && !d->is_null()) {
      pod.terminal = true;
    }
  }
  if (pod.name.empty()) return InvalidArgument("pod: no metadata.name");
  pod.spec.name = pod.Key();
  auto fail = [&](const Status& s) { return s.WithPrefix("pod " + pod.Key()); };
  const nlohmann::json* spec = FindObject(object, "spec");
  if (spec == nullptr) return fail(InvalidArgument("no spec"));
  pod.node_name = StringAt(*spec, "nodeName");
  if (const nlohmann::json* status = FindObject(object, "status")) {
    pod.spec.phase = StringAt(*status, "phase");
    if (pod.spec.phase == "Succeeded" || pod.spec.phase == "Failed") pod.terminal = true;
  }
  auto req = PodRequests(*spec);
  if (!req.ok()) return fail(req.status());
  pod.spec.cpu_milli = MilliCpu(req->cpu, true);
  pod.spec.memory_mib = Mib(req->memory, true);
  const nlohmann::json* annotations = meta ? FindObject(*meta, "annotations") : nullptr;
  if (Status s = FillGpus(annotations, *req, &pod.spec); !s.ok()) return fail(s);
  if (Status s = FillModels(annotations, models, &pod.spec); !s.ok()) return fail(s);
  if (annotations != nullptr) {
    if (const nlohmann::json* v = FindKey(*annotations, kGpuIndexKey); v != nullptr) {
      if (!v->is_string()) return fail(InvalidArgument(std::string(kGpuIndexKey) + ": not a string"));
      auto set = ParseGpuIndex(v->get<std::string>());
      if (!set.ok()) return fail(set.status());
      if (std::popcount(*set) != pod.spec.num_gpu) {
        return fail(InvalidArgument(std::string(kGpuIndexKey) + " names " +
                                    std::to_string(std::popcount(*set)) + " GPUs, the pod asks " +
                                    std::to_string(pod.spec.num_gpu)));
      }
      pod.gpus = *set;
    }
  }
  return pod;
}

Result<const nlohmann::json*> ListItems(const nlohmann::json& list, const std::string& source) {
  const nlohmann::json* items = FindKey(list, "items");
  if (items == nullptr || !(items->is_array() || items->is_null())) {
    return InvalidArgument(source + ": not a list (no items array)");
  }
  return items;
}

namespace {

template <typename T, typename F>
Result<std::vector<T>> ItemsOf(const nlohmann::json& list, const std::string& source, F parse) {
  auto found = ListItems(list, source);
  if (!found.ok()) return found.status();
  const nlohmann::json* items = *found;
  std::vector<T> out;
  if (items->is_null()) return out;
  out.reserve(items->size());
  for (const nlohmann::json& item : *items) {
    auto one = parse(item);
    if (!one.ok()) return one.status().WithPrefix(source);
    out.push_back(std::move(*one));
  }
  return out;
}

}  // namespace

Result<std::vector<Node>> NodesFromList(const nlohmann::json& list, GpuModelTable* models,
                                        const std::string& source) {
  return ItemsOf<Node>(list, source, [&](const nlohmann::json& j) { return NodeFromJson(j, models); });
}

Result<std::vector<Pod>> PodsFromList(const nlohmann::json& list, GpuModelTable* models,
                                      const std::string& source) {
  return ItemsOf<Pod>(list, source, [&](const nlohmann::json& j) { return PodFromJson(j, models); });
}

}  // namespace frugal::share::k8s
