// Tests only: an in-process stand-in for the Kubernetes API server, for
// the calls the extender makes — list nodes and pods (with resource
// versions), watch them (ADDED / MODIFIED / DELETED, a pod that leaves the
// bound-and-unfinished selector as DELETED, 410 Gone on demand), get a pod, merge-patch it, bind it — with an optional bearer
// token.
#ifndef FRUGAL_SHARE_K8S_FAKE_API_TEST_UTIL_H_
#define FRUGAL_SHARE_K8S_FAKE_API_TEST_UTIL_H_

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "frugal/share/k8s/objects.h"

namespace frugal::share::k8s {

inline void WaitRunning(httplib::Server& s) {
  while (!s.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

class FakeApi {
 public:
  using json = nlohmann::json;

  FakeApi() {
    http_.Get("/api/v1/nodes", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!Authorized(req, res)) return;
      if (req.has_param("watch")) return Watch(req, res, false);
      ++lists_;
      json items = json::array();
      for (const auto& [name, node] : nodes_) items.push_back(node);
      res.set_content(List("NodeList", items).dump(), "application/json");
    });
    http_.Get("/api/v1/pods", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!Authorized(req, res)) return;
      field_selector_ = req.get_param_value("fieldSelector");
      if (req.has_param("watch")) return Watch(req, res, true);
      ++lists_;
      json items = json::array();
      for (const auto& [key, pod] : pods_) {
        if (Bound(pod)) items.push_back(pod);
      }
      res.set_content(List("PodList", items).dump(), "application/json");
    });
    http_.Get(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))",
              [this](const httplib::Request& req, httplib::Response& res) {
                std::lock_guard<std::mutex> lock(mu_);
                const auto it = pods_.find(std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
                if (it == pods_.end()) {
                  res.status = 404;
                  return res.set_content(R"({"kind":"Status","reason":"NotFound"})", "application/json");
                }
                res.set_content(it->second.dump(), "application/json");
              });
    http_.Patch(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  std::lock_guard<std::mutex> lock(mu_);
                  const auto it = pods_.find(std::string(req.matches[1]) + "/" + std::string(req.matches[2]));
                  if (it == pods_.end() ||
                      req.get_header_value("Content-Type") != "application/merge-patch+json") {
                    res.status = it == pods_.end() ? 404 : 415;
                    return;
                  }
                  json after = it->second;
                  after.merge_patch(json::parse(req.body));
                  SetPodLocked(it->first, after);
                  res.set_content(pods_.at(it->first).dump(), "application/json");
                });
    http_.Post(R"(/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding)",
               [this](const httplib::Request& req, httplib::Response& res) {
                 std::lock_guard<std::mutex> lock(mu_);
                 const std::string key = std::string(req.matches[1]) + "/" + std::string(req.matches[2]);
                 const auto it = pods_.find(key);
                 const json b = json::parse(req.body);
                 if (it == pods_.end() || refuse_binds_ ||
                     !it->second["spec"].value("nodeName", "").empty() || b["kind"] != "Binding") {
                   res.status = 409;
                   return res.set_content(R"({"kind":"Status","reason":"Conflict","message":"pod is already assigned"})",
                                          "application/json");
                 }
                 json after = it->second;
                 after["spec"]["nodeName"] = b["target"]["name"];
                 after["status"]["phase"] = "Running";
                 SetPodLocked(key, after);
                 res.status = 201;
                 res.set_content(R"({"kind":"Status","status":"Success"})", "application/json");
               });
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    WaitRunning(http_);
  }
  ~FakeApi() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      cv_.notify_all();
    }
    http_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void AddNode(const std::string& name, int gpus, const std::string& model) {
    std::lock_guard<std::mutex> lock(mu_);
    json node = {{"metadata", {{"name", name}, {"labels", {{kGpuModelKey, model}}}}},
                 {"status",
                  {{"allocatable",
                    {{"cpu", "32"}, {"memory", "128Gi"}, {kGpuCountKey, std::to_string(gpus)}}}}}};
    Record(false, nullptr, Stamp(node));
    nodes_[name] = node;
  }
  json AddPod(const std::string& name, int num_gpu, int gpu_milli) {
    json annotations = json::object();
    if (num_gpu > 0) {
      annotations[kGpuCountKey] = std::to_string(num_gpu);
      annotations[kGpuMilliKey] = std::to_string(gpu_milli);
    }
    json pod = {{"metadata",
                 {{"name", name}, {"namespace", "ml"}, {"uid", "uid-" + name},
                  {"annotations", annotations}}},
                {"spec",
                 {{"schedulerName", "frugal"},
                  {"containers",
                   json::array({{{"name", "main"},
                                 {"resources", {{"requests", {{"cpu", "2"}, {"memory", "4Gi"}}}}}}})}}},
                {"status", {{"phase", "Pending"}}}};
    std::lock_guard<std::mutex> lock(mu_);
    SetPodLocked("ml/" + name, pod);
    return pods_.at("ml/" + name);
  }
  // Replaces a pod as another client would (bound by another scheduler,
  // finished, ...).
  void SetPod(const std::string& key, const json& pod) {
    std::lock_guard<std::mutex> lock(mu_);
    SetPodLocked(key, pod);
  }
  json Pod(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return pods_.at(key);
  }
  std::map<std::string, json> Pods() {
    std::lock_guard<std::mutex> lock(mu_);
    return pods_;
  }
  std::string field_selector() {
    std::lock_guard<std::mutex> lock(mu_);
    return field_selector_;
  }
  int lists() {
    std::lock_guard<std::mutex> lock(mu_);
    return lists_;
  }
  int watches() {
    std::lock_guard<std::mutex> lock(mu_);
    return watches_;
  }
  void set_refuse_binds(bool v) {
    std::lock_guard<std::mutex> lock(mu_);
    refuse_binds_ = v;
  }
  void set_token(const std::string& t) {
    std::lock_guard<std::mutex> lock(mu_);
    token_ = t;
  }
  // Ends every open watch, as the API server does at its timeout.
  void EndWatches() {
    std::lock_guard<std::mutex> lock(mu_);
    ++end_epoch_;
    cv_.notify_all();
  }
  // Ends every open watch and answers the next watch of each kind with
  // 410 Gone, as the API server does when the events a watcher asks for
  // have been compacted away.
  void ExpireWatches() {
    std::lock_guard<std::mutex> lock(mu_);
    expire_nodes_ = expire_pods_ = true;
    ++end_epoch_;
    cv_.notify_all();
  }

 private:
  struct Event {
    int64_t version;
    bool pod;
    json before, after;  // null: absent
  };

  static bool Bound(const json& pod) {
    if (pod.is_null()) return false;
    const std::string phase = pod["status"].value("phase", "");
    return !pod["spec"].value("nodeName", "").empty() && phase != "Succeeded" && phase != "Failed";
  }
  json List(const char* kind, const json& items) const {
    return {{"kind", kind},
            {"metadata", {{"resourceVersion", std::to_string(version_)}}},
            {"items", items}};
  }
  json& Stamp(json& object) {
    object["metadata"]["resourceVersion"] = std::to_string(++version_);
    return object;
  }
  void Record(bool pod, json before, json after) {
    events_.push_back({version_, pod, std::move(before), std::move(after)});
    cv_.notify_all();
  }
  void SetPodLocked(const std::string& key, json pod) {
    const auto it = pods_.find(key);
    json before = it == pods_.end() ? json() : it->second;
    Stamp(pod);
    pods_[key] = pod;
    Record(true, std::move(before), std::move(pod));
  }
  bool Authorized(const httplib::Request& req, httplib::Response& res) {
    if (token_.empty() || req.get_header_value("Authorization") == "Bearer " + token_) return true;
    res.status = 401;
    res.set_content(R"({"kind":"Status","reason":"Unauthorized"})", "application/json");
    return false;
  }
  // A watch from ?resourceVersion=: the events after it, then the new
  // ones as they come, until EndWatches / Compact / shutdown.
  void Watch(const httplib::Request& req, httplib::Response& res, bool pods) {
    ++watches_;
    const int64_t from = std::stoll(req.get_param_value("resourceVersion"));
    const int epoch = end_epoch_;
    auto next = std::make_shared<size_t>(0);
    bool& expire = pods ? expire_pods_ : expire_nodes_;
    auto gone = std::make_shared<bool>(expire);
    expire = false;
    res.set_chunked_content_provider("application/json", [this, pods, from, epoch, next, gone](
                                                             size_t, httplib::DataSink& sink) {
      std::unique_lock<std::mutex> lock(mu_);
      if (*gone) {
        const std::string line =
            json{{"type", "ERROR"},
                 {"object", {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"},
                             {"message", "too old resource version"}}}}.dump() + "\n";
        sink.write(line.data(), line.size());
        sink.done();
        return true;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(50),
                   [&] { return *next < events_.size() || stopping_ || end_epoch_ != epoch; });
      if (stopping_ || end_epoch_ != epoch) {
        sink.done();
        return true;
      }
      for (; *next < events_.size(); ++*next) {
        const Event& e = events_[*next];
        if (e.pod != pods || e.version <= from) continue;
        const bool was = pods ? Bound(e.before) : !e.before.is_null();
        const bool is = pods ? Bound(e.after) : !e.after.is_null();
        if (!was && !is) continue;
        const char* type = was && is ? "MODIFIED" : is ? "ADDED" : "DELETED";
        const std::string line = json{{"type", type}, {"object", is ? e.after : e.before}}.dump() + "\n";
        if (!sink.write(line.data(), line.size())) return false;
      }
      return true;
    });
  }

  httplib::Server http_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, json> nodes_;
  std::map<std::string, json> pods_;
  std::vector<Event> events_;
  int64_t version_ = 0;
  bool expire_nodes_ = false, expire_pods_ = false;
  int end_epoch_ = 0, lists_ = 0, watches_ = 0;
  bool stopping_ = false;
  std::string field_selector_;
  std::string token_;
  bool refuse_binds_ = false;
};

}  // namespace frugal::share::k8s

#endif  // FRUGAL_SHARE_K8S_FAKE_API_TEST_UTIL_H_
