#include "pmixflow/vocab/errors.hpp"
#include "pmixflow/vocab/info.hpp"
#include "pmixflow/vocab/timespec.hpp"

namespace pmixflow {

std::optional<double> read_alloc_time(const InfoList& info, std::string_view key) {
  const Value* v = info.find(key);
  if (!v) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(v)) return parse_alloc_time(*s, key);
  if (auto n = info.get_uint(key)) return static_cast<double>(*n);
  if (const auto* d = std::get_if<double>(v); d && *d >= 0) return *d;
  throw InputError(std::string(key), 0, "PMIX_ALLOC_TIME", "expects a time string or a whole number of seconds");
}

}  // namespace pmixflow
