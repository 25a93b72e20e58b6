// Step-type properties of MSCCL XML (see program.hpp).
#include "chorus/msccl/program.hpp"

namespace chorus {

bool msccl_receives(MscclStepType t) {
  return t == MscclStepType::Recv || t == MscclStepType::RecvCopySend || t == MscclStepType::RecvReduceSend ||
         t == MscclStepType::RecvReduceCopy || t == MscclStepType::RecvReduceCopySend;
}

bool msccl_sends(MscclStepType t) {
  return t == MscclStepType::Send || t == MscclStepType::RecvCopySend || t == MscclStepType::RecvReduceSend ||
         t == MscclStepType::RecvReduceCopySend;
}

bool msccl_reduces(MscclStepType t) {
  return t == MscclStepType::RecvReduceSend || t == MscclStepType::RecvReduceCopy ||
         t == MscclStepType::RecvReduceCopySend || t == MscclStepType::Reduce;
}

const char* msccl_step_name(MscclStepType t) {
  switch (t) {
    case MscclStepType::Send:
      return "s";
    case MscclStepType::Recv:
      return "r";
    case MscclStepType::RecvCopySend:
      return "rcs";
    case MscclStepType::RecvReduceSend:
      return "rrs";
    case MscclStepType::RecvReduceCopy:
      return "rrc";
    case MscclStepType::RecvReduceCopySend:
      return "rrcs";
    case MscclStepType::Copy:
      return "cpy";
    case MscclStepType::Reduce:
      return "re";
    case MscclStepType::Nop:
      return "nop";
  }
  return "?";
}

}  // namespace chorus
