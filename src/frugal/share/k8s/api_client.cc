#include "frugal/share/k8s/api_client.h"

#include <cstdlib>
#include <utility>

#include <httplib.h>

#include "frugal/base/file_io.h"

namespace frugal::share::k8s {
namespace {

constexpr const char* kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// The first line of a body, short, for an error message.
std::string Snippet(const std::string& body) {
  std::string s = body.substr(0, body.find('\n'));
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

}  // namespace

ApiOptions DefaultApiOptions() {
  ApiOptions o;
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host != nullptr && *host) {
    std::string h = host;
    if (h.find(':') != std::string::npos) h = "[" + h + "]";  // IPv6
    o.url = "https://" + h + ":" + (port != nullptr && *port ? port : "443");
    o.token_file = std::string(kServiceAccountDir) + "/token";
    o.ca_file = std::string(kServiceAccountDir) + "/ca.crt";
  }
  return o;
}

Result<std::unique_ptr<ApiClient>> ApiClient::Create(const ApiOptions& options) {
  const std::string& url = options.url;
  const size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return InvalidArgument("API server URL '" + url + "': expected http://host[:port] or https://...");
  }
  const size_t host_begin = scheme_end + 3;
  const size_t path_begin = url.find('/', host_begin);
  const std::string host_port = url.substr(host_begin, path_begin - host_begin);
  if (host_port.empty()) return InvalidArgument("API server URL '" + url + "': no host");
  std::string prefix = path_begin == std::string::npos ? "" : url.substr(path_begin);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!(options.timeout_s > 0 && options.timeout_s <= 3600)) {
    return InvalidArgument("API timeout must be in (0, 3600] s");
  }
  auto http = std::make_unique<httplib::Client>(scheme + "://" + host_port);
  if (!http->is_valid()) return InvalidArgument("API server URL '" + url + "': not usable");
  const auto sec = static_cast<time_t>(options.timeout_s);
  const auto usec = static_cast<time_t>((options.timeout_s - static_cast<double>(sec)) * 1e6);
  http->set_connection_timeout(sec, usec);
  http->set_read_timeout(sec, usec);
  http->set_write_timeout(sec, usec);
  if (scheme == "https" && !options.ca_file.empty()) http->set_ca_cert_path(options.ca_file);
  return std::unique_ptr<ApiClient>(new ApiClient(options, std::move(prefix), std::move(http)));
}

ApiClient::ApiClient(const ApiOptions& options, std::string prefix,
                     std::unique_ptr<httplib::Client> http)
    : options_(options), prefix_(std::move(prefix)), http_(std::move(http)) {}

ApiClient::~ApiClient() = default;

// The Authorization header, the token re-read from its file.
static Status AddToken(const ApiOptions& options, httplib::Headers* headers) {
  if (options.token_file.empty()) return Status::Ok();
  auto token = ReadFileToString(options.token_file);
  if (!token.ok()) return token.status().WithPrefix("API token");
  std::string t = *token;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  headers->emplace("Authorization", "Bearer " + t);
  return Status::Ok();
}

Status ApiClient::Send(const std::string& method, const std::string& path, const std::string& body,
                       const std::string& content_type, std::string* response) {
  httplib::Headers headers = {{"Accept", "application/json"}};
  FRUGAL_RETURN_IF_ERROR(AddToken(options_, &headers));
  const std::string full = prefix_ + path;
  httplib::Result r = method == "GET"     ? http_->Get(full, headers)
                      : method == "PATCH" ? http_->Patch(full, headers, body, content_type)
                                          : http_->Post(full, headers, body, content_type);
  const std::string what = method + " " + options_.url + path;
  if (!r) {
    return FailedPrecondition(what + ": cannot reach the API server (" +
                              httplib::to_string(r.error()) + ")");
  }
  if (r->status < 200 || r->status >= 300) {
    return InvalidArgument(what + ": HTTP " + std::to_string(r->status) + ": " + Snippet(r->body));
  }
  if (response != nullptr) *response = std::move(r->body);
  return Status::Ok();
}

Status ApiClient::Watch(const std::string& path,
                        const std::function<bool(const std::string& line)>& on_line) {
  httplib::Headers headers = {{"Accept", "application/json"}};
  FRUGAL_RETURN_IF_ERROR(AddToken(options_, &headers));
  std::string partial, error_body;
  int status = 0;
  bool ended = false;  // by on_line
  httplib::Result r = http_->Get(
      prefix_ + path, headers,
      [&](const httplib::Response& response) {
        status = response.status;
        return true;
      },
      [&](const char* data, size_t n) {
        if (status < 200 || status >= 300) {
          if (error_body.size() < 4096) error_body.append(data, n);
          return true;
        }
        partial.append(data, n);
        size_t start = 0;
        for (size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
          if (nl > start && !on_line(partial.substr(start, nl - start))) {
            ended = true;
            return false;
          }
        }
        partial.erase(0, start);
        return true;
      });
  const std::string what = "GET " + options_.url + path;
  if (ended) return Status::Ok();
  if (status != 0 && (status < 200 || status >= 300)) {
    return InvalidArgument(what + ": HTTP " + std::to_string(status) + ": " + Snippet(error_body));
  }
  if (!r) {
    // Canceled; or a read that timed out on a quiet stream (the API server
    // sends nothing between events): the watcher watches again from where
    // it was.
    if (r.error() == httplib::Error::Canceled || (status != 0 && r.error() == httplib::Error::Read)) {
      return Status::Ok();
    }
    return FailedPrecondition(what + ": watch stream ended (" + httplib::to_string(r.error()) + ")");
  }
  if (!partial.empty()) on_line(partial);
  return Status::Ok();
}

void ApiClient::Cancel() { http_->stop(); }

Result<nlohmann::json> ApiClient::Get(const std::string& path) {
  std::string body;
  FRUGAL_RETURN_IF_ERROR(Send("GET", path, "", "", &body));
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    return InvalidArgument("GET " + options_.url + path + ": the answer is not JSON");
  }
  return j;
}

Status ApiClient::AnnotatePod(const std::string& ns, const std::string& name,
                              const std::map<std::string, std::string>& annotations) {
  nlohmann::json patch;
  patch["metadata"]["annotations"] = annotations;
  return Send("PATCH", "/api/v1/namespaces/" + ns + "/pods/" + name, patch.dump(),
              "application/merge-patch+json", nullptr);
}

Status ApiClient::BindPod(const std::string& ns, const std::string& name, const std::string& uid,
                          const std::string& node) {
  nlohmann::json b = {{"apiVersion", "v1"},
                      {"kind", "Binding"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (!uid.empty()) b["metadata"]["uid"] = uid;
  return Send("POST", "/api/v1/namespaces/" + ns + "/pods/" + name + "/binding", b.dump(),
              "application/json", nullptr);
}

}  // namespace frugal::share::k8s
