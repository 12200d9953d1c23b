#include "pmixflow/emul/pmix_info.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace pmixflow::emul {

// ---- owners ----------------------------------------------------------------------------------

PmixInfos::PmixInfos(std::size_t n) {
  if (n == 0) return;
  PMIX_INFO_CREATE(info_, n);
  if (!info_) throw std::bad_alloc();
  n_ = n;
}

PmixInfos::~PmixInfos() { reset(); }

PmixInfos::PmixInfos(PmixInfos&& o) noexcept : info_(std::exchange(o.info_, nullptr)), n_(std::exchange(o.n_, 0)) {}

PmixInfos& PmixInfos::operator=(PmixInfos&& o) noexcept {
  if (this != &o) {
    reset();
    info_ = std::exchange(o.info_, nullptr);
    n_ = std::exchange(o.n_, 0);
  }
  return *this;
}

PmixInfos PmixInfos::adopt(pmix_info_t* info, std::size_t n) noexcept {
  PmixInfos out;
  out.info_ = info;
  out.n_ = info ? n : 0;
  return out;
}

void PmixInfos::reset() noexcept {
  if (info_) PMIX_INFO_FREE(info_, n_);
  info_ = nullptr;
  n_ = 0;
}

PmixInfos::Handoff PmixInfos::release() {
  auto holder = std::make_unique<PmixInfos>(std::move(*this));
  Handoff h{holder->info_, holder->n_, nullptr};
  h.release_cbdata = holder.release();  // owned by the callee until release_cb or reclaim
  return h;
}

void PmixInfos::release_cb(void* release_cbdata) {
  std::unique_ptr<PmixInfos> owned(static_cast<PmixInfos*>(release_cbdata));
}

PmixInfos PmixInfos::reclaim(void* release_cbdata) {
  std::unique_ptr<PmixInfos> owned(static_cast<PmixInfos*>(release_cbdata));
  return owned ? std::move(*owned) : PmixInfos{};
}

PmixApps::PmixApps(std::size_t n) {
  if (n == 0) return;
  PMIX_APP_CREATE(apps_, n);
  if (!apps_) throw std::bad_alloc();
  n_ = n;
}

PmixApps::~PmixApps() { reset(); }

PmixApps::PmixApps(PmixApps&& o) noexcept : apps_(std::exchange(o.apps_, nullptr)), n_(std::exchange(o.n_, 0)) {}

PmixApps& PmixApps::operator=(PmixApps&& o) noexcept {
  if (this != &o) {
    reset();
    apps_ = std::exchange(o.apps_, nullptr);
    n_ = std::exchange(o.n_, 0);
  }
  return *this;
}

void PmixApps::reset() noexcept {
  if (apps_) PMIX_APP_FREE(apps_, n_);
  apps_ = nullptr;
  n_ = 0;
}

// ---- writing ---------------------------------------------------------------------------------

namespace {

// A malloc'ed copy, as PMIx frees its strings with free(). A NUL inside would cut the string
// short on the other side: refused rather than silently shortened.
char* c_string(const std::string& s, std::string_view key) {
  if (s.find('\0') != std::string::npos)
    throw PmixConversionError(std::string(key), "a string holding a NUL byte cannot travel as PMIX_STRING");
  char* out = ::strdup(s.c_str());
  if (!out) throw std::bad_alloc();
  return out;
}

// A NULL-terminated, malloc'ed string vector (what pmix_argv_free releases), `first` (when
// given) ahead of `items`. Attached to `slot` before it is filled, so that a throw part-way
// leaves what was made to the slot's owner.
void c_argv(char**& slot, const std::string* first, const std::vector<std::string>& items, std::string_view key) {
  const std::size_t n = items.size() + (first ? 1 : 0);
  slot = static_cast<char**>(std::calloc(n + 1, sizeof(char*)));
  if (!slot) throw std::bad_alloc();
  std::size_t i = 0;
  if (first) slot[i++] = c_string(*first, key);
  for (const auto& s : items) slot[i++] = c_string(s, key);
}

void load_key(pmix_info_t& info, std::string_view key) {
  if (key.size() > PMIX_MAX_KEYLEN)
    throw PmixConversionError(
        std::string(key), "a key longer than PMIX_MAX_KEYLEN (" + std::to_string(PMIX_MAX_KEYLEN) + ") cannot travel");
  std::memset(info.key, 0, sizeof info.key);
  std::memcpy(info.key, key.data(), key.size());
}

pmix_data_array_t* attach_array(pmix_value_t& out, std::size_t n, pmix_data_type_t type) {
  pmix_data_array_t* d = nullptr;
  PMIX_DATA_ARRAY_CREATE(d, n, type);
  if (!d || (n > 0 && !d->array)) {
    PMIX_DATA_ARRAY_FREE(d);
    throw std::bad_alloc();
  }
  out.type = PMIX_DATA_ARRAY;
  out.data.darray = d;
  return d;
}

struct Loader {
  pmix_value_t& out;
  std::string_view key;

  void operator()(bool b) const {
    out.type = PMIX_BOOL;
    out.data.flag = b;
  }
  void operator()(std::int32_t i) const {
    out.type = PMIX_INT32;
    out.data.int32 = i;
  }
  void operator()(std::uint32_t u) const {
    out.type = PMIX_UINT32;
    out.data.uint32 = u;
  }
  void operator()(std::uint64_t u) const {
    out.type = PMIX_UINT64;
    out.data.uint64 = u;
  }
  void operator()(double d) const {
    out.type = PMIX_DOUBLE;
    out.data.dval = d;
  }
  void operator()(const std::string& s) const {
    out.data.string = c_string(s, key);
    out.type = PMIX_STRING;
  }
  void operator()(Status s) const {
    out.type = PMIX_STATUS;
    out.data.status = to_pmix(s);
  }
  void operator()(Directive d) const {
    out.type = PMIX_ALLOC_DIRECTIVE;
    out.data.adir = to_pmix(d);
  }
  void operator()(const Proc& p) const {
    const pmix_proc_t proc = to_pmix(p);
    pmix_proc_t* heap = nullptr;
    PMIX_PROC_CREATE(heap, 1);
    if (!heap) throw std::bad_alloc();
    *heap = proc;
    out.type = PMIX_PROC;
    out.data.proc = heap;
  }
  void operator()(const InfoList& list) const {
    pmix_data_array_t* d = attach_array(out, list.size(), PMIX_INFO);
    auto* items = static_cast<pmix_info_t*>(d->array);
    for (std::size_t i = 0; i < list.size(); ++i) {
      load_key(items[i], list.items[i].key);
      load(items[i].value, list.items[i].value, list.items[i].key);
    }
  }
  void operator()(const std::vector<App>& apps) const {
    pmix_data_array_t* d = attach_array(out, apps.size(), PMIX_APP);
    auto* items = static_cast<pmix_app_t*>(d->array);
    for (std::size_t i = 0; i < apps.size(); ++i) load(items[i], apps[i]);
  }
};

}  // namespace

void load(pmix_value_t& out, const Value& v, std::string_view key) { std::visit(Loader{out, key}, v); }

PmixInfos to_pmix(const InfoList& list, std::size_t spare) {
  PmixInfos out(list.size() + spare);
  for (std::size_t i = 0; i < list.size(); ++i) {
    load_key(out[i], list.items[i].key);
    load(out[i].value, list.items[i].value, list.items[i].key);
  }
  return out;
}

void load(pmix_app_t& out, const App& app) {
  if (app.maxprocs > static_cast<std::uint32_t>(INT_MAX))
    throw PmixConversionError("pmix_app_t.maxprocs", std::to_string(app.maxprocs) + " does not fit an int");
  out.maxprocs = static_cast<int>(app.maxprocs);
  out.cmd = c_string(app.cmd, "pmix_app_t.cmd");
  c_argv(out.argv, &app.cmd, app.argv, "pmix_app_t.argv");
  if (!app.env.empty()) c_argv(out.env, nullptr, app.env, "pmix_app_t.env");
}

PmixApps to_pmix(std::span<const App> apps) {
  PmixApps out(apps.size());
  for (std::size_t i = 0; i < apps.size(); ++i) load(out.data()[i], apps[i]);
  return out;
}

pmix_proc_t to_pmix(const Proc& p) {
  if (p.nspace.size() > PMIX_MAX_NSLEN || p.nspace.find('\0') != std::string::npos)
    throw PmixConversionError(p.nspace, "an nspace longer than PMIX_MAX_NSLEN (" + std::to_string(PMIX_MAX_NSLEN) +
                                            ") or holding a NUL byte cannot travel");
  pmix_proc_t out;
  PMIX_PROC_CONSTRUCT(&out);
  std::memcpy(out.nspace, p.nspace.data(), p.nspace.size());
  out.rank = p.rank;
  return out;
}

// ---- reading ---------------------------------------------------------------------------------

Proc from_pmix(const pmix_proc_t& p) {
  return Proc{std::string(p.nspace, ::strnlen(p.nspace, PMIX_MAX_NSLEN + 1)), p.rank};
}

App from_pmix(const pmix_app_t& app) {
  if (app.maxprocs < 0)
    throw PmixConversionError("pmix_app_t.maxprocs", std::to_string(app.maxprocs) + " is not a process count");
  App out;
  out.cmd = app.cmd ? app.cmd : "";
  if (app.argv && app.argv[0])  // argv[0] is the command's name, not an argument
    for (char** a = app.argv + 1; *a; ++a) out.argv.emplace_back(*a);
  if (app.env)
    for (char** e = app.env; *e; ++e) out.env.emplace_back(*e);
  out.maxprocs = static_cast<std::uint32_t>(app.maxprocs);
  return out;
}

namespace {

std::string type_name(pmix_data_type_t type) {
  const char* name = PMIx_Data_type_string(type);
  return name ? name : "type " + std::to_string(type);
}

[[noreturn]] void refuse(std::string_view key, const std::string& type) {
  throw PmixConversionError(std::string(key), "a value of type " + type + " cannot be carried by the flow");
}

Value read_array(const pmix_data_array_t* d, std::string_view key) {
  if (!d) throw PmixConversionError(std::string(key), "a PMIX_DATA_ARRAY without its array");
  if (d->size > 0 && !d->array)
    throw PmixConversionError(std::string(key), "a PMIX_DATA_ARRAY of " + std::to_string(d->size) + " without items");
  if (d->type == PMIX_INFO) return from_pmix(static_cast<const pmix_info_t*>(d->array), d->size);
  if (d->type == PMIX_APP) {
    std::vector<App> apps;
    apps.reserve(d->size);
    for (std::size_t i = 0; i < d->size; ++i) apps.push_back(from_pmix(static_cast<const pmix_app_t*>(d->array)[i]));
    return apps;
  }
  refuse(key, "PMIX_DATA_ARRAY of " + type_name(d->type));
}

// The integral types, each read into the flow's one alternative that holds it exactly.
bool read_number(const pmix_value_t& v, Value& out) {
  switch (v.type) {
    case PMIX_INT32: out = v.data.int32; return true;
    case PMIX_INT: out = static_cast<std::int32_t>(v.data.integer); return true;
    case PMIX_INT16: out = static_cast<std::int32_t>(v.data.int16); return true;
    case PMIX_INT8: out = static_cast<std::int32_t>(v.data.int8); return true;
    case PMIX_UINT32: out = v.data.uint32; return true;
    case PMIX_UINT: out = static_cast<std::uint32_t>(v.data.uint); return true;
    case PMIX_UINT16: out = static_cast<std::uint32_t>(v.data.uint16); return true;
    case PMIX_UINT8: out = static_cast<std::uint32_t>(v.data.uint8); return true;
    case PMIX_PROC_RANK: out = static_cast<std::uint32_t>(v.data.rank); return true;
#ifdef PMIX_ALLOC_INHERIT  // v5's own type for PMIX_ALLOC_INHERITANCE; 4.2.2 has none
    case PMIX_ALLOC_INHERIT: out = static_cast<std::uint32_t>(v.data.inheritance); return true;
#endif
    case PMIX_UINT64: out = v.data.uint64; return true;
    case PMIX_SIZE: out = static_cast<std::uint64_t>(v.data.size); return true;
    case PMIX_DOUBLE: out = v.data.dval; return true;
    case PMIX_FLOAT: out = static_cast<double>(v.data.fval); return true;
    default: return false;
  }
}

}  // namespace

Value read(const pmix_value_t& v, std::string_view key) {
  Value out;
  if (read_number(v, out)) return out;
  switch (v.type) {
    case PMIX_UNDEF: return true;  // a key given without a value means true (PMIX_INFO_TRUE)
    case PMIX_BOOL: return v.data.flag;
    case PMIX_STRING: return std::string(v.data.string ? v.data.string : "");
    case PMIX_STATUS: return from_pmix_status(v.data.status);
    case PMIX_ALLOC_DIRECTIVE: return from_pmix_directive(v.data.adir);
    case PMIX_PROC:
      if (!v.data.proc) throw PmixConversionError(std::string(key), "a PMIX_PROC without its proc");
      return from_pmix(*v.data.proc);
    case PMIX_DATA_ARRAY: return read_array(v.data.darray, key);
    default: refuse(key, type_name(v.type));
  }
}

InfoList from_pmix(const pmix_info_t* info, std::size_t n) { return from_pmix(info, n, {}); }

InfoList from_pmix(const pmix_info_t* info, std::size_t n, std::span<const std::string_view> skip_keys) {
  InfoList out;
  if (!info && n > 0) throw PmixConversionError("", "an info array of " + std::to_string(n) + " items without items");
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view key(info[i].key, ::strnlen(info[i].key, PMIX_MAX_KEYLEN + 1));
    if (std::find(skip_keys.begin(), skip_keys.end(), key) != skip_keys.end()) continue;
    out.add(key, read(info[i].value, key));
  }
  return out;
}

}  // namespace pmixflow::emul
