#include "bounded_yaml.hpp"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <map>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sortie::model {
namespace {

// Counts the nodes and the depth of one document as a reader walking it sees them: an alias
// counts as the whole node it names, at the depth where it appears; an alias inside the node it
// names (a cycle, which no count bounds) is refused.
class LimitCounter : public YAML::EventHandler {
 public:
  explicit LimitCounter(const std::string& origin)
      : origin_(origin),
        max_depth_(limits::value(limits::kYamlDepth)),
        max_nodes_(limits::value(limits::kYamlNodes)) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  // yaml-cpp resolves an alias to the very node its anchor names, so an alias inside the node it
  // names makes a cycle that every reader walking the tree would follow forever (and no count
  // of the node ends: it has not ended yet). An alias may name only a node ended before it.
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (const Open& open : open_) {
      if (open.anchor == anchor) fail_cycle(mark, open);
    }
    const auto found = anchored_.find(anchor);
    // yaml-cpp refuses an alias of an undefined anchor before this event; fail closed anyway.
    if (found == anchored_.end()) fail_at(mark, "an alias refers to a node not ended before it");
    add_nodes(mark, found->second.nodes);
    check_depth(mark, open_.size() + found->second.height);
  }
  // Precedes the event of the node the anchor is on.
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    anchor_name_ = name;
    anchor_mark_ = mark;
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Extent {
    size_t nodes;
    size_t height;  // levels of collections inside, 0 for a scalar
  };
  struct Open {
    YAML::anchor_t anchor;
    size_t nodes_before;
    std::string anchor_name;  // for the message of a cycle
    YAML::Mark anchor_mark;
    size_t height = 1;
  };

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add_nodes(mark, 1);
    anchor_name_.clear();
    if (anchor != YAML::NullAnchor) anchored_[anchor] = Extent{1, 0};
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add_nodes(mark, 1);
    if (anchor == YAML::NullAnchor) {
      open_.push_back(Open{anchor, nodes_ - 1, {}, {}});
    } else {
      open_.push_back(Open{anchor, nodes_ - 1, std::move(anchor_name_), anchor_mark_});
    }
    anchor_name_.clear();
    check_depth(mark, open_.size());
  }
  void close() {
    const Open closed = std::move(open_.back());
    open_.pop_back();
    if (!open_.empty()) open_.back().height = std::max(open_.back().height, closed.height + 1);
    if (closed.anchor != YAML::NullAnchor) {
      anchored_[closed.anchor] = Extent{nodes_ - closed.nodes_before, closed.height};
    }
  }
  void add_nodes(const YAML::Mark& mark, size_t count) {
    nodes_ += count;
    if (nodes_ > max_nodes_) fail(mark, "the YAML document (aliases expanded)", limits::kYamlNodes);
  }
  void check_depth(const YAML::Mark& mark, size_t depth) const {
    if (depth > max_depth_) fail(mark, "the YAML nesting", limits::kYamlDepth);
  }
  [[noreturn]] void fail_cycle(const YAML::Mark& mark, const Open& anchored) const {
    const std::string& name = anchored.anchor_name;
    fail_at(mark, "an alias refers to a node that contains it (a cycle); " +
                      (name.empty() ? "the alias" : "*" + name) + " is inside the node anchored" +
                      (name.empty() ? "" : " &" + name) + " at " +
                      line_column(anchored.anchor_mark) +
                      ", and an alias may name only a node that ends before it");
  }
  static std::string line_column(const YAML::Mark& mark) {
    return std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  [[noreturn]] void fail_at(const YAML::Mark& mark, const std::string& message) const {
    throw Error::invalid_argument(origin_ + ":" + line_column(mark) + ": " + message);
  }
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what,
                         const limits::Limit& limit) const {
    throw Error::invalid_argument(origin_ + ": line " + std::to_string(mark.line + 1) +
                                  ", column " + std::to_string(mark.column + 1) + ": " +
                                  limits::exceeded(what, limit));
  }

  const std::string& origin_;
  const size_t max_depth_;
  const size_t max_nodes_;
  size_t nodes_ = 0;
  std::vector<Open> open_;
  std::map<YAML::anchor_t, Extent> anchored_;  // nodes ended, by anchor
  std::string anchor_name_;                    // of the node whose event comes next
  YAML::Mark anchor_mark_;
};

}  // namespace

YAML::Node load_bounded_yaml(const std::string& text, const std::string& origin) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  LimitCounter counter(origin);
  parser.HandleNextDocument(counter);
  return YAML::Load(text);
}

}  // namespace sortie::model
