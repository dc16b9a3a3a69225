// libFuzzer target for the file readers, one binary for all: the name it
// is run as (fuzz_<reader>, a link to fuzz_readers) picks the reader:
// catalog JSON, topology JSON, cache traces (the first byte picks csv,
// frugal binary or oracleGeneral), Ceer timing CSVs, G-Share JOBS.json,
// cluster traces (node and pod lists), Gavel / Lucid co-location data and
// smartcache model files, the --json results `frugal report` renders, and
// Kubernetes Node / Pod objects and lists (share_k8s: read, then scheduled
// through the extender). Readers that take a
// path get the input through a per-process temporary file. Any input must
// give a value or a Status, never a crash, hang or leak.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "frugal/base/file_io.h"
#include "frugal/cache/policy_registry.h"
#include "frugal/cache/request_trace.h"
#include "frugal/cache/smartcache_model.h"
#include "frugal/cache/trace_reader.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/dataset.h"
#include "frugal/perf/op_time_model.h"
#include "frugal/place/problem.h"
#include "frugal/place/topology.h"
#include "frugal/report/report.h"
#include "frugal/share/colocation_data.h"
#include "frugal/share/jobs_json.h"
#include "frugal/share/k8s/extender.h"
#include "frugal/share/k8s/objects.h"
#include "frugal/share/node_trace.h"
#include "frugal/share/pod_trace.h"
#include "target_name.h"

namespace {

// The reader this process fuzzes, from its program name.
std::string g_reader;

// Writes contents to /tmp/frugal_fuzz_<pid>.<ext> and returns the path.
std::string TempFile(std::string_view contents, const std::string& ext) {
  const std::string path = "/tmp/frugal_fuzz_" + std::to_string(::getpid()) + "." + ext;
  (void)frugal::WriteStringToFile(path, std::string(contents));
  return path;
}

void FuzzTrace(std::string_view data) {
  if (data.empty()) return;
  static const char* const kFormats[][2] = {{"csv", "csv"}, {"frugal", "frt"}, {"oracle", "bin"}};
  const auto& f = kFormats[static_cast<unsigned char>(data[0]) % 3];
  // zstd expands up to ~32,000 times: a 1 MB input can be 30 GB of valid
  // records, real work beyond the fuzzer's time and memory limits. 16 KB
  // compressed (at most ~0.5 GB decompressed) still reaches every branch.
  if (data.size() > 16385 && data.substr(1, 4) == std::string_view("\x28\xb5\x2f\xfd", 4)) return;
  const std::string path = TempFile(data.substr(1), f[1]);
  // The whole-trace loader too (oracleGeneral has its own fast path there).
  (void)frugal::cache::LoadRequestTrace(path, f[0]);
  auto reader = frugal::cache::OpenTrace(path, f[0]);
  if (!reader.ok()) return;
  frugal::cache::TraceEvent ev;
  // Bounded: a reader must end or fail on its own well before this.
  for (int i = 0; i < 1 << 20; ++i) {
    auto more = (*reader)->Next(&ev);
    if (!more.ok() || !*more) break;
  }
}

void FuzzTopology(std::string_view data) {
  auto t = frugal::place::ParseTopology("fuzz.topology.json", std::string(data), 3);
  if (!t.ok()) return;
  const frugal::place::TransferEnvelope envelope(*t);
  (void)envelope.MinMs(1 << 20, -1);
  // A problem on it: the derived fields and the transfer envelope agree.
  frugal::place::PlacementProblem p;
  p.name = "fuzz";
  p.num_devices = 3;
  p.op_names = {"a", "b"};
  p.time_ms = {1, 1};
  p.mem_bytes = {1, 1};
  p.color = {-1, -1};
  p.edges = {{0, 1, 1 << 20, -1}};
  p.device_mem_bytes.assign(3, 1e9);
  p.topology = *t;
  (void)p.Finalize();
}

// Co-location data: the first byte picks Gavel's JSON or Lucid's two CSVs
// (split at the first NUL: colocate_info, then single_data).
void FuzzColocation(std::string_view data) {
  if (data.empty()) return;
  const std::string rest(data.substr(1));
  if (data[0] & 1) {
    auto d = frugal::share::ParseGavel(rest, "fuzz.json");
    (void)d;
    return;
  }
  const size_t nul = rest.find('\0');
  const std::string colo = rest.substr(0, nul);
  const std::string single = nul == std::string::npos ? "" : rest.substr(nul + 1);
  auto d = frugal::share::ParseLucid(colo, single, "colocate_info.csv", "single_data.csv");
  (void)d;
}

// {"nodes": NodeList, "pods": PodList} (or one object, or a quantity):
// every pod the lists hold is filtered and bound onto the nodes.
void FuzzKubernetesObjects(std::string_view data) {
  namespace k8s = frugal::share::k8s;
  (void)k8s::ParseQuantity(data);
  (void)k8s::ParseGpuIndex(data);
  const nlohmann::json j = nlohmann::json::parse(data.begin(), data.end(), nullptr, false);
  if (j.is_discarded()) return;
  frugal::share::GpuModelTable models;
  (void)k8s::NodeFromJson(j, &models);
  (void)k8s::PodFromJson(j, &models);
  const nlohmann::json* nl = k8s::FindKey(j, "nodes");
  const nlohmann::json* pl = k8s::FindKey(j, "pods");
  if (nl == nullptr || pl == nullptr) return;
  auto nodes = k8s::NodesFromList(*nl, &models, "nodes");
  auto pods = k8s::PodsFromList(*pl, &models, "pods");
  // Scheduling is O(nodes x pods) scores; keep each input fast.
  if (!nodes.ok() || !pods.ok() || pods->empty() || nodes->size() * pods->size() > 20000) return;
  std::vector<frugal::share::PodSpec> workload;
  for (const k8s::Pod& p : *pods) workload.push_back(p.spec);
  auto ext = k8s::Extender::Create({}, workload, models);
  if (!ext.ok()) return;
  (*ext)->Sync(*nodes, *pods, 0);
  std::vector<std::string> names;
  for (const k8s::Node& n : *nodes) names.push_back(n.spec.name);
  for (const k8s::Pod& p : *pods) {
    (void)(*ext)->Prioritize(p, names);
    const k8s::FilterResult r = (*ext)->Filter(p, names);
    if (!r.nodes.empty()) (void)(*ext)->Bind(p, r.nodes[0], 1);
  }
  (void)(*ext)->Nodes();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  g_reader = FuzzTargetName(*argc, *argv,
                            {"catalog", "topology", "trace", "share_nodes", "share_pods", "colocation",
                             "timing", "perf_model", "report", "smartcache_model", "share_jobs",
                             "share_k8s"});
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  const std::string& reader = g_reader;
  if (reader == "catalog") {
    auto c = frugal::LoadCatalog(TempFile(data, "json"));
    (void)c;
  } else if (reader == "topology") {
    FuzzTopology(data);
  } else if (reader == "trace") {
    FuzzTrace(data);
  } else if (reader == "share_nodes") {
    frugal::share::GpuModelTable models;
    (void)frugal::share::ReadNodeList(TempFile(data, "csv"), &models);
  } else if (reader == "share_pods") {
    frugal::share::GpuModelTable models;
    (void)frugal::share::ReadPodTrace(TempFile(data, "csv"), &models);
  } else if (reader == "colocation") {
    FuzzColocation(data);
  } else if (reader == "timing") {
    auto d = frugal::LoadTimingCsv(TempFile(data, "csv"));
    (void)d;
  } else if (reader == "perf_model") {
    // First byte picks the encoding: odd = UBJSON (.ubj), even = JSON text.
    if (data.empty()) return 0;
    const char* ext = (static_cast<unsigned char>(data[0]) & 1) ? "ubj" : "json";
    auto m = frugal::LoadOpTimeModel(TempFile(data.substr(1), ext));
    if (m.ok()) {
      frugal::OpShape s;
      s.op = frugal::PerfOp::kAdd;
      s.b = 64;
      s.h = 1024;
      frugal::GpuSpec g;
      g.name = "FuzzGPU";
      g.architecture = "volta";
      g.memory_type = "HBM2";
      g.mem_bw_gbps = 900;
      g.fp32_tflops = 14;
      (void)(*m)->PredictMs(std::span<const frugal::OpShape>(&s, 1), g);
    }
  } else if (reader == "report") {
    // Any JSON a verb could have written, or not: a page or one error line.
    auto r = frugal::report::BuildReport({TempFile(data, "json")});
    (void)r;
  } else if (reader == "smartcache_model") {
    const std::string path = TempFile(data, "json");
    if (frugal::cache::CheckSmartCacheModel(path).ok()) {
      // A model that loads must also predict: replay a few reads with it.
      std::vector<frugal::cache::TraceEvent> ev;
      for (int i = 0; i < 64; ++i) {
        frugal::cache::TraceEvent e;
        e.time_us = i * 1000;
        e.path = "/data/part-" + std::to_string(i % 9) + ".parquet";
        e.size = e.length = 100 + i % 5;
        ev.push_back(e);
      }
      auto t = frugal::cache::LoadRequestTrace(ev, "fuzz");
      frugal::cache::PolicyOptions o;
      o.capacity_bytes = 400;
      o.trace = &*t;
      o.model_path = path;
      auto p = frugal::cache::MakePolicy("smartcache", o);
      if (p.ok()) {
        for (size_t i = 0; i < t->requests.size(); ++i) (*p)->Access(t->requests[i], static_cast<int64_t>(i));
      }
    }
  } else if (reader == "share_jobs") {
    auto w = frugal::share::ParseJobsJson(data, "fuzz.jobs.json");
    if (w.ok()) (void)frugal::share::JobsToJson(*w);
  } else if (reader == "share_k8s") {
    FuzzKubernetesObjects(data);
  }
  return 0;
}
