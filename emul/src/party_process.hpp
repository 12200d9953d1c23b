// A party process's parts (party.cpp runs it): its control line to the emulation, the run it
// belongs to, its role with the Env that carries it, its PMIx, and its daemon links.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "pmixflow/emul/control.hpp"
#include "pmixflow/emul/daemon_links.hpp"
#include "pmixflow/emul/directory.hpp"
#include "pmixflow/emul/emul_env.hpp"
#include "pmixflow/emul/emul_machine.hpp"
#include "pmixflow/emul/link.hpp"
#include "pmixflow/emul/loop.hpp"
#include "pmixflow/emul/party_spec.hpp"
#include "pmixflow/emul/pmix_host.hpp"
#include "pmixflow/emul/real_processes.hpp"
#include "pmixflow/emul/run_clock.hpp"
#include "pmixflow/trace/deployment.hpp"

namespace pmixflow::emul {

class PartyProcess final : private Uplink, private Transport {
 public:
  explicit PartyProcess(int control_fd);
  ~PartyProcess() override;
  PartyProcess(const PartyProcess&) = delete;
  PartyProcess& operator=(const PartyProcess&) = delete;
  int run();

 private:
  void on_control(std::string&& bytes);
  void handle(control::Setup&& f);
  void handle(control::Go&& f);
  void handle(control::Servers&& f);
  void handle(control::Inject&& f);
  void handle(control::Stop&&);
  void handle(control::Probe&& f);
  void handle(control::Leave&& f);
  template <class F>
  void handle(F&&) {}
  void build_role();
  void open_links();
  void on_link_message(Address from, Message msg);
  void finish(int status);
  void report_activity();
  void prepare_calls();
  void save_memory_now();
  void send(const control::Frame& f);
  // Sent with the next frame that goes at once, or a little later: events and busy reports.
  void send_soon(const control::Frame& f);
  bool idle_now() const;
  std::uint64_t calls_waiting() const;

  // Uplink
  void event(std::string encoded) override;
  void start_daemon(NodeId node) override;
  void working() override;
  // Transport
  bool carry(Address to, Message& msg) override;

  Loop loop_;
  std::unique_ptr<FrameLink> control_;
  std::optional<PartySpec> spec_;
  RunClock clock_;
  std::optional<Workload> workload_;
  std::unique_ptr<EmulMachine> machine_;
  std::optional<Deployment> deployment_;
  std::unique_ptr<Directory> directory_;
  std::unique_ptr<EmulEnv> env_;
  std::unique_ptr<PmixHost> pmix_;
  std::unique_ptr<DaemonListener> daemons_;     // the controller's
  std::unique_ptr<ControllerLink> controller_;  // a daemon's
  RealProcesses* runner_ = nullptr;             // a daemon's, owned by its role
  std::unique_ptr<Role> role_;                  // last: it refers to everything above
  std::vector<Address> calls_to_;               // a requestor's: the servers its plan calls through
  bool going_ = false;
  std::string saved_memory_;  // the scheduler's, as last written
  SteadyClock::time_point saved_when_{};
  bool save_armed_ = false;
  int status_ = 0;
  bool release_armed_ = false;
  bool reported_idle_ = true;
  std::optional<SteadyClock::time_point> idle_since_;  // idle, not yet said
  std::uint64_t reported_at_messages_ = 0;
  SteadyClock::time_point reported_when_{};
};

}  // namespace pmixflow::emul
