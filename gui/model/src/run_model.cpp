#include "pmixflow/view/run_model.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "pmixflow/log/run_files.hpp"

#include "builder.hpp"
#include "groups.hpp"

namespace pmixflow::view {

RunModel::RunModel(const std::filesystem::path& path, OpenOptions options)
    : options_(options), log_path_(log::run_log_path(path.string())) {
  reader_ = std::make_unique<log::LogReader>(log_path_, log::ReadOptions{.follow = options.follow});
  builder_ = std::make_unique<Builder>(*this, RunInfo::from_header(reader_->header(), log_path_));
  snapshots_.push_back(Snapshot{0, live_});
  ingest();
  // A cut log is shown as far as it goes (its problem said); a bad line is refused, as every
  // reader of pmixflow refuses it.
  reader_->check_whole(true);
}

RunModel::~RunModel() = default;

void RunModel::ingest() {
  while (const auto* e = reader_->next()) {
    builder_->add(*e, reader_->offset(), reader_->line(), reader_->send_line());
    take_snapshot_if_due();
  }
  groups_ = group_nodes(nodes_);
}

void RunModel::take_snapshot_if_due() {
  if (ops_.size() - snapshots_.back().ops < std::max<std::size_t>(options_.changes_per_copy, 1)) return;
  snapshots_.push_back(Snapshot{ops_.size(), live_});
}

std::size_t RunModel::read_more() {
  if (!reader_ || reader_->complete() || reader_->problem()) return 0;
  const auto before = events_.size();
  const auto nodes_before = nodes_.size();
  while (const auto* e = reader_->next()) {
    builder_->add(*e, reader_->offset(), reader_->line(), reader_->send_line());
    take_snapshot_if_due();
  }
  if (nodes_.size() != nodes_before) groups_ = group_nodes(nodes_);
  return events_.size() - before;
}

bool RunModel::complete() const { return reader_->complete(); }
const std::optional<InputError>& RunModel::problem() const { return reader_->problem(); }
const log::LogHeader& RunModel::header() const { return reader_->header(); }

std::optional<std::uint32_t> RunModel::find_node(std::string_view name) const {
  const auto it = node_index_.find(name);
  return it == node_index_.end() ? std::nullopt : std::optional(it->second);
}
std::optional<std::uint32_t> RunModel::find_session(std::uint32_t id) const {
  const auto it = session_index_.find(id);
  return it == session_index_.end() ? std::nullopt : std::optional(it->second);
}
std::optional<std::uint32_t> RunModel::find_request(std::string_view corr) const {
  const auto it = request_index_.find(corr);
  return it == request_index_.end() ? std::nullopt : std::optional(it->second);
}
std::optional<std::uint32_t> RunModel::find_party(std::string_view name) const {
  const auto it = party_index_.find(name);
  return it == party_index_.end() ? std::nullopt : std::optional(it->second);
}

double RunModel::start_time() const { return events_.empty() ? 0 : events_.front().t; }
double RunModel::end_time() const { return time_index_.empty() ? 0 : time_index_.back(); }

std::size_t RunModel::events_until(double t) const {
  return static_cast<std::size_t>(std::upper_bound(time_index_.begin(), time_index_.end(), t) - time_index_.begin());
}

MachineState RunModel::machine_after(std::size_t count) const {
  // The ops of the first `count` events: ops are in event order.
  const auto last =
      std::partition_point(ops_.begin(), ops_.end(), [count](const StateOp& o) { return o.event < count; });
  const auto n_ops = static_cast<std::size_t>(last - ops_.begin());
  const auto snap = std::prev(std::upper_bound(snapshots_.begin(), snapshots_.end(), n_ops,
                                               [](std::size_t n, const Snapshot& s) { return n < s.ops; }));
  MachineState m = snap->machine;
  m.resize(nodes_.size());
  const auto job_nodes = [this](std::uint32_t j) -> const std::vector<std::uint32_t>& { return jobs_[j].nodes; };
  for (auto i = snap->ops; i < n_ops; ++i) m.apply(ops_[i], job_nodes);
  return m;
}

namespace {
std::string line_at(const std::string& path, std::uint64_t offset) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string line;
  std::getline(in, line);
  return line;
}
}  // namespace

std::string RunModel::line_text(std::size_t i) const {
  if (i >= events_.size()) return {};
  std::string line = line_at(log_path_, events_[i].offset);
  if (events_[i].send == kNone) return line;
  // A short recv (version 3): whole again from its send's line, as the reader delivered it.
  return log::whole_recv(line, line_at(log_path_, events_[events_[i].send].offset)).value_or(line);
}

}  // namespace pmixflow::view
