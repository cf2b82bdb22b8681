#include "trace/failure_site_table.h"

#include <atomic>
#include <cstring>

namespace cublasspy {
namespace {

using format::FailureSite;
using format::FailureSiteState;

template <typename T>
std::atomic_ref<T> atom(T& v) {
  return std::atomic_ref<T>(v);
}

uint64_t hash_of(const FailureSiteKey& k) {
  uint64_t h = k.return_address * 0x9E3779B97F4A7C15ull;
  h ^= (k.python_code + static_cast<uint64_t>(static_cast<uint32_t>(k.python_line))) * 0xC2B2AE3D27D4EB4Full;
  h ^= (static_cast<uint64_t>(k.function_id) << 32 | static_cast<uint32_t>(k.status)) * 0x165667B19E3779F9ull;
  return h ^ (h >> 29);
}

bool same_site(const FailureSite& s, const FailureSiteKey& k) {
  return s.return_address == k.return_address && s.python_code == k.python_code &&
         s.python_line == k.python_line && s.status == k.status && s.function_id == k.function_id;
}

}  // namespace

FailureSiteCount FailureSiteTable::count(const FailureSiteKey& key) {
  FailureSiteCount out;
  if (capacity_ == 0) return out;
  // Open addressing from the key's home entry; entries are never freed, so a site is found
  // before the first free entry of its probe, or not at all. The capacity is a power of two
  // (attach): a mask, not a division, on every failure.
  const uint32_t mask = capacity_ - 1;
  uint32_t index = static_cast<uint32_t>(hash_of(key)) & mask;
  for (uint32_t probe = 0; probe < capacity_; ++probe, index = (index + 1) & mask) {
    FailureSite& s = sites_[index];
    uint32_t state = atom(s.state).load(std::memory_order_acquire);
    if (state == static_cast<uint32_t>(FailureSiteState::kKeyed) && same_site(s, key)) [[likely]] {
      atom(s.count).fetch_add(1, std::memory_order_relaxed);
      out.index = static_cast<int32_t>(index);
      return out;
    }
    if (state != static_cast<uint32_t>(FailureSiteState::kFree)) continue;
    if (!atom(s.state).compare_exchange_strong(state, static_cast<uint32_t>(FailureSiteState::kClaimed),
                                               std::memory_order_acquire)) {
      // Another thread took it this instant: if for this very site, it is keyed shortly; move
      // on rather than wait (the site may then have two entries, both counting).
      if (state == static_cast<uint32_t>(FailureSiteState::kKeyed) && same_site(s, key)) {
        atom(s.count).fetch_add(1, std::memory_order_relaxed);
        out.index = static_cast<int32_t>(index);
        return out;
      }
      continue;
    }
    s.function_id = key.function_id;
    s.status = key.status;
    s.python_line = key.python_line;
    s.return_address = key.return_address;
    s.python_code = key.python_code;
    atom(s.count).store(1, std::memory_order_relaxed);
    atom(s.state).store(static_cast<uint32_t>(FailureSiteState::kKeyed), std::memory_order_release);
    out.index = static_cast<int32_t>(index);
    out.first = true;
    return out;
  }
  if (unsited_ != nullptr) atom(*unsited_).fetch_add(1, std::memory_order_relaxed);
  return out;
}

void FailureSiteTable::keep_first(int32_t index, const format::RecordSlot* slot, uint64_t seq) {
  if (index < 0 || static_cast<uint32_t>(index) >= capacity_) return;
  FailureSite& s = sites_[index];
  std::memcpy(&s.first, slot, sizeof s.first);
  atom(s.first.call.word).store(format::pack_word(seq, format::RecordState::kCompleted), std::memory_order_relaxed);
  atom(s.first_seq).store(seq, std::memory_order_release);
}

}  // namespace cublasspy
