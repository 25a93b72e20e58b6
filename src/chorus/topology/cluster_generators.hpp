// Generators of the fabrics of real training clusters, as plain graphs (no ASTRA-sim dimensions): k-ary fat-trees
// with oversubscription, rail-optimized multi-plane fabrics, and dragonflies. NPUs come first (ids 0..N-1), then
// the switches in the order listed per generator. Every connection is a full-duplex pair of links.
//
//   Topology t = fat_tree({.k = 4, .oversubscription = 2}, host, fabric);   // 32 hosts, 20 switches
#pragma once

#include <cstdint>

#include "chorus/topology/generators.hpp"

namespace chorus {

// k-ary fat-tree (Al-Fares, Loukissas & Vahdat, "A Scalable, Commodity Data Center Network Architecture",
// SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core switches; edge switch e of a pod
// links to every aggregation switch of the pod, aggregation switch a to cores a*k/2 .. a*k/2 + k/2 - 1. Each edge
// switch has k/2 * oversubscription hosts (NPUs), so hosts = k^3/4 * oversubscription and the edge layer is
// oversubscribed oversubscription:1 (1 = full bisection). Switch ids: edges (pod-major), aggregations, cores.
// Named "fattree:k=K,oversub=O"; `host` is the NPU-edge link, `fabric` every switch-switch link.
struct FatTreeShape {
  uint32_t k = 4;                 // even, >= 2
  uint32_t oversubscription = 1;  // hosts per edge switch / its uplinks, >= 1
};
Topology fat_tree(FatTreeShape shape, LinkParams host, LinkParams fabric);

// Rail-optimized multi-plane fabric (NVIDIA DGX SuperPOD reference architecture; Meta's Llama 3 cluster):
// `nodes` servers of `gpus` GPUs; inside a server every GPU links to the server's NVSwitch (`nvlink`); GPU g of a
// server has one NIC (`nic`) to the rail leaf switch g of its scalable unit (`unit` consecutive servers); every
// leaf links to every one of `spines` spine switches with bandwidth unit * nic / (spines * oversubscription), so
// the leaf's uplinks carry its downlinks / oversubscription (latency: the NIC's). Switch ids: NVSwitches, leaves
// (unit-major), spines. Named "rail:nodes=N,gpus=G,unit=U,spines=S,oversub=O".
struct RailShape {
  uint32_t nodes = 4;
  uint32_t gpus = 8;
  uint32_t unit = 2;    // servers per scalable unit; divides nodes
  uint32_t spines = 2;  // >= 1
  uint32_t oversubscription = 1;
};
Topology rail_fabric(RailShape shape, LinkParams nvlink, LinkParams nic);

// Dragonfly (Kim, Dally, Scott & Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008): g
// groups of a routers, fully connected inside a group (`local`), p terminals (NPUs) per router (`terminal`), h
// global links per router (`global`). With g = a*h + 1 every pair of groups shares exactly one global link: port j
// (0 <= j < a*h, on router j / h) of group G leads to group (G + j + 1) mod g. Switch ids: routers, group-major.
// Named "dragonfly:p=P,a=A,h=H".
struct DragonflyShape {
  uint32_t p = 2;
  uint32_t a = 4;
  uint32_t h = 2;
};
Topology dragonfly(DragonflyShape shape, LinkParams terminal, LinkParams local, LinkParams global);

}  // namespace chorus
