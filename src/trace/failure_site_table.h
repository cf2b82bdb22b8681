// The failure-site table (format::FailureSite): where a program's failing calls come from,
// each site counted, its first failure kept apart from the ring with its locations. What lets
// a call that fails thousands of times from one place cost a count after its first time,
// instead of a stack walk each time, without losing where it came from.
#pragma once

#include <cstdint>

#include "trace/trace_format.h"

namespace cublasspy {

// What a site is (format::FailureSite's key).
struct FailureSiteKey {
  uint64_t return_address = 0;
  uint64_t python_code = 0;  // 0: no Python frame taken
  int32_t python_line = -1;
  int32_t status = 0;
  uint16_t function_id = 0;
};

// A failure counted at its site: the entry's index (-1: no entry, the table is full or absent),
// and whether this failure is the site's first (its record should be located and kept).
struct FailureSiteCount {
  int32_t index = -1;
  bool first = false;
};

// Lock-free, allocation-free: the table lives in the trace's mapping.
class FailureSiteTable {
 public:
  // The table at `sites` (capacity entries, zeroed) and the header's count of failures that
  // found no entry; nullptr: none (the trace is closed, or was a forked parent's).
  // `capacity` must be a power of two (format::kFailureSites is); another makes no table.
  void attach(format::FailureSite* sites, uint32_t capacity, uint64_t* unsited) {
    sites_ = sites;
    capacity_ = sites != nullptr && capacity != 0 && (capacity & (capacity - 1)) == 0 ? capacity : 0;
    unsited_ = unsited;
  }
  // Counts a failure at `key`'s site, claiming an entry for a site not seen before.
  FailureSiteCount count(const FailureSiteKey& key);
  // Copies the completed record of site `index`'s first failure (made under `seq`) into the
  // entry. Once per site, by the thread whose count() claimed it.
  void keep_first(int32_t index, const format::RecordSlot* slot, uint64_t seq);

 private:
  format::FailureSite* sites_ = nullptr;
  uint32_t capacity_ = 0;
  uint64_t* unsited_ = nullptr;
};

}  // namespace cublasspy
