// Features of a file path for the learned policies: the directory pattern
// (digit runs become '#'; long hex-like tokens, tokens of 8 or more
// characters that mix letters and digits, and Python tempfile names —
// "tmp" + 8 of [a-z0-9_] as a whole component — become '*', so each run's
// scratch directories share one pattern) and the extension,
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
      if ((i == 0 || path[i - 1] == '/') && IsTempName(path, i)) {
        out += "tmp*";
        j = i + kTempNameSize;
        if (j < path.size()) out += path[j];
        i = j + 1;
        continue;
      }
      while (j < path.size() && path[j] != '/' && path[j] != '-' && path[j] != '.' && path[j] != '_') ++j;
      const std::string tok = path.substr(i, j - i);
      bool digits = !tok.empty(), hex = tok.size() >= 8, letter = false, digit = false;
      for (char c : tok) {
        const bool d = c >= '0' && c <= '9';
        digits = digits && d;
        hex = hex && (d || (c >= 'a' && c <= 'f'));
        digit = digit || d;
        letter = letter || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      }
      if (hex || (tok.size() >= 8 && letter && digit)) {
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
  // "tmp" + 8 of [a-z0-9_] at `at`, then the component's end or a '.' / '-'.
  static constexpr size_t kTempNameSize = 11;
  static bool IsTempName(const std::string& path, size_t at) {
    if (path.compare(at, 3, "tmp") != 0 || path.size() < at + kTempNameSize) return false;
    for (size_t k = at + 3; k < at + kTempNameSize; ++k) {
      const char c = path[k];
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    const size_t end = at + kTempNameSize;
    return end == path.size() || path[end] == '/' || path[end] == '.' || path[end] == '-';
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
