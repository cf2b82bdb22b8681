#include "call_locations.h"

#include "native_stack.h"
#include "python_stack.h"

namespace cublasspy {

namespace {

// Both locations, attached to the chain `head` under `seq` (a record's, or a launch's).
void take_locations(Runtime& rt, uint64_t& head, uint64_t seq) {
  ThreadState& ts = thread_state();
  ts.internal++;  // anything hooked below (there should be nothing) passes through
  StackEncoder encoded;
  if (take_python_stack(encoded)) {
    rt.writer.attach(head, seq, static_cast<uint32_t>(format::SideKind::kPythonStack), encoded.data(), encoded.used());
  }
  if (take_native_stack(encoded)) {
    rt.writer.attach(head, seq, static_cast<uint32_t>(format::SideKind::kNativeStack), encoded.data(), encoded.used());
  }
  ts.internal--;
}

}  // namespace

void take_locations(Runtime& rt, format::RecordSlot* slot, uint64_t seq) { take_locations(rt, slot->side_head, seq); }

FailureSiteCount count_failure_site(Runtime& rt, format::RecordSlot* slot, const void* caller, bool python) {
  const format::Record& rec = slot->call;
  FailureSiteKey key;
  key.return_address = reinterpret_cast<uint64_t>(caller);
  key.function_id = rec.function_id;
  key.status = rec.status != 0 ? rec.status : rec.async_status;  // a fault found after the call
  if (python) {
    ThreadState& ts = thread_state();
    ts.internal++;
    take_python_site(key.python_code, key.python_line);
    ts.internal--;
  }
  const FailureSiteCount site = rt.writer.failure_sites().count(key);
  slot->failure_site = site.index >= 0 ? static_cast<uint32_t>(site.index) + 1 : 0;
  return site;
}

void take_launch_locations(Runtime& rt, uint16_t id, uint64_t ticket) {
  // Claimed whatever CUBLASSPY_STACKS says: the header names the first failed launch either way.
  uint64_t* head = rt.writer.claim_first_failed_launch(ticket);
  if (head != nullptr && may_take_locations(rt, id, thread_state().depth)) take_locations(rt, *head, ticket + 1);
}

}  // namespace cublasspy
