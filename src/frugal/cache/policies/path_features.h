// Features of a file path for the learned policies: the directory pattern
// (digit runs become '#', long hex-like tokens '*') and the extension,
// each interned to a small integer in order of first appearance, so ids
// are deterministic for a given trace. Not thread-safe.
#ifndef FRUGAL_CACHE_POLICIES_PATH_FEATURES_H_
#define FRUGAL_CACHE_POLICIES_PATH_FEATURES_H_

#include <string>
#include <unordered_map>
#include <vector>

namespace frugal::cache {

class PathInterner {
 public:
  // "/tmp/beam/p3/run-2-ab12cd34/shuffle-0/w007.shuffle" ->
  // "/tmp/beam/p#/run-#-*/shuffle-#/w#.shuffle".
  static std::string Pattern(const std::string& path) {
    std::string out;
    size_t i = 0;
    while (i < path.size()) {
      size_t j = i;
      while (j < path.size() && path[j] != '/' && path[j] != '-' && path[j] != '.' && path[j] != '_') ++j;
      const std::string tok = path.substr(i, j - i);
      bool digits = !tok.empty(), hex = tok.size() >= 8;
      for (char c : tok) {
        digits = digits && c >= '0' && c <= '9';
        hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
      }
      if (hex) {
        out += '*';
      } else if (digits) {
        out += '#';
      } else {
        std::string t;
        for (char c : tok) {
          if (c >= '0' && c <= '9') {
            if (t.empty() || t.back() != '#') t += '#';
          } else {
            t += c;
          }
        }
        out += t;
      }
      if (j < path.size()) out += path[j];
      i = j + 1;
    }
    return out;
  }
  static std::string Extension(const std::string& path) {
    const size_t slash = path.rfind('/');
    const size_t dot = path.find('.', slash == std::string::npos ? 0 : slash + 1);
    return dot == std::string::npos ? "" : path.substr(dot + 1);
  }
  int Id(const std::string& key) {
    auto [it, inserted] = ids_.try_emplace(key, static_cast<int>(ids_.size()));
    return it->second;
  }
  // The keys in id order (Id of each, in this order, rebuilds the ids).
  std::vector<std::string> Keys() const {
    std::vector<std::string> keys(ids_.size());
    for (const auto& [k, id] : ids_) keys[static_cast<size_t>(id)] = k;
    return keys;
  }
  size_t size() const { return ids_.size(); }

 private:
  std::unordered_map<std::string, int> ids_;
};

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_POLICIES_PATH_FEATURES_H_
