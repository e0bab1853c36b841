//===- Profile.cpp - Reading runtime profiles ------------------------------===//

#include "fw/Profile/Profile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace mlir::fw;
namespace json = llvm::json;

llvm::StringRef ProfileEntry::executable() const {
  llvm::StringRef name = task;
  return name.contains('.') ? name.split('.').second : name;
}

static llvm::Error error(llvm::StringRef path, const llvm::Twine &what) {
  return llvm::createStringError("profile '" + path + "': " + what);
}

/// "0x5b2f8ce830855d38" as a number.
static std::optional<uint64_t> parseHex(std::optional<llvm::StringRef> text) {
  uint64_t value;
  if (!text || !text->starts_with("0x") ||
      text->drop_front(2).getAsInteger(16, value))
    return std::nullopt;
  return value;
}

/// Reads `key` of `object` into `out` when it is there; false when it is
/// there but not a string.
static bool readOptionalString(const json::Object &object, llvm::StringRef key,
                               std::string &out) {
  const json::Value *value = object.get(key);
  if (!value)
    return true;
  if (!value->getAsString())
    return false;
  out = value->getAsString()->str();
  return true;
}

/// Whether `pair` names two tiers, "host->device".
static bool isTierPair(llvm::StringRef pair) {
  auto [from, to] = pair.split("->");
  auto tier = [](llvm::StringRef t) {
    return t == "device" || t == "host" || t == "storage";
  };
  return pair.contains("->") && tier(from) && tier(to);
}

/// Reads `key` of `object` into `out` when it is there; false when it is
/// there but not a non-negative integer.
static bool readOptionalCount(const json::Object &object, llvm::StringRef key,
                              uint64_t &out) {
  const json::Value *value = object.get(key);
  if (!value)
    return true;
  std::optional<int64_t> n = value->getAsInteger();
  if (!n || *n < 0)
    return false;
  out = static_cast<uint64_t>(*n);
  return true;
}

llvm::Expected<Profile> mlir::fw::parseProfile(llvm::StringRef text,
                                               llvm::StringRef path) {
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return error(path, "is not JSON: " + llvm::toString(parsed.takeError()));
  const json::Object *root = parsed->getAsObject();
  if (!root || root->getString("format") != "fw-profile")
    return error(path, "is not an fw profile (no \"format\": \"fw-profile\")");
  std::optional<int64_t> version = root->getInteger("version");
  if (!version)
    return error(path, "has no format version");
  if (*version != kProfileVersion)
    return error(path, llvm::formatv("has format version {0}; this fwc reads {1}",
                                     *version, kProfileVersion));
  Profile profile;
  const json::Object *module = root->getObject("module");
  if (!module || !module->getString("name"))
    return error(path, "has no \"module\" with a name");
  profile.moduleName = module->getString("name")->str();
  std::optional<uint64_t> build = parseHex(module->getString("build_id"));
  std::optional<uint64_t> source = parseHex(module->getString("source_id"));
  if (!build || !source)
    return error(path, "has no valid module.build_id and module.source_id "
                       "(\"0x\" and hex digits)");
  profile.buildId = *build;
  profile.sourceId = *source;
  profile.runs = root->getInteger("runs").value_or(0);
  if (!readOptionalCount(*root, "cpu_workers", profile.cpuWorkers))
    return error(path, "\"cpu_workers\" must be a non-negative integer");
  if (const json::Value *transfers = root->get("transfers")) {
    const json::Object *pairs = transfers->getAsObject();
    if (!pairs)
      return error(path, "\"transfers\" must map tier pairs (\"host->device\") to "
                         "{\"bytes\", \"seconds\"}");
    for (const auto &[pair, value] : *pairs) {
      const json::Object *t = value.getAsObject();
      std::optional<int64_t> bytes = t ? t->getInteger("bytes") : std::nullopt;
      std::optional<double> seconds = t ? t->getNumber("seconds") : std::nullopt;
      if (!isTierPair(pair) || !bytes || *bytes < 0 || !seconds ||
          !std::isfinite(*seconds) || *seconds < 0)
        return error(path, "\"transfers\" must map tier pairs (\"host->device\") to "
                           "{\"bytes\", \"seconds\"}");
      profile.transfers[pair.str()] = {static_cast<uint64_t>(*bytes), *seconds};
    }
  }
  const json::Array *tasks = root->getArray("tasks");
  if (!tasks)
    return error(path, "has no \"tasks\" array");
  for (auto [index, value] : llvm::enumerate(*tasks)) {
    auto bad = [&, index = index](llvm::StringRef field) {
      return error(path, llvm::formatv("tasks[{0}]: {1}", index, field));
    };
    const json::Object *t = value.getAsObject();
    if (!t)
      return bad("is not an object");
    ProfileEntry entry;
    std::optional<llvm::StringRef> task = t->getString("task");
    std::optional<llvm::StringRef> device = t->getString("device");
    if (!task || task->empty())
      return bad("\"task\" is missing or not a name");
    if (!device || (*device != "cpu" && *device != "cuda" && *device != "hip"))
      return bad("\"device\" must be \"cpu\", \"cuda\" or \"hip\"");
    std::optional<int64_t> sizeClass = t->getInteger("size_class");
    if (!sizeClass || *sizeClass < 0 || *sizeClass > 64)
      return bad("\"size_class\" must be an integer in [0, 64]");
    std::optional<int64_t> count = t->getInteger("count");
    if (!count || *count < 0)
      return bad("\"count\" must be a non-negative integer");
    const json::Object *seconds = t->getObject("seconds");
    std::optional<double> median =
        seconds ? seconds->getNumber("median") : std::nullopt;
    std::optional<double> total =
        seconds ? seconds->getNumber("total") : std::nullopt;
    if (!median || !total || !std::isfinite(*median) || *median < 0 ||
        !std::isfinite(*total) || *total < 0)
      return bad("\"seconds\" must hold a non-negative \"median\" and \"total\"");
    for (auto [key, field] :
         {std::pair<llvm::StringRef, std::string *>{"config", &entry.config},
          {"arch", &entry.arch},
          {"bindings", &entry.bindings}})
      if (!readOptionalString(*t, key, *field))
        return bad(("\"" + key + "\" must be a string").str());
    if (const json::Value *selected = t->get("selected")) {
      if (!selected->getAsBoolean())
        return bad("\"selected\" must be true or false");
      entry.selected = *selected->getAsBoolean();
    }
    if (!readOptionalCount(*t, "workgroups", entry.workgroups))
      return bad("\"workgroups\" must be a non-negative integer");
    if (const json::Value *moved = t->get("bytes_moved")) {
      const json::Object *pairs = moved->getAsObject();
      if (!pairs)
        return bad("\"bytes_moved\" must map tier pairs (\"host->device\") to byte counts");
      for (const auto &[pair, value] : *pairs) {
        std::optional<int64_t> bytes = value.getAsInteger();
        if (!isTierPair(pair) || !bytes || *bytes < 0)
          return bad("\"bytes_moved\" must map tier pairs (\"host->device\") to byte counts");
        entry.bytesMoved[pair.str()] = static_cast<uint64_t>(*bytes);
      }
    }
    if (const json::Value *device = t->get("device_seconds")) {
      const json::Object *d = device->getAsObject();
      std::optional<double> total = d ? d->getNumber("total") : std::nullopt;
      std::optional<int64_t> runs = d ? d->getInteger("runs") : std::nullopt;
      if (!total || !runs || !std::isfinite(*total) || *total < 0 || *runs < 0)
        return bad("\"device_seconds\" must hold a non-negative \"total\" "
                   "and \"runs\"");
      if (*runs > 0)
        entry.deviceSeconds = *total / static_cast<double>(*runs);
    }
    entry.task = task->str();
    entry.device = device->str();
    entry.sizeClass = static_cast<int>(*sizeClass);
    entry.count = static_cast<uint64_t>(*count);
    entry.medianSeconds = *median;
    // Older or hand-written profiles may lack the minimum: the median stands in.
    std::optional<double> min = seconds->getNumber("min");
    entry.minSeconds = min && std::isfinite(*min) && *min >= 0 ? *min : *median;
    entry.totalSeconds = *total;
    profile.entries.push_back(std::move(entry));
  }
  return profile;
}

llvm::Expected<Profile> mlir::fw::readProfile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return error(path, "cannot be read: " + file.getError().message());
  return parseProfile((*file)->getBuffer(), path);
}
