#include "sched/policy_registry.hpp"

#include <cstring>

#include "sched/fair_policy.hpp"
#include "sched/fifo_policy.hpp"
#include "sched/priority_policy.hpp"
#include "sched/round_robin_policy.hpp"
#include "sched/wrr_policy.hpp"

namespace arun {

namespace {

struct OptionDef {
  const char* key;
  bool integer;  // else a string
  int64_t min, max;
  const char* help;
};

const OptionDef kQueueDepth{"queue_depth", true, 1, kMaxQueueDepth, "bound of each stream's pending queue"};
const OptionDef kAging{"aging_us", true, 0, 3'600'000'000, "a task ready this long goes first (0 = off)"};
const OptionDef kWeights{"weights", false, 1, 1000, "tasks per turn for priority levels 0..7, e.g. \"8,4,2,1\""};

struct PolicyDef {
  const char* name;
  std::vector<const OptionDef*> options;
};

const std::vector<PolicyDef>& policy_defs() {
  static const std::vector<PolicyDef> defs{
      {"priority", {&kAging, &kQueueDepth}}, {"fifo", {&kQueueDepth}}, {"round_robin", {&kQueueDepth}},
      {"wrr", {&kWeights, &kQueueDepth}},    {"fair", {&kQueueDepth}},
  };
  return defs;
}

const PolicyDef* find_policy(std::string_view name) {
  for (const auto& d : policy_defs()) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

std::string key_list(const std::vector<const OptionDef*>& options) {
  std::string s;
  for (const auto* o : options) s += (s.empty() ? "" : ", ") + std::string(o->key);
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

bool valid_key(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// "1,2,3" -> levels; each in [lo, hi]; 1..8 entries, the last repeated for the levels left out.
bool parse_weights(const std::string& text, int64_t lo, int64_t hi, std::vector<uint32_t>* out, std::string* why) {
  out->clear();
  size_t i = 0;
  while (i <= text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    std::string item = trim(std::string_view(text).substr(i, j - i));
    char* end = nullptr;
    long long v = item.empty() ? 0 : std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0') {
      *why = "\"" + item + "\" is not an integer";
      return false;
    }
    if (v < lo || v > hi) {
      *why = "weight " + item + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      return false;
    }
    out->push_back(static_cast<uint32_t>(v));
    i = j + 1;
  }
  if (out->size() > kPriorityLevels) {
    *why = std::to_string(out->size()) + " weights given, at most 8 (one per priority level 0..7)";
    return false;
  }
  while (out->size() < kPriorityLevels) out->push_back(out->back());
  return true;
}

}  // namespace

const char* builtin_policy_names() {
  return "priority, fifo, round_robin, wrr, fair";
}

bool is_builtin_policy(std::string_view name) {
  return find_policy(name) != nullptr;
}

std::string SchedulerChoice::describe() const {
  std::string s = name + " (";
  if (name == "priority") s += "aging_us=" + std::to_string(aging_ns / 1000) + ", ";
  if (name == "wrr") {
    s += "weights=";
    for (size_t i = 0; i < weights.size(); ++i) s += (i ? "," : "") + std::to_string(weights[i]);
    s += ", ";
  }
  s += "queue_depth=" + std::to_string(queue_depth) + ")";
  if (plugin) s += " [plugin]";
  return s;
}

Status parse_policy_spec(std::string_view text, const std::string& origin, PolicySpec* out) {
  PolicySpec spec;
  spec.origin = origin;
  spec.source = origin;
  std::string_view rest;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    spec.name = trim(text.substr(0, colon));
    rest = text.substr(colon + 1);
  } else {
    spec.name = trim(text);
  }
  if (spec.name.empty()) {
    return Status(Errc::invalid_param, origin + ": no policy name (expected NAME[:key=value,...])");
  }
  // Split at commas, then glue pieces without '=' back onto the previous option: "w=8,4,q=2".
  std::vector<std::string> items;
  size_t i = 0;
  while (!rest.empty() && i <= rest.size()) {
    size_t j = rest.find(',', i);
    if (j == std::string_view::npos) j = rest.size();
    std::string piece(rest.substr(i, j - i));
    if (piece.find('=') == std::string::npos && !items.empty()) {
      items.back() += "," + piece;
    } else {
      items.push_back(piece);
    }
    i = j + 1;
  }
  for (const auto& item : items) {
    auto eq = item.find('=');
    std::string key = trim(std::string_view(item).substr(0, eq == std::string::npos ? item.size() : eq));
    if (eq == std::string::npos || !valid_key(key)) {
      return Status(Errc::invalid_param,
                    origin + ": \"" + item + "\" is not key=value (expected NAME[:key=value,...])");
    }
    std::string value = trim(std::string_view(item).substr(eq + 1));
    bool inserted = false;
    try {
      toml::table doc = toml::parse("v = " + value);
      if (auto* node = doc.get("v")) {
        node->visit([&](auto& concrete) { inserted = spec.options.insert(key, std::move(concrete)).second; });
      }
    } catch (const toml::parse_error&) {
      inserted = spec.options.insert(key, value).second;  // not TOML: a plain string
    }
    if (!inserted) return Status(Errc::invalid_param, origin + ": option " + key + " is given twice");
  }
  *out = std::move(spec);
  return Status::Ok();
}

Status resolve_scheduler(const PolicySpec& spec, Errc code, SchedulerChoice* out) {
  SchedulerChoice c;
  c.name = spec.name;
  c.source = spec.source;
  const PolicyDef* def = find_policy(spec.name);
  static const std::vector<const OptionDef*> kPluginOptions{&kQueueDepth};
  const auto& allowed = def != nullptr ? def->options : kPluginOptions;
  c.plugin = def == nullptr;
  auto defaults = WrrPolicy::default_weights();
  c.weights.assign(defaults.begin(), defaults.end());
  std::string policy_label = "\"" + spec.name + "\"";
  for (auto&& entry : spec.options) {
    // Named references, not structured bindings: clang 14 (the fuzz build) cannot capture those.
    const auto& key = entry.first;
    const auto& node = entry.second;
    auto fail = [&](const std::string& reason) {
      std::string msg = spec.origin;
      const auto& where = node.source();
      if (spec.from_toml && where.begin.line != 0) {
        msg += ":" + std::to_string(where.begin.line) + ":" + std::to_string(where.begin.column);
      }
      msg += ": " + std::string(spec.from_toml ? "scheduler." : "") + std::string(key.str()) + ": " + reason;
      return Status(code, msg);
    };
    const OptionDef* opt = nullptr;
    for (const auto* o : allowed) {
      if (key == o->key) opt = o;
    }
    if (opt == nullptr) {
      return fail("unknown option of the " + policy_label + " policy (valid: " + key_list(allowed) + ")");
    }
    if (opt->integer) {
      auto v = node.value<int64_t>();
      if (!node.is_integer() || !v)
        return fail(std::string("expected an integer, got ") + (node.is_string() ? "a string" : "another type"));
      if (*v < opt->min || *v > opt->max) {
        return fail(std::to_string(*v) + " is out of range [" + std::to_string(opt->min) + ", " +
                    std::to_string(opt->max) + "]");
      }
      if (opt == &kQueueDepth) c.queue_depth = static_cast<uint32_t>(*v);
      if (opt == &kAging) c.aging_ns = static_cast<uint64_t>(*v) * 1000;
    } else {
      std::string text;
      if (auto s = node.value<std::string>(); node.is_string() && s) {
        text = *s;
      } else if (auto i = node.value<int64_t>(); node.is_integer() && i) {
        text = std::to_string(*i);  // a single weight, as ASCEND_RUN_SCHED=wrr:weights=4 reads it
      } else {
        return fail("expected a string of comma-separated integers");
      }
      std::string why;
      if (!parse_weights(text, opt->min, opt->max, &c.weights, &why)) return fail(why);
    }
  }
  *out = std::move(c);
  return Status::Ok();
}

std::unique_ptr<SchedulerPolicy> make_builtin_policy(const SchedulerChoice& choice) {
  if (choice.name == "priority") return std::make_unique<PriorityPolicy>(choice.aging_ns);
  if (choice.name == "fifo") return std::make_unique<FifoPolicy>();
  if (choice.name == "round_robin") return std::make_unique<RoundRobinPolicy>();
  if (choice.name == "wrr") {
    std::array<uint32_t, kPriorityLevels> w{};
    for (uint32_t i = 0; i < kPriorityLevels; ++i) w[i] = choice.weights[i];
    return std::make_unique<WrrPolicy>(w);
  }
  if (choice.name == "fair") return std::make_unique<FairPolicy>();
  return nullptr;
}

}  // namespace arun
