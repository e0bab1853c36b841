// RUN: %fw-opt %s --split-input-file --fw-outline-tasks --verify-diagnostics

// expected-error @+1 {{'builtin.module' op 'fw.targets' must be a non-empty list of distinct fw target attributes, got [#fw.cpu<"x86-64-v3">, #fw.cpu<"x86-64-v3">]}}
module attributes {fw.targets = [#fw.cpu<"x86-64-v3">, #fw.cpu<"x86-64-v3">]} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'fw.targets' must be a non-empty list of distinct fw target attributes, got []}}
module attributes {fw.targets = []} {
}

// -----

// expected-error @+1 {{'builtin.module' op 'fw.targets' must be a non-empty list of distinct fw target attributes, got "cpu"}}
module attributes {fw.targets = "cpu"} {
}
