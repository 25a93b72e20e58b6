#!/usr/bin/python3
# Writes hand-made execution traces in the newer schema "1.1.1-chakra.0.0.4" (PyTorch 2.x), 4 ranks, for the
# tests of `chorus import pytorch`: PyTorch 1.13 (the Debian package) writes the older "1.0.1". Two programs:
# schema_1_1_4r (all_reduce, all_gather, send/recv) and schema_1_1_shard_4r (reduce_scatter in both forms and
# broadcast, which gloo in 1.13 cannot record).
#
#   /usr/bin/python3 tests/data/pytorch/write_schema_1_1_traces.py tests/data/pytorch
#
# Field names follow the writer, pytorch/pytorch torch/csrc/profiler/standalone/execution_trace_observer.cpp:
# writeJsonNode() writes "id", "name", "ctrl_deps" (the parent), "inputs"/"outputs" as {"values", "shapes",
# "types", "strides"} and "attrs" [{"name", "type", "value"}] with rf_id, fw_parent, seq_id, scope, tid, fw_tid,
# op_schema, kernel_backend, kernel_file; getCommsNodeAttrs() adds, on communication nodes, collective_name,
# dtype, in_msg_nelems, out_msg_nelems, in_split_size, out_split_size, global_rank_start, global_rank_stride,
# pg_name, pg_desc, pg_size. Tensors are [tensor_id, storage_id, offset, numel, elem_bytes, device]. The
# "## process_group:init ##" node carries the group list as a JSON string (shared/reference/chakra-et.md).
# record_param_comms' collective_name and message sizes follow ProcessGroupNCCL.cpp's RECORD_PARAM_COMMS_DATA
# calls: "_reduce_scatter_base" (inNelems the input's numel, outNelems the output's), "reduce_scatter" (the list
# form: inNelems = output numel * group size, its input the Tensor[][] list), "broadcast" (in = out = numel);
# its first input is the input tensor(s), its output the output tensor(s).
#
# The first program each rank runs (world 4; process group "1" = ranks {0,1}, "2" = ranks {2,3}):
#   y = mm(a, b)                         a, b, y: 1024 bf16 (2048 bytes)
#   all_reduce(y) on its pair group      record_param_comms + nccl:all_reduce, 2048 bytes
#   all_gather_into_tensor(out, y)       c10d::_allgather_base_, world, input 2048 bytes, output 8192
#   z = add(y, y)                        reads y: waits for the all_reduce
#   even ranks send 256 float32 (1024 bytes) to rank+1, odd ranks receive them from rank-1
import json
import os
import sys


def attrs(rf_id, extra=()):
    base = [{"name": "rf_id", "type": "uint64", "value": rf_id},
            {"name": "fw_parent", "type": "uint64", "value": 0},
            {"name": "seq_id", "type": "int64", "value": -1},
            {"name": "scope", "type": "uint64", "value": 0},
            {"name": "tid", "type": "uint64", "value": 1},
            {"name": "fw_tid", "type": "uint64", "value": 0},
            {"name": "op_schema", "type": "string", "value": ""},
            {"name": "kernel_backend", "type": "string", "value": ""},
            {"name": "kernel_file", "type": "string", "value": ""}]
    return base + [{"name": n, "type": t, "value": v} for n, t, v in extra]


def io(values):
    return {"values": values, "shapes": [[] for _ in values], "types": ["" for _ in values],
            "strides": [[] for _ in values]}


def node(id_, name, parent, rf_id, inputs=(), outputs=(), extra=()):
    return {"id": id_, "name": name, "ctrl_deps": parent, "inputs": io(list(inputs)),
            "outputs": io(list(outputs)), "attrs": attrs(rf_id, extra)}


def comms(name, pg, start, size, nelems, out_nelems=None):
    if out_nelems is None:
        out_nelems = nelems * (size if "gather" in name else 1)
    return [("collective_name", "string", name), ("dtype", "string", "BFloat16"),
            ("in_msg_nelems", "uint64", nelems), ("out_msg_nelems", "uint64", out_nelems),
            ("in_split_size", "string", "[]"), ("out_split_size", "string", "[]"),
            ("global_rank_start", "uint64", start), ("global_rank_stride", "uint64", 1),
            ("pg_name", "string", pg), ("pg_desc", "string", "default_pg" if pg == "0" else "tp"),
            ("pg_size", "uint64", size)]


def groups_node(id_, parent):
    groups = [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "ranks": [], "group_size": 4,
               "group_count": 3},
              {"pg_name": "1", "pg_desc": "tp", "backend_config": "cuda:nccl", "ranks": [0, 1], "group_size": 2,
               "group_count": 3},
              {"pg_name": "2", "pg_desc": "tp", "backend_config": "cuda:nccl", "ranks": [2, 3], "group_size": 2,
               "group_count": 3}]
    return node(id_, "## process_group:init ##", parent, 1, [json.dumps(groups)])


def trace(rank, nodes):
    return {"schema": "1.1.1-chakra.0.0.4", "pid": 1000 + rank, "time": "2024-06-01 00:00:00", "start_ts": 0,
            "nodes": nodes, "finish_ts": 10}


def rank_trace(rank):
    dev = "cuda:%d" % rank
    a, b, y = [10, 11, 0, 1024, 2, dev], [12, 13, 0, 1024, 2, dev], [14, 15, 0, 1024, 2, dev]
    out = [16, 17, 0, 4096, 2, dev]
    pair = "1" if rank < 2 else "2"
    msg = [20, 21, 0, 256, 4, dev]
    p2p = (node(12, "c10d::send", 2, 9, [[msg], "<Object>", rank + 1, 0], ["<Object>"]) if rank % 2 == 0 else
           node(12, "c10d::recv_", 2, 9, [[msg], "<Object>", rank - 1, 0], ["<Object>"]))
    nodes = [
        node(2, "[pytorch|profiler|execution_trace|thread]", 1, 0),
        groups_node(3, 2),
        node(4, "aten::mm", 2, 2, [a, b], [y]),
        node(5, "record_param_comms", 2, 3, [[y], 0, [pair, "tp"]], [[y]],
             comms("allreduce", pair, 2 * (rank // 2), 2, 1024)),
        node(6, "nccl:all_reduce", 5, 4, [[y]]),
        node(7, "c10d::_allgather_base_", 2, 5, [out, y, "<Object>", False, -1], [out, "<Object>"]),
        node(8, "record_param_comms", 7, 6, [[y], 1, ["0", "default_pg"]], [[out]],
             comms("_allgather_base", "0", 0, 4, 1024)),
        node(9, "nccl:_all_gather_base", 8, 7, [y]),
        node(10, "aten::add", 2, 8, [y, y, 1], [[18, 19, 0, 1024, 2, dev]]),
        p2p,
        node(1, "[pytorch|profiler|execution_trace|process]", 1, 0),
    ]
    return trace(rank, nodes)


# The second program (schema_1_1_shard_4r), as PyTorch 2.x records it with NCCL; same groups:
#   g = mm(a, b)                                   g: 4096 bf16 (8192 bytes)
#   reduce_scatter_tensor(s, g) on the world       c10d::_reduce_scatter_base_ > record_param_comms
#                                                  ("_reduce_scatter_base", in 4096, out 1024) > nccl:_reduce_scatter_base
#   reduce_scatter([o], [[s0, s1]]) on its pair    c10d::reduce_scatter_ > record_param_comms ("reduce_scatter",
#                                                  in 1024, out 512) > nccl:reduce_scatter; s0, s1 are the halves
#                                                  of s (views: same storage), o 512 bf16 (1024 bytes)
#   broadcast([o], src=0) on the world             c10d::broadcast_ > record_param_comms ("broadcast", 512)
#                                                  > nccl:broadcast
#   z = add(o, o)                                  reads o: waits for the broadcast
def shard_rank_trace(rank):
    dev = "cuda:%d" % rank
    a, b, g = [10, 11, 0, 2048, 2, dev], [12, 13, 0, 2048, 2, dev], [14, 15, 0, 4096, 2, dev]
    s, s0, s1 = [16, 17, 0, 1024, 2, dev], [18, 17, 0, 512, 2, dev], [19, 17, 512, 512, 2, dev]
    o = [20, 21, 0, 512, 2, dev]
    pair = "1" if rank < 2 else "2"
    start = 2 * (rank // 2)
    nodes = [
        node(2, "[pytorch|profiler|execution_trace|thread]", 1, 0),
        groups_node(3, 2),
        node(4, "aten::mm", 2, 2, [a, b], [g]),
        node(5, "c10d::_reduce_scatter_base_", 2, 3, [s, g, "<Object>", "<Object>", False, -1], [s, "<Object>"]),
        node(6, "record_param_comms", 5, 4, [[g], 0, ["0", "default_pg"]], [[s]],
             comms("_reduce_scatter_base", "0", 0, 4, 4096, 1024)),
        node(7, "nccl:_reduce_scatter_base", 6, 5, [g]),
        node(8, "c10d::reduce_scatter_", 2, 6, [[o], [[s0, s1]], "<Object>", "<Object>", -1], [[o], "<Object>"]),
        node(9, "record_param_comms", 8, 7, [[[s0, s1]], 1, [pair, "tp"]], [[[o]]],
             comms("reduce_scatter", pair, start, 2, 1024, 512)),
        node(10, "nccl:reduce_scatter", 9, 8, [[s0, s1]]),
        node(11, "c10d::broadcast_", 2, 9, [[o], "<Object>", 0, 0, False, -1], [[o], "<Object>"]),
        node(12, "record_param_comms", 11, 10, [[o], 2, ["0", "default_pg"]], [[o]],
             comms("broadcast", "0", 0, 4, 512)),
        node(13, "nccl:broadcast", 12, 11, [[o]]),
        node(14, "aten::add", 2, 12, [o, o, 1], [[22, 23, 0, 512, 2, dev]]),
        node(1, "[pytorch|profiler|execution_trace|process]", 1, 0),
    ]
    return trace(rank, nodes)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for r in range(4):
        with open(os.path.join(out, "schema_1_1_4r.et.%d.json" % r), "w") as f:
            json.dump(rank_trace(r), f, indent=1)
        with open(os.path.join(out, "schema_1_1_shard_4r.et.%d.json" % r), "w") as f:
            json.dump(shard_rank_trace(r), f, indent=1)
