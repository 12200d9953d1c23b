// The events, as C++ types a role builds: one aggregate per kind of the catalogue, its members
// the kind's fields, so that a misspelt field or a value of the wrong type does not compile:
//
//   env.log(ev::AllocGrant{.corr = corr, .alloc = id, .session = session, .node_list = nodes});
//
// Optional fields are std::optional and may be left out.
#pragma once

#include <optional>

#include "pmixflow/log/catalogue.hpp"
#include "pmixflow/log/record.hpp"

namespace pmixflow::ev {

#define PMIXFLOW_LOG_EVENT(Name, kind, writer, meaning) \
  struct Name {                                         \
    static constexpr log::EventKind event_kind = log::EventKind::Name;
#define PMIXFLOW_LOG_REQ(f) log::FieldArg<log::Field::f> f{};
#define PMIXFLOW_LOG_OPT(f) std::optional<log::FieldArg<log::Field::f>> f{};
#define PMIXFLOW_LOG_END \
  }                      \
  ;
#include "pmixflow/log/events.def"
#undef PMIXFLOW_LOG_EVENT
#undef PMIXFLOW_LOG_REQ
#undef PMIXFLOW_LOG_OPT
#undef PMIXFLOW_LOG_END

// Hands an event's values to a builder, in the catalogue's order.
#define PMIXFLOW_LOG_EVENT(Name, kind, writer, meaning)   \
  inline void fill(const Name& e, log::EventBuilder& b) { \
    (void)e;                                              \
    (void)b;
#define PMIXFLOW_LOG_REQ(f) b.put(e.f);
#define PMIXFLOW_LOG_OPT(f) b.put(e.f);
#define PMIXFLOW_LOG_END }
#include "pmixflow/log/events.def"
#undef PMIXFLOW_LOG_EVENT
#undef PMIXFLOW_LOG_REQ
#undef PMIXFLOW_LOG_OPT
#undef PMIXFLOW_LOG_END

}  // namespace pmixflow::ev
