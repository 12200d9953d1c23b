// The attribute keys the flow knows, with their upstream names and value types, so that
// text inputs (scenario files) can say either "PMIX_ALLOC_NUM_CPUS" or "pmix.alloc.ncpus"
// and get a value of the right type.
#pragma once

#include <optional>
#include <string_view>

namespace pmixflow {

enum class ValueType {
  Bool,
  Int32,
  UInt32,
  UInt64,
  Double,
  String,
  Proc,
  InfoList,
  Apps,
  Status,
  Directive,
  AllocTime
};

struct KeySpec {
  std::string_view name;  // "PMIX_ALLOC_NUM_CPUS"
  std::string_view key;   // "pmix.alloc.ncpus"
  ValueType type;
};

// By upstream name or key string.
std::optional<KeySpec> find_key(std::string_view name_or_key);
std::string_view value_type_name(ValueType t);

}  // namespace pmixflow
