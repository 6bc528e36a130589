// File: core/xm/requirements.cpp
//
// XManager's JobRequirements (xm/resources.py) from name -> value text, and its mapping onto the
// application model's per-replica Resource.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <regex>
#include <sortie/model/error.hpp>
#include <sortie/xm.hpp>
#include <sortie/xm/resources.hpp>

#include "model_suggest.hpp"

namespace sortie::xm {
namespace {

enum class Field { kCpu, kRam, kDisk, kAccelerator, kReplicas, kLocation };

struct ResourceName {
  const char* name;       // as written (lower case)
  const char* canonical;  // what "given twice" compares
  Field field;
};

// XManager's ResourceType names and aliases, plus the JobRequirements keywords.
constexpr ResourceName kResourceNames[] = {
    {"cpu", "cpu", Field::kCpu},
    {"ram", "ram", Field::kRam},
    {"memory", "ram", Field::kRam},
    {"disk", "disk", Field::kDisk},
    {"ephemeral_storage", "disk", Field::kDisk},
    {"replicas", "replicas", Field::kReplicas},
    {"location", "location", Field::kLocation},
    {"local_gpu", "local_gpu", Field::kAccelerator},
    {"p4", "p4", Field::kAccelerator},
    {"t4", "t4", Field::kAccelerator},
    {"l4", "l4", Field::kAccelerator},
    {"l4_24th", "l4_24th", Field::kAccelerator},
    {"p100", "p100", Field::kAccelerator},
    {"v100", "v100", Field::kAccelerator},
    {"a100", "a100", Field::kAccelerator},
    {"a100_80gib", "a100_80gib", Field::kAccelerator},
    {"h100", "h100", Field::kAccelerator},
    {"h200", "h200", Field::kAccelerator},
    {"b200", "b200", Field::kAccelerator},
    {"b300", "b300", Field::kAccelerator},
    {"gb200", "gb200", Field::kAccelerator},
    {"gb300", "gb300", Field::kAccelerator},
    {"b40_48th", "b40_48th", Field::kAccelerator},
    {"tpu_v2", "tpu_v2", Field::kAccelerator},
    {"tpu_v3", "tpu_v3", Field::kAccelerator},
    {"tpu_v4", "tpu_v4", Field::kAccelerator},
    {"tpu_v5e", "tpu_v5e", Field::kAccelerator},
    {"tpu_v5p", "tpu_v5p", Field::kAccelerator},
    {"tpu_v6e", "tpu_v6e", Field::kAccelerator},
    {"tpu_v7x", "tpu_v7x", Field::kAccelerator},
};

struct ByteUnit {
  const char* name;
  double factor;
};
constexpr ByteUnit kByteUnits[] = {
    {"kib", 1024.0},
    {"mib", 1048576.0},
    {"gib", 1073741824.0},
    {"tib", 1099511627776.0},
    {"pib", 1125899906842624.0},
    {"kb", 1e3},
    {"mb", 1e6},
    {"gb", 1e9},
    {"tb", 1e12},
    {"pb", 1e15},
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

const ResourceName* find_name(const std::string& name) {
  const std::string key = lower(name);
  for (const ResourceName& entry : kResourceNames) {
    if (key == entry.name) return &entry;
  }
  return nullptr;
}

std::vector<std::string> known_names() {
  std::vector<std::string> names;
  for (const ResourceName& entry : kResourceNames) names.emplace_back(entry.name);
  return names;
}

// A non-negative decimal number at the start of `text` ("4", "1.5", ".5", "2e3"); returns the
// length read, 0 when there is none.
size_t scan_number(const std::string& text, double& value) {
  static const std::regex kNumber(R"(^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)");
  std::smatch match;
  if (!std::regex_search(text, match, kNumber)) return 0;
  value = std::strtod(match.str(0).c_str(), nullptr);
  return static_cast<size_t>(match.length(0));
}

// The dimensions of a topology ("2x3x5", "4x4_twisted"); empty when `text` is not one.
std::vector<int64_t> topology_dims(const std::string& text) {
  static const std::regex kTopology(R"(^\d+(x\d+)*(_(un)?twisted)?$)");
  if (!std::regex_match(text, kTopology)) return {};
  std::vector<int64_t> dims;
  size_t begin = 0;
  const std::string shape = text.substr(0, text.find('_'));
  while (begin <= shape.size()) {
    size_t end = shape.find('x', begin);
    if (end == std::string::npos) end = shape.size();
    const std::string dim = shape.substr(begin, end - begin);
    dims.push_back(dim.size() > 12 ? std::numeric_limits<int64_t>::max() : std::stoll(dim));
    begin = end + 1;
  }
  return dims;
}

// Multi-host GPUs (XManager): a GPU topology of several dimensions runs prod(dims[1:]) replicas
// of dims[0] GPUs each. B40_48TH is the exception XManager makes.
bool infers_replicas(const std::string& accelerator, const std::vector<int64_t>& dims) {
  return accelerator_family(accelerator) == AcceleratorFamily::kGpu && accelerator != "b40_48th" &&
         dims.size() > 1;
}

class RequirementsParser {
 public:
  explicit RequirementsParser(const std::string& where) : where_(where) {}

  void add(const std::string& name, const std::string& raw_value) {
    const ResourceName* entry = find_name(name);
    if (!entry) {
      fail(name, "unknown resource" + model::did_you_mean(lower(name), known_names()) +
                     "; known resources: " + model::quoted_list(known_names()));
    }
    const std::string value = trim(raw_value);
    for (const auto& [seen_canonical, seen_name] : seen_) {
      if (seen_canonical == entry->canonical) {
        fail(name, "given twice (also as '" + seen_name + "'); give it once");
      }
    }
    seen_.emplace_back(entry->canonical, name);
    switch (entry->field) {
      case Field::kCpu:
        result_.cpu = positive_number(name, value, "a number of vCPUs such as 2 or 0.5");
        break;
      case Field::kRam:
        result_.ram_bytes = bytes(name, value);
        break;
      case Field::kDisk:
        result_.disk_bytes = bytes(name, value);
        break;
      case Field::kAccelerator:
        accelerator(name, entry->name, value);
        break;
      case Field::kReplicas:
        result_.replicas = static_cast<int>(
            positive_integer(name, value, std::numeric_limits<int>::max(), "a count such as 2"));
        break;
      case Field::kLocation:
        if (value.empty()) fail(name, "expected a location name, got an empty text");
        result_.location = value;
        break;
    }
  }

  JobRequirements finish() {
    const std::vector<int64_t> dims = topology_dims(result_.topology);
    if (infers_replicas(result_.accelerator, dims)) {
      int64_t inferred = 1;
      for (size_t i = 1; i < dims.size(); ++i) inferred *= dims[i];
      if (result_.replicas && *result_.replicas != inferred) {
        fail("replicas", "is " + std::to_string(*result_.replicas) + " but " + result_.accelerator +
                             "=" + result_.topology + " runs " + std::to_string(inferred) +
                             " replicas (one per host after the first dimension); drop "
                             "replicas or make it " +
                             std::to_string(inferred));
      }
      result_.replicas = static_cast<int>(inferred);
    }
    return result_;
  }

 private:
  [[noreturn]] void fail(const std::string& name, const std::string& message) const {
    throw Error::invalid_argument((where_.empty() ? name : where_ + "." + name) + ": " + message);
  }

  double positive_number(const std::string& name, const std::string& value,
                         const std::string& expected) const {
    double number = 0;
    if (scan_number(value, number) != value.size() || value.empty() || !(number > 0) ||
        !std::isfinite(number)) {
      fail(name, "expected " + expected + ", got '" + value + "'");
    }
    return number;
  }

  int64_t positive_integer(const std::string& name, const std::string& value, int64_t max,
                           const std::string& expected) const {
    const bool digits = !value.empty() && value.size() <= 18 &&
                        std::all_of(value.begin(), value.end(),
                                    [](unsigned char c) { return std::isdigit(c) != 0; });
    if (!digits || std::stoll(value) < 1 || std::stoll(value) > max) {
      fail(name, "expected " + expected + " (an integer from 1 to " + std::to_string(max) +
                     "), got '" + value + "'");
    }
    return std::stoll(value);
  }

  // Bytes, from a plain number or a number with a unit (KiB..PiB: powers of 1024, KB..PB:
  // powers of 1000); fractions round up to a whole byte.
  int64_t bytes(const std::string& name, const std::string& value) const {
    const std::string expected =
        "a size in bytes such as 17179869184, 16GiB or 512MB, got '" + value + "'";
    double number = 0;
    const size_t length = scan_number(value, number);
    if (length == 0) fail(name, "expected " + expected);
    const std::string unit = lower(trim(value.substr(length)));
    double factor = 1;
    if (!unit.empty()) {
      const auto* found = std::find_if(std::begin(kByteUnits), std::end(kByteUnits),
                                       [&](const ByteUnit& u) { return unit == u.name; });
      if (found == std::end(kByteUnits)) {
        fail(name, "expected " + expected + "; units are KiB, MiB, GiB, TiB, PiB, KB, MB, " +
                       "GB, TB and PB");
      }
      factor = found->factor;
    }
    const double total = std::ceil(number * factor);
    if (!(total >= 1) || total >= 9.2e18) fail(name, "expected " + expected);
    return static_cast<int64_t>(total);
  }

  void accelerator(const std::string& name, const std::string& canonical,
                   const std::string& value) {
    if (!result_.accelerator.empty()) {
      fail(name, "a job takes one accelerator and " + result_.accelerator +
                     " is already set; keep one of them");
    }
    result_.accelerator = canonical;
    const std::string expected =
        "expected a count such as 2 or a topology such as 2x2 or 4x4_twisted, got '" + value + "'";
    const std::vector<int64_t> dims = topology_dims(value);
    if (dims.empty()) fail(name, expected);
    int64_t count = 1;
    for (const int64_t dim : dims) {
      if (dim < 1 || dim > std::numeric_limits<int>::max() ||
          count > std::numeric_limits<int>::max() / dim) {
        fail(name, expected + " (every dimension at least 1, at most 2^31 chips)");
      }
      count *= dim;
    }
    result_.accelerator_count = count;
    if (value.find_first_not_of("0123456789") != std::string::npos) result_.topology = value;
  }

  const std::string& where_;
  JobRequirements result_;
  std::vector<std::pair<std::string, std::string>> seen_;  // canonical, as written
};

}  // namespace

JobRequirements JobRequirements::parse(
    const std::vector<std::pair<std::string, std::string>>& entries, const std::string& where) {
  RequirementsParser parser(where);
  for (const auto& [name, value] : entries) parser.add(name, value);
  return parser.finish();
}

AcceleratorFamily accelerator_family(std::string_view accelerator) {
  const ResourceName* entry = find_name(std::string(accelerator));
  if (!entry || entry->field != Field::kAccelerator) return AcceleratorFamily::kNone;
  if (accelerator == "local_gpu") return AcceleratorFamily::kLocalGpu;
  if (accelerator.substr(0, 4) == "tpu_") return AcceleratorFamily::kTpu;
  return AcceleratorFamily::kGpu;
}

Resource to_resource(const JobRequirements& requirements) {
  Resource resource;
  if (requirements.cpu) resource.cpu = *requirements.cpu;
  if (requirements.ram_bytes) {
    constexpr int64_t kMiB = 1 << 20;
    resource.mem_mb = (*requirements.ram_bytes + kMiB - 1) / kMiB;
  }
  const AcceleratorFamily family = accelerator_family(requirements.accelerator);
  if (family == AcceleratorFamily::kLocalGpu || family == AcceleratorFamily::kGpu) {
    const std::vector<int64_t> dims = topology_dims(requirements.topology);
    const int64_t per_replica = infers_replicas(requirements.accelerator, dims)
                                    ? dims.front()
                                    : requirements.accelerator_count;
    resource.gpu = static_cast<int>(per_replica);
  }
  return resource;
}

}  // namespace sortie::xm
