#include "frugal/share/k8s/server.h"

#include <chrono>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>

#include "frugal/share/k8s/watch.h"

namespace frugal::share::k8s {
namespace {

// Candidate node names of ExtenderArgs: NodeNames (nodeCacheCapable) or
// the names of Nodes.items.
std::vector<std::string> CandidateNames(const nlohmann::json& args) {
  std::vector<std::string> out;
  if (const nlohmann::json* names = FindKey(args, "nodenames"); names && names->is_array()) {
    for (const auto& n : *names) {
      if (n.is_string()) out.push_back(n.get<std::string>());
    }
    return out;
  }
  const nlohmann::json* nodes = FindKey(args, "nodes");
  const nlohmann::json* items = nodes ? FindKey(*nodes, "items") : nullptr;
  if (items == nullptr || !items->is_array()) return out;
  for (const auto& n : *items) {
    const nlohmann::json* meta = FindKey(n, "metadata");
    const nlohmann::json* name = meta ? FindKey(*meta, "name") : nullptr;
    out.push_back(name && name->is_string() ? name->get<std::string>() : "");
  }
  return out;
}

std::string StringField(const nlohmann::json& args, std::string_view key) {
  const nlohmann::json* v = FindKey(args, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

nlohmann::json ErrorJson(const std::string& message) { return {{"error", message}}; }

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Parses each item on its own, so that one malformed object costs only
// itself; returns how many were skipped and the first reason.
template <typename T, typename F>
std::vector<T> LenientItems(const nlohmann::json& list, F parse, int* skipped, std::string* first) {
  std::vector<T> out;
  const nlohmann::json* items = FindKey(list, "items");
  if (items == nullptr || !items->is_array()) return out;
  for (const auto& item : *items) {
    auto one = parse(item);
    if (one.ok()) {
      out.push_back(std::move(*one));
    } else {
      if (first->empty()) *first = one.status().message();
      ++*skipped;
    }
  }
  return out;
}

}  // namespace

ExtenderServer::ExtenderServer(Extender* extender, ApiClient* api, ServerOptions options)
    : extender_(extender),
      api_(api),
      options_(std::move(options)),
      http_(std::make_unique<httplib::Server>()) {
  // httplib's default also sets SO_REUSEPORT, which would let a second
  // extender share the port silently; a port in use must be an error.
  http_->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  auto json_body = [](httplib::Response& res, const nlohmann::json& j) {
    res.set_content(j.dump(), "application/json");
  };
  auto parse = [](const httplib::Request& req, nlohmann::json* out) {
    *out = nlohmann::json::parse(req.body, nullptr, false);
    return !out->is_discarded();
  };
  http_->Post(R"((.*)/filter)", [=, this](const httplib::Request& req, httplib::Response& res) {
    nlohmann::json args;
    if (!parse(req, &args)) return json_body(res, ErrorJson("filter: the request is not JSON"));
    json_body(res, Filter(args));
  });
  http_->Post(R"((.*)/prioritize)", [=, this](const httplib::Request& req,
                                               httplib::Response& res) {
    nlohmann::json args;
    if (!parse(req, &args)) {
      res.status = 400;
      return res.set_content("prioritize: the request is not JSON", "text/plain");
    }
    auto r = Prioritize(args);
    if (!r.ok()) {
      res.status = 500;
      return res.set_content(r.status().message(), "text/plain");
    }
    json_body(res, *r);
  });
  http_->Post(R"((.*)/bind)", [=, this](const httplib::Request& req, httplib::Response& res) {
    nlohmann::json args;
    if (!parse(req, &args)) return json_body(res, ErrorJson("bind: the request is not JSON"));
    json_body(res, BindPod(args));
  });
  http_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok", "text/plain");
  });
  http_->Get("/state", [=, this](const httplib::Request&, httplib::Response& res) {
    json_body(res, State());
  });
}

ExtenderServer::~ExtenderServer() = default;

void ExtenderServer::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

double ExtenderServer::Now() const {
  return options_.clock ? options_.clock() : WallSeconds();
}

Result<int> ExtenderServer::Bind() {
  const std::string where = fmt::format("{}:{}", options_.host, options_.port);
  if (options_.port < 0 || options_.port > 65535) {
    return InvalidArgument("listen address " + where + ": bad port");
  }
  if (options_.port == 0) {
    const int port = http_->bind_to_any_port(options_.host);
    if (port <= 0) return FailedPrecondition("cannot listen on " + options_.host + " (any port)");
    return port;
  }
  if (!http_->bind_to_port(options_.host, options_.port)) {
    return FailedPrecondition("cannot listen on " + where + " (in use, or not this host's address)");
  }
  return options_.port;
}

void ExtenderServer::Run() { http_->listen_after_bind(); }

void ExtenderServer::Stop() { http_->stop(); }

void ExtenderServer::set_watch(ClusterWatch* watch) {
  std::lock_guard<std::mutex> lock(mu_);
  options_.watch = watch;
  refreshed_ = false;
}

Status ExtenderServer::Refresh() {
  std::lock_guard<std::mutex> lock(mu_);
  return RefreshLocked();
}

Status ExtenderServer::RefreshLocked() {
  const double t0 = WallSeconds();
  if (options_.watch != nullptr) {
    ClusterWatch::View view = options_.watch->Snapshot(extender_->models());
    if (!view.changed && refreshed_) return Status::Ok();
    SyncLocked(view.nodes, view.pods, view.skipped, view.first_skip, t0, view.departed);
    return Status::Ok();
  }
  auto nodes_json = api_->Get("/api/v1/nodes");
  auto pods_json = nodes_json.ok() ? api_->Get(kBoundPodsPath) : nodes_json;
  const double t1 = WallSeconds();
  api_s_ += t1 - t0;
  if (!pods_json.ok()) return pods_json.status();
  for (const auto& [path, list] : {std::pair{"/api/v1/nodes", &*nodes_json}, {"/api/v1/pods", &*pods_json}}) {
    FRUGAL_RETURN_IF_ERROR(ListItems(*list, "GET " + api_->url() + path).status());
  }
  GpuModelTable* models = extender_->models();
  int skipped = 0;
  std::string first;
  auto nodes = LenientItems<Node>(
      *nodes_json, [&](const nlohmann::json& j) { return NodeFromJson(j, models); }, &skipped,
      &first);
  auto pods = LenientItems<Pod>(
      *pods_json, [&](const nlohmann::json& j) { return PodFromJson(j, models); }, &skipped,
      &first);
  SyncLocked(nodes, pods, skipped, first, t1);
  return Status::Ok();
}

void ExtenderServer::SyncLocked(const std::vector<Node>& nodes, const std::vector<Pod>& pods,
                                int skipped, const std::string& first_skip, double since,
                                const std::vector<std::string>& departed) {
  if (skipped != skipped_objects_ && skipped > 0) {
    Log(fmt::format("skipping {} object(s) the extender cannot read; first: {}", skipped, first_skip));
  }
  skipped_objects_ = skipped;
  const int short_charged = extender_->Sync(nodes, pods, Now(), departed);
  if (short_charged != short_charged_ && short_charged > 0) {
    Log(fmt::format("{} bound pod(s) do not fit their node's free resources in full (bound by "
                    "another scheduler, or the node shrank)",
                    short_charged));
  }
  short_charged_ = short_charged;
  sync_s_ += WallSeconds() - since;
  ++syncs_;
  refreshed_ = true;
  last_refresh_ = Now();
}

Result<Pod> ExtenderServer::PodOf(const nlohmann::json& args) {
  const nlohmann::json* pod = FindKey(args, "pod");
  if (pod == nullptr) return InvalidArgument("no pod in the request");
  return PodFromJson(*pod, extender_->models());
}

nlohmann::json ExtenderServer::Filter(const nlohmann::json& args) {
  std::lock_guard<std::mutex> lock(mu_);
  ++filters_;
  auto pod = PodOf(args);
  if (!pod.ok()) return ErrorJson("filter: " + pod.status().message());
  if (options_.watch != nullptr || !refreshed_ || Now() - last_refresh_ >= options_.resync_s) {
    if (Status s = RefreshLocked(); !s.ok()) return ErrorJson("filter: " + s.message());
  }
  const std::vector<std::string> candidates = CandidateNames(args);
  const double t0 = WallSeconds();
  const FilterResult r = extender_->Filter(*pod, candidates);
  decide_s_ += WallSeconds() - t0;
  if (!pod->uid.empty()) {
    if (pending_.size() > 10000) pending_.clear();
    pending_[pod->uid] = *pod;
  }
  nlohmann::json out;
  out["nodenames"] = r.nodes;
  nlohmann::json failed = nlohmann::json::object(), unresolvable = nlohmann::json::object();
  for (const auto& [node, why] : r.failed) failed[node] = why;
  for (const auto& [node, why] : r.unresolvable) unresolvable[node] = why;
  out["failedNodes"] = failed;
  out["failedAndUnresolvableNodes"] = unresolvable;
  // A scheduler that sent whole Node objects reads them back.
  if (const nlohmann::json* nodes = FindKey(args, "nodes"); nodes && nodes->is_object() &&
                                                             FindKey(args, "nodenames") == nullptr) {
    nlohmann::json items = nlohmann::json::array();
    const nlohmann::json* in = FindKey(*nodes, "items");
    size_t k = 0;
    for (size_t i = 0; in && in->is_array() && i < in->size() && k < r.nodes.size(); ++i) {
      if (candidates[i] == r.nodes[k]) {
        items.push_back((*in)[i]);
        ++k;
      }
    }
    out["nodes"] = {{"apiVersion", "v1"}, {"kind", "NodeList"}, {"items", items}};
  }
  if (r.nodes.empty()) Log("filter " + pod->Key() + ": no node fits");
  return out;
}

Result<nlohmann::json> ExtenderServer::Prioritize(const nlohmann::json& args) {
  std::lock_guard<std::mutex> lock(mu_);
  auto pod = PodOf(args);
  if (!pod.ok()) return pod.status().WithPrefix("prioritize");
  nlohmann::json out = nlohmann::json::array();
  for (const HostScore& h : extender_->Prioritize(*pod, CandidateNames(args))) {
    out.push_back({{"host", h.host}, {"score", h.score}});
  }
  return out;
}

nlohmann::json ExtenderServer::BindPod(const nlohmann::json& args) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string name = StringField(args, "podName");
  const std::string ns = StringField(args, "podNamespace").empty()
                             ? std::string("default")
                             : StringField(args, "podNamespace");
  const std::string uid = StringField(args, "podUID");
  const std::string node = StringField(args, "node");
  if (name.empty() || node.empty()) return ErrorJson("bind: podName and node are required");
  Pod pod;
  if (auto it = pending_.find(uid); !uid.empty() && it != pending_.end()) {
    pod = it->second;
  } else {
    auto j = api_->Get("/api/v1/namespaces/" + ns + "/pods/" + name);
    if (!j.ok()) return ErrorJson("bind: " + j.status().message());
    auto p = PodFromJson(*j, extender_->models());
    if (!p.ok()) return ErrorJson("bind: " + p.status().message());
    pod = std::move(*p);
  }
  auto fail = [&](const std::string& message) {
    ++bind_failures_;
    Log("bind " + ns + "/" + name + " -> " + node + " failed: " + message);
    return ErrorJson(message);
  };
  const double t0 = WallSeconds();
  auto b = extender_->Bind(pod, node, Now());
  decide_s_ += WallSeconds() - t0;
  if (!b.ok()) return fail(b.status().message());
  if (b->gpus != 0) {
    const std::map<std::string, std::string> annotations = {
        {kGpuIndexKey, GpuIndexString(b->gpus)},
        {"alibabacloud.com/assume-time",
         std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count())}};
    if (Status s = api_->AnnotatePod(ns, name, annotations); !s.ok()) {
      extender_->Forget(pod.uid);
      return fail(s.message());
    }
  }
  if (Status s = api_->BindPod(ns, name, uid.empty() ? pod.uid : uid, node); !s.ok()) {
    extender_->Forget(pod.uid);
    return fail(s.message());
  }
  pending_.erase(pod.uid);
  ++binds_;
  Log(fmt::format("bind {}/{} -> {}{}", ns, name, node,
                  b->gpus ? " gpus " + GpuIndexString(b->gpus) : std::string()));
  return nlohmann::json::object();
}

nlohmann::json ExtenderServer::State() {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json nodes = nlohmann::json::array();
  int64_t gpu_milli = 0, free_milli = 0;
  double frag = 0;
  for (const NodeView& v : extender_->Nodes()) {
    std::vector<int> left(v.state.gpu_left.begin(), v.state.gpu_left.begin() + v.state.num_gpus);
    nodes.push_back({{"name", v.name},
                     {"schedulable", v.schedulable},
                     {"gpu_model", extender_->models()->Name(v.state.model)},
                     {"cpu_milli_free", v.state.cpu_left},
                     {"memory_mib_free", v.state.memory_left},
                     {"gpu_milli_free", left},
                     {"frag_gpu_milli", v.frag_milli}});
    gpu_milli += int64_t{v.state.num_gpus} * kMilliPerGpu;
    free_milli += v.state.GpuLeftTotal();
    frag += v.frag_milli;
  }
  return {{"policy", extender_->options().policy},
          {"filter", extender_->options().filter == ExtenderFilter::kBest ? "best" : "fit"},
          {"api", api_->url()},
          {"gpus", gpu_milli / kMilliPerGpu},
          {"unallocated_gpu_pct", gpu_milli ? 100.0 * static_cast<double>(free_milli) /
                                                  static_cast<double>(gpu_milli)
                                            : 0.0},
          {"frag_gpu_pct", gpu_milli ? 100.0 * frag / static_cast<double>(gpu_milli) : 0.0},
          {"decision", extender_->decision()},
          {"assumed_pods", extender_->assumed()},
          {"skipped_objects", skipped_objects_},
          {"filters", filters_},
          {"binds", binds_},
          {"bind_failures", bind_failures_},
          {"syncs", syncs_},
          {"seconds", {{"api", api_s_}, {"sync", sync_s_}, {"decide", decide_s_}}},
          {"watch", WatchJson()},
          {"nodes", nodes}};
}

nlohmann::json ExtenderServer::WatchJson() const {
  if (options_.watch == nullptr) return nullptr;
  const WatchStats w = options_.watch->stats();
  return {{"events", w.events}, {"lists", w.lists}, {"rewatches", w.rewatches}, {"errors", w.errors}};
}

}  // namespace frugal::share::k8s
