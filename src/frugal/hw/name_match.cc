#include "frugal/hw/name_match.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "frugal/hw/catalog.h"

namespace frugal {
namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Runs of letters or of digits, lower case: "V100-SXM2" -> v, 100, sxm, 2.
std::vector<std::string> Tokens(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (!std::isalnum(u)) {
      flush();
      continue;
    }
    if (!cur.empty() && IsDigit(cur.back()) != IsDigit(c)) flush();
    cur += static_cast<char>(std::tolower(u));
  }
  flush();
  return out;
}

// Distinct query tokens that are also tokens of the candidate. Digits and
// letters split, so "40" matches the 40 of "40GB".
size_t SharedTokens(const std::vector<std::string>& query,
                    const std::vector<std::string>& cand) {
  // Vendor words say nothing about which part is meant.
  static const std::set<std::string> kNoise = {"nvidia", "tesla", "standard"};
  std::set<std::string> have(cand.begin(), cand.end());
  size_t n = 0;
  for (const std::string& t : std::set<std::string>(query.begin(), query.end())) {
    if (kNoise.count(t) == 0 && have.count(t) != 0) ++n;
  }
  return n;
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> ClosestNames(std::string_view query,
                                      const std::vector<NameCandidate>& candidates,
                                      size_t max) {
  const std::string qkey = CatalogKey(query);
  const std::vector<std::string> qtokens = Tokens(query);
  // Best score per canonical name over all its spellings.
  using Score = std::tuple<long, size_t>;  // (-shared tokens, edit distance)
  std::map<std::string, Score> best;
  for (const NameCandidate& c : candidates) {
    Score s{-static_cast<long>(SharedTokens(qtokens, Tokens(c.spelling))),
            EditDistance(qkey, CatalogKey(c.spelling))};
    auto it = best.find(c.canonical);
    if (it == best.end() || s < it->second) best[c.canonical] = s;
  }
  std::vector<std::pair<Score, std::string>> ranked;
  for (const auto& [name, s] : best) ranked.push_back({s, name});
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && i < max; ++i) out.push_back(ranked[i].second);
  return out;
}

}  // namespace frugal
