/* topo_sg_zone.cpp - can SimGrid route between two hosts?  Two hosts of a
 * zone without routing (routing="None", SimGrid's EmptyZone) have no route:
 * asking for one stops SimGrid (EmptyZone.hpp: "There can't be route in an
 * Empty zone"), and no message of a run that went through takes it.  The
 * zone's dynamic type by name: libsimgrid does not export EmptyZone's
 * typeinfo, so no dynamic_cast. */
#include <cstring>
#include <typeinfo>

#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "llamp_topo_sg.h"

extern "C" int llamp_topo_sg_routable(sg_host_t a, sg_host_t b) {
  const simgrid::s4u::NetZone* za = a->get_englobing_zone();
  if (za != b->get_englobing_zone() || !za->get_impl()) return 1;
  const simgrid::kernel::routing::NetZoneImpl& z = *za->get_impl();
  return std::strcmp(typeid(z).name(), "N7simgrid6kernel7routing9EmptyZoneE") != 0;
}
