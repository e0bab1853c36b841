//===- FWTypes.td - fw types -------------------------------*- tablegen -*-===//

#ifndef FW_DIALECT_FW_IR_FWTYPES_TD
#define FW_DIALECT_FW_IR_FWTYPES_TD

include "fw/Dialect/FW/IR/FWBase.td"

def FW_TokenType : TypeDef<FW_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "Completion token of an asynchronous dispatch";
  let description = [{
    Returned by `fw.dispatch`; `fw.wait` blocks until the work it stands for
    has finished, and `fw.dispatch ... after(%t)` orders work explicitly.
  }];
}

#endif // FW_DIALECT_FW_IR_FWTYPES_TD
