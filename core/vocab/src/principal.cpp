#include "pmixflow/vocab/principal.hpp"

#include "pmixflow/vocab/vocab.hpp"

namespace pmixflow {

namespace {
std::optional<std::uint32_t> id(const InfoList& info, std::string_view key) {
  const auto v = info.get_uint(key);
  if (!v || *v > UINT32_MAX) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}
}  // namespace

Principal principal_of(const Proc& proc, const InfoList& info) {
  return Principal{proc, id(info, key::USERID), id(info, key::GRPID)};
}

void stamp_credentials(InfoList& info, const Credentials& c) {
  info.erase(key::USERID);
  info.erase(key::GRPID);
  info.add(key::USERID, c.uid).add(key::GRPID, c.gid);
}

void add_ids(InfoList& info, const Principal& p) {
  if (p.uid && !info.has(key::USERID)) info.add(key::USERID, *p.uid);
  if (p.gid && !info.has(key::GRPID)) info.add(key::GRPID, *p.gid);
}

bool may_manage(const Principal& owner, const Principal& caller) {
  // Known users decide: a namespace is one user's, so the same namespace under another user is
  // that user's tool naming itself so (an emulated tool picks its own namespace), not the creator.
  if (owner.uid && caller.uid) return *owner.uid == *caller.uid;
  return owner.proc.nspace == caller.proc.nspace;
}

}  // namespace pmixflow
