// A party's set-up as it travels on its control line: every field comes back from JSON (and
// from the JSON text, as the line carries it), and a set-up missing a field or holding a wrong
// one is refused with std::invalid_argument naming it.
#include "pmixflow/emul/party_spec.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "emul_test_support.hpp"

namespace pmixflow::emul {
namespace {

using nlohmann::json;

RunInputs every_input() {
  RunInputs in;
  in.scenario_file = "/scenarios/two users.jsonl";
  in.scenario_text = "{\"t\":0}\n{\"t\":1, \"é\":true}\n";
  in.trace_file = "/traces/KIT-FH2.swf.gz";
  in.lenient = true;
  in.via_daemon = 0.25;
  in.compare_recorded = true;
  in.policy = "easy";
  in.exclusive_nodes = true;
  in.head_computes = true;
  in.batch_delay = 2.5;
  in.queue_priorities = {{"debug", 10}, {"batch", -3}};
  in.preemptible_queues = {2, 7, -1};
  in.all_preemptible = true;
  in.seed = std::numeric_limits<std::uint64_t>::max();
  in.dvm_host = "n[01-04],+n7";
  in.dvm_hostfile = "/hosts/dvm hosts";
  return in;
}

PartySpec every_field() {
  PartySpec s;
  s.address = Address::daemon(17);
  s.life = 3;
  s.inputs = every_input();
  s.machine = MachineKnobs{120, "/topologies/node-2x16.xml", false, SlotUnit::Pus};
  s.epoch_ns = 987654321012345678;
  s.speed = 12.5;
  s.wanted = log::kind_set({log::EventKind::Send, log::EventKind::NodeFail, log::EventKind::LogEnd});
  s.run_dir = "/tmp/pmixflow-emul-abc123";
  s.daemon_link = "unix:/tmp/pmixflow-emul-abc123/daemons.sock";
  s.payload = "/usr/lib/pmixflow/pmixflow-job";
  s.owner = 1000;
  s.allowed = {1001, 4294967294u};
  return s;
}

void expect_same_inputs(const RunInputs& got, const RunInputs& want) {
  EXPECT_EQ(got.scenario_file, want.scenario_file);
  EXPECT_EQ(got.scenario_text, want.scenario_text);
  EXPECT_EQ(got.trace_file, want.trace_file);
  EXPECT_EQ(got.lenient, want.lenient);
  EXPECT_EQ(got.via_daemon, want.via_daemon);
  EXPECT_EQ(got.compare_recorded, want.compare_recorded);
  EXPECT_EQ(got.policy, want.policy);
  EXPECT_EQ(got.exclusive_nodes, want.exclusive_nodes);
  EXPECT_EQ(got.head_computes, want.head_computes);
  EXPECT_EQ(got.batch_delay, want.batch_delay);
  EXPECT_EQ(got.queue_priorities, want.queue_priorities);
  EXPECT_EQ(got.preemptible_queues, want.preemptible_queues);
  EXPECT_EQ(got.all_preemptible, want.all_preemptible);
  EXPECT_EQ(got.seed, want.seed);
  EXPECT_EQ(got.dvm_host, want.dvm_host);  // the controller starts the DVM from them
  EXPECT_EQ(got.dvm_hostfile, want.dvm_hostfile);
}

void expect_same(const PartySpec& got, const PartySpec& want) {
  EXPECT_EQ(got.address, want.address);
  EXPECT_EQ(got.life, want.life);
  expect_same_inputs(got.inputs, want.inputs);
  EXPECT_EQ(got.machine.nodes, want.machine.nodes);
  EXPECT_EQ(got.machine.node_shape.topology_file, want.machine.node_shape.topology_file);
  EXPECT_EQ(got.machine.node_shape.topology_is_default, want.machine.node_shape.topology_is_default);
  EXPECT_EQ(got.machine.node_shape.slot_unit, want.machine.node_shape.slot_unit);
  EXPECT_EQ(got.epoch_ns, want.epoch_ns);
  EXPECT_EQ(got.speed, want.speed);
  EXPECT_EQ(got.wanted, want.wanted);
  EXPECT_EQ(got.run_dir, want.run_dir);
  EXPECT_EQ(got.daemon_link, want.daemon_link);
  EXPECT_EQ(got.payload, want.payload);
  EXPECT_EQ(got.owner, want.owner);
  EXPECT_EQ(got.allowed, want.allowed);
}

TEST(PartySpec, EveryFieldRoundTrips) {
  const PartySpec s = every_field();
  expect_same(party_spec_from_json(to_json(s)), s);
}

TEST(PartySpec, EveryFieldRoundTripsThroughJsonText) {
  const PartySpec s = every_field();
  expect_same(party_spec_from_json(json::parse(to_json(s).dump())), s);
}

TEST(PartySpec, DefaultsRoundTrip) {
  const PartySpec s;
  expect_same(party_spec_from_json(json::parse(to_json(s).dump())), s);
}

TEST(PartySpec, EveryKindOfPartyRoundTrips) {
  for (const Address a : {Address::controller(), Address::scheduler(), Address::daemon(3), Address::requestor(2)}) {
    PartySpec s = every_field();
    s.address = a;
    EXPECT_EQ(party_spec_from_json(to_json(s)).address, a);
  }
}

TEST(PartySpec, CoresAndPusRoundTrip) {
  PartySpec s = every_field();
  s.machine.node_shape.slot_unit = SlotUnit::Cores;
  EXPECT_EQ(party_spec_from_json(to_json(s)).machine.node_shape.slot_unit, SlotUnit::Cores);
  s.machine.node_shape.slot_unit = SlotUnit::Pus;
  EXPECT_EQ(party_spec_from_json(to_json(s)).machine.node_shape.slot_unit, SlotUnit::Pus);
}

TEST(RunInputs, BatchDelayRoundTripsPresentAndAbsent) {
  RunInputs in = every_input();
  in.batch_delay = 0.0;  // present, and zero: not the same as absent
  EXPECT_EQ(run_inputs_from_json(to_json(in)).batch_delay, std::optional<double>(0.0));
  in.batch_delay.reset();
  const json j = to_json(in);
  EXPECT_FALSE(j.contains("batch_delay"));
  EXPECT_EQ(run_inputs_from_json(j).batch_delay, std::nullopt);
  expect_same_inputs(run_inputs_from_json(json::parse(j.dump())), in);
}

TEST(RunInputs, EmptyQueuesRoundTrip) {
  RunInputs in = every_input();
  in.queue_priorities.clear();
  in.preemptible_queues.clear();
  expect_same_inputs(run_inputs_from_json(to_json(in)), in);
}

// The set-up with the member `path` (a JSON pointer) removed.
json without(const std::string& path) {
  json j = to_json(every_field());
  const json::json_pointer p(path);
  j[p.parent_pointer()].erase(p.back());
  return j;
}

TEST(PartySpec, MissingFieldIsRefusedNamingIt) {
  for (const std::string path : {"/party",
                                 "/party/kind",
                                 "/party/index",
                                 "/inputs",
                                 "/inputs/scenario_file",
                                 "/inputs/seed",
                                 "/inputs/queue_priorities",
                                 "/inputs/preemptible_queues",
                                 "/machine",
                                 "/machine/nodes",
                                 "/machine/topology",
                                 "/machine/topology_is_default",
                                 "/machine/pus",
                                 "/epoch_ns",
                                 "/speed",
                                 "/wanted",
                                 "/run_dir",
                                 "/daemon_link",
                                 "/payload",
                                 "/owner",
                                 "/allowed"}) {
    const std::string field = json::json_pointer(path).back();
    try {
      party_spec_from_json(without(path));
      ADD_FAILURE() << "accepted a set-up without " << path;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + field + "'"), std::string::npos) << path << ": " << e.what();
    }
  }
}

TEST(PartySpec, FieldOfTheWrongTypeIsRefused) {
  json j = to_json(every_field());
  j["speed"] = "fast";
  EXPECT_THROW(party_spec_from_json(j), std::invalid_argument);
  j = to_json(every_field());
  j["inputs"]["queue_priorities"] = json::array({1, 2});
  EXPECT_THROW(party_spec_from_json(j), std::invalid_argument);
}

TEST(PartySpec, MalformedWantedKindsAreRefusedNamingTheField) {
  // party_spec.cpp builds the KindSet with std::bitset's string constructor outside any
  // check of its own: text that is not 0s and 1s throws the standard library's
  // std::invalid_argument ("bitset::_M_copy_from_ptr"), which names no field, and a string of
  // the wrong length is taken without complaint (a longer one is cut, a shorter one padded).
  for (const std::string& wanted : {std::string("not bits"), std::string(log::kKindCount + 3, '1'), std::string("1")}) {
    json j = to_json(every_field());
    j["wanted"] = wanted;
    try {
      party_spec_from_json(j);
      ADD_FAILURE() << "accepted wanted = " << wanted;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("wanted"), std::string::npos) << e.what();
    }
  }
}

TEST(PartySpec, UnknownPartyKindIsRefusedNamingIt) {
  for (const int kind : {-1, 4, 200}) {
    json j = to_json(every_field());
    j["party"]["kind"] = kind;
    try {
      party_spec_from_json(j);
      ADD_FAILURE() << "accepted party kind " << kind;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("party.kind"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace pmixflow::emul
