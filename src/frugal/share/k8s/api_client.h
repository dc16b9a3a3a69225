// A minimal client of the Kubernetes API server for the scheduler
// extender: list nodes and pods, annotate a pod, bind it to a node. Over
// plain HTTP (`kubectl proxy`, which handles authentication) or HTTPS
// with a bearer token and a CA file (a pod's service account). Errors
// name the request and what the server said. One client per thread.
#ifndef FRUGAL_SHARE_K8S_API_CLIENT_H_
#define FRUGAL_SHARE_K8S_API_CLIENT_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"

namespace httplib {
class Client;
}

namespace frugal::share::k8s {

struct ApiOptions {
  // http(s)://host[:port][/prefix]. Default: `kubectl proxy`'s address.
  std::string url = "http://127.0.0.1:8001";
  std::string token_file;  // re-read on every request (tokens rotate)
  std::string ca_file;     // HTTPS only; empty: the system's CAs
  double timeout_s = 10;
};

// The in-cluster defaults when KUBERNETES_SERVICE_HOST is set (the
// service account's token and CA), else ApiOptions{}.
ApiOptions DefaultApiOptions();

class ApiClient {
 public:
  // InvalidArgument for a URL that is not http(s)://host[:port][/path]
  // or a timeout outside (0, 3600].
  static Result<std::unique_ptr<ApiClient>> Create(const ApiOptions& options);
  ~ApiClient();

  // GET path (below the prefix) and its JSON body. FailedPrecondition when the
  // server cannot be reached, InvalidArgument for a non-2xx answer or a
  // body that is not JSON.
  Result<nlohmann::json> Get(const std::string& path);
  // A JSON merge patch of metadata.annotations.
  Status AnnotatePod(const std::string& ns, const std::string& name,
                     const std::map<std::string, std::string>& annotations);
  // POST .../pods/NAME/binding.
  Status BindPod(const std::string& ns, const std::string& name, const std::string& uid,
                 const std::string& node);

  // GET path as a watch stream (path carries ?watch=1...): calls on_line
  // with each newline-terminated line of the answer until the server ends
  // the stream, on_line returns false, or Cancel. FailedPrecondition when
  // the server cannot be reached or the stream breaks, InvalidArgument for
  // a non-2xx answer; Ok when the stream ended or was ended.
  Status Watch(const std::string& path, const std::function<bool(const std::string& line)>& on_line);
  // Ends a Watch in progress from another thread.
  void Cancel();

  const std::string& url() const { return options_.url; }

 private:
  ApiClient(const ApiOptions& options, std::string prefix, std::unique_ptr<httplib::Client> http);
  Status Send(const std::string& method, const std::string& path, const std::string& body,
              const std::string& content_type, std::string* response);

  ApiOptions options_;
  std::string prefix_;
  std::unique_ptr<httplib::Client> http_;
};

}  // namespace frugal::share::k8s

#endif  // FRUGAL_SHARE_K8S_API_CLIENT_H_
