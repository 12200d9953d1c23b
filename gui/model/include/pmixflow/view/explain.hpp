// What the viewer tells people about an event: the attributes a request carried under their
// PMIx names, and, in teaching mode, a caption for each step - what happens and why, with the
// section of docs/flow.md that explains it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pmixflow/view/run_model.hpp"

namespace pmixflow::view {

struct Attribute {
  std::string name;   // "PMIX_ALLOC_NUM_NODES"; the key itself when pmixflow does not know it
  std::string key;    // "pmix.alloc.nnodes"
  std::string value;  // as JSON, strings without their quotes
};
// A log's PMIx info ([["pmix.alloc.nnodes",2],...]); an empty list for text that is not one.
std::vector<Attribute> attributes(std::string_view info_json);

struct Caption {
  std::string title;    // "The scheduler grants the request"
  std::string text;     // what happens and why, in a sentence or three
  std::string section;  // "docs/flow.md §2.4 Step D: session instantiation"
};
Caption caption(const RunModel& model, std::size_t event);

// The steps teaching mode walks through: every event of a request, or of a session (the
// request that made it and every event that names it), in log order.
std::vector<std::uint32_t> request_steps(const RunModel& model, std::uint32_t request);
std::vector<std::uint32_t> session_steps(const RunModel& model, std::uint32_t session);

}  // namespace pmixflow::view
