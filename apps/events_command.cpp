// `pmixflow events`: the event catalogue, for people scripting against the log.
#include <iostream>

#include "commands.hpp"
#include "pmixflow/log/reference.hpp"

namespace pmixflow::cli {
namespace {

class EventsCommand final : public Command {
 public:
  explicit EventsCommand(CLI::App& events) {
    events.add_flag("--markdown", markdown_, "Print the whole reference (every kind and field) as Markdown.");
  }
  int run() override {
    std::cout << (markdown_ ? log::reference_markdown() : log::reference_text());
    return 0;
  }

 private:
  bool markdown_ = false;
};

}  // namespace

std::unique_ptr<Command> add_events(CLI::App& app, CLI::App*& sub) {
  sub = app.add_subcommand("events",
                           "List the kinds of event the log holds (--markdown: the reference of docs/events.md).");
  return std::make_unique<EventsCommand>(*sub);
}

}  // namespace pmixflow::cli
