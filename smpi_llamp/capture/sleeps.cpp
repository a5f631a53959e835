/* sleeps.cpp - where SMPI's MPI_Waitsome stops waiting and starts polling.
 *
 * SMPI 3.32 runs MPI_Waitsome as a Waitany, then one MPI_Test of every other
 * request (src/smpi/mpi/smpi_request.cpp, Request::waitsome).  Each of those
 * tests first sleeps nsleeps x smpi/test (nsleeps: a counter shared by all
 * ranks, growing with every failed test), a nonblocking collective's test
 * once more per sub-request: the call's time after its Waitany is polling,
 * not a wait.  The first sleep of a whole multiple of smpi/test marks that
 * point (the Waitany's own sleeps are smpi/or after receives of detached
 * messages).  s4u::Actor::on_sleep / on_wake_up fire in the sleeping
 * actor's context; the watch is kept per actor (other ranks run during the
 * call, each with its own watch). */
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <cmath>
#include <vector>

extern "C" {
#include "capture_internal.h"
}

namespace {
struct watch_t {
  bool on = false;
  double sleep_start = NAN; /* the current sleep's start */
  double first = NAN;       /* the first test sleep's start */
  /* MPI_Waitall's completion order (llamp_capture_sleeps_order) */
  void* const* reqs = nullptr;
  const void* null_req = nullptr;
  int n = 0;
  int* window = nullptr;
  int cur = 0;
};
std::vector<watch_t> watches; /* by actor id */
double test_sleep = 0;        /* smpi/test */
bool connected = false;

watch_t* mine(bool grow)
{
  long pid = simgrid::s4u::this_actor::get_pid();
  if (pid < 0)
    return nullptr;
  if ((size_t)pid >= watches.size()) {
    if (not grow)
      return nullptr;
    watches.resize((size_t)pid + 1);
  }
  return &watches[(size_t)pid];
}

bool whole_multiple(double d)
{
  if (not(test_sleep > 0) || not(d > 0))
    return false;
  double k = d / test_sleep;
  return k > 0.5 && std::fabs(k - std::round(k)) < 1e-6;
}
} // namespace

extern "C" int llamp_capture_sleeps_start(void)
{
  if (connected)
    return 0;
  try {
    test_sleep = simgrid::config::get_value<double>("smpi/test");
  } catch (...) {
    return -1; /* no such setting: no split */
  }
  simgrid::s4u::Actor::on_sleep_cb([](simgrid::s4u::Actor const&) {
    watch_t* w = mine(false);
    if (w && w->on)
      w->sleep_start = simgrid::s4u::Engine::get_clock();
    if (w && w->reqs) { /* the requests finished before this sleep: the window closes */
      for (int i = 0; i < w->n; i++)
        if (w->window[i] < 0 && w->reqs[i] == w->null_req)
          w->window[i] = w->cur;
      w->cur++;
    }
  });
  simgrid::s4u::Actor::on_wake_up_cb([](simgrid::s4u::Actor const&) {
    watch_t* w = mine(false);
    if (w && w->on && std::isnan(w->first) && whole_multiple(simgrid::s4u::Engine::get_clock() - w->sleep_start))
      w->first = w->sleep_start;
  });
  connected = true;
  return 0;
}

extern "C" void llamp_capture_sleeps_watch(void)
{
  if (not connected)
    return;
  if (watch_t* w = mine(true))
    *w = watch_t{true, NAN, NAN};
}

extern "C" double llamp_capture_sleeps_first_test(void)
{
  watch_t* w = connected ? mine(false) : nullptr;
  if (not w || not w->on)
    return NAN;
  w->on = false;
  return w->first;
}

/* SMPI 3.32's MPI_Waitall is a loop of Waitany (Request::waitall); each
 * completed receive of a detached message sleeps smpi/or in finish_wait,
 * after the requests completed before it were set to MPI_REQUEST_NULL in
 * the program's array.  So the sleeps cut the call into windows: window[i]
 * = the number of sleeps begun before request i was seen null (requests
 * null at the start: 0).  The order SMPI completed them, as far as the
 * DAG needs it (a receive's or after the ones before it). */
extern "C" void llamp_capture_sleeps_order(void* const* reqs, const void* null_req, int n, int* window)
{
  watch_t* w = connected ? mine(true) : nullptr;
  for (int i = 0; i < n; i++)
    window[i] = reqs[i] == null_req ? 0 : -1;
  if (not w)
    return;
  w->reqs     = reqs;
  w->null_req = null_req;
  w->n        = n;
  w->window   = window;
  w->cur      = 0;
}

extern "C" void llamp_capture_sleeps_order_end(void)
{
  watch_t* w = connected ? mine(false) : nullptr;
  if (not w || not w->reqs)
    return;
  for (int i = 0; i < w->n; i++) /* completed after the last sleep */
    if (w->window[i] < 0)
      w->window[i] = w->cur;
  w->reqs = nullptr;
}
