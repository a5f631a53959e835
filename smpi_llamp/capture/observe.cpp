/* observe.cpp - every network transfer SimGrid ran, as it ran it: source and
 * destination host, bytes (with SMPI's envelope), start and finish time.
 * The observed contention model (docs/model.md, "Contention") charges each
 * message of the DAG its transfer's observed duration.
 *
 * SimGrid 3.32 fires s4u::Link::on_communication_state_change for each
 * network action (src/kernel/resource/NetworkModel.cpp, set_state); the
 * action's hosts are members of NetworkAction, whose header SimGrid does not
 * install.  Its definition below is 3.32's own (NetworkModel.hpp), for the
 * two inline accessors; other versions record nothing (checked at build). */
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/version.h>

#include <cstdlib>
#include <list>
#include <vector>

extern "C" {
#include "capture_internal.h"
}

#if SIMGRID_VERSION_MAJOR == 3 && SIMGRID_VERSION_MINOR == 32
namespace simgrid::kernel::resource {
class NetworkAction : public Action {
  s4u::Host& src_;
  s4u::Host& dst_;

public:
  NetworkAction(Model* model, s4u::Host& src, s4u::Host& dst, double cost, bool failed)
      : Action(model, cost, failed), src_(src), dst_(dst)
  {
  }
  NetworkAction(Model* model, s4u::Host& src, s4u::Host& dst, double cost, bool failed, lmm::Variable* var)
      : Action(model, cost, failed, var), src_(src), dst_(dst){};
  void set_state(Action::State state) override;
  virtual std::list<StandardLinkImpl*> get_links() const;
  double latency_         = 0.;
  double lat_current_     = 0.;
  double sharing_penalty_ = {};
  s4u::Host& get_src() const { return src_; }
  s4u::Host& get_dst() const { return dst_; }
};
} // namespace simgrid::kernel::resource
#define LLAMP_OBSERVE 1
#else
#define LLAMP_OBSERVE 0
#endif

static std::vector<llamp_capture_transfer_t> transfers;
static bool started;

extern "C" int llamp_capture_observe_start(void) {
#if LLAMP_OBSERVE
  if (started) return 0;
  started = true;
  simgrid::s4u::Link::on_communication_state_change_cb(
      [](simgrid::kernel::resource::NetworkAction& a, simgrid::kernel::resource::Action::State) {
        if (a.get_state() != simgrid::kernel::resource::Action::State::FINISHED) return;
        transfers.push_back({&a.get_src(), &a.get_dst(), a.get_cost(), a.get_start_time(), a.get_finish_time()});
      });
  return 0;
#else
  return -1;
#endif
}

extern "C" size_t llamp_capture_observed(const llamp_capture_transfer_t** out) {
  *out = transfers.data();
  return transfers.size();
}

extern "C" void llamp_capture_observed_free(void) {
  std::vector<llamp_capture_transfer_t>().swap(transfers);
}
