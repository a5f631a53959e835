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
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <simgrid/version.h>

#include <cstdio>
#include <cstdlib>
#include <list>
#include <stdexcept>
#include <unordered_set>
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

/* Every message's latency + dl in SimGrid (the what-if runs of a latency
 * offset, docs/topology.md "Latency offsets"): a latency-factor callback
 * (network_cm02.cpp, comm_action_set_bounds, multiplies the route's latency
 * R by it) of lat_factor(size) + dl / R, lat_factor the model's curve
 * (SMPI's smpi/lat-factor, in payload bytes).  SimGrid refuses a callback
 * when smpi/lat-factor was set (NetworkSmpiModel::check_lat_factor_cb). */
static uint64_t unraised; /* transfers on routes of zero latency: no factor raises them */

extern "C" uint64_t llamp_capture_latency_unraised(void) { return unraised; }

extern "C" int llamp_capture_add_latency(double dl, const llamp_netmodel_t* m, char* err, size_t errlen) {
  auto* model = simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
  if (!model) {
    snprintf(err, errlen, "no network model to add a latency offset to");
    return -1;
  }
  llamp_netmodel_curve_t lf = m->lat_factor;
  double env = m->envelope;
  /* A route of latency 0 (a latency-free link, SimGrid's energy_platform.xml
   * bus) cannot be raised by a factor: counted (unraised).  Giving its links
   * a nanosecond here would take a simcall, during which the other ranks
   * would enter MPI_Init before the session is set up. */
  try {
    model->set_lat_factor_cb([dl, lf, env](double size, const simgrid::s4u::Host*, const simgrid::s4u::Host*,
                                           const std::vector<simgrid::s4u::Link*>& links,
                                           const std::unordered_set<simgrid::s4u::NetZone*>&) {
      double r = 0;
      for (auto const* l : links) r += l->get_latency();
      double f = llamp_netmodel_curve_eval(&lf, size - env, 1);
      if (r > 0)
        return f + dl / r;
      unraised++;
      return f;
    });
  } catch (const std::exception& e) {
    snprintf(err, errlen, "SimGrid refuses a latency callback (%s): a latency offset needs smpi/lat-factor at its "
                          "default (not set by the platform's <config>, --cfg or a model file)", e.what());
    return -1;
  }
  return 0;
}
