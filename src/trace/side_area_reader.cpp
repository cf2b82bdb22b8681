#include "trace/trace_reader.h"

#include <algorithm>

// The side area, read (format version 4): the chains of entries attached to a call or to the
// first failed launch, read through the file and checked entry by entry.

namespace cublasspy {

using namespace format;

uint64_t TraceFile::side_used() const {
  if (header_.format_version < 4 || header_.side_bytes == 0) return 0;
  return std::min(load_header_u64(offsetof(FileHeader, side_used)), header_.side_bytes);
}

std::vector<SideEntryView> TraceFile::side_entries(const CallView& call) const {
  std::vector<SideEntryView> own = side_chain(call.slot.side_head, call.seq);
  if (!call.failed() || call.slot.failure_site == 0) return own;
  const auto is_location = [](const SideEntryView& e) {
    return e.kind == static_cast<uint32_t>(SideKind::kPythonStack) || e.kind == static_cast<uint32_t>(SideKind::kNativeStack);
  };
  if (std::any_of(own.begin(), own.end(), is_location)) return own;
  // A failure that repeated its site's first took no locations: the first's are its (and its
  // own entries of other kinds, a grouped GEMM's groups, stay its own).
  const std::optional<FailureSiteView> site = failure_site(call.slot.failure_site - 1);
  const int32_t status = call.rec().status != 0 ? call.rec().status : call.rec().async_status;
  if (!site || !site->first || site->function_id != call.rec().function_id || site->status != status ||
      site->first->seq == call.seq) {
    return own;
  }
  for (SideEntryView& e : side_chain(site->first->slot.side_head, site->first->seq)) {
    if (is_location(e)) own.push_back(std::move(e));
  }
  return own;
}

std::vector<SideEntryView> TraceFile::launch_side_entries(uint64_t ticket) const {
  const std::optional<uint64_t> first = first_failed_launch();
  if (!first || *first != ticket) return {};
  // The ticket + 1 as the entries' seq (a ticket of ~0 has no seq and no entries).
  if (ticket + 1 == 0) return {};
  return side_chain(load_header_u64(offsetof(FileHeader, first_failed_launch_side)), ticket + 1);
}

std::vector<SideEntryView> TraceFile::side_chain(uint64_t head, uint64_t seq) const {
  std::vector<SideEntryView> found;
  const uint64_t used = side_used();
  if (used == 0) return found;
  const uint64_t begin = header_.side_offset;
  // Read through the file, never the mapping (a file cut short gives a short read, not SIGBUS).
  // The header of an entry is read before its data: the writer stored the kind last, with
  // release order, so once the kind reads nonzero the data read after it is complete.
  uint64_t at = head;
  while (at != 0 && found.size() < kMaxSideEntriesPerRecord) {
    if (at < begin || (at - begin) % 8 != 0 || at - begin > used || used - (at - begin) < sizeof(SideEntry)) break;
    SideEntry entry;
    if (!read_at(at, &entry, sizeof entry)) break;
    const uint64_t room = used - (at - begin) - sizeof(SideEntry);
    if (entry.kind == 0 || entry.seq != seq || entry.length > kMaxSideEntryBytes ||
        entry.length > room) {
      break;  // not published, another record's, or corrupt: nothing older can be trusted
    }
    SideEntryView view;
    view.kind = entry.kind;
    view.seq = entry.seq;
    view.bytes.resize(entry.length);
    if (!read_at(at + sizeof(SideEntry), view.bytes.data(), entry.length)) break;
    found.push_back(std::move(view));
    // Links only go down (an entry is written after the one it names), so the walk ends.
    at = entry.prev < at ? entry.prev : 0;
  }
  std::reverse(found.begin(), found.end());
  return found;
}

std::optional<SideEntryView> TraceFile::side_entry(const CallView& call, uint32_t kind) const {
  for (SideEntryView& e : side_entries(call)) {
    if (e.kind == kind) return std::move(e);
  }
  return std::nullopt;
}

}  // namespace cublasspy
