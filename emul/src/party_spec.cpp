#include "pmixflow/emul/party_spec.hpp"

#include <stdexcept>

namespace pmixflow::emul {

using nlohmann::json;

json to_json(const RunInputs& in) {
  json j{{"scenario_file", in.scenario_file},
         {"scenario_text", in.scenario_text},
         {"trace_file", in.trace_file},
         {"lenient", in.lenient},
         {"via_daemon", in.via_daemon},
         {"compare_recorded", in.compare_recorded},
         {"policy", in.policy},
         {"exclusive_nodes", in.exclusive_nodes},
         {"head_computes", in.head_computes},
         {"queue_priorities", in.queue_priorities},
         {"preemptible_queues", in.preemptible_queues},
         {"all_preemptible", in.all_preemptible},
         {"seed", in.seed}};
  if (in.batch_delay) j["batch_delay"] = *in.batch_delay;
  // The controller starts the DVM's first daemons from its own deployment.
  if (!in.dvm_host.empty()) j["host"] = in.dvm_host;
  if (!in.dvm_hostfile.empty()) j["hostfile"] = in.dvm_hostfile;
  // Every party deploys the run itself: each must draw the same node failures.
  if (in.node_mtbf) j["node_mtbf"] = *in.node_mtbf;
  if (in.node_mttr) j["node_mttr"] = *in.node_mttr;
  return j;
}

RunInputs run_inputs_from_json(const json& j) {
  RunInputs in;
  j.at("scenario_file").get_to(in.scenario_file);
  j.at("scenario_text").get_to(in.scenario_text);
  j.at("trace_file").get_to(in.trace_file);
  j.at("lenient").get_to(in.lenient);
  j.at("via_daemon").get_to(in.via_daemon);
  j.at("compare_recorded").get_to(in.compare_recorded);
  j.at("policy").get_to(in.policy);
  j.at("exclusive_nodes").get_to(in.exclusive_nodes);
  j.at("head_computes").get_to(in.head_computes);
  j.at("queue_priorities").get_to(in.queue_priorities);
  j.at("preemptible_queues").get_to(in.preemptible_queues);
  j.at("all_preemptible").get_to(in.all_preemptible);
  j.at("seed").get_to(in.seed);
  if (j.contains("batch_delay")) in.batch_delay = j.at("batch_delay").get<double>();
  if (j.contains("host")) j.at("host").get_to(in.dvm_host);
  if (j.contains("hostfile")) j.at("hostfile").get_to(in.dvm_hostfile);
  if (j.contains("node_mtbf")) in.node_mtbf = j.at("node_mtbf").get<double>();
  if (j.contains("node_mttr")) in.node_mttr = j.at("node_mttr").get<double>();
  return in;
}

json to_json(const PartySpec& s) {
  return json{{"party", {{"kind", static_cast<int>(s.address.kind)}, {"index", s.address.index}, {"life", s.life}}},
              {"inputs", to_json(s.inputs)},
              {"machine",
               {{"nodes", s.machine.nodes},
                {"topology", s.machine.node_shape.topology_file},
                {"topology_is_default", s.machine.node_shape.topology_is_default},
                {"pus", s.machine.node_shape.slot_unit == SlotUnit::Pus}}},
              {"epoch_ns", s.epoch_ns},
              {"speed", s.speed},
              {"wanted", s.wanted.to_string()},
              {"run_dir", s.run_dir},
              {"daemon_link", s.daemon_link},
              {"payload", s.payload},
              {"owner", s.owner},
              {"allowed", s.allowed}};
}

PartySpec party_spec_from_json(const json& j) {
  try {
    PartySpec s;
    const int kind = j.at("party").at("kind").get<int>();
    if (kind < 0 || kind > static_cast<int>(PartyKind::Scheduler)) throw std::invalid_argument("party.kind");
    s.address = Address{static_cast<PartyKind>(kind), j.at("party").at("index").get<std::uint32_t>()};
    j.at("party").at("life").get_to(s.life);
    s.inputs = run_inputs_from_json(j.at("inputs"));
    const json& m = j.at("machine");
    m.at("nodes").get_to(s.machine.nodes);
    m.at("topology").get_to(s.machine.node_shape.topology_file);
    m.at("topology_is_default").get_to(s.machine.node_shape.topology_is_default);
    s.machine.node_shape.slot_unit = m.at("pus").get<bool>() ? SlotUnit::Pus : SlotUnit::Cores;
    j.at("epoch_ns").get_to(s.epoch_ns);
    j.at("speed").get_to(s.speed);
    const auto wanted = j.at("wanted").get<std::string>();
    if (wanted.size() != log::kKindCount || wanted.find_first_not_of("01") != std::string::npos)
      throw std::invalid_argument("a party's set-up: wanted: not " + std::to_string(log::kKindCount) +
                                  " event kinds as 0s and 1s");
    s.wanted = log::KindSet(wanted);
    j.at("run_dir").get_to(s.run_dir);
    j.at("daemon_link").get_to(s.daemon_link);
    j.at("payload").get_to(s.payload);
    j.at("owner").get_to(s.owner);
    j.at("allowed").get_to(s.allowed);
    return s;
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("a party's set-up: ") + e.what());
  }
}

}  // namespace pmixflow::emul
