#include "trace/trace_upgrade.h"

#include <cstddef>
#include <cstring>

#include "trace/roles_from_names.h"

namespace cublasspy {

using namespace format;

namespace {

// Zeroes the header's bytes [from, to).
void clear(FileHeader& h, size_t from, size_t to) { std::memset(reinterpret_cast<char*>(&h) + from, 0, to - from); }

}  // namespace

void upgrade_header(FileHeader& h) {
  const uint32_t v = h.format_version;
  // Version 4, writer version: not recorded before.
  if (v < 4) std::memset(h.writer_version, 0, sizeof h.writer_version);
  // Version 4, launches: the launch ring and the kernel table; older versions had none (their
  // bytes there are zero, and read as zero whatever they hold).
  if (v < 4) clear(h, offsetof(FileHeader, launch_offset), offsetof(FileHeader, reserved_launches) + sizeof h.reserved_launches);
  // Version 5, ends: the launcher's wait status; none before (and the bytes after it read as
  // zero too: the steps below clear their parts of them again).
  if (v < 5) clear(h, offsetof(FileHeader, launcher_wait), sizeof(FileHeader));
  // Version 6, launch totals: the launch count tables and the launch tickets' blocks; older
  // versions had neither (one ticket a launch, the totals in the kernel table).
  if (v < 6) {
    clear(h, offsetof(FileHeader, launch_counts_offset),
          offsetof(FileHeader, reserved_launch_totals) + sizeof h.reserved_launch_totals);
  }
  // Version 6, pinned line: no first failed launch before.
  if (v < 6) clear(h, offsetof(FileHeader, first_failed_launch), offsetof(FileHeader, reserved_pinned_line));
  // Version 8, graphs: no stale graph launch before.
  if (v < 8) clear(h, offsetof(FileHeader, stale_replay_launch), offsetof(FileHeader, reserved_ends));
  // Version 9, failure sites: none before.
  if (v < 9) clear(h, offsetof(FileHeader, failure_sites_offset), sizeof(FileHeader));
  // Version 10, unchanged setters: no counts before (the bytes were reserved, and read as zero
  // whatever they hold).
  if (v < 10) h.unchanged_offset = 0;
}

void upgrade_function(FunctionEntry& f, uint32_t version) {
  // Version 3: before it the table held names only. What they mean is derived here, once, so
  // every reader of the table finds fields by role whatever the version.
  if (version < 3) derive_roles_from_names(f);
  // Version 11: before it the table did not say what a function means (its traits, its fixed
  // element type): derived the same way, from the name and the roles.
  if (version < 11) derive_traits_from_names(f);
}

void upgrade_record(RecordSlot& slot, uint32_t version) {
  // Bytes that were padding before version 4 carry nothing.
  if (version < 4) slot.pending_error = 0;
  if (version < 7) slot.lt_emulation = {};
  if (version < 8) slot.capture_id = 0;
  if (version < 9) slot.failure_site = 0;
  if (version < 10) {
    slot.workspace = 0;
    slot.workspace_bytes = 0;
    slot.call.flags &= ~(kFlagWorkspaceKnown | kFlagUnchangedSetter);
  }
}

}  // namespace cublasspy
