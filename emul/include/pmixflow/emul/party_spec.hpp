// What a party process is told when it starts: which party it is, the run it belongs to (the
// same inputs the emulation loaded, so that it builds the same machine and deployment), the
// run's clock, and where things are. It travels as JSON on the party's control line, so that a
// party started on another host (srun, ssh) needs nothing but that line.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pmixflow/emul/emul_machine.hpp"
#include "pmixflow/log/sink.hpp"
#include "pmixflow/proto/messages.hpp"
#include "pmixflow/trace/run.hpp"

namespace pmixflow::emul {

struct PartySpec {
  Address address;  // which party: the controller, the scheduler, daemon N, requestor I
  // Which of the party's processes this is (0: its first): a requestor started again makes the
  // calls of that life (RequestorDeployment::life_at).
  std::uint32_t life = 0;
  RunInputs inputs;
  MachineKnobs machine;
  std::int64_t epoch_ns = 0;  // the run clock's epoch (steady clock of this host)
  double speed = 1.0;
  log::KindSet wanted;         // the event kinds the emulation records
  std::string run_dir;         // the emulation's private directory
  std::string daemon_link;     // where daemons reach the controller (an Endpoint)
  std::string payload;         // the program a job's processes run (pmixflow-job)
  uid_t owner = 0;             // who runs the emulation
  std::vector<uid_t> allowed;  // other users whose tools may attach
};

nlohmann::json to_json(const PartySpec& spec);
// Throws std::invalid_argument naming the field at fault.
PartySpec party_spec_from_json(const nlohmann::json& j);

nlohmann::json to_json(const RunInputs& in);
RunInputs run_inputs_from_json(const nlohmann::json& j);

}  // namespace pmixflow::emul
