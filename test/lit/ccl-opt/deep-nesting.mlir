// RUN: python3 -c "print('module attributes {x.deep = ' + '[' * 5000 + ']' * 5000 + '} {}')" > %t.deep.mlir
// RUN: not %ccl-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: python3 -c "print('module attributes {x.deep = ' + '[' * 257 + ']' * 257 + '} {}')" > %t.257.mlir
// RUN: not %ccl-opt %t.257.mlir 2>&1 | FileCheck %s --check-prefix=DEEP257
// RUN: python3 -c "print('module attributes {x.s = \"' + '[' * 300 + '\"} {} // ' + '{' * 300)" > %t.str.mlir
// RUN: %ccl-opt --allow-unregistered-dialect %t.str.mlir | FileCheck %s --check-prefix=STRING
// RUN: python3 -c "print('module attributes {x.deep = ' + '[' * 250 + ']' * 250 + '} {}')" > %t.250.mlir
// RUN: %ccl-opt --allow-unregistered-dialect %t.250.mlir | FileCheck %s --check-prefix=SHALLOW
// RUN: cat %t.deep.mlir | not %ccl-opt 2>&1 | FileCheck %s --check-prefix=STDIN
//
// ccl-opt refuses MLIR nested deeper than 256 levels of brackets before
// MLIR's parser, which recurses once per level, overflows its stack on it
// (compiler/Support/InputLimits.h).

// Tests that an attribute nested 5,000 levels deep is refused with the
// position of the first bracket past the limit, not a stack overflow.
// DEEP: deep.mlir:1:284: error: brackets nest deeper than 256 levels, more than MLIR's parser takes; the input is refused

// Tests that one level past the limit is refused.
// DEEP257: 257.mlir:1:284: error: brackets nest deeper than 256 levels

// Tests that brackets inside a string literal and a comment do not count.
// STRING: module attributes {x.s = "{{\[\[\[}}

// Tests that input within the limit is parsed as before.
// SHALLOW: module attributes {x.deep = {{\[+\]+}}}

// Tests that input read from stdin is checked too.
// STDIN: <stdin>:1:284: error: brackets nest deeper than 256 levels
