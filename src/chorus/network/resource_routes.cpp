// Physical-link routes for the contention models (see resource_routes.hpp).
#include "chorus/network/resource_routes.hpp"

namespace chorus {

static_assert(sizeof(LinkId) == sizeof(uint32_t), "LinkId must be a bare uint32_t to be viewed as a resource id");

PhysicalRoutes::PhysicalRoutes(const Schedule& schedule, const RouteTable& routes)
    : schedule_(schedule), routes_(routes), topology_(routes.topology()) {}

std::span<const uint32_t> PhysicalRoutes::route(OpId op) const {
  const std::span<const LinkId> links = routes_.route(schedule_.src(op), schedule_.dst(op));
  return {reinterpret_cast<const uint32_t*>(links.data()), links.size()};
}

}  // namespace chorus
