#include "frugal/share/k8s/watch.h"

#include <chrono>
#include <utility>

namespace frugal::share::k8s {
namespace {

constexpr size_t kMaxDeparted = 100000;

// An object's key: namespace/name (a node's namespace is empty).
std::string KeyOf(const nlohmann::json& object) {
  const nlohmann::json* meta = FindKey(object, "metadata");
  if (meta == nullptr || !meta->is_object()) return {};
  const nlohmann::json* name = FindKey(*meta, "name");
  const nlohmann::json* ns = FindKey(*meta, "namespace");
  if (name == nullptr || !name->is_string()) return {};
  return (ns && ns->is_string() ? ns->get<std::string>() : std::string()) + "/" + name->get<std::string>();
}

std::string VersionOf(const nlohmann::json& object) {
  const nlohmann::json* meta = FindKey(object, "metadata");
  const nlohmann::json* v = meta && meta->is_object() ? FindKey(*meta, "resourceVersion") : nullptr;
  return v && v->is_string() ? v->get<std::string>() : "";
}

std::string WatchPath(const std::string& list_path, const std::string& version) {
  const char sep = list_path.find('?') == std::string::npos ? '?' : '&';
  return list_path + sep + "watch=1&allowWatchBookmarks=true&resourceVersion=" + version;
}

// Reads the dirty keys of one kind into `parsed` / `errors`.
template <typename T, typename F>
void ReadDirty(std::map<std::string, bool>& dirty, const std::map<std::string, nlohmann::json>& raw,
               std::map<std::string, T>& parsed, std::map<std::string, std::string>& errors, F parse) {
  for (const auto& [key, present] : dirty) {
    parsed.erase(key);
    errors.erase(key);
    if (!present) continue;
    auto one = parse(raw.at(key));
    if (one.ok()) {
      parsed.emplace(key, std::move(*one));
    } else {
      errors.emplace(key, one.status().message());
    }
  }
  dirty.clear();
}

}  // namespace

ClusterWatch::ClusterWatch(ApiOptions api, std::function<void(const std::string&)> log)
    : api_options_(std::move(api)), log_(std::move(log)) {
  nodes_.list_path = "/api/v1/nodes";
  pods_.list_path = kBoundPodsPath;
}

ClusterWatch::~ClusterWatch() { Stop(); }

void ClusterWatch::Log(const std::string& line) const {
  if (log_) log_(line);
}

void ClusterWatch::Touch() {
  ++generation_;
  changed_.notify_all();
}

Status ClusterWatch::List(ApiClient& api, Kind& kind) {
  auto list = api.Get(kind.list_path);
  if (!list.ok()) return list.status();
  auto found = ListItems(*list, "GET " + api.url() + kind.list_path);
  if (!found.ok()) return found.status();
  const nlohmann::json* items = *found;
  std::map<std::string, nlohmann::json> raw;
  if (items->is_array()) {
    for (const auto& item : *items) raw[KeyOf(item)] = item;
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, object] : kind.raw) {
    if (!raw.count(key)) kind.dirty[key] = false;
  }
  for (const auto& [key, object] : raw) kind.dirty[key] = true;
  kind.raw = std::move(raw);
  kind.version = VersionOf(*list);
  ++stats_.lists;
  Touch();
  return Status::Ok();
}

bool ClusterWatch::Apply(Kind& kind, const std::string& line) {
  const nlohmann::json event = nlohmann::json::parse(line, nullptr, false);
  const nlohmann::json* type = event.is_object() ? FindKey(event, "type") : nullptr;
  const nlohmann::json* object = event.is_object() ? FindKey(event, "object") : nullptr;
  if (type == nullptr || !type->is_string() || object == nullptr || !object->is_object()) {
    Log("watch " + kind.list_path + ": skipping an event that is not {type, object}");
    return true;
  }
  const std::string t = type->get<std::string>();
  if (t == "ERROR") {  // a Status; 410 Gone: the version is too old
    const nlohmann::json* code = FindKey(*object, "code");
    const nlohmann::json* message = FindKey(*object, "message");
    Log("watch " + kind.list_path + ": the API server ended it (" +
        (code && code->is_number() ? std::to_string(code->get<int>()) : std::string("error")) +
        (message && message->is_string() ? ": " + message->get<std::string>() : std::string()) +
        "); listing again");
    std::lock_guard<std::mutex> lock(mu_);
    kind.version.clear();
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (const std::string v = VersionOf(*object); !v.empty()) kind.version = v;
  if (t == "BOOKMARK") return true;
  const std::string key = KeyOf(*object);
  if (t == "ADDED" || t == "MODIFIED") {
    kind.raw[key] = *object;
    kind.dirty[key] = true;
  } else if (t == "DELETED") {
    kind.raw.erase(key);
    kind.dirty[key] = false;
    if (&kind == &pods_) {
      const nlohmann::json* meta = FindKey(*object, "metadata");
      const nlohmann::json* uid = meta && meta->is_object() ? FindKey(*meta, "uid") : nullptr;
      // Bounded for a caller that never takes a Snapshot.
      if (departed_.size() >= kMaxDeparted) departed_.clear();
      if (uid && uid->is_string()) departed_.push_back(uid->get<std::string>());
    }
  } else {
    return true;
  }
  ++stats_.events;
  Touch();
  return true;
}

void ClusterWatch::Loop(Kind& kind) {
  auto client = ApiClient::Create(api_options_);
  if (!client.ok()) return Log("watch: " + client.status().message());
  ApiClient& api = **client;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    active_.push_back(&api);
  }
  auto pause = [&] {  // a second, or until Stop
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_.load(); });
  };
  while (!stop_) {
    std::string version;
    {
      std::lock_guard<std::mutex> lock(mu_);
      version = kind.version;
    }
    if (version.empty()) {
      if (Status s = List(api, kind); !s.ok()) {
        if (stop_) break;
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++stats_.errors;
        }
        Log("watch: " + s.message() + "; retrying in 1 s");
        pause();
      }
      continue;
    }
    const Status s = api.Watch(WatchPath(kind.list_path, version),
                               [&](const std::string& line) { return !stop_ && Apply(kind, line); });
    if (stop_) break;
    if (s.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.rewatches;
      continue;
    }
    Log("watch: " + s.message() + "; watching again");
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.errors;
      // A watch the server refuses outright (a version it does not know,
      // say) is listed again.
      if (s.code() == StatusCode::kInvalidArgument) kind.version.clear();
    }
    pause();
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::erase(active_, &api);
}

Status ClusterWatch::Start() {
  {
    auto client = ApiClient::Create(api_options_);
    if (!client.ok()) return client.status();
    FRUGAL_RETURN_IF_ERROR(List(**client, nodes_));
    FRUGAL_RETURN_IF_ERROR(List(**client, pods_));
  }
  stop_ = false;
  threads_.emplace_back([this] { Loop(nodes_); });
  threads_.emplace_back([this] { Loop(pods_); });
  return Status::Ok();
}

void ClusterWatch::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    for (ApiClient* api : active_) api->Cancel();
    changed_.notify_all();
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

ClusterWatch::View ClusterWatch::Snapshot(GpuModelTable* models) {
  std::lock_guard<std::mutex> lock(mu_);
  View v;
  v.changed = first_snapshot_ || generation_ != snapshot_generation_;
  first_snapshot_ = false;
  snapshot_generation_ = generation_;
  ReadDirty(nodes_.dirty, nodes_.raw, parsed_nodes_, node_errors_,
            [&](const nlohmann::json& j) { return NodeFromJson(j, models); });
  ReadDirty(pods_.dirty, pods_.raw, parsed_pods_, pod_errors_,
            [&](const nlohmann::json& j) { return PodFromJson(j, models); });
  for (const auto& [key, node] : parsed_nodes_) v.nodes.push_back(node);
  for (const auto& [key, pod] : parsed_pods_) v.pods.push_back(pod);
  v.departed.swap(departed_);
  v.skipped = static_cast<int>(node_errors_.size() + pod_errors_.size());
  if (!node_errors_.empty()) {
    v.first_skip = node_errors_.begin()->second;
  } else if (!pod_errors_.empty()) {
    v.first_skip = pod_errors_.begin()->second;
  }
  return v;
}

uint64_t ClusterWatch::WaitChange(uint64_t generation, double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                    [&] { return generation_ != generation || stop_.load(); });
  return generation_;
}

uint64_t ClusterWatch::generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

WatchStats ClusterWatch::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace frugal::share::k8s
