#include "frugal/graph/einsum.h"

#include <algorithm>
#include <map>
#include <set>

namespace frugal {
namespace {

// Letters are labels 0-51; ellipsis dim i (counted from the left of the
// broadcast ellipsis) is label kEllipsisBase + i.
constexpr int kEllipsisBase = 1000;

struct Term {
  std::vector<int> letters_before;  // letters left of "..."
  std::vector<int> letters_after;   // letters right of "..." (all if none)
  bool ellipsis = false;
};

int LetterLabel(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

Status ParseTerm(const std::string& text, const std::string& equation,
                 Term* term) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '.') {
      if (term->ellipsis || text.compare(i, 3, "...") != 0) {
        return InvalidArgument("einsum equation '" + equation +
                               "': '.' outside one '...' per term");
      }
      term->ellipsis = true;
      term->letters_before.swap(term->letters_after);
      i += 2;
      continue;
    }
    const int label = LetterLabel(text[i]);
    if (label < 0) {
      return InvalidArgument("einsum equation '" + equation +
                             "': invalid character '" +
                             std::string(1, text[i]) + "'");
    }
    term->letters_after.push_back(label);
  }
  if (!term->ellipsis) term->letters_before.swap(term->letters_after);
  return Status::Ok();
}

size_t ExplicitCount(const Term& t) {
  return t.letters_before.size() + t.letters_after.size();
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

double SizeProduct(const std::set<int>& labels,
                   const std::map<int, int64_t>& sizes) {
  double p = 1;
  for (int l : labels) p *= static_cast<double>(sizes.at(l));
  return p;
}

struct Parsed {
  std::map<int, int64_t> sizes;
  std::vector<std::set<int>> term_labels;
  std::vector<int> output;  // in output order
};

Result<Parsed> Parse(const std::string& equation,
                     const std::vector<std::vector<int64_t>>& shapes) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq += c;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  const bool explicit_output = arrow != std::string::npos;
  const std::vector<std::string> term_texts = SplitOn(lhs, ',');
  if (term_texts.size() != shapes.size()) {
    return InvalidArgument("einsum equation '" + equation + "' has " +
                           std::to_string(term_texts.size()) +
                           " operands but the op has " +
                           std::to_string(shapes.size()) + " inputs");
  }
  std::vector<Term> terms(term_texts.size());
  size_t ellipsis_rank = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    FRUGAL_RETURN_IF_ERROR(ParseTerm(term_texts[k], equation, &terms[k]));
    const size_t rank = shapes[k].size();
    const size_t named = ExplicitCount(terms[k]);
    if (named > rank || (!terms[k].ellipsis && named != rank)) {
      return InvalidArgument("einsum equation '" + equation + "': operand " +
                             std::to_string(k) + " has rank " +
                             std::to_string(rank) + " but term '" +
                             term_texts[k] + "' names " +
                             std::to_string(named) + " dims");
    }
    if (terms[k].ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - named);
  }

  // Sizes of every label; ellipsis dims broadcast (size 1 against n).
  std::map<int, int64_t> sizes;
  std::map<int, int> uses;
  std::vector<std::set<int>> term_labels(terms.size());
  auto note = [&](int label, int64_t size) -> Status {
    auto [it, inserted] = sizes.emplace(label, size);
    if (!inserted && it->second != size) {
      if (it->second == 1) {
        it->second = size;
      } else if (size != 1) {
        return InvalidArgument("einsum equation '" + equation +
                               "': a label has sizes " +
                               std::to_string(it->second) + " and " +
                               std::to_string(size));
      }
    }
    return Status::Ok();
  };
  for (size_t k = 0; k < terms.size(); ++k) {
    const Term& t = terms[k];
    const auto& shape = shapes[k];
    size_t dim = 0;
    for (int l : t.letters_before) {
      FRUGAL_RETURN_IF_ERROR(note(l, shape[dim++]));
      term_labels[k].insert(l);
    }
    if (t.ellipsis) {
      const size_t e = shape.size() - ExplicitCount(t);
      for (size_t i = 0; i < e; ++i) {
        const int l = kEllipsisBase + static_cast<int>(ellipsis_rank - e + i);
        FRUGAL_RETURN_IF_ERROR(note(l, shape[dim++]));
        term_labels[k].insert(l);
      }
    }
    for (int l : t.letters_after) {
      FRUGAL_RETURN_IF_ERROR(note(l, shape[dim++]));
      term_labels[k].insert(l);
    }
    for (int l : t.letters_before) ++uses[l];
    for (int l : t.letters_after) ++uses[l];
  }

  Parsed p;
  std::vector<int> ellipsis_labels;
  for (size_t i = 0; i < ellipsis_rank; ++i) {
    ellipsis_labels.push_back(kEllipsisBase + static_cast<int>(i));
  }
  if (explicit_output) {
    Term out;
    FRUGAL_RETURN_IF_ERROR(ParseTerm(eq.substr(arrow + 2), equation, &out));
    std::set<int> seen;
    auto add = [&](const std::vector<int>& letters) -> Status {
      for (int l : letters) {
        if (sizes.count(l) == 0) {
          return InvalidArgument("einsum equation '" + equation +
                                 "': an output label is in no operand");
        }
        if (!seen.insert(l).second) {
          return InvalidArgument("einsum equation '" + equation +
                                 "': an output label repeats");
        }
        p.output.push_back(l);
      }
      return Status::Ok();
    };
    // Without "..." in the output the ellipsis dims are summed out.
    FRUGAL_RETURN_IF_ERROR(add(out.letters_before));
    if (out.ellipsis) {
      p.output.insert(p.output.end(), ellipsis_labels.begin(), ellipsis_labels.end());
    }
    FRUGAL_RETURN_IF_ERROR(add(out.letters_after));
  } else {
    p.output = ellipsis_labels;
    for (const auto& [label, n] : uses) {
      if (n == 1) p.output.push_back(label);
    }
  }
  p.sizes = std::move(sizes);
  p.term_labels = std::move(term_labels);
  return p;
}

}  // namespace

Result<double> EinsumFlops(const std::string& equation,
                           const std::vector<std::vector<int64_t>>& shapes) {
  FRUGAL_ASSIGN_OR_RETURN(Parsed p, Parse(equation, shapes));
  const auto& sizes = p.sizes;
  const auto& term_labels = p.term_labels;
  const std::set<int> output(p.output.begin(), p.output.end());
  double flops = 0;
  std::set<int> current = term_labels[0];
  for (size_t k = 1; k < term_labels.size(); ++k) {
    std::set<int> all = current;
    all.insert(term_labels[k].begin(), term_labels[k].end());
    std::set<int> later = output;
    for (size_t j = k + 1; j < term_labels.size(); ++j) {
      later.insert(term_labels[j].begin(), term_labels[j].end());
    }
    std::set<int> kept;
    for (int l : all) {
      if (later.count(l) != 0) kept.insert(l);
    }
    const bool sums = kept.size() < all.size();
    flops += SizeProduct(all, sizes) * (sums ? 2 : 1);
    current = std::move(kept);
  }
  if (term_labels.size() == 1) {
    bool sums = false;
    for (int l : current) sums = sums || output.count(l) == 0;
    if (sums) flops += SizeProduct(current, sizes);
  }
  return flops;
}

Result<std::vector<int64_t>> EinsumOutputShape(
    const std::string& equation, const std::vector<std::vector<int64_t>>& shapes) {
  FRUGAL_ASSIGN_OR_RETURN(Parsed p, Parse(equation, shapes));
  std::vector<int64_t> shape;
  for (int l : p.output) shape.push_back(p.sizes.at(l));
  return shape;
}

}  // namespace frugal
